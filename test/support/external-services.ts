/**
 * Shared by the contract legs that need a server this machine may not have (EventStoreDB, MongoDB): they use
 * the server named by an environment variable, else a testcontainers container, else they are skipped and say why.
 */

/** Rejects with "<what> timed out after <ms> ms" when the promise takes longer (runtime detection must not hang). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A failure's message, for the "skipped because …" line. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * testcontainers, once a container runtime answers (within 5 s: detection must not hang a suite), or why the leg
 * that needed it (no `variable` set either) is skipped.
 */
export async function containerRuntime(
  variable: string,
): Promise<{ readonly testcontainers: typeof import('testcontainers') } | { readonly skipped: string }> {
  try {
    const testcontainers = await import('testcontainers');
    await withTimeout(
      testcontainers.getContainerRuntimeClient(),
      RUNTIME_DETECTION_TIMEOUT_MS,
      'container runtime detection',
    );
    return { testcontainers };
  } catch (error) {
    return { skipped: `no ${variable} and no container runtime (${reasonOf(error)})` };
  }
}

/** A MongoDB server for a contract leg, or why there is none (the leg is then registered with describe.skip). */
export type MongoTarget = { readonly url: string; stop(): Promise<void> } | { readonly skipped: string };

const MONGO_IMAGE = 'mongo:7';
const RUNTIME_DETECTION_TIMEOUT_MS = 5_000;
const CONTAINER_START_TIMEOUT_MS = 180_000;
const INITIATE_REPLICA_SET =
  "try { rs.status().ok } catch (e) { rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] }).ok }";

/**
 * MONGODB_URL, else a throwaway `mongo:7` container (testcontainers): a single-member replica set when the store
 * needs transactions or change streams (`replicaSet`), a standalone server otherwise.
 */
export async function resolveMongoTarget(options: { readonly replicaSet: boolean }): Promise<MongoTarget> {
  const url = process.env.MONGODB_URL;
  if (url) return { url, stop: async () => undefined };

  const runtime = await containerRuntime('MONGODB_URL');
  if ('skipped' in runtime) return runtime;
  const { testcontainers } = runtime;

  let started: { stop(): Promise<unknown> } | undefined;
  try {
    const { GenericContainer, Wait } = testcontainers;
    const image = new GenericContainer(MONGO_IMAGE);
    const container = await withTimeout(
      (options.replicaSet ? image.withCommand(['--replSet', 'rs0', '--bind_ip_all']) : image)
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .withStartupTimeout(CONTAINER_START_TIMEOUT_MS)
        .start(),
      CONTAINER_START_TIMEOUT_MS + 5_000,
      `starting ${MONGO_IMAGE}`,
    );
    started = container;
    // A replica set member is known as localhost:27017 inside the container: connect directly to the mapped port.
    const containerUrl = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
    if (options.replicaSet) {
      const initiated = await container.exec(['mongosh', '--quiet', '--eval', INITIATE_REPLICA_SET]);
      if (initiated.exitCode !== 0) throw new Error(`rs.initiate failed: ${initiated.output}`);
      await waitForPrimary(containerUrl);
    }
    return { url: containerUrl, stop: async () => void (await container.stop()) };
  } catch (error) {
    await started?.stop().catch(() => undefined);
    return {
      skipped: `no MONGODB_URL, and the container runtime could not start ${MONGO_IMAGE} (${reasonOf(error)})`,
    };
  }
}

async function waitForPrimary(url: string, timeoutMs = 30_000): Promise<void> {
  const { MongoClient } = await import('mongodb');
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2_000 });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        const hello = await client.db('admin').command({ hello: 1 });
        if (hello.isWritablePrimary === true) return;
      } catch {
        // not reachable yet
      }
      if (Date.now() > deadline) throw new Error(`replica set primary not elected within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await client.close();
  }
}
