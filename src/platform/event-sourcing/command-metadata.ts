import { randomUUID } from 'node:crypto';
import type { EventMetadata } from '../event-store/event-store.port.js';

/**
 * Who runs a command, on whose behalf, and why. Every event a command appends carries it.
 * `commandId` makes the events' ids deterministic: the same command id never stores events twice.
 */
export interface CommandEnvelope {
  readonly commandId: string;
  readonly metadata: EventMetadata;
}

export type Actor = `account:${string}` | `operator:${string}` | `system:${string}`;
export type Payer = `account:${string}` | `organization:${string}` | 'system';

export function commandEnvelope(options: {
  readonly actor: Actor;
  readonly payer: Payer;
  readonly scope?: string | null;
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly commandId?: string;
}): CommandEnvelope {
  const commandId = options.commandId ?? randomUUID();
  const correlationId = options.correlationId ?? commandId;
  return {
    commandId,
    metadata: {
      actor: options.actor,
      payer: options.payer,
      scope: options.scope ?? null,
      correlationId,
      causationId: options.causationId ?? commandId,
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

/** The operator running the CLI, as an actor. */
export function operatorActor(): Actor {
  const user = process.env.USER ?? process.env.LOGNAME ?? 'unknown';
  return `operator:${user}`;
}
