/**
 * The MCP endpoint (issue 18 part 2, ADR 108, 109) through the SDK's own client over Streamable HTTP, against a
 * listening service on the PostgreSQL server: a personal API key and a session-minted access token as bearer
 * tokens; tools listed with their schemas; search, next page, enrichment, credits, exports billed on the same
 * ledger and counted in usage_mcp; refusals as tool errors carrying the service's code; events attributed to the
 * mcp surface; the 401 challenge pointing at the protected resource metadata.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { loadSampleCatalogue } from '../../src/catalogue/sample/sample-catalogue.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { AccessTokens } from '../../src/platform/auth/access-tokens.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { SearchLog } from '../../src/search/search-log.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'mcp-password-0123456789';
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
const EXPECTED_TOOLS = [
  'credits',
  'enrich_badges',
  'enrich_vulnerabilities',
  'export_estimate',
  'export_start',
  'export_status',
  'search',
  'search_dataset',
  'search_fields',
  'search_next_page',
];

interface Usage {
  readonly usage: Array<{ category: string; credits: number }>;
  readonly usage_mcp: Array<{ category: string; credits: number }>;
}

const total = (entries: ReadonlyArray<{ credits: number }>) => entries.reduce((sum, e) => sum + e.credits, 0);

describe('MCP endpoint (postgres)', () => {
  let service: TestService;
  let origin: string;
  let main: { accountId: string; email: string; key: string; keyId: string };
  let broke: { accountId: string; key: string };
  let token: { token: string; tokenId: string };
  const clients: Client[] = [];

  async function register(label: string) {
    const bus = service.app.get(CommandBus);
    const email = `mcp-${label}-${Math.random().toString(36).slice(2)}@example.com`;
    const { accountId } = await bus.execute(new RegisterAccount(email, 'professional', PASSWORD, operator()));
    const issued = await bus.execute(new IssueApiKey(accountId, label, operator()));
    return { accountId, email, key: issued.key as string, keyId: issued.keyId as string };
  }

  async function connect(bearer: string): Promise<Client> {
    const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bearer}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  /** A tool's result: its structured content, or (isError) the service's error body its text carries. */
  async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (result.isError)
      return { error: JSON.parse(text) as { code: string; message: string; request_id: string } };
    return { output: result.structuredContent as Record<string, unknown>, text };
  }

  async function usage(client: Client): Promise<Usage> {
    await waitForProjections(service, ['credit-state', 'credit-usage']);
    const { output } = await call(client, 'credits');
    return (output as { usage: Usage }).usage;
  }

  beforeAll(async () => {
    service = await startTestService('postgres');
    for (const dataset of DATASETS) {
      await writeGenerated(service.context.observations, dataset, {
        count: 80,
        seed: 'mcp',
        now: new Date(),
      });
    }
    await loadSampleCatalogue(service.context.catalogue, service.context.observations);
    main = await register('main');
    broke = await register('broke');
    await service.app.listen(0, '127.0.0.1');
    const address = service.app.getHttpServer().address() as { port: number };
    origin = `http://127.0.0.1:${address.port}`;

    // A session-minted access token (POST /api/v2/auth/tokens), its default client: on /mcp it acts as mcp.
    const login = await fetch(`${origin}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: main.email, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookies = login.headers.getSetCookie().map((c) => c.split(';')[0]!);
    const csrf = cookies.find((c) => c.startsWith(`${CSRF_COOKIE}=`))!.split('=')[1]!;
    expect(cookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
    const minted = await fetch(`${origin}/api/v2/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: cookies.join('; '), 'x-csrf-token': csrf },
      body: JSON.stringify({}),
    });
    expect(minted.status).toBe(201);
    const accessToken = ((await minted.json()) as { access_token: string }).access_token;
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as {
      jti: string;
    };
    token = { token: accessToken, tokenId: claims.jti };
  }, 180_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await service?.dispose();
  });

  it('refuses a request without a credential (or with a bad one) with 401, the challenge and the error body', async () => {
    const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: initialize });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const body = (await none.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'unauthenticated', request_id: none.headers.get('x-request-id') });

    // The key with its last character changed (a key that already ended in A was once "changed" into itself).
    const altered = `${main.key.slice(0, -1)}${main.key.endsWith('A') ? 'B' : 'A'}`;
    const bad = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${altered}` },
      body: initialize,
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await bad.json()).toMatchObject({ code: 'unauthenticated' });

    // A token without service.read: 403 insufficient_scope, and the challenge names the scope.
    const unscoped = await service.app
      .get(AccessTokens)
      .issue({ accountId: main.accountId, scopes: ['profile'], client: 'mcp' });
    const scope = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${unscoped.token}` },
      body: initialize,
    });
    expect(scope.status).toBe(403);
    expect(scope.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="service.read", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(await scope.json()).toMatchObject({ code: 'insufficient_scope' });
  });

  it('answers bad transport input with a 4xx: JSON-RPC errors from the SDK, the service error otherwise', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${main.key}`,
    };
    const notJsonRpc = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: '{"hello":"world"}' });
    expect(notJsonRpc.status).toBe(400);
    expect(await notJsonRpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
    const notJson = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(notJson.status).toBe(415);
    expect(await notJson.json()).toMatchObject({ code: 'unsupported_media_type' });
    const brokenJson = await fetch(`${origin}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(brokenJson.status).toBe(422);
    expect(await brokenJson.json()).toMatchObject({ code: 'invalid_input' });
    const stream = await fetch(`${origin}/mcp`, { method: 'GET', headers });
    expect(stream.status).toBe(405);
    expect(stream.headers.get('allow')).toBe('POST');
    expect(await stream.json()).toMatchObject({ code: 'method_not_allowed' });
  });

  it('lists every tool with its input and output schema and read-only annotations', async () => {
    const client = await connect(main.key);
    expect(client.getServerVersion()).toMatchObject({ name: 'exposure-research' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(EXPECTED_TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(typeof tool.annotations?.readOnlyHint).toBe('boolean');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    // Paid tools are not read-only (each call spends credits); the free reads are.
    expect(byName.get('search')?.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    for (const name of ['search_fields', 'enrich_vulnerabilities', 'credits', 'export_status'])
      expect(byName.get(name)?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get('search')?.inputSchema.required).toEqual(['raw_query']);
    expect(byName.get('search_next_page')?.description).toMatch(/records 100-999: 2x/);
  });

  it('with an API key: search, next page, enrichment and credits, billed alike and counted in usage_mcp, events on the mcp surface', async () => {
    const client = await connect(main.key);
    const before = await usage(client);
    expect(total(before.usage_mcp)).toBe(0);

    const searched = await call(client, 'search', { raw_query: 'port:443', per_type_limit: 5 });
    const outcome = searched.output as {
      per_type_status: Record<string, string>;
      results: Record<string, Array<{ raw: Record<string, unknown> }>>;
      credits_charged: number;
    };
    expect(Object.keys(outcome.per_type_status).sort()).toEqual([...DATASETS].sort());
    expect(outcome.credits_charged).toBeGreaterThan(0);
    expect(searched.text).toMatch(/^\d+ credit\(s\) charged\./);
    expect(outcome.results.hosts!.length).toBe(5);

    const page = await call(client, 'search_next_page', {
      raw_query: 'port:443',
      dataset: 'hosts',
      page: 2,
      per_type_limit: 5,
    });
    const second = page.output as { status: string; results: unknown[]; credits_charged: number };
    expect(second).toMatchObject({ status: 'ok', credits_charged: 1 });
    expect(second.results.length).toBe(5);

    const reference = outcome.results.hosts!.map((host) => host.raw.vulnerability_ref).find(Boolean);
    expect(typeof reference).toBe('string');
    const enriched = await call(client, 'enrich_vulnerabilities', { reference });
    expect(enriched.output).toMatchObject({ cpes: null, notice: expect.any(String) });
    expect((enriched.output as { evaluations: unknown[] }).evaluations.length).toBeGreaterThan(0);

    const charged = outcome.credits_charged + second.credits_charged;
    const after = await usage(client);
    expect(total(after.usage_mcp) - total(before.usage_mcp)).toBe(charged);
    expect(total(after.usage) - total(before.usage)).toBe(charged);

    // Every event of these calls names the key and the mcp surface: the searches and their ledger entries.
    await service.app.get(SearchLog).settled();
    const read = (id: string): Promise<RecordedEvent[]> => service.context.storage.eventStore.readStream(id);
    await waitUntil(async () => (await read(`searches-account-${main.accountId}`)).length >= 2, 10_000);
    const searches = await read(`searches-account-${main.accountId}`);
    expect(searches.map((e) => (e.data as { kind: string }).kind)).toEqual(['unified', 'page']);
    const ledger = (await read(`ledger-account-${main.accountId}`)).filter((e) =>
      e.type.startsWith('Credits'),
    );
    expect(ledger.length).toBeGreaterThan(0);
    for (const event of [...searches, ...ledger]) {
      expect(event.metadata).toMatchObject({ credential: `api_key:${main.keyId}`, surface: 'mcp' });
    }
  });

  it('with a session-minted access token: the same tools, charged on the mcp channel under the token', async () => {
    const client = await connect(token.token);
    const before = await usage(client);
    const fields = await call(client, 'search_fields');
    expect((fields.output as { fields: unknown[] }).fields.length).toBeGreaterThan(10);
    const searched = await call(client, 'search', { raw_query: 'port:80', per_type_limit: 3 });
    const charged = (searched.output as { credits_charged: number }).credits_charged;
    expect(charged).toBeGreaterThan(0);
    const after = await usage(client);
    expect(total(after.usage_mcp) - total(before.usage_mcp)).toBe(charged);
    expect(total(after.usage) - total(before.usage)).toBe(charged);
    await service.app.get(SearchLog).settled();
    const byToken = (
      await service.context.storage.eventStore.readStream(`searches-account-${main.accountId}`)
    ).filter((event) => event.metadata.credential === `access_token:${token.tokenId}`);
    expect(byToken.map((event) => event.metadata.surface)).toEqual(['mcp']);
  });

  it('a refused call is a tool error carrying the service code and message', async () => {
    const client = await connect(main.key);
    const invalidQuery = await call(client, 'search', { raw_query: 'port:(' });
    expect(invalidQuery.error).toMatchObject({ code: 'invalid_query', message: expect.any(String) });
    const invalidInput = await call(client, 'search_next_page', {
      raw_query: 'x',
      dataset: 'hosts',
      page: 1,
    });
    expect(invalidInput.error).toMatchObject({ code: 'invalid_input' });
    const unknownExport = await call(client, 'export_status', { export_id: 'no-such-export' });
    expect(unknownExport.error).toMatchObject({ code: 'not_found' });

    // Every credit of this account held by a reservation: the search is refused before it runs.
    const ledger = service.app.get(CreditLedger);
    const payer = `account:${broke.accountId}`;
    await ledger.reserve(
      { payer, amount: await ledger.available(payer), category: 'host', channel: 'api', ttlMs: 600_000 },
      operator(),
    );
    const poor = await connect(broke.key);
    const refused = await call(poor, 'search', { raw_query: 'port:443' });
    expect(refused.error).toMatchObject({ code: 'insufficient_credits', request_id: expect.any(String) });
  });

  it('exports: estimate, start and status, whose download link works with the same bearer token', async () => {
    const client = await connect(main.key);
    const estimate = await call(client, 'export_estimate', { search_type: 'dns', raw_query: 'type:a' });
    const estimated = (estimate.output as { estimated_count: number }).estimated_count;
    expect(estimated).toBeGreaterThan(0);
    const started = await call(client, 'export_start', {
      search_type: 'dns',
      raw_query: 'type:a',
      format: 'txt',
    });
    const exportId = (started.output as { export_id: string }).export_id;
    let status: Record<string, unknown> = {};
    await waitUntil(async () => {
      status = (await call(client, 'export_status', { export_id: exportId })).output ?? {};
      return status.status === 'completed';
    }, 30_000);
    expect(status).toMatchObject({ results_count: estimated, file_available: true });
    expect(status.download_url).toBe(`${origin}/api/v2/common/exports/${exportId}/download`);
    const file = await fetch(status.download_url as string, {
      headers: { authorization: `Bearer ${main.key}` },
    });
    expect(file.status).toBe(200);
    expect((await file.text()).trim().split('\n')).toHaveLength(estimated);
  });
});
