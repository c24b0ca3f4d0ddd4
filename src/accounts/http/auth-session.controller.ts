import { Body, Controller, HttpCode, Inject, Optional, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Access, type Principal } from '../../platform/auth/access.js';
import type { AuthenticatedRequest } from '../../platform/auth/auth.guard.js';
import {
  clearedSessionCookies,
  parseCookies,
  SESSION_COOKIE,
  sessionCookies,
} from '../../platform/auth/cookies.js';
import { csrfTokenFor } from '../../platform/auth/csrf.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { verifyPassword } from '../../platform/auth/passwords.js';
import { ServiceSecrets } from '../../platform/auth/secrets.js';
import { SessionStore } from '../../platform/auth/sessions.js';
import { PASSWORD_SIGN_IN_GATE, type PasswordSignInGate } from '../../platform/auth/sign-in-gate.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { commandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { enforce, RATE_LIMITER, type RateLimiter } from '../../platform/rate-limit/rate-limiter.port.js';
import { ApiEmpty, ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { SESSION_COOKIES, SIGNED_IN } from './accounts.openapi.js';
import { RehashPassword } from '../commands/account.commands.js';
import { AccountDirectory } from '../queries/account-directory.js';
import { LoginBody } from './account.dtos.js';

/**
 * Ten password attempts per email and address per 15 minutes, and 100 per address, across every instance.
 * Keying on the email alone would let anyone lock a known user out of sign-in.
 */
const LOGIN_RULE = { name: 'login', limit: 10, windowSeconds: 15 * 60 } as const;
const LOGIN_ADDRESS_RULE = { name: 'login-address', limit: 100, windowSeconds: 15 * 60 } as const;

/**
 * Browser sign-in. Login flows are "not shown" in the contract: email and password set the session and CSRF
 * cookies; the session id is new at every login; logout ends the session server-side.
 */
@ApiTags('auth')
@Controller('api/v2/auth')
export class AuthSessionController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Optional() @Inject(PASSWORD_SIGN_IN_GATE) private readonly gate?: PasswordSignInGate,
  ) {}

  @Post('login')
  @HttpCode(200)
  @Access({ surface: 'public', permission: 'auth.login' })
  @ApiOperation({ summary: 'Sign in with email and password; sets __Host-ps and __Host-pc' })
  @ApiJson(200, SIGNED_IN, 'Signed in: the session and CSRF cookies are set', SESSION_COOKIES)
  @ApiErrors(401, 403, 429, 503)
  async login(
    @Body() body: LoginBody,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ account_id: string; csrf_token: string; expires_at: string }> {
    const email = body.email.trim().toLowerCase();
    enforce(
      await this.rateLimiter.consume(LOGIN_ADDRESS_RULE, request.ip),
      'too many sign-in attempts from this address; wait before retrying',
    );
    enforce(
      await this.rateLimiter.consume(LOGIN_RULE, `${email}|${request.ip}`),
      'too many sign-in attempts for this email; wait before retrying',
    );
    const account = await this.accounts.findByEmail(email);
    // Always run the hash, even for an unknown email, so timing does not tell which accounts exist.
    const valid = await verifyPassword(body.password, account?.passwordHash ?? null);
    if (!account?.passwordHash || !valid)
      throw new ServiceError('unauthenticated', 'the email or password is wrong');
    // Rule 12: staff of an organization enforcing single sign-on are sent to its provider (asked only once the
    // password is proven, so the answer tells a stranger nothing).
    await this.gate?.check(account.id);
    // A hash made with older parameters is replaced now that the password is known.
    const self = `account:${account.id}` as const;
    await this.commands.execute(
      new RehashPassword(
        account.id,
        body.password,
        account.passwordHash,
        commandEnvelope({ actor: self, payer: self }),
      ),
    );
    // A session id is never reused across a login (fixation): end whatever session the browser brought.
    const previous = parseCookies(request.headers.cookie)[SESSION_COOKIE];
    if (previous) await this.sessions.revoke(previous);
    const session = await this.sessions.create(account.id, {
      userAgent: String(request.headers['user-agent'] ?? ''),
    });
    const csrfToken = csrfTokenFor(session.sessionId, this.secrets.csrfSecret);
    const maxAge = Math.max(1, Math.floor((session.expiresAt.getTime() - this.clock.now().getTime()) / 1000));
    void reply.header('set-cookie', sessionCookies(session.sessionId, csrfToken, maxAge));
    return { account_id: account.id, csrf_token: csrfToken, expires_at: session.expiresAt.toISOString() };
  }

  @Post('logout')
  @HttpCode(204)
  @Access({ surface: 'session', permission: 'auth.logout' })
  @ApiOperation({ summary: 'End the browser session' })
  @ApiEmpty(204, 'Signed out: the cookies are cleared', SESSION_COOKIES)
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    if (principal.sessionId) await this.sessions.revoke(principal.sessionId);
    void reply.header('set-cookie', clearedSessionCookies());
  }
}
