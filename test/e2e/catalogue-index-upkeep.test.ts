/**
 * The host → CVE association index follows the code's matcher version across restarts, on PGlite and the server:
 * an index built by another matcher version (stamped older, or with no version recorded, as every index built
 * before the stamp existed) is rebuilt in the background at start, after which `cve:` searches agree with
 * enrichment for an observation whose finding is conditional (CVE-2024-23897 on Jenkins 2.440 hangs on the
 * software edition the observation does not tell); a current index is left alone. /health/ready shows the state.
 * Each restart is a new service on the same storage (DATA_DIR, or the same database on the server).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import type { CatalogueIndexStatus } from '../../src/catalogue/catalogue-service.js';
import { MATCHER_VERSION } from '../../src/catalogue/domain/matching.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../support/databases.js';
import { cpe, host } from '../support/host-observations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';
import { freshDataDir } from '../support/pglite-template.js';

const DATA = join(process.cwd(), '..', 'shared', 'data');
const JENKINS = host('198.51.100.210', 8080, {
  protocol: 'http',
  vendor: 'jenkins',
  product: 'jenkins',
  version: '2.440',
  cpe: [cpe('jenkins', 'jenkins', '2.440')],
});
const APACHE = host('198.51.100.211', 443, { cpe: [cpe('apache', 'http_server', '2.4.49')] });
const CONDITIONAL_CVE = 'CVE-2024-23897';
const OLDER = new Date('2026-01-15T00:00:00.000Z');

describe.each(SQL_KINDS)('association index upkeep at start (%s)', (kind) => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let service: TestService | undefined;
  let key: string;

  /** A new service on the same storage. */
  async function restart(): Promise<TestService> {
    await service?.dispose();
    service = await startTestService('pglite', {
      env: { DATA_DIR: dataDir, ...(database?.url ? { DATABASE_URL: database.url } : {}) },
    });
    // The API key is read from the projections: a new service catches up with the log first.
    await waitUntil(() => service!.context.projections.allLive(), 30_000, 20);
    return service;
  }

  async function ready(): Promise<{ status: string; catalogue: CatalogueIndexStatus }> {
    const response = await service!.app.inject({ method: 'GET', url: '/health/ready' });
    return response.json();
  }

  async function post(url: string, body: unknown) {
    const response = await service!.app.inject({
      method: 'POST',
      url,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect([url, response.statusCode]).toEqual([url, 200]);
    return response.json();
  }

  /** The CVEs enrichment finds for the stored observation (through its vulnerability_ref). */
  async function enrichmentFindings(observation: typeof JENKINS): Promise<string[]> {
    const found = await post('/api/v2/common/data/hosts', { raw_query: `ip:${observation.ip as string}` });
    const reference = found.data[0].vulnerability_ref as string;
    const enriched = await post('/api/v2/common/data/enrich/vulnerabilities', { reference });
    return (enriched.evaluations[0].findings as Array<{ id: string }>).map((f) => f.id).sort();
  }

  /** The CVEs the association index (`cve:`) links the observation with. */
  async function indexedCves(observation: typeof JENKINS): Promise<string[]> {
    const rows = await service!.context.catalogue.store.associationsOf([observation.id]);
    return (rows.get(observation.id) ?? []).map((row) => row.cve_id).sort();
  }

  async function selected(cve: string): Promise<number> {
    return (await post('/api/v2/common/data/hosts', { raw_query: `cve:${cve}` })).total as number;
  }

  beforeAll(async () => {
    dataDir =
      kind === 'pglite'
        ? await freshDataDir('catalogue-upkeep-')
        : mkdtempSync(join(tmpdir(), 'catalogue-upkeep-'));
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    await restart();
    const context = service!.context;
    await context.observations.write('hosts', [JENKINS, APACHE]);
    await context.catalogue.importPaths([join(DATA, 'nvd'), join(DATA, 'kev')], {
      observations: context.observations,
    });
    const bus = service!.app.get(CommandBus);
    // A fresh envelope per command (an envelope identifies one command).
    const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
    const { accountId } = await bus.execute(
      new RegisterAccount(
        `upkeep-${kind}@example.com`,
        'professional',
        'upkeep-password-0123456789',
        operator(),
      ),
    );
    key = (await bus.execute(new IssueApiKey(accountId, 'upkeep', operator()))).key as string;
  });

  afterAll(async () => {
    await service?.dispose();
    await database?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an index stamped with an older matcher version is rebuilt at start; then cve: agrees with enrichment on a conditional finding', async () => {
    // What the matcher before conditional associations left: no link for the CVE hanging on the software edition.
    const store = service!.context.catalogue.store;
    await store.replaceAssociations([JENKINS.id], []);
    await store.stampIndex(MATCHER_VERSION - 1, OLDER);
    expect((await ready()).catalogue).toEqual({
      index: 'stale',
      matcher_version: MATCHER_VERSION,
      index_matcher_version: MATCHER_VERSION - 1,
      built_at: OLDER.toISOString(),
    });
    expect(await enrichmentFindings(JENKINS)).toEqual([CONDITIONAL_CVE]);
    expect(await selected(CONDITIONAL_CVE)).toBe(0); // the disagreement a stale index causes

    await restart();
    await waitUntil(async () => (await ready()).catalogue.index === 'current', 30_000, 50);
    const health = await ready();
    expect(health.status).toBe('ready');
    expect(health.catalogue).toEqual({
      index: 'current',
      matcher_version: MATCHER_VERSION,
      index_matcher_version: MATCHER_VERSION,
      built_at: expect.any(String),
    });
    expect(Date.parse(health.catalogue.built_at!)).toBeGreaterThan(OLDER.getTime());
    expect(await selected(CONDITIONAL_CVE)).toBe(1);
    for (const observation of [JENKINS, APACHE])
      expect(await indexedCves(observation)).toEqual(await enrichmentFindings(observation));
  });

  it('an index with no matcher version recorded (built before the stamp existed) is rebuilt at start', async () => {
    await service!.context.catalogue.store.replaceAssociations([JENKINS.id], []);
    await service!.context.storage.sql!.query('DELETE FROM catalogue_index_stamp');
    expect((await ready()).catalogue).toMatchObject({ index: 'stale', index_matcher_version: null });

    await restart();
    await waitUntil(async () => (await ready()).catalogue.index === 'current', 30_000, 50);
    expect((await ready()).catalogue.index_matcher_version).toBe(MATCHER_VERSION);
    expect(await indexedCves(JENKINS)).toEqual(await enrichmentFindings(JENKINS));
    expect(await selected(CONDITIONAL_CVE)).toBe(1);
  });

  it('a current index is not rebuilt at start', async () => {
    const stamp = await service!.context.catalogue.store.indexStamp();
    expect(stamp?.matcher_version).toBe(MATCHER_VERSION);
    // A difference a rebuild would undo.
    await service!.context.catalogue.store.replaceAssociations([APACHE.id], []);

    await restart();
    // The decision is taken before the service answers: nothing runs in the background.
    expect((await ready()).catalogue).toEqual({
      index: 'current',
      matcher_version: MATCHER_VERSION,
      index_matcher_version: MATCHER_VERSION,
      built_at: stamp!.built_at,
    });
    expect(await indexedCves(APACHE)).toEqual([]);
    expect(await service!.context.catalogue.store.indexStamp()).toEqual(stamp);
  });
});
