/**
 * An account's authorization of a third-party OAuth client (ADR 106, 107): one stream per grant,
 * `oauth-grant-<grantId>`, holding the consent, every access token issued under it (by code or by refresh),
 * reuse detection and the revocation. Never a token, a code or a refresh token: tokens are named by their id.
 *
 * Contract rules decided here: a Free account holding only its monthly allocation cannot obtain a token
 * (Authentication 2: refused at consent and at every issuance); the only scope is `service.read`; a revoked
 * grant issues nothing more.
 */
import { ServiceError } from '../../platform/errors/service-error.js';
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import type { AccessTokenIssued } from './account-access.js';
import type { PersonalDataDecision } from './entitlements.js';

export const OAUTH_SCOPE = 'service.read';
export const oauthGrantStreamId = (grantId: string): string => `oauth-grant-${grantId}`;

export type OAuthGrantRevocationReason =
  'revoked_by_account' | 'revoked_by_client' | 'refresh_token_reused' | 'authorization_code_reused';

/** The account consented, on its browser session, to the client acting for it with `scopes` on `resource`. */
export type OAuthAppAuthorized = DomainEvent<
  'OAuthAppAuthorized',
  {
    accountId: string;
    grantId: string;
    clientId: string;
    clientName: string;
    redirectHost: string;
    scopes: string[];
    resource: string;
    at: string;
  }
>;
/** A refresh token or an authorization code was presented a second time: the grant is revoked with it. */
export type OAuthGrantReuseDetected = DomainEvent<
  'OAuthGrantReuseDetected',
  {
    accountId: string;
    grantId: string;
    clientId: string;
    artifact: 'refresh_token' | 'authorization_code';
    at: string;
  }
>;
export type OAuthGrantRevoked = DomainEvent<
  'OAuthGrantRevoked',
  { accountId: string; grantId: string; clientId: string; reason: OAuthGrantRevocationReason; at: string }
>;
export type OAuthGrantEvent =
  OAuthAppAuthorized | AccessTokenIssued | OAuthGrantReuseDetected | OAuthGrantRevoked;

export interface AuthorizeApp {
  readonly type: 'AuthorizeApp';
  readonly accountId: string;
  readonly grantId: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectHost: string;
  readonly scopes: readonly string[];
  readonly resource: string;
}
export interface IssueOAuthAccessToken {
  readonly type: 'IssueOAuthAccessToken';
  readonly tokenId: string;
  readonly clientId: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  readonly scopes: readonly string[];
  readonly grantType: 'authorization_code' | 'refresh_token';
}
export interface DetectReuse {
  readonly type: 'DetectReuse';
  readonly artifact: 'refresh_token' | 'authorization_code';
}
export interface RevokeGrant {
  readonly type: 'RevokeGrant';
  readonly reason: OAuthGrantRevocationReason;
  /** When given, the grant must be this account's (an account revoking its app); else not found. */
  readonly accountId?: string;
}
export type OAuthGrantCommand = AuthorizeApp | IssueOAuthAccessToken | DetectReuse | RevokeGrant;

export interface OAuthGrantState {
  readonly status: 'none' | 'active' | 'revoked';
  readonly grantId: string | null;
  readonly accountId: string | null;
  readonly clientId: string | null;
}

export interface OAuthGrantContext {
  readonly now: Date;
  /** The account's token entitlement now (accessTokenDecision), asked for consent and issuance. */
  readonly entitlement?: PersonalDataDecision;
}

export const oauthGrantDecider: Decider<
  OAuthGrantCommand,
  OAuthGrantEvent,
  OAuthGrantState,
  OAuthGrantContext
> = {
  initialState: { status: 'none', grantId: null, accountId: null, clientId: null },

  decide(command, state, { now, entitlement }) {
    const at = now.toISOString();
    switch (command.type) {
      case 'AuthorizeApp': {
        if (state.status !== 'none')
          throw new ServiceError('already_exists', 'this grant was decided already');
        requireEntitlement(entitlement);
        if (command.scopes.length !== 1 || command.scopes[0] !== OAUTH_SCOPE) {
          throw new ServiceError('invalid_input', `the only scope is ${OAUTH_SCOPE}`, { field: 'scope' });
        }
        const { accountId, grantId, clientId, clientName, redirectHost, resource } = command;
        return [
          {
            type: 'OAuthAppAuthorized',
            data: {
              accountId,
              grantId,
              clientId,
              clientName,
              redirectHost,
              scopes: [OAUTH_SCOPE],
              resource,
              at,
            },
          },
        ];
      }
      case 'IssueOAuthAccessToken': {
        const { accountId, clientId, grantId } = live(state);
        if (command.clientId !== clientId)
          throw new ServiceError('forbidden', 'the grant is another client’s');
        requireEntitlement(entitlement);
        return [
          {
            type: 'AccessTokenIssued',
            data: {
              accountId,
              tokenId: command.tokenId,
              client: 'api',
              scopes: [...command.scopes],
              issuedAt: command.issuedAt.toISOString(),
              expiresAt: command.expiresAt.toISOString(),
              at,
              clientId,
              grantId,
              grantType: command.grantType,
            },
          },
        ];
      }
      case 'DetectReuse': {
        if (state.status === 'none') throw new ServiceError('not_found', 'no such grant');
        const { accountId, clientId, grantId } = known(state);
        const reuse: OAuthGrantEvent = {
          type: 'OAuthGrantReuseDetected',
          data: { accountId, grantId, clientId, artifact: command.artifact, at },
        };
        if (state.status === 'revoked') return [reuse];
        const reason =
          command.artifact === 'refresh_token' ? 'refresh_token_reused' : 'authorization_code_reused';
        return [reuse, { type: 'OAuthGrantRevoked', data: { accountId, grantId, clientId, reason, at } }];
      }
      case 'RevokeGrant': {
        if (
          state.status === 'none' ||
          (command.accountId !== undefined && command.accountId !== state.accountId)
        ) {
          throw new ServiceError('not_found', 'no such authorized app');
        }
        if (state.status === 'revoked') return [];
        const { accountId, clientId, grantId } = known(state);
        return [
          { type: 'OAuthGrantRevoked', data: { accountId, grantId, clientId, reason: command.reason, at } },
        ];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'OAuthAppAuthorized':
        return {
          status: 'active',
          grantId: event.data.grantId,
          accountId: event.data.accountId,
          clientId: event.data.clientId,
        };
      case 'OAuthGrantRevoked':
        return { ...state, status: 'revoked' };
      default:
        return state;
    }
  },
};

function known(state: OAuthGrantState): { accountId: string; clientId: string; grantId: string } {
  if (state.status === 'none' || !state.accountId || !state.clientId || !state.grantId) {
    throw new ServiceError('not_found', 'no such grant');
  }
  return { accountId: state.accountId, clientId: state.clientId, grantId: state.grantId };
}

function live(state: OAuthGrantState): { accountId: string; clientId: string; grantId: string } {
  if (state.status === 'revoked') throw new ServiceError('token_revoked', 'the authorization was revoked');
  return known(state);
}

function requireEntitlement(entitlement: PersonalDataDecision | undefined): void {
  if (!entitlement) throw new ServiceError('entitlement_required', 'the account entitlement is unknown');
  if (!entitlement.allowed)
    throw new ServiceError('entitlement_required', entitlement.message, entitlement.details);
}
