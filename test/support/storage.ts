import { randomUUID } from 'node:crypto';
import type { EventMetadata, EventStore, NewEvent } from '../../src/platform/event-store/event-store.port.js';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import { PostgresReadStore } from '../../src/platform/read-store/postgres/postgres-read-store.js';
import type { ReadStore } from '../../src/platform/read-store/read-store.port.js';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from './databases.js';

export interface TestStorage {
  readonly database: TestDatabase;
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  dispose(): Promise<void>;
}

/** Real PostgreSQL-backed event and read stores on a fresh database (PGlite in memory or the server). */
export async function createTestStorage(kind: TestDatabaseKind): Promise<TestStorage> {
  const database = await createTestDatabase(kind);
  const eventStore = new PostgresEventStore(database.db, { pollIntervalMs: 20 });
  const readStore = new PostgresReadStore(database.db);
  await eventStore.init();
  await readStore.init();
  return {
    database,
    eventStore,
    readStore,
    dispose: async () => {
      await eventStore.close();
      await readStore.close();
      await database.dispose();
    },
  };
}

export const testMetadata = (overrides: Partial<EventMetadata> = {}): EventMetadata => ({
  actor: 'account:tester',
  payer: 'account:tester',
  scope: null,
  correlationId: 'corr-test',
  causationId: 'cause-test',
  ...overrides,
});

/** Events of one command with deterministic ids. */
export function newEvents(
  commandId: string,
  events: ReadonlyArray<{ type: string; data: unknown }>,
  metadata: EventMetadata = testMetadata(),
): NewEvent[] {
  return events.map((event, index) => ({
    id: eventIdFor(commandId, index),
    type: event.type,
    schemaVersion: 1,
    data: event.data,
    metadata,
  }));
}

export function uniqueId(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  stepMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}
