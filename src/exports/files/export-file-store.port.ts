import type { Readable, Writable } from 'node:stream';

/**
 * Where export files live, gzip-compressed. A file is whole or absent: bytes go to a pending upload that only
 * `commit` makes visible, and `abort` throws away. Adapters: the data directory (default) and MongoDB GridFS
 * (when the read store is MongoDB).
 */
export interface ExportFileStore {
  readonly kind: string;
  init(): Promise<void>;
  /** A new pending file under `key` (an existing committed file of that key is replaced at commit). */
  create(key: string): Promise<PendingFile>;
  /** The stored (compressed) bytes, or null when there is no such file. */
  open(key: string): Promise<Readable | null>;
  /** Stored size in bytes, or null when absent. */
  size(key: string): Promise<number | null>;
  /** Deletes a committed file; true when there was one. */
  delete(key: string): Promise<boolean>;
  /** Removes pending bytes of writers that died before committing (untouched since `olderThan`). */
  removeAbandoned(olderThan: Date): Promise<number>;
  /** Keys of every committed file (the sweeper deletes orphans). */
  list(): Promise<string[]>;
  close(): Promise<void>;
}

export interface PendingFile {
  /** Where to write the compressed bytes. */
  readonly sink: Writable;
  /** Makes the file visible once the sink has finished; returns its stored size. */
  commit(): Promise<number>;
  /** Throws the pending bytes away. Safe to call more than once, and after a failed write. */
  abort(): Promise<void>;
}

/** Keys are export ids plus an attempt number: letters, digits and dashes only, so no path can escape. */
export function assertFileKey(key: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/.test(key))
    throw new Error(`invalid export file key ${JSON.stringify(key)}`);
}

/** Nest token for the ExportFileStore (PlatformModule provides the process's one). */
export const EXPORT_FILES = Symbol('ExportFileStore');
