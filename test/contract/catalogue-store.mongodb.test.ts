/**
 * The CatalogueStore contract on MongoDB (a replica set from MONGODB_URL). Without MONGODB_URL the leg is
 * registered with describe.skip, so jest reports it as skipped, with the reason on the console.
 */
import { randomBytes } from 'node:crypto';
import { describe, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { MongoCatalogueStore } from '../../src/catalogue/store/mongodb-catalogue-store.js';
import { MongoObservationIndex } from '../../src/search/observation-index/mongodb-observation-index.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';

const url = process.env.MONGODB_URL;
if (url) {
  catalogueStoreContract('mongodb', async () => {
    const name = `catalogue_${randomBytes(6).toString('hex')}`;
    const client = new MongoClient(url);
    await client.connect();
    const store = new MongoCatalogueStore(client, name);
    const observations = new MongoObservationIndex(client, name, { selectors: store.mongoSelectors });
    await observations.init();
    await store.init();
    return {
      store,
      observations,
      dispose: async () => {
        await client.db(name).dropDatabase();
        await client.close();
      },
    };
  });
} else {
  console.warn(
    'CatalogueStore contract on MongoDB skipped: MONGODB_URL is not set (no MongoDB on this machine)',
  );
  describe.skip('CatalogueStore contract: mongodb (MONGODB_URL not set)', () => {
    it('runs against a MongoDB replica set', () => undefined);
  });
}
