/**
 * Issue 19, "Exposure scopes": an organization owner creates a scope in the console, reads its inventory (stored
 * observations of its domain, the project's sample catalogue), records a decision (the service's conclusion rule
 * refused first, with its code), finds it in the history, freezes a report and opens it, runs a keyed refresh
 * (the cadence refusal with Retry-After), changes the timezone, associates a stored observation with the
 * catalogue and lists historical control records (nothing launched), archives, restores and deletes it with its
 * name typed; an analyst sees the manager-only actions as unavailable with the service's refusal. A real Chromium
 * against the listening service on the PostgreSQL server.
 */
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { parseCatalogueText } from '../../../src/catalogue/import/parse-catalogue-files.js';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../../src/catalogue/sample/sample-catalogue.js';
import {
  EnableExposition,
  ImportControlRecords,
} from '../../../src/exposure/commands/scope-lifecycle.commands.js';
import { checkedControlRecords } from '../../../src/exposure/domain/control-records.js';
import {
  personBrowser,
  Screenshots,
  signIn,
  startOrganizationStage,
  type ConsoleService,
} from '../../support/browser.js';
import { TestDnsServer } from '../../support/dns-server.js';
import { cpe, host } from '../../support/host-observations.js';
import { OrganizationHarness, operator, PASSWORD, type Actor } from '../../support/organizations.js';
import { waitForProjections } from '../../support/service.js';

const DOMAIN = 'perimeter-journey.example';
const SCOPE_NAME = 'Acme perimeter';
const KEV_SERVICE = '203.0.113.10:443/tcp';
/** Committed for the README; CONSOLE_README_IMAGES=1 refreshes it from this journey. */
const README_IMAGE = join(process.cwd(), 'docs', 'images', 'console-scope-inventory.png');

const HOSTS = [
  host('203.0.113.10', 443, {
    hostnames: [`www.${DOMAIN}`],
    product: 'http_server',
    vendor: 'apache',
    version: '2.4.49',
    cpe: [cpe('apache', 'http_server', '2.4.49')],
  }),
  host('203.0.113.11', 80, {
    hostnames: [`api.${DOMAIN}`],
    product: 'nginx',
    vendor: 'f5',
    version: '1.18.0',
    cpe: [cpe('f5', 'nginx', '1.18.0')],
  }),
  host('203.0.113.12', 443, {
    hostnames: [DOMAIN],
    product: 'http_server',
    vendor: 'apache',
    version: '2.4.58',
    cpe: [cpe('apache', 'http_server', '2.4.58')],
  }),
  host('203.0.113.13', 22, { hostnames: [`ssh.${DOMAIN}`] }),
  host('192.0.2.50', 25, {
    product: 'postfix',
    vendor: 'postfix',
    version: '3.5.0',
    cpe: [cpe('postfix', 'postfix', '3.5.0')],
  }),
];

describe('web console: exposure scopes', () => {
  let dns: TestDnsServer;
  let running: ConsoleService;
  let browser: Browser;
  let h: OrganizationHarness;
  let owner: Actor;
  let organizationId: string;
  let context: BrowserContext;
  let page: Page;
  let scopeUrl: string;
  const shots = new Screenshots('exposure-scopes');

  beforeAll(async () => {
    ({ dns, running, browser } = await startOrganizationStage());
    const { service } = running;
    // Stored observations (what the datasets hold) and the project's sample catalogue, as the imports write them.
    await service.context.observations.write('hosts', HOSTS);
    await service.context.catalogue.importParsed([
      parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD)),
      parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)),
    ]);
    h = new OrganizationHarness(service, dns);
    ({ owner, organizationId } = await h.trialOrganization());
    await service.app.get(CommandBus).execute(new EnableExposition(organizationId, 'capacity', operator()));
    ({ context, page } = await personBrowser(browser));
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await running?.dispose();
    await dns?.close();
  });

  it('creates a scope and shows its inventory with coverage states, a filter and no missing result read as safe', async () => {
    await signIn(page, running.origin, owner.email, PASSWORD);
    await page.goto(`${running.origin}/organizations/${organizationId}/scopes`);
    await page.getByRole('heading', { name: 'Exposure scopes' }).waitFor();
    await page.getByText('No exposure scope yet.').waitFor();
    await page.getByLabel('Scope name').fill(SCOPE_NAME);
    await page.getByLabel('Domain').fill(DOMAIN);
    await page.getByLabel('Timezone (IANA)').fill('Europe/Paris');
    await page.getByLabel(/^Addresses/).fill('192.0.2.50');
    await page.getByRole('button', { name: 'Create scope' }).click();

    // The initial refresh reads the stored observations; the page follows it until it settles.
    await page.getByRole('heading', { name: SCOPE_NAME }).waitFor();
    scopeUrl = page.url();
    const kevRow = page.getByRole('row', { name: new RegExp(KEV_SERVICE) });
    await kevRow.waitFor({ timeout: 30_000 });
    await page.getByText(/^completed · requested/).waitFor({ timeout: 30_000 });
    expect(await kevRow.textContent()).toContain('KEV association');
    // A service without identifiers cannot be evaluated: indeterminate, never "secure" nor "absent".
    const bare = page.getByRole('row', { name: /203\.0\.113\.13:22\/tcp/ });
    expect(await bare.textContent()).toContain('no identifiersindeterminate');
    expect(await page.getByRole('table').first().textContent()).not.toMatch(/secure|absent/i);
    // The README's picture of an inventory: one viewport, kept small; refreshed in docs/ only when asked.
    await page.setViewportSize({ width: 1280, height: 1400 });
    const picture = join(shots.folder, 'readme-scope-inventory.png');
    await page.screenshot({ path: picture });
    expect(statSync(picture).size).toBeLessThan(300 * 1024);
    if (process.env.CONSOLE_README_IMAGES === '1') copyFileSync(picture, README_IMAGE);
    await shots.take(page, 'inventory');

    // The filter options come from the service, with their counts; the address keeps the filter.
    const filter = page.getByLabel('Evaluation filter');
    const option = filter.locator('option', { hasText: 'coverage: no identifiers' });
    await filter.selectOption((await option.getAttribute('value'))!);
    await page.getByText(/Subjects 1–1 of 1 matching coverage:no identifiers/).waitFor();
    expect(page.url()).toContain('filter=coverage%3Ano_identifiers');
    await page.getByLabel('Group services by host').check();
    await page.getByRole('region', { name: 'Host 203.0.113.13' }).waitFor();
    // Each change is read back from the address before the next one.
    await filter.selectOption('');
    await page.getByText(/^Hosts 1–5/).waitFor();
    await page.getByLabel('Group services by host').uncheck();
    await page.getByText('Subjects 1–5 of 5').waitFor();
    await kevRow.waitFor();
  });

  it('records a decision (the conclusion rule refused first, with its code) and finds it in the history', async () => {
    await page.getByRole('button', { name: `Decide on ${KEV_SERVICE}` }).click();
    const form = page.getByRole('region', { name: `Decision on ${KEV_SERVICE}` });
    await form.getByLabel('Decision').selectOption('acknowledged');
    await form.getByLabel('Conclusion').selectOption('closed');
    await form.getByRole('button', { name: 'Record decision' }).click();
    const refusal = form.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.getAttribute('data-code')).toBe('invalid_input');
    expect(await form.locator('.field-problems').textContent()).toContain('according_to');
    await shots.take(page, 'decision-refused');

    await form.getByLabel('According to').fill('vendor advisory 2026-11');
    await form.getByRole('button', { name: 'Record decision' }).click();
    await form.getByText('Decision recorded.').waitFor();
    await page
      .getByRole('row', { name: new RegExp(KEV_SERVICE) })
      .getByText('acknowledged · closed')
      .waitFor();

    await page.getByRole('link', { name: `History of ${KEV_SERVICE}` }).click();
    await page.getByRole('heading', { name: 'History' }).waitFor();
    await page.getByText('decision: acknowledged (closed) (was new)').waitFor();
    expect(page.url()).toContain('subject=svc-');
    await shots.take(page, 'history');
  });

  it('freezes a report and opens it as the saved document, never as today’s inventory', async () => {
    await page.getByRole('link', { name: 'Frozen reports' }).click();
    await page.getByRole('button', { name: 'Freeze a report now' }).click();
    await page.getByRole('heading', { name: `Frozen report #1 of ${SCOPE_NAME}` }).waitFor();
    expect(await page.getByRole('note').textContent()).toContain("not today's inventory");
    await page.getByRole('row', { name: new RegExp(KEV_SERVICE) }).waitFor();
    await shots.take(page, 'frozen-report');
    await page.getByRole('link', { name: '← Frozen reports' }).click();
    await page.getByRole('link', { name: 'Report #1' }).waitFor();
  });

  it('runs a refresh with a key made in the browser; the cadence refusal shows its Retry-After', async () => {
    await page.getByRole('link', { name: 'Monitoring, notifications, run' }).click();
    const key = page.getByLabel('Stable run key (16 to 64 characters)');
    const first = await key.inputValue();
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    await page.getByRole('button', { name: 'Run refresh' }).click();
    await page.getByText(/^Refresh accepted/).waitFor();
    await page.getByRole('button', { name: 'Generate a new key' }).click();
    expect(await key.inputValue()).not.toBe(first);
    await page.getByRole('button', { name: 'Run refresh' }).click();
    await page.locator('[role="alert"][data-code="rate_limited"]').waitFor();
    await page.getByText(/^Retry after \d+ seconds/).waitFor();

    // Monitoring: activated, then stopped, each as the service answers.
    await page.getByRole('button', { name: 'Activate monitoring' }).click();
    await page.getByRole('button', { name: 'Stop monitoring' }).click();
    await page.getByRole('button', { name: 'Activate monitoring' }).waitFor();

    // The email preference: enabled for the owner, saved with the version the service gave.
    await page.getByLabel('Email notifications enabled').check();
    await page.getByRole('checkbox', { name: new RegExp(owner.accountId) }).check();
    await page.getByRole('button', { name: 'Save preference' }).click();
    await page.getByText(/\(version 1\)/).waitFor();
    await shots.take(page, 'run-and-notifications');
  });

  it('changes the timezone, associates a stored observation with the catalogue and lists historical controls', async () => {
    // The timezone: the service's refusal of an unknown name first, then the change with the version read.
    const timezone = page.getByLabel('New timezone (IANA)');
    await timezone.fill('Mars/Base');
    await page.getByRole('button', { name: 'Change timezone' }).click();
    await page.locator('[role="alert"][data-code="invalid_input"]').waitFor();
    await timezone.fill('UTC');
    await page.getByRole('button', { name: 'Change timezone' }).click();
    await page.getByText('Timezone changed to UTC.').waitFor();
    await page.getByText(`${DOMAIN} · UTC`).waitFor();

    // Control records arrive through the operators' import (the CLI's command), never from the console.
    const scopeId = new URL(scopeUrl).pathname.split('/').pop()!;
    const records = checkedControlRecords([
      {
        asset: '203.0.113.10',
        kind: 'penetration_test',
        title: 'Annual penetration test',
        performed_at: '2026-03-02',
        performed_by: 'Example Auditors',
      },
      {
        asset: '203.0.113.11',
        kind: 'configuration_review',
        title: 'Proxy configuration review',
        performed_at: '2026-05-20',
      },
    ]);
    await running.service.app.get(CommandBus).execute(new ImportControlRecords(scopeId, records, operator()));
    await waitForProjections(running.service, ['exposure-inventory']);

    await page.getByRole('link', { name: 'Controls and catalogue' }).click();
    await page.getByRole('combobox', { name: 'Stored observation' }).selectOption({ label: KEV_SERVICE });
    await page.getByRole('button', { name: 'Associate with the catalogue' }).click();
    const association = page.getByTestId('association');
    await association.getByRole('heading', { name: `Catalogue association of ${KEV_SERVICE}` }).waitFor();
    expect(await association.textContent()).toContain('CVE-2021-41773');
    expect(await association.getByRole('note').textContent()).toContain('No asset was contacted');
    await page.getByText('this is an association, not an assessment').waitFor();

    // Historical evidence only: both imported records, then one asset's, and nothing to launch.
    await page.getByRole('row', { name: /Annual penetration test/ }).waitFor();
    await page.getByRole('row', { name: /Proxy configuration review/ }).waitFor();
    await page.getByLabel('Asset (asset key or address)').fill('203.0.113.11');
    await page.getByRole('button', { name: 'Show records' }).click();
    await page.getByText('1 record for 203.0.113.11').waitFor();
    expect(await page.getByRole('row', { name: /Annual penetration test/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /scan|launch/i }).count()).toBe(0);
    await shots.take(page, 'controls-and-catalogue');
  });

  it('shows the manager-only actions to an analyst as unavailable, with the service’s refusal', async () => {
    const scopeId = new URL(scopeUrl).pathname.split('/').pop()!;
    const analyst = await h.member(organizationId, owner, 'analyst', { spaces: [scopeId] });
    const other = await personBrowser(browser);
    try {
      await signIn(other.page, running.origin, analyst.email, PASSWORD);
      await other.page.goto(`${scopeUrl}/settings`);
      await other.page.getByText(/^The email preference is unavailable/).waitFor();
      await other.page.getByRole('button', { name: 'Change timezone' }).click();
      await other.page.getByText(/^Changing the timezone is unavailable/).waitFor();
      const archive = other.page.getByRole('button', { name: 'Archive scope' });
      await archive.click();
      await other.page.getByText(/^Archiving the scope is unavailable/).waitFor();
      expect(await archive.getAttribute('aria-disabled')).toBe('true');
      expect(await other.page.locator('.unavailable[data-code="forbidden"]').count()).toBeGreaterThan(0);
      await shots.take(other.page, 'analyst-unavailable');
      // The managers' list of deleted scopes: a section that says why it is not this analyst's.
      await other.page.getByRole('link', { name: '← All scopes' }).click();
      await other.page.getByText(/^The deleted scopes list is unavailable/).waitFor();
    } finally {
      await other.context.close();
    }
  });

  it('archives, restores, then deletes with the exact name typed; the deleted scope can be restored', async () => {
    await page.getByRole('button', { name: 'Archive scope' }).click();
    await page.getByText(/This scope is archived/).waitFor();
    await page.getByRole('button', { name: 'Restore scope' }).click();
    await page.getByRole('button', { name: 'Archive scope' }).waitFor();

    await page.getByRole('button', { name: 'Delete scope…' }).click();
    await page.getByLabel('Scope name to confirm').fill(SCOPE_NAME.toLowerCase());
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    const refused = page.getByRole('alert');
    await refused.waitFor();
    await shots.take(page, 'delete-name-refused');
    await page.getByLabel('Scope name to confirm').fill(SCOPE_NAME);
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    await page.getByText('No exposure scope yet.').waitFor();
    const restore = page.getByRole('button', { name: `Restore ${SCOPE_NAME}` });
    await restore.waitFor();
    await shots.take(page, 'deleted');
    await restore.click();
    await page
      .getByRole('row', { name: new RegExp(SCOPE_NAME) })
      .getByText('archived')
      .waitFor();
    // At phone width the list and its forms stay usable (the tables scroll inside their own box).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shots.take(page, 'phone-list');
  });
});
