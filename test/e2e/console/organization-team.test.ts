/**
 * Issue 19, "Organization team": a Free account with purchased credits creates a trial organization in the
 * console (the preview's transfer shown, the account transition explicitly accepted, the business domain proven
 * by the DNS TXT record the console shows, checked through a real resolver against a loopback DNS server),
 * is refused a search before a space is chosen, chooses a client space, opens a case, searches, selects records
 * (the 21st refused) and saves them as evidence, then sees exactly those records in the case. A second account
 * subscribes without a trial: restricted until checkout, no free credits, only its purchased credits moved. A real
 * Chromium against the listening service on the PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { Browser, Page } from 'playwright-core';
import { PurchaseCredits } from '../../../src/accounts/commands/account.commands.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import { DATASETS } from '../../../src/search/domain/datasets.js';
import { writeGenerated } from '../../../src/search/data/demo-corpus.js';
import {
  personBrowser,
  registerPerson,
  Screenshots,
  signIn,
  startOrganizationStage,
  type ConsoleService,
} from '../../support/browser.js';
import { TestDnsServer } from '../../support/dns-server.js';
import { waitUntil } from '../../support/storage.js';

describe('web console: organization team', () => {
  let dns: TestDnsServer;
  let running: ConsoleService;
  let browser: Browser;
  const shots = new Screenshots('organization-team');

  beforeAll(async () => {
    ({ dns, running, browser } = await startOrganizationStage());
    const { context } = running.service;
    await waitUntil(() => context.projections.allLive());
    const now = new Date();
    await Promise.all(
      DATASETS.map((dataset) =>
        writeGenerated(context.observations, dataset, { count: 40, seed: 'console-organization', now }),
      ),
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.dispose();
    await dns?.close();
  });

  /** A space created through the real HTTP API with the page's own session and CSRF cookie. */
  async function createClientSpace(page: Page, orgId: string, name: string): Promise<string> {
    const cookies = await page.context().cookies(running.origin);
    const csrf = cookies.find((cookie) => cookie.name === '__Host-pc')?.value ?? '';
    const response = await page.request.post(`${running.origin}/api/v2/organizations/${orgId}/spaces`, {
      headers: { 'x-csrf-token': csrf },
      data: { name },
    });
    expect(response.status()).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  it('creates a trial organization, chooses a space before searching, and saves selected records to a case', async () => {
    const owner = await registerPerson(running.service, 'org-owner', { plan: 'free', purchasedCredits: 120 });
    const { context, page } = await personBrowser(browser);
    try {
      await signIn(page, running.origin, owner.email, owner.password);
      await page.getByRole('link', { name: 'Organization', exact: true }).click();

      // The preview comes first: the purchased credits that would move, then the explicit acceptance.
      await page.getByRole('heading', { name: 'Create an organization' }).waitFor();
      expect(await page.getByTestId('transfer-credits').textContent()).toBe('120');
      const domain = `acme-${Date.now().toString(36)}.example`;
      await page.getByLabel('Organization name').fill('Acme Research');
      await page.getByLabel('Business domain', { exact: true }).fill(domain);
      const create = page.getByRole('button', { name: 'Create organization' });
      expect(await create.getAttribute('aria-disabled')).toBe('true');
      await page.getByText('Accept the account transition first.').waitFor();
      await shots.take(page, 'creation-preview');
      await page.getByLabel('I accept the account transition').check();
      expect(await create.getAttribute('aria-disabled')).toBe('false');
      // The personal balance moves after the preview: the service refuses, the console shows the new amount and
      // asks for the acceptance again.
      await running.service.app
        .get(CommandBus)
        .execute(
          new PurchaseCredits(
            owner.accountId,
            30,
            commandEnvelope({ actor: 'operator:console-journey', payer: 'system' }),
          ),
        );
      await create.click();
      await page.getByText('The credits that would move changed since the preview: now 150').waitFor();
      expect(await page.getByTestId('transfer-credits').textContent()).toBe('150');
      expect(await page.getByLabel('I accept the account transition').isChecked()).toBe(false);
      await shots.take(page, 'transfer-changed');
      await page.getByLabel('I accept the account transition').check();
      await create.click();

      // A trial awaits its domain proof: the console shows the TXT record to publish, then asks the service.
      await page.getByRole('heading', { name: `Verify ${domain}` }).waitFor();
      const orgId = /\/organizations\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
      expect(orgId).not.toBe('');
      const txtName = (await page.getByTestId('txt-name').textContent()) ?? '';
      const txtValue = (await page.getByTestId('txt-value').textContent()) ?? '';
      expect(txtName).toBe(`_exposure-verification.${domain}`);
      // Restricted until the proof: the search is shown as unavailable with what lifts it.
      await page.getByText('Searches are unavailable until then').waitFor();
      await shots.take(page, 'dns-instructions');
      dns.setTxt(txtName, txtValue);
      await page.getByRole('button', { name: 'Check the DNS record' }).click();
      await page.getByText('active · owner').waitFor();
      // Billing: the trial's plan and end, no restriction left, and the shared balance (1,000 + the 150 moved).
      await page
        .getByRole('navigation', { name: 'Organization' })
        .getByRole('link', { name: 'Billing' })
        .click();
      await page.getByText('Not restricted.').waitFor();
      await page.getByText(`${domain}: ends`).waitFor();
      await page.getByRole('heading', { name: 'Organization credits' }).waitFor();
      await page.getByText('1,150', { exact: true }).first().waitFor();
      await shots.take(page, 'billing');
      const client = await createClientSpace(page, orgId, 'Northwind');

      // A new sign-in starts with nothing selected: searching is unavailable until a space is chosen.
      // The organization's balance (service_credits describes the session's own payer, which changes on sign-in).
      const organizationCredits = async () => {
        const answer = await page.request.get(`${running.origin}/api/v2/organizations/${orgId}/credits`);
        const { available, balance, reserved } = (await answer.json()) as Record<string, unknown>;
        return { available, balance, reserved };
      };
      const creditsBeforeOpening = await organizationCredits();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, running.origin, owner.email, owner.password);
      // Rule 1: the account's research runs in its organization; personal search is shown as unavailable.
      await page.locator('header [aria-disabled="true"][data-reason="organization_member"]').waitFor();
      await page.getByRole('link', { name: 'Organization', exact: true }).click();
      // The account now owns an organization: creation is shown as unavailable, with the service's reason.
      await page.locator('.unavailable[data-reason="owns_organization"]').waitFor();
      await page.getByRole('link', { name: 'Acme Research' }).click();
      const search = page.getByRole('button', { name: 'Search', exact: true });
      await search.waitFor();
      expect(await search.getAttribute('aria-disabled')).toBe('true');
      await page.getByText('Choose a space before searching').waitFor();
      await shots.take(page, 'space-required');
      // Rule 2: opening the organization and its workspace started no collection and spent nothing.
      expect(await organizationCredits()).toEqual(creditsBeforeOpening);

      await page.getByRole('combobox', { name: 'Space', exact: true }).selectOption(client);
      await page.getByText('Research runs in Northwind').waitFor();
      expect(await search.getAttribute('aria-disabled')).toBe('false');

      // A case of the client space (General research owns none).
      await page
        .getByRole('navigation', { name: 'Organization' })
        .getByRole('link', { name: 'Cases' })
        .click();
      const caseSpace = page.getByRole('combobox', { name: 'Space of the case' });
      await page.getByLabel('Case title').fill('Exposed admin panels');
      await caseSpace.selectOption({ label: 'General research' });
      await page.getByText('General research cannot own new cases').waitFor();
      expect(await page.getByRole('button', { name: 'Open case' }).getAttribute('aria-disabled')).toBe(
        'true',
      );
      await caseSpace.selectOption(client);
      await page.getByRole('button', { name: 'Open case' }).click();
      await page.getByRole('heading', { name: 'Exposed admin panels' }).waitFor();
      await page
        .getByRole('navigation', { name: 'Organization' })
        .getByRole('link', { name: 'Workspace' })
        .click();

      await page.getByLabel('Query', { exact: true }).fill('com');
      await search.click();
      await page.getByRole('heading', { name: 'Results' }).waitFor();
      const boxes = page.getByRole('checkbox', { name: /^Select / });
      expect(await boxes.count()).toBeGreaterThan(20);
      const labels: string[] = [];
      for (let i = 0; i < 20; i++) {
        const box = boxes.nth(i);
        labels.push((await box.getAttribute('aria-label')) ?? '');
        await box.check();
      }
      await page.getByText('20 of 20 records selected').waitFor();
      await boxes.nth(20).click();
      await page.getByText('At most 20 records of a completed search').waitFor();
      expect(await boxes.nth(20).isChecked()).toBe(false);
      // Reordering the shown rows keeps the same records selected (keyed by record, not by row).
      await page.getByRole('combobox', { name: 'Order' }).selectOption('id');
      for (const label of labels)
        expect(await page.getByRole('checkbox', { name: label }).isChecked()).toBe(true);
      await shots.take(page, 'twenty-selected');

      await page
        .getByRole('combobox', { name: 'Case', exact: true })
        .selectOption({ label: 'Exposed admin panels' });
      await page.getByLabel('Note', { exact: true }).fill('admin panels exposed under .com');
      expect(await page.getByLabel('Internal (staff only)').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Save 20 records as evidence' }).click();
      await page.getByRole('link', { name: 'Exposed admin panels' }).click();
      await page.getByText('admin panels exposed under .com').waitFor();
      const saved = await page.locator('.evidence-list code').allTextContents();
      expect(saved.sort()).toEqual(labels.map((label) => label.split(' ').slice(2).join(' ')).sort());
      await shots.take(page, 'case-evidence');
      await page.getByRole('button', { name: 'Archive case' }).click();
      await page.getByText('Archived: it stays reviewable').waitFor();
      // The same case at phone width (390 px), without another page load.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByText('admin panels exposed under .com').waitFor();
      await shots.take(page, 'case-evidence-phone');
    } finally {
      await context.close();
    }
  });

  it('subscribes without a trial: an empty billing workspace, restricted until checkout', async () => {
    const owner = await registerPerson(running.service, 'org-subscriber', {
      plan: 'free',
      purchasedCredits: 80,
    });
    const { context, page } = await personBrowser(browser);
    try {
      await signIn(page, running.origin, owner.email, owner.password);
      await page.getByRole('link', { name: 'Organization', exact: true }).click();
      await page.getByRole('heading', { name: 'Create an organization' }).waitFor();
      expect(await page.getByTestId('transfer-credits').textContent()).toBe('80');
      await page.getByLabel('Organization name').fill('Globex Billing');
      await page.getByLabel(/^Subscribe without a trial/).check();
      // No domain to prove: the field belongs to a trial only.
      expect(await page.getByLabel('Business domain', { exact: true }).count()).toBe(0);
      await page.getByLabel('I accept the account transition').check();
      await page.getByRole('button', { name: 'Create organization' }).click();

      // Rule 14: awaiting payment restricts everyone; search is unavailable with the service's action.
      const search = page.getByRole('button', { name: 'Search', exact: true });
      await search.waitFor();
      await page.getByText('awaiting payment · owner').waitFor();
      const reason = page.locator('#search-unavailable');
      await reason.getByText('complete checkout in billing').waitFor();
      expect(await reason.textContent()).toContain('Searches are unavailable until then');
      expect(await search.getAttribute('aria-disabled')).toBe('true');
      await shots.take(page, 'subscription-restricted');

      // Billing: no plan and no trial credits until checkout; only the 80 purchased credits moved in.
      await page
        .getByRole('navigation', { name: 'Organization' })
        .getByRole('link', { name: 'Billing' })
        .click();
      await page.getByText('Restricted until this is done: complete checkout in billing').waitFor();
      await page.getByText('none: subscribed without a trial, so no free credits').waitFor();
      const credits = page.getByRole('region', { name: 'Organization credits' });
      expect(await credits.getByTestId('credits-balance').textContent()).toBe('80');
      expect(await credits.getByTestId('credits-available').textContent()).toBe('80');
      await page.getByRole('heading', { name: 'Choose the plan to check out' }).waitFor();
      await page.getByRole('combobox', { name: 'Plan' }).selectOption('business');
      await page.getByRole('button', { name: 'Request this plan' }).click();
      await page.getByText('business (completed at checkout)').waitFor();
      // Requesting the plan is no payment: the organization stays restricted.
      await page.getByText('Restricted until this is done: complete checkout in billing').waitFor();
      await shots.take(page, 'subscription-billing');
    } finally {
      await context.close();
    }
  });
});
