/** What a browser session does: sign in with a password, sign out, create personal API access tokens. */
import { Inject, Optional } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AccessTokens, type IssuedAccessToken } from '../../platform/auth/access-tokens.js';
import { csrfTokenFor } from '../../platform/auth/csrf.js';
import { verifyPassword } from '../../platform/auth/passwords.js';
import { ServiceSecrets } from '../../platform/auth/secrets.js';
import { SessionStore } from '../../platform/auth/sessions.js';
import { PASSWORD_SIGN_IN_GATE, type PasswordSignInGate } from '../../platform/auth/sign-in-gate.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { commandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { enforce, RATE_LIMITER, type RateLimiter } from '../../platform/rate-limit/rate-limiter.port.js';
import { accessStreamId, accessTokenDecider } from '../domain/account-access.js';
import { accessTokenDecision } from '../domain/entitlements.js';
import { AccountDirectory } from '../queries/account-directory.js';
import { AccessLog } from './access-log.js';
import {
  CreateAccessToken,
  RehashPassword,
  RevokeAccessToken,
  SignInWithPassword,
  SignOut,
} from './account.commands.js';

/**
 * Ten password attempts per email and address per 15 minutes, and 100 per address, across every instance.
 * Keying on the email alone would let anyone lock a known user out of sign-in.
 */
const LOGIN_RULE = { name: 'login', limit: 10, windowSeconds: 15 * 60 } as const;
const LOGIN_ADDRESS_RULE = { name: 'login-address', limit: 100, windowSeconds: 15 * 60 } as const;

@CommandHandler(SignInWithPassword)
export class SignInWithPasswordHandler implements ICommandHandler<SignInWithPassword> {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(AccessLog) private readonly accessLog: AccessLog,
    @Optional() @Inject(PASSWORD_SIGN_IN_GATE) private readonly gate?: PasswordSignInGate,
  ) {}

  async execute(command: SignInWithPassword) {
    const email = command.email.trim().toLowerCase();
    enforce(
      await this.rateLimiter.consume(LOGIN_ADDRESS_RULE, command.ip),
      'too many sign-in attempts from this address; wait before retrying',
    );
    enforce(
      await this.rateLimiter.consume(LOGIN_RULE, `${email}|${command.ip}`),
      'too many sign-in attempts for this email; wait before retrying',
    );
    const account = await this.accounts.findByEmail(email);
    const passwordHash = await this.accounts.passwordHash(account);
    // Always run the hash, even for an unknown email, so timing does not tell which accounts exist.
    const valid = await verifyPassword(command.password, passwordHash, this.config.passwordHashCost);
    const attempt = { ip: command.ip, ...(command.requestId ? { requestId: command.requestId } : {}) };
    if (!account?.passwordCredentialId || !passwordHash || !valid) {
      const failure = !account
        ? 'unknown_email'
        : !account.passwordCredentialId || !passwordHash
          ? 'no_password'
          : 'wrong_password';
      await this.accessLog.signInFailed(email, account?.id ?? null, failure, attempt);
      throw new ServiceError('unauthenticated', 'the email or password is wrong');
    }
    // Rule 12: staff of an organization enforcing single sign-on are sent to its provider (asked only once the
    // password is proven, so the answer tells a stranger nothing).
    try {
      await this.gate?.check(account.id);
    } catch (error) {
      await this.accessLog.signInFailed(email, account.id, 'sso_required', attempt);
      throw error;
    }
    // A hash made with older parameters is replaced now that the password is known.
    const self = `account:${account.id}` as const;
    await this.commands.execute(
      new RehashPassword(
        account.id,
        command.password,
        { credentialId: account.passwordCredentialId, hash: passwordHash },
        commandEnvelope({ actor: self, payer: self }),
      ),
    );
    // A session id is never reused across a login (fixation): end whatever session the browser brought.
    if (command.previousSessionId) await this.sessions.revoke(command.previousSessionId);
    const session = await this.sessions.create(account.id, { userAgent: command.userAgent });
    await this.accessLog.signedIn(account.id, session.sessionId, {
      ...attempt,
      userAgent: command.userAgent,
    });
    const maxAgeSeconds = Math.max(
      1,
      Math.floor((session.expiresAt.getTime() - this.clock.now().getTime()) / 1000),
    );
    return {
      accountId: account.id,
      sessionId: session.sessionId,
      csrfToken: csrfTokenFor(session.sessionId, this.secrets.csrfSecret),
      expiresAt: session.expiresAt,
      maxAgeSeconds,
    };
  }
}

@CommandHandler(SignOut)
export class SignOutHandler implements ICommandHandler<SignOut, void> {
  constructor(
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(AccessLog) private readonly accessLog: AccessLog,
  ) {}

  async execute(command: SignOut): Promise<void> {
    if (!command.sessionId) return;
    const ended = await this.sessions.revoke(command.sessionId);
    if (ended && command.caller)
      await this.accessLog.signedOut(command.caller.accountId, command.sessionId, command.caller.envelope);
  }
}

@CommandHandler(CreateAccessToken)
export class CreateAccessTokenHandler implements ICommandHandler<CreateAccessToken, IssuedAccessToken> {
  constructor(
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(AccessTokens) private readonly tokens: AccessTokens,
    @Inject(AccessLog) private readonly accessLog: AccessLog,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute(command: CreateAccessToken): Promise<IssuedAccessToken> {
    const account = await this.accounts.account(command.accountId);
    if (!account) throw new ServiceError('unauthenticated', 'the session belongs to no account');
    const plan = this.accounts.plan(account);
    const decision = accessTokenDecision(plan, await this.accounts.purchasedBalance(command.accountId));
    if (!decision.allowed) throw new ServiceError('entitlement_required', decision.message, decision.details);
    const issued = await this.tokens.issue({
      accountId: command.accountId,
      scopes: command.scopes,
      client: command.client,
      ttlSeconds: command.ttlSeconds,
    });
    if (command.envelope) {
      const recorded = await this.accessLog.accessTokenIssued(
        command.accountId,
        {
          tokenId: issued.tokenId,
          client: command.client,
          scopes: command.scopes,
          issuedAt: issued.issuedAt,
          expiresAt: issued.expiresAt,
        },
        command.envelope,
      );
      // Listed (and revocable by the list's id) as soon as the caller has it.
      await this.writer.readYourWrites(['access-tokens'], recorded.position);
    }
    return issued;
  }
}

/** Seconds a caller waits before asking again when a revocation is recorded but not yet in the read model. */
const REVOCATION_RETRY_AFTER_SECONDS = 1;

@CommandHandler(RevokeAccessToken)
export class RevokeAccessTokenHandler implements ICommandHandler<RevokeAccessToken, { revoked: boolean }> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RevokeAccessToken): Promise<{ revoked: boolean }> {
    // The caller's own stream holds only its tokens: another account's token is not found there.
    const result = await this.writer.decide({
      stream: accessStreamId(command.accountId),
      decider: accessTokenDecider,
      command: { type: 'RevokeAccessToken', accountId: command.accountId, tokenId: command.tokenId },
      context: { now: this.clock.now() },
      envelope: command.envelope,
    });
    let position = result.position;
    if (position === null) {
      // Revoked before: in effect already, unless that revocation's caller gave up before the read model had it.
      if ((await this.accounts.accessTokenRevokedAt(command.tokenId)) !== null) return { revoked: false };
      position = await this.eventStore.lastCommittedPosition();
    }
    // The guard refuses the token once the shared read model holds the revocation: never answer before.
    if (!(await this.writer.readYourWrites(['access-tokens'], position))) {
      throw new ServiceError(
        'not_ready',
        'the revocation is recorded but not yet in effect; ask again to confirm it',
        { token_id: command.tokenId },
        REVOCATION_RETRY_AFTER_SECONDS,
      );
    }
    return { revoked: result.events.length > 0 };
  }
}

export const sessionCommandHandlers = [
  SignInWithPasswordHandler,
  SignOutHandler,
  CreateAccessTokenHandler,
  RevokeAccessTokenHandler,
];
