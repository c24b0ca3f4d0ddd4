/**
 * Issue 19, "Auditor" and "Operator": an organization owner reads the audit log in the console (who acted, on
 * whose behalf, when, why, the ids) with what the service verified of the tamper-evident chain, and filters it; an
 * analyst is refused; an operator, signed out, opens the projection status with the credential the CLI uses and
 * sees every projection with its lag; a wrong credential is refused with its code; a rebuild held after its first
 * page is reported (route and page) with its progress, then as finished. Real Chromium against the
 * listening service on the PostgreSQL server; the organization is built through the real HTTP routes and commands.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { Browser } from 'playwright-core';
import { ApplyOperatorCommand } from '../../../src/organizations/commands/organization-settings.commands.js';
import { createFirstOperator } from '../../../src/operators/operator-access.js';
import { parseOperatorCredential } from '../../../src/platform/auth/operator-credentials.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { EventStore, ReadAllOptions } from '../../../src/platform/event-store/event-store.port.js';
import { comparePositions } from '../../../src/platform/event-store/global-position.js';
import type { ProjectionStatusRow } from '../../../src/platform/projections/projection-status.js';
import { ProjectionEngine } from '../../../src/platform/projections/projection-engine.js';
import { ProjectionMaintenance } from '../../../src/platform/projections/projection-maintenance.js';
import { personBrowser, Screenshots, signIn, startOrganizationStage } from '../../support/browser.js';
import type { ConsoleService } from '../../support/browser.js';
import { TestDnsServer } from '../../support/dns-server.js';
import { OrganizationHarness, PASSWORD, type Actor } from '../../support/organizations.js';
import { waitForProjections } from '../../support/service.js';

const REASON = 'journey: billing dispute under review';
/** Events per rebuild page: the held rebuild has applied exactly this many. */
const REBUILD_PAGE = 5;

/**
 * The event log as a rebuild reads it, with every page after the first held until `release()`: a rebuild that
 * stops mid-way for as long as the test needs, with no timing involved. Only `readAll` is what a rebuild uses.
 */
function logHeldAfterFirstPage(store: EventStore): { held: EventStore; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = new Proxy(store, {
    get(target, key) {
      if (key === 'readAll')
        return async (options: ReadAllOptions) => {
          if (options.after !== null) await released;
          return target.readAll(options);
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { held, release };
}

describe('auditor and operator views', () => {
  let dns: TestDnsServer;
  let running: ConsoleService;
  let browser: Browser;
  let h: OrganizationHarness;
  let owner: Actor;
  let analyst: Actor;
  let organizationId: string;
  let operatorCredential: string;
  /** The last position the verified checkpoint covers, and an entry recorded after it. */
  let verifiedThrough: string;
  let afterCheckpoint: string;
  const shots = new Screenshots('auditor-operator');

  beforeAll(async () => {
    ({ dns, running, browser } = await startOrganizationStage());
    const { service } = running;
    h = new OrganizationHarness(service, dns);
    const bus = service.app.get(CommandBus);
    // The first operator, as the service's first start creates it; its credential is what `operators` prints.
    operatorCredential = (await createFirstOperator(bus, service.context.storage.eventStore))!;
    const credentialId = parseOperatorCredential(operatorCredential)!.credentialId;

    ({ owner, organizationId } = await h.trialOrganization());
    analyst = await h.member(organizationId, owner, 'analyst');
    await h.space(organizationId, owner);
    // An operator's attributed acts, each with its reason, as `organizations deactivate|activate --reason` does.
    for (const inactive of [true, false]) {
      await bus.execute(
        new ApplyOperatorCommand(
          organizationId,
          { type: 'SetInactive', inactive },
          commandEnvelope({
            actor: 'operator:admin',
            payer: `organization:${organizationId}`,
            credential: `operator_credential:${credentialId}`,
            surface: 'cli',
            reason: REASON,
          }),
        ),
      );
    }
    // A signed checkpoint, verified (the sealer's periodic step), then one more act after it.
    const evidence = service.context.tamperEvidence;
    const checkpoint = (await evidence.checkpoint())!;
    expect((await evidence.verify()).ok).toBe(true);
    verifiedThrough = checkpoint.position;
    await h.ok(owner, 'POST', `/api/v2/organizations/${organizationId}/invitations`, {
      email: `late-${Date.now().toString(36)}@example.com`,
      role: 'analyst',
    });
    await waitForProjections(service, ['audit-index']);
    afterCheckpoint = (await service.context.storage.eventStore.headPosition())!;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await running?.dispose();
    await dns?.close();
  });

  it('the owner reads who, on whose behalf, when, why and the chain status, filters the log; an analyst is refused', async () => {
    const { context, page } = await personBrowser(browser);
    try {
      await signIn(page, running.origin, owner.email, PASSWORD);
      await page.goto(`${running.origin}/organizations/${organizationId}/audit`);
      await page.getByRole('heading', { name: 'Audit log', level: 2 }).waitFor();
      const table = page.getByRole('table');
      await table.waitFor();

      // The operator's acts: who (and with which credential, from where), on whose behalf, why, the ids.
      const operatorRows = table.getByRole('row').filter({ hasText: REASON });
      const operatorEvents = await operatorRows.count();
      expect(operatorEvents).toBeGreaterThanOrEqual(2);
      const operatorRow = operatorRows.first();
      await expect(operatorRow.getByText('operator:admin', { exact: true }).isVisible()).resolves.toBe(true);
      const operatorText = await operatorRow.innerText();
      expect(operatorText).toContain(`organization:${organizationId}`);
      expect(operatorText).toContain('via cli');
      expect(operatorText).toContain('operator_credential:');
      expect(operatorText).toMatch(/correlation\s+[0-9a-f-]{36}/);
      expect(operatorText).toMatch(/causation\s+[0-9a-f-]{36}/);
      // The owner's acts over HTTP: the account, its session, the request id.
      const invitations = table.locator('tr[data-type="MemberInvited"]');
      expect(await invitations.count()).toBe(2);
      const ownerText = await invitations.first().innerText();
      expect(ownerText).toContain(`account:${owner.accountId}`);
      expect(ownerText).toContain('via session');
      expect(ownerText).toContain('no reason recorded');

      // Verified up to the checkpoint the service verified, never after it.
      const panel = page.getByRole('region', { name: 'Chain verification' });
      expect(await panel.getByTestId('last-verified-checkpoint').innerText()).toContain(verifiedThrough);
      expect(await panel.getByTestId('last-verification').innerText()).toContain('no tampering found');
      expect(await panel.getByTestId('chain-head').innerText()).toMatch(/position \S+ \(chain index \d+\)/);
      const rows = await table.locator('tbody tr').evaluateAll((trs) =>
        trs.map((tr) => ({
          position: tr.getAttribute('data-position') ?? '',
          verification: tr.querySelector('[data-verification]')?.getAttribute('data-verification'),
        })),
      );
      const covered = (position: string) => comparePositions(position, verifiedThrough) <= 0;
      expect(rows.length).toBeGreaterThan(4);
      for (const row of rows)
        expect(row).toEqual({
          position: row.position,
          verification: covered(row.position) ? 'verified' : 'not_verified_yet',
        });
      expect(rows.at(-1)).toEqual({ position: afterCheckpoint, verification: 'not_verified_yet' });
      await shots.take(page, 'audit-log');

      // Filters go to the service: by event type, then by actor.
      await page.getByLabel('Event type').fill('MemberInvited');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await table.locator('tbody tr:not([data-type="MemberInvited"])').first().waitFor({ state: 'detached' });
      expect(await table.locator('tbody tr').count()).toBe(2);
      await page.getByLabel('Event type').fill('');
      await page.getByLabel('Actor').fill('operator:admin');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await table.locator('tr[data-type="MemberInvited"]').first().waitFor({ state: 'detached' });
      await page.getByText(`${operatorEvents} entries, oldest first`).waitFor();
      expect(await table.getByRole('row').filter({ hasText: REASON }).count()).toBe(operatorEvents);
      await shots.take(page, 'audit-filtered-by-actor');
      await page.setViewportSize({ width: 390, height: 844 });
      await shots.take(page, 'audit-filtered-phone');
    } finally {
      await context.close();
    }

    const refused = await personBrowser(browser);
    try {
      await signIn(refused.page, running.origin, analyst.email, PASSWORD);
      await refused.page.goto(`${running.origin}/organizations/${organizationId}/audit`);
      const alert = refused.page.getByRole('alert').filter({ hasText: 'The audit log was refused' });
      await alert.waitFor();
      expect(await alert.getAttribute('data-code')).toBe('forbidden');
      expect(await refused.page.getByRole('table').count()).toBe(0);
      await shots.take(refused.page, 'audit-refused-analyst');
    } finally {
      await refused.context.close();
    }
  });

  it('an operator, signed out, sees every projection with its lag; a wrong credential is refused with its code', async () => {
    const { context, page } = await personBrowser(browser);
    try {
      await page.goto(`${running.origin}/operator`);
      const input = page.getByLabel('Operator credential');
      await input.fill(`${operatorCredential.slice(0, -4)}AAAA`);
      await page.getByRole('button', { name: 'Show projections' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.getAttribute('data-code')).toBe('unauthenticated');
      expect(await alert.innerText()).toContain('the operator credential is not valid');
      await shots.take(page, 'operator-refused');

      await page.getByRole('button', { name: 'Enter another credential' }).click();
      await page.getByLabel('Operator credential').fill(operatorCredential);
      await page.getByRole('button', { name: 'Show projections' }).click();
      const table = page.getByRole('table');
      await table.waitFor();
      const shown = await table
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [tr.getAttribute('data-projection'), tr.children[5]?.textContent]),
        );
      expect(shown.map(([name]) => name).sort()).toEqual(
        [...running.service.context.projections.projectionNames].sort(),
      );
      for (const [, lag] of shown) expect(lag).toMatch(/^(≥ )?[\d,]+$/);
      // Kept in memory only: nothing of it in the page's storage or cookies.
      const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
      expect(stored).not.toContain('opc_');
      expect(JSON.stringify(await context.cookies())).not.toContain('opc_');
      await shots.take(page, 'operator-projections');
    } finally {
      await context.close();
    }
  });

  it('a running rebuild is reported with its progress by the route and on the page, then as finished', async () => {
    const { service } = running;
    const runner = service.context.projections;
    const store = service.context.storage.eventStore;
    const name = 'accounts';
    const status = async (): Promise<{
      head_position: string | null;
      projections: ProjectionStatusRow[];
    }> => {
      const response = await fetch(`${running.origin}/api/v2/operator/projections`, {
        headers: { authorization: `Bearer ${operatorCredential}` },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { head_position: string | null; projections: ProjectionStatusRow[] };
    };
    const row = async () => (await status()).projections.find((projection) => projection.name === name)!;
    const before = await row();
    expect(before.rebuild).toBeNull();
    const liveGeneration = before.live_generation!;
    const generation = liveGeneration + 1;

    // The service's own rebuild (ProjectionMaintenance), reading the log through the held reader.
    const { held, release } = logHeldAfterFirstPage(store);
    const maintenance = new ProjectionMaintenance(
      new ProjectionEngine(held, runner.engine.readStore, runner.engine.upcasters),
      {
        pageSize: REBUILD_PAGE,
        dropGraceMs: 0,
        onSwitched: (switched) => runner.generationSwitched(switched),
      },
    );
    let firstPageWritten!: () => void;
    const firstPage = new Promise<void>((resolve) => (firstPageWritten = resolve));
    const rebuilding = maintenance.rebuild(runner.definition(name), () => firstPageWritten());
    const { context, page } = await personBrowser(browser);
    try {
      await firstPage;
      // The route: the new generation's own checkpoint, its events applied and what it has still to read.
      const during = await status();
      const building = during.projections.find((projection) => projection.name === name)!;
      const firstPageEnd = (await store.readAll({ after: null, limit: REBUILD_PAGE })).at(-1)!.position;
      const toGo = (await store.readAll({ after: firstPageEnd, limit: 10_000 })).length;
      expect(toGo).toBeGreaterThan(0);
      expect(comparePositions(firstPageEnd, during.head_position!)).toBeLessThan(0);
      expect(building).toMatchObject({ live_generation: liveGeneration, building_generation: generation });
      expect(building.rebuild).toEqual({
        generation,
        position: firstPageEnd,
        events_applied: REBUILD_PAGE,
        lag_events: toGo,
        lag_events_at_least: false,
      });

      // The page: the same progress, as text and as a progress bar.
      await page.goto(`${running.origin}/operator`);
      await page.getByLabel('Operator credential').fill(operatorCredential);
      await page.getByRole('button', { name: 'Show projections' }).click();
      const shown = page.locator(`tr[data-projection="${name}"]`);
      await shown
        .getByText(`generation ${generation}: ${REBUILD_PAGE} applied, ${toGo.toLocaleString('en-US')} to go`)
        .waitFor();
      const bar = shown.getByRole('progressbar', { name: `rebuild of generation ${generation}` });
      expect(await bar.getAttribute('value')).toBe(String(REBUILD_PAGE));
      expect(await bar.getAttribute('max')).toBe(String(REBUILD_PAGE + toGo));
      await shots.take(page, 'operator-rebuild-running');

      release();
      const result = await rebuilding;
      expect(result).toMatchObject({
        previousGeneration: liveGeneration,
        generation,
        events: REBUILD_PAGE + toGo,
      });
      const after = await row();
      expect(after).toMatchObject({ live_generation: generation, building_generation: null, rebuild: null });
      // The next poll (every 3 s) shows it finished: no rebuild, the new generation live.
      await shown.getByText('none running').waitFor();
      expect(await shown.locator('td').nth(1).innerText()).toMatch(new RegExp(`^${generation}\\s*v\\d+$`));
      await shots.take(page, 'operator-rebuild-finished');
    } finally {
      release();
      await rebuilding.catch(() => undefined);
      await context.close();
    }
  });
});
