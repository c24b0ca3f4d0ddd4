/**
 * The migration of SSO events written before ADR 65: the sealed client secret of `SsoProviderConfigured` and the
 * code hash of `SsoRecoveryCodeIssued` move into the credential store (under the ids the upcasters derive) and
 * out of the payloads. Idempotent: an event already moved is left alone.
 */
import { putCredentialWithin } from '../../../platform/auth/credentials/postgres-credential-store.js';
import type { LegacyEventRewriter } from '../../../platform/event-store/event-log-integrity.js';
import {
  ssoCredentialSubject,
  SSO_CLIENT_SECRET_CREDENTIAL,
  SSO_RECOVERY_CODE_CREDENTIAL,
} from '../domain/sso.js';
import {
  providerConfiguredWithoutSecret,
  recoveryCodeIssuedWithoutHash,
  sealedSecretMaterial,
} from './sso-upcasters.js';

const organizationIdOf = (streamId: string): string => streamId.slice('sso-'.length);

export const moveSsoCredentialsOutOfTheLog: LegacyEventRewriter = async (event, tx) => {
  const subject = ssoCredentialSubject(organizationIdOf(event.streamId));
  if (event.type === 'SsoProviderConfigured') {
    const moved = providerConfiguredWithoutSecret(event.data);
    if (!moved) return undefined;
    await putCredentialWithin(tx, {
      id: moved.clientSecretId as string,
      kind: SSO_CLIENT_SECRET_CREDENTIAL,
      subject,
      material: sealedSecretMaterial((event.data as { clientSecret: unknown }).clientSecret),
      createdAt: event.recordedAt,
    });
    return moved;
  }
  if (event.type === 'SsoRecoveryCodeIssued') {
    const moved = recoveryCodeIssuedWithoutHash(event.data);
    if (!moved) return undefined;
    await putCredentialWithin(tx, {
      id: moved.codeId as string,
      kind: SSO_RECOVERY_CODE_CREDENTIAL,
      subject,
      material: (event.data as { codeHash: string }).codeHash,
      createdAt: event.recordedAt,
    });
    return moved;
  }
  return undefined;
};
