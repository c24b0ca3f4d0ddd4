/**
 * The OAuthStore contract on the MongoDB read store. The server comes from MONGODB_URL, else from a throwaway
 * container (testcontainers); without one, the leg is registered with describe.skip and reported as skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { MongoReadStore } from '../../src/platform/read-store/mongodb/mongodb-read-store.js';
import { resolveMongoTarget } from '../support/external-services.js';
import { oauthStoreContract } from './oauth-store.contract.js';

const LABEL = 'mongodb';
const target = await resolveMongoTarget({ replicaSet: true });

if ('skipped' in target) {
  const message = `MongoDB OAuth store contract leg skipped: ${target.skipped}`;
  console.info(message);
  if (console.constructor.name === 'BufferedConsole') process.stderr.write(`${message}\n`);
  describe.skip(`OAuthStore contract: ${LABEL} (skipped: ${target.skipped})`, () => {
    oauthStoreContract(LABEL, () => Promise.reject(new Error('skipped')));
  });
} else {
  let shared: MongoClient | null = null;
  afterAll(async () => {
    await shared?.close();
    await target.stop();
  });
  oauthStoreContract(LABEL, async () => {
    shared ??= await new MongoClient(target.url, {
      writeConcern: { w: 'majority' },
      ignoreUndefined: true,
    }).connect();
    const mongo = shared;
    const dbName = `oauth_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const readStore = new MongoReadStore(mongo, dbName);
    await readStore.init();
    return {
      readStore,
      dispose: async () => {
        await readStore.close();
        await mongo.db(dbName).dropDatabase();
      },
    };
  });
}
