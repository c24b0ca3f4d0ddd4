/**
 * The EventStoreDB server of the legs that need one: EVENTSTORE_URL (e.g. `esdb://localhost:2113?tls=false`),
 * else a throwaway container (testcontainers: insecure, in-memory), else the reason to skip. Callers register
 * their cases with describe.skip and announceSkip the reason, so jest reports them as skipped, never passed.
 */
import { containerRuntime, reasonOf, withTimeout } from './external-services.js';

const IMAGE = 'docker.eventstore.com/eventstore/eventstore:24.10';
const CONTAINER_START_TIMEOUT_MS = 180_000;

export type EventStoreDbTarget =
  { readonly url: string; stop(): Promise<void> } | { readonly skipped: string };

export async function resolveEventStoreDbTarget(): Promise<EventStoreDbTarget> {
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

/**
 * console.info, as for every notice; jest's default (non-verbose) reporter drops the buffered console output of
 * a file whose tests are all skipped, so then the line goes to stderr as well and is never silent.
 */
export function announceSkip(message: string): void {
  console.info(message);
  if (console.constructor.name === 'BufferedConsole') process.stderr.write(`${message}\n`);
}
