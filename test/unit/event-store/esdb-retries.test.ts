/**
 * The EventStoreDB adapter's decisions for retried `any` / `exists` appends and for the bounded record of erased
 * streams (ADR 95), without a server: given the records the adapter reads, what it concludes. The live legs are in
 * test/integration/platform/esdb-retries.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import {
  APPEND_ATTEMPT_EVENT,
  appendGuardStream,
  APPEND_GUARD_PREFIX,
  DEFAULT_CHUNK_SIZE,
  ERASURES_SCAVENGED_EVENT,
  guardedSlots,
  locateAppend,
  PendingErasures,
  scavengeCoverage,
  scavengeDue,
} from '../../../src/platform/event-store/eventstoredb/esdb-retries.js';
import { STREAM_ERASED_EVENT } from '../../../src/platform/event-store/eventstoredb/esdb-mapping.js';

const tail = (...ids: string[]) => ids.map((id, i) => ({ id, revision: BigInt(100 + i) }));

describe('locateAppend: is this append already stored among these records?', () => {
  it('finds the events in order and gives the last one (the original result)', () => {
    const found = locateAppend(['B', 'c'], tail('a', 'b', 'C', 'd'));
    expect(found).toEqual({ kind: 'stored', last: { id: 'C', revision: 102n } });
  });

  it('says absent when none of the ids is there', () => {
    expect(locateAppend(['x', 'y'], tail('a', 'b'))).toEqual({ kind: 'absent' });
    expect(locateAppend(['x'], [])).toEqual({ kind: 'absent' });
  });

  it('calls some of the ids, or the same ids in another order, a conflict', () => {
    expect(locateAppend(['b', 'x'], tail('a', 'b', 'c'))).toEqual({ kind: 'conflict' });
    expect(locateAppend(['c', 'b'], tail('a', 'b', 'c'))).toEqual({ kind: 'conflict' });
    // Cut off by the end of what was read: not the same append.
    expect(locateAppend(['c', 'd'], tail('a', 'b', 'c'))).toEqual({ kind: 'conflict' });
  });
});

describe('the append guard', () => {
  it('is one adapter stream per target stream and event ids, the same for a retry', () => {
    const guard = appendGuardStream('orders-1', ['e1', 'e2']);
    expect(guard.startsWith(APPEND_GUARD_PREFIX)).toBe(true);
    expect(appendGuardStream('orders-1', ['e1', 'e2'])).toBe(guard);
    expect(appendGuardStream('orders-2', ['e1', 'e2'])).not.toBe(guard);
    expect(appendGuardStream('orders-1', ['e1'])).not.toBe(guard);
  });

  it('gives every slot an attempt announced, ignoring anything else', () => {
    const slots = guardedSlots([
      { type: APPEND_ATTEMPT_EVENT, data: { stream: 's', firstRevision: '7' } },
      { type: '$metadata', data: {} },
      { type: APPEND_ATTEMPT_EVENT, data: { stream: 's', firstRevision: 'x' } },
      { type: APPEND_ATTEMPT_EVENT, data: { stream: 's', firstRevision: '90071992547409930' } },
    ]);
    expect(slots).toEqual([7n, 90071992547409930n]);
  });
});

const erased = (streamId: string, revision: bigint, commit: bigint | null) => ({
  type: STREAM_ERASED_EVENT,
  data: { streamId, erasedAt: '2026-11-28T00:00:00.000Z', erasedBy: 'e' },
  revision,
  position: commit === null ? undefined : { commit, prepare: commit },
});
const scavenged = (covers: bigint, revision: bigint) => ({
  type: ERASURES_SCAVENGED_EVENT,
  data: { scavengeId: 'sc', coversRevision: covers.toString(), at: '2026-11-28T00:00:00.000Z' },
  revision,
  position: undefined,
});

describe('PendingErasures: the erasures a scavenge has not removed yet', () => {
  it('tracks erasures once each and forgets those a scavenge record covers', () => {
    const pending = new PendingErasures();
    pending.note(erased('a', 0n, 10n));
    pending.note(erased('b', 1n, 20n));
    pending.note(erased('a', 2n, 30n)); // a repeated record changes nothing
    pending.note(erased('c', 3n, 40n));
    expect(pending.size).toBe(3);
    pending.note(scavenged(1n, 4n));
    expect(pending.streams()).toEqual(['c']);
    expect(pending.has('a')).toBe(false);
    expect(pending.has('c')).toBe(true);
  });

  it('stays bounded by the erasures since the last scavenge, however many were made before', () => {
    const pending = new PendingErasures();
    let revision = 0n;
    for (let round = 0; round < 50; round++) {
      const first = revision;
      for (let i = 0; i < 200; i++) pending.note(erased(`s-${round}-${i}`, revision++, revision * 100n));
      expect(pending.size).toBe(200);
      pending.note(scavenged(revision - 1n, revision++));
      expect(pending.size).toBe(0);
      expect(first).toBeLessThan(revision);
    }
  });

  it('lets a scavenge cover only erasures recorded before the chunk being written', () => {
    const chunk = DEFAULT_CHUNK_SIZE;
    const pending = new PendingErasures();
    pending.note(erased('old-1', 0n, chunk - 500n));
    pending.note(erased('old-2', 1n, 2n * chunk + 5n));
    pending.note(erased('recent', 2n, 3n * chunk + 10n));
    // Head in chunk 3: chunks 0-2 are complete and scavenged; chunk 3 (being written) is not.
    expect(pending.coveredBy(3n * chunk + 900n)).toBe(1n);
    // Head still in chunk 0: nothing is covered.
    expect(pending.coveredBy(chunk - 1n)).toBeNull();
    // A smaller configured chunk size moves the boundary: half-chunks 0-6 are complete, 7 is being written.
    expect(pending.coveredBy(3n * chunk + chunk / 2n + 5n)).toBe(1n);
    expect(pending.coveredBy(3n * chunk + chunk / 2n + 5n, chunk / 2n)).toBe(2n);
  });

  it('never lets a scavenge cover an erasure noted only locally or without a position', () => {
    const pending = new PendingErasures();
    pending.noteLocal('local');
    expect(pending.coveredBy(10n * DEFAULT_CHUNK_SIZE)).toBeNull();
    const positionless = new PendingErasures();
    positionless.note(erased('a', 0n, 5n));
    positionless.note(erased('b', 1n, null));
    positionless.note(erased('c', 2n, 6n));
    expect(positionless.coveredBy(10n * DEFAULT_CHUNK_SIZE)).toBe(0n);
  });

  it('reads a scavenge record, and nothing else, as coverage', () => {
    expect(scavengeCoverage(scavenged(12n, 13n))).toBe(12n);
    expect(scavengeCoverage(erased('a', 0n, 1n))).toBeNull();
    expect(scavengeCoverage({ type: ERASURES_SCAVENGED_EVENT, data: { coversRevision: 'x' } })).toBeNull();
  });

  it('prompts a scavenge once enough erasures wait, never when turned off', () => {
    expect(scavengeDue(99, 100)).toBe(false);
    expect(scavengeDue(100, 100)).toBe(true);
    expect(scavengeDue(5000, 0)).toBe(false);
  });
});
