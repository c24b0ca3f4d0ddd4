import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import {
  accessTokenRevocation,
  AccessTokens,
  looksLikeJwt,
} from '../../../src/platform/auth/access-tokens.js';
import { generateApiKey } from '../../../src/platform/auth/api-keys.js';
import { OAuthIssuers } from '../../../src/platform/auth/oauth-issuers.js';
import { ServiceSecrets } from '../../../src/platform/auth/secrets.js';
import { ManualClock } from '../../../src/platform/clock/clock.js';

describe('AccessTokens', () => {
  let dirs: string[] = [];
  let secrets: ServiceSecrets;
  let foreign: ServiceSecrets;

  beforeAll(async () => {
    dirs = [await mkdtemp(join(tmpdir(), 'tokens-')), await mkdtemp(join(tmpdir(), 'tokens-'))];
    secrets = await ServiceSecrets.load(dirs[0] as string);
    foreign = await ServiceSecrets.load(dirs[1] as string);
  });
  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  /** Signs arbitrary claims with the service key, as a buggy or hostile issuer could. */
  const sign = (claims: Record<string, unknown>, clock: ManualClock, key = secrets, typ = 'at+jwt') => {
    const now = Math.floor(clock.now().getTime() / 1000);
    return new SignJWT({
      iss: 'exposure-research',
      aud: 'exposure-research-api',
      sub: 'acc-1',
      jti: 'tok-1',
      iat: now,
      exp: now + 600,
      scope: 'service.read',
      client: 'api',
      ...claims,
    })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ })
      .sign(key.jwtPrivateKey);
  };

  it('accepts the authorization server tokens for its own resources only, with their client (ADR 106)', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const issuer = 'https://exposure.example';
    const tokens = new AccessTokens(secrets, clock, 'exposure-research', new OAuthIssuers(issuer));
    const oauth = (claims: Record<string, unknown>) =>
      sign({ iss: issuer, aud: issuer, client_id: 'client-1', ...claims }, clock);
    expect(await tokens.verify(await oauth({}))).toMatchObject({ accountId: 'acc-1', clientId: 'client-1' });
    expect(await tokens.verify(await oauth({ aud: `${issuer}/mcp` }))).toMatchObject({
      clientId: 'client-1',
    });
    expect(await tokens.verify(await oauth({ aud: 'https://elsewhere.example' }))).toBeNull();
    expect(await tokens.verify(await oauth({ aud: [issuer, 'https://elsewhere.example'] }))).toBeNull();
    expect(await tokens.verify(await oauth({ aud: 'exposure-research-api' }))).toBeNull();
    expect(
      await tokens.verify(await oauth({ iss: 'https://other.example', aud: 'https://other.example' })),
    ).toBeNull();
    expect(await tokens.verify(await oauth({ client_id: undefined }))).toBeNull();
    // Without PUBLIC_URL only the origins this process served as authorization server are issuers.
    const local = new OAuthIssuers(undefined);
    const unset = new AccessTokens(secrets, clock, 'exposure-research', local);
    expect(await unset.verify(await oauth({}))).toBeNull();
    local.remember(issuer);
    expect(await unset.verify(await oauth({}))).toMatchObject({ clientId: 'client-1' });
    // A session-minted token has no client id.
    const minted = await tokens.issue({ accountId: 'acc-1', scopes: ['service.read'], client: 'api' });
    expect((await tokens.verify(minted.token))?.clientId).toBeUndefined();
  });

  it('issues EdDSA JWTs with the expected claims and verifies them', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const tokens = new AccessTokens(secrets, clock);
    const issued = await tokens.issue({
      accountId: 'acc-1',
      scopes: ['service.read', 'search'],
      client: 'mcp',
    });

    expect(issued.expiresAt.toISOString()).toBe('2026-03-01T11:00:00.000Z');
    expect(decodeProtectedHeader(issued.token)).toEqual({ alg: 'EdDSA', kid: secrets.kid, typ: 'at+jwt' });
    expect(decodeJwt(issued.token)).toEqual({
      iss: 'exposure-research',
      aud: 'exposure-research-api',
      sub: 'acc-1',
      scope: 'service.read search',
      client: 'mcp',
      jti: issued.tokenId,
      iat: Date.parse('2026-03-01T10:00:00Z') / 1000,
      iat_ms: Date.parse('2026-03-01T10:00:00Z'),
      exp: Date.parse('2026-03-01T11:00:00Z') / 1000,
    });
    expect(await tokens.verify(issued.token)).toEqual({
      accountId: 'acc-1',
      scopes: ['service.read', 'search'],
      client: 'mcp',
      tokenId: issued.tokenId,
      issuedAt: new Date('2026-03-01T10:00:00Z'),
      expiresAt: issued.expiresAt,
    });
    const another = await tokens.issue({ accountId: 'acc-1', scopes: ['service.read'], client: 'api' });
    expect(another.tokenId).not.toBe(issued.tokenId);
  });

  it('expires by the injected clock', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const tokens = new AccessTokens(secrets, clock);
    const { token } = await tokens.issue({
      accountId: 'acc-1',
      scopes: ['service.read'],
      client: 'api',
      ttlSeconds: 120,
    });
    clock.advance(119_999);
    expect(await tokens.verify(token)).not.toBeNull();
    clock.advance(1);
    expect(await tokens.verify(token)).toBeNull();
  });

  it('refuses bad lifetimes, scopes, clients and accounts at issue', async () => {
    const tokens = new AccessTokens(secrets, new ManualClock());
    const base = { accountId: 'acc-1', scopes: ['service.read'], client: 'api' as const };
    await expect(tokens.issue({ ...base, ttlSeconds: 86_400 })).resolves.toBeDefined();
    for (const ttlSeconds of [0, -1, 86_401, 1.5, Number.NaN]) {
      await expect(tokens.issue({ ...base, ttlSeconds })).rejects.toMatchObject({ code: 'invalid_input' });
    }
    for (const scopes of [[], [''], ['a b'], ['quote"d']]) {
      await expect(tokens.issue({ ...base, scopes })).rejects.toMatchObject({ code: 'invalid_input' });
    }
    await expect(tokens.issue({ ...base, accountId: '' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(tokens.issue({ ...base, client: 'web' as 'api' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('answers null for tampered, foreign, mis-addressed and incomplete tokens', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const tokens = new AccessTokens(secrets, clock);
    const { token } = await tokens.issue({ accountId: 'acc-1', scopes: ['service.read'], client: 'api' });
    const [header, payload, signature] = token.split('.') as [string, string, string];

    const elevated = Buffer.from(
      JSON.stringify({ ...decodeJwt(token), sub: 'acc-admin', scope: 'service.read admin' }),
    ).toString('base64url');
    expect(await tokens.verify(`${header}.${elevated}.${signature}`)).toBeNull();
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    expect(await tokens.verify(`${header}.${payload}.${flipped}`)).toBeNull();
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    expect(await tokens.verify(`${none}.${payload}.`)).toBeNull();

    const foreignToken = await new AccessTokens(foreign, clock).issue({
      accountId: 'acc-1',
      scopes: ['service.read'],
      client: 'api',
    });
    expect(await tokens.verify(foreignToken.token)).toBeNull();
    const otherIssuer = new AccessTokens(secrets, clock, 'someone-else');
    expect(await otherIssuer.verify(token)).toBeNull();

    expect(await tokens.verify(await sign({}, clock))).not.toBeNull();
    expect(await tokens.verify(await sign({}, clock, foreign))).toBeNull();
    expect(await tokens.verify(await sign({ aud: 'another-api' }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ scope: undefined }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ scope: '' }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ scope: ['service.read'] }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ client: undefined }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ client: 'browser' }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ sub: undefined }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ jti: undefined }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ exp: undefined }, clock))).toBeNull();
    expect(await tokens.verify(await sign({}, clock, secrets, 'JWT'))).toBeNull();

    for (const garbage of ['', 'a.b', 'a.b.c', 'not a token', generateApiKey().key, 'x'.repeat(10_000)]) {
      expect(await tokens.verify(garbage)).toBeNull();
    }
    expect(await tokens.verify(undefined as unknown as string)).toBeNull();
  });

  it('looksLikeJwt tells tokens from API keys', async () => {
    const tokens = new AccessTokens(secrets, new ManualClock());
    const { token } = await tokens.issue({ accountId: 'acc-1', scopes: ['service.read'], client: 'api' });
    expect(looksLikeJwt(token)).toBe(true);
    expect(looksLikeJwt(generateApiKey().key)).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('a.b.c.d')).toBe(false);
    expect(looksLikeJwt('a..c')).toBe(false);
    expect(looksLikeJwt('a.b.c ')).toBe(false);
    expect(looksLikeJwt(undefined)).toBe(false);
  });

  it('a token carries its issuance to the millisecond (iat_ms) beside iat in whole seconds', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.750Z'));
    const tokens = new AccessTokens(secrets, clock);
    const issued = await tokens.issue({ accountId: 'acc-1', scopes: ['service.read'], client: 'api' });
    expect(issued.issuedAt.toISOString()).toBe('2026-03-01T10:00:00.750Z');
    const claims = decodeJwt(issued.token);
    expect(claims.iat).toBe(Date.parse('2026-03-01T10:00:00Z') / 1000);
    expect(claims.iat_ms).toBe(Date.parse('2026-03-01T10:00:00.750Z'));
    expect((await tokens.verify(issued.token))?.issuedAt).toEqual(issued.issuedAt);
  });

  it('a token without iat_ms counts from the start of its iat second; one whose iat_ms leaves that second is refused', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.750Z'));
    const tokens = new AccessTokens(secrets, clock);
    const second = Date.parse('2026-03-01T10:00:00Z');
    expect((await tokens.verify(await sign({}, clock)))?.issuedAt.toISOString()).toBe(
      '2026-03-01T10:00:00.000Z',
    );
    expect(await tokens.verify(await sign({ iat_ms: second + 999 }, clock))).not.toBeNull();
    expect(await tokens.verify(await sign({ iat_ms: second + 1000 }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ iat_ms: second - 1 }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ iat_ms: second + 0.5 }, clock))).toBeNull();
    expect(await tokens.verify(await sign({ iat_ms: String(second) }, clock))).toBeNull();
  });
});

describe('accessTokenRevocation (ADR 74, 75)', () => {
  const issuedAt = new Date('2026-03-01T10:00:05.000Z');

  it('a token revoked by id is revoked, whatever the account did', () => {
    expect(accessTokenRevocation({ issuedAt }, '2026-03-01T10:01:00.000Z', null)).toBe('revoked');
    expect(accessTokenRevocation({ issuedAt }, '2026-03-01T10:01:00.000Z', '2026-03-01T09:00:00.000Z')).toBe(
      'revoked',
    );
  });

  it('a token issued at or before the password change is invalidated; one issued after is not', () => {
    expect(accessTokenRevocation({ issuedAt }, null, '2026-03-01T10:00:06.000Z')).toBe('invalidated');
    expect(accessTokenRevocation({ issuedAt }, null, '2026-03-01T10:00:05.000Z')).toBe('invalidated');
    expect(accessTokenRevocation({ issuedAt }, null, '2026-03-01T10:00:04.999Z')).toBeNull();
    expect(accessTokenRevocation({ issuedAt }, null, null)).toBeNull();
  });

  it('in the second of the change, the milliseconds decide (a token minted just after a password change works)', () => {
    const justAfter = new Date('2026-03-01T10:00:05.420Z');
    expect(accessTokenRevocation({ issuedAt: justAfter }, null, '2026-03-01T10:00:05.419Z')).toBeNull();
    expect(accessTokenRevocation({ issuedAt: justAfter }, null, '2026-03-01T10:00:05.420Z')).toBe(
      'invalidated',
    );
    // A token with whole seconds only (no iat_ms) counts from its second's start: refused throughout that second.
    expect(accessTokenRevocation({ issuedAt }, null, '2026-03-01T10:00:05.999Z')).toBe('invalidated');
  });

  it('an unreadable cutoff refuses', () => {
    expect(accessTokenRevocation({ issuedAt }, null, 'not a time')).toBe('invalidated');
  });
});
