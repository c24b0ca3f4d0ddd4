import { Body, Controller, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus, type Command } from '@nestjs/cqrs';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedRequest } from '../../../platform/auth/auth.guard.js';
import { parseCookies, SESSION_COOKIE, sessionCookies } from '../../../platform/auth/cookies.js';
import { csrfTokenFor } from '../../../platform/auth/csrf.js';
import { ServiceSecrets } from '../../../platform/auth/secrets.js';
import { SessionStore } from '../../../platform/auth/sessions.js';
import { CLOCK, type Clock } from '../../../platform/clock/clock.js';
import { enforce, RATE_LIMITER, type RateLimiter } from '../../../platform/rate-limit/rate-limiter.port.js';
import { Route } from '../../../platform/http/route.js';
import { SingleSignOn } from '../commands/single-sign-on.js';
import { settingsView, type SsoSettingsView } from '../commands/sso-facts.js';
import type { SsoState } from '../domain/sso.js';
import {
  AcknowledgeSsoRecoveryCode,
  CompleteSsoSignIn,
  ConfigureSsoProvider,
  IssueSsoRecoveryCode,
  SetSsoEnforcement,
  SignInWithRecoveryCode,
  TestSsoRecoveryCode,
} from '../commands/sso.commands.js';
import { ConfigureSsoBody, EnforcementBody, RecoveryCodeBody, RecoverySignInBody } from './sso.dtos.js';
import { SESSION_COOKIES } from '../../../accounts/http/accounts.openapi.js';
import { CurrentCaller, manageWith, OrganizationRoutes, type Caller } from '../../http/organization-route.js';
import {
  CALLBACK_QUERY,
  ISSUED_RECOVERY_CODE,
  RECOVERY_SIGN_IN,
  SIGN_IN_START_QUERY,
  SSO_SETTINGS,
} from './sso.openapi.js';

/** The browser's binding to a started sign-in: SameSite=Lax, since the provider sends the browser back cross-site. */
export const SSO_FLOW_COOKIE = '__Host-sso';
const FLOW_COOKIE_PATH = '/';

/** The recovery code is the owner's break-glass: few tries per email and address, and per address. */
const RECOVERY_RULE = { name: 'sso-recovery', limit: 20, windowSeconds: 15 * 60 } as const;
const RECOVERY_ADDRESS_RULE = { name: 'sso-recovery-address', limit: 100, windowSeconds: 15 * 60 } as const;

/**
 * Where the provider sends the browser back; registered at the provider as the redirect URI. Normalized as a
 * URL prints itself (no default port), so the authorization and token requests name exactly the same one.
 */
function redirectUri(request: FastifyRequest, organizationId: string): string {
  const path = `/api/v2/auth/sso/${encodeURIComponent(organizationId)}/callback`;
  return new URL(`${request.protocol}://${request.host}${path}`).href;
}

/** The settings are the owner's (the Roles table's `sso.manage`), checked by the organization access layer. */
const OWNER = manageWith('sso.manage');
const SIGN_IN = { surface: 'public', permission: 'auth.login' } as const;

/** Rule 12, settings: owner only, browser session with CSRF on writes. */
@OrganizationRoutes({ operationIdsOf: null })
export class SsoSettingsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SingleSignOn) private readonly sso: SingleSignOn,
  ) {}

  /** Runs an owner's command on the SSO stream and answers the settings it leaves. */
  private async settingsAfter(
    request: FastifyRequest,
    organizationId: string,
    command: Command<SsoState>,
  ): Promise<SsoSettingsView> {
    const state = await this.commands.execute(command);
    return settingsView(organizationId, state, redirectUri(request, organizationId));
  }

  @Route({
    method: 'GET',
    path: ':orgId/sso',
    access: OWNER,
    summary: 'Single sign-on settings: provider, recovery code state, enforcement (owner)',
    answer: { status: 200, schema: SSO_SETTINGS },
  })
  settings(
    @CurrentCaller() { principal, orgId: organizationId }: Caller<'orgId'>,
    @Req() request: FastifyRequest,
  ): Promise<SsoSettingsView> {
    return this.sso.settings(principal, organizationId, redirectUri(request, organizationId));
  }

  @Route({
    method: 'PUT',
    path: ':orgId/sso',
    access: OWNER,
    summary: 'Configure the OpenID Connect provider (issuer, client id, client secret) (owner)',
    answer: { status: 200, schema: SSO_SETTINGS },
    errors: [409],
  })
  async configure(
    @CurrentCaller() { principal, orgId: organizationId }: Caller<'orgId'>,
    @Body() body: ConfigureSsoBody,
    @Req() request: FastifyRequest,
  ): Promise<SsoSettingsView> {
    return this.settingsAfter(
      request,
      organizationId,
      new ConfigureSsoProvider(principal, organizationId, body, String(request.id)),
    );
  }

  @Route({
    method: 'POST',
    path: ':orgId/sso/recovery-code',
    access: OWNER,
    summary: 'Issue a new recovery code; shown once, replaces the previous one (owner)',
    answer: {
      status: 201,
      schema: ISSUED_RECOVERY_CODE,
      description: 'Issued: the code is in this answer only',
    },
    errors: [409],
  })
  async issueRecoveryCode(
    @CurrentCaller() { principal, orgId: organizationId }: Caller<'orgId'>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ recovery_code: string; settings: SsoSettingsView }> {
    void reply.header('cache-control', 'no-store');
    const issued = await this.commands.execute(
      new IssueSsoRecoveryCode(principal, organizationId, String(request.id)),
    );
    return {
      recovery_code: issued.recoveryCode,
      settings: settingsView(organizationId, issued.state, redirectUri(request, organizationId)),
    };
  }

  @Route({
    method: 'POST',
    path: ':orgId/sso/recovery-code/test',
    access: OWNER,
    summary: 'Prove the saved recovery code is the current one (does not use it up) (owner)',
    answer: { status: 200, schema: SSO_SETTINGS },
    errors: [409],
  })
  async testRecoveryCode(
    @CurrentCaller() { principal, orgId: organizationId }: Caller<'orgId'>,
    @Body() body: RecoveryCodeBody,
    @Req() request: FastifyRequest,
  ): Promise<SsoSettingsView> {
    return this.settingsAfter(
      request,
      organizationId,
      new TestSsoRecoveryCode(principal, organizationId, body.recovery_code, String(request.id)),
    );
  }

  @Route({
    method: 'POST',
    path: ':orgId/sso/recovery-code/saved',
    access: OWNER,
    summary: 'Confirm the recovery code is saved somewhere safe (owner)',
    answer: { status: 200, schema: SSO_SETTINGS },
    errors: [409],
  })
  async acknowledgeRecoveryCode(
    @CurrentCaller() { principal, orgId: organizationId }: Caller<'orgId'>,
    @Req() request: FastifyRequest,
  ): Promise<SsoSettingsView> {
    return this.settingsAfter(
      request,
      organizationId,
      new AcknowledgeSsoRecoveryCode(principal, organizationId, String(request.id)),
    );
  }

  @Route({
    method: 'PUT',
    path: ':orgId/sso/enforcement',
    access: OWNER,
    summary: 'Turn staff SSO enforcement on or off (owner); on needs a tested and saved recovery code',
    answer: { status: 200, schema: SSO_SETTINGS },
    errors: [409],
  })
  async setEnforcement(
    @CurrentCaller() { principal, orgId: organizationId }: Caller<'orgId'>,
    @Body() body: EnforcementBody,
    @Req() request: FastifyRequest,
  ): Promise<SsoSettingsView> {
    return this.settingsAfter(
      request,
      organizationId,
      new SetSsoEnforcement(principal, organizationId, body.enforced, String(request.id)),
    );
  }
}

/** Rule 12, signing in: public routes (signing in is how a session starts), like the password login. */
@ApiTags('auth')
@Controller('api/v2/auth/sso/:orgId')
export class SsoSignInController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SingleSignOn) private readonly sso: SingleSignOn,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Route({
    method: 'GET',
    path: 'start',
    access: SIGN_IN,
    summary: "Start staff sign-in: redirects to the organization's OpenID Connect provider",
    answer: {
      status: 302,
      redirect: "To the organization's OpenID Connect provider",
      headers: {
        'Set-Cookie': {
          description: '__Host-sso: binds this browser to the started sign-in',
          schema: { type: 'string' },
        },
      },
    },
    errors: [409, 503],
    query: SIGN_IN_START_QUERY,
  })
  async start(
    @Param('orgId') organizationId: string,
    @Query('return_to') returnTo: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const started = await this.sso.start(
      organizationId,
      redirectUri(request, organizationId),
      safeReturnTo(returnTo),
    );
    void reply
      .header('cache-control', 'no-store')
      .header(
        'set-cookie',
        `${SSO_FLOW_COOKIE}=${started.flowId}; Path=${FLOW_COOKIE_PATH}; Max-Age=${started.maxAgeSeconds}; HttpOnly; Secure; SameSite=Lax`,
      )
      .redirect(started.authorizationUrl, 302);
  }

  @Route({
    method: 'GET',
    path: 'callback',
    access: SIGN_IN,
    summary: 'The provider returns here; signs the staff member in to the organization',
    answer: {
      status: 303,
      redirect: 'Signed in: to return_to, with the session cookies',
      headers: SESSION_COOKIES,
    },
    errors: [401, 403, 409, 503],
    query: CALLBACK_QUERY,
  })
  async callback(
    @Param('orgId') organizationId: string,
    @Req() request: AuthenticatedRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const cookies = parseCookies(request.headers.cookie);
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    const clearFlow = `${SSO_FLOW_COOKIE}=; Path=${FLOW_COOKIE_PATH}; Max-Age=0; HttpOnly; Secure; SameSite=Lax`;
    let signedIn: { accountId: string; returnTo: string };
    try {
      signedIn = await this.commands.execute(
        new CompleteSsoSignIn(organizationId, cookies[SSO_FLOW_COOKIE], query, String(request.id)),
      );
    } catch (error) {
      void reply.header('set-cookie', clearFlow);
      throw error;
    }
    const session = await this.openSession(request, signedIn.accountId, organizationId);
    void reply
      .header('cache-control', 'no-store')
      .header('set-cookie', [...session.cookies, clearFlow])
      .redirect(signedIn.returnTo, 303);
  }

  @Route({
    method: 'POST',
    path: 'recovery',
    access: SIGN_IN,
    summary: "The owner's sign-in when the provider is down: email, password and the recovery code (one use)",
    answer: {
      status: 200,
      schema: RECOVERY_SIGN_IN,
      description: 'Signed in with the recovery code (used up)',
      headers: SESSION_COOKIES,
    },
    errors: [401, 403, 409, 429, 503],
  })
  async recovery(
    @Param('orgId') organizationId: string,
    @Body() body: RecoverySignInBody,
    @Req() request: AuthenticatedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{
    account_id: string;
    organization_id: string;
    csrf_token: string;
    expires_at: string;
    recovery_code_used: true;
  }> {
    const email = body.email.trim().toLowerCase();
    enforce(
      await this.rateLimiter.consume(RECOVERY_ADDRESS_RULE, request.ip),
      'too many recovery attempts from this address; wait before retrying',
    );
    enforce(
      await this.rateLimiter.consume(RECOVERY_RULE, `${organizationId}|${email}|${request.ip}`),
      'too many recovery attempts; wait before retrying',
    );
    const { accountId } = await this.commands.execute(
      new SignInWithRecoveryCode(organizationId, { ...body, email }, String(request.id)),
    );
    const session = await this.openSession(request, accountId, organizationId);
    void reply.header('cache-control', 'no-store').header('set-cookie', session.cookies);
    return {
      account_id: accountId,
      organization_id: organizationId,
      csrf_token: session.csrfToken,
      expires_at: session.expiresAt.toISOString(),
      recovery_code_used: true,
    };
  }

  /** A new server-side session switched to the organization, with the same cookies as the password login. */
  private async openSession(
    request: FastifyRequest,
    accountId: string,
    organizationId: string,
  ): Promise<{ cookies: string[]; csrfToken: string; expiresAt: Date }> {
    // A session id is never reused across a sign-in (fixation): end whatever session the browser brought.
    const previous = parseCookies(request.headers.cookie)[SESSION_COOKIE];
    if (previous) await this.sessions.revoke(previous);
    const session = await this.sessions.create(accountId, {
      organizationId,
      userAgent: String(request.headers['user-agent'] ?? ''),
    });
    // Staff start in General research, as after a switch (rule 2); a session that cannot enter is not kept.
    await this.sso
      .enterWorkspace(accountId, organizationId, session.sessionId)
      .catch(async (error: unknown) => {
        await this.sessions.revoke(session.sessionId);
        throw error;
      });
    const csrfToken = csrfTokenFor(session.sessionId, this.secrets.csrfSecret);
    const maxAge = Math.max(1, Math.floor((session.expiresAt.getTime() - this.clock.now().getTime()) / 1000));
    return {
      cookies: sessionCookies(session.sessionId, csrfToken, maxAge),
      csrfToken,
      expiresAt: session.expiresAt,
    };
  }
}

/** Only a path on this service (no scheme, no `//host`, no backslash tricks): never an open redirect. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\s]/.test(value)) return '/';
  return value;
}
