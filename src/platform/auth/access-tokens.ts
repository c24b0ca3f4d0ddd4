/**
 * OAuth access tokens: JWTs signed with the service's Ed25519 key (alg EdDSA, typ `at+jwt` as in RFC 9068).
 *
 * Claims: iss (the issuer), aud `exposure-research-api`, sub (account id), scope (space-separated), client
 * (`api` or `mcp`), jti (token id, for revocation lists), iat and exp (seconds), and `iat_ms` (the issuance
 * in milliseconds, signed like the rest, within iat's second). Verification pins the algorithm, issuer, audience
 * and type, requires every claim, and reads time from the injected clock.
 *
 * A valid signature is not enough: the guard also refuses a token revoked one by one (its id in the access
 * tokens read model, ADR 74) or issued at or before its account's last password change (ADR 75), through
 * `accessTokenRevocation`. Keep lifetimes short (default one hour, at most one day).
 *
 * Tokens of the OAuth authorization server (ADR 106) go through the same verification: same key, algorithm, type
 * and claims, with `client_id` (the OAuth client) besides; their issuer is the authorization server's (an issuer
 * `OAuthIssuers` accepts) and their audience one of that issuer's resources (RFC 8707), never another's.
 */
import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../clock/clock.js';
import { ServiceError } from '../errors/service-error.js';
import { OAuthIssuers } from './oauth-issuers.js';
import { JWT_SIGNING_ALGORITHM, type ServiceSecrets } from './secrets.js';

export const ACCESS_TOKEN_AUDIENCE = 'exposure-research-api';
export const DEFAULT_ACCESS_TOKEN_ISSUER = 'exposure-research';
export const ACCESS_TOKEN_TYPE = 'at+jwt';
export const DEFAULT_ACCESS_TOKEN_TTL_SECONDS = 3600;
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 86_400;
const MAX_TOKEN_LENGTH = 8192;
const MAX_SCOPES = 64;
/** RFC 6749 scope-token: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export type AccessTokenClient = 'api' | 'mcp';
const CLIENTS: ReadonlySet<string> = new Set<AccessTokenClient>(['api', 'mcp']);

export interface IssueAccessTokenInput {
  readonly accountId: string;
  readonly scopes: readonly string[];
  readonly client: AccessTokenClient;
  /** Lifetime in whole seconds, 1 to 86400; 3600 when omitted. */
  readonly ttlSeconds?: number;
}

export interface IssuedAccessToken {
  readonly token: string;
  /** The `iat_ms` claim: the issuance to the millisecond. */
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly tokenId: string;
}

export interface VerifiedAccessToken {
  readonly accountId: string;
  readonly scopes: string[];
  readonly client: AccessTokenClient;
  readonly tokenId: string;
  /** The OAuth client the token was issued to (`client_id`), for tokens of the authorization server. */
  readonly clientId?: string;
  /** The `iat_ms` claim; for a token without it, the start of its `iat` second. */
  readonly issuedAt: Date;
  readonly expiresAt: Date;
}

/** Why a token with a valid signature is refused all the same, or null when nothing revoked it. */
export type AccessTokenRevocation = 'revoked' | 'invalidated' | null;

/**
 * The revocation rule (ADR 74, 75), pure: `revokedAt` is the token's own revocation from the read model (null
 * when none, or when the read model does not know the token); `issuedBefore` the account's latest invalidation.
 * A token issued at or before it is refused. Issuance has milliseconds (`iat_ms`); a token carrying only whole
 * seconds counts from the start of its second, so it is refused whenever its second is the invalidation's.
 */
export function accessTokenRevocation(
  token: Pick<VerifiedAccessToken, 'issuedAt'>,
  revokedAt: string | null,
  issuedBefore: string | null,
): AccessTokenRevocation {
  if (revokedAt !== null) return 'revoked';
  if (issuedBefore !== null) {
    // An unreadable cutoff refuses: it can only come from a damaged read model.
    if (!(token.issuedAt.getTime() > Date.parse(issuedBefore))) return 'invalidated';
  }
  return null;
}

export class AccessTokens {
  constructor(
    private readonly secrets: ServiceSecrets,
    private readonly clock: Clock,
    private readonly issuer: string = DEFAULT_ACCESS_TOKEN_ISSUER,
    private readonly oauthIssuers?: OAuthIssuers,
  ) {}

  /** Signs a token; throws ServiceError('invalid_input') for an empty account, bad scopes or lifetime. */
  async issue(input: IssueAccessTokenInput): Promise<IssuedAccessToken> {
    const ttlSeconds = input.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_SECONDS;
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > MAX_ACCESS_TOKEN_TTL_SECONDS) {
      throw new ServiceError(
        'invalid_input',
        `an access token lifetime must be 1 to ${MAX_ACCESS_TOKEN_TTL_SECONDS} seconds`,
        { field: 'ttlSeconds' },
      );
    }
    if (typeof input.accountId !== 'string' || input.accountId.length === 0 || input.accountId.length > 256) {
      throw new ServiceError('invalid_input', 'an access token needs an account id', { field: 'accountId' });
    }
    if (!CLIENTS.has(input.client)) {
      throw new ServiceError('invalid_input', 'unknown access token client', { field: 'client' });
    }
    const scopes = [...new Set(input.scopes)];
    if (scopes.length === 0 || scopes.length > MAX_SCOPES || !scopes.every((s) => SCOPE_TOKEN.test(s))) {
      throw new ServiceError('invalid_input', 'an access token needs one or more valid scopes', {
        field: 'scopes',
      });
    }

    const issuedAtMs = this.clock.now().getTime();
    const issuedAt = Math.floor(issuedAtMs / 1000);
    const expiresAtSeconds = issuedAt + ttlSeconds;
    const tokenId = randomUUID();
    const token = await new SignJWT({ scope: scopes.join(' '), client: input.client, iat_ms: issuedAtMs })
      .setProtectedHeader({ alg: JWT_SIGNING_ALGORITHM, kid: this.secrets.kid, typ: ACCESS_TOKEN_TYPE })
      .setIssuer(this.issuer)
      .setAudience(ACCESS_TOKEN_AUDIENCE)
      .setSubject(input.accountId)
      .setJti(tokenId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAtSeconds)
      .sign(this.secrets.jwtPrivateKey);
    return {
      token,
      issuedAt: new Date(issuedAtMs),
      expiresAt: new Date(expiresAtSeconds * 1000),
      tokenId,
    };
  }

  /** The token's claims, or null when it is malformed, tampered with, foreign, expired or incomplete. */
  async verify(token: string): Promise<VerifiedAccessToken | null> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !looksLikeJwt(token)) return null;
    try {
      const { payload } = await jwtVerify(token, this.secrets.jwtPublicKey, {
        algorithms: [JWT_SIGNING_ALGORITHM],
        typ: ACCESS_TOKEN_TYPE,
        currentDate: this.clock.now(),
        requiredClaims: ['iss', 'aud', 'sub', 'jti', 'iat', 'exp', 'scope', 'client'],
      });
      const { sub, jti, iat, exp, scope, client, iat_ms: issuedAtMs, client_id: clientId } = payload;
      const oauth = typeof payload.iss === 'string' && payload.iss !== this.issuer;
      if (oauth) {
        // The authorization server's: its issuer, one of its resources as the only audience, and its client.
        const issuer = payload.iss as string;
        if (!this.oauthIssuers?.accepts(issuer)) return null;
        if (typeof payload.aud !== 'string' || !OAuthIssuers.resourcesOf(issuer).includes(payload.aud))
          return null;
        if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 256) return null;
      } else {
        const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
        if (payload.iss !== this.issuer || !audiences.includes(ACCESS_TOKEN_AUDIENCE)) return null;
      }
      if (typeof sub !== 'string' || sub.length === 0) return null;
      if (typeof jti !== 'string' || jti.length === 0) return null;
      if (typeof exp !== 'number' || typeof iat !== 'number') return null;
      if (typeof client !== 'string' || !CLIENTS.has(client)) return null;
      if (typeof scope !== 'string') return null;
      // Optional (tokens issued before it existed lack it); when present it must lie within iat's second.
      if (
        issuedAtMs !== undefined &&
        !(Number.isSafeInteger(issuedAtMs) && Math.floor(Number(issuedAtMs) / 1000) === iat)
      ) {
        return null;
      }
      const scopes = scope.split(' ').filter((s) => s.length > 0);
      if (scopes.length === 0 || !scopes.every((s) => SCOPE_TOKEN.test(s))) return null;
      return {
        accountId: sub,
        scopes,
        client: client as AccessTokenClient,
        tokenId: jti,
        ...(oauth ? { clientId: clientId as string } : {}),
        issuedAt: new Date(issuedAtMs === undefined ? iat * 1000 : Number(issuedAtMs)),
        expiresAt: new Date(exp * 1000),
      };
    } catch {
      return null;
    }
  }
}

/** True for three base64url segments separated by dots: a JWT, as opposed to an `exr_` API key. */
export function looksLikeJwt(text: unknown): boolean {
  return typeof text === 'string' && text.length <= MAX_TOKEN_LENGTH && JWT_SHAPE.test(text);
}
