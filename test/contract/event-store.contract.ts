/**
 * The contract every EventStore adapter passes. Adapter-neutral: one store is opened per suite and may
 * already hold events (a shared server), so every test writes to fresh streams, starts reading from the
 * head it found, and only looks at its own streams.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  AppendConditionFailed,
  StreamDeleted,
  WrongExpectedVersion,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type RecordedEvent,
} from '../../src/platform/event-store/event-store.port.js';
import {
  comparePositions,
  isGlobalPosition,
  type GlobalPosition,
} from '../../src/platform/event-store/global-position.js';

export interface EventStoreUnderTest {
  store: EventStore;
  /** true when two transactions can be open at once (PostgreSQL server); false for PGlite (one session, transactions serialize) */
  concurrentTransactions: boolean;
  /** Optional: start an append whose transaction stays open until commit() is called. Resolves once the events are written (uncommitted). */
  holdOpenAppend?: (streamId: string, events: NewEvent[]) => Promise<{ commit(): Promise<void> }>;
  dispose(): Promise<void>;
}

/** Longer than any adapter's poll interval: if an event were visible, a live subscriber would have it by then. */
const SETTLE_MS = 400;
const WAIT_TIMEOUT_MS = 20_000;

export function eventStoreContract(label: string, open: () => Promise<EventStoreUnderTest>): void {
  describe(`EventStore contract: ${label}`, () => {
    let sut: EventStoreUnderTest;
    let store: EventStore;

    beforeAll(async () => {
      sut = await open();
      store = sut.store;
    });

    afterAll(async () => {
      await sut?.dispose();
    });

    it('stores and returns every field of an event, in readStream and readAll alike', async () => {
      const streamId = newStreamId('roundtrip');
      const head = await store.headPosition();
      const withScope = newEvent('ExposureScopeCreated', {
        data: {
          name: 'Ünïcödé ✓ "quoted"',
          nested: { list: [1, 2.5, -3, true, null, 'x'], empty: {} },
          big: 9_007_199_254_740_991,
        },
        schemaVersion: 3,
        metadata: {
          actor: 'account:alice',
          payer: 'organization:acme',
          scope: 'scope:42',
          correlationId: randomUUID(),
          causationId: randomUUID(),
        },
      });
      const withoutScope = newEvent('CreditsGranted', {
        data: { amount: 10 },
        metadata: { ...withScope.metadata, actor: 'operator:bob', payer: 'system', scope: null },
      });

      const result = await store.append(streamId, [withScope, withoutScope], {
        expectedVersion: 'no_stream',
      });

      const stored = await store.readStream(streamId);
      expect(stored).toHaveLength(2);
      expect(
        stored.map(({ id, type, schemaVersion, data, metadata }) => ({
          id,
          type,
          schemaVersion,
          data,
          metadata,
        })),
      ).toEqual([withScope, withoutScope]);
      expect(stored.map((event) => event.streamId)).toEqual([streamId, streamId]);
      expect(stored.map((event) => event.streamVersion)).toEqual([0, 1]);
      expect(stored[1]!.metadata.scope).toBeNull();
      for (const event of stored) {
        expect(isGlobalPosition(event.position)).toBe(true);
        expect(new Date(event.recordedAt).toISOString()).toBe(event.recordedAt);
      }
      expect(comparePositions(stored[0]!.position, stored[1]!.position)).toBeLessThan(0);
      expect(result).toEqual({ nextExpectedVersion: 1, position: stored[1]!.position });

      const fromLog = await readOwnEvents(store, head, new Set([streamId]), 2);
      expect(fromLog).toEqual(stored);
    });

    it('stores the attribution fields (credential, surface, request id, reason) where given, and adds none where not', async () => {
      const streamId = newStreamId('attribution');
      const base = {
        actor: 'operator:alice',
        payer: 'account:a1',
        scope: null,
        correlationId: randomUUID(),
        causationId: randomUUID(),
      };
      const operator = newEvent('CreditsPurchased', {
        metadata: {
          ...base,
          credential: 'operator_credential:abcdefghijkl',
          surface: 'cli',
          requestId: randomUUID(),
          reason: 'invoice 17 paid: "quoted" Ünïcödé',
        },
      });
      const system = newEvent('CreditsGranted', {
        metadata: { ...base, actor: 'system:sweeper', credential: null, surface: 'system' },
      });
      const older = newEvent('CreditsGranted', { metadata: base });
      await store.append(streamId, [operator, system, older], { expectedVersion: 'no_stream' });
      const stored = await store.readStream(streamId);
      expect(stored.map((event) => event.metadata)).toEqual([operator.metadata, system.metadata, base]);
      expect(Object.keys(stored[2]!.metadata).sort()).toEqual(Object.keys(base).sort());
    });

    it('reads a stream from a version with a maximum count, and reports the stream version', async () => {
      const streamId = newStreamId('paging');
      expect(await store.streamVersion(streamId)).toBeNull();
      expect(await store.readStream(streamId)).toEqual([]);

      await store.append(streamId, newEvents(5), { expectedVersion: 'no_stream' });

      expect(await store.streamVersion(streamId)).toBe(4);
      expect(
        (await store.readStream(streamId, { fromVersion: 2, maxCount: 2 })).map((e) => e.streamVersion),
      ).toEqual([2, 3]);
      expect((await store.readStream(streamId, { fromVersion: 3 })).map((e) => e.streamVersion)).toEqual([
        3, 4,
      ]);
      expect(await store.readStream(streamId, { fromVersion: 5 })).toEqual([]);
    });

    it('enforces the expected version: no_stream, exists, any and an exact number', async () => {
      const streamId = newStreamId('expected');

      const existsOnMissing = await rejectionOf(
        store.append(streamId, newEvents(1), { expectedVersion: 'exists' }),
      );
      expectWrongVersion(existsOnMissing, streamId, 'exists', null);
      const numberOnMissing = await rejectionOf(store.append(streamId, newEvents(1), { expectedVersion: 0 }));
      expectWrongVersion(numberOnMissing, streamId, 0, null);
      expect(await store.streamVersion(streamId)).toBeNull();

      expect(
        (await store.append(streamId, newEvents(2), { expectedVersion: 'no_stream' })).nextExpectedVersion,
      ).toBe(1);
      const noStreamAgain = await rejectionOf(
        store.append(streamId, newEvents(1), { expectedVersion: 'no_stream' }),
      );
      expectWrongVersion(noStreamAgain, streamId, 'no_stream', 1);

      expect(
        (await store.append(streamId, newEvents(1), { expectedVersion: 'exists' })).nextExpectedVersion,
      ).toBe(2);
      expect(
        (await store.append(streamId, newEvents(1), { expectedVersion: 'any' })).nextExpectedVersion,
      ).toBe(3);
      expect((await store.append(streamId, newEvents(2), { expectedVersion: 3 })).nextExpectedVersion).toBe(
        5,
      );

      const stale = await rejectionOf(store.append(streamId, newEvents(1), { expectedVersion: 3 }));
      expectWrongVersion(stale, streamId, 3, 5);
      const ahead = await rejectionOf(store.append(streamId, newEvents(1), { expectedVersion: 9 }));
      expectWrongVersion(ahead, streamId, 9, 5);

      expect(await store.streamVersion(streamId)).toBe(5);
      expect(await store.readStream(streamId)).toHaveLength(6);

      const anyOnMissing = newStreamId('expected-any');
      expect(
        (await store.append(anyOnMissing, newEvents(1), { expectedVersion: 'any' })).nextExpectedVersion,
      ).toBe(0);
    });

    it('lets exactly one of 20 concurrent writers with the same expected version win, round after round', async () => {
      const streamId = newStreamId('race');
      const writers = 20;
      const eventsPerWrite = 2;
      let expected: ExpectedVersion = 'no_stream';
      const winningEventIds: string[] = [];

      for (let round = 0; round < 5; round += 1) {
        const batches = Array.from({ length: writers }, () => newEvents(eventsPerWrite));
        const outcomes = await Promise.allSettled(
          batches.map((batch) => store.append(streamId, batch, { expectedVersion: expected })),
        );

        const winners = outcomes.flatMap((outcome, index) =>
          outcome.status === 'fulfilled' ? [{ index, result: outcome.value }] : [],
        );
        expect(winners).toHaveLength(1);
        const winner = winners[0]!;
        const newVersion = (round + 1) * eventsPerWrite - 1;
        expect(winner.result.nextExpectedVersion).toBe(newVersion);

        for (const outcome of outcomes) {
          if (outcome.status === 'rejected')
            expectWrongVersion(outcome.reason, streamId, expected, newVersion);
        }
        winningEventIds.push(...batches[winner.index]!.map((event) => event.id));
        expected = newVersion;
      }

      const stored = await store.readStream(streamId);
      expect(stored.map((event) => event.id)).toEqual(winningEventIds);
      expect(stored.map((event) => event.streamVersion)).toEqual(winningEventIds.map((_, index) => index));
    });

    it('serializes concurrent writers that expect any version: all win, nothing is lost or interleaved', async () => {
      const streamId = newStreamId('race-any');
      const batches = Array.from({ length: 20 }, () => newEvents(2));
      const results = await Promise.all(
        batches.map((batch) => store.append(streamId, batch, { expectedVersion: 'any' })),
      );

      expect(results.map((result) => result.nextExpectedVersion).sort((a, b) => a - b)).toEqual(
        batches.map((_, index) => index * 2 + 1),
      );
      const stored = await store.readStream(streamId);
      expect(stored.map((event) => event.streamVersion)).toEqual(stored.map((_, index) => index));
      // Each batch is contiguous and sits where its result says.
      for (const [index, batch] of batches.entries()) {
        const end = results[index]!.nextExpectedVersion;
        expect(stored.slice(end - 1, end + 1).map((event) => event.id)).toEqual(
          batch.map((event) => event.id),
        );
      }
    });

    it('stores a retried append once and answers it with the original result; a partial overlap is rejected', async () => {
      const streamId = newStreamId('retry');
      const first = newEvents(2);
      const original = await store.append(streamId, first, { expectedVersion: 'no_stream' });
      const second = newEvents(1);
      await store.append(streamId, second, { expectedVersion: original.nextExpectedVersion });

      // The retry carries the expected version of the original attempt, which is stale by now.
      expect(await store.append(streamId, first, { expectedVersion: 'no_stream' })).toEqual(original);
      expect(await store.append(streamId, first, { expectedVersion: 'any' })).toEqual(original);
      const concurrentRetries = await Promise.all(
        Array.from({ length: 5 }, () => store.append(streamId, second, { expectedVersion: 1 })),
      );
      expect(new Set(concurrentRetries.map((result) => JSON.stringify(result))).size).toBe(1);
      expect(concurrentRetries[0]!.nextExpectedVersion).toBe(2);

      const partialOverlap = [first[1]!, ...newEvents(1)];
      const rejection = await rejectionOf(store.append(streamId, partialOverlap, { expectedVersion: 'any' }));
      expect(rejection).toBeInstanceOf(WrongExpectedVersion);

      const stored = await store.readStream(streamId);
      expect(stored.map((event) => event.id)).toEqual([...first, ...second].map((event) => event.id));
      expect(stored[1]!.position).toBe(original.position);
      // Retries and the rejected overlap left the version alone: the next real append continues from 2.
      expect(await store.streamVersion(streamId)).toBe(2);
      expect((await store.append(streamId, newEvents(1), { expectedVersion: 2 })).nextExpectedVersion).toBe(
        3,
      );
    });

    it('appends only while the streams it is conditioned on are at the versions given (ADR 128)', async () => {
      const account = newStreamId('condition-account');
      const ledger = newStreamId('condition-ledger');
      const absent = newStreamId('condition-absent');
      await store.append(account, newEvents(2), { expectedVersion: 'no_stream' });

      // Met: the account at 1, a stream that does not exist as null.
      const met = await store.append(ledger, newEvents(1), {
        expectedVersion: 'no_stream',
        conditions: [
          { streamId: account, version: 1 },
          { streamId: absent, version: null },
        ],
      });
      expect(met.nextExpectedVersion).toBe(0);

      // The account moves on: the same condition is now unmet, and names the stream that moved.
      await store.append(account, newEvents(1), { expectedVersion: 1 });
      const unmet = await rejectionOf(
        store.append(ledger, newEvents(1), {
          expectedVersion: 0,
          conditions: [{ streamId: account, version: 1 }],
        }),
      );
      expect(unmet).toBeInstanceOf(AppendConditionFailed);
      expect((unmet as AppendConditionFailed).condition).toEqual({ streamId: account, version: 1 });
      const neverCreated = await rejectionOf(
        store.append(ledger, newEvents(1), {
          expectedVersion: 0,
          conditions: [{ streamId: account, version: null }],
        }),
      );
      expect(neverCreated).toBeInstanceOf(AppendConditionFailed);
      expect(await store.streamVersion(ledger)).toBe(0);

      // Met again at the account's new version; every expected-version mode honours it.
      const retried = newEvents(1);
      for (const expectedVersion of [0, 'exists', 'any'] as const) {
        const attempt = store.append(ledger, expectedVersion === 0 ? retried : newEvents(1), {
          expectedVersion,
          conditions: [{ streamId: account, version: 2 }],
        });
        if (expectedVersion === 0) expect((await attempt).nextExpectedVersion).toBe(1);
        else await attempt;
      }
      expect(await store.streamVersion(ledger)).toBe(3);
    });

    it('reads all streams in global order, page by page after a position', async () => {
      const streams = [newStreamId('all-a'), newStreamId('all-b'), newStreamId('all-c')];
      const head = await store.headPosition();
      const appended: NewEvent[] = [];
      const results: AppendResult[] = [];
      for (let index = 0; index < 9; index += 1) {
        const streamId = streams[index % streams.length]!;
        const events = newEvents(1);
        results.push(await store.append(streamId, events, { expectedVersion: 'any' }));
        appended.push(...events);
      }

      const own = new Set(streams);
      const pages: RecordedEvent[][] = [];
      let after = head;
      const mine: RecordedEvent[] = [];
      while (mine.length < appended.length) {
        const page = await store.readAll({ after, limit: 2 });
        expect(page.length).toBeGreaterThan(0);
        expect(page.length).toBeLessThanOrEqual(2);
        pages.push(page);
        mine.push(...page.filter((event) => own.has(event.streamId)));
        after = page[page.length - 1]!.position;
      }

      const positions = pages.flat().map((event) => event.position);
      expectStrictlyIncreasing(positions);
      expect(comparePositions(head, positions[0]!)).toBeLessThan(0);
      expect(mine.map((event) => event.id)).toEqual(appended.map((event) => event.id));
      expect(mine.map((event) => event.position)).toEqual(results.map((result) => result.position));
    });

    it('reports the head position of the global log', async () => {
      const before = await store.headPosition();
      const streamId = newStreamId('head');
      const first = await store.append(streamId, newEvents(2), { expectedVersion: 'no_stream' });
      const last = await store.append(streamId, newEvents(1), { expectedVersion: 1 });

      expect(comparePositions(before, first.position)).toBeLessThan(0);
      const head = await store.headPosition();
      expect(head).not.toBeNull();
      expect(comparePositions(head, last.position)).toBeGreaterThanOrEqual(0);
      const afterHead = await store.readAll({ after: head, limit: 100 });
      expect(afterHead.filter((event) => event.streamId === streamId)).toEqual([]);
      // With no older transaction running, the last committed event is the visible head.
      expect(comparePositions(await store.lastCommittedPosition(), last.position)).toBeGreaterThanOrEqual(0);
    });

    it('reads the newest events of the global log, oldest first', async () => {
      const streamId = newStreamId('last');
      const events = newEvents(5);
      for (const event of events) await store.append(streamId, [event], { expectedVersion: 'any' });

      const lastThree = await store.readLast(3);
      expect(lastThree.map((event) => event.id)).toEqual(events.slice(2).map((event) => event.id));
      expectStrictlyIncreasing(lastThree.map((event) => event.position));
      expect(lastThree[2]!.position).toBe(await store.headPosition());
      expect(lastThree).toEqual((await store.readStream(streamId)).slice(2));
      expect((await store.readLast(1)).map((event) => event.id)).toEqual([events[4]!.id]);
    });

    it('delivers every event of 50 concurrently written streams exactly once, in order, to a live subscriber', async () => {
      const streamCount = 50;
      const batchesPerStream = 5;
      const eventsPerBatch = 4;
      const total = streamCount * batchesPerStream * eventsPerBatch;
      const streams = Array.from({ length: streamCount }, (_, index) => newStreamId(`live-${index}`));
      const own = new Set(streams);
      const subscriber = follow(store, await store.headPosition(), (event) => own.has(event.streamId));

      try {
        await Promise.all(
          streams.map(async (streamId) => {
            let expectedVersion: ExpectedVersion = 'no_stream';
            for (let batch = 0; batch < batchesPerStream; batch += 1) {
              const result = await store.append(streamId, newEvents(eventsPerBatch), { expectedVersion });
              expectedVersion = result.nextExpectedVersion;
            }
          }),
        );
        await subscriber.waitUntil(() => subscriber.seen.length >= total, `${total} live events`);
        await delay(SETTLE_MS); // room for a duplicate to show up
      } finally {
        await subscriber.stop();
      }

      expect(subscriber.seen).toHaveLength(total);
      expect(new Set(subscriber.seen.map((event) => event.id)).size).toBe(total);
      expectStrictlyIncreasing(subscriber.positions);
      for (const streamId of streams) {
        const versions = subscriber.seen
          .filter((event) => event.streamId === streamId)
          .map((e) => e.streamVersion);
        expect(versions).toEqual(
          Array.from({ length: batchesPerStream * eventsPerBatch }, (_, index) => index),
        );
      }
    });

    it('holds back events ordered after a transaction that is still open, then delivers them in order', async () => {
      if (!sut.holdOpenAppend) {
        console.info(
          `${label}: the held-open transaction case does not apply: this adapter cannot keep an append ` +
            'uncommitted from the outside (its appends commit atomically inside the store).',
        );
        return;
      }
      const streamA = newStreamId('held-a');
      const streamsB = [newStreamId('held-b1'), newStreamId('held-b2')];
      const own = new Set([streamA, ...streamsB]);
      const head = await store.headPosition();
      const subscriber = follow(store, head, (event) => own.has(event.streamId));

      try {
        const eventsA = newEvents(3);
        const held = await sut.holdOpenAppend(streamA, eventsA);
        const eventsB = streamsB.map(() => newEvents(2));
        const appendsB = streamsB.map((streamId, index) =>
          store.append(streamId, eventsB[index]!, { expectedVersion: 'no_stream' }),
        );
        let earlyRead: RecordedEvent[] | undefined;
        if (sut.concurrentTransactions) {
          // B commits while A is still open; B is ordered after A, so it must stay hidden.
          await Promise.all(appendsB);
          earlyRead = await store.readAll({ after: head, limit: 1_000 });
        } else {
          // One session: B (and any read) queues behind A. A read that did answer must not show them.
          void store.readAll({ after: head, limit: 1_000 }).then((events) => (earlyRead ??= events));
        }
        await delay(SETTLE_MS);

        expect(subscriber.seen).toEqual([]);
        expect((earlyRead ?? []).filter((event) => own.has(event.streamId))).toEqual([]);

        await held.commit();
        await Promise.all(appendsB);

        const expectedCount = eventsA.length + eventsB.flat().length;
        await subscriber.waitUntil(() => subscriber.seen.length >= expectedCount, 'A and B after commit');
        await delay(SETTLE_MS);

        const delivered = subscriber.seen;
        expect(delivered).toHaveLength(expectedCount);
        expect(delivered.slice(0, eventsA.length).map((event) => event.id)).toEqual(
          eventsA.map((event) => event.id),
        );
        for (const [index, streamId] of streamsB.entries()) {
          expect(delivered.filter((event) => event.streamId === streamId).map((event) => event.id)).toEqual(
            eventsB[index]!.map((event) => event.id),
          );
        }
        expectStrictlyIncreasing(subscriber.positions);

        const fromLog = await readOwnEvents(store, head, own, expectedCount);
        expect(fromLog.map((event) => event.id)).toEqual(delivered.map((event) => event.id));
      } finally {
        await subscriber.stop();
      }
    });

    it('erases a deleted stream from readStream, readAll and subscriptions, and refuses later appends', async () => {
      const deleted = newStreamId('deleted');
      const kept = newStreamId('kept');
      const head = await store.headPosition();
      const deletedEvents = newEvents(3);
      await store.append(deleted, deletedEvents, { expectedVersion: 'no_stream' });
      await store.append(kept, newEvents(1), { expectedVersion: 'no_stream' });

      await store.eraseStream(deleted, { by: randomUUID(), at: new Date().toISOString() });
      // Erasing again changes nothing.
      await store.eraseStream(deleted, { by: randomUUID(), at: new Date().toISOString() });

      expect(await store.readStream(deleted)).toEqual([]);
      expect(await store.streamVersion(deleted)).toBeNull();
      const afterDeletion = await readOwnEvents(store, head, new Set([deleted, kept]), 1);
      expect(afterDeletion.map((event) => event.streamId)).toEqual([kept]);

      const marker = newStreamId('deleted-marker');
      await store.append(marker, newEvents(1), { expectedVersion: 'no_stream' });
      const replay = follow(store, null, (event) => event.streamId === deleted || event.streamId === marker);
      try {
        await replay.waitUntil(() => replay.seen.some((event) => event.streamId === marker), 'the marker');
      } finally {
        await replay.stop();
      }
      expect(replay.seen.filter((event) => event.streamId === deleted)).toEqual([]);

      await expect(store.append(deleted, newEvents(1), { expectedVersion: 'any' })).rejects.toBeInstanceOf(
        StreamDeleted,
      );
      await expect(
        store.append(deleted, newEvents(1), { expectedVersion: 'no_stream' }),
      ).rejects.toBeInstanceOf(StreamDeleted);
      await expect(store.append(deleted, deletedEvents, { expectedVersion: 2 })).rejects.toBeInstanceOf(
        StreamDeleted,
      );
      expect(await store.readStream(deleted)).toEqual([]);
    });

    it('resumes a subscription strictly after a given position, then follows live appends', async () => {
      const streamId = newStreamId('resume');
      await store.append(streamId, newEvents(6), { expectedVersion: 'no_stream' });
      const stored = await store.readStream(streamId);
      const checkpoint = stored[2]!.position;

      const subscriber = follow(store, checkpoint, (event) => event.streamId === streamId);
      try {
        await subscriber.waitUntil(() => subscriber.seen.length >= 3, 'the catch-up events');
        await store.append(streamId, newEvents(2), { expectedVersion: 5 });
        await subscriber.waitUntil(() => subscriber.seen.length >= 5, 'the live events');
        await delay(SETTLE_MS);
      } finally {
        await subscriber.stop();
      }

      expect(subscriber.seen.map((event) => event.streamVersion)).toEqual([3, 4, 5, 6, 7]);
      expect(subscriber.seen.slice(0, 3)).toEqual(stored.slice(3));
      for (const position of subscriber.positions)
        expect(comparePositions(position, checkpoint)).toBeGreaterThan(0);
    });

    it('ends a waiting subscription promptly when its signal aborts', async () => {
      const controller = new AbortController();
      const iterator = store
        .subscribeAll({ after: await store.headPosition(), signal: controller.signal })
        [Symbol.asyncIterator]();
      const next = iterator.next();
      await delay(SETTLE_MS); // caught up and waiting by now
      controller.abort();
      expect(await withTimeout(next, 2_000, 'the aborted subscription to end')).toEqual({
        done: true,
        value: undefined,
      });

      const alreadyAborted = AbortSignal.abort();
      const ended = store
        .subscribeAll({ after: null, signal: alreadyAborted })
        [Symbol.asyncIterator]()
        .next();
      expect((await withTimeout(ended, 2_000, 'a pre-aborted subscription to end')).done).toBe(true);
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// Helpers (exported for adapter-specific tests)

export function newStreamId(prefix: string): string {
  return `${prefix}-${randomUUID()}`;
}

export function newEvent(type: string, overrides: Partial<Omit<NewEvent, 'type'>> = {}): NewEvent {
  return {
    id: randomUUID(),
    type,
    schemaVersion: 1,
    data: { at: randomUUID() },
    metadata: {
      actor: 'account:tester',
      payer: 'account:tester',
      scope: null,
      correlationId: randomUUID(),
      causationId: randomUUID(),
    },
    ...overrides,
  };
}

export function newEvents(count: number, type = 'TestEvent'): NewEvent[] {
  return Array.from({ length: count }, () => newEvent(type));
}

export interface FollowingSubscriber {
  /** Delivered events that passed the filter, in delivery order. */
  readonly seen: RecordedEvent[];
  /** Positions of every delivered event, filtered or not. */
  readonly positions: GlobalPosition[];
  waitUntil(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Aborts the subscription and waits for its loop to end; rethrows what the iteration threw. */
  stop(): Promise<void>;
}

/** Consumes subscribeAll in the background with `for await`, the way a projection does. */
export function follow(
  store: EventStore,
  after: GlobalPosition | null,
  accept: (event: RecordedEvent) => boolean,
): FollowingSubscriber {
  const controller = new AbortController();
  const seen: RecordedEvent[] = [];
  const positions: GlobalPosition[] = [];
  let failure: unknown;
  let ended = false;
  const loop = (async () => {
    try {
      for await (const event of store.subscribeAll({ after, signal: controller.signal })) {
        positions.push(event.position);
        if (accept(event)) seen.push(event);
      }
    } catch (error) {
      failure = error;
    } finally {
      ended = true;
    }
  })();
  return {
    seen,
    positions,
    async waitUntil(condition, what, timeoutMs = WAIT_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (failure !== undefined) throw failure;
        if (ended) throw new Error(`subscription ended before ${what} (saw ${seen.length})`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (saw ${seen.length})`);
        await delay(10);
      }
    },
    async stop() {
      controller.abort();
      await loop;
      if (failure !== undefined) throw failure;
    },
  };
}

/** Pages through readAll after `after` until `count` events of `streams` are read. */
async function readOwnEvents(
  store: EventStore,
  after: GlobalPosition | null,
  streams: ReadonlySet<string>,
  count: number,
): Promise<RecordedEvent[]> {
  const own: RecordedEvent[] = [];
  let position = after;
  for (;;) {
    const page = await store.readAll({ after: position, limit: 500 });
    own.push(...page.filter((event) => streams.has(event.streamId)));
    if (page.length === 0 || own.length >= count) return own;
    position = page[page.length - 1]!.position;
  }
}

function expectWrongVersion(
  error: unknown,
  streamId: string,
  expected: ExpectedVersion,
  actual: number | null,
): void {
  expect(error).toBeInstanceOf(WrongExpectedVersion);
  const wrong = error as WrongExpectedVersion;
  expect({ streamId: wrong.streamId, expected: wrong.expected, actual: wrong.actual }).toEqual({
    streamId,
    expected,
    actual,
  });
}

export function expectStrictlyIncreasing(positions: readonly GlobalPosition[]): void {
  for (let index = 1; index < positions.length; index += 1) {
    if (comparePositions(positions[index - 1]!, positions[index]!) >= 0) {
      throw new Error(
        `positions not strictly increasing at ${index}: ${positions[index - 1]} then ${positions[index]}`,
      );
    }
  }
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
