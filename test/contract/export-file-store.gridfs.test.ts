/**
 * The export file store contract against MongoDB GridFS. Runs when MONGODB_URL is set (a fresh database per run,
 * dropped afterwards); otherwise the leg is registered with describe.skip and says why.
 */
import { randomBytes } from 'node:crypto';
import { describe, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { GridFsFileStore } from '../../src/exports/files/gridfs-file-store.js';
import { exportFileStoreContract } from './export-file-store.contract.js';

const url = process.env.MONGODB_URL;
if (url) {
  exportFileStoreContract('MongoDB GridFS', async () => {
    const dbName = `export_files_${randomBytes(4).toString('hex')}`;
    const store = await GridFsFileStore.connect(url, dbName);
    return {
      store,
      dispose: async () => {
        const client = await MongoClient.connect(url);
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  });
} else {
  describe.skip('export file store contract (MongoDB GridFS): skipped, MONGODB_URL is not set', () => {
    it('runs with MONGODB_URL', () => undefined);
  });
}
