/**
 * The RateLimiter contract against MongoDB. The server comes from MONGODB_URL, else from a throwaway `mongo:7`
 * container (testcontainers); the limiter needs no transactions, so a standalone server is enough. Every
 * open() gets a fresh database, dropped on dispose; the second instance is a separate MongoClient. Without a
 * server, the leg is registered with describe.skip, so jest reports it as skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { MongoRateLimiter } from '../../src/platform/rate-limit/mongodb-rate-limiter.js';
import { rateLimiterContract, type RateLimiterUnderTest } from './rate-limiter.contract.js';
import { resolveMongoTarget } from '../support/external-services.js';

const LABEL = 'mongodb';

const target = await resolveMongoTarget({ replicaSet: false });

if ('skipped' in target) {
  announceSkip(`MongoDB rate limiter contract leg skipped: ${target.skipped}`);
  describe.skip(`RateLimiter contract: ${LABEL} (skipped: ${target.skipped})`, () => {
    // Registered so every contract case shows up as skipped; open() is never called.
    rateLimiterContract(LABEL, () => Promise.reject(new Error('skipped')));
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

  rateLimiterContract(LABEL, async (clock): Promise<RateLimiterUnderTest> => {
    const mongo = await connect();
    const dbName = `ratelimit_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const limiter = new MongoRateLimiter(mongo, dbName, clock);
    await limiter.init();
    return {
      limiter,
      openAnother: async () => {
        // A second instance: its own client (connection pool) on the same database.
        const another = new MongoRateLimiter(await connect(), dbName, clock);
        await another.init();
        return another;
      },
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
