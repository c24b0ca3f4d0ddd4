import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OPEN_READ_GROUP, type OpenReadGroup, type ReadGroupHandle } from '../database/sql-database.js';
import { ServiceError } from '../errors/service-error.js';
import {
  ACCESS_RULE,
  CONTINUES_READS,
  OPERATOR_AUTHENTICATOR,
  type AccessRule,
  type OperatorAuthenticator,
  type OperatorPrincipal,
  type Principal,
} from './access.js';
import { CSRF_COOKIE, parseCookies, SESSION_COOKIE } from './cookies.js';
import { CSRF_HEADER, csrfTokenMatches } from './csrf.js';
import { PersonalCredentials } from './personal-credentials.js';
import { ServiceSecrets } from './secrets.js';
import { SessionStore } from './sessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type AuthenticatedRequest = FastifyRequest & {
  principal?: Principal;
  readGroup?: ReadGroupHandle;
  /** On the `operator` surface: the operator whose credential was accepted. */
  operator?: OperatorPrincipal;
};

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * The one gate in front of every route: reads the route's AccessRule and accepts only the credential its
 * surface allows. Contract rules on authentication live here (the personal credential rules in
 * PersonalCredentials, shared with the MCP endpoint), not in controllers.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(PersonalCredentials) private readonly personal: PersonalCredentials,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Optional()
    @Inject(OPEN_READ_GROUP)
    private readonly openReadGroup?: OpenReadGroup,
    @Optional()
    @Inject(OPERATOR_AUTHENTICATOR)
    private readonly operators?: OperatorAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!rule) throw new ServiceError('forbidden', 'this route declares no access rule');
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    switch (rule.surface) {
      case 'public':
        return true;
      case 'personal_api':
      case 'mcp':
        // On a search route the guard's reads stay open for the handler's own lookups (ContinuesReads, ADR 111):
        // one read-only transaction for both; PersonalCredentials' grouped reads join it.
        if (rule.surface === 'personal_api' && this.continuesReads(context)) {
          const group = this.openReadGroup?.();
          if (group) {
            request.principal = await this.handingOn(group, context, () =>
              this.personal.authenticate(request, rule),
            );
            request.readGroup = group;
            return true;
          }
        }
        request.principal = await this.personal.authenticate(request, rule);
        return true;
      case 'session':
        request.principal = await this.session(request);
        return true;
      case 'operator':
        request.operator = await this.operator(request);
        return true;
    }
  }

  /** `Authorization: Bearer opc_…` and nothing else: a session or a personal credential is no operator's. */
  private async operator(request: FastifyRequest): Promise<OperatorPrincipal> {
    const header = request.headers.authorization;
    const credential = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (!credential || !credential.startsWith('opc_'))
      throw new ServiceError(
        'unauthenticated',
        'this route needs an operator credential: Authorization: Bearer opc_<id>_<secret>',
      );
    if (!this.operators)
      throw new ServiceError('unauthenticated', 'operator credentials are not accepted here');
    return this.operators.authenticate(credential);
  }

  private continuesReads(context: ExecutionContext): boolean {
    return this.reflector.get<boolean | undefined>(CONTINUES_READS, context.getHandler()) === true;
  }

  /**
   * Runs the guard's reads in `group` and leaves it open for the handler (ContinuesReads, ADR 111): a refusal
   * ends it at once; otherwise the reply's end ends it, should the handler not have.
   */
  private async handingOn<T>(
    group: ReadGroupHandle,
    context: ExecutionContext,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      const value = await group.run(work);
      context
        .switchToHttp()
        .getResponse<FastifyReply>()
        .raw.once('close', () => void group.end());
      return value;
    } catch (error) {
      await group.end();
      throw error;
    }
  }

  private async session(request: FastifyRequest): Promise<Principal> {
    const cookies = parseCookies(request.headers.cookie);
    const sessionId = cookies[SESSION_COOKIE];
    const session = sessionId ? await this.sessions.resolve(sessionId) : null;
    if (!sessionId || !session)
      throw new ServiceError('unauthenticated', 'sign in: this route needs a browser session');
    if (!SAFE_METHODS.has(request.method)) {
      const header = request.headers[CSRF_HEADER];
      const token = Array.isArray(header) ? header[0] : header;
      if (!csrfTokenMatches(sessionId, token, cookies[CSRF_COOKIE], this.secrets.csrfSecret)) {
        throw new ServiceError(
          'csrf_failed',
          `send the ${CSRF_COOKIE} cookie value in the X-CSRF-Token header`,
        );
      }
    }
    return {
      accountId: session.accountId,
      via: 'session',
      channel: 'session',
      scopes: [],
      sessionId,
      organizationId: session.organizationId ?? null,
    };
  }
}
