/**
 * The ReadStore contract against MongoDB. The server comes from MONGODB_URL (a replica set, e.g.
 * `mongodb://localhost:27017/exposure?replicaSet=rs0`), else from a throwaway `mongo:7` container started
 * as the single-node replica set `rs0` (testcontainers). Every open() gets a fresh database, dropped on
 * dispose. Without a server, the leg is registered with describe.skip, so jest reports it as skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../src/platform/read-store/mongodb/mongodb-read-store.js';
import { readStoreContract, type ReadStoreUnderTest } from './read-store.contract.js';
import { reasonOf, withTimeout } from '../support/external-services.js';

const LABEL = 'mongodb';
const IMAGE = 'mongo:7';
const RUNTIME_DETECTION_TIMEOUT_MS = 5_000;
const CONTAINER_START_TIMEOUT_MS = 180_000;
const INITIATE_REPLICA_SET =
  "try { rs.status().ok } catch (e) { rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] }).ok }";

type Target = { readonly url: string; stop(): Promise<void> } | { readonly skipped: string };

async function resolveTarget(): Promise<Target> {
  const url = process.env.MONGODB_URL;
  if (url) return { url, stop: async () => undefined };

  let testcontainers: typeof import('testcontainers');
  try {
    testcontainers = await import('testcontainers');
    await withTimeout(
      testcontainers.getContainerRuntimeClient(),
      RUNTIME_DETECTION_TIMEOUT_MS,
      'container runtime detection',
    );
  } catch (error) {
    return { skipped: `no MONGODB_URL and no container runtime (${reasonOf(error)})` };
  }

  let started: { stop(): Promise<unknown> } | undefined;
  try {
    const { GenericContainer, Wait } = testcontainers;
    const container = await withTimeout(
      new GenericContainer(IMAGE)
        .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
        .withExposedPorts(27017)
        .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
        .withStartupTimeout(CONTAINER_START_TIMEOUT_MS)
        .start(),
      CONTAINER_START_TIMEOUT_MS + 5_000,
      `starting ${IMAGE}`,
    );
    started = container;
    const initiated = await container.exec(['mongosh', '--quiet', '--eval', INITIATE_REPLICA_SET]);
    if (initiated.exitCode !== 0) throw new Error(`rs.initiate failed: ${initiated.output}`);
    // The member is known as localhost:27017 inside the container: connect directly to the mapped port.
    const address = `${container.getHost()}:${container.getMappedPort(27017)}`;
    const containerUrl = `mongodb://${address}/?directConnection=true`;
    await waitForPrimary(containerUrl);
    return { url: containerUrl, stop: async () => void (await container.stop()) };
  } catch (error) {
    await started?.stop().catch(() => undefined);
    return {
      skipped: `no MONGODB_URL, and the container runtime could not start ${IMAGE} (${reasonOf(error)})`,
    };
  }
}

async function waitForPrimary(url: string, timeoutMs = 30_000): Promise<void> {
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

const target = await resolveTarget();

if ('skipped' in target) {
  announceSkip(`MongoDB contract leg skipped: ${target.skipped}`);
  describe.skip(`ReadStore contract: ${LABEL} (skipped: ${target.skipped})`, () => {
    // Registered so every contract case shows up as skipped; open() is never called.
    readStoreContract(LABEL, () => Promise.reject(new Error('skipped')));
  });
} else {
  let shared: MongoClient | null = null;
  const client = async (): Promise<MongoClient> => {
    if (!shared) {
      shared = new MongoClient(target.url, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
      await shared.connect();
    }
    return shared;
  };
  afterAll(async () => {
    await shared?.close();
    await target.stop();
  });

  readStoreContract(LABEL, async (): Promise<ReadStoreUnderTest> => {
    const mongo = await client();
    const dbName = `contract_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const store = new MongoReadStore(mongo, dbName);
    await store.init();
    return {
      store,
      dispose: async () => {
        await store.close();
        await mongo.db(dbName).dropDatabase();
      },
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
