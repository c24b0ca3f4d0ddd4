import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import {
  GridFSBucket,
  MongoClient,
  type Db,
  type Filter,
  type GridFSBucketWriteStream,
  type ObjectId,
} from 'mongodb';
import { reconcileIndexes, type DeclaredIndex } from '../../platform/mongodb/index-reconciliation.js';
import { assertFileKey, type ExportFileStore, type PendingFile } from './export-file-store.port.js';
import { databaseNameOf } from '../../platform/mongodb/connect.js';

const EXPORT_BUCKET = 'export_files';

/**
 * An upload in progress, registered in `<bucket>.uploads` from its start until it is committed or aborted.
 * GridFS writes the file document only when an upload finishes, so without this record an upload in progress
 * and a dead one look alike (chunks without a file), and telling them apart meant grouping every chunk.
 */
export interface UploadDocument {
  _id: ObjectId;
  key: string;
  started_at: Date;
  /** Last time the upload made progress (bytes written since the previous touch). */
  touched_at: Date;
}

/** The sweep reads the registrations idle past its bound through this index, never the chunks. */
export const UPLOAD_INDEXES: readonly DeclaredIndex[] = [{ name: 'by_touched', keys: { touched_at: 1 } }];

/** How often an upload in progress records its progress: far below any idle bound a sweep uses (an hour). */
export const UPLOAD_TOUCH_INTERVAL_MS = 60_000;

/** The registrations of uploads idle since before `olderThan`: the only ones a sweep may reap. */
export function idleUploadsFilter(olderThan: Date): Filter<UploadDocument> {
  return { touched_at: { $lt: olderThan } };
}

/** An upload is touched only when it wrote bytes since the last touch: a stalled writer goes idle. */
export function madeProgress(lengthAtLastTouch: number, length: number): boolean {
  return length > lengthAtLastTouch;
}

export class UploadReaped extends Error {
  constructor(key: string) {
    super(`the upload of ${key} stayed idle past the abandoned-upload bound and was removed`);
  }
}

/**
 * Export files in MongoDB GridFS (bucket `export_files`), used when the read store is MongoDB so every instance
 * sees the same files. GridFS writes the file document only when the upload finishes, so an interrupted upload
 * is never visible; `abort` (and `removeAbandoned`, for crashed processes) removes its orphaned chunks. Each
 * upload in progress is registered in `<bucket>.uploads` and touched while it makes progress, so the sweep reads
 * only idle registrations (indexed) and never reaps an upload that is still writing (ADR 83).
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

  private get uploads() {
    return this.db.collection<UploadDocument>(`${this.bucketName}.uploads`);
  }

  async init(): Promise<void> {
    const files = this.db.collection(`${this.bucketName}.files`);
    const chunks = this.db.collection(`${this.bucketName}.chunks`);
    await files.createIndex({ filename: 1, uploadDate: -1 });
    await chunks.createIndex({ files_id: 1, n: 1 }, { unique: true });
    await reconcileIndexes(this.uploads, UPLOAD_INDEXES);
  }

  /**
   * Reaps uploads idle since before `olderThan`: reads their registrations through the touched_at index, and
   * deletes each one's chunks through the (files_id, n) index. One that finished (its file document exists: the
   * process died between finishing and unregistering) keeps its file and only loses the registration.
   */
  async removeAbandoned(olderThan: Date): Promise<number> {
    const files = this.db.collection(`${this.bucketName}.files`);
    const chunks = this.db.collection(`${this.bucketName}.chunks`);
    let removed = 0;
    for await (const upload of this.uploads.find(idleUploadsFilter(olderThan), { projection: { _id: 1 } })) {
      const finished = (await files.countDocuments({ _id: upload._id }, { limit: 1 })) > 0;
      if (!finished) {
        await chunks.deleteMany({ files_id: upload._id });
        removed++;
      }
      await this.uploads.deleteOne({ _id: upload._id, touched_at: { $lt: olderThan } });
    }
    return removed;
  }

  async create(key: string): Promise<PendingFile> {
    assertFileKey(key);
    const upload: GridFSBucketWriteStream = this.bucket.openUploadStream(key, { metadata: { key } });
    const id = upload.id as ObjectId;
    const started = new Date();
    await this.uploads.insertOne({ _id: id, key, started_at: started, touched_at: started });
    let lengthAtLastTouch = 0;
    const heartbeat = setInterval(() => {
      if (!madeProgress(lengthAtLastTouch, upload.length)) return;
      lengthAtLastTouch = upload.length;
      void this.uploads.updateOne({ _id: id }, { $set: { touched_at: new Date() } }).catch(() => undefined);
    }, UPLOAD_TOUCH_INTERVAL_MS);
    heartbeat.unref();
    let settled = false;
    return {
      sink: upload,
      commit: async () => {
        try {
          if (!upload.writableFinished) await finished(upload);
        } finally {
          clearInterval(heartbeat);
        }
        settled = true;
        // A sweep that took this upload for dead removed its chunks: the file would be incomplete.
        const registration = await this.uploads.deleteOne({ _id: id });
        if (registration.deletedCount === 0) {
          await this.bucket.delete(id).catch(() => undefined);
          throw new UploadReaped(key);
        }
        // Older files of the same key (a replaced upload) are removed; the newest one is the file.
        const older = await this.bucket
          .find({ filename: key, _id: { $ne: id } })
          .project({ _id: 1 })
          .toArray();
        for (const file of older) await this.bucket.delete(file._id).catch(() => undefined);
        return upload.length;
      },
      abort: async () => {
        clearInterval(heartbeat);
        if (settled) return;
        settled = true;
        upload.on('error', () => undefined);
        await upload.abort().catch(() => undefined);
        await this.uploads.deleteOne({ _id: id }).catch(() => undefined);
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
