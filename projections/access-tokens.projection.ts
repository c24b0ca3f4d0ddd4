import type { AccessTokenIssued, AccessTokenRevoked } from '../src/accounts/domain/account-access.js';
import type { OAuthAppAuthorized, OAuthGrantRevoked } from '../src/accounts/domain/oauth-grant.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';

/**
 * OAuth access tokens by token id (ADR 74): what the account's token list shows, and what the guard looks up
 * (by id) in front of every bearer token request to refuse a revoked one. Never the token itself.
 * Tokens issued before a password change are refused by the account's `accessTokensIssuedBefore` (ADR 75),
 * not here. A token's document is dropped once it expired before a later issuance of the same account: an
 * expired token is refused by its signature check, so the collection holds about the live tokens only.
 */
export interface AccessTokenDocument {
  /** The token's `jti`. */
  readonly id: string;
  readonly accountId: string;
  readonly client: string;
  readonly scopes: readonly string[];
  readonly issuedAt: string;
  readonly expiresAt: string;
  readonly revokedAt: string | null;
  /** Tokens of the OAuth authorization server (ADR 106): refused too once their grant is revoked. */
  readonly grantId?: string;
  readonly clientId?: string;
  readonly [field: string]: unknown;
}

/** An account's authorization of an OAuth client (ADR 107): what `GET /api/v2/auth/apps` lists. */
export interface OAuthGrantDocument {
  /** The grant id. */
  readonly id: string;
  readonly accountId: string;
  readonly clientId: string;
  readonly clientName: string;
  readonly redirectHost: string;
  readonly scopes: readonly string[];
  readonly authorizedAt: string;
  readonly lastIssuedAt: string | null;
  readonly revokedAt: string | null;
  readonly revokedReason: string | null;
  readonly [field: string]: unknown;
}

export const ACCESS_TOKENS = 'access_tokens';
export const OAUTH_GRANTS = 'oauth_grants';

type Handled = AccessTokenIssued | AccessTokenRevoked | OAuthAppAuthorized | OAuthGrantRevoked;

export const accessTokensProjection: ProjectionDefinition<Handled> = {
  name: 'access-tokens',
  // 2: OAuth grants and their tokens (ADR 106).
  version: 2,
  collections: {
    [ACCESS_TOKENS]: {
      indexes: [
        {
          name: 'by_account_expiry',
          fields: [
            ['accountId', 1],
            ['expiresAt', 1],
          ],
        },
      ],
    },
    [OAUTH_GRANTS]: {
      indexes: [
        {
          name: 'by_account_client',
          fields: [
            ['accountId', 1],
            ['clientId', 1],
          ],
        },
      ],
    },
  },
  handles: ['AccessTokenIssued', 'AccessTokenRevoked', 'OAuthAppAuthorized', 'OAuthGrantRevoked'],
  reads: (event) =>
    event.type === 'OAuthAppAuthorized' || event.type === 'OAuthGrantRevoked'
      ? [{ collection: OAUTH_GRANTS, id: event.data.grantId }]
      : event.type === 'AccessTokenIssued' && event.data.grantId
        ? [
            { collection: ACCESS_TOKENS, id: event.data.tokenId },
            { collection: OAUTH_GRANTS, id: event.data.grantId },
          ]
        : [{ collection: ACCESS_TOKENS, id: event.data.tokenId }],
  apply(event, view) {
    if (event.type === 'OAuthAppAuthorized') {
      const data = event.data;
      view.put(OAUTH_GRANTS, {
        id: data.grantId,
        accountId: data.accountId,
        clientId: data.clientId,
        clientName: data.clientName,
        redirectHost: data.redirectHost,
        scopes: [...data.scopes],
        authorizedAt: data.at,
        lastIssuedAt: null,
        revokedAt: null,
        revokedReason: null,
      });
    } else if (event.type === 'OAuthGrantRevoked') {
      if (view.get(OAUTH_GRANTS, event.data.grantId))
        view.patch(OAUTH_GRANTS, event.data.grantId, {
          revokedAt: event.data.at,
          revokedReason: event.data.reason,
        });
    } else if (event.type === 'AccessTokenIssued') {
      const data = event.data;
      if (data.grantId && view.get(OAUTH_GRANTS, data.grantId))
        view.patch(OAUTH_GRANTS, data.grantId, { lastIssuedAt: data.at });
      view.deleteWhere(ACCESS_TOKENS, { accountId: data.accountId, expiresAt: { $lte: data.at } });
      view.put(ACCESS_TOKENS, {
        id: data.tokenId,
        accountId: data.accountId,
        client: data.client,
        scopes: [...data.scopes],
        issuedAt: data.issuedAt ?? data.at,
        expiresAt: data.expiresAt,
        revokedAt: null,
        ...(data.grantId ? { grantId: data.grantId, clientId: data.clientId } : {}),
      });
    } else {
      const data = event.data;
      if (view.get(ACCESS_TOKENS, data.tokenId))
        view.patch(ACCESS_TOKENS, data.tokenId, { revokedAt: data.at });
    }
  },
};
