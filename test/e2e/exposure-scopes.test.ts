/**
 * Exposure scopes (issue 8) over real HTTP on real storage (PGlite), with the real refresh pool, the real
 * catalogue (the project's sample NVD and KEV records) and hand-made stored observations. Time is a ManualClock
 * so cadence limits, retries, leases and the seven-day deletion window are exact.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { REFRESH_CADENCE, REFRESH_QUOTA } from '../../src/exposure/commands/exposure-write.js';
import { EnableExposition } from '../../src/exposure/commands/scope-lifecycle.commands.js';
import { refreshDecider, refreshRunStreamId, runKeyHash } from '../../src/exposure/domain/refresh-run.js';
import { subjectStreamId } from '../../src/exposure/domain/subject.js';
import { RefreshWorkerPool } from '../../src/exposure/refresh-worker-pool.js';
import {
  controlsStreamId,
  exposureAuditStreamId,
  ScopeErasureSweeper,
} from '../../src/exposure/scope-erasure-sweeper.js';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../src/catalogue/sample/sample-catalogue.js';
import { parseCatalogueText } from '../../src/catalogue/import/parse-catalogue-files.js';
import { ledgerStreamId } from '../../src/credits/domain/ledger.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { caseStreamId } from '../../src/organizations/domain/case.js';
import { researchStreamId } from '../../src/organizations/domain/review.js';
import { spaceStreamId } from '../../src/organizations/domain/space.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import { validateRecord } from '../../src/search/domain/records.js';
import { TestDnsServer } from '../support/dns-server.js';
import { cpe, host } from '../support/host-observations.js';
import { expectOneEventBatchesToRebuildLiveDocuments } from '../support/one-event-batches.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const DOMAIN = 'acme-exposure.example';
const START = new Date('2026-11-20T10:00:00.000Z');
const clock = new ManualClock(START);
let dns: TestDnsServer;
let service: TestService;
let h: OrganizationHarness;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const json = (body: string): Json => JSON.parse(body) as Json;
const ok = async (...args: Parameters<OrganizationHarness['ok']>): Promise<Json> =>
  (await h.ok(...args)) as Json;
const org = (id: string, rest = ''): string => `/api/v2/organizations/${id}${rest}`;
const exposure = (o: string, scope: string, rest = '') => org(o, `/clients/${scope}/exposure${rest}`);

/** One stored observation per coverage state the refresh can produce, plus one on an unrelated domain. */
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
  host('203.0.113.12', 8080, {
    hostnames: [DOMAIN],
    product: 'http_server',
    vendor: 'apache',
    cpe: [cpe('apache', 'http_server', '*')],
  }),
  host('203.0.113.13', 22, { hostnames: [`ssh.${DOMAIN}`] }),
  host('203.0.113.14', 443, {
    hostnames: [`big.${DOMAIN}`],
    cpe: Array.from({ length: 9 }, (_, i) => cpe('example', `component${i}`, '1.0')),
  }),
  host('198.51.100.7', 443, { hostnames: [`cdn.${DOMAIN}`, 'other.example'], shared_edge: true }),
  // Declared address, no name.
  host('192.0.2.50', 25, {
    product: 'postfix',
    vendor: 'postfix',
    version: '3.5.0',
    cpe: [cpe('postfix', 'postfix', '3.5.0')],
  }),
  // Not the scope's.
  host('203.0.113.99', 443, {
    hostnames: ['unrelated.example'],
    cpe: [cpe('apache', 'http_server', '2.4.49')],
  }),
];
const KEV_SERVICE = '203.0.113.10:443/tcp';
const MATCHED_SERVICE = '203.0.113.11:80/tcp';
const NEGATIVE_SERVICE = '203.0.113.12:443/tcp';

let world: {
  organizationId: string;
  owner: Actor;
  administrator: Actor;
  analyst: Actor;
  outsider: Actor;
  external: Actor;
};

async function importCatalogue(withKev: boolean): Promise<void> {
  const files = [parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD))];
  if (withKev) files.push(parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)));
  await service.context.catalogue.importParsed(files);
}

async function inventory(actor: Actor, scopeId: string, query = ''): Promise<Json> {
  return ok(actor, 'GET', `${exposure(world.organizationId, scopeId)}${query}`);
}

function service_(inv: Json, observationId: string): Json {
  const found = (inv.subjects as Json[]).find(
    (s) => s.kind === 'service' && s.observation_id === observationId,
  );
  if (!found) throw new Error(`no subject for ${observationId} in ${JSON.stringify(inv.subjects)}`);
  return found;
}

/** Waits until the scope's latest refresh reached one of these states (the pool runs in the service). */
async function refreshSettles(scopeId: string, states = ['completed']): Promise<Json> {
  let latest: Json | null = null;
  await waitUntil(async () => {
    const response = await h.request(world.owner, 'GET', exposure(world.organizationId, scopeId));
    latest = response.statusCode === 200 ? (json(response.body).latest_refresh as Json | null) : null;
    return latest !== null && states.includes(latest.status as string);
  }, 20_000);
  // The scope's refresh state and its inventory are two projections: read the inventory once it holds the run too.
  await waitForProjections(service, ['exposure-scopes', 'exposure-inventory']);
  return latest!;
}

async function createScope(body: Json = {}, actor: Actor = world.owner): Promise<Json> {
  return ok(actor, 'POST', org(world.organizationId, '/exposure/scopes'), {
    name: `Scope ${Math.random().toString(36).slice(2, 8)}`,
    domain: DOMAIN,
    timezone: 'Europe/Paris',
    addresses: ['192.0.2.50'],
    monitoring: false,
    ...body,
  });
}

async function enable(organizationId: string, billing: 'capacity' | 'credit' = 'capacity') {
  await service.app.get(CommandBus).execute(new EnableExposition(organizationId, billing, operator()));
}

/** Moves the clock past the refresh cadence (and keeps sessions alive: they idle out after two hours). */
async function nextCadence(): Promise<void> {
  clock.advance(16 * 60 * 1000);
}

beforeAll(async () => {
  dns = await TestDnsServer.start();
  service = await startTestService('pglite', {
    clock,
    env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000', EXPOSURE_REFRESH_EVALUATION_LIMIT: '5' },
  });
  await waitUntil(() => service.context.projections.allLive());
  await service.context.observations.write('hosts', HOSTS);
  const whois = validateRecord('whois', {
    id: DOMAIN,
    domain: DOMAIN,
    registrar: 'example registrar',
    expires: '2027-01-15T00:00:00.000Z',
    first_seen: '2026-01-01T00:00:00.000Z',
    last_seen: '2026-11-01T00:00:00.000Z',
  });
  if (!whois.ok) throw new Error(whois.problems.join('; '));
  await service.context.observations.write('whois', [whois.record]);
  h = new OrganizationHarness(service, dns);
  const { owner, organizationId } = await h.trialOrganization();
  const administrator = await h.member(organizationId, owner, 'administrator');
  const external = await h.member(organizationId, owner, 'external_client');
  const outsider = await h.member(organizationId, owner, 'analyst');
  world = { organizationId, owner, administrator, analyst: outsider, outsider, external };
  await enable(organizationId);
}, 120_000);

afterAll(async () => {
  await service?.dispose();
  await dns?.close();
});

describe('Authentication 6: exposure access', () => {
  it('an organization without the Exposition product gets 403 exposure_not_enabled; a stranger 404', async () => {
    const plain = await h.trialOrganization();
    const refused = await h.request(plain.owner, 'POST', org(plain.organizationId, '/exposure/scopes'), {
      name: 'Too early',
      domain: DOMAIN,
      timezone: 'UTC',
      monitoring: false,
    });
    expect(refused.statusCode).toBe(403);
    expect(json(refused.body).code).toBe('exposure_not_enabled');
    const stranger = await h.account();
    const hidden = await h.request(stranger, 'POST', org(plain.organizationId, '/exposure/scopes'), {
      name: 'x',
      domain: DOMAIN,
      timezone: 'UTC',
      monitoring: false,
    });
    expect(hidden.statusCode).toBe(404);
  });

  it('creation needs an owner or administrator; analysts and external clients get 403', async () => {
    for (const actor of [world.analyst, world.external]) {
      const response = await h.request(actor, 'POST', org(world.organizationId, '/exposure/scopes'), {
        name: 'Nope',
        domain: DOMAIN,
        timezone: 'UTC',
        monitoring: false,
      });
      expect(response.statusCode).toBe(403);
      expect(json(response.body).code).toBe('forbidden');
    }
    const byAdministrator = await createScope({}, world.administrator);
    expect(byAdministrator.state).toBe('active');
  });

  it('the product comes before the role: every member of an organization without Exposition gets exposure_not_enabled', async () => {
    const plain = await h.trialOrganization();
    const analyst = await h.member(plain.organizationId, plain.owner, 'analyst');
    const external = await h.member(plain.organizationId, plain.owner, 'external_client');
    for (const actor of [analyst, external]) {
      const refused = await h.request(actor, 'POST', org(plain.organizationId, '/exposure/scopes'), {});
      expect(refused.statusCode).toBe(403);
      expect(json(refused.body).code).toBe('exposure_not_enabled');
    }
  });

  it('the route capability is checked before the body is read: an invalid body earns an analyst 403, a manager 422', async () => {
    const invalid = { name: '', domain: 'not a domain', timezone: 'Mars/Base' };
    const answers = [
      [world.analyst, 403, 'forbidden'],
      [world.external, 403, 'forbidden'],
      [world.owner, 422, 'invalid_input'],
    ] as const;
    for (const [actor, status, code] of answers) {
      const response = await h.request(actor, 'POST', org(world.organizationId, '/exposure/scopes'), invalid);
      expect({ status: response.statusCode, code: json(response.body).code }).toEqual({ status, code });
    }
  });
});

describe('scope creation: fields, limits and the initial refresh', () => {
  it('returns the client view with a quoted version; capacity billing ignores credit_limit and refreshes at once', async () => {
    const scope = await createScope({
      credit_limit: 3,
      addresses: ['192.0.2.50', '2001:DB8::1', '192.0.2.50'],
    });
    expect(scope).toMatchObject({
      kind: 'asset_scope',
      domain: DOMAIN,
      timezone: 'Europe/Paris',
      addresses: ['192.0.2.50', '2001:db8::1'],
      monitoring: false,
      credit_limit: null,
      billing: 'capacity',
      state: 'active',
      erase_after: null,
    });
    expect(scope.version).toMatch(/^"\d+"$/);
    const latest = await refreshSettles(scope.id as string);
    expect(latest.status).toBe('completed');
    // No catalogue yet: every service with identifiers is catalogue_unavailable, never a negative.
    const inv = await inventory(world.owner, scope.id as string);
    expect(inv.partial).toBe(true);
    expect(inv.summary.coverage.by_state.catalogue_unavailable).toBe(5);
    expect(inv.filter_options.result.find((r: Json) => r.value === 'no_match').count).toBe(0);
    expect(JSON.stringify(inv)).not.toMatch(/scan(ned)?\b|check (was )?executed|tested/i);
  });

  it('limits: up to 16 addresses, an IANA timezone, a domain; legacy credit billing wants 6 to 1,000,000', async () => {
    const tooMany = Array.from({ length: 17 }, (_, i) => `192.0.2.${i + 1}`);
    const cases: Array<[Json, string]> = [
      [{ addresses: tooMany }, 'addresses'],
      [{ addresses: ['192.0.2.0/24'] }, 'addresses'],
      [{ timezone: 'CEST' }, 'timezone'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ domain: 'not a domain' }, 'domain'],
    ];
    for (const [body, field] of cases) {
      const response = await h.request(world.owner, 'POST', org(world.organizationId, '/exposure/scopes'), {
        name: 'Limits',
        domain: DOMAIN,
        timezone: 'UTC',
        monitoring: false,
        ...body,
      });
      expect(response.statusCode).toBe(422);
      expect(json(response.body).details.fields[0].field).toBe(field);
    }
    const sixteen = await createScope({ addresses: tooMany.slice(0, 16) });
    expect(sixteen.addresses).toHaveLength(16);

    const other = await h.trialOrganization();
    await enable(other.organizationId, 'credit');
    const low = await h.request(other.owner, 'POST', org(other.organizationId, '/exposure/scopes'), {
      name: 'Legacy',
      domain: DOMAIN,
      timezone: 'UTC',
      monitoring: false,
      credit_limit: 5,
    });
    expect(low.statusCode).toBe(422);
    const legacy = await ok(other.owner, 'POST', org(other.organizationId, '/exposure/scopes'), {
      name: 'Legacy',
      domain: DOMAIN,
      timezone: 'UTC',
      monitoring: true,
      credit_limit: 6,
    });
    expect(legacy).toMatchObject({ billing: 'credit', credit_limit: 6, monitoring: true });
    // Legacy credit billing starts no refresh by itself.
    expect(legacy.latest_refresh).toBeNull();
  });
});

describe('refresh runs: stable key, cadence, quota, coverage and result states', () => {
  let scopeId: string;

  it('run key: 16 to 64 characters; the same key never runs twice; cadence answers 429 with Retry-After', async () => {
    scopeId = (await createScope()).id as string;
    await refreshSettles(scopeId);
    await importCatalogue(false);
    const url = exposure(world.organizationId, scopeId, '/run');
    for (const key of ['k'.repeat(15), 'k'.repeat(65), 'with a space key!!']) {
      const response = await h.request(world.owner, 'POST', url, { key });
      expect(response.statusCode).toBe(422);
    }
    const first = await h.request(world.analyst, 'POST', url, { key: 'k'.repeat(16) });
    // The analyst is not assigned to this scope: it does not exist for them.
    expect(first.statusCode).toBe(404);
    const accepted = await h.request(world.owner, 'POST', url, { key: 'refresh-key-0001' });
    expect(accepted.statusCode).toBe(202);
    expect(json(accepted.body)).toMatchObject({ replayed: false, trigger: 'manual' });
    const replay = await h.request(world.owner, 'POST', url, { key: 'refresh-key-0001' });
    expect(replay.statusCode).toBe(200);
    expect(json(replay.body).replayed).toBe(true);
    expect(json(replay.body).id).toBe(json(accepted.body).id);
    const cadence = await h.request(world.owner, 'POST', url, { key: 'refresh-key-0002' });
    expect(cadence.statusCode).toBe(429);
    expect(json(cadence.body).details.rule).toBe(REFRESH_CADENCE.name);
    expect(Number(cadence.headers['retry-after'])).toBeGreaterThan(0);
    await refreshSettles(scopeId);
  });

  it('a catalogue without KEV data is catalogue_incomplete and never reads as a negative', async () => {
    const inv = await inventory(world.owner, scopeId);
    expect(service_(inv, NEGATIVE_SERVICE).coverage.state).toBe('catalogue_incomplete');
    expect(service_(inv, NEGATIVE_SERVICE).result_state).toBe('indeterminate');
    expect(service_(inv, MATCHED_SERVICE).result_state).toBe('matched');
    expect(inv.partial).toBe(true);
  });

  it('the organization quota answers 429 with Retry-After', async () => {
    const other = await h.trialOrganization();
    await enable(other.organizationId);
    const scope = await ok(other.owner, 'POST', org(other.organizationId, '/exposure/scopes'), {
      name: 'Quota',
      domain: DOMAIN,
      timezone: 'UTC',
      monitoring: false,
    });
    for (let i = 0; i < REFRESH_QUOTA.limit; i++) {
      await service.context.rateLimiter.consume(REFRESH_QUOTA, other.organizationId);
    }
    const refused = await h.request(
      other.owner,
      'POST',
      exposure(other.organizationId, scope.id as string, '/run'),
      {
        key: 'quota-key-000001',
      },
    );
    expect(refused.statusCode).toBe(429);
    expect(json(refused.body).details.rule).toBe(REFRESH_QUOTA.name);
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('every coverage state and result state of the complete catalogue; KEV subjects carry observed_products', async () => {
    await importCatalogue(true);
    await nextCadence();
    await ok(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
      key: 'refresh-key-0003',
    });
    await refreshSettles(scopeId);
    await waitUntil(async () => (await inventory(world.owner, scopeId)).partial === false, 10_000);
    const inv = await inventory(world.owner, scopeId);
    const kev = service_(inv, KEV_SERVICE);
    expect(kev).toMatchObject({
      result_state: 'kev',
      retained_result: false,
      coverage: { state: 'evaluated', eligible: true },
    });
    expect(kev.observed_products).toEqual([{ vendor: 'apache', product: 'http_server', version: '2.4.49' }]);
    expect(service_(inv, MATCHED_SERVICE).result_state).toBe('matched');
    expect(service_(inv, NEGATIVE_SERVICE)).toMatchObject({
      result_state: 'no_match',
      coverage: { state: 'evaluated' },
    });
    expect(service_(inv, '203.0.113.12:8080/tcp')).toMatchObject({
      result_state: 'indeterminate',
      coverage: { state: 'imprecise_identifiers', eligible: true },
    });
    expect(service_(inv, '203.0.113.13:22/tcp').coverage).toMatchObject({
      state: 'no_identifiers',
      eligible: false,
    });
    expect(service_(inv, '203.0.113.14:443/tcp').coverage).toMatchObject({
      state: 'identifier_limit',
      eligible: false,
    });
    expect(service_(inv, '198.51.100.7:443/tcp').coverage.state).toBe('shared_edge');
    expect(service_(inv, '192.0.2.50:25/tcp').coverage.state).toBe('evaluated');
    expect((inv.subjects as Json[]).some((s) => s.observation_id === '203.0.113.99:443/tcp')).toBe(false);
    // Shared edge is excluded from the service counts.
    expect(inv.summary.coverage).toMatchObject({ services: 7, excluded_shared_edge: 1 });
    expect(inv.summary.coverage.by_state).not.toHaveProperty('shared_edge');
    expect(inv.summary.coverage.by_processing).toEqual({ idle: 7 });
    expect(inv.totals).toMatchObject({ kev: 1, matched: 1, domain_registrations: 1 });
    expect(inv.evaluation).toMatchObject({ services: 7, evaluated: 4, complete: false });
    expect(inv.observations.first_seen).toBe('2026-01-01T00:00:00.000Z');
    // Fixed pages: the KEV subject comes first.
    expect((inv.subjects as Json[])[0]!.observation_id).toBe(KEV_SERVICE);
    expect(inv.limit).toBe(100);
  });

  it('inventory filters, group_by=host and the offset limits', async () => {
    const filtered = await inventory(world.owner, scopeId, '?filter=coverage:identifier_limit');
    expect((filtered.subjects as Json[]).map((s) => s.observation_id)).toEqual(['203.0.113.14:443/tcp']);
    expect(filtered.totals.matching).toBe(1);
    const kev = await inventory(world.owner, scopeId, '?filter=result:kev');
    expect((kev.subjects as Json[]).map((s) => s.observation_id)).toEqual([KEV_SERVICE]);
    const grouped = await inventory(world.owner, scopeId, '?group_by=host');
    const shared = (grouped.hosts as Json[]).find((g) => g.host === '203.0.113.12');
    expect(shared!.services).toHaveLength(2);
    expect((await inventory(world.owner, scopeId, '?offset=50000')).subjects).toEqual([]);
    for (const query of [
      '?offset=50001',
      '?offset=-1',
      '?offset=abc',
      '?group_by=port',
      '?filter=coverage:fine',
    ]) {
      const response = await h.request(
        world.owner,
        'GET',
        `${exposure(world.organizationId, scopeId)}${query}`,
      );
      expect(response.statusCode).toBe(422);
    }
  });

  it('processing: queued with the job fields of a real task; reading creates no job; paused when archived', async () => {
    const pool = service.app.get(RefreshWorkerPool);
    await pool.stop();
    const before = await service.context.storage.eventStore.headPosition();
    await inventory(world.owner, scopeId);
    await inventory(world.owner, scopeId, '?group_by=host');
    expect(await service.context.storage.eventStore.headPosition()).toBe(before);
    await nextCadence();
    const queued = await ok(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
      key: 'refresh-key-0004',
    });
    const inv = await inventory(world.owner, scopeId);
    expect(service_(inv, KEV_SERVICE).processing).toMatchObject({
      state: 'queued',
      job_id: queued.id,
      available_at: clock.now().toISOString(),
    });
    expect(inv.summary.coverage.by_processing).toEqual({ queued: 7 });

    // A worker elsewhere takes it and dies: running until its lease lapses, then interrupted.
    await service.context.repository.handle(
      refreshRunStreamId(scopeId, runKeyHash('refresh-key-0004')),
      refreshDecider,
      { type: 'StartRefreshAttempt', workerId: 'crashed-worker', leaseMs: 60_000 },
      { now: clock.now() },
      commandEnvelope({ actor: 'system:test', payer: 'system' }),
    );
    await waitForProjections(service, ['exposure-scopes']);
    expect(service_(await inventory(world.owner, scopeId), KEV_SERVICE).processing.state).toBe('running');
    clock.advance(61_000);
    expect(service_(await inventory(world.owner, scopeId), KEV_SERVICE).processing.state).toBe('interrupted');
    pool.start();
    const latest = await refreshSettles(scopeId);
    expect(latest.attempt).toBe(2);
    expect(service_(await inventory(world.owner, scopeId), KEV_SERVICE).processing.state).toBe('idle');
  });

  it('a failed refresh: retry_scheduled then failed; a negative reads indeterminate, a positive is retained', async () => {
    const before = await inventory(world.owner, scopeId);
    const kevResultAt = service_(before, KEV_SERVICE).result_at;
    const observations = service.context.observations;
    const original = observations.stream.bind(observations);
    observations.stream = () => {
      throw new Error('observation index unavailable');
    };
    try {
      await nextCadence();
      await ok(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
        key: 'refresh-key-0005',
      });
      await refreshSettles(scopeId, ['retry_scheduled']);
      let inv = await inventory(world.owner, scopeId);
      expect(service_(inv, KEV_SERVICE).processing).toMatchObject({ state: 'retry_scheduled', attempt: 1 });
      expect(service_(inv, KEV_SERVICE).processing.available_at > clock.now().toISOString()).toBe(true);
      for (let attempt = 2; attempt <= 3; attempt++) {
        clock.advance(5 * 60 * 1000);
        service.app.get(RefreshWorkerPool).nudge();
        await refreshSettles(scopeId, attempt === 3 ? ['failed'] : ['retry_scheduled']);
        await waitUntil(
          async () => (await inventory(world.owner, scopeId)).latest_refresh.attempt === attempt,
          10_000,
        );
      }
      inv = await inventory(world.owner, scopeId);
      expect(inv.partial).toBe(true);
      expect(service_(inv, NEGATIVE_SERVICE)).toMatchObject({
        result_state: 'indeterminate',
        retained_result: false,
      });
      expect(service_(inv, NEGATIVE_SERVICE).coverage.reasons).toContain('refresh_failed');
      const kev = service_(inv, KEV_SERVICE);
      expect(kev).toMatchObject({ result_state: 'kev', retained_result: true, result_at: kevResultAt });
      expect(kev.last_attempt_at).not.toBe(kev.result_at);
      expect(kev.processing).toMatchObject({ state: 'failed', error: 'observation index unavailable' });
      expect(inv.filter_options.result.find((r: Json) => r.value === 'no_match').count).toBe(0);
      const negatives = await inventory(world.owner, scopeId, '?filter=result:indeterminate');
      expect((negatives.subjects as Json[]).map((s) => s.observation_id)).toContain(NEGATIVE_SERVICE);
    } finally {
      observations.stream = original;
    }
    await nextCadence();
    await ok(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
      key: 'refresh-key-0006',
    });
    await refreshSettles(scopeId);
    expect(service_(await inventory(world.owner, scopeId), NEGATIVE_SERVICE).result_state).toBe('no_match');
  });
  it('a corrupted catalogue record fails that evaluation (processing_error); past the evaluation limit services are not_evaluated', async () => {
    // Its own domain: a service the corrupted nginx advisory applies to, then six more evaluable services,
    // one past the evaluation limit of this service (EXPOSURE_REFRESH_EVALUATION_LIMIT=5; refreshes read by id).
    const domain = 'limits-exposure.example';
    const fragile = host('198.18.0.0', 80, {
      hostnames: [`fragile.${domain}`],
      product: 'nginx',
      vendor: 'f5',
      version: '1.18.0',
      cpe: [cpe('f5', 'nginx', '1.18.0')],
    });
    const others = [1, 2, 3, 4, 5, 6].map((n) =>
      host(`198.18.0.${n}`, 443, {
        hostnames: [`h${n}.${domain}`],
        product: 'http_server',
        vendor: 'apache',
        version: '2.4.58',
        cpe: [cpe('apache', 'http_server', '2.4.58')],
      }),
    );
    await service.context.observations.write('hosts', [fragile, ...others]);
    const sql = service.context.storage.sql!;
    const { rows } = await sql.query<{ doc: unknown }>(
      "SELECT doc FROM catalogue_advisories WHERE id = 'CVE-2021-23017'",
    );
    const original = JSON.stringify(rows[0]!.doc);
    // Storage corruption: a version bound that is not a string (the loader takes stored documents as they are).
    await sql.query(
      `UPDATE catalogue_advisories SET doc = jsonb_set(doc, '{configurations,0,nodes,0,cpeMatch,0,versionEndExcluding}', '{"corrupt": true}') WHERE id = 'CVE-2021-23017'`,
    );
    await sql.query('UPDATE catalogue_meta SET version = version + 1');
    try {
      const limited = (await createScope({ domain, addresses: [] })).id as string;
      const latest = await refreshSettles(limited);
      expect(latest.status).toBe('completed');
      const inv = await inventory(world.owner, limited);
      expect(service_(inv, '198.18.0.0:80/tcp')).toMatchObject({
        coverage: { state: 'processing_error', reasons: ['evaluation_failed'], eligible: true },
        result_state: 'indeterminate',
      });
      for (const n of [1, 2, 3, 4]) {
        expect(service_(inv, `198.18.0.${n}:443/tcp`)).toMatchObject({
          coverage: { state: 'evaluated' },
          result_state: 'no_match',
        });
      }
      for (const n of [5, 6]) {
        expect(service_(inv, `198.18.0.${n}:443/tcp`)).toMatchObject({
          coverage: { state: 'not_evaluated', reasons: ['evaluation_limit'], eligible: true },
          result_state: 'indeterminate',
        });
      }
      // Services left unevaluated make the refresh partial; neither state is ever counted as a negative.
      expect(inv.partial).toBe(true);
      const byState = Object.fromEntries(
        (inv.filter_options.coverage as Json[]).map((entry) => [entry.value, entry.count]),
      );
      expect(byState).toMatchObject({ processing_error: 1, not_evaluated: 2, evaluated: 4 });
      expect(inv.filter_options.result.find((r: Json) => r.value === 'no_match').count).toBe(4);
      const unevaluated = await inventory(world.owner, limited, '?filter=coverage:not_evaluated');
      expect((unevaluated.subjects as Json[]).map((subject) => subject.observation_id).sort()).toEqual([
        '198.18.0.5:443/tcp',
        '198.18.0.6:443/tcp',
      ]);
    } finally {
      await sql.query("UPDATE catalogue_advisories SET doc = $1::jsonb WHERE id = 'CVE-2021-23017'", [
        original,
      ]);
      await sql.query('UPDATE catalogue_meta SET version = version + 1');
    }
  });
});

describe('decisions, history, timezone, enrichment and controls', () => {
  let scopeId: string;
  let assigned: Actor;
  let kevSubject: string;
  let domainSubject: string;

  beforeAll(async () => {
    await importCatalogue(true);
    scopeId = (await createScope({ timezone: 'Pacific/Kiritimati' })).id as string;
    await refreshSettles(scopeId);
    assigned = await h.member(world.organizationId, world.owner, 'analyst', { spaces: [scopeId] });
    const inv = await inventory(world.owner, scopeId);
    kevSubject = service_(inv, KEV_SERVICE).id as string;
    domainSubject = (inv.subjects as Json[]).find((s) => s.kind === 'domain_expiry')!.id as string;
  });

  const decide = (actor: Actor, subjectId: string, body: Json) =>
    h.request(actor, 'PATCH', exposure(world.organizationId, scopeId, `/subjects/${subjectId}`), body);

  it('every decision rule, with the body version (stale → 409, missing → 422)', async () => {
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(clock.now());
    const tomorrowThere = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const invalid: Array<[Json, string]> = [
      [{ decision: 'done' }, 'decision'],
      [{ decision: 'investigating', conclusion: 'kept' }, 'conclusion'],
      [{ decision: 'acknowledged' }, 'conclusion'],
      [{ decision: 'acknowledged', conclusion: 'fixed' }, 'conclusion'],
      [{ decision: 'acknowledged', conclusion: 'closed' }, 'according_to'],
      [{ decision: 'acknowledged', conclusion: 'updated', note: 'x' }, 'according_to'],
      [{ decision: 'acknowledged', conclusion: 'not_concerned' }, 'note'],
      [{ decision: 'acknowledged', conclusion: 'other', according_to: 'vendor' }, 'note'],
      [{ decision: 'investigating', announced_date: '2026-02-30' }, 'announced_date'],
      [{ decision: 'investigating', announced_date: tomorrowThere }, 'announced_date'],
      [{ decision: 'investigating', renewal: '2027-01-15' }, 'renewal'],
    ];
    for (const [body, field] of invalid) {
      const response = await decide(assigned, kevSubject, { version: 0, ...body });
      expect({
        body,
        status: response.statusCode,
        field: json(response.body).details?.fields?.[0]?.field,
      }).toEqual({
        body,
        status: 422,
        field,
      });
    }
    const missingVersion = await decide(assigned, kevSubject, { decision: 'investigating' });
    expect(missingVersion.statusCode).toBe(422);
    expect(json(missingVersion.body).details.fields[0].field).toBe('version');

    // Today in the scope's timezone (14 hours ahead of UTC) is accepted.
    const first = await decide(assigned, kevSubject, {
      version: 0,
      decision: 'investigating',
      announced_date: today,
    });
    expect(first.statusCode).toBe(200);
    expect(json(first.body)).toMatchObject({
      version: 1,
      decision: { state: 'investigating', announced_date: today },
    });
    const stale = await decide(world.owner, kevSubject, {
      version: 0,
      decision: 'acknowledged',
      conclusion: 'kept',
    });
    expect(stale.statusCode).toBe(409);
    expect(json(stale.body).code).toBe('version_conflict');
    for (const [conclusion, extra] of [
      ['closed', { according_to: 'vendor advisory' }],
      ['updated', { according_to: 'the client' }],
      ['not_concerned', { note: 'not our asset' }],
      ['other', { note: 'see ticket 42' }],
      ['kept', {}],
    ] as const) {
      const version = json(
        (await h.request(world.owner, 'GET', exposure(world.organizationId, scopeId))).body,
      ).subjects.find((s: Json) => s.id === kevSubject).version;
      const response = await decide(world.owner, kevSubject, {
        version,
        decision: 'acknowledged',
        conclusion,
        ...extra,
      });
      expect(response.statusCode).toBe(200);
      expect(json(response.body).decision).toMatchObject({
        state: 'acknowledged',
        conclusion,
        decided_by: `account:${world.owner.accountId}`,
      });
    }
    const renewal = await decide(world.owner, domainSubject, {
      version: 0,
      decision: 'acknowledged',
      conclusion: 'updated',
      according_to: 'registrar',
      renewal: '2028-01-15',
    });
    expect(renewal.statusCode).toBe(200);
    expect(json(renewal.body).decision.renewal).toBe('2028-01-15');
    // The observation is still there: a decision deletes nothing.
    expect(service_(await inventory(world.owner, scopeId), KEV_SERVICE).result_state).toBe('kev');
  });

  it('role rules: external clients and unassigned analysts cannot decide; unknown subjects are 404', async () => {
    expect((await decide(world.external, kevSubject, { version: 0, decision: 'new' })).statusCode).toBe(403);
    expect((await decide(world.outsider, kevSubject, { version: 0, decision: 'new' })).statusCode).toBe(404);
    expect(
      (await decide(assigned, 'svc-000000000000000000000000', { version: 0, decision: 'new' })).statusCode,
    ).toBe(404);
    expect((await h.request(world.external, 'GET', exposure(world.organizationId, scopeId))).statusCode).toBe(
      403,
    );
    expect(
      (await h.request(assigned, 'GET', exposure(world.organizationId, scopeId, '/history'))).statusCode,
    ).toBe(200);
  });

  it('a later observation reopens a decided subject', async () => {
    await service.context.observations.write('hosts', [
      { ...HOSTS[0]!, last_seen: '2026-11-19T08:00:00.000Z' },
    ]);
    await nextCadence();
    await ok(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
      key: 'reopen-key-000001',
    });
    await refreshSettles(scopeId);
    await waitUntil(
      async () => service_(await inventory(world.owner, scopeId), KEV_SERVICE).decision.state === 'new',
      10_000,
    );
    const reopened = service_(await inventory(world.owner, scopeId), KEV_SERVICE);
    expect(reopened.decision.reopened_at).not.toBeNull();
    expect(reopened.decision.conclusion).toBe('kept');
  });

  it('history: attributed, newest first, 50 per page, subject filter, offset limits', async () => {
    const history = await ok(assigned, 'GET', exposure(world.organizationId, scopeId, '/history'));
    const next = await ok(assigned, 'GET', exposure(world.organizationId, scopeId, '/history?offset=50'));
    expect((history.entries as Json[]).length).toBe(Math.min(50, history.total as number));
    expect((next.entries as Json[]).length).toBe(Math.max(0, (history.total as number) - 50));
    const types = [...(history.entries as Json[]), ...(next.entries as Json[])].map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'SpaceCreated',
        'ExposureScopeDeclared',
        'RefreshRequested',
        'RefreshCompleted',
        'DecisionRecorded',
        'SubjectReopened',
      ]),
    );
    expect(history.limit).toBe(50);
    const positions = (history.entries as Json[]).map((e) => e.position as string);
    expect([...positions].sort().reverse()).toEqual(positions);
    const decided = (history.entries as Json[]).find(
      (e) => e.type === 'DecisionRecorded' && e.actor === `account:${assigned.accountId}`,
    );
    expect(decided).toBeDefined();
    const forSubject = await ok(
      assigned,
      'GET',
      exposure(world.organizationId, scopeId, `/history?subject=${kevSubject}`),
    );
    expect((forSubject.entries as Json[]).every((e) => e.subject_id === kevSubject)).toBe(true);
    expect(forSubject.entries.length).toBeGreaterThanOrEqual(7);
    expect(
      (await ok(assigned, 'GET', exposure(world.organizationId, scopeId, '/history?offset=100000'))).entries,
    ).toEqual([]);
    for (const query of ['?offset=100001', '?offset=x', '?subject=nope']) {
      expect(
        (await h.request(assigned, 'GET', exposure(world.organizationId, scopeId, `/history${query}`)))
          .statusCode,
      ).toBe(422);
    }
    expect(JSON.stringify(history)).not.toMatch(/scan(ned)?\b|check (was )?executed/i);
  });

  it('PUT timezone: managers, body version; stale 409, missing 422', async () => {
    const scope = json(
      (await h.request(world.owner, 'GET', org(world.organizationId, `/clients/${scopeId}`))).body,
    );
    const version = Number(String(scope.version).replaceAll('"', ''));
    const url = exposure(world.organizationId, scopeId, '/timezone');
    expect((await h.request(assigned, 'PUT', url, { timezone: 'UTC', version })).statusCode).toBe(403);
    expect((await h.request(world.owner, 'PUT', url, { timezone: 'UTC' })).statusCode).toBe(422);
    expect((await h.request(world.owner, 'PUT', url, { timezone: 'Nowhere/City', version })).statusCode).toBe(
      422,
    );
    expect(
      (await h.request(world.owner, 'PUT', url, { timezone: 'UTC', version: version + 5 })).statusCode,
    ).toBe(409);
    const changed = await ok(world.administrator, 'PUT', url, { timezone: 'America/New_York', version });
    expect(changed).toMatchObject({ timezone: 'America/New_York', version: `"${version + 1}"` });
  });

  it('asset enrichment: the catalogue association of the stored observation, recorded, no asset request', async () => {
    const enriched = await ok(
      assigned,
      'POST',
      exposure(world.organizationId, scopeId, `/assets/${kevSubject}/enrich`),
    );
    expect(enriched).toMatchObject({
      asset_key: kevSubject,
      observation_id: KEV_SERVICE,
      result_state: 'kev',
    });
    expect((enriched.findings as Json[]).map((f) => f.id)).toContain('CVE-2021-41773');
    expect(enriched.findings[0].observed_products).toEqual([
      { vendor: 'apache', product: 'http_server', version: '2.4.49' },
    ]);
    expect(enriched.notice).toMatch(/No asset was contacted/);
    expect(
      (
        await h.request(
          assigned,
          'POST',
          exposure(world.organizationId, scopeId, `/assets/${domainSubject}/enrich`),
        )
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await h.request(
          world.external,
          'POST',
          exposure(world.organizationId, scopeId, `/assets/${kevSubject}/enrich`),
        )
      ).statusCode,
    ).toBe(403);
  });

  it('processing unknown: an evaluation recorded by an earlier version (no evaluation input) matches no task', async () => {
    // Events an earlier version wrote stay in the log: an enrichment recorded without its evaluation input.
    const store = service.context.storage.eventStore;
    const stream = subjectStreamId(scopeId, kevSubject);
    const history = await store.readStream(stream);
    const enrichment = history.findLast((event) => event.type === 'AssetEnriched')!;
    const { input: _input, ...legacyData } = enrichment.data as Json;
    await store.append(
      stream,
      [
        {
          id: eventIdFor(`legacy-enrichment:${kevSubject}`, 0),
          type: 'AssetEnriched',
          schemaVersion: 1,
          data: legacyData,
          metadata: enrichment.metadata,
        },
      ],
      { expectedVersion: history.at(-1)!.streamVersion },
    );
    await waitUntil(
      async () => service_(await inventory(world.owner, scopeId), KEV_SERVICE).processing.state === 'unknown',
      10_000,
    );
    const inv = await inventory(world.owner, scopeId);
    expect(service_(inv, KEV_SERVICE).processing).toEqual({ state: 'unknown' });
    expect(inv.summary.coverage.by_processing.unknown).toBe(1);
    // Reading created no job.
    expect(inv.latest_refresh.status).toBe('completed');
  });

  it('controls: historical records imported by operators, up to 100, optional asset filter', async () => {
    const records = Array.from({ length: 105 }, (_, i) => ({
      id: `control-${i}`,
      asset: i % 2 === 0 ? kevSubject : '203.0.113.11',
      kind: 'penetration_test',
      title: `Annual review ${i}`,
      performed_at: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
      performed_by: 'Example Auditors',
    }));
    const envelope = commandEnvelope({
      actor: 'operator:test',
      payer: `organization:${world.organizationId}`,
      scope: scopeId,
    });
    const { checkedControlRecords } = await import('../../src/exposure/domain/control-records.js');
    await service.context.storage.eventStore.append(
      controlsStreamId(scopeId),
      [
        {
          id: eventIdFor(`controls:${scopeId}`, 0),
          type: 'ControlRecordsImported',
          schemaVersion: 1,
          data: { scopeId, records: checkedControlRecords(records), importedAt: clock.now().toISOString() },
          metadata: envelope.metadata,
        },
      ],
      { expectedVersion: 'any' },
    );
    await waitForProjections(service, ['exposure-inventory']);
    const all = await ok(assigned, 'GET', exposure(world.organizationId, scopeId, '/controls'));
    expect(all.controls).toHaveLength(100);
    expect(all.historical).toBe(true);
    const filtered = await ok(
      assigned,
      'GET',
      exposure(world.organizationId, scopeId, `/controls?asset=${kevSubject}`),
    );
    expect(filtered.controls).toHaveLength(53);
    expect((filtered.controls as Json[]).every((c) => c.asset === kevSubject)).toBe(true);
  });
});

describe('scope state table', () => {
  it('active → archived → active with If-Match (428 without, 409 stale); archiving stops work and monitoring', async () => {
    const scope = await createScope({ monitoring: true });
    const scopeId = scope.id as string;
    await refreshSettles(scopeId);
    const url = org(world.organizationId, `/clients/${scopeId}`);
    // GET /clients/{id} is the same client view the creation returned.
    const view = await ok(world.owner, 'GET', url);
    expect(view).toMatchObject({
      id: scopeId,
      name: scope.name,
      domain: DOMAIN,
      timezone: 'Europe/Paris',
      addresses: ['192.0.2.50'],
      state: 'active',
      monitoring: true,
      erase_after: null,
    });
    expect(view.version).toMatch(/^"\d+"$/);
    expect((await h.request(world.owner, 'PATCH', url, { state: 'archived' })).statusCode).toBe(428);
    expect(
      (await h.request(world.owner, 'PATCH', url, { state: 'archived' }, { 'if-match': '"999"' })).statusCode,
    ).toBe(409);
    const pool = service.app.get(RefreshWorkerPool);
    await pool.stop();
    await nextCadence();
    await ok(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
      key: 'archive-key-00001',
    });
    const current = json((await h.request(world.owner, 'GET', url)).body).version as string;
    const archived = await ok(world.owner, 'PATCH', url, { state: 'archived' }, { 'if-match': current });
    expect(archived).toMatchObject({
      state: 'archived',
      monitoring: false,
      domain: DOMAIN,
      timezone: 'Europe/Paris',
    });
    const inv = await inventory(world.owner, scopeId);
    expect(service_(inv, KEV_SERVICE).processing.state).toBe('paused');
    pool.start();
    const latest = await refreshSettles(scopeId, ['cancelled']);
    expect(latest.status).toBe('cancelled');
    expect(
      (
        await h.request(world.owner, 'POST', exposure(world.organizationId, scopeId, '/run'), {
          key: 'archive-key-00002',
        })
      ).statusCode,
    ).toBe(403);
    const reactivated = await ok(
      world.owner,
      'PATCH',
      url,
      { state: 'active' },
      { 'if-match': archived.version as string },
    );
    // Restarts are not implied: monitoring stays off.
    expect(reactivated).toMatchObject({ state: 'active', monitoring: false });
  });

  it('DELETE (exact name, If-Match) → deleted; restore before erase_after → archived without grants; after the window → 409; erasure keeps audit and accounting', async () => {
    const other = await h.trialOrganization();
    await enable(other.organizationId, 'credit');
    const scope = await ok(other.owner, 'POST', org(other.organizationId, '/exposure/scopes'), {
      name: 'To erase',
      domain: DOMAIN,
      timezone: 'UTC',
      monitoring: false,
      credit_limit: 100,
    });
    const scopeId = scope.id as string;
    const analyst = await h.member(other.organizationId, other.owner, 'analyst', { spaces: [scopeId] });
    await ok(other.owner, 'POST', exposure(other.organizationId, scopeId, '/run'), {
      key: 'erase-key-000001',
    });
    await waitUntil(async () => {
      const inv = json((await h.request(other.owner, 'GET', exposure(other.organizationId, scopeId))).body);
      if (inv.latest_refresh?.status === 'failed') throw new Error(JSON.stringify(inv.latest_refresh));
      return inv.latest_refresh?.status === 'completed';
    }, 20_000);
    // The refresh's completion is in the scopes read model; its subjects in the inventory's, which may lag.
    await waitForProjections(service, ['exposure-inventory']);
    const inv = json((await h.request(other.owner, 'GET', exposure(other.organizationId, scopeId))).body);
    const subjectId = service_(inv, KEV_SERVICE).id as string;
    await ok(analyst, 'PATCH', exposure(other.organizationId, scopeId, `/subjects/${subjectId}`), {
      version: 0,
      decision: 'investigating',
      note: 'personal note',
    });
    // Workspace content of the scope: a case with evidence from a search run in the scope.
    const opened = await ok(other.owner, 'POST', org(other.organizationId, '/cases'), {
      space_id: scopeId,
      title: 'Case to erase',
    });
    const caseId = opened.id as string;
    await h.switchTo(other.owner, other.organizationId);
    await ok(other.owner, 'PUT', org(other.organizationId, '/context'), {
      space_id: scopeId,
      case_id: caseId,
    });
    const search = json((await h.search(other.owner, 'nginx')).body);
    const found = Object.values(
      search.results as Record<string, Array<{ dataset: string; id: string }>>,
    ).flat();
    expect(found.length).toBeGreaterThan(0);
    await ok(other.owner, 'POST', org(other.organizationId, '/evidence'), {
      search_id: search.search_id,
      records: [{ dataset: found[0]!.dataset, id: found[0]!.id }],
      note: 'evidence to erase',
    });
    const ledger = await service.app.get(CreditLedger).state(`organization:${other.organizationId}`);
    const ledgerEvents = (
      await service.context.storage.eventStore.readStream(
        ledgerStreamId(`organization:${other.organizationId}`),
      )
    ).length;
    expect(ledger).toBeDefined();

    const url = org(other.organizationId, `/clients/${scopeId}`);
    const version = json((await h.request(other.owner, 'GET', url)).body).version as string;
    expect((await h.request(other.owner, 'DELETE', url, { name: 'To erase' })).statusCode).toBe(428);
    expect(
      (await h.request(other.owner, 'DELETE', url, { name: 'to erase' }, { 'if-match': version })).statusCode,
    ).toBe(422);
    expect(
      (await h.request(analyst, 'DELETE', url, { name: 'To erase' }, { 'if-match': version })).statusCode,
    ).toBe(403);
    expect(
      (await h.request(other.owner, 'DELETE', url, { name: 'To erase' }, { 'if-match': version })).statusCode,
    ).toBe(204);
    // Access removed at once.
    expect((await h.request(other.owner, 'GET', exposure(other.organizationId, scopeId))).statusCode).toBe(
      404,
    );
    expect((await h.request(analyst, 'GET', exposure(other.organizationId, scopeId))).statusCode).toBe(404);
    const spaces = await ok(other.owner, 'GET', org(other.organizationId, '/spaces'));
    expect((spaces.spaces as Json[]).some((s) => s.id === scopeId)).toBe(false);
    expect((await h.request(analyst, 'GET', org(other.organizationId, '/clients/deleted'))).statusCode).toBe(
      403,
    );
    const deleted = await ok(other.owner, 'GET', org(other.organizationId, '/clients/deleted'));
    const entry = (deleted.clients as Json[]).find((c) => c.id === scopeId);
    expect(entry).toMatchObject({
      name: 'To erase',
      erase_after: new Date(clock.now().getTime() + 7 * 86_400_000).toISOString(),
    });

    expect((await h.request(other.owner, 'POST', `${url}/restore`)).statusCode).toBe(428);
    const restored = await ok(other.owner, 'POST', `${url}/restore`, undefined, {
      'if-match': entry!.version as string,
    });
    expect(restored).toMatchObject({ state: 'archived', erase_after: null });
    // Grants are not restored: the analyst lost the assignment.
    expect((await h.request(analyst, 'GET', exposure(other.organizationId, scopeId))).statusCode).toBe(404);

    const again = await h.request(
      other.owner,
      'DELETE',
      url,
      { name: 'To erase' },
      { 'if-match': restored.version as string },
    );
    expect(again.statusCode).toBe(204);
    clock.advance(7 * 86_400_000 + 1000);
    const owner = await h.login(other.owner);
    const late = (await ok(owner, 'GET', org(other.organizationId, '/clients/deleted'))).clients as Json[];
    const lateVersion = late.find((c) => c.id === scopeId)!.version as string;
    const refused = await h.request(owner, 'POST', `${url}/restore`, undefined, { 'if-match': lateVersion });
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body).code).toBe('restore_window_closed');

    expect(await service.app.get(ScopeErasureSweeper).sweepOnce()).toBeGreaterThanOrEqual(1);
    const store = service.context.storage.eventStore;
    expect(await store.readStream(spaceStreamId(scopeId))).toEqual([]);
    expect(await store.readStream(subjectStreamId(scopeId, subjectId))).toEqual([]);
    expect(await store.readStream(refreshRunStreamId(scopeId, runKeyHash('erase-key-000001')))).toEqual([]);
    // The scope's workspace content is erased too: the case (with its evidence) and the recorded search.
    expect(await store.readStream(caseStreamId(caseId))).toEqual([]);
    expect(await store.readStream(researchStreamId(search.search_id as string))).toEqual([]);
    expect((await h.request(owner, 'GET', org(other.organizationId, `/cases/${caseId}`))).statusCode).toBe(
      404,
    );
    const cases = (await ok(owner, 'GET', org(other.organizationId, '/cases'))).cases as Json[];
    expect(cases.some((c) => c.id === caseId)).toBe(false);
    const audit = await store.readStream(exposureAuditStreamId(other.organizationId));
    expect(audit.map((e) => e.type)).toEqual(['ScopeErased']);
    // The erased streams keep their envelopes and hashes: the log still verifies, each stream an erased span
    // recorded by the ScopeErased event (ADR 0062).
    const verification = await service.context.tamperEvidence.verify();
    expect(verification.finding).toBeNull();
    const erasedStreams = new Set(verification.erasedSpans.map((span) => span.streamId));
    expect(erasedStreams).toContain(spaceStreamId(scopeId));
    expect(erasedStreams).toContain(caseStreamId(caseId));
    expect(new Set(verification.erasedSpans.map((span) => span.erasedBy))).toEqual(new Set([audit[0]!.id]));
    expect(JSON.stringify(audit)).not.toContain('personal note');
    expect(JSON.stringify(audit)).not.toContain('evidence to erase');
    expect(JSON.stringify(audit)).not.toContain('To erase');
    // Accounting remains: the refresh's reservation and settlement are still in the ledger.
    const ledgerAfter = await store.readStream(ledgerStreamId(`organization:${other.organizationId}`));
    expect(ledgerAfter.length).toBe(ledgerEvents);
    expect(ledgerAfter.some((e) => e.type === 'ReservationSettled' && e.metadata.scope === scopeId)).toBe(
      true,
    );
    expect(
      ((await ok(owner, 'GET', org(other.organizationId, '/clients/deleted'))).clients as Json[]).some(
        (c) => c.id === scopeId,
      ),
    ).toBe(false);
    expect(
      (await h.request(owner, 'POST', `${url}/restore`, undefined, { 'if-match': lateVersion })).statusCode,
    ).toBe(404);
    clock.set(new Date(clock.now().getTime()));
  });
});

describe('projections: replaying the whole log into empty read models gives the same documents', () => {
  it('every projection takes each event of this log on its own (one-event batches) and builds the same documents', async () => {
    await expectOneEventBatchesToRebuildLiveDocuments(service);
  });

  it.each(['exposure-scopes', 'exposure-inventory', 'exposure-history', 'organizations', 'event-streams'])(
    '%s',
    async (name) => {
      await waitForProjections(service, [name]);
      const verdict = await service.context.maintenance.verify(service.context.projections.definition(name));
      expect(verdict.equal).toBe(true);
    },
  );
});
