import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { READ_TOGETHER, type ReadTogether } from '../database/sql-database.js';
import { ServiceError } from '../errors/service-error.js';
import {
  ACCESS_RULE,
  PERSONAL_RESEARCH_GATE,
  PRINCIPAL_DIRECTORY,
  SERVICE_SCOPE,
  type AccessRule,
  type PersonalResearchGate,
  type Principal,
  type PrincipalDirectory,
} from './access.js';
import {
  accessTokenRevocation,
  AccessTokens,
  looksLikeJwt,
  type VerifiedAccessToken,
} from './access-tokens.js';
import { apiKeyMatches, parseApiKey } from './api-keys.js';
import { CSRF_COOKIE, parseCookies, SESSION_COOKIE } from './cookies.js';
import { CSRF_HEADER, csrfTokenMatches } from './csrf.js';
import { ServiceSecrets } from './secrets.js';
import { SessionStore } from './sessions.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/**
 * The one gate in front of every route: reads the route's AccessRule and accepts only the credential its
 * surface allows. Contract rules on authentication live here, not in controllers.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(PRINCIPAL_DIRECTORY) private readonly directory: PrincipalDirectory,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(AccessTokens) private readonly tokens: AccessTokens,
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Optional()
    @Inject(PERSONAL_RESEARCH_GATE)
    private readonly personalResearch?: PersonalResearchGate,
    @Optional()
    @Inject(READ_TOGETHER)
    private readonly readTogether?: ReadTogether,
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
        // Every lookup below is a read: one read-only transaction instead of one commit each (ADR 104). Each
        // statement still reads what was committed before it began, so a revocation counts at once as before.
        request.principal = await (this.readTogether
          ? this.readTogether(() => this.personalApi(request, rule))
          : this.personalApi(request, rule));
        return true;
      case 'session':
        request.principal = await this.session(request);
        return true;
    }
  }

  private async personalApi(request: FastifyRequest, rule: AccessRule): Promise<Principal> {
    const credential = personalCredential(request);
    if (!credential) {
      throw new ServiceError(
        'unauthenticated',
        'send a personal API key in X-API-KEY or Authorization: Bearer',
      );
    }
    let principal: Principal;
    let token: VerifiedAccessToken | null = null;
    if (looksLikeJwt(credential)) {
      token = await this.tokens.verify(credential);
      if (!token) throw new ServiceError('unauthenticated', 'the access token is invalid or expired');
      if (!token.scopes.includes(SERVICE_SCOPE)) {
        throw new ServiceError('insufficient_scope', `the access token lacks the ${SERVICE_SCOPE} scope`, {
          required_scope: SERVICE_SCOPE,
        });
      }
      principal = {
        accountId: token.accountId,
        via: 'access_token',
        channel: token.client === 'mcp' ? 'mcp' : 'api',
        scopes: token.scopes,
        tokenId: token.tokenId,
        ...(token.clientId !== undefined ? { clientId: token.clientId } : {}),
      };
    } else {
      const parsed = parseApiKey(credential);
      const stored = parsed ? await this.directory.findApiKey(parsed.keyId) : null;
      if (!parsed || !stored || stored.revoked || !apiKeyMatches(parsed.secret, stored.secretHash)) {
        throw new ServiceError('unauthenticated', 'the API key is invalid or revoked');
      }
      principal = {
        accountId: stored.accountId,
        via: 'api_key',
        channel: 'api',
        scopes: [SERVICE_SCOPE],
        keyId: parsed.keyId,
      };
    }
    // Asked alongside the standing (not after it): it sits in front of every personal data request.
    // A paid result stays reachable for its payer even after joining an organization: only new requests are refused.
    const personalResearch =
      rule.personalData === true ? settled(this.personalResearch?.refusal(principal.accountId)) : null;
    // A token's revocation is one lookup by id, asked alongside the standing, which carries the account's
    // invalidation (ADR 74, 75). Both are read from the shared read store on every request: nothing cached here.
    const [standing, tokenRevokedAt] = await Promise.all([
      this.directory.accountStanding(principal.accountId),
      token ? this.directory.accessTokenRevokedAt(token.tokenId) : Promise.resolve(null),
    ]);
    if (!standing.exists) {
      throw new ServiceError('unauthenticated', 'the credential belongs to no account');
    }
    const revocation = token
      ? accessTokenRevocation(token, tokenRevokedAt, standing.accessTokensIssuedBefore)
      : null;
    if (revocation === 'revoked') throw new ServiceError('token_revoked', 'the access token was revoked');
    if (revocation === 'invalidated') {
      throw new ServiceError(
        'token_revoked',
        "the access token was issued before the account's password changed; create a new one",
      );
    }
    // Organization rule 1 before Authentication 3: a member's personal research is unavailable, whatever its balance.
    const refusal = await personalResearch;
    if (refusal && 'error' in refusal) throw refusal.error;
    if (refusal?.value) throw refusal.value;

    // A paid result (`'paid_result'`) stays reachable whatever the balance now is: only new requests are gated.
    if (rule.personalData === true && !standing.personalData.allowed) {
      throw new ServiceError(
        'entitlement_required',
        standing.personalData.message,
        standing.personalData.details,
      );
    }
    return principal;
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

/** X-API-KEY first, else Authorization: Bearer. Cookies are never a personal API credential. */
function personalCredential(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  const apiKey = (Array.isArray(header) ? header[0] : header)?.trim();
  if (apiKey) return apiKey;
  const authorization = request.headers.authorization?.trim();
  if (authorization && /^bearer\s+/i.test(authorization))
    return authorization.replace(/^bearer\s+/i, '').trim() || undefined;
  return undefined;
}

/** A promise that never rejects (so nothing goes unhandled while another check throws first). */
function settled<T>(promise: Promise<T> | undefined): Promise<{ value: T | undefined } | { error: unknown }> {
  return Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}
