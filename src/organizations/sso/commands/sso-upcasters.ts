/**
 * SSO events written before ADR 65 carried the sealed client secret and the recovery code's hash. Schema 1 is
 * read as schema 2: the material is named by the id the migration (legacy-sso-credentials.ts) stores it
 * under, derived from the material itself, so an event read before or after the migration folds the same.
 */
import { legacyCredentialId } from '../../../platform/auth/credentials/credential-store.port.js';
import type { Upcaster } from '../../../platform/event-sourcing/upcasters.js';
import { SSO_CLIENT_SECRET_CREDENTIAL, SSO_RECOVERY_CODE_CREDENTIAL } from '../domain/sso.js';

/** The stored form of a sealed client secret in the credential store. */
export function sealedSecretMaterial(sealed: unknown): string {
  return JSON.stringify(sealed);
}

/** `SsoProviderConfigured {clientSecret}` → `{clientSecretId}`; undefined when there is nothing to move. */
export function providerConfiguredWithoutSecret(data: unknown): Record<string, unknown> | undefined {
  const record = data as Record<string, unknown> | null;
  if (!record || typeof record !== 'object' || !('clientSecret' in record)) return undefined;
  const { clientSecret, ...rest } = record;
  return {
    ...rest,
    clientSecretId: legacyCredentialId(SSO_CLIENT_SECRET_CREDENTIAL, sealedSecretMaterial(clientSecret)),
  };
}

/** `SsoRecoveryCodeIssued {codeHash}` → `{codeId}`; undefined when there is nothing to move. */
export function recoveryCodeIssuedWithoutHash(data: unknown): Record<string, unknown> | undefined {
  const record = data as Record<string, unknown> | null;
  if (!record || typeof record !== 'object' || typeof record.codeHash !== 'string') return undefined;
  const { codeHash, ...rest } = record;
  return { ...rest, codeId: legacyCredentialId(SSO_RECOVERY_CODE_CREDENTIAL, codeHash) };
}

export const ssoUpcasters: readonly Upcaster[] = [
  {
    type: 'SsoProviderConfigured',
    fromVersion: 1,
    upcast: (data) => providerConfiguredWithoutSecret(data) ?? data,
  },
  {
    type: 'SsoRecoveryCodeIssued',
    fromVersion: 1,
    upcast: (data) => recoveryCodeIssuedWithoutHash(data) ?? data,
  },
];
