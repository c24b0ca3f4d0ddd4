import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { assertFileKey, type ExportFileStore, type PendingFile } from './export-file-store.port.js';

const SUFFIX = '.gz';
const PENDING = '.pending';

/**
 * Export files in `<DATA_DIR>/exports`. A file is written as `<key>.gz.pending-<n>` and renamed to `<key>.gz`
 * at commit (rename is atomic on one file system), so a crash leaves only pending files, which the sweeper
 * removes once they are old.
 */
export class DataDirFileStore implements ExportFileStore {
  readonly kind = 'data-dir';
  private readonly dir: string;
  private sequence = 0;

  /** `subdirectory`: `exports` for export files; frozen exposure reports use `reports`. */
  constructor(dataDir: string, subdirectory = 'exports') {
    this.dir = join(dataDir, subdirectory);
  }

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  async removeAbandoned(olderThan: Date): Promise<number> {
    // Pending files of a process that died mid-write: never visible, never resumed. A live writer touches its
    // file with every chunk, so only old ones are abandoned (another process may be writing the recent ones).
    let removed = 0;
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!name.includes(PENDING)) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => null);
      if (info && info.mtime < olderThan) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async create(key: string): Promise<PendingFile> {
    assertFileKey(key);
    const target = join(this.dir, key + SUFFIX);
    const pending = `${target}${PENDING}-${process.pid}-${++this.sequence}`;
    const sink = createWriteStream(pending, { flags: 'wx' });
    let settled = false;
    return {
      sink,
      commit: async () => {
        if (!sink.writableFinished) await finished(sink);
        await rename(pending, target);
        settled = true;
        return (await stat(target)).size;
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        // Writes still queued fail once the stream is destroyed: they are thrown away on purpose.
        sink.on('error', () => undefined);
        sink.destroy();
        await rm(pending, { force: true });
      },
    };
  }

  async open(key: string): Promise<Readable | null> {
    assertFileKey(key);
    const path = join(this.dir, key + SUFFIX);
    try {
      await stat(path);
    } catch {
      return null;
    }
    return createReadStream(path);
  }

  async size(key: string): Promise<number | null> {
    assertFileKey(key);
    try {
      return (await stat(join(this.dir, key + SUFFIX))).size;
    } catch {
      return null;
    }
  }

  async delete(key: string): Promise<boolean> {
    assertFileKey(key);
    try {
      await unlink(join(this.dir, key + SUFFIX));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw error;
    }
  }

  async list(): Promise<string[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    return names.filter((name) => name.endsWith(SUFFIX)).map((name) => name.slice(0, -SUFFIX.length));
  }

  async close(): Promise<void> {}
}
