import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/access.js';
import { sessionReference } from '../auth/credential-reference.js';
import {
  commandEnvelope,
  type CommandEnvelope,
  type CredentialReference,
} from '../event-sourcing/command-metadata.js';

/**
 * The envelope of a command run for an HTTP caller: the account acts and pays for itself; the request id
 * (when known) correlates every event of the request, which also names the credential and surface (ADR 68), and
 * the OAuth client when the access token names one (ADR 109).
 */
export function envelopeFor(principal: Principal, requestId?: string): CommandEnvelope {
  const commandId = randomUUID();
  return commandEnvelope({
    actor: `account:${principal.accountId}`,
    payer: `account:${principal.accountId}`,
    correlationId: requestId ?? commandId,
    causationId: requestId ?? commandId,
    commandId,
    credential: credentialOf(principal),
    surface: principal.channel,
    ...(principal.clientId !== undefined ? { clientId: principal.clientId } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  });
}

/** The credential the guard accepted, as events name it: never the secret (a session by its reference). */
export function credentialOf(principal: Principal): CredentialReference | null {
  if (principal.via === 'api_key' && principal.keyId) return `api_key:${principal.keyId}`;
  if (principal.via === 'access_token' && principal.tokenId) return `access_token:${principal.tokenId}`;
  if (principal.via === 'session' && principal.sessionId)
    return `session:${sessionReference(principal.sessionId)}`;
  return null;
}
