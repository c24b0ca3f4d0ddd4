import type { AccessTokenIssued, AccessTokenRevoked } from '../src/accounts/domain/account-access.js';
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
  readonly [field: string]: unknown;
}

export const ACCESS_TOKENS = 'access_tokens';

export const accessTokensProjection: ProjectionDefinition<AccessTokenIssued | AccessTokenRevoked> = {
  name: 'access-tokens',
  version: 1,
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
  },
  handles: ['AccessTokenIssued', 'AccessTokenRevoked'],
  reads: (event) => [{ collection: ACCESS_TOKENS, id: event.data.tokenId }],
  apply(event, view) {
    if (event.type === 'AccessTokenIssued') {
      const data = event.data;
      view.deleteWhere(ACCESS_TOKENS, { accountId: data.accountId, expiresAt: { $lte: data.at } });
      view.put(ACCESS_TOKENS, {
        id: data.tokenId,
        accountId: data.accountId,
        client: data.client,
        scopes: [...data.scopes],
        issuedAt: data.issuedAt ?? data.at,
        expiresAt: data.expiresAt,
        revokedAt: null,
      });
    } else {
      const data = event.data;
      if (view.get(ACCESS_TOKENS, data.tokenId))
        view.patch(ACCESS_TOKENS, data.tokenId, { revokedAt: data.at });
    }
  },
};
