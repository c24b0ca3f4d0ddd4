import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/access.js';
import { commandEnvelope, type CommandEnvelope } from '../event-sourcing/command-metadata.js';

/**
 * The envelope of a command run for an HTTP caller: the account acts and pays for itself; the request id
 * (when known) correlates every event of the request.
 */
export function envelopeFor(principal: Principal, requestId?: string): CommandEnvelope {
  const commandId = randomUUID();
  return commandEnvelope({
    actor: `account:${principal.accountId}`,
    payer: `account:${principal.accountId}`,
    correlationId: requestId ?? commandId,
    causationId: requestId ?? commandId,
    commandId,
  });
}
