/**
 * Access token revocation (ADR 74, 75) over real HTTP, on PGlite and on the PostgreSQL server: tokens issued from
 * a session are listed (never the token), used, revoked, and refused from the moment the revocation answered
 * (on the server, on a second service instance sharing the database too); another account's token and an unknown
 * one are 404; expired tokens are not listed; the revocation is an event naming the account, the session, the
 * surface and the request, without the token; a password change refuses every token issued before it; the read
 * models equal a rebuild.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RegisterAccount, SetPassword } from '../../src/accounts/commands/account.commands.js';
import { accessStreamId } from '../../src/accounts/domain/account-access.js';
import { accountStreamId } from '../../src/accounts/domain/account.js';
import { AppModule } from '../../src/app.module.js';
import { serviceComposition } from '../../src/composition/service-composition.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { sessionReference } from '../../src/platform/auth/credential-reference.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import { createHttpApp } from '../../src/platform/http/create-http-app.js';
import { ServiceContext } from '../../src/platform/service-context.js';
import { SQL_KINDS } from '../support/databases.js';
import { expectOneEventBatchesToRebuildLiveDocuments } from '../support/one-event-batches.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'revocation-password-0123456789';
const NEW_PASSWORD = 'revocation-new-password-9876543210';
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

interface Browser {
  readonly sessionId: string;
  readonly csrf: string;
}

interface TokenSummary {
  readonly id: string;
  readonly client: string;
  readonly scopes: string[];
  readonly issued_at: string;
  readonly expires_at: string;
  readonly revoked_at: string | null;
}

/** The token id is the JWT's jti (the list shows ids, never tokens). */
const tokenIdOf = (token: string): string =>
  (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string }).jti;

/** A second service instance on the same database: its own storage pools, projections and HTTP server. */
interface Instance {
  readonly context: ServiceContext;
  readonly app: NestFastifyApplication;
  readonly base: string;
  readonly dataDir: string;
}

async function listening(app: NestFastifyApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
}

describe.each(SQL_KINDS)('access token revocation (%s)', (kind) => {
  const clock = new ManualClock(new Date());
  let service: TestService;
  let base: string;
  let second: Instance | undefined;
  let counter = 0;

  beforeAll(async () => {
    service = await startTestService(kind, { clock });
    await waitUntil(() => service.context.projections.allLive());
    base = await listening(service.app);
    if (kind === 'postgres') {
      // Another instance sharing the database and the service's keys (as instances behind one load balancer do).
      const dataDir = mkdtempSync(join(tmpdir(), 'second-instance-'));
      cpSync(join(service.dataDir, 'keys'), join(dataDir, 'keys'), { recursive: true });
      const context = await ServiceContext.open(
        loadConfig({
          DATABASE_URL: service.database!.url!,
          DATA_DIR: dataDir,
          LOG_LEVEL: 'silent',
          SEED_DEMO: 'false',
          ...(process.env.PASSWORD_HASH_COST ? { PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST } : {}),
        }),
        { ...serviceComposition, pollIntervalMs: 20, clock },
      );
      await context.projections.start();
      const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
      second = { context, app, base: await listening(app), dataDir };
    }
  }, 120_000);

  afterAll(async () => {
    if (second) {
      await second.app.close();
      await second.context.close();
      rmSync(second.dataDir, { recursive: true, force: true });
    }
    await service?.dispose();
  });

  async function register(label: string): Promise<{ accountId: string; email: string }> {
    const email = `${label}-${++counter}-${Date.now().toString(36)}@revocation.example`;
    const { accountId } = await service.app
      .get(CommandBus)
      .execute(new RegisterAccount(email, 'professional', PASSWORD, operator()));
    return { accountId, email };
  }

  async function signIn(email: string, password = PASSWORD): Promise<Browser> {
    const response = await fetch(`${base}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(response.status).toBe(200);
    const cookies = new Map(
      response.headers.getSetCookie().map((header) => {
        const [pair = ''] = header.split(';');
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)] as const;
      }),
    );
    return { sessionId: cookies.get(SESSION_COOKIE)!, csrf: cookies.get(CSRF_COOKIE)! };
  }

  /** A session request over HTTP: both cookies, the CSRF header on unsafe methods unless `csrf` is false. */
  async function call(
    browser: Browser,
    method: string,
    path: string,
    options: { body?: unknown; csrf?: boolean; requestId?: string; at?: string } = {},
  ): Promise<{ status: number; body: string; json: unknown }> {
    const headers: Record<string, string> = {
      cookie: `${SESSION_COOKIE}=${browser.sessionId}; ${CSRF_COOKIE}=${browser.csrf}`,
    };
    if (method !== 'GET' && options.csrf !== false) headers['x-csrf-token'] = browser.csrf;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.requestId) headers['x-request-id'] = options.requestId;
    const response = await fetch(`${options.at ?? base}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const body = await response.text();
    return { status: response.status, body, json: body ? (JSON.parse(body) as unknown) : null };
  }

  async function createToken(browser: Browser, body: Record<string, unknown> = {}): Promise<string> {
    const created = await call(browser, 'POST', '/api/v2/auth/tokens', { body });
    expect(created.status).toBe(201);
    return (created.json as { access_token: string }).access_token;
  }

  /** A personal API request with the token, on this service or another instance. */
  async function personal(token: string, at = base): Promise<{ status: number; code?: string }> {
    const response = await fetch(`${at}/api/v2/common/credits`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { code?: string };
    return { status: response.status, ...(body.code ? { code: body.code } : {}) };
  }

  const list = async (browser: Browser): Promise<TokenSummary[]> => {
    const listed = await call(browser, 'GET', '/api/v2/auth/tokens');
    expect(listed.status).toBe(200);
    return listed.json as TokenSummary[];
  };

  const accessEvents = (accountId: string): Promise<RecordedEvent[]> =>
    service.context.storage.eventStore.readStream(accessStreamId(accountId));

  it('issue, list, use, revoke: refused from the moment the revocation answers, everywhere; the event names the session, never the token', async () => {
    const owner = await register('owner');
    const browser = await signIn(owner.email);
    const apiToken = await createToken(browser);
    clock.advance(1_000); // newest first, by issuance second
    const mcpToken = await createToken(browser, { client: 'mcp', scopes: ['service.read'] });
    const apiTokenId = tokenIdOf(apiToken);
    const mcpTokenId = tokenIdOf(mcpToken);

    const listed = await list(browser);
    expect(listed).toEqual([
      {
        id: mcpTokenId,
        client: 'mcp',
        scopes: ['service.read'],
        issued_at: expect.any(String),
        expires_at: expect.any(String),
        revoked_at: null,
      },
      {
        id: apiTokenId,
        client: 'api',
        scopes: ['service.read'],
        issued_at: expect.any(String),
        expires_at: expect.any(String),
        revoked_at: null,
      },
    ]);
    // issued_at has milliseconds; expiry is the exp claim, whole seconds from iat's second.
    const issuedSecond = Math.floor(Date.parse(listed[1]!.issued_at) / 1000) * 1000;
    expect(Date.parse(listed[1]!.expires_at) - issuedSecond).toBe(3600 * 1000);
    const listedText = JSON.stringify(listed);
    for (const token of [apiToken, mcpToken]) expect(listedText).not.toContain(token.split('.')[2]);

    expect(await personal(apiToken)).toEqual({ status: 200 });
    if (second) expect(await personal(apiToken, second.base)).toEqual({ status: 200 });

    // An unsafe session method without the CSRF token is refused, and decides nothing.
    const eventsBefore = (await accessEvents(owner.accountId)).length;
    const withoutCsrf = await call(browser, 'DELETE', `/api/v2/auth/tokens/${apiTokenId}`, { csrf: false });
    expect(withoutCsrf.status).toBe(403);
    expect(withoutCsrf.json).toMatchObject({ code: 'csrf_failed' });
    expect(await accessEvents(owner.accountId)).toHaveLength(eventsBefore);
    expect(await personal(apiToken)).toEqual({ status: 200 });

    const revoked = await call(browser, 'DELETE', `/api/v2/auth/tokens/${apiTokenId}`, {
      requestId: `req-revoke-${kind}`,
    });
    expect(revoked).toMatchObject({ status: 204, body: '' });
    // No wait of any kind: the answer is the moment.
    expect(await personal(apiToken)).toEqual({ status: 401, code: 'token_revoked' });
    if (second) expect(await personal(apiToken, second.base)).toEqual({ status: 401, code: 'token_revoked' });
    expect(await personal(mcpToken)).toEqual({ status: 200 });

    // Again: 204, and nothing more in the log.
    expect((await call(browser, 'DELETE', `/api/v2/auth/tokens/${apiTokenId}`)).status).toBe(204);
    const events = await accessEvents(owner.accountId);
    const revocations = events.filter((event) => event.type === 'AccessTokenRevoked');
    expect(revocations).toHaveLength(1);
    const [revocation] = revocations;
    expect(revocation).toMatchObject({
      type: 'AccessTokenRevoked',
      data: { accountId: owner.accountId, tokenId: apiTokenId, at: expect.any(String) },
      metadata: {
        actor: `account:${owner.accountId}`,
        payer: `account:${owner.accountId}`,
        credential: `session:${sessionReference(browser.sessionId)}`,
        surface: 'session',
        requestId: `req-revoke-${kind}`,
        correlationId: `req-revoke-${kind}`,
      },
    });
    expect(Object.keys(revocation!.data as object).sort()).toEqual(['accountId', 'at', 'tokenId']);
    const logText = JSON.stringify(events);
    for (const secret of [apiToken, apiToken.split('.')[2]!, mcpToken, browser.sessionId, PASSWORD]) {
      expect(logText).not.toContain(secret);
    }

    const relisted = await list(browser);
    expect(relisted.find((token) => token.id === apiTokenId)?.revoked_at).toBe(
      (revocation!.data as { at: string }).at,
    );
    expect(relisted.find((token) => token.id === mcpTokenId)?.revoked_at).toBeNull();

    if (second) {
      // Revoked through the other instance: refused on this one at once.
      const otherBrowser = await signIn(owner.email);
      const viaSecond = await call(otherBrowser, 'DELETE', `/api/v2/auth/tokens/${mcpTokenId}`, {
        at: second.base,
      });
      expect(viaSecond.status).toBe(204);
      expect(await personal(mcpToken)).toEqual({ status: 401, code: 'token_revoked' });
      expect(await personal(mcpToken, second.base)).toEqual({ status: 401, code: 'token_revoked' });
    }
  });

  it("another account's token and an unknown one are the same 404 not_found, and decide nothing", async () => {
    const owner = await register('holder');
    const stranger = await register('stranger');
    const ownerBrowser = await signIn(owner.email);
    const strangerBrowser = await signIn(stranger.email);
    const token = await createToken(ownerBrowser);
    const tokenId = tokenIdOf(token);
    const strangerEvents = (await accessEvents(stranger.accountId)).length;
    const ownerEvents = (await accessEvents(owner.accountId)).length;

    const foreign = await call(strangerBrowser, 'DELETE', `/api/v2/auth/tokens/${tokenId}`);
    const unknown = await call(
      strangerBrowser,
      'DELETE',
      '/api/v2/auth/tokens/00000000-0000-4000-8000-000000000000',
    );
    const garbage = await call(
      strangerBrowser,
      'DELETE',
      `/api/v2/auth/tokens/${encodeURIComponent('__proto__')}`,
    );
    for (const refused of [foreign, unknown, garbage]) {
      expect(refused.status).toBe(404);
      expect(refused.json).toMatchObject({ code: 'not_found', message: 'no such access token' });
    }
    expect(await list(strangerBrowser)).toEqual([]);
    expect(await accessEvents(stranger.accountId)).toHaveLength(strangerEvents);
    expect(await accessEvents(owner.accountId)).toHaveLength(ownerEvents);
    expect(await personal(token)).toEqual({ status: 200 });
  });

  it('expired tokens are not listed, and cannot be revoked any more', async () => {
    const owner = await register('expiry');
    const browser = await signIn(owner.email);
    const short = await createToken(browser, { expires_in: 60 });
    const long = await createToken(browser, { expires_in: 7200 });
    expect((await list(browser)).map((token) => token.id).sort()).toEqual(
      [tokenIdOf(short), tokenIdOf(long)].sort(),
    );
    clock.advance(61_000);
    expect((await list(browser)).map((token) => token.id)).toEqual([tokenIdOf(long)]);
    expect(await personal(short)).toEqual({ status: 401, code: 'unauthenticated' });
    const late = await call(browser, 'DELETE', `/api/v2/auth/tokens/${tokenIdOf(short)}`);
    expect(late.status).toBe(404);
    expect(await personal(long)).toEqual({ status: 200 });
  });

  it('a password change refuses every token issued before it (listed as revoked then); a token issued after works', async () => {
    const owner = await register('password');
    const browser = await signIn(owner.email);
    const before = await createToken(browser);
    const beforeMcp = await createToken(browser, { client: 'mcp' });
    expect(await personal(before)).toEqual({ status: 200 });

    clock.advance(1_000);
    const self = `account:${owner.accountId}` as const;
    await service.app
      .get(CommandBus)
      .execute(new SetPassword(owner.accountId, NEW_PASSWORD, commandEnvelope({ actor: self, payer: self })));
    const changed = (
      await service.context.storage.eventStore.readStream(accountStreamId(owner.accountId))
    ).at(-1);
    expect(changed).toMatchObject({
      type: 'AccessTokensInvalidated',
      data: { issuedBefore: clock.now().toISOString(), cause: 'password_changed' },
      metadata: { actor: self, payer: self },
    });

    for (const token of [before, beforeMcp]) {
      expect(await personal(token)).toEqual({ status: 401, code: 'token_revoked' });
      if (second) expect(await personal(token, second.base)).toEqual({ status: 401, code: 'token_revoked' });
    }
    const listed = await list(browser);
    expect(listed.map((token) => token.revoked_at)).toEqual([
      clock.now().toISOString(),
      clock.now().toISOString(),
    ]);

    // Issuance has milliseconds (iat_ms): a token minted one millisecond after the change, in its second, works.
    clock.advance(1);
    const fresh = await signIn(owner.email, NEW_PASSWORD);
    const after = await createToken(fresh);
    expect(await personal(after)).toEqual({ status: 200 });
    expect((await list(fresh)).find((token) => token.id === tokenIdOf(after))?.revoked_at).toBeNull();
  });

  it('a revocation the read model cannot take yet answers 503 not_ready with Retry-After, never 204; asked again once it can, 204 and refused', async () => {
    const owner = await register('stalled');
    const browser = await signIn(owner.email);
    const token = await createToken(browser);
    const instances = [service.context, ...(second ? [second.context] : [])];
    for (const context of instances) await context.projections.stopProjection('access-tokens');
    try {
      const stalled = await fetch(`${base}/api/v2/auth/tokens/${tokenIdOf(token)}`, {
        method: 'DELETE',
        headers: {
          cookie: `${SESSION_COOKIE}=${browser.sessionId}; ${CSRF_COOKIE}=${browser.csrf}`,
          'x-csrf-token': browser.csrf,
        },
      });
      expect(stalled.status).toBe(503);
      expect(stalled.headers.get('retry-after')).toBe('1');
      expect(await stalled.json()).toMatchObject({ code: 'not_ready' });
      // Recorded all the same: the decision is in the log.
      expect((await accessEvents(owner.accountId)).map((event) => event.type)).toContain(
        'AccessTokenRevoked',
      );
    } finally {
      for (const context of instances) await context.projections.startProjection('access-tokens');
    }
    expect((await call(browser, 'DELETE', `/api/v2/auth/tokens/${tokenIdOf(token)}`)).status).toBe(204);
    expect(await personal(token)).toEqual({ status: 401, code: 'token_revoked' });
    expect(
      (await accessEvents(owner.accountId)).filter((event) => event.type === 'AccessTokenRevoked'),
    ).toHaveLength(1);
  });

  it('the access-tokens and accounts read models equal a rebuild, batch by batch and as `projections verify` does', async () => {
    await waitForProjections(service, ['access-tokens', 'accounts']);
    for (const name of ['access-tokens', 'accounts']) {
      const verdict = await service.context.maintenance.verify(service.context.projections.definition(name));
      expect({ name, equal: verdict.equal, differences: verdict.differences }).toEqual({
        name,
        equal: true,
        differences: [],
      });
      expect(verdict.documentsCompared).toBeGreaterThan(0);
    }
    await expectOneEventBatchesToRebuildLiveDocuments(service);
  });
});
