/**
 * Account events written before ADR 65 carried credential material. Schema 1 is read as schema 2: the hash is
 * named by the id the migration (legacy-account-credentials.ts) stores it under, derived from the hash
 * itself, so an event read before or after the migration folds to the same state.
 */
import { legacyCredentialId } from '../../platform/auth/credentials/credential-store.port.js';
import type { Upcaster } from '../../platform/event-sourcing/upcasters.js';
import { PASSWORD_CREDENTIAL } from '../domain/account.js';

/** `PasswordSet {passwordHash}` (or already migrated, `{credentialId}`) → `{credentialId}`. */
export function passwordSetWithoutHash(data: unknown): { credentialId: string } | undefined {
  const record = data as { passwordHash?: unknown; credentialId?: unknown } | null;
  if (typeof record?.passwordHash === 'string') {
    return { credentialId: legacyCredentialId(PASSWORD_CREDENTIAL, record.passwordHash) };
  }
  return undefined;
}

/** `ApiKeyIssued` without `secretHash` (kept under apiKeyCredentialId(keyId)). */
export function apiKeyIssuedWithoutHash(data: unknown): Record<string, unknown> | undefined {
  const record = data as Record<string, unknown> | null;
  if (!record || typeof record !== 'object' || !('secretHash' in record)) return undefined;
  const { secretHash: _moved, ...rest } = record;
  return rest;
}

export const accountUpcasters: readonly Upcaster[] = [
  { type: 'PasswordSet', fromVersion: 1, upcast: (data) => passwordSetWithoutHash(data) ?? data },
  { type: 'ApiKeyIssued', fromVersion: 1, upcast: (data) => apiKeyIssuedWithoutHash(data) ?? data },
];
