import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ExportFileStore } from '../../src/exports/files/export-file-store.port.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function put(store: ExportFileStore, key: string, bytes: Buffer): Promise<number> {
  const pending = await store.create(key);
  await pipeline(Readable.from([bytes]), pending.sink);
  return pending.commit();
}

/** What every export file store must do: files are whole or absent, and keys cannot escape. */
export function exportFileStoreContract(
  label: string,
  open: () => Promise<{ store: ExportFileStore; dispose(): Promise<void> }>,
): void {
  describe(`export file store contract (${label})`, () => {
    let store: ExportFileStore;
    let dispose: () => Promise<void>;

    beforeAll(async () => {
      ({ store, dispose } = await open());
      await store.init();
    });
    afterAll(async () => {
      await store?.close();
      await dispose?.();
    });

    it('stores, sizes, lists, streams back and deletes a committed file', async () => {
      const bytes = gzipSync(Buffer.from('a,b\r\n1,2\r\n'.repeat(5000)));
      expect(await put(store, 'job1-1', bytes)).toBe(bytes.length);
      expect(await store.size('job1-1')).toBe(bytes.length);
      expect(await store.list()).toContain('job1-1');
      const back = await readAll((await store.open('job1-1'))!);
      expect(back.equals(bytes)).toBe(true);
      expect(gunzipSync(back).toString().startsWith('a,b')).toBe(true);
      expect(await store.delete('job1-1')).toBe(true);
      expect(await store.delete('job1-1')).toBe(false);
      expect(await store.open('job1-1')).toBeNull();
      expect(await store.size('job1-1')).toBeNull();
    });

    it('never shows a file before commit, nor after abort', async () => {
      const pending = await store.create('job2-1');
      pending.sink.write(Buffer.from('partial'));
      expect(await store.open('job2-1')).toBeNull();
      expect(await store.list()).not.toContain('job2-1');
      await pending.abort();
      await pending.abort();
      expect(await store.open('job2-1')).toBeNull();
    });

    it('replaces a file of the same key at commit', async () => {
      await put(store, 'job3-1', Buffer.from('first'));
      await put(store, 'job3-1', Buffer.from('second, longer'));
      expect((await readAll((await store.open('job3-1'))!)).toString()).toBe('second, longer');
      expect((await store.list()).filter((key) => key === 'job3-1')).toHaveLength(1);
    });

    it('refuses keys that could escape', async () => {
      for (const key of ['../x', 'a/b', '', '.hidden']) {
        await expect(store.create(key)).rejects.toThrow(/invalid export file key/);
      }
    });

    it('removes abandoned uploads only when old', async () => {
      const pending = await store.create('job4-1');
      pending.sink.write(Buffer.from('x'.repeat(1000)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await store.removeAbandoned(new Date(Date.now() - 60_000))).toBe(0);
      await pending.abort();
    });
  });
}
