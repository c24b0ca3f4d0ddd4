/**
 * The export file store contract against MongoDB GridFS. Runs when MONGODB_URL is set (a fresh database per run,
 * dropped afterwards); otherwise the leg is registered with describe.skip and says why.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { GridFsFileStore, UploadReaped } from '../../src/exports/files/gridfs-file-store.js';
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

  describe('GridFS abandoned uploads (MongoDB)', () => {
    const dbName = `export_uploads_${randomBytes(4).toString('hex')}`;
    let store: GridFsFileStore;
    let client: MongoClient;
    beforeAll(async () => {
      store = await GridFsFileStore.connect(url, dbName);
      await store.init();
      client = await MongoClient.connect(url);
    });
    afterAll(async () => {
      await client.db(dbName).dropDatabase();
      await client.close();
      await store.close();
    });
    const chunkCount = () => client.db(dbName).collection('export_files.chunks').countDocuments();

    it('reaps an upload idle past the bound (its chunks), and its late commit is refused', async () => {
      const pending = await store.create('slow-1');
      pending.sink.write(Buffer.alloc(300 * 1024, 1)); // more than one 255 KiB chunk: one is flushed
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await store.removeAbandoned(new Date(Date.now() - 60_000))).toBe(0);
      expect(await chunkCount()).toBeGreaterThan(0);
      // Idle since before a bound in the future: reaped.
      expect(await store.removeAbandoned(new Date(Date.now() + 60_000))).toBe(1);
      expect(await chunkCount()).toBe(0);
      pending.sink.end();
      await expect(pending.commit()).rejects.toThrow(UploadReaped);
      expect(await store.size('slow-1')).toBeNull();
    });

    it('a committed upload leaves no registration to sweep', async () => {
      const pending = await store.create('done-1');
      pending.sink.end(Buffer.from('complete'));
      expect(await pending.commit()).toBe(8);
      expect(await store.removeAbandoned(new Date(Date.now() + 60_000))).toBe(0);
      expect(await store.size('done-1')).toBe(8);
    });
  });
} else {
  describe.skip('export file store contract (MongoDB GridFS): skipped, MONGODB_URL is not set', () => {
    it('runs with MONGODB_URL', () => undefined);
  });
}
