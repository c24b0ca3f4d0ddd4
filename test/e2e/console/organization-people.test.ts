/**
 * Issue 19, Organization team (rules 11 and 12): an owner invites an analyst and an external client through the
 * console and passes the invitation links on; each accepts in their own browser; the owner changes a role,
 * assigns a space, assigns a review queue item and prepares and publishes a comparison; the external client sees
 * only the published view, and internal pages are shown as not available to them. A real Chromium against the
 * listening service on the PostgreSQL server; the organization is set up through the real HTTP API.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { writeGenerated } from '../../../src/search/data/demo-corpus.js';
import {
  personBrowser,
  Screenshots,
  signIn,
  startOrganizationStage,
  type ConsoleService,
} from '../../support/browser.js';
import { TestDnsServer } from '../../support/dns-server.js';
import { OrganizationHarness, PASSWORD, type Actor } from '../../support/organizations.js';

const org = (id: string, rest = ''): string => `/api/v2/organizations/${id}${rest}`;

describe('organization people journey', () => {
  let dns: TestDnsServer;
  let running: ConsoleService;
  let browser: Browser;
  let h: OrganizationHarness;
  const shots = new Screenshots('organization-people');

  beforeAll(async () => {
    ({ dns, running, browser } = await startOrganizationStage());
    await writeGenerated(running.service.context.observations, 'hosts', {
      count: 40,
      seed: 'organization-people-journey',
      now: new Date(),
    });
    h = new OrganizationHarness(running.service, dns);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.dispose();
    await dns?.close();
  });

  /** The invitation link the console shows after an invitation, read from its labelled field. */
  async function invite(page: Page, email: string, role: string, space?: string): Promise<string> {
    await page.getByLabel('Email of the person to invite').fill(email);
    await page.getByLabel(/^Role/).selectOption({ label: role });
    if (space) await page.getByRole('checkbox', { name: space }).check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    const link = page.getByLabel('Invitation link');
    await page.getByText(`Invitation for ${email}`).waitFor();
    return link.inputValue();
  }

  async function accept(page: Page, person: Actor, link: string): Promise<void> {
    await signIn(page, running.origin, person.email, PASSWORD);
    await page.goto(link);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
  }

  it('invites, accepts, changes a role, assigns a space and a review item; the external client keeps the published view', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const alphaName = 'Alpha Client';
    const alpha = await h.space(organizationId, owner, { name: alphaName });
    const beta = await h.space(organizationId, owner, { name: 'Beta Client' });
    const [analyst, external] = await Promise.all([h.account(), h.account()]);

    // A completed search in Alpha, one of its records queued for review, two saved as client-visible evidence.
    await h.switchTo(owner, organizationId, alpha);
    const search = JSON.parse((await h.search(owner, 'nginx')).body) as {
      search_id: string;
      results: Record<string, Array<{ dataset: string; id: string }>>;
    };
    const records = Object.values(search.results).flat();
    expect(records.length).toBeGreaterThanOrEqual(2);
    await h.ok(owner, 'POST', org(organizationId, '/review-queue'), {
      search_id: search.search_id,
      record: { dataset: records[0]!.dataset, id: records[0]!.id },
    });
    const caseId = (
      await h.ok(owner, 'POST', org(organizationId, '/cases'), { space_id: alpha, title: 'Alpha review' })
    ).id as string;
    await h.ok(owner, 'PUT', org(organizationId, '/context'), { space_id: alpha, case_id: caseId });
    await h.ok(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: search.search_id,
      records: records.slice(0, 2).map(({ dataset, id }) => ({ dataset, id })),
      note: 'two exposed hosts',
      visibility: 'client',
    });

    const owners = await personBrowser(browser);
    const analysts = await personBrowser(browser);
    const externals = await personBrowser(browser, 'phone');
    try {
      // The owner invites both people and is given the links to pass on.
      const ownerPage = owners.page;
      await signIn(ownerPage, running.origin, owner.email, PASSWORD);
      await ownerPage.goto(`${running.origin}/organizations/${organizationId}/members`);
      await ownerPage.getByRole('heading', { name: 'Members' }).waitFor();
      const analystLink = await invite(ownerPage, analyst.email, 'Analyst');
      const externalLink = await invite(ownerPage, external.email, 'External client', alphaName);
      expect(externalLink).toContain(`/organizations/${organizationId}/members?invitation=`);
      await shots.take(ownerPage, 'owner-invited');

      // The analyst accepts in their own browser and lands on the member list.
      await accept(analysts.page, analyst, analystLink);
      await analysts.page.getByRole('heading', { name: 'Members' }).waitFor();
      await analysts.page.locator(`tr[data-account="${analyst.accountId}"]`).waitFor();
      // The analyst's role does not manage members: the service answers without assignments, so it is shown.
      const unavailable = analysts.page.getByText(
        'Unavailable: your role (Analyst) does not manage members.',
      );
      expect(await unavailable.first().isVisible()).toBe(true);
      await shots.take(analysts.page, 'analyst-accepted');

      // The owner changes the analyst's role and assigns them a space.
      await ownerPage.reload();
      const row = ownerPage.locator(`tr[data-account="${analyst.accountId}"]`);
      await row.waitFor();
      await row.getByLabel(`New role for ${analyst.accountId}`).selectOption('administrator');
      await row.getByRole('button', { name: `Change role of ${analyst.accountId}` }).click();
      await row.getByRole('cell', { name: 'Administrator', exact: true }).waitFor();
      await row.getByLabel(`Space to assign to ${analyst.accountId}`).selectOption({ label: alphaName });
      await row.getByRole('button', { name: `Assign space to ${analyst.accountId}` }).click();
      await row.getByRole('button', { name: `Unassign ${alphaName}` }).waitFor();
      const members = (await h.ok(owner, 'GET', org(organizationId, '/members'))).members as Array<{
        account_id: string;
        role: string;
        space_ids: string[];
      }>;
      expect(members.find((m) => m.account_id === analyst.accountId)).toMatchObject({
        role: 'administrator',
        space_ids: [alpha],
      });
      await shots.take(ownerPage, 'role-changed-space-assigned');

      // Ownership is only offered: the recipient sees the offer and declines it; nothing changed hands.
      await row.getByRole('button', { name: `Offer ownership to ${analyst.accountId}` }).click();
      await ownerPage.getByText(`Ownership offered to ${analyst.accountId}`).waitFor();
      await analysts.page.reload();
      await analysts.page.getByRole('heading', { name: 'Ownership offered to you' }).waitFor();
      await analysts.page.locator(`tr[data-account="${owner.accountId}"]`).waitFor();
      await shots.take(analysts.page, 'ownership-offered');
      await analysts.page.getByRole('button', { name: 'Decline ownership' }).click();
      await analysts.page
        .getByRole('heading', { name: 'Ownership offered to you' })
        .waitFor({ state: 'detached' });
      expect(await h.ok(owner, 'GET', org(organizationId))).toMatchObject({
        owner_account_id: owner.accountId,
        ownership_offer: null,
      });

      // The review queue item is assigned, given a due date and tied to the saved evidence.
      await ownerPage.getByRole('link', { name: 'Review queue' }).click();
      const item = ownerPage.locator('li.review-item');
      await item.waitFor();
      await item.getByLabel(/^Assignee for/).selectOption(analyst.accountId);
      await item.getByLabel(/^Due date for/).fill('2027-01-15');
      await item.getByLabel(/^Case for/).selectOption({ label: 'Alpha review' });
      const evidenceOption = item.locator('option', { hasText: 'two exposed hosts' });
      await evidenceOption.waitFor({ state: 'attached' });
      await item
        .getByLabel(/^Evidence for/)
        .selectOption({ label: (await evidenceOption.textContent()) ?? '' });
      await item.getByRole('button', { name: /^Save review of/ }).click();
      await ownerPage.locator('dd[data-field="assignee"]', { hasText: analyst.accountId }).waitFor();
      await ownerPage.locator('dd[data-field="due"]', { hasText: '2027-01-15' }).waitFor();
      const queue = (await h.ok(owner, 'GET', org(organizationId, '/review-queue'))).items as Array<{
        assignee: string | null;
        due_date: string | null;
        source: { case_id: string } | null;
      }>;
      expect(queue[0]).toMatchObject({ assignee: analyst.accountId, due_date: '2027-01-15' });
      expect(queue[0]!.source?.case_id).toBe(caseId);
      await shots.take(ownerPage, 'review-item-assigned');

      // A comparison prepared from the client-visible evidence, then published to Alpha's view.
      await ownerPage
        .getByRole('navigation', { name: 'Organization' })
        .getByRole('link', { name: 'Comparisons' })
        .click();
      await ownerPage.getByLabel(/^Space/).selectOption({ label: alphaName });
      await ownerPage.getByLabel('Comparison title').fill('Alpha hosts compared');
      await ownerPage.getByRole('checkbox', { name: /two exposed hosts/ }).check();
      await ownerPage.getByRole('button', { name: 'Prepare comparison' }).click();
      await ownerPage.getByRole('heading', { name: 'Alpha hosts compared' }).waitFor();
      await ownerPage.getByRole('button', { name: 'Publish to the client' }).click();
      await ownerPage.getByText('Published to the client').waitFor();
      await shots.take(ownerPage, 'comparison-published');

      // The external client accepts; an internal page is shown as not available to them, with their views.
      const externalPage = externals.page;
      await accept(externalPage, external, externalLink);
      const notForExternal = externalPage.locator('[data-unavailable="external_client"]');
      await notForExternal.waitFor();
      expect(await notForExternal.textContent()).toContain('Members is not available to external clients');
      await shots.take(externalPage, 'external-internal-page-unavailable');
      await externalPage.getByRole('link', { name: `Published view of ${alphaName}` }).click();
      await externalPage.getByRole('heading', { name: 'Alpha hosts compared' }).waitFor();
      // Each field the service found differing is a row of the view.
      const view = (await h.ok(owner, 'GET', org(organizationId, `/clients/${alpha}/published`)))
        .comparisons as Array<{
        differing_fields: string[];
      }>;
      for (const field of view[0]!.differing_fields) {
        expect(await externalPage.getByRole('rowheader', { name: field, exact: true }).count()).toBe(1);
      }
      await shots.take(externalPage, 'external-published-view');

      // A space not shared with them: the service's refusal, shown with its code.
      await externalPage.goto(`${running.origin}/organizations/${organizationId}/published/${beta}`);
      const refusal = externalPage.getByRole('alert').filter({ hasText: 'Published view unavailable' });
      await refusal.waitFor();
      expect(await refusal.getAttribute('data-code')).toMatch(/^(not_found|forbidden)$/);
      await shots.take(externalPage, 'external-other-space-refused');

      // Removing a member asks for confirmation first; then their access ends.
      await ownerPage.getByRole('link', { name: 'Members' }).click();
      const removed = ownerPage.locator(`tr[data-account="${analyst.accountId}"]`);
      await removed.getByRole('button', { name: `Remove ${analyst.accountId}` }).click();
      await removed.getByText('Their access ends at once.').waitFor();
      await shots.take(ownerPage, 'removal-confirmation');
      await removed.getByRole('button', { name: `Confirm removal of ${analyst.accountId}` }).click();
      await removed.waitFor({ state: 'detached' });
      const after = (await h.ok(owner, 'GET', org(organizationId, '/members'))).members as Array<{
        account_id: string;
      }>;
      expect(after.map((m) => m.account_id)).not.toContain(analyst.accountId);
    } finally {
      await Promise.all([owners.context.close(), analysts.context.close(), externals.context.close()]);
    }
  });
});
