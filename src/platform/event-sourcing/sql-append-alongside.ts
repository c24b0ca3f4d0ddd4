import type { SqlDatabase } from '../database/sql-database.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { PostgresEventStore } from '../event-store/postgres/postgres-event-store.js';
import type { AppendAlongside } from './event-sourced-repository.js';

/**
 * On the SQL event store, a decision's append and its alongside write (a credential, ADR 65) commit in one
 * transaction; undefined for any other event store (the repository then writes first and appends after).
 */
export function sqlAppendAlongside(
  eventStore: EventStore,
  sql: SqlDatabase | undefined,
): AppendAlongside | undefined {
  if (!sql || !(eventStore instanceof PostgresEventStore)) return undefined;
  return async (streamId, events, options, alongside) => {
    const result = await sql.transaction(async (tx) => {
      await alongside(tx);
      return eventStore.appendWithin(tx, streamId, events, options);
    });
    // appendWithin leaves subscribers to their next poll; the same append again is an idempotent no-op that
    // wakes them now, so read-your-writes waits no longer than after any other append.
    await eventStore.append(streamId, events, { expectedVersion: 'any' });
    return result;
  };
}
