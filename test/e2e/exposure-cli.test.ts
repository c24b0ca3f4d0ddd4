/**
 * The operator side of exposure scopes on the PostgreSQL server, shared by the service (in-process) and the
 * CLI (in this process, one command as a child process): `exposure enable` makes an Exposition organization, `exposure controls import`
 * brings historical control records. There is no launch endpoint: the only way control records arrive is this
 * import. It also runs the erasure of a deleted scope on the server.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { EXPOSURE_SCOPES, type ExposureScopeDocument } from '../../projections/exposure-scopes.projection.js';
import {
  controlsStreamId,
  exposureAuditStreamId,
  ScopeErasureSweeper,
} from '../../src/exposure/scope-erasure-sweeper.js';
import { spaceStreamId } from '../../src/organizations/domain/space.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness, type Actor } from '../support/organizations.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { runCli } from '../support/processes.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

let dns: TestDnsServer;
let service: TestService;
let h: OrganizationHarness;
let scratch: string;
let env: Record<string, string>;
let owner: Actor;
let organizationId: string;
let cliScopeId: string;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  dns = await TestDnsServer.start();
  service = await startTestService('postgres', { clock, env: { DNS_SERVERS: dns.address } });
  await waitUntil(() => service.context.projections.allLive());
  h = new OrganizationHarness(service, dns);
  ({ owner, organizationId } = await h.trialOrganization());
  scratch = mkdtempSync(join(tmpdir(), 'exposure-cli-'));
  env = { DATABASE_URL: service.database!.url!, DATA_DIR: mkdtempSync(join(tmpdir(), 'exposure-cli-data-')) };
}, 120_000);

afterAll(async () => {
  await service?.dispose();
  await dns?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (env?.DATA_DIR) rmSync(env.DATA_DIR, { recursive: true, force: true });
});

it('operators enable the Exposition product and import historical control records; nothing launches a check', async () => {
  const url = `/api/v2/organizations/${organizationId}/exposure/scopes`;
  const body = { name: 'CLI scope', domain: 'cli-scope.example', timezone: 'UTC', monitoring: false };
  expect((await h.request(owner, 'POST', url, body)).statusCode).toBe(403);

  const bad = await runCli(['exposure', 'enable', organizationId, '--billing', 'free', '--json'], env);
  expect(bad.code).toBe(2);
  // Enabling a product changes access and billing: refused without a reason.
  const unexplained = await runCliInProcess(['exposure', 'enable', organizationId, '--json'], env);
  expect(unexplained.code).toBe(2);
  expect(unexplained.stderr).toContain('--reason');
  const enabled = await runCliInProcess(
    ['exposure', 'enable', organizationId, '--reason', 'contract signed', '--json'],
    env,
  );
  expect(enabled.code).toBe(0);
  expect(JSON.parse(enabled.stdout)).toMatchObject({ enabled: true, billing: 'capacity', changed: true });

  const scope = await h.ok(owner, 'POST', url, body);
  const scopeId = scope.id as string;
  const file = join(scratch, 'controls.json');
  writeFileSync(file, JSON.stringify([{ asset: '192.0.2.1' }]));
  const refused = await runCliInProcess(['exposure', 'controls', 'import', scopeId, file, '--json'], env);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/asset, kind, title and performed_at/);

  writeFileSync(
    file,
    JSON.stringify([
      {
        id: 'pt-2024',
        asset: '192.0.2.1',
        kind: 'penetration_test',
        title: 'Annual test',
        performed_at: '2024-05-01',
      },
      {
        id: 'audit-2025',
        asset: 'www.cli-scope.example',
        kind: 'audit',
        title: 'Audit',
        performed_at: '2025-02-01',
      },
    ]),
  );
  const imported = await runCliInProcess(['exposure', 'controls', 'import', scopeId, file, '--json'], env);
  expect(imported.code).toBe(0);
  expect(JSON.parse(imported.stdout)).toMatchObject({ scope_id: scopeId, imported: 2 });
  // The operator imported them, on behalf of the scope's organization, in the scope.
  const [importedEvent] = await service.context.storage.eventStore.readStream(controlsStreamId(scopeId));
  expect(importedEvent?.metadata).toMatchObject({
    actor: 'operator:admin',
    payer: `organization:${organizationId}`,
    scope: scopeId,
    credential: expect.stringMatching(/^operator_credential:/),
    surface: 'cli',
  });
  // Re-importing the same file changes nothing.
  expect((await runCliInProcess(['exposure', 'controls', 'import', scopeId, file, '--json'], env)).code).toBe(
    0,
  );

  const controlsUrl = `/api/v2/organizations/${organizationId}/clients/${scopeId}/exposure/controls`;
  await waitUntil(
    async () => ((await h.ok(owner, 'GET', controlsUrl)).controls as unknown[]).length === 2,
    20_000,
  );
  const filtered = await h.ok(owner, 'GET', `${controlsUrl}?asset=192.0.2.1`);
  expect(filtered).toMatchObject({
    historical: true,
    controls: [{ id: 'pt-2024', kind: 'penetration_test' }],
  });
  const history = await h.ok(
    owner,
    'GET',
    `/api/v2/organizations/${organizationId}/clients/${scopeId}/exposure/history`,
  );
  expect(
    (history.entries as Array<{ type: string }>).filter((e) => e.type === 'ControlRecordsImported'),
  ).toHaveLength(1);
  cliScopeId = scopeId;
});

it('a report frozen while an unrelated transaction holds back the log still holds what was committed before it', async () => {
  const scopeUrl = `/api/v2/organizations/${organizationId}/clients/${cliScopeId}`;
  const version = (await h.ok(owner, 'GET', scopeUrl)).version as string;
  // An open transaction with an id keeps every later commit hidden from the log's readers until it ends.
  const blocker = new pg.Client({ connectionString: service.database!.url });
  await blocker.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query('SELECT pg_current_xact_id()');
    await h.ok(owner, 'PATCH', scopeUrl, { name: 'CLI scope renamed' }, { 'if-match': version });
    const released = delay(500).then(() => blocker.query('ROLLBACK'));
    // A freeze the read models are not ready for is refused (503 not_ready, ADR 133): ask again, as a client would.
    let response = await h.request(owner, 'POST', `${scopeUrl}/exposure/reports`);
    for (let retries = 0; response.statusCode === 503 && retries < 5; retries++) {
      await delay(Number(response.headers['retry-after'] ?? 1) * 1000);
      response = await h.request(owner, 'POST', `${scopeUrl}/exposure/reports`);
    }
    expect(response.statusCode).toBe(201);
    const report = JSON.parse(response.body) as Record<string, unknown>;
    await released;
    const frozen = await h.ok(owner, 'GET', `${scopeUrl}/exposure/reports/${report.id as string}`);
    // The freeze waited for the rename, committed before it, instead of freezing the visible head.
    expect((frozen.scope as { name: string }).name).toBe('CLI scope renamed');
  } finally {
    await blocker.end();
  }
});

it("erasure on the PostgreSQL server: the scope's streams are deleted, its read models purged, the audit record kept", async () => {
  const scopeUrl = `/api/v2/organizations/${organizationId}/clients/${cliScopeId}`;
  const version = (await h.ok(owner, 'GET', scopeUrl)).version as string;
  expect(
    (await h.request(owner, 'DELETE', scopeUrl, { name: 'CLI scope renamed' }, { 'if-match': version }))
      .statusCode,
  ).toBe(204);
  const scopes = service.context.projections.collection<ExposureScopeDocument>(
    'exposure-scopes',
    EXPOSURE_SCOPES,
  );
  await waitUntil(async () => (await scopes.get(cliScopeId))?.state === 'deleted', 10_000);
  // Past the seven-day window the sweeper erases what is due.
  clock.advance(7 * 86_400_000 + 1000);
  expect(await service.app.get(ScopeErasureSweeper).sweepOnce()).toBe(1);
  const signedIn = await h.login(owner);
  const store = service.context.storage.eventStore;
  expect(await store.readStream(spaceStreamId(cliScopeId))).toEqual([]);
  expect(await store.readStream(controlsStreamId(cliScopeId))).toEqual([]);
  const audit = await store.readStream(exposureAuditStreamId(organizationId));
  expect(audit.map((event) => event.type)).toEqual(['ScopeErased']);
  expect(JSON.stringify(audit)).not.toContain('Annual test');
  expect(await scopes.get(cliScopeId)).toBeNull();
  expect((await h.request(signedIn, 'GET', `${scopeUrl}/exposure/controls`)).statusCode).toBe(404);
  const deleted = await h.ok(signedIn, 'GET', `/api/v2/organizations/${organizationId}/clients/deleted`);
  expect((deleted.clients as Array<{ id: string }>).some((entry) => entry.id === cliScopeId)).toBe(false);
  // A rebuild from the log (without the erased streams) gives the same read models.
  for (const name of ['organizations', 'exposure-scopes', 'exposure-history', 'event-streams']) {
    await waitForProjections(service, [name]);
    expect(
      (await service.context.maintenance.verify(service.context.projections.definition(name))).equal,
    ).toBe(true);
  }
});
