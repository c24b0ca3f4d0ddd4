/**
 * The EventStore contract against EventStoreDB. The server comes from EVENTSTORE_URL (e.g.
 * `esdb://localhost:2113?tls=false`), else from a throwaway container (testcontainers: insecure, in-memory).
 * Without either, the leg is registered with describe.skip, so jest reports it as skipped, never as passed.
 */
import { afterAll, describe } from '@jest/globals';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb/eventstoredb-event-store.js';
import { eventStoreContract, type EventStoreUnderTest } from './event-store.contract.js';
import { announceSkip, resolveEventStoreDbTarget } from '../support/eventstoredb.js';

const LABEL = 'eventstoredb';

const target = await resolveEventStoreDbTarget();

if ('skipped' in target) {
  announceSkip(`EventStoreDB contract leg skipped: ${target.skipped}`);
  describe.skip(`EventStore contract: ${LABEL} (skipped: ${target.skipped})`, () => {
    // Registered so every contract case shows up as skipped; open() is never called.
    eventStoreContract(LABEL, () => Promise.reject(new Error('skipped')));
  });
} else {
  afterAll(() => target.stop());
  eventStoreContract(LABEL, async (): Promise<EventStoreUnderTest> => {
    const store = EventStoreDbEventStore.fromConnectionString(target.url, {
      resubscribeBackoff: { initialMs: 20, maxMs: 500 },
    });
    await store.init();
    return {
      store,
      // EventStoreDB commits appends one after the other: there are no interleaved open transactions.
      concurrentTransactions: false,
      dispose: () => store.close(),
    };
  });
}
