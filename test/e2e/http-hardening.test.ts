/**
 * Issue 13, part 2: no 5xx from any input, and one error shape. A real service on real storage (PGlite and the
 * PostgreSQL server) over real HTTP (fetch, and raw sockets for what no HTTP client sends). Every refusal is
 * `{ code, message, details?, request_id }` with X-Request-Id, and a refused request changes nothing: the
 * caller's credits and the event log are as before.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import pg from 'pg';
import {
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
} from '../../src/accounts/commands/account.commands.js';
import { SESSION_COOKIE, CSRF_COOKIE } from '../../src/platform/auth/cookies.js';
import { csrfTokenFor } from '../../src/platform/auth/csrf.js';
import { ServiceSecrets } from '../../src/platform/auth/secrets.js';
import { SessionStore } from '../../src/platform/auth/sessions.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { tableOf } from '../../src/search/observation-index/postgres-query-compiler.js';
import { SQL_KINDS, TEST_DATABASE_URL } from '../support/databases.js';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness, operator } from '../support/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';
const NUL_PROBLEM = 'must not contain a NUL character (U+0000)';
const SURROGATE_PROBLEM = 'must not contain a lone UTF-16 surrogate (not valid Unicode)';
const ERROR_KEYS = ['code', 'details', 'message', 'request_id'];

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

interface Caller {
  readonly key?: string;
  readonly session?: { readonly cookie: string; readonly csrf: string };
}

/** A running service on a real port, and who calls it. */
class Client {
  constructor(
    readonly service: TestService,
    readonly base: string,
  ) {}

  async call(
    method: string,
    path: string,
    options: Caller & {
      readonly json?: unknown;
      readonly body?: string;
      readonly contentType?: string | null;
      readonly headers?: Record<string, string>;
    } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['x-api-key'] = options.key;
    if (options.session) {
      headers.cookie = options.session.cookie;
      headers['x-csrf-token'] = options.session.csrf;
    }
    let body: string | undefined;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.body !== undefined) body = options.body;
    const contentType =
      options.contentType === undefined
        ? body === undefined
          ? null
          : 'application/json'
        : options.contentType;
    // Without a type, fetch would label a string body text/plain itself: send bytes instead.
    const payload = body === undefined ? undefined : contentType === null ? Buffer.from(body) : body;
    if (contentType !== null) headers['content-type'] = contentType;
    const response = await fetch(`${this.base}${path}`, { method, headers, body: payload });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // Not JSON (an event stream): the assertions say so.
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  /** Sends bytes as they are (what fetch refuses to send) and reads the answer until the server closes. */
  raw(
    bytes: string,
  ): Promise<{ status: number; headers: Record<string, string>; body: Record<string, unknown> }> {
    const { hostname, port } = new URL(this.base);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(Buffer.from(bytes, 'latin1')));
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', body = ''] = received.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) });
      });
    });
  }
}

/** The one error shape: a registered code, a message, and the request id of the X-Request-Id header. */
function expectRefusal(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, code: answer.body.code }).toEqual({ status, code });
  expect(Object.keys(answer.body).filter((key) => !ERROR_KEYS.includes(key))).toEqual([]);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.request_id).toEqual(expect.any(String));
  expect(answer.headers.get('x-request-id')).toBe(answer.body.request_id);
}

/** 422 invalid_input naming exactly these fields, each with these problems (the validation pipe's shape). */
function expectFieldRefusal(answer: Answer, fields: Record<string, string[]>): void {
  expectRefusal(answer, 422, 'invalid_input');
  const details = answer.body.details as { fields: Array<{ field: string; problems: string[] }> };
  expect(Object.fromEntries(details.fields.map((f) => [f.field, f.problems]))).toEqual(
    Object.fromEntries(
      Object.entries(fields).map(([field, problems]) => [field, problems.map((p) => `${field} ${p}`)]),
    ),
  );
}

let counter = 0;
const unique = (): string => `${Date.now().toString(36)}${(counter += 1)}`;

describe.each(SQL_KINDS)('no 5xx from any input, one error shape (%s)', (kind) => {
  let dns: TestDnsServer;
  let service: TestService;
  let client: Client;
  let h: OrganizationHarness;
  let researcher: Caller & { accountId: string; key: string; session: { cookie: string; csrf: string } };
  let organization: { owner: Caller; organizationId: string; clientSpaceId: string };

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    service = await startTestService(kind, { env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' } });
    await waitUntil(() => service.context.projections.allLive());
    for (const dataset of DATASETS) {
      await writeGenerated(service.context.observations, dataset, {
        count: 40,
        seed: 'hardening',
        now: new Date(),
      });
    }
    const bus = service.app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount(
        `hardening-${unique()}@example.com`,
        'professional',
        'hardening-password-0123',
        operator(),
      ),
    );
    await bus.execute(new PurchaseCredits(accountId, 500, operator()));
    const { key } = await bus.execute(new IssueApiKey(accountId, 'hardening', operator()));
    const { sessionId } = await service.app.get(SessionStore).create(accountId);
    const csrf = csrfTokenFor(sessionId, service.app.get(ServiceSecrets).csrfSecret);
    researcher = {
      accountId,
      key,
      session: { cookie: `${SESSION_COOKIE}=${sessionId}; ${CSRF_COOKIE}=${csrf}`, csrf },
    };
    h = new OrganizationHarness(service, dns);
    const trial = await h.trialOrganization();
    organization = {
      owner: { session: { cookie: trial.owner.cookie, csrf: trial.owner.csrf } },
      organizationId: trial.organizationId,
      clientSpaceId: await h.space(trial.organizationId, trial.owner),
    };
    await service.app.listen(0, '127.0.0.1');
    client = new Client(service, (await service.app.getUrl()).replace('[::1]', '127.0.0.1'));
  });

  afterAll(async () => {
    await service?.dispose();
    await dns?.close();
  });

  /** Runs refused requests and proves they changed nothing: same credits, same event log head. */
  async function changesNothing(refused: () => Promise<void>): Promise<void> {
    const credits = async () => (await client.call('GET', '/api/v2/common/credits', researcher)).body;
    const before = {
      credits: await credits(),
      head: await service.context.storage.eventStore.headPosition(),
    };
    await refused();
    const after = { credits: await credits(), head: await service.context.storage.eventStore.headPosition() };
    expect(after).toEqual(before);
  }

  it('router refusals answer in the one shape: a URL that does not decode is 400, an over-long parameter 414 without echoing it, an unknown long path 404', async () => {
    await changesNothing(async () => {
      const badUrl = await client.call('GET', '/api/v2/common/exports/ab%E0%A4%A/poll', researcher);
      expectRefusal(badUrl, 400, 'malformed_request');

      const long = 'a'.repeat(3000);
      const tooLong = await client.call('GET', `/api/v2/common/exports/${long}/poll`, researcher);
      expectRefusal(tooLong, 414, 'uri_too_long');
      expect(tooLong.text).not.toContain('a'.repeat(100));

      const unknown = await client.call('GET', `/api/v2/nowhere/${'b'.repeat(5000)}`, researcher);
      expectRefusal(unknown, 404, 'not_found');
      expect(unknown.text.length).toBeLessThan(500);
      const unknownMethod = await client.call('PUT', '/api/v2/common/credits', researcher);
      expectRefusal(unknownMethod, 404, 'not_found');
    });
  });

  it('what the HTTP parser refuses answers in the one shape too: a NUL in a header is 400, oversized headers 431', async () => {
    const nulHeader = await client.raw(
      `GET /api/v2/common/credits HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${researcher.key}\r\nUser-Agent: a${NUL}b\r\n\r\n`,
    );
    expect({ status: nulHeader.status, code: nulHeader.body.code }).toEqual({
      status: 400,
      code: 'malformed_request',
    });
    expect(nulHeader.body.request_id).toBe(nulHeader.headers['x-request-id']);
    const huge = await client.raw(
      `GET /api/v2/common/credits HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(20_000)}\r\n\r\n`,
    );
    expect({ status: huge.status, code: huge.body.code }).toEqual({ status: 431, code: 'headers_too_large' });
    expect(huge.body.request_id).toBe(huge.headers['x-request-id']);
  });

  it("malformed, empty and oversized JSON bodies answer with the service's own code and message", async () => {
    await changesNothing(async () => {
      const search = (body: string) =>
        client.call('POST', '/api/v2/common/data/search', { ...researcher, body });
      const malformed = await search('{"raw_query": ');
      expectRefusal(malformed, 422, 'invalid_input');
      expect(malformed.body.message).toBe('the body is not valid JSON');
      const empty = await client.call('POST', '/api/v2/auth/keys', { ...researcher, body: '' });
      expectRefusal(empty, 422, 'invalid_input');
      expect(empty.body.message).toBe('the JSON body is empty');
      const large = await search(JSON.stringify({ raw_query: 'x'.repeat(5000) }));
      expectRefusal(large, 413, 'payload_too_large');
      expect(large.body.message).toBe('the request body is larger than this route accepts');
    });
  });

  it('a JSON route refuses a body that is not application/json with 415 unsupported_media_type, before any charge', async () => {
    await changesNothing(async () => {
      const form = await client.call('POST', '/api/v2/common/data/search', {
        ...researcher,
        body: 'raw_query=port%3A443&stream=false',
        contentType: 'application/x-www-form-urlencoded',
      });
      expectRefusal(form, 415, 'unsupported_media_type');
      expect(form.body.message).toContain('application/json');
      expect(form.body.message).toContain('application/x-www-form-urlencoded');

      const text = await client.call('POST', '/api/v2/common/data/hosts', {
        ...researcher,
        body: '{"raw_query":"port:443"}',
        contentType: 'text/plain',
      });
      expectRefusal(text, 415, 'unsupported_media_type');

      const untyped = await client.call('POST', '/api/v2/auth/keys', {
        session: researcher.session,
        body: '{"label":"no type"}',
        contentType: null,
      });
      expectRefusal(untyped, 415, 'unsupported_media_type');
      expect(untyped.body.message).toContain('no Content-Type');
    });
  });

  it('JSON nested deeper than 32 levels is 422 invalid_input with max_depth on every route, never a 500', async () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    await changesNothing(async () => {
      for (const [path, caller, body] of [
        ['/api/v2/auth/keys', { session: researcher.session }, `{"label":${nested(5000)}}`],
        ['/api/v2/common/exports/hosts/estimate', researcher, `{"raw_query":${nested(20_000)}}`],
        ['/api/v2/common/data/search', researcher, `{"raw_query":"x","stream":false,"f":${nested(40)}}`],
        [`/api/v2/organizations/${organization.organizationId}/spaces`, organization.owner, nested(33)],
      ] as const) {
        const answer = await client.call('POST', path, { ...caller, body });
        expectRefusal(answer, 422, 'invalid_input');
        expect(answer.body.details).toEqual({ max_depth: 32 });
      }
    });
    // 32 levels parse; the body is then validated like any other.
    const deepest = await client.call('POST', '/api/v2/common/data/search', {
      ...researcher,
      body: `{"raw_query":"x","stream":false,"f":${nested(31)}}`,
    });
    expectRefusal(deepest, 422, 'invalid_input');
    expect(deepest.body.details).toMatchObject({ fields: [{ field: 'f' }] });
  });

  it('a NUL or a lone surrogate in a search is 422 invalid_input naming raw_query, refused before any reservation', async () => {
    await changesNothing(async () => {
      for (const [text, problem] of [
        [`a${NUL}b`, NUL_PROBLEM],
        [`a${LONE_SURROGATE}b`, SURROGATE_PROBLEM],
      ] as const) {
        const unified = await client.call('POST', '/api/v2/common/data/search', {
          ...researcher,
          json: { raw_query: text, stream: false },
        });
        expectFieldRefusal(unified, { raw_query: [problem] });
        const streamed = await client.call('POST', '/api/v2/common/data/search', {
          ...researcher,
          json: { raw_query: text },
        });
        expectFieldRefusal(streamed, { raw_query: [problem] });
        const single = await client.call('POST', '/api/v2/common/data/hosts', {
          ...researcher,
          json: { raw_query: text },
        });
        expectFieldRefusal(single, { raw_query: [problem] });
        const more = await client.call('POST', '/api/v2/common/data/search/more', {
          ...researcher,
          json: { raw_query: 'port:443', dataset: 'hosts', page: 2, time_frame: text },
        });
        expectFieldRefusal(more, { time_frame: [problem] });
        const browser = await client.call('POST', '/api/v2/data/search', {
          session: researcher.session,
          json: { raw_query: text, stream: false },
        });
        expectFieldRefusal(browser, { raw_query: [problem] });
      }
    });
  });

  it('null in a field that may only be left out is 422 naming the field, never a 500 (fuzz: include: null)', async () => {
    await changesNothing(async () => {
      const single = await client.call('POST', '/api/v2/common/data/vhosts', {
        ...researcher,
        json: { raw_query: 'port:443', aggregate: true, page: 8, include: null },
      });
      expectRefusal(single, 422, 'invalid_input');
      expect(single.body.details).toMatchObject({ fields: [expect.objectContaining({ field: 'include' })] });
      const unified = await client.call('POST', '/api/v2/common/data/search', {
        ...researcher,
        json: { raw_query: 'port:443', stream: false, time_frame: null, per_type_limit: null },
      });
      expectRefusal(unified, 422, 'invalid_input');
      const export_ = await client.call('POST', '/api/v2/common/exports/hosts/estimate', {
        ...researcher,
        json: { raw_query: 'port:443', format: null },
      });
      expectRefusal(export_, 422, 'invalid_input');
    });
  });

  it('a NUL in a path parameter is 422 naming the parameter, on routes without a DTO (ids, datasets)', async () => {
    const orgId = organization.organizationId;
    await changesNothing(async () => {
      for (const [method, path, caller, field] of [
        ['GET', '/api/v2/common/exports/ab%00c/poll', researcher, 'exportId'],
        ['GET', '/api/v2/common/exports/ab%00c/download', researcher, 'exportId'],
        ['DELETE', '/api/v2/common/exports/ab%00c', researcher, 'exportId'],
        ['POST', '/api/v2/common/exports/ho%00sts/estimate', researcher, 'searchType'],
        ['POST', '/api/v2/common/data/ho%00sts', researcher, 'dataset'],
        ['DELETE', '/api/v2/auth/keys/ab%00c', { session: researcher.session }, 'keyId'],
        ['GET', `/api/v2/organizations/ab%00c`, organization.owner, 'orgId'],
        ['GET', `/api/v2/organizations/${orgId}/cases/ab%00c`, organization.owner, 'caseId'],
        ['DELETE', `/api/v2/organizations/${orgId}/clients/ab%00c`, organization.owner, 'clientId'],
        ['GET', `/api/v2/auth/sso/ab%00c/start`, {}, 'orgId'],
      ] as const) {
        const json = method === 'POST' ? { raw_query: 'port:443' } : undefined;
        const answer = await client.call(method, path, { ...caller, ...(json ? { json } : {}) });
        expectFieldRefusal(answer, { [field]: [NUL_PROBLEM] });
      }
    });
  });

  it('login emails, key labels, organization names and titles refuse NUL and lone surrogates with 422 naming the field', async () => {
    const orgId = organization.organizationId;
    const keysBefore = (await client.call('GET', '/api/v2/auth/keys', { session: researcher.session })).body;
    await changesNothing(async () => {
      for (const [text, problem] of [
        [NUL, NUL_PROBLEM],
        [LONE_SURROGATE, SURROGATE_PROBLEM],
      ] as const) {
        const login = await client.call('POST', '/api/v2/auth/login', {
          json: { email: `demo${text}@example.com`, password: 'hardening-password-0123' },
        });
        expectFieldRefusal(login, { email: [problem] });
        const label = await client.call('POST', '/api/v2/auth/keys', {
          session: researcher.session,
          json: { label: `laptop ${text}` },
        });
        expectFieldRefusal(label, { label: [problem] });
        const rename = await client.call('PATCH', `/api/v2/organizations/${orgId}`, {
          ...organization.owner,
          json: { name: `Acme ${text}` },
        });
        expectFieldRefusal(rename, { name: [problem] });
        const space = await client.call('POST', `/api/v2/organizations/${orgId}/spaces`, {
          ...organization.owner,
          json: { name: `Client ${text}` },
        });
        expectFieldRefusal(space, { name: [problem] });
        const caseTitle = await client.call('POST', `/api/v2/organizations/${orgId}/cases`, {
          ...organization.owner,
          json: { space_id: organization.clientSpaceId, title: `Case ${text}` },
        });
        expectFieldRefusal(caseTitle, { title: [problem] });
        const invitation = await client.call('POST', `/api/v2/organizations/${orgId}/invitations`, {
          ...organization.owner,
          json: { email: `x${text}@example.com`, role: 'analyst', space_ids: [`a${text}`] },
        });
        expectFieldRefusal(invitation, { email: [problem], 'space_ids.0': [problem] });
      }
    });
    const keysAfter = (await client.call('GET', '/api/v2/auth/keys', { session: researcher.session })).body;
    expect(keysAfter).toEqual(keysBefore);
  });

  it('query string values and property names are checked like every other string', async () => {
    await changesNothing(async () => {
      const returnTo = await client.call(
        'GET',
        `/api/v2/auth/sso/${organization.organizationId}/start?return_to=%2Fa%00b`,
      );
      expectFieldRefusal(returnTo, { return_to: [NUL_PROBLEM] });
      const history = await client.call(
        'GET',
        `/api/v2/organizations/${organization.organizationId}/clients/${organization.clientSpaceId}/exposure/history?as_of=2026%00`,
        organization.owner,
      );
      expectFieldRefusal(history, { as_of: [NUL_PROBLEM] });
      const key = await client.call('POST', '/api/v2/common/data/search', {
        ...researcher,
        body: `{"raw_query":"port:443","stream":false,"x\\u0000y":1}`,
      });
      expectRefusal(key, 422, 'invalid_input');
      expect(key.body.details).toEqual({
        fields: [{ field: 'x\\u0000y', problems: [`the property name ${NUL_PROBLEM}`] }],
      });
    });
  });
});

describe('a data route whose dataset or storage cannot answer is 503 with Retry-After, never 500 (PostgreSQL server)', () => {
  let service: TestService;
  let client: Client;
  let researcher: { key: string };
  let database: string;

  beforeAll(async () => {
    // Two hosts queries at once make the dataset busy (the default, 16, is a production figure).
    service = await startTestService('postgres', { env: { SEARCH_DATASET_CONCURRENCY: '2' } });
    await waitUntil(() => service.context.projections.allLive());
    await writeGenerated(service.context.observations, 'hosts', {
      count: 40,
      seed: 'hardening',
      now: new Date(),
    });
    const bus = service.app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount(`busy-${unique()}@example.com`, 'professional', undefined, operator()),
    );
    await bus.execute(new PurchaseCredits(accountId, 500, operator()));
    researcher = { key: (await bus.execute(new IssueApiKey(accountId, 'busy', operator()))).key };
    database = new URL(service.database!.url!).pathname.slice(1);
    await service.app.listen(0, '127.0.0.1');
    client = new Client(service, (await service.app.getUrl()).replace('[::1]', '127.0.0.1'));
  });

  afterAll(async () => {
    await service?.dispose();
  });

  it('a busy dataset answers 503 not_ready with Retry-After before any reservation; the queries in flight still answer', async () => {
    const locker = new pg.Client({ connectionString: service.database!.url! });
    await locker.connect();
    try {
      // Holding the hosts table keeps two hosts queries in flight: the dataset is at its concurrency.
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${tableOf('hosts')} IN ACCESS EXCLUSIVE MODE`);
      const search = () =>
        client.call('POST', '/api/v2/common/data/hosts', { ...researcher, json: { raw_query: 'port:443' } });
      const inFlight = [search(), search()];
      await waitUntil(async () => {
        const { rows } = await locker.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted AND relation = $1::regclass`,
          [tableOf('hosts')],
        );
        return rows[0]!.waiting >= 2;
      });
      const requestId = `busy-${unique()}`;
      const head = await service.context.storage.eventStore.headPosition();
      const busy = await client.call('POST', '/api/v2/common/data/hosts', {
        ...researcher,
        json: { raw_query: 'port:443' },
        headers: { 'x-request-id': requestId },
      });
      expectRefusal(busy, 503, 'not_ready');
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(busy.body.details).toEqual({ status: 'busy' });
      // Nothing was reserved for it: no event carries its request id.
      const events = await service.context.storage.eventStore.readAll({ after: head, limit: 1000 });
      expect(events.filter((event) => event.metadata.correlationId === requestId)).toEqual([]);
      // A unified answer is whole for the datasets that answered, and says when to ask the busy one again.
      const unified = await client.call('POST', '/api/v2/common/data/search', {
        ...researcher,
        json: { raw_query: 'port:443', stream: false },
      });
      expect(unified.status).toBe(200);
      expect((unified.body.per_type_status as Record<string, string>).hosts).toBe('busy');
      expect(unified.headers.get('retry-after')).toBe('1');
      await locker.query('ROLLBACK');
      for (const answer of await Promise.all(inFlight)) expect(answer.status).toBe(200);
      const whole = await client.call('POST', '/api/v2/common/data/search', {
        ...researcher,
        json: { raw_query: 'port:443', stream: false },
      });
      expect(whole.status).toBe(200);
      expect(Object.values(whole.body.per_type_status as Record<string, string>)).not.toContain('busy');
      expect(whole.headers.get('retry-after')).toBeNull();
    } finally {
      await locker.end();
    }
  });

  it('when the database stops accepting connections, routes answer 503 not_ready with Retry-After, and answer again once it is back', async () => {
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    // A transaction between two statements when its connection is cut: the process must survive it (an unhandled
    // 'error' of the held client used to end it), and the transaction fails like any statement would.
    let cut!: () => void;
    const connectionCut = new Promise<void>((resolve) => (cut = resolve));
    const heldTransaction = service.context.storage.sql!.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await connectionCut;
      await tx.query('SELECT 1');
    });
    try {
      await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      await new Promise((resolve) => setTimeout(resolve, 200)); // the held client hears of its end
      cut();
      await expect(heldTransaction).rejects.toThrow();
      for (const [method, path, json] of [
        ['GET', '/api/v2/common/credits', undefined],
        ['POST', '/api/v2/common/data/hosts', { raw_query: 'port:443' }],
        ['POST', '/api/v2/common/data/search', { raw_query: 'port:443', stream: false }],
        ['GET', '/api/v2/common/exports', undefined],
      ] as const) {
        const answer = await client.call(method, path, { ...researcher, ...(json ? { json } : {}) });
        expectRefusal(answer, 503, 'not_ready');
        expect(answer.headers.get('retry-after')).toBe('5');
      }
    } finally {
      await admin.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    await waitUntil(
      async () => (await client.call('GET', '/api/v2/common/credits', researcher)).status === 200,
    );
    const search = await client.call('POST', '/api/v2/common/data/hosts', {
      ...researcher,
      json: { raw_query: 'port:443' },
    });
    expect(search.status).toBe(200);
  });
});
