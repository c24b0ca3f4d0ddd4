/**
 * The OAuth 2.1 authorization server (ADR 106, 107) over real HTTP on a listening service (PGlite): dynamic
 * registration of a public client, authorization code with PKCE driven through the service's own sign-in and
 * consent pages, the token used on the personal API, refresh rotation and reuse detection (the grant revoked),
 * the refusals (wrong verifier, reused code, another resource, a Free account, an expired token), RFC 7009
 * revocation, the authorized apps list and revocation, and the grant's events: attributed, and free of secrets.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { ChangePlan, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { oauthGrantStreamId } from '../../src/accounts/domain/oauth-grant.js';
import { CSRF_COOKIE } from '../../src/platform/auth/cookies.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { TestBrowser } from '../support/oidc.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'oauth-password-0123456789';
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

interface Tokens {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly token_type: string;
  readonly expires_in: number;
  readonly scope: string;
}

const claimsOf = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('OAuth authorization server', () => {
  const clock = new ManualClock(new Date());
  let service: TestService;
  let base: string;
  let clientId: string;
  let counter = 0;

  beforeAll(async () => {
    service = await startTestService('pglite', { clock });
    await waitUntil(() => service.context.projections.allLive());
    await service.app.listen(0, '127.0.0.1');
    base = (await service.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
    const registered = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Assistant <b>"x"</b>',
        redirect_uris: [REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      }),
    });
    expect(registered.status).toBe(201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  }, 120_000);

  afterAll(async () => {
    await service?.dispose();
  });

  async function register(plan: 'professional' | 'free'): Promise<{ accountId: string; email: string }> {
    const email = `oauth-${plan}-${++counter}-${Date.now().toString(36)}@oauth.example`;
    const { accountId } = await service.app
      .get(CommandBus)
      .execute(new RegisterAccount(email, plan, PASSWORD, operator()));
    return { accountId, email };
  }

  function pkce(): { verifier: string; challenge: string } {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  function authorizeUrl(challenge: string, resource = base): string {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      scope: 'service.read',
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource,
    });
    return `${base}/oauth/authorize?${query.toString()}`;
  }

  /** Signs in on the service's page, then answers the consent page (status and body) without deciding. */
  async function toConsent(browser: TestBrowser, email: string, challenge: string, resource = base) {
    const hops = await browser.follow(authorizeUrl(challenge, resource));
    const signIn = hops.at(-1)!;
    expect(signIn.status).toBe(200);
    expect(signIn.body).toContain('name="password"');
    const loggedIn = await browser.request(`${signIn.url}/login`, { form: { email, password: PASSWORD } });
    expect(loggedIn.status).toBe(303);
    return browser.request(loggedIn.location!);
  }

  /** The whole flow through the pages: answers the code the client receives. */
  async function authorize(email: string, verifier: { challenge: string }, resource = base): Promise<string> {
    const browser = new TestBrowser();
    const consent = await toConsent(browser, email, verifier.challenge, resource);
    expect(consent.status).toBe(200);
    // The page names the app (escaped: a client registers its own name), where it returns and what it may do.
    expect(consent.body).toContain('Assistant &#60;b&#62;&#34;x&#34;&#60;&#47;b&#62;');
    expect(consent.body).not.toContain('<b>"x"');
    expect(consent.body).toContain('127.0.0.1:9');
    expect(consent.body).toContain('service.read');
    expect(consent.body).toContain('no access to any organization');
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(consent.body)![1]!;
    const forged = await browser.request(`${consent.url}/consent`, { form: { decision: 'approve' } });
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('csrf_failed');
    const hops = [
      await browser.request(`${consent.url}/consent`, { form: { csrf_token: csrf, decision: 'approve' } }),
    ];
    while (hops.at(-1)!.location && !hops.at(-1)!.location!.startsWith(REDIRECT_URI)) {
      hops.push(await browser.request(hops.at(-1)!.location!));
    }
    if (!hops.at(-1)!.location)
      throw new Error(hops.map((hop) => `${hop.status} ${hop.url} ${hop.body.slice(0, 400)}`).join('\n'));
    const back = new URL(hops.at(-1)!.location!);
    expect(back.searchParams.get('state')).toBe('state-1');
    return back.searchParams.get('code')!;
  }

  async function token(
    form: Record<string, string>,
  ): Promise<{ status: number; json: Record<string, unknown> }> {
    const response = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, ...form }).toString(),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  const exchange = (code: string, verifier: string, resource = base) =>
    token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      resource,
    });

  async function search(accessToken: string): Promise<{ status: number; code?: string }> {
    const response = await fetch(`${base}/api/v2/common/data/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ raw_query: 'port:443', stream: false }),
    });
    const body = (await response.json()) as { code?: string };
    return { status: response.status, ...(body.code ? { code: body.code } : {}) };
  }

  async function signedIn(email: string): Promise<{ cookie: string; csrf: string }> {
    const response = await fetch(`${base}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    const cookies = response.headers.getSetCookie().map((header) => header.split(';')[0]!);
    const csrf = cookies.find((cookie) => cookie.startsWith(`${CSRF_COOKIE}=`))!.split('=')[1]!;
    return { cookie: cookies.join('; '), csrf };
  }

  it('serves the metadata of the authorization server (RFC 8414) and of the protected resources (RFC 9728)', async () => {
    const metadata = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.issuer).toBe(base);
    expect(metadata.token_endpoint).toBe(`${base}/oauth/token`);
    expect(metadata.registration_endpoint).toBe(`${base}/oauth/register`);
    expect(metadata.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(['none']);
    const resource = (await (
      await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)
    ).json()) as Record<string, unknown>;
    expect(resource).toMatchObject({
      resource: `${base}/mcp`,
      authorization_servers: [base],
      scopes_supported: ['service.read'],
      bearer_methods_supported: ['header'],
    });
  });

  it('issues a token through sign-in and consent that works on the personal API; refresh rotates, a reused refresh token revokes the grant', async () => {
    const { accountId, email } = await register('professional');
    const { verifier, challenge } = pkce();
    const code = await authorize(email, { challenge });
    const issued = await exchange(code, verifier);
    expect(issued).toMatchObject({ status: 200 });
    const tokens = issued.json as unknown as Tokens;
    expect(tokens.scope).toBe('service.read');
    const claims = claimsOf(tokens.access_token);
    expect(claims).toMatchObject({
      iss: base,
      aud: base,
      sub: accountId,
      client_id: clientId,
      client: 'api',
    });
    expect(await search(tokens.access_token)).toEqual({ status: 200 });

    // The code is spent: a second exchange is refused, and the grant goes with it (RFC 9700).
    const again = await exchange(code, verifier);
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
    expect(await search(tokens.access_token)).toEqual({ status: 401, code: 'token_revoked' });

    // A new authorization: refresh rotates; presenting the old refresh token again revokes everything.
    const second = pkce();
    const fresh = (await exchange(await authorize(email, second), second.verifier)).json as unknown as Tokens;
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: fresh.refresh_token });
    expect(rotated.status).toBe(200);
    const next = rotated.json as unknown as Tokens;
    expect(next.refresh_token).not.toBe(fresh.refresh_token);
    expect(await search(next.access_token)).toEqual({ status: 200 });
    const reused = await token({ grant_type: 'refresh_token', refresh_token: fresh.refresh_token });
    expect(reused.json.error).toBe('invalid_grant');
    expect(await search(next.access_token)).toEqual({ status: 401, code: 'token_revoked' });
    expect((await token({ grant_type: 'refresh_token', refresh_token: next.refresh_token })).json.error).toBe(
      'invalid_grant',
    );

    // The grant's events: attributed to the account through the client, never a token or code.
    const grantId = claimsOf(next.access_token).jti as string;
    const events = await service.context.storage.eventStore.readAll({ after: null, limit: 100_000 });
    const grantEvents = events.filter((event) => event.streamId.startsWith('oauth-grant-'));
    const types = grantEvents.map((event) => event.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'OAuthAppAuthorized',
        'AccessTokenIssued',
        'OAuthGrantReuseDetected',
        'OAuthGrantRevoked',
      ]),
    );
    const consent = grantEvents.find((event) => event.type === 'OAuthAppAuthorized')!;
    expect(consent.metadata).toMatchObject({
      actor: `account:${accountId}`,
      payer: `account:${accountId}`,
      credential: `oauth_client:${clientId}`,
      surface: 'session',
    });
    const refreshed = grantEvents.find(
      (event) =>
        event.type === 'AccessTokenIssued' &&
        (event.data as { grantType?: string }).grantType === 'refresh_token',
    )!;
    expect(refreshed.metadata).toMatchObject({ credential: `oauth_client:${clientId}`, surface: 'api' });
    expect(refreshed.metadata.correlationId).toBeTruthy();
    const logged = JSON.stringify(grantEvents);
    for (const secret of [
      tokens.access_token,
      tokens.refresh_token,
      fresh.refresh_token,
      next.refresh_token,
      code,
    ]) {
      expect(logged).not.toContain(secret);
    }
    expect(grantId).toBeTruthy();
    expect(oauthGrantStreamId('x')).toBe('oauth-grant-x');
  }, 60_000);

  it('refuses a wrong PKCE verifier, another resource, a Free account and an expired token', async () => {
    const { email } = await register('professional');
    const first = pkce();
    const code = await authorize(email, first);
    const wrong = await exchange(code, pkce().verifier);
    expect(wrong.json.error).toBe('invalid_grant');

    // RFC 8707: the authorization request for another resource is refused before any page.
    const elsewhere = await new TestBrowser().request(
      authorizeUrl(first.challenge, 'https://elsewhere.example/api'),
    );
    expect(elsewhere.location ?? '').toContain('error=invalid_target');
    const other = pkce();
    const otherCode = await authorize(email, other);
    const otherResource = await exchange(otherCode, other.verifier, 'https://elsewhere.example/api');
    expect(otherResource.json.error).toBe('invalid_target');

    // A Free account holding only its monthly allocation: a clear page at consent, and no token.
    const free = await register('free');
    const browser = new TestBrowser();
    const refused = await toConsent(browser, free.email, pkce().challenge);
    expect(refused.status).toBe(402);
    expect(refused.body).toContain('purchased credit balance above zero');
    expect(refused.body).not.toContain('value="approve"');

    // At the token endpoint too: an account back on Free with no purchased credits gets an OAuth error.
    const downgraded = await register('professional');
    const late = pkce();
    const lateTokens = (await exchange(await authorize(downgraded.email, late), late.verifier))
      .json as unknown as Tokens;
    await service.app.get(CommandBus).execute(new ChangePlan(downgraded.accountId, 'free', operator()));
    const refusedRefresh = await token({
      grant_type: 'refresh_token',
      refresh_token: lateTokens.refresh_token,
    });
    expect(refusedRefresh.status).toBe(400);
    expect(refusedRefresh.json.error).toBe('invalid_grant');
    expect(String(refusedRefresh.json.error_description)).toContain('purchased credit balance above zero');

    // The MCP resource is one of ours; its token (one hour) is refused two hours later on the service's clock.
    const mcp = pkce();
    const mcpTokens = (
      await exchange(await authorize(email, mcp, `${base}/mcp`), mcp.verifier, `${base}/mcp`)
    ).json as unknown as Tokens;
    expect(claimsOf(mcpTokens.access_token).aud).toBe(`${base}/mcp`);
    expect(await search(mcpTokens.access_token)).toEqual({ status: 200 });
    clock.advance(2 * 3600 * 1000);
    try {
      expect(await search(mcpTokens.access_token)).toEqual({ status: 401, code: 'unauthenticated' });
    } finally {
      clock.advance(-2 * 3600 * 1000);
    }
  }, 60_000);

  it('revokes through RFC 7009 and through the authorized apps list', async () => {
    const { email } = await register('professional');
    const one = pkce();
    const tokens = (await exchange(await authorize(email, one), one.verifier)).json as unknown as Tokens;
    expect(await search(tokens.access_token)).toEqual({ status: 200 });
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: clientId, token: tokens.refresh_token }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect(await search(tokens.access_token)).toEqual({ status: 401, code: 'token_revoked' });

    const two = pkce();
    const kept = (await exchange(await authorize(email, two), two.verifier)).json as unknown as Tokens;
    const session = await signedIn(email);
    const listed = await fetch(`${base}/api/v2/auth/apps`, { headers: { cookie: session.cookie } });
    const apps = (await listed.json()) as Array<{ client_id: string; client_name: string }>;
    expect(apps).toEqual([
      expect.objectContaining({ client_id: clientId, client_name: 'Assistant <b>"x"</b>' }),
    ]);
    const withoutCsrf = await fetch(`${base}/api/v2/auth/apps/${clientId}`, {
      method: 'DELETE',
      headers: { cookie: session.cookie },
    });
    expect(withoutCsrf.status).toBe(403);
    const deleted = await fetch(`${base}/api/v2/auth/apps/${clientId}`, {
      method: 'DELETE',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(deleted.status).toBe(204);
    expect(await search(kept.access_token)).toEqual({ status: 401, code: 'token_revoked' });
    expect((await token({ grant_type: 'refresh_token', refresh_token: kept.refresh_token })).json.error).toBe(
      'invalid_grant',
    );
    const after = await fetch(`${base}/api/v2/auth/apps`, { headers: { cookie: session.cookie } });
    expect(await after.json()).toEqual([]);
    const unknown = await fetch(`${base}/api/v2/auth/apps/${clientId}`, {
      method: 'DELETE',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf },
    });
    expect(unknown.status).toBe(404);
  }, 60_000);
});
