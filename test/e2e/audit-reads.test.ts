/**
 * Issue 15 part 5, the auditor's reading tools over real HTTP on real storage (PGlite and the server): the
 * organization audit log (owners and administrators, paged by cursor, filtered, no payload), and `as_of` answers
 * for membership and credits that equal what the live routes answered at each moment.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IssueApiKey, PurchaseCredits } from '../../src/accounts/commands/account.commands.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { TestDnsServer } from '../support/dns-server.js';
import { expectOneEventBatchesToRebuildLiveDocuments } from '../support/one-event-batches.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface AuditEntry {
  position: string;
  type: string;
  actor: string;
  on_behalf_of: string;
  stream: string;
  recorded_at: string;
}

describe.each(['pglite', 'postgres'] as const)('auditor reading tools on %s', (kind) => {
  let dns: TestDnsServer;
  let service: TestService;
  let h: OrganizationHarness;

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    service = await startTestService(kind, { env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' } });
    await waitUntil(() => service.context.projections.allLive());
    const now = new Date();
    for (const dataset of DATASETS) {
      await writeGenerated(service.context.observations, dataset, { count: 20, seed: 'audit-reads', now });
    }
    h = new OrganizationHarness(service, dns);
  });

  afterAll(async () => {
    await service?.dispose();
    await dns?.close();
  });

  /** The log's head once every read model holds it: "this moment", as a position and as a time. */
  async function moment(): Promise<{ position: string; time: string }> {
    await waitForProjections(service, ['audit-index', 'accounts', 'credit-state', 'credit-usage']);
    const position = await service.context.storage.eventStore.headPosition();
    const time = new Date().toISOString();
    // The next action's events are recorded strictly after `time`.
    await pause(5);
    return { position: position!, time };
  }

  const withoutAsOf = (body: Record<string, unknown>) => {
    const { as_of: _asOf, service_credits: _credits, ...rest } = body;
    return rest;
  };

  it('membership and roles as_of a position or a time equal what GET …/members answered then', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const members = (actor: Actor, query = '') =>
      h.request(actor, 'GET', `/api/v2/organizations/${organizationId}/members${query}`);
    const seen: Array<{ position: string; time: string; live: Record<string, unknown> }> = [];
    const capture = async () => {
      const at = await moment();
      const live = await members(owner);
      expect(live.statusCode).toBe(200);
      // service_credits describes the balance now, beside the answer: not part of the membership then.
      seen.push({ ...at, live: withoutAsOf(json(live.body)) });
    };

    await capture();
    const administrator = await h.member(organizationId, owner, 'administrator');
    await capture();
    const analyst = await h.member(organizationId, owner, 'analyst');
    await capture();
    await h.ok(owner, 'POST', `/api/v2/organizations/${organizationId}/invitations`, {
      email: `pending-${crypto.randomUUID()}@example.com`,
      role: 'analyst',
    });
    await capture();
    await h.ok(owner, 'PATCH', `/api/v2/organizations/${organizationId}/members/${analyst.accountId}`, {
      role: 'administrator',
    });
    await capture();
    await h.ok(owner, 'DELETE', `/api/v2/organizations/${organizationId}/members/${administrator.accountId}`);
    await capture();

    // Each moment differs from the one before: the replay cannot pass by answering the present.
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.live).not.toEqual(seen[i - 1]!.live);
    for (const { position, time, live } of seen) {
      for (const asOf of [position, time]) {
        const past = await members(owner, `?as_of=${encodeURIComponent(asOf)}`);
        expect(past.statusCode).toBe(200);
        const body = json(past.body);
        expect(withoutAsOf(body)).toEqual(live);
        expect(body.as_of).toMatchObject({ requested: asOf });
      }
    }

    // The operator's CLI folds the same stream to the same moments.
    const cliEnv: Record<string, string> = service.database?.url
      ? { DATABASE_URL: service.database.url, DATA_DIR: service.dataDir }
      : { DATA_DIR: service.dataDir };
    for (const { position, live } of seen) {
      const result = await runCliInProcess(
        ['organizations', 'members', organizationId, '--as-of', position, '--json'],
        cliEnv,
      );
      expect(result.code).toBe(0);
      const staff = (live.members as Array<{ account_id: string; role: string; added_at: string }>).map(
        ({ account_id, role, added_at }) => ({ account_id, role, added_at }),
      );
      expect(JSON.parse(result.stdout)).toEqual({ organization_id: organizationId, members: staff });
    }

    const refused = await members(owner, '?as_of=yesterday');
    expect(refused.statusCode).toBe(422);
    expect(json(refused.body)).toMatchObject({ code: 'invalid_input' });
  });

  it('a space as_of a position or a time equals what GET …/clients/{id} answered then', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const url = (spaceId: string) => `/api/v2/organizations/${organizationId}/clients/${spaceId}`;
    const beforeIt = await moment();
    const spaceId = await h.space(organizationId, owner, { credit_limit: 500 });
    const seen: Array<{ position: string; time: string; live: Record<string, unknown> }> = [];
    const change = async (body: Record<string, unknown>) => {
      const version = seen.at(-1)!.live.version as string;
      await h.ok(owner, 'PATCH', url(spaceId), body, { 'if-match': version });
    };
    const capture = async () => {
      const at = await moment();
      seen.push({ ...at, live: withoutAsOf(await h.ok(owner, 'GET', url(spaceId))) });
    };
    await capture();
    await change({ name: 'Renamed client' });
    await capture();
    await change({ credit_limit: 900 });
    await capture();
    await change({ state: 'archived' });
    await capture();

    for (let i = 1; i < seen.length; i++) expect(seen[i]!.live).not.toEqual(seen[i - 1]!.live);
    for (const { position, time, live } of seen) {
      for (const asOf of [position, time]) {
        const past = await h.ok(owner, 'GET', `${url(spaceId)}?as_of=${encodeURIComponent(asOf)}`);
        expect(withoutAsOf(past)).toEqual(live);
        expect(past.as_of).toMatchObject({ requested: asOf });
      }
    }
    // Before it was created, the space did not exist.
    const before = await h.request(owner, 'GET', `${url(spaceId)}?as_of=${beforeIt.position}`);
    expect(before.statusCode).toBe(404);
  });

  it('organization credits as_of equal what GET …/credits answered then, for the shared view and an envelope', async () => {
    const { owner, organizationId, generalSpaceId } = await h.trialOrganization();
    const clientId = await h.space(organizationId, owner, { credit_limit: 300 });
    const external = await h.member(organizationId, owner, 'external_client', {
      spaces: [clientId],
      portion: 100,
    });
    await h.switchTo(owner, organizationId, generalSpaceId);
    await h.switchTo(external, organizationId, clientId);
    const url = `/api/v2/organizations/${organizationId}/credits`;
    const seen: Array<{ position: string; time: string; views: unknown[] }> = [];
    const capture = async () => {
      const at = await moment();
      const views = [];
      for (const actor of [owner, external]) views.push(withoutAsOf(await h.ok(actor, 'GET', url)));
      seen.push({ ...at, views });
    };
    await capture();
    expect((await h.search(owner, 'port:443')).statusCode).toBe(200);
    await capture();
    expect((await h.search(external, 'port:22')).statusCode).toBe(200);
    await capture();
    await h.ok(owner, 'PATCH', `/api/v2/organizations/${organizationId}/members/${external.accountId}`, {
      portion: 60,
    });
    await capture();

    for (let i = 1; i < seen.length; i++) expect(seen[i]!.views).not.toEqual(seen[i - 1]!.views);
    for (const { position, time, views } of seen) {
      for (const asOf of [position, time]) {
        const past = [];
        for (const actor of [owner, external]) {
          const answer = await h.ok(actor, 'GET', `${url}?as_of=${encodeURIComponent(asOf)}`);
          expect(answer.as_of).toMatchObject({ requested: asOf });
          past.push(withoutAsOf(answer));
        }
        expect(past).toEqual(views);
      }
    }
  });

  it('credit state and usage as_of equal what GET /auth/credits and /auth/credits/usage answered then, and /common/credits through a key', async () => {
    const account = await h.account({ plan: 'free' });
    const { key } = await h.bus.execute(new IssueApiKey(account.accountId, 'audit', operator()));
    const read = async (path: string, query = '') => {
      const response = await h.request(account, 'GET', `/api/v2/auth/credits${path}${query}`);
      expect(response.statusCode).toBe(200);
      return json(response.body);
    };
    const seen: Array<{ position: string; time: string; state: unknown; usage: unknown }> = [];
    const capture = async () => {
      const at = await moment();
      seen.push({ ...at, state: withoutAsOf(await read('')), usage: withoutAsOf(await read('/usage')) });
    };

    await capture();
    await h.bus.execute(new PurchaseCredits(account.accountId, 40, operator()));
    await capture();
    const search = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/hosts',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'port:443', results_per_page: 10 },
    });
    expect(search.statusCode).toBe(200);
    await capture();
    await h.bus.execute(new PurchaseCredits(account.accountId, 7, operator()));
    await capture();

    expect(seen.map((s) => (s.state as { purchased_credits: number }).purchased_credits)).toEqual([
      0,
      40,
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(seen[2]!.usage).not.toEqual(seen[1]!.usage);
    for (const { position, time, state, usage } of seen) {
      for (const asOf of [position, time]) {
        const query = `?as_of=${encodeURIComponent(asOf)}`;
        const pastState = await read('', query);
        expect(withoutAsOf(pastState)).toEqual(state);
        expect(pastState.as_of).toMatchObject({ requested: asOf });
        // The same state for the API consumer, through its key (GET /common/credits).
        const throughKey = await service.app.inject({
          method: 'GET',
          url: `/api/v2/common/credits${query}`,
          headers: { 'x-api-key': key },
        });
        expect(throughKey.statusCode).toBe(200);
        expect(withoutAsOf(json(throughKey.body))).toEqual(state);
        expect(json(throughKey.body).as_of).toEqual(pastState.as_of);
        expect(withoutAsOf(await read('/usage', query))).toEqual(usage);
      }
    }
    const beforeAccount = await h.request(account, 'GET', '/api/v2/auth/credits?as_of=2000-01-01T00:00:00Z');
    expect(beforeAccount.statusCode).toBe(404);
    expect(json(beforeAccount.body)).toMatchObject({ code: 'not_found' });
  });

  it('the audit log: owners and administrators page it by cursor and filter it; nobody else reads it', async () => {
    const { owner, organizationId } = await h.trialOrganization();
    const administrator = await h.member(organizationId, owner, 'administrator');
    const analyst = await h.member(organizationId, owner, 'analyst');
    const external = await h.member(organizationId, owner, 'external_client');
    const invitee = `invitee-${crypto.randomUUID()}@example.com`;
    await h.ok(administrator, 'POST', `/api/v2/organizations/${organizationId}/invitations`, {
      email: invitee,
      role: 'analyst',
    });
    await h.space(organizationId, administrator);
    await waitForProjections(service, ['audit-index']);
    const audit = (actor: Actor, query = '') =>
      h.request(actor, 'GET', `/api/v2/organizations/${organizationId}/audit${query}`);

    const whole = await audit(owner, '?limit=200');
    expect(whole.statusCode).toBe(200);
    const all = json(whole.body) as { entries: AuditEntry[]; next_cursor: string | null };
    expect(all.next_cursor).toBeNull();
    const types = all.entries.map((entry) => entry.type);
    expect(types).toEqual(expect.arrayContaining(['MemberInvited', 'SpaceCreated']));
    const positions = all.entries.map((entry) => entry.position);
    expect([...positions].sort()).toEqual(positions);
    expect(new Set(positions).size).toBe(positions.length);
    // The envelope, never the payload: no invitee email, no secret material.
    expect(whole.body).not.toContain(invitee);
    expect(whole.body).not.toContain('scrypt$');
    for (const entry of all.entries) expect(entry).not.toHaveProperty('data');

    // Keyset pages of 3 give the same entries, each once, in the same order.
    const paged: AuditEntry[] = [];
    let cursor: string | null = null;
    do {
      const page = await audit(administrator, `?limit=3${cursor ? `&after=${cursor}` : ''}`);
      expect(page.statusCode).toBe(200);
      const body = json(page.body) as { entries: AuditEntry[]; next_cursor: string | null };
      expect(body.entries.length).toBeLessThanOrEqual(3);
      paged.push(...body.entries);
      cursor = body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all.entries);

    const byAdministrator = json(
      (await audit(owner, `?actor=account:${administrator.accountId}&limit=200`)).body,
    ) as { entries: AuditEntry[] };
    expect(byAdministrator.entries.length).toBeGreaterThan(0);
    expect(byAdministrator.entries.every((e) => e.actor === `account:${administrator.accountId}`)).toBe(true);
    const invitations = json((await audit(owner, '?type=MemberInvited&limit=200')).body) as {
      entries: AuditEntry[];
    };
    expect(invitations.entries.map((e) => e.type)).toEqual(types.filter((t) => t === 'MemberInvited'));
    const middle = all.entries[Math.floor(all.entries.length / 2)]!;
    const since = json((await audit(owner, `?since=${middle.position}&limit=200`)).body) as {
      entries: AuditEntry[];
    };
    expect(since.entries[0]).toEqual(middle);
    const until = json(
      (await audit(owner, `?until=${encodeURIComponent(middle.recorded_at)}&limit=200`)).body,
    ) as { entries: AuditEntry[] };
    expect(until.entries.every((e) => e.recorded_at <= middle.recorded_at)).toBe(true);
    expect(until.entries).toContainEqual(middle);

    // Analysts and external clients are refused; a stranger learns nothing.
    expect((await audit(analyst)).statusCode).toBe(403);
    expect((await audit(external)).statusCode).toBe(403);
    expect((await audit(await h.account())).statusCode).toBe(404);
    for (const query of ['?after=nope', '?limit=0', '?limit=201', '?since=last-week', '?actor=bob']) {
      const refused = await audit(owner, query);
      expect({ query, status: refused.statusCode }).toEqual({ query, status: 422 });
      expect(json(refused.body)).toMatchObject({ code: 'invalid_input' });
    }
  });

  it('the audit index rebuilds to the live documents from any batch boundaries', async () => {
    await expectOneEventBatchesToRebuildLiveDocuments(service);
  });
});
