/**
 * PostgresEventStore: the shared contract on PGlite and on the PostgreSQL server, then what only this adapter
 * promises (one round trip per append, (transaction id, sequence) ordering, surviving dropped connections).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { SqlDatabase, SqlExecutor, SqlResult } from '../../src/platform/database/sql-database.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-database.js';
import {
  AppendConditionFailed,
  type ExpectedVersion,
  type NewEvent,
} from '../../src/platform/event-store/event-store.port.js';
import { comparePositions, decodePosition } from '../../src/platform/event-store/global-position.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import {
  createTestDatabase,
  TEST_DATABASE_URL,
  type TestDatabase,
  type TestDatabaseKind,
} from '../support/databases.js';
import {
  delay,
  eventStoreContract,
  expectStrictlyIncreasing,
  follow,
  newEvents,
  newStreamId,
  type EventStoreUnderTest,
} from './event-store.contract.js';

const POLL_INTERVAL_MS = 50;

async function openPostgresStore(kind: TestDatabaseKind): Promise<EventStoreUnderTest> {
  const testDb = await createTestDatabase(kind);
  const store = new PostgresEventStore(testDb.db, { pollIntervalMs: POLL_INTERVAL_MS });
  await store.init();
  return {
    store,
    concurrentTransactions: kind === 'postgres',
    holdOpenAppend: (streamId, events) => holdOpenAppend(testDb.db, store, streamId, events),
    dispose: async () => {
      await store.close();
      await testDb.dispose();
    },
  };
}

/** Appends inside a transaction that stays open until commit() is called. */
async function holdOpenAppend(
  db: SqlDatabase,
  store: PostgresEventStore,
  streamId: string,
  events: readonly NewEvent[],
  expectedVersion: ExpectedVersion = 'no_stream',
): Promise<{ commit(): Promise<void> }> {
  const written = deferred();
  const release = deferred();
  const transaction = db.transaction(async (tx) => {
    await store.appendWithin(tx, streamId, events, { expectedVersion });
    written.resolve();
    await release.promise;
  });
  await Promise.race([written.promise, transaction]);
  return {
    commit: async () => {
      release.resolve();
      await transaction;
    },
  };
}

eventStoreContract('PostgresEventStore on PGlite (in memory)', () => openPostgresStore('pglite'));
eventStoreContract('PostgresEventStore on the PostgreSQL server', () => openPostgresStore('postgres'));

describe.each<TestDatabaseKind>(['pglite', 'postgres'])('PostgresEventStore on %s', (kind) => {
  let testDb: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind);
    store = new PostgresEventStore(testDb.db, { pollIntervalMs: POLL_INTERVAL_MS });
    await store.init();
  });

  afterAll(async () => {
    await store?.close();
    await testDb?.dispose();
  });

  it('creates its schema idempotently, even from concurrent init calls', async () => {
    const fresh = await createTestDatabase(kind);
    try {
      const stores = Array.from({ length: 6 }, () => new PostgresEventStore(fresh.db));
      await Promise.all(stores.map((each) => each.init()));
      await stores[0]!.init();
      const result = await stores[1]!.append(newStreamId('init'), newEvents(1), {
        expectedVersion: 'no_stream',
      });
      expect(result.nextExpectedVersion).toBe(0);
      expect(stores[0]!.kind).toBe(kind);
    } finally {
      await fresh.dispose();
    }
  });

  it('refreshes the log statistics a rebuild reads by (ADR 124)', async () => {
    const fresh = await createTestDatabase(kind);
    const tuples = async () =>
      Number(
        (
          await fresh.db.query<{ reltuples: string }>(
            `SELECT reltuples::text AS reltuples FROM pg_class WHERE oid = 'es_events'::regclass`,
          )
        ).rows[0]!.reltuples,
      );
    try {
      const fresher = new PostgresEventStore(fresh.db);
      await fresher.init();
      // As when appends outrun autovacuum; here it is kept from analyzing the table under the test.
      await fresh.db.query(`ALTER TABLE es_events SET (autovacuum_enabled = false)`);
      for (let i = 0; i < 5; i++)
        await fresher.append(newStreamId('stats'), newEvents(40), { expectedVersion: 'no_stream' });
      // Never analyzed: the planner guesses, and a page after a position was read by sorting the rest of the log.
      expect(await tuples()).toBeLessThan(0);
      await fresher.refreshReadStatistics();
      expect(await tuples()).toBe(200);
      await fresher.close();
    } finally {
      await fresh.dispose();
    }
  });

  it('appends in one round trip and keeps the injected clock value exactly', async () => {
    const counting = new QueryCountingDatabase(testDb.db);
    const recordedAt = '2024-02-29T23:59:59.123Z';
    const clocked = new PostgresEventStore(counting, { clock: () => new Date(recordedAt) });
    const streamId = newStreamId('round-trip');

    await clocked.append(streamId, newEvents(25), { expectedVersion: 'no_stream' });
    expect(counting.queries).toBe(1);
    await clocked.append(streamId, newEvents(1), { expectedVersion: 24 });
    expect(counting.queries).toBe(2);

    const stored = await clocked.readStream(streamId);
    expect(new Set(stored.map((event) => event.recordedAt))).toEqual(new Set([recordedAt]));
    await clocked.close();
  });

  it('wakes a caught-up subscriber on an append of the same instance without waiting for the poll', async () => {
    const counting = new QueryCountingDatabase(testDb.db);
    const slowPolling = new PostgresEventStore(counting, { pollIntervalMs: 60_000 });
    const streamId = newStreamId('wake');
    const head = await slowPolling.headPosition();
    const answered = counting.answered;
    const subscriber = follow(slowPolling, head, (event) => event.streamId === streamId);
    try {
      await counting.untilAnswered(answered); // its first page read found nothing: caught up and waiting
      await slowPolling.append(streamId, newEvents(3), { expectedVersion: 'no_stream' });
      await subscriber.waitUntil(() => subscriber.seen.length === 3, 'the woken subscriber', 5_000);
    } finally {
      await subscriber.stop();
      await slowPolling.close();
    }
  });

  it('subscribers woken by the same append share one page read, and each still gets every event', async () => {
    const counting = new QueryCountingDatabase(testDb.db);
    const shared = new PostgresEventStore(counting, { pollIntervalMs: 60_000 });
    const streamId = newStreamId('shared');
    const head = await shared.headPosition();
    const answered = counting.answered;
    const subscribers = Array.from({ length: 8 }, () =>
      follow(shared, head, (event) => event.streamId === streamId),
    );
    try {
      await counting.untilAnswered(answered); // their shared first page read found nothing: all waiting
      const before = counting.queries;
      await shared.append(streamId, newEvents(3), { expectedVersion: 'no_stream' });
      for (const subscriber of subscribers)
        await subscriber.waitUntil(() => subscriber.seen.length === 3, 'the shared page', 5_000);
      // The append, then one page read for all eight (each reads once more after it, shared as well).
      expect(counting.queries - before).toBeLessThanOrEqual(3);
    } finally {
      for (const subscriber of subscribers) await subscriber.stop();
      await shared.close();
    }
  });

  it('a woken subscriber reads only once its wake gate opens', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let woken = false;
    const counting = new QueryCountingDatabase(testDb.db);
    const gated = new PostgresEventStore(counting, {
      pollIntervalMs: 60_000,
      wakeGate: () => {
        woken = true;
        return gate;
      },
    });
    const streamId = newStreamId('gated');
    const head = await gated.headPosition();
    const answered = counting.answered;
    const subscriber = follow(gated, head, (event) => event.streamId === streamId);
    try {
      await counting.untilAnswered(answered); // caught up and waiting
      await gated.append(streamId, newEvents(2), { expectedVersion: 'no_stream' });
      await subscriber.waitUntil(() => woken, 'the wake-up to reach the gate');
      await delay(200); // room for a read past the closed gate to show up
      expect(subscriber.seen).toHaveLength(0);
      open();
      await subscriber.waitUntil(() => subscriber.seen.length === 2, 'the gated read', 5_000);
    } finally {
      await subscriber.stop();
      await gated.close();
    }
  });

  it('ends its subscriptions on close() without closing the database', async () => {
    const counting = new QueryCountingDatabase(testDb.db);
    const closable = new PostgresEventStore(counting, { pollIntervalMs: POLL_INTERVAL_MS });
    const head = await closable.headPosition();
    const answered = counting.answered;
    const subscriber = follow(closable, head, () => true);
    await counting.untilAnswered(answered); // following
    await closable.close();
    await subscriber.stop();
    const afterClose = closable.subscribeAll({ after: null })[Symbol.asyncIterator]();
    expect((await afterClose.next()).done).toBe(true);
    expect((await testDb.db.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
  });

  it('rejects event ids already stored in another stream and stores nothing', async () => {
    const events = newEvents(2);
    const first = newStreamId('owner');
    const second = newStreamId('thief');
    await store.append(first, events, { expectedVersion: 'no_stream' });
    await expect(store.append(second, events, { expectedVersion: 'any' })).rejects.toThrow(/another stream/);
    await expect(store.append(second, [events[0]!, events[0]!], { expectedVersion: 'any' })).rejects.toThrow(
      RangeError,
    );
    expect(await store.readStream(second)).toEqual([]);
    expect(await store.streamVersion(second)).toBeNull();
  });

  it('appendWithin is part of the caller transaction: a rollback leaves nothing', async () => {
    const streamId = newStreamId('rollback');
    await expect(
      testDb.db.transaction(async (tx) => {
        await store.appendWithin(tx, streamId, newEvents(2), { expectedVersion: 'no_stream' });
        throw new Error('command failed after appending');
      }),
    ).rejects.toThrow('command failed after appending');
    expect(await store.readStream(streamId)).toEqual([]);
    expect(await store.streamVersion(streamId)).toBeNull();
    expect(
      (await store.append(streamId, newEvents(1), { expectedVersion: 'no_stream' })).nextExpectedVersion,
    ).toBe(0);
  });

  it('answers a retried append as stored even when its condition has moved since (ADR 128)', async () => {
    const account = newStreamId('retry-account');
    const ledger = newStreamId('retry-ledger');
    await store.append(account, newEvents(1), { expectedVersion: 'no_stream' });
    const settled = newEvents(1);
    const conditions = [{ streamId: account, version: 0 }];
    const original = await store.append(ledger, settled, { expectedVersion: 'no_stream', conditions });
    await store.append(account, newEvents(1), { expectedVersion: 0 });
    expect(await store.append(ledger, settled, { expectedVersion: 'no_stream', conditions })).toEqual(
      original,
    );
    await expect(
      store.append(ledger, newEvents(1), { expectedVersion: 0, conditions }),
    ).rejects.toBeInstanceOf(AppendConditionFailed);
  });
});

describe('PostgresEventStore on the PostgreSQL server: global order and failures', () => {
  let testDb: TestDatabase;
  let store: PostgresEventStore;

  beforeAll(async () => {
    testDb = await createTestDatabase('postgres');
    store = new PostgresEventStore(testDb.db, { pollIntervalMs: POLL_INTERVAL_MS });
    await store.init();
  });

  afterAll(async () => {
    await store?.close();
    await testDb?.dispose();
  });

  it('a write to a stream an open append is conditioned on waits for it, then lands after it (ADR 128)', async () => {
    const account = newStreamId('locked-account');
    const ledger = newStreamId('locked-ledger');
    await store.append(account, newEvents(1), { expectedVersion: 'no_stream' });
    const conditioned = deferred();
    const release = deferred();
    const transaction = testDb.db.transaction(async (tx) => {
      await store.appendWithin(tx, ledger, newEvents(1), {
        expectedVersion: 'no_stream',
        conditions: [{ streamId: account, version: 0 }],
      });
      conditioned.resolve();
      await release.promise;
    });
    await conditioned.promise;
    let planChanged = false;
    const planChange = store.append(account, newEvents(1), { expectedVersion: 0 }).then((result) => {
      planChanged = true;
      return result;
    });
    // The account's append is blocked on the shared lock: it cannot land under the open decision.
    const waitingOnLocks = async () =>
      (
        await testDb.db.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows[0]!.waiting;
    let waiting = await waitingOnLocks();
    for (let poll = 0; poll < 100 && waiting === 0; poll++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      waiting = await waitingOnLocks();
    }
    expect(waiting).toBe(1);
    expect(planChanged).toBe(false);
    release.resolve();
    await transaction;
    const changed = await planChange;
    const [ledgerEvent] = await store.readStream(ledger);
    expect(comparePositions(changed.position, ledgerEvent!.position)).toBeGreaterThan(0);
  });

  it('orders the log by (transaction id, sequence), not by sequence alone', async () => {
    const streamA = newStreamId('early-xid');
    const streamB = newStreamId('late-xid');
    const eventsA = newEvents(2);
    const eventsB = newEvents(2);
    const head = await store.headPosition();

    // A takes its transaction id first but writes last; B writes and commits in between.
    const xidOfA = deferred<string>();
    const bCommitted = deferred();
    const aWritten = deferred();
    const releaseA = deferred();
    const transactionA = testDb.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid');
      xidOfA.resolve(rows[0]!.xid);
      await bCommitted.promise;
      await store.appendWithin(tx, streamA, eventsA, { expectedVersion: 'no_stream' });
      aWritten.resolve();
      await releaseA.promise;
    });
    const xidA = BigInt(await Promise.race([xidOfA.promise, transactionA.then(() => '')]));
    const resultB = await store.append(streamB, eventsB, { expectedVersion: 'no_stream' });
    bCommitted.resolve();
    await aWritten.promise;

    expect(decodePosition(resultB.position).major).toBeGreaterThan(xidA);
    // B is committed but ordered after A, which is still running: B stays hidden.
    expect(await ownEvents(head, [streamA, streamB])).toEqual([]);
    expect(await store.headPosition()).toBe(head);
    // B committed before this call: waiting for a reader to reach it is waiting for everything committed.
    expect(await store.lastCommittedPosition()).toBe(resultB.position);

    releaseA.resolve();
    await transactionA;

    const log = await ownEvents(head, [streamA, streamB]);
    expect(log.map((event) => event.id)).toEqual([...eventsA, ...eventsB].map((event) => event.id));
    expectStrictlyIncreasing(log.map((event) => event.position));
    const { rows } = await testDb.db.query<{ stream_id: string; seq: string }>(
      'SELECT stream_id, seq::text AS seq FROM es_events WHERE stream_id IN ($1, $2)',
      [streamA, streamB],
    );
    const minSeqOfA = Math.min(...rows.filter((r) => r.stream_id === streamA).map((r) => Number(r.seq)));
    const maxSeqOfB = Math.max(...rows.filter((r) => r.stream_id === streamB).map((r) => Number(r.seq)));
    expect(minSeqOfA).toBeGreaterThan(maxSeqOfB); // by sequence alone, B would come first
  });

  it('never skips a late commit, where a reader checkpointing by sequence would', async () => {
    const streamA = newStreamId('late-commit');
    const streamB = newStreamId('early-commit');
    const streams = [streamA, streamB];
    const head = await store.headPosition();
    const subscriber = follow(store, head, (event) => streams.includes(event.streamId));
    try {
      // A writes first (lower sequence) but commits last; B commits in between.
      const eventsA = newEvents(2);
      const heldA = await holdOpenAppend(testDb.db, store, streamA, eventsA);
      const eventsB = newEvents(2);
      await store.append(streamB, eventsB, { expectedVersion: 'no_stream' });

      // A reader ordered by sequence sees B now and moves its checkpoint past A's sequence numbers...
      const naiveNow = await naiveReadAfter(-1, streams);
      expect(naiveNow.map((row) => row.id)).toEqual(eventsB.map((event) => event.id));
      const naiveCheckpoint = Math.max(...naiveNow.map((row) => row.seq));

      // ...while this store shows nothing yet, so its readers' checkpoints cannot move past A.
      expect(await ownEvents(head, streams)).toEqual([]);
      expect(await store.headPosition()).toBe(head);
      await delay(4 * POLL_INTERVAL_MS);
      expect(subscriber.seen).toEqual([]);

      await heldA.commit();

      // The naive reader has skipped A for good; this store delivers A, then B.
      expect(await naiveReadAfter(naiveCheckpoint, streams)).toEqual([]);
      const expectedIds = [...eventsA, ...eventsB].map((event) => event.id);
      expect((await ownEvents(head, streams)).map((event) => event.id)).toEqual(expectedIds);
      await subscriber.waitUntil(() => subscriber.seen.length >= 4, 'A and B');
      await delay(4 * POLL_INTERVAL_MS);
      expect(subscriber.seen.map((event) => event.id)).toEqual(expectedIds);
    } finally {
      await subscriber.stop();
    }
  });

  it('a subscriber survives killed connections and an outage, without loss or duplicates', async () => {
    const applicationName = `es_subscriber_${Date.now().toString(36)}`;
    const url = new URL(testDb.url!);
    url.searchParams.set('application_name', applicationName);
    const databaseName = url.pathname.slice(1);
    const subscriberDb = PostgresDatabase.fromUrl(url.toString(), 2);
    // A separate instance: no in-process wake-ups, it must find the events by reading.
    const subscriberStore = new PostgresEventStore(subscriberDb, { pollIntervalMs: 20 });
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();

    const streamId = newStreamId('dropped');
    const subscriber = follow(
      subscriberStore,
      await store.headPosition(),
      (event) => event.streamId === streamId,
    );
    let expectedVersion: ExpectedVersion = 'no_stream';
    const appendBatch = async (): Promise<void> => {
      expectedVersion = (await store.append(streamId, newEvents(10), { expectedVersion }))
        .nextExpectedVersion;
    };
    // A terminated backend stays in pg_stat_activity until it has exited: remember whom we killed,
    // so that waiting for a reconnection never mistakes a dying backend for a live one.
    const killed: number[] = [];
    const terminateSubscriberBackends = async (): Promise<number> => {
      const { rows } = await testDb.db.query<{ pid: number }>(
        `WITH subscriber AS MATERIALIZED (
           SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND NOT (pid = ANY($2::int[])))
         SELECT pid FROM subscriber WHERE pg_terminate_backend(pid)`,
        [applicationName, killed],
      );
      killed.push(...rows.map((row) => row.pid));
      return rows.length;
    };

    const waitForSubscriberBackend = async (): Promise<void> => {
      // Its reads back off up to 2 s after failures in a row: far more than that.
      for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
        const { rows } = await testDb.db.query<{ connected: number }>(
          `SELECT count(*)::int AS connected FROM pg_stat_activity
            WHERE application_name = $1 AND NOT (pid = ANY($2::int[]))`,
          [applicationName, killed],
        );
        if (rows[0]!.connected > 0) return;
        await delay(10);
      }
      throw new Error('the subscriber never reconnected');
    };

    try {
      // 1. The server kills the subscriber's connections again and again while events arrive.
      let terminated = 0;
      for (let batch = 0; batch < 10; batch += 1) {
        await appendBatch();
        await waitForSubscriberBackend(); // reconnected since the last kill
        terminated += await terminateSubscriberBackends();
      }
      expect(terminated).toBeGreaterThan(0);
      await subscriber.waitUntil(() => subscriber.seen.length >= 100, 'the events written during kills');

      // 2. An outage: the subscriber's connection is killed and reconnecting fails until the database is back.
      await waitForSubscriberBackend();
      await admin.query(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS false`);
      try {
        expect(await terminateSubscriberBackends()).toBeGreaterThan(0);
        for (let batch = 0; batch < 5; batch += 1) await appendBatch(); // the writer keeps its open connections
        await delay(600);
        expect(subscriber.seen).toHaveLength(100); // it could not read, although it polls every 20 ms
      } finally {
        await admin.query(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`);
      }
      await subscriber.waitUntil(() => subscriber.seen.length >= 150, 'the events written during the outage');
      await delay(200);
    } finally {
      // Release every connection even when the iteration failed, then surface that failure.
      const stopped = subscriber.stop();
      await stopped.catch(() => undefined);
      await subscriberStore.close();
      await subscriberDb.close();
      await admin.end();
      await stopped;
    }

    expect(subscriber.seen.map((event) => event.streamVersion)).toEqual(
      Array.from({ length: 150 }, (_, i) => i),
    );
    expectStrictlyIncreasing(subscriber.positions);
  });

  async function ownEvents(
    after: Awaited<ReturnType<PostgresEventStore['headPosition']>>,
    streams: string[],
  ) {
    const events = await store.readAll({ after, limit: 1_000 });
    return events.filter((event) => streams.includes(event.streamId));
  }

  /** What a reader ordering by the sequence alone would see after its checkpoint. */
  async function naiveReadAfter(
    checkpoint: number,
    streams: string[],
  ): Promise<{ id: string; seq: number }[]> {
    const { rows } = await testDb.db.query<{ id: string; seq: string }>(
      `SELECT event_id::text AS id, seq::text AS seq FROM es_events
        WHERE seq > $1::bigint AND stream_id IN ($2, $3) ORDER BY seq`,
      [checkpoint, streams[0], streams[1]],
    );
    return rows.map((row) => ({ id: row.id, seq: Number(row.seq) }));
  }
});

/** Counts the statements sent to a real database: an append must be a single round trip. */
class QueryCountingDatabase implements SqlDatabase {
  queries = 0;
  /** Statements answered: a subscriber whose first page read was answered (empty) is caught up and waiting. */
  answered = 0;
  readonly kind: SqlDatabase['kind'];

  constructor(private readonly inner: SqlDatabase) {
    this.kind = inner.kind;
  }

  query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    this.queries += 1;
    return this.inner.query<R>(text, params).finally(() => (this.answered += 1));
  }

  /** Until `more` statements beyond `answered` have been answered. */
  async untilAnswered(answered: number, more = 1): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (this.answered < answered + more) {
      if (Date.now() > deadline) throw new Error('no statement was answered');
      await delay(5);
    }
  }

  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    this.queries += 1;
    return this.inner.transaction(fn);
  }

  exec(sql: string): Promise<void> {
    this.queries += 1;
    return this.inner.exec(sql);
  }

  async close(): Promise<void> {
    // The wrapped database belongs to the suite.
  }
}

function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}
