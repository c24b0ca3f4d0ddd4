/**
 * Issue 13, part 4 "Organization rules" and the two versioning items: the contract deviations a black-box review
 * found, each proven over real HTTP on real storage (PGlite), with the real refresh pool and monitor, and domain
 * verification through a DNS server on loopback. Each test names the contract rule it proves.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { EXPOSURE_SCOPES, type ExposureScopeDocument } from '../../projections/exposure-scopes.projection.js';
import { EnableExposition } from '../../src/exposure/commands/scope-lifecycle.commands.js';
import {
  INITIAL_REFRESH_KEY,
  refreshRunStreamId,
  runKeyHash,
} from '../../src/exposure/domain/refresh-run.js';
import { watchRunKey } from '../../src/exposure/domain/watch.js';
import { ExposureMonitor } from '../../src/exposure/exposure-monitor.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { TestDnsServer } from '../support/dns-server.js';
import { cpe, host } from '../support/host-observations.js';
import { OrganizationHarness, operator } from '../support/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const SCOPE_DOMAIN = 'rules-scope.example';
let dns: TestDnsServer;
let service: TestService;
let h: OrganizationHarness;

const json = (body: string): Json => JSON.parse(body) as Json;
const org = (id: string, rest = ''): string => `/api/v2/organizations/${id}${rest}`;
const ok = async (...args: Parameters<OrganizationHarness['ok']>): Promise<Json> =>
  (await h.ok(...args)) as Json;
let counter = 0;
const unique = (): string => `${Date.now().toString(36)}${(counter += 1)}`;

beforeAll(async () => {
  dns = await TestDnsServer.start();
  service = await startTestService('pglite', { env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' } });
  await waitUntil(() => service.context.projections.allLive());
  const now = new Date();
  for (const dataset of DATASETS) {
    await writeGenerated(service.context.observations, dataset, {
      count: 60,
      seed: 'organization-rules',
      now,
    });
  }
  await service.context.observations.write('hosts', [
    host('198.51.100.40', 443, {
      hostnames: [`www.${SCOPE_DOMAIN}`],
      product: 'http_server',
      vendor: 'apache',
      version: '2.4.58',
      cpe: [cpe('apache', 'http_server', '2.4.58')],
    }),
  ]);
  h = new OrganizationHarness(service, dns);
});

afterAll(async () => {
  await service?.dispose();
  await dns?.close();
});

/** An organization with the Exposition product and one exposure scope whose initial refresh completed. */
async function exposureWorld(timezone = 'UTC') {
  const { owner, organizationId } = await h.trialOrganization();
  await service.app.get(CommandBus).execute(new EnableExposition(organizationId, 'capacity', operator()));
  const scope = await ok(owner, 'POST', org(organizationId, '/exposure/scopes'), {
    name: `Rules scope ${unique()}`,
    domain: SCOPE_DOMAIN,
    timezone,
    monitoring: false,
  });
  const scopeId = scope.id as string;
  const exposure = (rest = '') => org(organizationId, `/clients/${scopeId}/exposure${rest}`);
  // The refresh's status and its subjects are projected apart (the scope document, the inventory): under load
  // the status can say completed a moment before the subjects are there, so wait for both.
  await waitUntil(async () => {
    const inventory = await ok(owner, 'GET', exposure());
    return (
      inventory.latest_refresh?.status === 'completed' &&
      ((inventory.subjects as Json[] | undefined) ?? []).some((subject) => subject.kind === 'service')
    );
  }, 30_000);
  return { owner, organizationId, scopeId, scope, exposure };
}

describe('rule 10 and POST /run: client run keys stay out of the service namespace', () => {
  it('POST /run: the initial-refresh key and a watch key are refused (422); a client key never pre-empts a watch slot', async () => {
    const { owner, scopeId, exposure } = await exposureWorld();
    const initial = await h.request(owner, 'POST', exposure('/run'), { key: INITIAL_REFRESH_KEY });
    expect(initial.statusCode).toBe(422);
    expect(json(initial.body)).toMatchObject({
      code: 'invalid_input',
      details: { fields: [{ field: 'key' }] },
    });

    const activated = await ok(owner, 'PUT', exposure('/monitoring'), { enabled: true });
    const scheduleId = activated.monitoring.schedule_id as string;
    const slotKey = watchRunKey(scheduleId, 0);
    const squat = await h.request(owner, 'POST', exposure('/run'), { key: slotKey });
    expect(squat.statusCode).toBe(422);
    expect(json(squat.body).code).toBe('invalid_input');

    // Scheduled monitoring still runs its slot, as a watch.
    await service.app.get(ExposureMonitor).scheduleWatches();
    const [requested] = await service.context.storage.eventStore.readStream(
      refreshRunStreamId(scopeId, runKeyHash(slotKey)),
    );
    expect(requested).toMatchObject({ type: 'RefreshRequested', data: { trigger: 'watch' } });
  });
});

describe('rule 5: a trial is granted once per registrable domain', () => {
  it('rule 5: proving a subdomain of a domain that already had a trial gives no new trial', async () => {
    const domain = `registrable-${unique()}.example`;
    const first = await h.account();
    const firstOrg = await ok(first, 'POST', '/api/v2/organizations', {
      name: 'First Co',
      accept_account_transition: true,
      expected_transfer: 0,
      domain,
    });
    const firstRecord = firstOrg.verification.record as { name: string; value: string };
    dns.setTxt(firstRecord.name, firstRecord.value);
    expect(await ok(first, 'POST', org(firstOrg.id as string, '/verification'))).toMatchObject({
      status: 'active',
      plan: 'trial',
    });

    const second = await h.account();
    const secondOrg = await ok(second, 'POST', '/api/v2/organizations', {
      name: 'Second Co',
      accept_account_transition: true,
      expected_transfer: 0,
      domain: `eu.sales.${domain}`,
    });
    const record = secondOrg.verification.record as { name: string; value: string };
    dns.setTxt(record.name, record.value);
    const refused = await h.request(second, 'POST', org(secondOrg.id as string, '/verification'));
    expect(refused.statusCode).toBe(403);
    expect(json(refused.body)).toMatchObject({
      code: 'trial_ineligible',
      details: { reason: 'domain_already_used', registrable_domain: domain },
    });
    expect(await ok(second, 'GET', org(secondOrg.id as string))).toMatchObject({ plan: null, trial: null });
  });
});

describe('rule 8: service_credits shows each member only what it may see', () => {
  it('rule 8: managers see the shared balance in service_credits, an external client its envelope', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const client = await h.space(organizationId, owner, { credit_limit: 50 });
    const external = await h.member(organizationId, owner, 'external_client', {
      spaces: [client],
      portion: 20,
    });
    const analyst = await h.member(organizationId, owner, 'analyst', { spaces: [client] });
    await h.switchTo(owner, organizationId, client);
    await h.switchTo(external, organizationId, client);
    await h.switchTo(analyst, organizationId, client);

    const externalView = await ok(external, 'GET', org(organizationId, '/context'));
    expect(externalView.service_credits).toEqual({ charged: 0, available: 20, scope: 'envelope' });
    const managerView = await ok(owner, 'GET', org(organizationId, '/context'));
    expect(managerView.service_credits).toEqual({ charged: 0, available: 1_000, scope: 'shared' });
    const analystView = await ok(analyst, 'GET', org(organizationId, '/spaces'));
    expect(analystView.service_credits).toEqual({ charged: 0, available: 50, scope: 'envelope' });
    // The same view as the credits route.
    expect(await ok(external, 'GET', org(organizationId, '/credits'))).toMatchObject({ available: 20 });

    // After a charge, the external client still sees its own envelope, never the shared balance.
    const search = await h.search(external, 'nginx');
    expect(search.statusCode).toBe(200);
    const charged = json(search.body).credits_charged as number;
    const after = await ok(external, 'GET', org(organizationId, '/context'));
    expect(after.service_credits).toEqual({ charged: 0, available: 20 - charged, scope: 'envelope' });
  });
});

describe('an account is staff of at most one organization at a time', () => {
  it('a staff invitation to a second organization is refused with staff_of_another_organization; external access elsewhere is not', async () => {
    const a = await h.trialOrganization();
    const b = await h.trialOrganization();
    const person = await h.member(a.organizationId, a.owner, 'analyst');

    const asStaff = await ok(b.owner, 'POST', org(b.organizationId, '/invitations'), {
      email: person.email,
      role: 'analyst',
    });
    const refused = await h.request(
      person,
      'POST',
      org(b.organizationId, `/invitations/${asStaff.id as string}/accept`),
    );
    expect(refused.statusCode).toBe(409);
    expect(json(refused.body)).toMatchObject({ code: 'staff_of_another_organization' });
    expect(Object.keys(json(refused.body))).toEqual(
      expect.arrayContaining(['code', 'message', 'request_id']),
    );

    // As an external client of B it may join; promoting it to staff in B is refused the same way.
    const asClient = await ok(b.owner, 'POST', org(b.organizationId, '/invitations'), {
      email: person.email,
      role: 'external_client',
    });
    await ok(person, 'POST', org(b.organizationId, `/invitations/${asClient.id as string}/accept`));
    const promoted = await h.request(
      b.owner,
      'PATCH',
      org(b.organizationId, `/members/${person.accountId}`),
      {
        role: 'analyst',
      },
    );
    expect(promoted.statusCode).toBe(409);
    expect(json(promoted.body).code).toBe('staff_of_another_organization');
    const members = await ok(b.owner, 'GET', org(b.organizationId, '/members'));
    expect(members.members).toContainEqual(
      expect.objectContaining({ account_id: person.accountId, role: 'external_client' }),
    );
  });

  it('Authentication 8: removing a member from one organization never ends its sessions in another', async () => {
    const a = await h.trialOrganization();
    const b = await h.trialOrganization();
    const person = await h.member(a.organizationId, a.owner, 'analyst');
    const invitation = await ok(b.owner, 'POST', org(b.organizationId, '/invitations'), {
      email: person.email,
      role: 'external_client',
    });
    await ok(person, 'POST', org(b.organizationId, `/invitations/${invitation.id as string}/accept`));
    const inA = await h.login(person);
    await h.switchTo(inA, a.organizationId);
    const inB = await h.login(person);
    await h.switchTo(inB, b.organizationId);

    const removed = await h.request(a.owner, 'DELETE', org(a.organizationId, `/members/${person.accountId}`));
    expect(removed.statusCode).toBe(204);
    expect((await h.request(inA, 'GET', org(a.organizationId))).statusCode).toBe(401);
    expect((await h.request(inB, 'GET', org(b.organizationId))).statusCode).toBe(200);

    // Free of A's staff, the account can now be staff of B.
    expect(
      (
        await h.request(b.owner, 'PATCH', org(b.organizationId, `/members/${person.accountId}`), {
          role: 'analyst',
        })
      ).statusCode,
    ).toBe(200);
  });
});

describe('rule 11: external clients see only their published view', () => {
  it('rule 11: no staff list, no staff identities or share links, and a case counts only client-visible evidence', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const client = await h.space(organizationId, owner);
    const external = await h.member(organizationId, owner, 'external_client', { spaces: [client] });
    await ok(owner, 'POST', org(organizationId, `/clients/${client}/shares`));
    const caseId = (
      await ok(owner, 'POST', org(organizationId, '/cases'), { space_id: client, title: 'Mixed' })
    ).id as string;
    await h.switchTo(owner, organizationId, client);
    await ok(owner, 'PUT', org(organizationId, '/context'), { space_id: client, case_id: caseId });
    const search = json((await h.search(owner, 'nginx')).body);
    const records = Object.values(search.results as Record<string, Array<{ dataset: string; id: string }>>)
      .flat()
      .map((r) => ({ dataset: r.dataset, id: r.id }));
    expect(records.length).toBeGreaterThanOrEqual(3);
    await ok(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: search.search_id,
      records: records.slice(0, 2),
      note: 'internal finding',
      visibility: 'internal',
    });
    const shared = await ok(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: search.search_id,
      records: records.slice(2, 3),
      note: 'for the client',
      visibility: 'client',
    });

    const staffList = await h.request(external, 'GET', org(organizationId, '/members'));
    expect(staffList.statusCode).toBe(403);
    expect(json(staffList.body).code).toBe('forbidden');
    expect((await ok(external, 'GET', org(organizationId))).owner_account_id).toBeNull();
    expect((await ok(external, 'GET', org(organizationId, `/clients/${client}`))).shares).toEqual([]);

    const detail = await ok(external, 'GET', org(organizationId, `/cases/${caseId}`));
    expect(detail.evidence_count).toBe(1);
    expect(detail.evidence).toHaveLength(1);
    expect(detail.opened_by).toBeNull();
    expect(detail.evidence[0].saved_by).toBeNull();
    const listed = (await ok(external, 'GET', org(organizationId, '/cases'))).cases as Json[];
    expect(listed.find((c) => c.id === caseId)).toMatchObject({ evidence_count: 1 });
    expect(
      (await ok(external, 'GET', org(organizationId, `/evidence/${shared.id as string}`))).saved_by,
    ).toBeNull();

    // Staff still see everything.
    expect(await ok(owner, 'GET', org(organizationId, `/cases/${caseId}`))).toMatchObject({
      evidence_count: 3,
      opened_by: owner.accountId,
    });
    expect(((await ok(owner, 'GET', org(organizationId, '/members'))).members as unknown[]).length).toBe(2);
  });
});

describe('Roles: renaming an organization is an organization setting', () => {
  it('Roles: only the owner renames the organization; an administrator gets 403', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const administrator = await h.member(organizationId, owner, 'administrator');
    const refused = await h.request(administrator, 'PATCH', org(organizationId), { name: 'Admin Co' });
    expect(refused.statusCode).toBe(403);
    expect(json(refused.body).code).toBe('forbidden');
    expect(await ok(owner, 'PATCH', org(organizationId), { name: 'Owner Co' })).toMatchObject({
      name: 'Owner Co',
    });
  });
});

describe('rule 4: single-dataset searches in an organization space can become evidence', () => {
  it('rule 4: a single-dataset search (and a further page) answers a search_id whose records can be saved', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const client = await h.space(organizationId, owner);
    const caseId = (
      await ok(owner, 'POST', org(organizationId, '/cases'), { space_id: client, title: 'Hosts' })
    ).id as string;
    await h.switchTo(owner, organizationId, client);
    await ok(owner, 'PUT', org(organizationId, '/context'), { space_id: client, case_id: caseId });

    const rows = await ok(owner, 'POST', '/api/v2/data/hosts', {
      raw_query: 'port:443',
      results_per_page: 10,
    });
    expect(typeof rows.search_id).toBe('string');
    const record = (rows.data as Array<{ id: string }>)[0]!;
    const saved = await ok(owner, 'POST', org(organizationId, '/evidence'), {
      search_id: rows.search_id,
      records: [{ dataset: 'hosts', id: record.id }],
      note: 'from a single-dataset search',
    });
    expect(saved.records).toEqual([expect.objectContaining({ dataset: 'hosts', id: record.id })]);

    const more = await ok(owner, 'POST', '/api/v2/data/search/more', {
      raw_query: 'port:443',
      dataset: 'hosts',
      page: 2,
      per_type_limit: 5,
    });
    expect(typeof more.search_id).toBe('string');
  });
});

describe('rule 1: personal research is unavailable to a member, whatever its personal balance', () => {
  it('rule 1: a member without personal credits gets 403 personal_research_unavailable, never 402', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const member = await h.member(organizationId, owner, 'analyst');
    for (const actor of [owner, member]) {
      const key = await h.apiKey(actor);
      for (const [method, url, payload] of [
        ['POST', '/api/v2/common/data/search', { raw_query: 'nginx', stream: false }],
        ['POST', '/api/v2/common/data/hosts', { raw_query: 'nginx' }],
        ['POST', '/api/v2/common/exports/hosts', { raw_query: 'port:443', format: 'csv' }],
        [
          'POST',
          '/api/v2/common/data/enrich/badges',
          { items: [{ key: '1', type: 'ip', value: '192.0.2.1' }] },
        ],
      ] as const) {
        const response = await service.app.inject({
          method,
          url,
          headers: { 'x-api-key': key },
          ...(payload ? { payload } : {}),
        });
        expect({ url, status: response.statusCode, code: json(response.body).code }).toEqual({
          url,
          status: 403,
          code: 'personal_research_unavailable',
        });
      }
      // Paying never locks the caller out: exports paid before joining stay listable (and pollable, downloadable).
      const listing = await service.app.inject({
        method: 'GET',
        url: '/api/v2/common/exports',
        headers: { 'x-api-key': key },
      });
      expect(listing.statusCode).toBe(200);
    }
  });
});

describe('Versioning 2: a stale version answers the true current version', () => {
  it('Versioning 2: version_conflict carries the current body version of a subject and of the notification preference', async () => {
    const { owner, exposure } = await exposureWorld();
    const inventory = await ok(owner, 'GET', exposure());
    const subject = (inventory.subjects as Json[]).find((s) => s.kind === 'service')!;
    expect(subject.version).toBe(0);
    const stale = await h.request(owner, 'PATCH', exposure(`/subjects/${subject.id as string}`), {
      version: 1,
      decision: 'investigating',
    });
    expect(stale.statusCode).toBe(409);
    expect(json(stale.body)).toMatchObject({ code: 'version_conflict', details: { current_version: 0 } });
    await ok(owner, 'PATCH', exposure(`/subjects/${subject.id as string}`), {
      version: 0,
      decision: 'investigating',
    });
    const again = await h.request(owner, 'PATCH', exposure(`/subjects/${subject.id as string}`), {
      version: 0,
      decision: 'new',
    });
    expect(json(again.body)).toMatchObject({ code: 'version_conflict', details: { current_version: 1 } });

    const preference = await ok(owner, 'GET', exposure('/notifications'));
    expect(preference.version).toBe(0);
    await ok(owner, 'PUT', exposure('/notifications'), {
      enabled: false,
      recipients: [],
      language: 'fr',
      version: 0,
    });
    const staleSave = await h.request(owner, 'PUT', exposure('/notifications'), {
      enabled: false,
      recipients: [],
      language: 'en',
      version: 0,
    });
    expect(staleSave.statusCode).toBe(409);
    expect(json(staleSave.body)).toMatchObject({ code: 'version_conflict', details: { current_version: 1 } });
    expect((await ok(owner, 'GET', exposure('/notifications'))).version).toBe(1);
  });
});

describe('Scope: IANA time zones are stored in canonical form', () => {
  it('Scope: a timezone given as europe/paris is stored and shown as Europe/Paris; an unknown one is refused', async () => {
    const { owner, organizationId, scopeId, scope, exposure } = await exposureWorld('europe/paris');
    expect(scope.timezone).toBe('Europe/Paris');
    expect((await ok(owner, 'GET', org(organizationId, `/clients/${scopeId}`))).timezone).toBe(
      'Europe/Paris',
    );
    const changed = await ok(owner, 'PUT', exposure('/timezone'), {
      timezone: 'asia/tokyo',
      version: (await ok(owner, 'GET', org(organizationId, `/clients/${scopeId}`))).version,
    });
    expect(changed.timezone).toBe('Asia/Tokyo');
    const refused = await h.request(owner, 'POST', org(organizationId, '/exposure/scopes'), {
      name: 'Nowhere',
      domain: SCOPE_DOMAIN,
      timezone: 'europe/atlantis',
      monitoring: false,
    });
    expect(refused.statusCode).toBe(422);
  });
});

describe('Versioning 2: If-Match carries the strong quoted version', () => {
  it('Versioning 2: If-Match with a weak validator (W/"n") is refused with 422 on the scope routes', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const client = await h.space(organizationId, owner, { name: 'Weak' });
    const current = (await ok(owner, 'GET', org(organizationId, `/clients/${client}`))).version as string;
    for (const [method, url, body] of [
      ['PATCH', org(organizationId, `/clients/${client}`), { name: 'Weakly renamed' }],
      ['DELETE', org(organizationId, `/clients/${client}`), { name: 'Weak' }],
    ] as const) {
      const weak = await h.request(owner, method, url, body, { 'if-match': `W/${current}` });
      expect(weak.statusCode).toBe(422);
      expect(json(weak.body)).toMatchObject({
        code: 'invalid_input',
        details: { fields: [{ field: 'If-Match' }] },
      });
    }
    expect(await ok(owner, 'GET', org(organizationId, `/clients/${client}`))).toMatchObject({
      name: 'Weak',
      state: 'active',
    });
    expect(
      await ok(
        owner,
        'PATCH',
        org(organizationId, `/clients/${client}`),
        { name: 'Strong' },
        { 'if-match': current },
      ),
    ).toMatchObject({ name: 'Strong' });
  });

  it('Versioning 2: where If-Match is optional (scope monitoring), a blank one is refused with 422, never 428', async () => {
    const { owner, organizationId, scopeId, exposure } = await exposureWorld();
    for (const blank of ['', ' ']) {
      const refused = await h.request(
        owner,
        'PUT',
        exposure('/monitoring'),
        { enabled: true },
        { 'if-match': blank },
      );
      expect(refused.statusCode).toBe(422);
      expect(json(refused.body)).toMatchObject({
        code: 'invalid_input',
        details: { fields: [{ field: 'If-Match' }] },
      });
    }
    expect(await ok(owner, 'GET', org(organizationId, `/clients/${scopeId}`))).toMatchObject({
      monitoring: false,
    });
    // Absent, it is no precondition.
    expect((await h.request(owner, 'PUT', exposure('/monitoring'), { enabled: true })).statusCode).toBe(200);
  });
});

describe('Inventory: a completed refresh is never shown without its subjects', () => {
  it('an inventory read that finds the refresh completed before the inventory projected its subjects waits for them (ADR 130)', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    await service.app.get(CommandBus).execute(new EnableExposition(organizationId, 'capacity', operator()));
    const projections = service.context.projections;
    // The scope document (status) and the inventory (subjects) are two projections; hold the inventory back.
    await projections.stopProjection('exposure-inventory');
    try {
      const scope = await ok(owner, 'POST', org(organizationId, '/exposure/scopes'), {
        name: `Catch-up scope ${unique()}`,
        domain: SCOPE_DOMAIN,
        timezone: 'UTC',
        monitoring: false,
      });
      const scopeId = scope.id as string;
      // The scope document says completed (the routes that show it alone do not read the inventory).
      const scopes = projections.collection<ExposureScopeDocument>('exposure-scopes', EXPOSURE_SCOPES);
      await waitUntil(async () => (await scopes.get(scopeId))?.latestRefresh?.status === 'completed', 30_000);

      const reading = ok(owner, 'GET', org(organizationId, `/clients/${scopeId}/exposure`));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await projections.startProjection('exposure-inventory');
      const inventory = await reading;

      expect(inventory.latest_refresh).toMatchObject({ status: 'completed' });
      const services = ((inventory.subjects as Json[] | undefined) ?? []).filter(
        (subject) => subject.kind === 'service',
      );
      expect(services.length).toBeGreaterThan(0);
      expect(inventory.totals.services).toBe(services.length);
    } finally {
      await projections.startProjection('exposure-inventory');
    }
  });
});
