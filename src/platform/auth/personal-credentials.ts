import { Inject, Injectable, Optional } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { READ_TOGETHER, type ReadTogether } from '../database/sql-database.js';
import { ServiceError } from '../errors/service-error.js';
import {
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

/**
 * The personal credential rules, once: a personal API key or an OAuth access token (`service.read`), the account's
 * standing, the token's revocation (ADR 74, 75), organization rule 1 and Authentication 3. The AuthGuard asks it
 * for every personal API and MCP request, and the MCP endpoint again for each tool call with the rule of the route
 * the tool mirrors (ADR 108), so no second copy of these rules exists.
 */
@Injectable()
export class PersonalCredentials {
  constructor(
    @Inject(PRINCIPAL_DIRECTORY) private readonly directory: PrincipalDirectory,
    @Inject(AccessTokens) private readonly tokens: AccessTokens,
    @Optional()
    @Inject(PERSONAL_RESEARCH_GATE)
    private readonly personalResearch?: PersonalResearchGate,
    @Optional()
    @Inject(READ_TOGETHER)
    private readonly readTogether?: ReadTogether,
  ) {}

  /**
   * The caller of a request under `rule` (surface `personal_api` or `mcp`), or the refusal. On the `mcp` surface
   * every credential acts on the `mcp` channel: its charges count in usage_mcp and its events name that surface.
   */
  authenticate(request: Pick<FastifyRequest, 'headers'>, rule: AccessRule): Promise<Principal> {
    // Every lookup below is a read: one read-only transaction instead of one commit each (ADR 104). Each
    // statement still reads what was committed before it began, so a revocation counts at once as before.
    return this.readTogether
      ? this.readTogether(() => this.verify(request, rule))
      : this.verify(request, rule);
  }

  private async verify(request: Pick<FastifyRequest, 'headers'>, rule: AccessRule): Promise<Principal> {
    const credential = personalCredential(request);
    if (!credential) {
      throw new ServiceError(
        'unauthenticated',
        rule.surface === 'mcp'
          ? 'send a personal API key or an OAuth access token in Authorization: Bearer'
          : 'send a personal API key in X-API-KEY or Authorization: Bearer',
      );
    }
    const mcp = rule.surface === 'mcp';
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
        channel: mcp || token.client === 'mcp' ? 'mcp' : 'api',
        scopes: token.scopes,
        tokenId: token.tokenId,
        // The authorization server's tokens name their OAuth client: events of the call carry it (ADR 109).
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
        channel: mcp ? 'mcp' : 'api',
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
}

/** X-API-KEY first, else Authorization: Bearer. Cookies are never a personal API credential. */
function personalCredential(request: Pick<FastifyRequest, 'headers'>): string | undefined {
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
