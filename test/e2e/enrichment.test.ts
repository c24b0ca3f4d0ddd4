/**
 * Vulnerability and badge enrichment over HTTP on the real service (PGlite), with the real NVD and KEV files of
 * ../shared/data imported through the catalogue service, and the cve:/kev: selectors of search. One leg on the
 * PostgreSQL server checks the association index and selectors where storage matters.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { CommandBus } from '@nestjs/cqrs';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { AccountDirectory } from '../../src/accounts/queries/account-directory.js';
import {
  BADGE_BATCH_CONCURRENCY,
  BADGE_BATCH_DEADLINE_MS,
  BADGE_SLOT_HELD_AT_MOST_DEADLINES,
  EnrichmentHandler,
  VULNERABILITY_ENRICHMENT_RATE,
} from '../../src/catalogue/http/enrichment-handler.js';
import type { Principal } from '../../src/platform/auth/access.js';
import type { ObservationIndex } from '../../src/search/observation-index/observation-index.port.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { VulnerabilityRefs } from '../../src/search/vulnerability-ref.js';
import type { Clock } from '../../src/platform/clock/clock.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const DATA = join(process.cwd(), '..', 'shared', 'data');
const NOW = new Date();
const PASSWORD = 'enrichment-password-0123456789';
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
const APACHE_2449 = 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*';

async function account(service: TestService, plan: 'enterprise' | 'professional' | 'free') {
  const bus = service.app.get(CommandBus);
  const email = `enrich-${plan}-${Math.random().toString(36).slice(2)}@example.com`;
  const { accountId } = await bus.execute(new RegisterAccount(email, plan, PASSWORD, operator()));
  const { key } = await bus.execute(new IssueApiKey(accountId, 'enrichment', operator()));
  return { accountId, key: key as string, email };
}

async function seed(service: TestService): Promise<void> {
  for (const dataset of ['hosts', 'dns', 'vhosts', 'whois'] as const)
    await writeGenerated(service.context.observations, dataset, {
      count: 1500,
      seed: 'enrich-e2e',
      now: NOW,
    });
  await service.context.catalogue.importPaths([join(DATA, 'nvd'), join(DATA, 'kev')], {
    observations: service.context.observations,
  });
}

function post(
  service: TestService,
  url: string,
  key: string,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return service.app.inject({
    method: 'POST',
    url,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const VULNS = '/api/v2/common/data/enrich/vulnerabilities';
const BADGES = '/api/v2/common/data/enrich/badges';
const SEARCH = '/api/v2/common/data/search';

async function searchHosts(service: TestService, key: string, rawQuery: string) {
  const response = await post(service, SEARCH, key, {
    raw_query: rawQuery,
    stream: false,
    per_type_limit: 25,
  });
  return response;
}

/** Real time, which a test can hold still: the 60-per-minute rule must not refill while 60 requests run. */
class HoldableClock implements Clock {
  private held: Date | undefined;
  now(): Date {
    return new Date(this.held ?? Date.now());
  }
  hold(): void {
    this.held = new Date();
  }
  /** Moves the held time forward. */
  advance(ms: number): void {
    this.held = new Date((this.held ?? new Date()).getTime() + ms);
  }
  release(): void {
    this.held = undefined;
  }
}

describe('enrichment over HTTP (PGlite, real NVD and KEV data)', () => {
  const clock = new HoldableClock();
  let service: TestService;
  let enterprise: { accountId: string; key: string; email: string };
  let professional: { accountId: string; key: string; email: string };

  beforeAll(async () => {
    service = await startTestService('pglite', { clock });
    await seed(service);
    enterprise = await account(service, 'enterprise');
    professional = await account(service, 'professional');
  });
  afterAll(async () => {
    await service.dispose();
  });

  it('evaluates raw CPEs for an Enterprise account, free of search charge, with KEV entries', async () => {
    const credits = () =>
      service.app.inject({
        method: 'GET',
        url: '/api/v2/common/credits',
        headers: { 'x-api-key': enterprise.key },
      });
    const before = (await credits()).json();
    const response = await post(service, VULNS, enterprise.key, {
      cpes: [APACHE_2449, 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*'],
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({
      evaluated_at: expect.any(String),
      kev_source: { catalog_version: '2025.08.25', count: 1404 },
      cpes: [APACHE_2449, 'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*'],
    });
    const [apache, nginx] = body.evaluations;
    expect(apache).toMatchObject({
      status: 'matched',
      complete: true,
      source: 'cpe',
      cpe: APACHE_2449,
      total: 3,
    });
    expect(apache.findings.map((f: { id: string }) => f.id).sort()).toEqual([
      'CVE-2021-41773',
      'CVE-2021-42013',
      'CVE-2023-25690',
    ]);
    const traversal = apache.findings.find((f: { id: string }) => f.id === 'CVE-2021-41773');
    expect(traversal).toMatchObject({
      kev: { cve_id: 'CVE-2021-41773' },
      additional_conditions: [],
      observed_products: [{ vendor: 'apache', product: 'http_server', version: '2.4.49' }],
      cvss: { base_score: 7.5 },
    });
    expect(apache.findings.find((f: { id: string }) => f.id === 'CVE-2023-25690').kev).toBe(false);
    expect(nginx).toMatchObject({ status: 'indeterminate', complete: false, reason: 'version_unknown' });
    expect((await credits()).json()).toEqual(before);
  });

  it('an observation lacking the software edition: the reason names it, and the CVE at stake carries the condition', async () => {
    const ip = '198.51.100.210';
    await service.context.observations.write('hosts', [
      {
        id: `${ip}:8080/tcp`,
        first_seen: NOW.toISOString(),
        last_seen: NOW.toISOString(),
        ip,
        port: 8080,
        transport: 'tcp',
        protocol: 'http',
        product: 'jenkins',
        vendor: 'jenkins',
        version: '2.440',
        cpe: ['cpe:2.3:a:jenkins:jenkins:2.440:*:*:*:*:*:*:*'],
      },
    ]);
    const found = await post(service, '/api/v2/common/data/hosts', professional.key, {
      raw_query: `ip:${ip}`,
    });
    const reference = found.json().data[0].vulnerability_ref as string;
    const response = await post(service, VULNS, professional.key, { reference });
    expect(response.statusCode).toBe(200);
    const [evaluation] = response.json().evaluations;
    expect(evaluation).toMatchObject({
      status: 'indeterminate',
      complete: false,
      reason: 'sw_edition_unknown',
      unknown_attributes: ['sw_edition'],
      source: 'observation',
      total: 1,
    });
    expect(evaluation.reason).not.toBe('version_unknown');
    expect(evaluation.findings).toEqual([
      expect.objectContaining({
        id: 'CVE-2024-23897',
        kev: expect.objectContaining({ cve_id: 'CVE-2024-23897' }),
        observed_products: [{ vendor: 'jenkins', product: 'jenkins', version: '2.440' }],
        additional_conditions: [
          expect.objectContaining({
            operator: 'OR',
            criteria: ['cpe:2.3:a:jenkins:jenkins:*:*:*:*:-:*:*:*'],
            unknown_attributes: ['sw_edition'],
          }),
        ],
      }),
    ]);
    // The association index agrees: the host is associated with the CVE at stake, as a conditional association.
    const selected = await post(service, '/api/v2/common/data/hosts', professional.key, {
      raw_query: `ip:${ip} AND cve:CVE-2024-23897`,
    });
    expect(selected.json().total).toBe(1);
  });

  it('refuses raw CPEs without the CPE entitlement (403) and malformed requests (422)', async () => {
    const forbidden = await post(service, VULNS, professional.key, { cpes: [APACHE_2449] });
    expect([forbidden.statusCode, forbidden.json().code]).toEqual([403, 'forbidden']);
    for (const body of [
      { reference: 'abc', cpes: [APACHE_2449] },
      { cpes: [] },
      { cpes: Array.from({ length: 9 }, () => APACHE_2449) },
      { cpes: ['not-a-cpe'] },
      { cpes: ['cpe:2.3:a:too:few'] },
      {},
      { reference: 'x', extra: true },
    ]) {
      const response = await post(service, VULNS, enterprise.key, body);
      expect([JSON.stringify(body), response.statusCode, response.json().code]).toEqual([
        JSON.stringify(body),
        422,
        'invalid_input',
      ]);
    }
    const tooBig = await post(service, VULNS, enterprise.key, { reference: 'a'.repeat(101 * 1024) });
    expect([tooBig.statusCode, tooBig.json().code]).toEqual([413, 'payload_too_large']);
  });

  it('evaluates a vulnerability_ref from search; invalid or expired refs are 422 invalid_reference', async () => {
    const found = await searchHosts(service, professional.key, 'cve:CVE-2021-41773');
    expect(found.statusCode).toBe(200);
    const hosts = found.json().results.hosts as Array<{ raw: Record<string, unknown> }>;
    expect(hosts.length).toBeGreaterThan(0);
    const reference = hosts[0]!.raw.vulnerability_ref as string;
    const response = await post(service, VULNS, professional.key, { reference });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.cpes).toBeNull();
    expect(body.evaluations).toHaveLength(1);
    expect(body.evaluations[0]).toMatchObject({ status: 'matched', source: 'observation', cpe: '' });
    const finding = body.evaluations[0].findings.find((f: { id: string }) => f.id === 'CVE-2021-41773');
    expect(finding.observed_products).toEqual([
      { vendor: hosts[0]!.raw.vendor, product: hosts[0]!.raw.product, version: hosts[0]!.raw.version },
    ]);

    const tampered = reference.slice(0, -4) + (reference.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const expired = service.app
      .get(VulnerabilityRefs)
      .seal(
        [{ vendor: 'apache', product: 'apache httpd', version: '2.4.49', cpe: [APACHE_2449] }],
        new Date(Date.now() - 25 * 3600_000),
      );
    for (const bad of [tampered, expired, 'not a reference!']) {
      const refused = await post(service, VULNS, professional.key, { reference: bad });
      expect([refused.statusCode, refused.json().code, refused.json().details?.retryable]).toEqual([
        422,
        'invalid_reference',
        false,
      ]);
    }
  });

  it('a failing reference lookup is 503 lookup_unavailable', async () => {
    const found = await searchHosts(service, professional.key, 'cve:*');
    const reference = found.json().results.hosts[0].raw.vulnerability_ref as string;
    const sql = service.context.storage.sql!;
    await sql.query('ALTER TABLE catalogue_meta RENAME TO catalogue_meta_away');
    try {
      const response = await post(service, VULNS, professional.key, { reference });
      expect([response.statusCode, response.json().code]).toEqual([503, 'lookup_unavailable']);
    } finally {
      await sql.query('ALTER TABLE catalogue_meta_away RENAME TO catalogue_meta');
    }
    expect((await post(service, VULNS, professional.key, { reference })).statusCode).toBe(200);
  });

  it('cve: and kev: selectors search the association index and combine with host criteria', async () => {
    const total = async (query: string) => {
      const response = await post(service, '/api/v2/common/data/hosts', professional.key, {
        raw_query: query,
        results_per_page: 50,
      });
      expect([query, response.statusCode]).toEqual([query, 200]);
      return response.json() as { total: number; data: Array<Record<string, unknown>> };
    };
    const any = await total('cve:*');
    const kevTrue = await total('kev:true');
    const kevFalse = await total('kev:false');
    const year = await total('cve:2021-*');
    const exact = await total('cve:CVE-2021-41773');
    expect(any.total).toBeGreaterThan(0);
    expect(kevTrue.total).toBeGreaterThan(0);
    expect(kevFalse.total).toBeGreaterThan(0);
    expect(kevTrue.total + kevFalse.total).toBe(any.total);
    expect(year.total).toBeLessThanOrEqual(any.total);
    expect(exact.total).toBeGreaterThan(0);
    for (const host of exact.data) expect(host.cpe as string[]).toContain(APACHE_2449);
    const combined = await total('cve:CVE-2021-41773 AND NOT port:80');
    expect(combined.total).toBeLessThanOrEqual(exact.total);
    expect(combined.data.every((host) => host.port !== 80)).toBe(true);
    const either = await total('kev:true OR cve:CVE-2023-25690');
    expect(either.total).toBeGreaterThanOrEqual(kevTrue.total);
    // A bare exact CVE identifier in unified search is the cve: selector.
    const bare = await searchHosts(service, professional.key, 'CVE-2021-41773');
    const selector = await searchHosts(service, professional.key, 'cve:CVE-2021-41773');
    expect(bare.json().totals?.hosts ?? bare.json().results.hosts.length).toEqual(
      selector.json().totals?.hosts ?? selector.json().results.hosts.length,
    );
    for (const query of ['cve:log4shell', 'cve:CVE-20*-1', 'kev:*', 'cve:CVE-2021-4*', 'kev:maybe']) {
      const refused = await post(service, '/api/v2/common/data/hosts', professional.key, {
        raw_query: query,
      });
      expect([query, refused.statusCode, refused.json().code]).toEqual([query, 422, 'invalid_cve_selector']);
    }
    // Neither is a stored attribute: no aggregation on them.
    const aggregate = await post(service, '/api/v2/common/data/hosts', professional.key, {
      raw_query: 'cve:*',
      aggregate: true,
      include: 'cve',
    });
    expect(aggregate.statusCode).toBe(422);
  });

  it('badges come from stored observations and the catalogue, never from the caller record', async () => {
    const kevHost = (
      await post(service, '/api/v2/common/data/hosts', professional.key, { raw_query: 'kev:true' })
    ).json().data[0] as { ip: string };
    const response = await post(service, BADGES, professional.key, {
      items: [
        { key: 'a', type: 'ip', value: kevHost.ip, record: { note: 'whatever the client shows' } },
        // The record claims a KEV finding on an address nothing is stored for: no badge.
        { key: 'b', type: 'ip', value: '192.0.2.254', record: { kev: true, cves: ['CVE-2021-44228'] } },
        { key: 'c', type: 'domain', value: 'nothing-here.invalid' },
      ],
    });
    expect(response.statusCode).toBe(200);
    const [a, b, c] = response.json().items;
    const known = a.badges.find((badge: { id: string }) => badge.id === 'known_exploited');
    expect(known).toMatchObject({
      level: 'critical',
      search: {
        field: 'kev',
        value: 'true',
        match: 'exact',
        query: `ip:${kevHost.ip} AND kev:true`,
        datasets: ['hosts'],
      },
    });
    expect(a.badges.map((badge: { id: string }) => badge.id)).toContain('cve_count');
    expect(b).toMatchObject({ key: 'b', status: 'ok', badges: [] });
    expect(c).toMatchObject({ key: 'c', status: 'ok', badges: [] });
  });

  it("the shared-edge badge agrees with the hosts' own shared_edge observation", async () => {
    const seen = { first_seen: NOW.toISOString(), last_seen: NOW.toISOString() };
    const host = (ip: string, sharedEdge: boolean) => ({
      id: `${ip}:443/tcp`,
      ...seen,
      ip,
      port: 443,
      transport: 'tcp',
      protocol: 'https',
      shared_edge: sharedEdge,
    });
    const certificates = (ip: string, count: number) =>
      Array.from({ length: count }, (_, i) => {
        const fingerprint = (i + 16).toString(16).toUpperCase().padStart(2, '0').repeat(32);
        return {
          id: `${fingerprint}@${ip}:443`,
          ...seen,
          fingerprint,
          names: [`site-${i}.shared-hosting.test`],
          ip,
          port: 443,
        };
      });
    // Shared hosting the hosts observation says is not an edge: a dozen certificate names, shared_edge false.
    const hosting = '198.51.100.201';
    // A CDN edge the hosts observation marks shared_edge, with a single certificate seen.
    const edge = '198.51.100.202';
    await service.context.observations.write('hosts', [host(hosting, false), host(edge, true)]);
    await service.context.observations.write('vhosts', [
      ...certificates(hosting, 12),
      ...certificates(edge, 1),
    ]);

    const response = await post(service, BADGES, professional.key, {
      items: [
        { key: 'hosting', type: 'ip', value: hosting },
        { key: 'edge', type: 'ip', value: edge },
      ],
    });
    expect(response.statusCode).toBe(200);
    const [hostingItem, edgeItem] = response.json().items;
    const sharedEdge = (item: { badges: Array<{ id: string }> }) =>
      item.badges.find((badge) => badge.id === 'shared_edge');
    expect(sharedEdge(hostingItem)).toBeUndefined();
    expect(sharedEdge(edgeItem)).toMatchObject({
      level: 'info',
      search: {
        field: 'shared_edge',
        value: 'true',
        match: 'exact',
        query: `ip:${edge} AND shared_edge:true`,
        datasets: ['hosts'],
      },
    });
    // The badge's related search finds exactly the observation it is about.
    const related = await post(service, '/api/v2/common/data/hosts', professional.key, {
      raw_query: `ip:${edge} AND shared_edge:true`,
    });
    expect(related.json().total).toBe(1);
  });

  it('badges: unknown top-level fields are refused with 422 like every other route', async () => {
    for (const body of [
      { items: [{ key: 'a', type: 'ip', value: '192.0.2.1' }], unexpected: true },
      { items: [{ key: 'a', type: 'ip', value: '192.0.2.1' }], record: {} },
    ]) {
      const response = await post(service, BADGES, professional.key, body);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({
        code: 'invalid_input',
        details: { fields: [{ field: Object.keys(body)[1] }] },
      });
    }
    for (const body of [[], 'items', null]) {
      const response = await post(service, BADGES, professional.key, JSON.stringify(body));
      expect([response.statusCode, response.json().code]).toEqual([422, 'invalid_input']);
    }
  });

  it('enforces the badge limits', async () => {
    const item = (i: number) => ({ key: `k${i}`, type: 'ip', value: '192.0.2.1' });
    const cases: Array<[unknown, number, string]> = [
      [{ items: Array.from({ length: 51 }, (_, i) => item(i)) }, 422, 'invalid_input'],
      [{ items: [item(1), item(1)] }, 422, 'invalid_input'],
      [{ items: [{ ...item(1), key: 'é'.repeat(129) }] }, 422, 'invalid_input'],
      [{ items: [{ ...item(1), record: { blob: 'x'.repeat(4100) } }] }, 422, 'invalid_input'],
      [{ items: [{ ...item(1), type: 'asn' }] }, 422, 'invalid_input'],
      [{ items: [] }, 422, 'invalid_input'],
      [
        {
          items: Array.from({ length: 50 }, (_, i) => ({ ...item(i), record: { blob: 'x'.repeat(4000) } })),
          pad: 'x'.repeat(70_000),
        },
        413,
        'payload_too_large',
      ],
    ];
    for (const [body, status, code] of cases) {
      const response = await post(service, BADGES, professional.key, body);
      expect([response.statusCode, response.json().code]).toEqual([status, code]);
    }
    const fifty = await post(service, BADGES, professional.key, {
      items: Array.from({ length: 50 }, (_, i) => ({ ...item(i), key: 'é'.repeat(128).slice(0, 127) + i })),
    });
    expect(fifty.statusCode).toBe(200);
    expect(fifty.json().items).toHaveLength(50);
  });

  it('a third concurrent badge batch is 429 background_busy, with a Retry-After of when a slot is expected to free', async () => {
    clock.hold(); // the two batches start at the instant the third arrives, however slow the machine
    const held = [
      await service.context.rateLimiter.acquireSlot(BADGE_BATCH_CONCURRENCY, professional.accountId),
      await service.context.rateLimiter.acquireSlot(BADGE_BATCH_CONCURRENCY, professional.accountId),
    ];
    expect(held.every((slot) => slot.acquired)).toBe(true);
    const body = { items: [{ key: 'x', type: 'ip', value: '192.0.2.1' }] };
    try {
      const third = await post(service, BADGES, professional.key, body);
      expect([third.statusCode, third.json().code]).toEqual([429, 'background_busy']);
      // A batch ends by its deadline, so a slot is expected to free within it: Retry-After says so.
      expect(third.headers['retry-after']).toBe(String(BADGE_BATCH_DEADLINE_MS / 1000));
      expect(third.json().details).toMatchObject({ retry_after_seconds: BADGE_BATCH_DEADLINE_MS / 1000 });
    } finally {
      clock.release();
      for (const slot of held) if (slot.acquired) await slot.release();
    }
    expect((await post(service, BADGES, professional.key, body)).statusCode).toBe(200);
  });

  it('60 vulnerability enrichments per rolling minute per account across the personal API and the session: never more than 60 in any 60 s', async () => {
    const caller = await account(service, 'enterprise');
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { email: caller.email, password: PASSWORD },
    });
    expect(login.statusCode).toBe(200);
    const cookie = (name: string) =>
      ([] as string[])
        .concat(login.headers['set-cookie'] ?? [])
        .map((c) => c.split(';')[0]!)
        .find((c) => c.startsWith(`${name}=`))!;
    const csrf = cookie(CSRF_COOKIE).split('=')[1]!;
    const viaSession = () =>
      service.app.inject({
        method: 'POST',
        url: '/api/v2/data/enrich/vulnerabilities',
        headers: {
          cookie: `${cookie(SESSION_COOKIE)}; ${cookie(CSRF_COOKIE)}`,
          'x-csrf-token': csrf,
          'content-type': 'application/json',
        },
        payload: JSON.stringify({ cpes: [APACHE_2449] }),
      });
    const statuses: number[] = [];
    clock.hold(); // however slow the machine, no time passes for the limiter until the checks are done
    try {
      for (let i = 0; i < VULNERABILITY_ENRICHMENT_RATE.limit; i++) {
        const response =
          i % 2 === 0 ? await viaSession() : await post(service, VULNS, caller.key, { cpes: [APACHE_2449] });
        statuses.push(response.statusCode);
      }
      expect(statuses.every((s) => s === 200)).toBe(true);
      for (const response of [
        await post(service, VULNS, caller.key, { cpes: [APACHE_2449] }),
        await viaSession(),
      ]) {
        expect([response.statusCode, response.json().code]).toEqual([429, 'rate_limited']);
        expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // Another account is not affected.
      expect((await post(service, VULNS, enterprise.key, { cpes: [APACHE_2449] })).statusCode).toBe(200);
      // Half a minute later nothing has refilled: the 60 are still inside the window (a token bucket would
      // have let 30 more through, 90 in one minute).
      clock.advance(30_000);
      for (const response of [
        await post(service, VULNS, caller.key, { cpes: [APACHE_2449] }),
        await viaSession(),
      ]) {
        expect([response.statusCode, response.json().code]).toEqual([429, 'rate_limited']);
        expect(response.headers['retry-after']).toBe('30');
      }
      // Once they left the window, requests are admitted again.
      clock.advance(30_000);
      expect((await viaSession()).statusCode).toBe(200);
    } finally {
      clock.release();
    }
  });

  it('a Free account holding only its allocation is refused (402), even though enrichment is free', async () => {
    const free = await account(service, 'free');
    const response = await post(service, VULNS, free.key, { reference: 'x' });
    expect(response.statusCode).toBe(402);
  });
});

describe('association index, selectors and concurrent badge batches on the PostgreSQL server', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService('postgres');
    await seed(service);
    ({ key } = await account(service, 'professional'));
  });
  afterAll(async () => {
    await service?.dispose();
  });

  it('two badge batches in flight hold both slots: a third from the session twin is 429 background_busy until one finishes', async () => {
    const caller = await account(service, 'professional');
    await service.app.listen(0, '127.0.0.1');
    const base = (await service.app.getUrl()).replace('[::1]', '127.0.0.1');
    const login = await fetch(`${base}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: caller.email, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const csrf = cookies.find((c) => c.startsWith(`${CSRF_COOKIE}=`))!.split('=')[1]!;
    const viaApi = (item: Record<string, string>) =>
      fetch(`${base}${BADGES}`, {
        method: 'POST',
        headers: { 'x-api-key': caller.key, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [item] }),
      });
    const viaSession = (item: Record<string, string>) =>
      fetch(`${base}/api/v2/data/enrich/badges`, {
        method: 'POST',
        headers: { cookie: cookies.join('; '), 'x-csrf-token': csrf, 'content-type': 'application/json' },
        body: JSON.stringify({ items: [item] }),
      });
    const whois = { key: 'w', type: 'whois', value: 'example.com' }; // reads obs_whois only
    const cert = { key: 'c', type: 'cert', value: 'AB'.repeat(32) }; // reads obs_vhosts only

    // Two other sessions lock the tables the two batches read: each batch takes its slot, then waits.
    const lockers = await Promise.all(
      ['obs_whois', 'obs_vhosts'].map(async (table) => {
        const client = new pg.Client({ connectionString: service.database!.url });
        await client.connect();
        await client.query('BEGIN');
        await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        return client;
      }),
    );
    const [whoisLock, vhostsLock] = lockers as [pg.Client, pg.Client];
    const waiting = async (table: string): Promise<number> => {
      const { rows } = await whoisLock.query<{ count: string }>(
        `SELECT count(*)::text AS count FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
          WHERE NOT l.granted AND c.relname = $1`,
        [table],
      );
      return Number(rows[0]!.count);
    };
    try {
      const first = viaApi(whois);
      const second = viaApi(cert);
      await waitUntil(
        async () => (await waiting('obs_whois')) === 1 && (await waiting('obs_vhosts')) === 1,
        20_000,
        20,
      );

      const third = await viaSession(whois);
      expect([third.status, ((await third.json()) as { code: string }).code]).toEqual([
        429,
        'background_busy',
      ]);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      await whoisLock.query('COMMIT');
      const firstDone = await first;
      expect(firstDone.status).toBe(200);
      expect(((await firstDone.json()) as { items: Array<{ status: string }> }).items[0]!.status).toBe('ok');
      // The second batch still waits (so still holds its slot): the session twin gets the slot freed by the first.
      expect(await waiting('obs_vhosts')).toBe(1);
      const retried = await viaSession(whois);
      expect(retried.status).toBe(200);
      expect(((await retried.json()) as { items: Array<{ key: string; status: string }> }).items).toEqual([
        expect.objectContaining({ key: 'w', status: 'ok' }),
      ]);

      await vhostsLock.query('COMMIT');
      const secondDone = await second;
      expect(secondDone.status).toBe(200);
      expect(((await secondDone.json()) as { items: Array<{ status: string }> }).items[0]!.status).toBe('ok');
    } finally {
      for (const client of lockers) await client.end().catch(() => undefined);
    }
  });

  it('a badge batch whose lookup ignores its deadline holds its slot for a few deadlines at most, then the slot frees', async () => {
    const caller = await account(service, 'professional');
    const principal: Principal = { accountId: caller.accountId, via: 'api_key', channel: 'api', scopes: [] };
    const deadlineMs = 600;
    const observations = service.context.observations;
    // The real index, searched without the batch's abort signal: a lookup blocked on a lock never gives up.
    const deaf: ObservationIndex = Object.assign(Object.create(observations) as ObservationIndex, {
      search: (...[dataset, query, page]: Parameters<ObservationIndex['search']>) =>
        observations.search(dataset, query, page),
    });
    const handler = new EnrichmentHandler(
      service.context.catalogue,
      deaf,
      service.app.get(VulnerabilityRefs),
      service.app.get(AccountDirectory),
      service.context.rateLimiter,
      service.context.clock,
      deadlineMs,
    );
    const slotRule = { ...BADGE_BATCH_CONCURRENCY, leaseSeconds: deadlineMs / 1000 };
    const locker = new pg.Client({ connectionString: service.database!.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE obs_whois IN ACCESS EXCLUSIVE MODE');
    const waiting = async (): Promise<number> => {
      const { rows } = await locker.query<{ count: string }>(
        `SELECT count(*)::text AS count FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
          WHERE NOT l.granted AND c.relname = 'obs_whois'`,
      );
      return Number(rows[0]!.count);
    };
    const hung: Array<Promise<unknown>> = [];
    try {
      const whois = { items: [{ key: 'w', type: 'whois', value: 'example.com' }] };
      const started = Date.now();
      hung.push(handler.badges(principal, whois), handler.badges(principal, whois));
      await waitUntil(async () => (await waiting()) === 2, 20_000, 20);
      await expect(handler.badges(principal, whois)).rejects.toMatchObject({ code: 'background_busy' });

      // Both batches still hang, far past their deadline; a slot frees once renewals stop (3 deadlines) and the
      // last lease ran out (one more).
      let freed: Awaited<ReturnType<typeof service.context.rateLimiter.acquireSlot>> | undefined;
      await waitUntil(
        async () => {
          const attempt = await service.context.rateLimiter.acquireSlot(slotRule, caller.accountId);
          if (attempt.acquired) freed = attempt;
          return attempt.acquired;
        },
        (BADGE_SLOT_HELD_AT_MOST_DEADLINES + 4) * deadlineMs,
        50,
      );
      const heldMs = Date.now() - started;
      expect(heldMs).toBeGreaterThanOrEqual(BADGE_SLOT_HELD_AT_MOST_DEADLINES * deadlineMs);
      expect(await waiting()).toBe(2);
      if (freed?.acquired) await freed.release();
    } finally {
      await locker.query('COMMIT');
      await Promise.allSettled(hung);
      await locker.end();
    }
  });

  it('keeps the association index in step with observation writes and catalogue imports', async () => {
    const count = async (query: string) =>
      (await post(service, '/api/v2/common/data/hosts', key, { raw_query: query })).json().total as number;
    const before = await count('cve:CVE-2021-41773');
    expect(before).toBeGreaterThan(0);
    // A new host observation showing Apache 2.4.49 is associated as it is written.
    await service.context.observations.write('hosts', [
      {
        id: 'enrichment-new-host',
        first_seen: NOW.toISOString(),
        last_seen: NOW.toISOString(),
        ip: '198.51.100.77',
        port: 8080,
        transport: 'tcp',
        protocol: 'http',
        product: 'apache httpd',
        vendor: 'apache',
        version: '2.4.49',
        cpe: [APACHE_2449],
      },
    ]);
    expect(await count('cve:CVE-2021-41773')).toBe(before + 1);
    expect(await count('ip:198.51.100.77 AND kev:true')).toBe(1);
    // Re-importing the same files changes nothing.
    const again = await service.context.catalogue.importPaths([join(DATA, 'nvd'), join(DATA, 'kev')], {
      observations: service.context.observations,
    });
    expect(again).toMatchObject({ changed: false, advisories_unchanged: 39 });
    await service.context.observations.clear('hosts');
    expect(await service.context.catalogue.store.associationCount()).toBe(0);
  });
});
