import { randomUUID } from 'node:crypto';
import type { EventMetadata, EventSurface } from '../event-store/event-store.port.js';

/**
 * Who runs a command, on whose behalf, and why. Every event a command appends carries it.
 * `commandId` makes the events' ids deterministic: the same command id never stores events twice.
 */
export interface CommandEnvelope {
  readonly commandId: string;
  readonly metadata: EventMetadata;
}

/** `anonymous`: a caller no credential proved (a failed sign-in). */
export type Actor = `account:${string}` | `operator:${string}` | `system:${string}` | 'anonymous';
export type Payer = `account:${string}` | `organization:${string}` | 'system';

/**
 * The credential that acted, as events name it (ADR 68); never the secret itself. `oauth_client:<clientId>`: the
 * OAuth client a grant, issuance or revocation of the authorization server concerns (ADR 106).
 */
export type CredentialReference =
  | `api_key:${string}`
  | `access_token:${string}`
  | `session:${string}`
  | `operator_credential:${string}`
  | `oauth_client:${string}`;

export function commandEnvelope(options: {
  readonly actor: Actor;
  readonly payer: Payer;
  readonly scope?: string | null;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly commandId?: string;
  /** Defaults for the service's own actors: no credential, the `system` surface. */
  readonly credential?: CredentialReference | null;
  readonly surface?: EventSurface;
  /** The OAuth client the acting access token was issued to, when it names one. */
  readonly clientId?: string;
  readonly requestId?: string;
  readonly reason?: string;
}): CommandEnvelope {
  const commandId = options.commandId ?? randomUUID();
  const correlationId = options.correlationId ?? commandId;
  const system = options.actor.startsWith('system:');
  const credential = options.credential !== undefined ? options.credential : system ? null : undefined;
  const surface = options.surface ?? (system ? 'system' : undefined);
  return {
    commandId,
    metadata: {
      actor: options.actor,
      payer: options.payer,
      scope: options.scope ?? null,
      correlationId,
      causationId: options.causationId ?? commandId,
      ...(credential !== undefined ? { credential } : {}),
      ...(surface !== undefined ? { surface } : {}),
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
      ...(options.reason !== undefined ? { reason: options.reason } : {}),
    },
  };
}

/** A command caused by another one (a process step): same correlation, caused by the parent command. */
export function causedBy(
  parent: CommandEnvelope,
  commandId: string,
  overrides: Partial<Pick<EventMetadata, 'actor' | 'payer' | 'scope'>> = {},
): CommandEnvelope {
  return {
    commandId,
    metadata: { ...parent.metadata, ...overrides, causationId: parent.commandId },
  };
}

/** The same command on behalf of another payer (an operator command whose payer is known only once loaded). */
export function onBehalfOf(envelope: CommandEnvelope, payer: Payer, scope?: string | null): CommandEnvelope {
  return {
    ...envelope,
    metadata: { ...envelope.metadata, payer, ...(scope !== undefined ? { scope } : {}) },
  };
}
