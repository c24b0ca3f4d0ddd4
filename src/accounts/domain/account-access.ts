/**
 * How accounts reach the service (ADR 69): sign-ins (success and failure), sign-outs, access tokens issued and
 * revoked, recorded in `access-<accountId>` (or `access-email-<digest>` when no account uses the email).
 * Never a password, a session id or a token: a session is named by its reference, a token by its id.
 *
 * Revoking one token is a decision on that stream (ADR 74): `accessTokenDecider` folds the account's tokens from
 * their issuance and revocation events, and refuses a token the stream does not hold as not found.
 */
import { createHash } from 'node:crypto';
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

export const accessStreamId = (accountId: string): string => `access-${accountId}`;

/** An email no account uses, as a digest (the email claim's): attempts on it group without storing it. */
export const emailDigest = (email: string): string =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
export const unknownEmailAccessStreamId = (email: string): string => `access-email-${emailDigest(email)}`;

export type SignInFailure = 'wrong_password' | 'no_password' | 'unknown_email' | 'sso_required';

export type SignedIn = DomainEvent<
  'SignedIn',
  { accountId: string; session: string; ip: string; userAgent: string; at: string }
>;
export type SignInFailed = DomainEvent<
  'SignInFailed',
  { accountId: string | null; emailDigest: string; failure: SignInFailure; ip: string; at: string }
>;
export type SignedOut = DomainEvent<'SignedOut', { accountId: string; session: string; at: string }>;
export type AccessTokenIssued = DomainEvent<
  'AccessTokenIssued',
  {
    accountId: string;
    tokenId: string;
    client: string;
    scopes: string[];
    /** The token's `iat` (whole seconds); absent from events written before ADR 74, where `at` stands in. */
    issuedAt?: string;
    expiresAt: string;
    at: string;
    /** Tokens of the OAuth authorization server (ADR 106), on their grant's stream: the client and grant. */
    clientId?: string;
    grantId?: string;
    grantType?: 'authorization_code' | 'refresh_token';
  }
>;
/** One token revoked by its account (ADR 74): refused from the moment the revocation answered. */
export type AccessTokenRevoked = DomainEvent<
  'AccessTokenRevoked',
  { accountId: string; tokenId: string; at: string }
>;
export type AccountAccessEvent = SignedIn | SignInFailed | SignedOut | AccessTokenIssued | AccessTokenRevoked;

// ---- Revoking one access token ----

export interface RevokeAccessToken {
  readonly type: 'RevokeAccessToken';
  readonly accountId: string;
  readonly tokenId: string;
}

export interface AccessTokenState {
  readonly expiresAt: string;
  readonly revokedAt: string | null;
}

/** The account's tokens that had not expired at the stream's last event (older ones are dropped). */
export interface AccountAccessState {
  readonly tokens: Readonly<Record<string, AccessTokenState>>;
}

export const accessTokenDecider: Decider<
  RevokeAccessToken,
  AccountAccessEvent,
  AccountAccessState,
  { readonly now: Date }
> = {
  initialState: { tokens: {} },

  decide(command, state, { now }) {
    const token = ownEntry(state.tokens, command.tokenId);
    // Unknown, another account's (not in this stream) and expired tokens are one answer: nothing to revoke here.
    if (!token || Date.parse(token.expiresAt) <= now.getTime()) {
      throw new ServiceError('not_found', 'no such access token');
    }
    if (token.revokedAt !== null) return [];
    return [
      {
        type: 'AccessTokenRevoked',
        data: { accountId: command.accountId, tokenId: command.tokenId, at: now.toISOString() },
      },
    ];
  },

  evolve(state, event) {
    switch (event.type) {
      case 'AccessTokenIssued': {
        // Tokens expired by the time of this issuance can never be revoked again: the state stays bounded.
        const live = withoutExpired(state.tokens, event.data.at);
        return {
          tokens: { ...live, [event.data.tokenId]: { expiresAt: event.data.expiresAt, revokedAt: null } },
        };
      }
      case 'AccessTokenRevoked': {
        const token = ownEntry(state.tokens, event.data.tokenId);
        if (!token) return state;
        return { tokens: { ...state.tokens, [event.data.tokenId]: { ...token, revokedAt: event.data.at } } };
      }
      default:
        return state;
    }
  },
};

function withoutExpired(
  tokens: Readonly<Record<string, AccessTokenState>>,
  at: string,
): Record<string, AccessTokenState> {
  const now = Date.parse(at);
  return Object.fromEntries(Object.entries(tokens).filter(([, token]) => Date.parse(token.expiresAt) > now));
}

/** Own entries only: ids such as "__proto__" must not resolve to Object.prototype members. */
function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
