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
import { resolveMongoTarget } from '../support/external-services.js';

const LABEL = 'mongodb';

const target = await resolveMongoTarget({ replicaSet: true });

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
