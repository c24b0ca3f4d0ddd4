/**
 * Issue 18 part 3: an AI assistant's whole path, with the MCP SDK's own client and its OAuth client provider
 * against a listening service on the PostgreSQL server. The first call gets 401; the SDK discovers the protected
 * resource metadata and the authorization server from it, registers itself (RFC 7591), and sends the person to the
 * authorization page with PKCE; the sign-in and consent pages are driven over HTTP as a browser would; the SDK
 * exchanges the code, lists the tools, searches and enriches (billed in usage_mcp by exactly what was charged),
 * refreshes on its own when the access token expires, and after revocation its next call is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { InvalidGrantError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { SearchLog } from '../../src/search/search-log.js';
import { TestBrowser } from '../support/oidc.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'assistant-password-0123456789';
/** Where the assistant would receive the code; nothing listens there: the test reads the redirect itself. */
const REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';

/** What an assistant keeps between runs, in memory; the authorization URL is kept for the test to open. */
class AssistantOAuth implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl(): string {
    return REDIRECT_URI;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Research assistant',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'service.read',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed): void {
    this.information = information;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

interface Usage {
  readonly usage: Array<{ category: string; credits: number }>;
  readonly usage_mcp: Array<{ category: string; credits: number }>;
}
const total = (entries: ReadonlyArray<{ credits: number }>) => entries.reduce((sum, e) => sum + e.credits, 0);

describe('an AI assistant through OAuth and MCP (postgres)', () => {
  const clock = new ManualClock(new Date());
  let service: TestService;
  let origin: string;
  let email: string;
  let accountId: string;
  const oauth = new AssistantOAuth();
  const clients: Client[] = [];

  const transport = () =>
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { authProvider: oauth });

  async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    if (result.isError) {
      const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      throw new Error(`${name} failed: ${text}`);
    }
    return result.structuredContent as Record<string, unknown>;
  }

  async function usage(client: Client): Promise<Usage> {
    await waitForProjections(service, ['credit-state', 'credit-usage']);
    return (await call(client, 'credits')).usage as Usage;
  }

  /** A person at the browser: signs in on the service's page and approves the consent page; answers the code. */
  async function approve(authorizationUrl: URL): Promise<string> {
    const browser = new TestBrowser();
    const signIn = (await browser.follow(authorizationUrl.href)).at(-1)!;
    expect(signIn.status).toBe(200);
    expect(signIn.body).toContain('name="password"');
    const loggedIn = await browser.request(`${signIn.url}/login`, { form: { email, password: PASSWORD } });
    expect(loggedIn.status).toBe(303);
    const consent = await browser.request(loggedIn.location!);
    expect(consent.status).toBe(200);
    // The consent page names the client, its redirect host, the scope and what it allows.
    expect(consent.body).toContain('Research assistant');
    expect(consent.body).toContain('127.0.0.1:9');
    expect(consent.body).toContain('service.read');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(consent.body)![1]!;
    let hop = await browser.request(`${consent.url}/consent`, {
      form: { csrf_token: csrf, decision: 'approve' },
    });
    while (hop.location && !hop.location.startsWith(REDIRECT_URI)) hop = await browser.request(hop.location);
    expect(hop.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/oauth\/callback\?/);
    const back = new URL(hop.location!);
    expect(back.searchParams.get('error')).toBeNull();
    return back.searchParams.get('code')!;
  }

  beforeAll(async () => {
    service = await startTestService('postgres', { clock });
    for (const dataset of DATASETS)
      await writeGenerated(service.context.observations, dataset, {
        count: 60,
        seed: 'assistant',
        now: new Date(),
      });
    email = `assistant-${Math.random().toString(36).slice(2)}@example.com`;
    ({ accountId } = await service.app
      .get(CommandBus)
      .execute(
        new RegisterAccount(
          email,
          'professional',
          PASSWORD,
          commandEnvelope({ actor: 'operator:test', payer: 'system' }),
        ),
      ));
    await waitUntil(() => service.context.projections.allLive());
    await service.app.listen(0, '127.0.0.1');
    const address = service.app.getHttpServer().address() as { port: number };
    origin = `http://127.0.0.1:${address.port}`;
  }, 180_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await service?.dispose();
  });

  it('discovers, registers, authorizes with PKCE through the pages, searches and enriches billed in usage_mcp, refreshes, and is refused after revocation', async () => {
    // 1. Unauthenticated: the SDK follows the 401 to the metadata, registers itself and asks for authorization.
    const first = new Client({ name: 'assistant', version: '1.0.0' });
    const pending = transport();
    await expect(first.connect(pending)).rejects.toThrow(UnauthorizedError);
    expect(oauth.information?.client_id).toEqual(expect.any(String));
    const authorizationUrl = oauth.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${origin}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${origin}/mcp`);

    // 2. The person approves; the SDK exchanges the code (with its verifier) for tokens bound to /mcp.
    await pending.finishAuth(await approve(authorizationUrl));
    const issued = oauth.saved!;
    expect(issued.refresh_token).toEqual(expect.any(String));
    const claims = JSON.parse(Buffer.from(issued.access_token.split('.')[1]!, 'base64url').toString()) as {
      aud: string;
      sub: string;
      client_id: string;
    };
    expect(claims).toMatchObject({
      aud: `${origin}/mcp`,
      sub: accountId,
      client_id: oauth.information!.client_id,
    });

    // 3. Tools, then a search and an enrichment: charged like the HTTP routes, counted in usage_mcp.
    const client = new Client({ name: 'assistant', version: '1.0.0' });
    await client.connect(transport());
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['search', 'enrich_vulnerabilities']),
    );
    const before = await usage(client);
    const searched = (await call(client, 'search', { raw_query: 'port:443', per_type_limit: 5 })) as {
      per_type_status: Record<string, string>;
      results: Record<string, Array<{ raw: Record<string, unknown> }>>;
      credits_charged: number;
    };
    expect(Object.keys(searched.per_type_status).sort()).toEqual([...DATASETS].sort());
    expect(searched.credits_charged).toBeGreaterThan(0);
    const reference = searched.results.hosts?.map((host) => host.raw.vulnerability_ref).find(Boolean);
    if (typeof reference === 'string') await call(client, 'enrich_vulnerabilities', { reference });
    const after = await usage(client);
    expect(total(after.usage_mcp) - total(before.usage_mcp)).toBe(searched.credits_charged);
    expect(total(after.usage) - total(before.usage)).toBe(searched.credits_charged);

    // The search's events name the surface and the OAuth client that acted for the account.
    await service.app.get(SearchLog).settled();
    const read = (id: string) => service.context.storage.eventStore.readStream(id);
    await waitUntil(async () => (await read(`searches-account-${accountId}`)).length >= 1, 10_000);
    const [searchEvent] = await read(`searches-account-${accountId}`);
    expect(searchEvent!.metadata).toMatchObject({
      actor: `account:${accountId}`,
      surface: 'mcp',
      clientId: oauth.information!.client_id,
    });

    // 4. Two hours on, the access token has expired: the SDK refreshes on its own (rotation) and goes on.
    clock.advance(2 * 3600 * 1000);
    const credits = await call(client, 'credits');
    expect(credits.usage).toBeDefined();
    expect(oauth.saved!.access_token).not.toBe(issued.access_token);
    expect(oauth.saved!.refresh_token).not.toBe(issued.refresh_token);

    // 5. Revocation (RFC 7009) of the refresh token revokes the grant: the next call is refused.
    const revoked = await fetch(`${origin}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: oauth.saved!.refresh_token!,
        token_type_hint: 'refresh_token',
        client_id: oauth.information!.client_id,
      }).toString(),
    });
    expect(revoked.status).toBe(200);
    const direct = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${oauth.saved!.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(direct.status).toBe(401);
    expect(await direct.json()).toMatchObject({ code: 'token_revoked' });
    // Through the SDK: its call gets 401, its refresh is refused (the grant is gone), so it must ask the person.
    await expect(client.callTool({ name: 'credits', arguments: {} })).rejects.toThrow(InvalidGrantError);
  });
});
