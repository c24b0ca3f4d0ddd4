import { Body, Controller, Get, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
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
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ApiEmpty, ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { SignInWithPassword, SignOut } from '../commands/account.commands.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { AccountDirectory } from '../queries/account-directory.js';
import { CURRENT_SESSION, SESSION_COOKIES, SIGNED_IN } from './accounts.openapi.js';
import { LoginBody } from './account.dtos.js';

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
  ) {}

  /** Who the browser session is: the console asks it at start (and a 401 tells it to show the sign-in page). */
  @Get('session')
  @Access({ surface: 'session', permission: 'account.read' })
  @ApiOperation({ summary: 'The signed-in account and the organization the session is restricted to' })
  @ApiJson(200, CURRENT_SESSION, 'The current session')
  @ApiErrors(401, 429)
  async current(
    @CurrentPrincipal() principal: Principal,
  ): Promise<{ account_id: string; email: string; plan: string; organization_id: string | null }> {
    const account = await this.accounts.account(principal.accountId);
    if (!account) throw new ServiceError('unauthenticated', 'the session has no account');
    return {
      account_id: account.id,
      email: account.email,
      plan: account.plan,
      organization_id: principal.organizationId ?? null,
    };
  }

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
    const signedIn = await this.commands.execute(
      new SignInWithPassword(
        body.email,
        body.password,
        request.ip,
        String(request.headers['user-agent'] ?? ''),
        parseCookies(request.headers.cookie)[SESSION_COOKIE],
        String(request.id),
      ),
    );
    void reply.header(
      'set-cookie',
      sessionCookies(signedIn.sessionId, signedIn.csrfToken, signedIn.maxAgeSeconds),
    );
    return {
      account_id: signedIn.accountId,
      csrf_token: signedIn.csrfToken,
      expires_at: signedIn.expiresAt.toISOString(),
    };
  }

  @Post('logout')
  @HttpCode(204)
  @Access({ surface: 'session', permission: 'auth.logout' })
  @ApiOperation({ summary: 'End the browser session' })
  @ApiEmpty(204, 'Signed out: the cookies are cleared', SESSION_COOKIES)
  async logout(
    @CurrentPrincipal() principal: Principal,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    await this.commands.execute(
      new SignOut(principal.sessionId, {
        accountId: principal.accountId,
        envelope: envelopeFor(principal, String(request.id)),
      }),
    );
    void reply.header('set-cookie', clearedSessionCookies());
  }
}
