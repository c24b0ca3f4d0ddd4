/**
 * Browser sign-in and what a session manages: login and its failures, session renewal at login, logout, the
 * login rate limit, personal API keys and access tokens created from a session, and service_credits on session
 * responses. The real service in-process, on a clock the tests move.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { LightMyRequestResponse } from 'fastify';
import {
  CreateAccessToken,
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
} from '../../src/accounts/commands/account.commands.js';
import { accountDecider, accountStreamId } from '../../src/accounts/domain/account.js';
import type { PlanId } from '../../src/accounts/domain/plans.js';
import { AccessTokens } from '../../src/platform/auth/access-tokens.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'sessions-password-0123456789';
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

interface Account {
  readonly email: string;
  readonly accountId: string;
}

interface Session {
  readonly sessionId: string;
  readonly csrf: string;
}

describe('browser sessions, keys and tokens', () => {
  let service: TestService;
  const clock = new ManualClock(new Date());
  let emailCounter = 0;

  beforeAll(async () => {
    service = await startTestService('pglite', { clock });
    await waitUntil(() => service.context.projections.allLive());
  });

  afterAll(async () => {
    await service?.dispose();
  });

  const uniqueEmail = (label: string) => `${label}-${++emailCounter}-${Date.now().toString(36)}@example.com`;

  async function register(label: string, plan: PlanId = 'professional'): Promise<Account> {
    const email = uniqueEmail(label);
    const { accountId } = await service.app
      .get(CommandBus)
      .execute(new RegisterAccount(email, plan, PASSWORD, operator()));
    return { email, accountId };
  }

  function loginRequest(
    email: string,
    password = PASSWORD,
    cookie?: string,
  ): Promise<LightMyRequestResponse> {
    return service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { email, password },
      ...(cookie ? { headers: { cookie } } : {}),
    });
  }

  async function login(account: Account, cookie?: string): Promise<Session> {
    const response = await loginRequest(account.email, PASSWORD, cookie);
    expect(response.statusCode).toBe(200);
    return { sessionId: cookieValue(response, SESSION_COOKIE), csrf: cookieValue(response, CSRF_COOKIE) };
  }

  /** The headers a browser sends for this session: both cookies, and the CSRF header when `csrf`. */
  const browser = (session: Session, csrf = true): Record<string, string> => ({
    cookie: `${SESSION_COOKIE}=${session.sessionId}; ${CSRF_COOKIE}=${session.csrf}`,
    ...(csrf ? { 'x-csrf-token': session.csrf } : {}),
  });

  const credits = (session: Session) =>
    service.app.inject({ method: 'GET', url: '/api/v2/auth/credits', headers: browser(session, false) });

  const personalCredits = (headers: Record<string, string>) =>
    service.app.inject({ method: 'GET', url: '/api/v2/common/credits', headers });

  describe('login', () => {
    it('a wrong password and an unknown email are the same 401 unauthenticated, without cookies', async () => {
      const account = await register('wrong-password');
      const wrong = await loginRequest(account.email, 'not-the-password-at-all');
      const unknown = await loginRequest(uniqueEmail('nobody'), PASSWORD);
      for (const response of [wrong, unknown]) {
        expect(response.statusCode).toBe(401);
        expect(response.headers['set-cookie']).toBeUndefined();
      }
      const { request_id: _wrongId, ...wrongBody } = wrong.json() as Record<string, unknown>;
      const { request_id: _unknownId, ...unknownBody } = unknown.json() as Record<string, unknown>;
      expect(wrongBody).toMatchObject({ code: 'unauthenticated' });
      expect(unknownBody).toEqual(wrongBody);
    });

    it('creates a new session id at every login and revokes the session the browser brought', async () => {
      const account = await register('renewal');
      const first = await login(account);
      const second = await login(account);
      expect(second.sessionId).not.toBe(first.sessionId);
      expect(second.csrf).not.toBe(first.csrf);
      // Without a cookie, an earlier session of the same account is left alone (another device).
      expect((await credits(first)).statusCode).toBe(200);

      const third = await login(
        account,
        `${SESSION_COOKIE}=${first.sessionId}; ${CSRF_COOKIE}=${first.csrf}`,
      );
      expect([first.sessionId, second.sessionId]).not.toContain(third.sessionId);
      const revoked = await credits(first);
      expect(revoked.statusCode).toBe(401);
      expect(revoked.json()).toMatchObject({ code: 'unauthenticated' });
      expect((await credits(third)).statusCode).toBe(200);
      expect((await credits(second)).statusCode).toBe(200);
    });

    it('limits attempts per email: the 11th within the window is 429 rate_limited with an integer Retry-After', async () => {
      const account = await register('limited');
      const bystander = await register('bystander');
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        const response = await loginRequest(account.email, `wrong-password-number-${attempt}`);
        expect(response.statusCode).toBe(401);
      }
      // The right password, with the email spelled differently: the same email, the same limit.
      const limited = await loginRequest(account.email.toUpperCase(), PASSWORD);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: 'rate_limited' });
      expect(limited.headers['set-cookie']).toBeUndefined();
      const retryAfter = String(limited.headers['retry-after']);
      expect(retryAfter).toMatch(/^[1-9]\d*$/);
      expect(Number(retryAfter)).toBeLessThanOrEqual(15 * 60);

      // Another email is not affected.
      expect((await loginRequest(bystander.email)).statusCode).toBe(200);
      // Once Retry-After has passed, one more attempt is admitted.
      clock.advance(Number(retryAfter) * 1000);
      expect((await loginRequest(account.email)).statusCode).toBe(200);
    });
  });

  describe('password hashes of older parameters', () => {
    it('a hash below the configured cost signs in and is replaced by one at today’s parameters, once', async () => {
      const account = await register('rehash');
      // The configured cost is OWASP's 2^17 in production (PASSWORD_HASH_COST lowers it for the suites).
      const cost = service.context.config.passwordHashCost;
      const formerCost = cost / 2;
      const salt = randomBytes(16);
      const key = scryptSync(PASSWORD, salt, 64, { N: formerCost, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
      const former = `scrypt$${formerCost}$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
      const stream = accountStreamId(account.accountId);
      // The account as a 2025 sign-up left it: its password hash made with the former parameters.
      const formerCredential = {
        id: `password-former-${account.accountId}`,
        kind: 'password',
        subject: `account:${account.accountId}`,
        material: former,
        createdAt: clock.now().toISOString(),
      };
      await service.context.writer.decide({
        stream,
        decider: accountDecider,
        command: { type: 'ReplacePasswordHash', credentialId: formerCredential.id },
        context: { now: clock.now() },
        envelope: operator(),
        alongside: (within) => service.context.credentials.put(formerCredential, within),
        readYourWrites: ['accounts'],
      });

      // A token issued before the rehash: the password did not change, so it keeps working (ADR 75).
      const token = await service.app
        .get(CommandBus)
        .execute(new CreateAccessToken(account.accountId, ['service.read'], 'api', 3600, operator()));
      clock.advance(1_000);

      await login(account);
      expect((await personalCredits({ authorization: `Bearer ${token.token}` })).statusCode).toBe(200);
      const upgraded = await service.context.writer.load(stream, accountDecider);
      expect(upgraded.state.passwordCredentialId).not.toBe(formerCredential.id);
      const current = await service.context.credentials.get(upgraded.state.passwordCredentialId!);
      expect(current?.material.startsWith(`scrypt$${cost}$8$1$`)).toBe(true);
      const events = await service.context.storage.eventStore.readStream(stream);
      expect(events.map((event) => event.type)).not.toContain('AccessTokensInvalidated');
      expect(events.at(-1)).toMatchObject({
        type: 'PasswordSet',
        metadata: { actor: `account:${account.accountId}`, payer: `account:${account.accountId}` },
      });

      // The new hash signs in too, and is current: nothing more is appended.
      expect((await loginRequest(account.email)).statusCode).toBe(200);
      expect((await service.context.storage.eventStore.readStream(stream)).length).toBe(events.length);
    });
  });

  describe('logout', () => {
    it('needs the CSRF token, ends the session server-side and clears both cookies', async () => {
      const session = await login(await register('logout'));

      const withoutCsrf = await service.app.inject({
        method: 'POST',
        url: '/api/v2/auth/logout',
        headers: browser(session, false),
      });
      expect(withoutCsrf.statusCode).toBe(403);
      expect(withoutCsrf.json()).toMatchObject({ code: 'csrf_failed' });
      expect((await credits(session)).statusCode).toBe(200);

      const logout = await service.app.inject({
        method: 'POST',
        url: '/api/v2/auth/logout',
        headers: browser(session),
      });
      expect(logout.statusCode).toBe(204);
      expect(logout.body).toBe('');
      const cleared = setCookies(logout).map(parseSetCookie);
      expect(cleared.map((cookie) => cookie.name).sort()).toEqual([CSRF_COOKIE, SESSION_COOKIE].sort());
      for (const cookie of cleared) {
        expect(cookie.value).toBe('');
        // The same Path/Secure as when set, or the browser would keep the original cookie.
        expect(cookie.attributes).toMatchObject({
          'max-age': '0',
          path: '/',
          secure: true,
          samesite: 'Strict',
        });
        expect(cookie.attributes).not.toHaveProperty('domain');
      }

      const after = await credits(session);
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ code: 'unauthenticated' });
      const again = await service.app.inject({
        method: 'POST',
        url: '/api/v2/auth/logout',
        headers: browser(session),
      });
      expect(again.statusCode).toBe(401);
    });
  });

  describe('personal API keys', () => {
    it('a key issued from the session works at once, and stops working as soon as it is revoked', async () => {
      const session = await login(await register('keys'));
      const issued = await service.app.inject({
        method: 'POST',
        url: '/api/v2/auth/keys',
        headers: browser(session),
        payload: { label: 'ci runner' },
      });
      expect(issued.statusCode).toBe(201);
      const key = issued.json() as {
        id: string;
        prefix: string;
        key: string;
        label: string;
        revoked_at: null;
      };
      expect(key).toMatchObject({ label: 'ci runner', revoked_at: null, prefix: `exr_${key.id}` });
      expect(key.key.startsWith(`${key.prefix}_`)).toBe(true);

      const before = await personalCredits({ 'x-api-key': key.key });
      expect(before.statusCode).toBe(200);
      expect((await personalCredits({ authorization: `Bearer ${key.key}` })).statusCode).toBe(200);

      const listed = await service.app.inject({
        method: 'GET',
        url: '/api/v2/auth/keys',
        headers: browser(session),
      });
      expect(listed.statusCode).toBe(200);
      expect(listed.json()).toEqual([
        expect.objectContaining({ id: key.id, prefix: key.prefix, revoked_at: null }),
      ]);
      expect(listed.body).not.toContain(key.key.slice(key.prefix.length + 1)); // never the secret again

      const revoked = await service.app.inject({
        method: 'DELETE',
        url: `/api/v2/auth/keys/${key.id}`,
        headers: browser(session),
      });
      expect(revoked.statusCode).toBe(204);
      expect(revoked.body).toBe('');
      const after = await personalCredits({ 'x-api-key': key.key });
      expect(after.statusCode).toBe(401);
      expect(after.json()).toMatchObject({ code: 'unauthenticated' });

      const relisted = await service.app.inject({
        method: 'GET',
        url: '/api/v2/auth/keys',
        headers: browser(session),
      });
      expect(relisted.json()).toEqual([
        expect.objectContaining({ id: key.id, revoked_at: expect.any(String) }),
      ]);
    });

    it('another account’s key id is 404 not_found, like an unknown one, and that key keeps working', async () => {
      const session = await login(await register('keys-owner'));
      const stranger = await register('keys-stranger');
      const strangerKey = await service.app
        .get(CommandBus)
        .execute(new IssueApiKey(stranger.accountId, 'theirs', operator()));

      const foreign = await service.app.inject({
        method: 'DELETE',
        url: `/api/v2/auth/keys/${strangerKey.keyId}`,
        headers: browser(session),
      });
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toMatchObject({ code: 'not_found' });
      const unknown = await service.app.inject({
        method: 'DELETE',
        url: '/api/v2/auth/keys/aaaaaaaaaaaa',
        headers: browser(session),
      });
      expect(unknown.statusCode).toBe(404);
      expect((unknown.json() as { message: string }).message).toBe(
        (foreign.json() as { message: string }).message,
      );

      expect((await personalCredits({ 'x-api-key': strangerKey.key })).statusCode).toBe(200);
    });
  });

  describe('access tokens', () => {
    it('a Free account holding only its monthly allocation is refused; after a purchase it gets working tokens', async () => {
      const account = await register('free', 'free');
      const session = await login(account);
      const createToken = (body: Record<string, unknown>) =>
        service.app.inject({
          method: 'POST',
          url: '/api/v2/auth/tokens',
          headers: browser(session),
          payload: body,
        });

      const refused = await createToken({});
      expect(refused.statusCode).toBe(402);
      expect(refused.json()).toMatchObject({ code: 'entitlement_required' });

      await service.app.get(CommandBus).execute(new PurchaseCredits(account.accountId, 100, operator()));

      const created = await createToken({});
      expect(created.statusCode).toBe(201);
      const token = created.json() as Record<string, unknown>;
      expect(token).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'service.read' });
      const accepted = await personalCredits({ authorization: `Bearer ${String(token.access_token)}` });
      expect(accepted.statusCode).toBe(200);
      expect(accepted.json()).toMatchObject({ purchased_credits: 100 });

      const mcp = await createToken({ client: 'mcp' });
      expect(mcp.statusCode).toBe(201);
      const mcpToken = String((mcp.json() as { access_token: string }).access_token);
      expect((await service.app.get(AccessTokens).verify(mcpToken))?.client).toBe('mcp');
      expect((await personalCredits({ authorization: `Bearer ${mcpToken}` })).statusCode).toBe(200);
    });
  });

  describe('service_credits on session responses', () => {
    it('object responses on session routes carry it; arrays, public and personal API responses do not', async () => {
      const account = await register('service-credits');
      const loginResponse = await loginRequest(account.email);
      expect(loginResponse.statusCode).toBe(200);
      expect(loginResponse.json()).not.toHaveProperty('service_credits');
      const session = {
        sessionId: cookieValue(loginResponse, SESSION_COOKIE),
        csrf: cookieValue(loginResponse, CSRF_COOKIE),
      };

      const state = await credits(session);
      expect(state.statusCode).toBe(200);
      expect(state.json()).toMatchObject({ service_credits: { charged: 0, available: 5000 } });
      const usage = await service.app.inject({
        method: 'GET',
        url: '/api/v2/auth/credits/usage',
        headers: browser(session, false),
      });
      expect(usage.json()).toHaveProperty('service_credits');

      const keys = await service.app.inject({
        method: 'GET',
        url: '/api/v2/auth/keys',
        headers: browser(session),
      });
      expect(keys.statusCode).toBe(200);
      expect(Array.isArray(keys.json())).toBe(true);
      expect(keys.body).not.toContain('service_credits');

      const issued = await service.app
        .get(CommandBus)
        .execute(new IssueApiKey(account.accountId, 'script', operator()));
      const personal = await personalCredits({ 'x-api-key': issued.key });
      expect(personal.statusCode).toBe(200);
      expect(personal.json()).not.toHaveProperty('service_credits');
    });
  });
});

function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

function cookieValue(response: LightMyRequestResponse, name: string): string {
  const cookie = setCookies(response)
    .map(parseSetCookie)
    .find((candidate) => candidate.name === name);
  if (!cookie) throw new Error(`no ${name} cookie in ${JSON.stringify(setCookies(response))}`);
  return cookie.value;
}

/** `name=value; Attr; Attr=value`: attribute names lower-cased, flag attributes as `true`. */
function parseSetCookie(header: string): {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
} {
  const [pair = '', ...rest] = header.split(';');
  const separator = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const at = trimmed.indexOf('=');
    attributes[(at === -1 ? trimmed : trimmed.slice(0, at)).trim().toLowerCase()] =
      at === -1 ? true : trimmed.slice(at + 1).trim();
  }
  return { name: pair.slice(0, separator).trim(), value: pair.slice(separator + 1).trim(), attributes };
}
