import { createReadStream, type Stats } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where `data import` reads: files, folders (walked, files in name order) and `-` (standard input), each read
 * as a stream of bytes, so that memory never holds a whole input.
 */
export interface ImportSource {
  /** The path as named (or found in a folder), `-` for standard input. */
  readonly path: string;
  /** Size and modification time of a file (undefined for standard input). */
  readonly stats?: Stats;
}

/** The first bytes of an input that sniffing looks at. */
export const SNIFF_BYTES = 64 * 1024;
export const STDIN = '-';

/** The inputs named on the command line, folders expanded (recursively, by name: code point order). */
export async function resolveSources(paths: readonly string[]): Promise<ImportSource[]> {
  if (paths.length === 0) throw new Error('name at least one file, folder or - (standard input)');
  const sources: ImportSource[] = [];
  for (const path of paths) {
    if (path === STDIN) {
      if (sources.some((source) => source.path === STDIN))
        throw new Error('standard input (-) can be read once');
      sources.push({ path });
      continue;
    }
    const stats = await stat(path);
    if (stats.isDirectory()) {
      const found = await filesUnder(path);
      if (found.length === 0) throw new Error(`${path} holds no file`);
      sources.push(...found);
    } else if (stats.isFile()) sources.push({ path, stats });
    else throw new Error(`${path} is neither a file nor a folder`);
  }
  return sources;
}

async function filesUnder(folder: string): Promise<ImportSource[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const files: ImportSource[] = [];
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile()) files.push({ path, stats: await stat(path) });
  }
  return files;
}

/**
 * An input opened for reading: its first bytes (for sniffing), then every chunk from the start. Standard input
 * can be read once: its first chunks are kept and replayed.
 */
export interface OpenedSource {
  readonly head: Buffer;
  chunks(): AsyncIterable<Buffer>;
}

export async function openSource(source: ImportSource, stdin: Readable): Promise<OpenedSource> {
  if (source.path !== STDIN) {
    const handle = await open(source.path, 'r');
    let head: Buffer;
    try {
      const buffer = Buffer.alloc(SNIFF_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
    return {
      head,
      chunks: () => createReadStream(source.path) as AsyncIterable<Buffer>,
    };
  }
  const iterator = (stdin as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  const kept: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < SNIFF_BYTES) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    kept.push(chunk);
    size += chunk.length;
  }
  let replayed = false;
  return {
    head: Buffer.concat(kept).subarray(0, SNIFF_BYTES),
    async *chunks() {
      if (replayed) throw new Error('standard input can be read once');
      replayed = true;
      yield* kept;
      kept.length = 0;
      if (ended) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    },
  };
}

/** One line of an input: its 1-based number, its text (no line ending, no byte order mark), or that it is too long. */
export type SourceLine =
  { readonly number: number; readonly text: string } | { readonly number: number; readonly tooLong: true };

/**
 * The lines of a byte stream (LF or CRLF), each decoded as UTF-8. A line longer than `maxBytes` is skipped as it
 * streams (reported as too long), so one endless line cannot fill memory. `onBytes` counts what was read.
 */
export async function* linesOf(
  chunks: AsyncIterable<Buffer>,
  maxBytes: number,
  onBytes: (bytes: number) => void = () => undefined,
): AsyncGenerator<SourceLine> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let number = 0;
  const finish = (last: Buffer): SourceLine => {
    number++;
    if (tooLong || pendingBytes + last.length > maxBytes) {
      tooLong = false;
      pending = [];
      pendingBytes = 0;
      return { number, tooLong: true };
    }
    const bytes = pending.length === 0 ? last : Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (number === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { number, text };
  };
  for await (const chunk of chunks) {
    onBytes(chunk.length);
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10, start);
      if (end === -1) break;
      yield finish(chunk.subarray(start, end));
      start = end + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0 || tooLong) continue;
    if (pendingBytes + rest.length > maxBytes) {
      tooLong = true;
      pending = [];
      pendingBytes = 0;
      continue;
    }
    // A copy: the stream may reuse its buffer.
    pending.push(Buffer.from(rest));
    pendingBytes += rest.length;
  }
  if (pendingBytes > 0 || tooLong) yield finish(Buffer.alloc(0));
}

/** A whole input as one buffer (a `file` format's item), refused past `maxBytes`. */
export async function readWhole(
  chunks: AsyncIterable<Buffer>,
  maxBytes: number,
  onBytes: (bytes: number) => void = () => undefined,
): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    onBytes(chunk.length);
    size += chunk.length;
    if (size > maxBytes) return undefined;
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts);
}
