/**
 * The migration of account events written before ADR 65: the password hash of `PasswordSet` and the key hash of
 * `ApiKeyIssued` move into the credential store (under the ids the upcasters derive) and out of the payloads.
 * Idempotent: an event already moved is left alone, and a credential already stored keeps what it holds.
 */
import { putCredentialWithin } from '../../platform/auth/credentials/postgres-credential-store.js';
import type { LegacyEventRewriter } from '../../platform/event-store/event-log-integrity.js';
import {
  accountCredentialSubject,
  API_KEY_CREDENTIAL,
  apiKeyCredentialId,
  PASSWORD_CREDENTIAL,
} from '../domain/account.js';
import { apiKeyIssuedWithoutHash, passwordSetWithoutHash } from './account-upcasters.js';

const accountIdOf = (streamId: string): string => streamId.slice('account-'.length);

export const moveAccountCredentialsOutOfTheLog: LegacyEventRewriter = async (event, tx) => {
  if (event.type === 'PasswordSet') {
    const moved = passwordSetWithoutHash(event.data);
    if (!moved) return undefined;
    await putCredentialWithin(tx, {
      id: moved.credentialId,
      kind: PASSWORD_CREDENTIAL,
      subject: accountCredentialSubject(accountIdOf(event.streamId)),
      material: (event.data as { passwordHash: string }).passwordHash,
      createdAt: event.recordedAt,
    });
    return moved;
  }
  if (event.type === 'ApiKeyIssued') {
    const moved = apiKeyIssuedWithoutHash(event.data);
    const { keyId, secretHash } = event.data as { keyId?: unknown; secretHash?: unknown };
    if (!moved || typeof keyId !== 'string' || typeof secretHash !== 'string') return undefined;
    await putCredentialWithin(tx, {
      id: apiKeyCredentialId(keyId),
      kind: API_KEY_CREDENTIAL,
      subject: accountCredentialSubject(accountIdOf(event.streamId)),
      material: secretHash,
      createdAt: event.recordedAt,
    });
    return moved;
  }
  return undefined;
};
