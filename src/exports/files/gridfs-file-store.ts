import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { GridFSBucket, MongoClient, type Db, type GridFSBucketWriteStream } from 'mongodb';
import { assertFileKey, type ExportFileStore, type PendingFile } from './export-file-store.port.js';

const EXPORT_BUCKET = 'export_files';

/**
 * Export files in MongoDB GridFS (bucket `export_files`), used when the read store is MongoDB so every instance
 * sees the same files. GridFS writes the file document only when the upload finishes, so an interrupted upload
 * is never visible; `abort` (and `removeAbandoned`, for crashed processes) removes its orphaned chunks.
 */
export class GridFsFileStore implements ExportFileStore {
  readonly kind = 'gridfs';
  private readonly bucket: GridFSBucket;

  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    /** `export_files` for exports; frozen exposure reports use their own bucket (`report_files`). */
    private readonly bucketName: string,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName });
  }

  static async connect(
    url: string,
    dbName?: string,
    bucketName: string = EXPORT_BUCKET,
  ): Promise<GridFsFileStore> {
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      serverSelectionTimeoutMS: 10_000,
    });
    await client.connect();
    return new GridFsFileStore(client, client.db(dbName ?? databaseNameOf(url) ?? 'exposure'), bucketName);
  }

  async init(): Promise<void> {
    const files = this.db.collection(`${this.bucketName}.files`);
    const chunks = this.db.collection(`${this.bucketName}.chunks`);
    await files.createIndex({ filename: 1, uploadDate: -1 });
    await chunks.createIndex({ files_id: 1, n: 1 }, { unique: true });
  }

  async removeAbandoned(olderThan: Date): Promise<number> {
    const chunks = this.db.collection(`${this.bucketName}.chunks`);
    // Chunks without a file document belong to uploads that died before finishing.
    const orphanIds = await chunks
      .aggregate<{ _id: unknown }>([
        { $group: { _id: '$files_id' } },
        { $lookup: { from: `${this.bucketName}.files`, localField: '_id', foreignField: '_id', as: 'file' } },
        { $match: { file: { $size: 0 } } },
      ])
      .toArray();
    let removed = 0;
    for (const { _id } of orphanIds) {
      // ObjectIds carry their creation time: only old uploads are orphans, not one in progress elsewhere.
      const created = (_id as { getTimestamp?: () => Date }).getTimestamp?.();
      if (created && created < olderThan) {
        await chunks.deleteMany({ files_id: _id });
        removed++;
      }
    }
    return removed;
  }

  async create(key: string): Promise<PendingFile> {
    assertFileKey(key);
    const upload: GridFSBucketWriteStream = this.bucket.openUploadStream(key, { metadata: { key } });
    let settled = false;
    return {
      sink: upload,
      commit: async () => {
        if (!upload.writableFinished) await finished(upload);
        settled = true;
        // Older files of the same key (a replaced upload) are removed; the newest one is the file.
        const older = await this.bucket
          .find({ filename: key, _id: { $ne: upload.id } })
          .project({ _id: 1 })
          .toArray();
        for (const file of older) await this.bucket.delete(file._id).catch(() => undefined);
        return upload.length;
      },
      abort: async () => {
        if (settled) return;
        settled = true;
        upload.on('error', () => undefined);
        await upload.abort().catch(() => undefined);
      },
    };
  }

  private async newest(key: string) {
    const [file] = await this.bucket.find({ filename: key }).sort({ uploadDate: -1 }).limit(1).toArray();
    return file ?? null;
  }

  async open(key: string): Promise<Readable | null> {
    assertFileKey(key);
    const file = await this.newest(key);
    return file ? this.bucket.openDownloadStream(file._id) : null;
  }

  async size(key: string): Promise<number | null> {
    assertFileKey(key);
    return (await this.newest(key))?.length ?? null;
  }

  async delete(key: string): Promise<boolean> {
    assertFileKey(key);
    const files = await this.bucket.find({ filename: key }).project({ _id: 1 }).toArray();
    for (const file of files) await this.bucket.delete(file._id).catch(() => undefined);
    return files.length > 0;
  }

  async list(): Promise<string[]> {
    return (await this.db.collection(`${this.bucketName}.files`).distinct('filename')) as string[];
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function databaseNameOf(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : undefined;
  return name || undefined;
}
