import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { Checkpoint } from '../read-store/read-store.port.js';
import type { ProjectionDefinition } from './projection-definition.js';

/** The live runner's held checkpoints (ADR 89) and its waits: batches a projection ignores write no checkpoint at once. */

export function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, milliseconds);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * A skipped batch's checkpoint is written at the first multiple of this (in wall-clock time) at least this long
 * after the previous write (ADR 89)…
 */
const SKIPPED_CHECKPOINT_MS = 1000;
/** …or after this many skipped events, so a restart re-reads little. */
export const SKIPPED_CHECKPOINT_EVENTS = 1000;
export const CHECKPOINT_DUE = Symbol('checkpoint-due');

/**
 * When a held checkpoint is written: on a grid of SKIPPED_CHECKPOINT_MS shared by every projection, so the
 * projections holding one write them at the same moment and the committer puts them in one transaction.
 */
export function skippedCheckpointDue(lastWrite: number): number {
  return Math.ceil((lastWrite + SKIPPED_CHECKPOINT_MS) / SKIPPED_CHECKPOINT_MS) * SKIPPED_CHECKPOINT_MS;
}

export function handlesAny(definition: ProjectionDefinition, events: readonly RecordedEvent[]): boolean {
  return definition.handles.includes('*') || events.some((event) => definition.handles.includes(event.type));
}

/** The stored checkpoint with `extra` more events counted as applied (the skipped ones). */
export function withEventsApplied(checkpoint: Checkpoint | null, extra: number): Checkpoint | null {
  if (!checkpoint) return checkpoint;
  const details = (checkpoint.details ?? {}) as { eventsApplied?: number };
  return { ...checkpoint, details: { ...details, eventsApplied: (details.eventsApplied ?? 0) + extra } };
}

export function sleepUntilDue(ms: number, signal: AbortSignal): Promise<typeof CHECKPOINT_DUE> {
  return sleep(Math.max(0, ms), signal).then(() => CHECKPOINT_DUE);
}
