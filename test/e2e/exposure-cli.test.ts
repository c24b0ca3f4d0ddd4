/**
 * The operator side of exposure scopes on the PostgreSQL server, shared by the service (in-process) and the
 * real CLI (child processes): `exposure enable` makes an Exposition organization, `exposure controls import`
 * brings historical control records. There is no launch endpoint: the only way control records arrive is this
 * import.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness, type Actor } from '../support/organizations.js';
import { runCli } from '../support/processes.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

let dns: TestDnsServer;
let service: TestService;
let h: OrganizationHarness;
let scratch: string;
let env: Record<string, string>;
let owner: Actor;
let organizationId: string;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  service = await startTestService('postgres', { env: { DNS_SERVERS: dns.address } });
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
  const enabled = await runCli(['exposure', 'enable', organizationId, '--json'], env);
  expect(enabled.code).toBe(0);
  expect(JSON.parse(enabled.stdout)).toMatchObject({ enabled: true, billing: 'capacity', changed: true });

  const scope = await h.ok(owner, 'POST', url, body);
  const scopeId = scope.id as string;
  const file = join(scratch, 'controls.json');
  writeFileSync(file, JSON.stringify([{ asset: '192.0.2.1' }]));
  const refused = await runCli(['exposure', 'controls', 'import', scopeId, file, '--json'], env);
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
  const imported = await runCli(['exposure', 'controls', 'import', scopeId, file, '--json'], env);
  expect(imported.code).toBe(0);
  expect(JSON.parse(imported.stdout)).toMatchObject({ scope_id: scopeId, imported: 2 });
  // Re-importing the same file changes nothing.
  expect((await runCli(['exposure', 'controls', 'import', scopeId, file, '--json'], env)).code).toBe(0);

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
});
