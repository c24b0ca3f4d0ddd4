/**
 * Issue 19, "Researcher" (search): a professional person with purchased credits searches the demo corpus in a real
 * Chromium against the listening service on the PostgreSQL server. The fields vocabulary is the inline help; results
 * stream in per dataset with each dataset's state (a dataset the query does not apply to reads invalid_query, never
 * zero); a syntax error is refused with its code; the next page's price comes from the service before paying and the
 * credits move by exactly that; advisories for a host are worded as an association, not an assessment; a badge's
 * related search starts only when clicked; the page is usable at 390 px.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { loadSampleCatalogue } from '../../../src/catalogue/sample/sample-catalogue.js';
import { CreditLedger } from '../../../src/credits/commands/credit-ledger.js';
import { writeGenerated } from '../../../src/search/data/demo-corpus.js';
import { DATASETS } from '../../../src/search/domain/datasets.js';
import {
  launchChromium,
  personBrowser,
  registerPerson,
  Screenshots,
  signIn,
  startConsoleService,
  type ConsoleService,
} from '../../support/browser.js';

describe('researcher search in the web console', () => {
  let running: ConsoleService;
  let browser: Browser;
  const shots = new Screenshots('researcher-search');

  beforeAll(async () => {
    [running, browser] = await Promise.all([startConsoleService('postgres'), launchChromium()]);
    const { catalogue, observations } = running.service.context;
    // As a demo start does: the sample catalogue first, so the generated hosts are associated as they land.
    await loadSampleCatalogue(catalogue, observations);
    for (const dataset of DATASETS)
      await writeGenerated(observations, dataset, { count: 200, seed: 'console-search', now: new Date() });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.dispose();
  });

  it('streams a search per dataset with honest states, prices a further page before paying, and words advisories carefully', async () => {
    const person = await registerPerson(running.service, 'researcher', { purchasedCredits: 100 });
    const ledger = running.service.app.get(CreditLedger);
    const available = () => ledger.available(`account:${person.accountId}`);
    const { context, page } = await personBrowser(browser);
    try {
      await signIn(page, running.origin, person.email, person.password);
      await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();

      // The fields vocabulary is the inline help, with the prices the service states.
      await page.getByText(/Fields you can search/).click();
      await page.getByRole('cell', { name: 'port', exact: true }).waitFor();
      expect(
        await page
          .getByText(/whois 3 credits/)
          .first()
          .isVisible(),
      ).toBe(true);
      await shots.take(page, 'fields-help');
      await page.getByText(/Fields you can search/).click();

      // A query that cannot be parsed is refused before any stream, with its code.
      const query = page.getByRole('textbox', { name: 'Query', exact: true });
      await query.fill('port:443 AND (nginx');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'The search was refused' });
      await refusal.waitFor();
      expect(await refusal.getAttribute('data-code')).toBe('invalid_query');
      await shots.take(page, 'syntax-refused');

      // A host query: hosts answer, the datasets it does not apply to read invalid_query, never zero.
      const beforeSearch = await available();
      await query.fill('cve:*');
      await page.getByLabel('Results per dataset').fill('5');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      const complete = page.getByTestId('search-complete');
      await complete.waitFor();
      expect(await page.getByTestId('state-hosts').textContent()).toBe('ok');
      expect(await page.getByTestId('state-dns').textContent()).toBe('invalid_query');
      const dns = page.getByRole('region', { name: /^dns/ });
      expect(await dns.textContent()).toContain('no answer — not a zero-match result');
      const hosts = page.getByRole('region', { name: /^hosts/ });
      expect(await hosts.getByRole('row').count()).toBe(6);
      const charged = Number(/Charged (\d+) credit/.exec((await complete.textContent()) ?? '')?.[1]);
      expect(charged).toBeGreaterThan(0);
      expect(await available()).toBe(beforeSearch - charged);
      // Badges come on the results (free); their related searches wait for a click.
      await hosts.locator('.badges').first().waitFor();
      await shots.take(page, 'results');
      // The first screen of the page, for the README (docs/images/console-search.png is copied from it).
      await page.screenshot({ path: join(shots.folder, 'search-page.png') });

      // The next page's price is the service's quote, shown before paying; paying moves the credits by exactly it.
      const quote = hosts.locator('.quote');
      await quote.waitFor();
      const price = Number(/Page 2 of hosts costs (\d+) credit/.exec((await quote.textContent()) ?? '')?.[1]);
      expect(price).toBe(1);
      await shots.take(page, 'next-page-price');
      const beforePage = await available();
      await hosts.getByRole('button', { name: `Load page 2 of hosts for ${price} credit` }).click();
      await hosts.getByText(`Page 2: 5 records, charged ${price} credit`).waitFor();
      expect(await available()).toBe(beforePage - price);
      expect(await hosts.getByRole('row').count()).toBe(11);
      await hosts.getByText('Page 3 of hosts costs').waitFor();
      await shots.take(page, 'next-page-paid');

      // Advisories for one host: an association of the observed software, not an assessment; never "vulnerable".
      await hosts
        .getByRole('button', { name: /^Advisories/ })
        .first()
        .click();
      const findings = page.getByRole('region', { name: /^Catalogue advisories for/ });
      await findings
        .getByText(/catalogue advisor(y|ies) associated|No catalogue advisory|Undetermined/)
        .first()
        .waitFor();
      const note = (await findings.locator('.association-note').textContent()) ?? '';
      expect(note).toContain('not an assessment of the host');
      expect(await findings.locator('h3').textContent()).not.toMatch(/vulnerable/i);
      for (const kev of await findings.locator('.kev').allTextContents()) {
        expect(kev).toMatch(
          /^KEV: (unknown|not listed|known exploitation of this advisory \(not of this asset\))/,
        );
      }
      await shots.take(page, 'advisories');

      // A badge's related search starts only when the person clicks it.
      const related = hosts.getByRole('button', { name: 'related search' }).first();
      const relatedQuery = ((await related.getAttribute('title')) ?? '').replace(/^Search /, '');
      expect(await query.inputValue()).toBe('cve:*');
      await related.click();
      expect(await query.inputValue()).toBe(relatedQuery);
      // The third search of this page (the refused one counted): done when it is no longer busy.
      await page.locator('.search-results[data-run="3"][aria-busy="false"]').waitFor();
      await complete.waitFor();

      // At phone width the page still reads: nothing wider than the screen but the scrolling tables.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
      // Evaluated in the page, where `document` exists (the test's own lib has no DOM).
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
      await shots.take(page, 'phone');
      expect(overflow).toBeLessThanOrEqual(390);
    } finally {
      await context.close();
    }
  });
});
