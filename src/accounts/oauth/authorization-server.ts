/**
 * The OAuth 2.1 authorization server (ADR 106): oidc-provider, configured for authorization code with PKCE S256,
 * public clients registered dynamically (RFC 7591), rotating refresh tokens, revocation (RFC 7009) and resource
 * indicators (RFC 8707) naming this service only. Its access tokens are the service's own JWTs (same key,
 * `at+jwt`, the claims AccessTokens.verify requires), so the AuthGuard accepts them on every personal API route.
 *
 * Every decision goes through a command on the grant's stream: issuance (the JWT customizer, where the token's id
 * is known), reuse detection and revocation (the Grant adapter's destroy, which oidc-provider calls when it
 * revokes a grant). The issuer is publicOrigin: PUBLIC_URL, or the local origin a request came in on.
 */
import type { IncomingMessage } from 'node:http';
import { Logger } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type Provider from 'oidc-provider';
import type { Adapter, OidcContext } from 'oidc-provider';
import { createHmac } from 'node:crypto';
import { SERVICE_SCOPE } from '../../platform/auth/access.js';
import { OAuthIssuers } from '../../platform/auth/oauth-issuers.js';
import type { ServiceSecrets } from '../../platform/auth/secrets.js';
import { JWT_SIGNING_ALGORITHM } from '../../platform/auth/secrets.js';
import type { Clock } from '../../platform/clock/clock.js';
import { describeThrown } from '../../platform/errors/describe-thrown.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { commandEnvelope, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { accessTokenDecision } from '../domain/entitlements.js';
import { DetectOAuthReuse, IssueOAuthAccessToken, RevokeOAuthGrant } from '../commands/oauth.commands.js';
import type { AccountDirectory } from '../queries/account-directory.js';
import { escapeHtml, page } from './oauth-pages.js';
import type { OAuthStore } from './oauth-store.js';

export const OAUTH_PREFIX = '/oauth/';
export const INTERACTION_PREFIX = '/oauth/interaction/';
export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

/** The request id the HTTP layer gave a request, carried on the raw request into the provider's context. */
export const REQUEST_ID = Symbol('requestId');
export type RequestWithId = IncomingMessage & { [REQUEST_ID]?: string };

export interface AuthorizationServerPorts {
  readonly store: OAuthStore;
  readonly secrets: ServiceSecrets;
  readonly issuers: OAuthIssuers;
  readonly commands: CommandBus;
  readonly accounts: AccountDirectory;
  readonly clock: Clock;
}

type OidcProviderModule = typeof import('oidc-provider');
let oidcModule: Promise<OidcProviderModule> | undefined;
let oidc: OidcProviderModule | undefined;

/**
 * oidc-provider (Koa and its stack under it) is loaded by the first OAuth request, not by every start of the
 * service and of each CLI command: about 0.4 s of CPU a process that most processes never need.
 */
async function loadOidcProvider(): Promise<OidcProviderModule> {
  oidc ??= await (oidcModule ??= import('oidc-provider'));
  return oidc;
}

export class AuthorizationServer {
  private readonly providers = new Map<string, Provider>();
  private readonly logger = new Logger('AuthorizationServer');

  constructor(private readonly ports: AuthorizationServerPorts) {}

  /** The provider whose issuer is `issuer` (one per origin the service is reached at; one with PUBLIC_URL). */
  async providerFor(issuer: string): Promise<Provider> {
    let provider = this.providers.get(issuer);
    if (!provider) {
      const { default: OidcProvider, errors } = await loadOidcProvider();
      // Another request may have created it while the module loaded.
      provider = this.providers.get(issuer) ?? this.create(issuer, OidcProvider, errors);
      this.providers.set(issuer, provider);
      this.ports.issuers.remember(issuer);
    }
    return provider;
  }

  private create(
    issuer: string,
    OidcProvider: OidcProviderModule['default'],
    errors: OidcProviderModule['errors'],
  ): Provider {
    const { store, secrets, accounts } = this.ports;
    const resources = OAuthIssuers.resourcesOf(issuer);
    const provider: Provider = new OidcProvider(issuer, {
      adapter: (model: string) =>
        model === 'Grant' ? this.grantAdapter(store.adapterFor(model)) : store.adapterFor(model),
      jwks: { keys: [secrets.jwtPrivateJwk] },
      clientAuthMethods: ['none'],
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: JWT_SIGNING_ALGORITHM,
      },
      responseTypes: ['code'],
      scopes: [SERVICE_SCOPE],
      claims: { openid: ['sub'] },
      pkce: { required: () => true },
      // Cookie keys derived from the CSRF secret: stable across restarts, never the secret itself.
      cookies: {
        keys: [createHmac('sha256', secrets.csrfSecret).update('oauth-cookies').digest('base64url')],
      },
      ttl: {
        AccessToken: ACCESS_TOKEN_TTL_SECONDS,
        AuthorizationCode: 60,
        RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
        Grant: REFRESH_TOKEN_TTL_SECONDS,
        Interaction: 600,
        Session: 600,
        IdToken: 600,
      },
      routes: {
        authorization: '/oauth/authorize',
        token: '/oauth/token',
        registration: '/oauth/register',
        revocation: '/oauth/revoke',
        jwks: '/oauth/jwks',
        userinfo: '/oauth/userinfo',
        end_session: '/oauth/session/end',
        code_verification: '/oauth/device',
        device_authorization: '/oauth/device/auth',
        introspection: '/oauth/introspect',
        pushed_authorization_request: '/oauth/par',
        backchannel_authentication: '/oauth/backchannel',
        challenge: '/oauth/challenge',
      },
      features: {
        devInteractions: { enabled: false },
        registration: { enabled: true },
        revocation: {
          enabled: true,
          // A client revokes only what was issued to it.
          allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) =>
            token.clientId === client.clientId,
        },
        userinfo: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf ?? issuer,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx: unknown, resource: string) => {
            // RFC 8707: a token for any other resource is refused.
            if (!resources.includes(resource))
              throw new errors.InvalidTarget(`only ${resources.join(' or ')}`);
            return {
              scope: SERVICE_SCOPE,
              audience: resource,
              accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: JWT_SIGNING_ALGORITHM, kid: secrets.kid } },
            };
          },
        },
      },
      interactions: {
        url: async (_ctx: unknown, interaction: { uid: string }) => `${INTERACTION_PREFIX}${interaction.uid}`,
      },
      // Consent is asked at every authorization, on the account's own browser session (never the provider's).
      loadExistingGrant: async (ctx: OidcContext) => {
        const grantId = ctx.oidc.result?.consent?.grantId;
        return grantId ? provider.Grant.find(grantId) : undefined;
      },
      issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
        client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      // An app's refresh token lives its own 30 days, not the 10 minutes of the sign-in that granted it (the
      // provider's default binds it to that session unless offline_access was asked, a scope this service has not).
      expiresWithSession: async () => false,
      findAccount: async (ctx: OidcContext, sub: string) => {
        const account = await accounts.account(sub);
        if (!account) return undefined;
        if (ctx.oidc.route === 'token') {
          // Authentication 2, before any code or refresh token is spent: the same policy as the grant decider's.
          const decision = accessTokenDecision(accounts.plan(account), await accounts.purchasedBalance(sub));
          if (!decision.allowed) throw refusal(decision.message);
        }
        return { accountId: sub, claims: async () => ({ sub }) };
      },
      formats: {
        customizers: {
          jwt: async (ctx: OidcContext, token: IssuedToken, jwt: { payload: Record<string, unknown> }) =>
            this.recordIssuance(ctx, token, jwt.payload),
        },
      },
      renderError: async (ctx: OidcContext, out: Record<string, unknown>) => {
        ctx.type = 'html';
        ctx.body = page(
          'Authorization failed',
          `<p>${escapeHtml(String(out.error ?? 'error'))}: ${escapeHtml(String(out.error_description ?? ''))}</p>`,
        );
      },
    });
    // Answered to the client as server_error; logged here, where the cause is known.
    provider.on('server_error', (_ctx: unknown, error: unknown) => this.logger.error(describeThrown(error)));
    return provider;
  }

  /** Records the issuance (refused under a revoked grant or without entitlement) and completes the claims. */
  private async recordIssuance(ctx: OidcContext, token: IssuedToken, payload: Record<string, unknown>) {
    // The service's clock dates its tokens, as for every other token it issues: the verifier reads that clock,
    // and the provider's own (the system time) would make the two disagree wherever the clock is not the system's.
    const issuedAtMs = this.ports.clock.now().getTime();
    const iat = Math.floor(issuedAtMs / 1000);
    const exp = iat + (Number(payload.exp) - Number(payload.iat));
    payload.iat = iat;
    payload.exp = exp;
    payload.client = 'api';
    payload.iat_ms = issuedAtMs;
    const grantType =
      ctx.oidc.params?.grant_type === 'refresh_token' ? 'refresh_token' : 'authorization_code';
    try {
      await this.ports.commands.execute(
        new IssueOAuthAccessToken(
          token.grantId,
          {
            tokenId: String(payload.jti),
            clientId: token.clientId,
            issuedAt: new Date(issuedAtMs),
            expiresAt: new Date(exp * 1000),
            scopes: String(payload.scope ?? '')
              .split(' ')
              .filter(Boolean),
            grantType,
          },
          this.envelope(ctx, token.accountId, token.clientId),
        ),
      );
    } catch (error) {
      if (error instanceof ServiceError) throw refusal(error.message);
      throw error;
    }
  }

  /**
   * oidc-provider destroys a grant when it revokes it: at the token endpoint that is reuse of a refresh token or
   * code, at the revocation endpoint a client revoking its refresh token. Recorded first, then deleted.
   */
  private grantAdapter(adapter: Adapter): Adapter {
    return {
      ...adapter,
      destroy: async (grantId: string) => {
        const grant = await adapter.find(grantId);
        const ctx = oidc?.default.ctx;
        if (grant && ctx && typeof grant.accountId === 'string' && typeof grant.clientId === 'string') {
          const envelope = this.envelope(ctx, grant.accountId, grant.clientId);
          if (ctx.oidc.route === 'token') {
            const artifact =
              ctx.oidc.params?.grant_type === 'refresh_token' ? 'refresh_token' : 'authorization_code';
            await this.ports.commands.execute(new DetectOAuthReuse(grantId, artifact, envelope));
          } else {
            await this.ports.commands.execute(new RevokeOAuthGrant(grantId, 'revoked_by_client', envelope));
          }
        }
        await this.ports.store.revokeGrantArtifacts(grantId);
      },
    };
  }

  /** The token and revocation endpoints act for the grant's account, through the client (surface `api`). */
  private envelope(ctx: OidcContext, accountId: string, clientId: string): CommandEnvelope {
    const requestId = (ctx.req as RequestWithId | undefined)?.[REQUEST_ID];
    return commandEnvelope({
      actor: `account:${accountId}`,
      payer: `account:${accountId}`,
      credential: `oauth_client:${clientId}`,
      surface: 'api',
      ...(requestId !== undefined ? { correlationId: requestId, causationId: requestId, requestId } : {}),
    });
  }
}

/** An OAuth `invalid_grant` whose description is the service's reason (oidc-provider's own says only "invalid"). */
function refusal(reason: string): Error {
  // Only called inside the provider's own callbacks: the module is loaded.
  return new oidc!.errors.CustomOIDCProviderError('invalid_grant', reason);
}

/** The access token model fields the customizer reads. */
interface IssuedToken {
  readonly grantId: string;
  readonly clientId: string;
  readonly accountId: string;
}
