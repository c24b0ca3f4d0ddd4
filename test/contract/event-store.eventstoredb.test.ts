/**
 * The EventStore contract against EventStoreDB. The server comes from EVENTSTORE_URL (e.g.
 * `esdb://localhost:2113?tls=false`), else from a throwaway container (testcontainers: insecure, in-memory).
 * Without either, the leg is registered with describe.skip, so jest reports it as skipped, never as passed.
 */
import { afterAll, describe } from '@jest/globals';
import { EventStoreDbEventStore } from '../../src/platform/event-store/eventstoredb/eventstoredb-event-store.js';
import { eventStoreContract, type EventStoreUnderTest } from './event-store.contract.js';
import { containerRuntime, reasonOf, withTimeout } from '../support/external-services.js';

const LABEL = 'eventstoredb';
const IMAGE = 'docker.eventstore.com/eventstore/eventstore:24.10';
const CONTAINER_START_TIMEOUT_MS = 180_000;

type Target = { readonly url: string; stop(): Promise<void> } | { readonly skipped: string };

async function resolveTarget(): Promise<Target> {
  const url = process.env.EVENTSTORE_URL;
  if (url) return { url, stop: async () => undefined };

  const runtime = await containerRuntime('EVENTSTORE_URL');
  if ('skipped' in runtime) return runtime;
  const { testcontainers } = runtime;

  try {
    const { GenericContainer, Wait } = testcontainers;
    const container = await withTimeout(
      new GenericContainer(IMAGE)
        .withEnvironment({
          EVENTSTORE_INSECURE: 'true',
          EVENTSTORE_MEM_DB: 'true',
          EVENTSTORE_CLUSTER_SIZE: '1',
          EVENTSTORE_RUN_PROJECTIONS: 'None',
          EVENTSTORE_START_STANDARD_PROJECTIONS: 'false',
        })
        .withExposedPorts(2113)
        .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
        .withStartupTimeout(CONTAINER_START_TIMEOUT_MS)
        .start(),
      CONTAINER_START_TIMEOUT_MS + 5_000,
      `starting ${IMAGE}`,
    );
    return {
      url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
      stop: async () => {
        await container.stop();
      },
    };
  } catch (error) {
    return {
      skipped: `no EVENTSTORE_URL, and the container runtime could not start ${IMAGE} (${reasonOf(error)})`,
    };
  }
}

const target = await resolveTarget();

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

/**
 * console.info, as for every notice; jest's default (non-verbose) reporter drops the buffered console output of
 * a file whose tests are all skipped, so then the line goes to stderr as well and is never silent.
 */
function announceSkip(message: string): void {
  console.info(message);
  if (console.constructor.name === 'BufferedConsole') process.stderr.write(`${message}\n`);
}
