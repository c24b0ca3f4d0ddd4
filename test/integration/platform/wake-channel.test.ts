/**
 * The wake channel between instances on the PostgreSQL server (ADR 88): another instance's append wakes a
 * subscriber that would otherwise sleep for an hour, a lost notification is made up by the safety poll, and a
 * listening connection that drops is re-established (LISTEN again) and its gap re-read. Another instance's
 * generation switch wakes the projection runner's generation check the same way.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  PostgresChangeSignals,
  type ChangeOrigin,
  type ChangeSignals,
} from '../../../src/platform/database/change-signals.js';
import type { SqlDatabase } from '../../../src/platform/database/sql-database.js';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { PostgresEventStore } from '../../../src/platform/event-store/postgres/postgres-event-store.js';
import type { ProjectionDefinition } from '../../../src/platform/projections/projection-definition.js';
import { ProjectionMaintenance } from '../../../src/platform/projections/projection-maintenance.js';
import { ProjectionRunner } from '../../../src/platform/projections/projection-runner.js';
import { PostgresReadStore } from '../../../src/platform/read-store/postgres/postgres-read-store.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from '../../support/databases.js';
import { newEvents, uniqueId } from '../../support/storage.js';

/** Longer than any test: a subscriber or a watcher configured with it wakes only when signalled. */
const HOUR = 3_600_000;

interface Instance {
  readonly db: SqlDatabase;
  readonly changes: PostgresChangeSignals | undefined;
  readonly eventStore: PostgresEventStore;
}

describe('wake channel on the PostgreSQL server', () => {
  let database: TestDatabase;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await database.dispose();
  });

  /** An instance with its own pool and, unless `listen` is false, its own listening connection. */
  const instance = async (
    options: { listen?: boolean; pollMs?: number; presenceGraceMs?: number } = {},
  ): Promise<Instance> => {
    const db = database.openAnother();
    const changes =
      options.listen === false
        ? undefined
        : new PostgresChangeSignals(
            { connectionString: database.url },
            db,
            options.presenceGraceMs !== undefined ? { presenceGraceMs: options.presenceGraceMs } : {},
          );
    await changes?.start();
    const eventStore = new PostgresEventStore(db, {
      pollIntervalMs: options.pollMs ?? HOUR,
      safetyPollMs: options.pollMs ?? HOUR,
      ...(changes ? { changes } : {}),
    });
    await eventStore.init();
    closers.push(async () => {
      await eventStore.close();
      await changes?.close();
    });
    return { db, changes, eventStore };
  };

  /** A subscription from the start, and a way to take its next event. */
  const follow = (store: PostgresEventStore) => {
    const abort = new AbortController();
    const iterator = store.subscribeAll({ after: null, signal: abort.signal })[Symbol.asyncIterator]();
    closers.push(async () => {
      abort.abort();
      await iterator.return?.(undefined);
    });
    return async (): Promise<RecordedEvent> => {
      const next = await iterator.next();
      if (next.done) throw new Error('the subscription ended');
      return next.value;
    };
  };

  const append = (store: PostgresEventStore, stream: string) =>
    store.append(stream, newEvents(`${stream}-cmd`, [{ type: 'Noted', data: {} }]), {
      expectedVersion: 'no_stream',
    });

  /**
   * Brings a subscriber of `store` to rest at the head: it reads its own append, then waits (polls an hour
   * apart). Whatever it delivers next came from a signal.
   */
  const atRest = async (store: PostgresEventStore, next: () => Promise<RecordedEvent>): Promise<void> => {
    const own = uniqueId('own');
    const reading = next();
    await append(store, own);
    expect((await reading).streamId).toBe(own);
  };

  /** Resolves on the next signal of `topic` with this origin. */
  const nextSignal = (changes: ChangeSignals, origin: ChangeOrigin): Promise<void> =>
    new Promise((resolve) => {
      const stop = changes.subscribe('appended', (each) => {
        if (each !== origin) return;
        stop();
        resolve();
      });
    });

  it("another instance's append wakes a subscriber at rest through NOTIFY", async () => {
    const a = await instance();
    const b = await instance();
    const next = follow(b.eventStore);
    await atRest(b.eventStore, next);

    const waiting = next();
    const stream = uniqueId('from-a');
    await append(a.eventStore, stream);
    expect((await waiting).streamId).toBe(stream);
  });

  it('an instance alone sends no notification; one that starts listening is told at once (ADR 111)', async () => {
    const watcher = new pg.Client({ connectionString: database.url });
    await watcher.connect();
    closers.push(() => watcher.end());
    const heard: string[] = [];
    watcher.on('notification', (message) => heard.push(message.channel));
    await watcher.query('LISTEN es_appended');
    const a = await instance({ presenceGraceMs: 0 });
    expect(a.changes!.othersListening).toBe(false);
    await append(a.eventStore, uniqueId('alone'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard).toEqual([]);

    // B LISTENs and says hello: A learns it and B's subscriber at rest wakes on A's next append.
    const b = await instance({ presenceGraceMs: 0 });
    const deadline = Date.now() + 5000;
    while (!(a.changes!.othersListening && b.changes!.othersListening) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect([a.changes!.othersListening, b.changes!.othersListening]).toEqual([true, true]);
    const next = follow(b.eventStore);
    expect((await next()).streamId).toMatch(/^alone/);
    await atRest(b.eventStore, next);
    const waiting = next();
    const stream = uniqueId('told');
    await append(a.eventStore, stream);
    expect((await waiting).streamId).toBe(stream);
    expect(heard).toContain('es_appended');
  });

  it('a lost notification is made up by the safety poll', async () => {
    // A appends without telling anyone (as if its notification were lost); B polls every 50 ms at the slowest.
    const a = await instance({ listen: false });
    const b = await instance({ pollMs: 50 });
    const next = follow(b.eventStore);
    await atRest(b.eventStore, next);

    const waiting = next();
    const stream = uniqueId('unsignalled');
    await append(a.eventStore, stream);
    expect((await waiting).streamId).toBe(stream);
  });

  it('a dropped listening connection LISTENs again, and what was appended meanwhile is read', async () => {
    const a = await instance();
    const b = await instance();
    const next = follow(b.eventStore);
    await atRest(b.eventStore, next);
    const pid = b.changes!.listenerPid;
    expect(pid).toBeDefined();

    // The server ends B's listening connection; A appends while B may not listen (its notification may be lost).
    const resynced = nextSignal(b.changes!, 'resync');
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    try {
      const terminated = await admin.query<{ done: boolean }>('SELECT pg_terminate_backend($1) AS done', [
        pid,
      ]);
      expect(terminated.rows[0]!.done).toBe(true);
    } finally {
      await admin.end();
    }
    const during = uniqueId('during-drop');
    const first = next();
    await append(a.eventStore, during);
    expect((await first).streamId).toBe(during);

    // B listens again on a new connection, and A's next append reaches it by notification.
    await resynced;
    expect(b.changes!.listenerPid).toBeDefined();
    expect(b.changes!.listenerPid).not.toBe(pid);
    const after = uniqueId('after-reconnect');
    const second = next();
    await append(a.eventStore, after);
    expect((await second).streamId).toBe(after);
  });

  it("another instance's generation switch wakes the runner's generation check", async () => {
    const a = await instance();
    const b = await instance();
    const definition: ProjectionDefinition = {
      name: 'wake-notes',
      version: 1,
      collections: { wake_notes: { indexes: [] } },
      handles: ['Noted'],
      reads: (event) => [{ collection: 'wake_notes', id: event.streamId }],
      apply(event, view) {
        view.put('wake_notes', { id: event.streamId });
      },
    };
    const runner = async (store: PostgresEventStore, db: SqlDatabase, changes: PostgresChangeSignals) => {
      const readStore = new PostgresReadStore(db);
      await readStore.init();
      const started = new ProjectionRunner(store, readStore, [definition], {
        changes,
        generationCheckMs: HOUR,
        generationSafetyMs: HOUR,
      });
      closers.push(() => started.stop());
      await started.start();
      return started;
    };
    const runnerA = await runner(a.eventStore, a.db, a.changes!);
    const runnerB = await runner(b.eventStore, b.db, b.changes!);
    const appended = await append(a.eventStore, uniqueId('note'));
    expect(await runnerB.waitFor([definition.name], appended.position, 60_000)).toBe(true);
    expect(runnerB.states()[0]!.generation).toBe(1);

    // A rebuilds and switches; B learns it only through the channel (its check runs an hour apart otherwise).
    const maintenance = new ProjectionMaintenance(runnerA.engine, {
      dropGraceMs: 0,
      onSwitched: (name) => runnerA.generationSwitched(name),
    });
    expect((await maintenance.rebuild(definition)).generation).toBe(2);
    await waitUntil(() => runnerB.states()[0]!.generation === 2);
    const later = await append(a.eventStore, uniqueId('note'));
    expect(await runnerB.waitFor([definition.name], later.position, 60_000)).toBe(true);
    expect(await runnerB.collection(definition.name, 'wake_notes').count()).toBe(2);
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}
