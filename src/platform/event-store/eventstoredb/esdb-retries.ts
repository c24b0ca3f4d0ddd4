/**
 * Retried appends without an exact expectation (`any` / `exists`), and the bounded record of erased streams (ADR 95).
 * Pure: the adapter reads the records, these functions decide.
 */
import { uuidV5 } from '../event-id.js';
import { ADAPTER_NAMESPACE, erasedStreamOf, type EsdbRecord } from './esdb-mapping.js';

/**
 * An `any` / `exists` append writes, before each attempt, the stream revision it is about to take into its guard
 * stream (named after the target stream and the events' ids). EventStoreDB's own dedupe for these modes is an
 * in-memory cache, lost on restart or failover; the guard is stored, so a retry finds every slot an earlier
 * attempt could have taken, however long ago.
 */
export const APPEND_GUARD_PREFIX = '_append-guard-';
export const APPEND_ATTEMPT_EVENT = 'AppendAttempted';

export function appendGuardStream(storedStream: string, eventIds: readonly string[]): string {
  return `${APPEND_GUARD_PREFIX}${uuidV5(`${storedStream}\n${eventIds.join('\n')}`, ADAPTER_NAMESPACE)}`;
}

/** The first revisions earlier attempts announced in a guard stream (oldest first). */
export function guardedSlots(records: readonly Pick<EsdbRecord, 'type' | 'data'>[]): bigint[] {
  const slots: bigint[] = [];
  for (const record of records) {
    if (record.type !== APPEND_ATTEMPT_EVENT) continue;
    const first = (record.data as { firstRevision?: unknown } | null)?.firstRevision;
    if (typeof first === 'string' && /^\d+$/.test(first)) slots.push(BigInt(first));
  }
  return slots;
}

export type StoredAppend<R> =
  | { readonly kind: 'absent' }
  | { readonly kind: 'stored'; readonly last: R }
  /** Some of these ids are stored, but not exactly these events in this order: a conflict, as the server says. */
  | { readonly kind: 'conflict' };

/** Are exactly these events (by EventStoreDB id, in order) among `records` (consecutive revisions)? */
export function locateAppend<R extends Pick<EsdbRecord, 'id'>>(
  eventIds: readonly string[],
  records: readonly R[],
): StoredAppend<R> {
  const ids = eventIds.map((id) => id.toLowerCase());
  const wanted = new Set(ids);
  const start = records.findIndex((record) => wanted.has(record.id.toLowerCase()));
  if (start < 0) return { kind: 'absent' };
  const exact = ids.every((id, i) => records[start + i]?.id.toLowerCase() === id);
  return exact ? { kind: 'stored', last: records[start + ids.length - 1]! } : { kind: 'conflict' };
}

/** The record `_erased-streams` gets once a scavenge has removed the events of the erasures it covers. */
export const ERASURES_SCAVENGED_EVENT = 'ErasuresScavenged';

/** EventStoreDB's default chunk size (`ChunkSize`, 256 MiB): a scavenge never rewrites the chunk being written. */
export const DEFAULT_CHUNK_SIZE = 268_435_456n;

/**
 * The erasures whose events may still be in $all: recorded in `_erased-streams` and not yet covered by a completed
 * scavenge. EventStoreDB erasure is logical (a tombstone) until a scavenge rewrites the chunks, so $all readers
 * hide these streams' events; once a scavenge has removed them there is nothing left to hide, and the record
 * forgets them. It holds the erasures since the last scavenge, not every erasure ever made.
 */
export class PendingErasures {
  private readonly byStream = new Map<string, { revision: bigint; commit: bigint | null }>();

  has(streamId: string): boolean {
    return this.byStream.has(streamId);
  }

  get size(): number {
    return this.byStream.size;
  }

  streams(): string[] {
    return [...this.byStream.keys()];
  }

  /** Applies one record of `_erased-streams` (in stream order). */
  note(record: Pick<EsdbRecord, 'type' | 'data' | 'revision' | 'position'>): void {
    if (record.type === ERASURES_SCAVENGED_EVENT) {
      const covers = scavengeCoverage(record);
      if (covers === null) return;
      for (const [streamId, erasure] of this.byStream)
        if (erasure.revision <= covers) this.byStream.delete(streamId);
      return;
    }
    const streamId = erasedStreamOf(record as EsdbRecord);
    if (streamId === null || this.byStream.has(streamId)) return;
    this.byStream.set(streamId, { revision: record.revision, commit: record.position?.commit ?? null });
  }

  /** An erasure made in this process before its record is read back. */
  noteLocal(streamId: string): void {
    if (!this.byStream.has(streamId)) this.byStream.set(streamId, { revision: -1n, commit: null });
  }

  /**
   * The highest `_erased-streams` revision a scavenge started with the log's head at `headCommit` covers: every
   * pending erasure up to it was recorded (after its stream's last event) in a chunk before the one being written,
   * which the scavenge does not touch. Null when it covers none. Erasures noted only locally, or without a
   * position, are never covered (their record is read back first).
   */
  coveredBy(headCommit: bigint, chunkSize: bigint = DEFAULT_CHUNK_SIZE): bigint | null {
    const activeChunkStart = (headCommit / chunkSize) * chunkSize;
    let covers: bigint | null = null;
    const ordered = [...this.byStream.values()].sort((a, b) => (a.revision < b.revision ? -1 : 1));
    for (const erasure of ordered) {
      if (erasure.revision < 0n || erasure.commit === null || erasure.commit >= activeChunkStart) break;
      covers = erasure.revision;
    }
    return covers;
  }
}

/** The `_erased-streams` revision a scavenge record covers, or null. */
export function scavengeCoverage(record: Pick<EsdbRecord, 'type' | 'data'>): bigint | null {
  if (record.type !== ERASURES_SCAVENGED_EVENT) return null;
  const covers = (record.data as { coversRevision?: unknown } | null)?.coversRevision;
  return typeof covers === 'string' && /^\d+$/.test(covers) ? BigInt(covers) : null;
}

/** When the adapter should prompt (or start) a scavenge: enough erasures wait for one. */
export function scavengeDue(pending: number, threshold: number): boolean {
  return threshold > 0 && pending >= threshold;
}
