import type { ApiKeyIssued, ApiKeyRevoked } from '../src/accounts/domain/account.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';

/** Personal API keys by key id (the visible prefix); the secret's hash is in the credential store (ADR 65). */
export interface ApiKeyDocument {
  readonly id: string;
  readonly accountId: string;
  readonly prefix: string;
  readonly label: string;
  readonly issuedAt: string;
  readonly revokedAt: string | null;
  readonly [field: string]: unknown;
}

export const API_KEYS = 'api_keys';

export const apiKeysProjection: ProjectionDefinition<ApiKeyIssued | ApiKeyRevoked> = {
  name: 'api-keys',
  // 2: no secretHash (ADR 65).
  version: 2,
  collections: {
    [API_KEYS]: {
      indexes: [
        {
          name: 'by_account',
          fields: [
            ['accountId', 1],
            ['issuedAt', -1],
          ],
        },
      ],
    },
  },
  handles: ['ApiKeyIssued', 'ApiKeyRevoked'],
  reads: (event) => [{ collection: API_KEYS, id: event.data.keyId }],
  apply(event, view) {
    const accountId = event.streamId.slice('account-'.length);
    if (event.type === 'ApiKeyIssued') {
      const data = event.data;
      view.put(API_KEYS, {
        id: data.keyId,
        accountId,
        prefix: data.prefix,
        label: data.label,
        issuedAt: data.issuedAt,
        revokedAt: null,
      });
    } else {
      const data = event.data;
      if (view.get(API_KEYS, data.keyId)) view.patch(API_KEYS, data.keyId, { revokedAt: data.revokedAt });
    }
  },
};
