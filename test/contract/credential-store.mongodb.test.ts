/**
 * The CredentialStore contract against MongoDB (deployments with no SQL database). The server comes from
 * MONGODB_URL, else from a throwaway `mongo:7` container (testcontainers); every open() gets a fresh database,
 * dropped on dispose. Without a server, the leg is registered with describe.skip, so jest reports it as skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { MongoCredentialStore } from '../../src/platform/auth/credentials/mongodb-credential-store.js';
import { credentialStoreContract } from './credential-store.contract.js';
import { resolveMongoTarget } from '../support/external-services.js';

const LABEL = 'mongodb';

const target = await resolveMongoTarget({ replicaSet: false });

if ('skipped' in target) {
  announceSkip(`MongoDB credential store contract leg skipped: ${target.skipped}`);
  describe.skip(`CredentialStore contract: ${LABEL} (skipped: ${target.skipped})`, () => {
    // Registered so every contract case shows up as skipped; open() is never called.
    credentialStoreContract(LABEL, () => Promise.reject(new Error('skipped')));
  });
} else {
  const clients: MongoClient[] = [];
  const connect = async (): Promise<MongoClient> => {
    const client = new MongoClient(target.url, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
    await client.connect();
    clients.push(client);
    return client;
  };
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await target.stop();
  });

  credentialStoreContract(LABEL, async () => {
    const mongo = await connect();
    const dbName = `credentials_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const store = new MongoCredentialStore(mongo, dbName);
    await store.init();
    return {
      store,
      dispose: async () => {
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
