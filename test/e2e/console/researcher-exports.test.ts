/**
 * Issue 19, "Researcher": exports and credits in the browser (ADR 115). A person signs in, reads its credits and
 * the usage chart, estimates an export (free; the service's rows and price), starts it, follows its progress,
 * downloads the file (its rows checked), sees the usage chart move by the export's charge, and deletes all its
 * exports after confirming. A real Chromium against the listening service on the PostgreSQL server.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { ExportQueries } from '../../../src/exports/queries/export-queries.js';
import { writeGenerated } from '../../../src/search/data/demo-corpus.js';
import {
  launchChromium,
  personBrowser,
  registerPerson,
  Screenshots,
  signIn,
  startConsoleService,
  type ConsoleService,
} from '../../support/browser.js';
import { waitForProjections } from '../../support/service.js';
import { waitUntil } from '../../support/storage.js';

const HOSTS = 250;
const PRICE = Math.ceil(HOSTS / 100);

describe('researcher exports and credits', () => {
  let running: ConsoleService;
  let browser: Browser;
  const shots = new Screenshots('researcher-exports');

  beforeAll(async () => {
    [running, browser] = await Promise.all([startConsoleService('postgres'), launchChromium()]);
    await writeGenerated(running.service.context.observations, 'hosts', {
      count: HOSTS,
      seed: 'researcher-exports',
      now: new Date(),
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.dispose();
  });

  it('estimates, starts, follows and downloads an export; the usage chart moves by its charge', async () => {
    const person = await registerPerson(running.service, 'exports', { purchasedCredits: 40 });
    const { context, page } = await personBrowser(browser);
    try {
      await signIn(page, running.origin, person.email, person.password);
      const main = page.getByRole('navigation', { name: 'Main' });

      // Credits first: nothing used yet, the exports bar at zero.
      await main.getByRole('link', { name: 'Credits' }).click();
      await page.getByRole('img', { name: 'Exports: 0 credits' }).waitFor();
      expect(await page.getByTestId('credits-purchased').textContent()).toBe('40');
      const usedBefore = Number(await page.getByTestId('credits-used').textContent());
      await shots.take(page, 'credits-before');

      // The estimate is free and names the service's rows and price.
      await main.getByRole('link', { name: 'Exports' }).click();
      await page.getByRole('heading', { name: 'Exports', level: 1 }).waitFor();
      await page.getByText('No exports yet.').waitFor();
      // A refusal is shown with its message and code, and nothing is estimated.
      await page.getByLabel('Query').fill('port:[');
      await page.getByRole('button', { name: 'Estimate (free)' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      expect(await refusal.getAttribute('data-code')).toBe('invalid_query');
      expect(await page.getByRole('region', { name: 'Estimate' }).count()).toBe(0);
      await shots.take(page, 'estimate-refused');
      await page.getByLabel('Query').fill('port:>0');
      await page.getByLabel('Format').selectOption('json');
      await page.getByRole('button', { name: 'Estimate (free)' }).click();
      await page.getByRole('region', { name: 'Estimate' }).waitFor();
      expect(await page.getByTestId('estimate-rows').textContent()).toBe(String(HOSTS));
      expect(await page.getByTestId('estimate-credits').textContent()).toContain(`${PRICE} credits`);
      await shots.take(page, 'estimate');

      // Start, then the progress until completed, with the download link.
      await page.getByRole('button', { name: 'Start JSON export' }).click();
      await page.getByTestId('export-status').filter({ hasText: 'completed' }).waitFor({ timeout: 20_000 });
      expect(await page.getByTestId('export-rows').textContent()).toBe(
        `${HOSTS} of ${HOSTS} rows · ${PRICE} credits`,
      );
      expect(await page.getByTestId('export-truncated').count()).toBe(0);
      await page.getByRole('row', { name: /completed/ }).waitFor();
      await shots.take(page, 'export-completed');
      await page.setViewportSize({ width: 390, height: 844 });
      await shots.take(page, 'export-completed-phone');
      await page.setViewportSize({ width: 1280, height: 860 });

      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download the JSON file' }).click();
      const file = await (await download).path();
      const rows = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
      expect(rows).toHaveLength(HOSTS);
      expect(rows.every((row) => typeof (JSON.parse(row) as { ip?: unknown }).ip === 'string')).toBe(true);

      // The charge reaches the ledger when the job settles it; the usage read model follows.
      const [job] = await running.service.app.get(ExportQueries).list(person.accountId);
      expect(job).toBeDefined();
      await waitUntil(async () =>
        (await running.service.context.storage.eventStore.readStream(`export-${job!.id}`)).some(
          (event) => event.type === 'ExportCharged',
        ),
      );
      await waitForProjections(running.service, ['credit-usage', 'credit-state']);
      await main.getByRole('link', { name: 'Credits' }).click();
      await page.getByRole('img', { name: `Exports: ${PRICE} credits` }).waitFor();
      // The state and the usage are two queries, each shown from its cache and then refetched: wait for both.
      await page
        .getByTestId('credits-used')
        .filter({ hasText: new RegExp(`^${usedBefore + PRICE}$`) })
        .waitFor();
      const exportsRow = page.getByRole('row', { name: /Exports/ });
      expect(await exportsRow.getByRole('cell').first().textContent()).toBe(String(PRICE));
      await shots.take(page, 'credits-after');
      await page.setViewportSize({ width: 390, height: 844 });
      await shots.take(page, 'credits-phone');
      await page.setViewportSize({ width: 1280, height: 860 });

      // Delete all asks first, then says what it did.
      await main.getByRole('link', { name: 'Exports' }).click();
      await page.getByRole('button', { name: 'Delete all exports…' }).click();
      const question = page.getByRole('alertdialog');
      await question.waitFor();
      await shots.take(page, 'delete-all-confirm');
      await question.getByRole('button', { name: 'Yes, delete all exports' }).click();
      await page.getByText('1 deleted, 0 cancelled.').waitFor();
      await page.getByText('No exports yet.').waitFor();
      await shots.take(page, 'deleted');
    } finally {
      await context.close();
    }
  }, 60_000);
});
