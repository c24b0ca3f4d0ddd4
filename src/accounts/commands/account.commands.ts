import { Command } from '@nestjs/cqrs';
import type { AccessTokenClient, IssuedAccessToken } from '../../platform/auth/access-tokens.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { PlanId } from '../domain/plans.js';

/** Buying credits is a ledger command; kept importable from here, where account operations were. */
export { PurchaseCredits } from '../../credits/commands/credit.commands.js';

/** Account creation is an operator action (the contract does not show sign-up): `accounts create`. */
export class RegisterAccount extends Command<{ accountId: string }> {
  constructor(
    readonly email: string,
    readonly plan: PlanId,
    readonly password: string | undefined,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export class ChangePlan extends Command<{ changed: boolean }> {
  constructor(
    readonly accountId: string,
    readonly plan: PlanId,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * After a sign-in proved `password` against the hash of credential `verified.credentialId`: replaces a hash made
 * with weaker parameters than today's (appends PasswordSet like SetPassword); nothing when the hash is current or
 * the password changed since.
 */
export class RehashPassword extends Command<{ rehashed: boolean }> {
  constructor(
    readonly accountId: string,
    readonly password: string,
    readonly verified: { readonly credentialId: string; readonly hash: string },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export class SetPassword extends Command<void> {
  constructor(
    readonly accountId: string,
    readonly password: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Issues a personal API key; the full key is in the result and shown once. */
export class IssueApiKey extends Command<{
  keyId: string;
  prefix: string;
  key: string;
  label: string;
  issuedAt: string;
}> {
  constructor(
    readonly accountId: string,
    readonly label: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export class RevokeApiKey extends Command<{ revoked: boolean }> {
  constructor(
    /** When given, the key must belong to this account (a session revoking its own key); else 404. */
    readonly ownerAccountId: string | undefined,
    readonly keyId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Browser sign-in: proves the password and opens a new session (a session id is never reused across logins). */
export class SignInWithPassword extends Command<{
  accountId: string;
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
  /** Seconds the session cookies live: the session's remaining absolute lifetime. */
  maxAgeSeconds: number;
}> {
  constructor(
    readonly email: string,
    readonly password: string,
    /** The caller's address: attempts are limited per address and per email and address. */
    readonly ip: string,
    readonly userAgent: string,
    /** The session the browser brought, ended at login (fixation). */
    readonly previousSessionId: string | undefined,
    /** The HTTP request id, on the sign-in's events (ADR 70). */
    readonly requestId?: string,
  ) {
    super();
  }
}

/** Ends a browser session server-side. */
export class SignOut extends Command<void> {
  constructor(
    readonly sessionId: string | undefined,
    /** The signed-in caller: a sign-out is recorded (ADR 70). */
    readonly caller?: { readonly accountId: string; readonly envelope: CommandEnvelope },
  ) {
    super();
  }
}

/** An access token (JWT) for the personal API, created from a session when the account's entitlement allows. */
export class CreateAccessToken extends Command<IssuedAccessToken> {
  constructor(
    readonly accountId: string,
    readonly scopes: readonly string[],
    readonly client: AccessTokenClient,
    readonly ttlSeconds: number,
    /** The session caller's envelope: the issuance is recorded (ADR 70). */
    readonly envelope?: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * Revokes one of the account's access tokens (ADR 74): refused on the personal API once this answers, on every
 * instance. Unknown, expired and other accounts' tokens are not found; revoking a revoked token changes nothing.
 */
export class RevokeAccessToken extends Command<{ revoked: boolean }> {
  constructor(
    readonly accountId: string,
    readonly tokenId: string,
    /** The session caller's envelope: actor and payer are the account. */
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
