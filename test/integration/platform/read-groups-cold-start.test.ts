/**
 * A restarted service's first loads run inside read groups (the search routes' caller lookups): nothing they do
 * may need a second pooled connection. The snapshot collection's DDL did (a transaction of its own), lazily, at
 * the first load: with every pooled connection held by a group, each group waited for one more. Found by the
 * load benchmark on a kept corpus (32 clients, every request hung); EventSourcedRepository.prepare makes it ready
 * before any request.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { Decider, DomainEvent } from '../../../src/platform/event-sourcing/decider.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { PostgresEventStore } from '../../../src/platform/event-store/postgres/postgres-event-store.js';
import { PostgresReadStore } from '../../../src/platform/read-store/postgres/postgres-read-store.js';
import type { SqlDatabase } from '../../../src/platform/database/sql-database.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';
import { testMetadata, uniqueId } from '../../support/storage.js';

type Counted = DomainEvent<'Counted', { by: number }>;
const counter: Decider<{ type: 'Count'; by: number }, Counted, { total: number }, null> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command) => [{ type: 'Counted', data: { by: command.by } }],
};

const POOL = 3;

describe('read groups of a restarted service (PostgreSQL server, a pool of 3)', () => {
  let database: TestDatabase;
  let small: SqlDatabase;
  const streams = [0, 1, 2, 3, 4, 5].map(() => uniqueId('cold'));

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The streams exist, written by an earlier process.
    const eventStore = new PostgresEventStore(database.db, { pollIntervalMs: 20 });
    const readStore = new PostgresReadStore(database.db);
    await eventStore.init();
    await readStore.init();
    for (const stream of streams)
      await eventStore.append(
        stream,
        [{ id: randomUUID(), type: 'Counted', schemaVersion: 1, data: { by: 2 }, metadata: testMetadata() }],
        { expectedVersion: 'no_stream' },
      );
    await eventStore.close();
    small = database.openAnother(POOL);
  });

  afterAll(async () => {
    await database?.dispose();
  });

  /**
   * A new process: a cold repository, prepared as the service context prepares it, then more concurrent groups
   * than the pool has connections (without prepare() this test hangs: every group waits for the DDL's connection).
   */
  const loadInGroups = async () => {
    const eventStore = new PostgresEventStore(small, { pollIntervalMs: 20 });
    const readStore = new PostgresReadStore(small);
    const repository = new EventSourcedRepository(eventStore, readStore, { snapshotEvery: 500 });
    await repository.prepare();
    try {
      return await Promise.all(
        streams.map(async (stream) => {
          const group = small.openReadGroup!()!;
          try {
            return await group.run(async () => {
              // The group holds its connection from its first read, as the guard's reads do.
              await small.query('SELECT 1');
              return (await repository.load(stream, counter, { ownRead: true })).state.total;
            });
          } finally {
            await group.end();
          }
        }),
      );
    } finally {
      await eventStore.close();
    }
  };

  it('loads every stream once the repository is prepared, with the pool held by the groups', async () => {
    const loaded = await Promise.race([
      loadInGroups(),
      new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 20_000).unref()),
    ]);
    expect(loaded).toEqual(streams.map(() => 2));
  });
});
