import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { isDataset, type Dataset } from '../domain/datasets.js';
import { validateRecord, type ObservationRecord } from '../domain/records.js';
import {
  InvalidObservationRecord,
  normalizeObservation,
  type ObservationIndex,
} from '../observation-index/observation-index.port.js';

/**
 * Imports an NDJSON file (one record per line) into one dataset of the observation index, streaming: memory
 * holds one batch, never the file.
 *
 * Policy (docs/adr/0031-observation-data.md):
 * - Every line is parsed and validated completely (`validateRecord`, then the index's own record check)
 *   before it can join a batch, so a bad line is never half-written: it is rejected, with its line number and
 *   the reasons, and the import goes on.
 * - Valid lines are written in batches (default 1,000), each batch one atomic `write` (upsert by id: a record
 *   already stored is replaced, and within the file a later line with the same id wins).
 * - Rejections are counted; the first 100 are kept with their details.
 * - `strict`: the whole file is validated first and nothing is written when any line is bad. When every line
 *   is good the file is read a second time and written; if it changed in between, the import stops with an
 *   error (batches already written stay written; rerunning is safe, writes are upserts).
 * - A failed write stops the import with an NdjsonImportError carrying the summary so far: every batch
 *   counted in `imported` is stored, the failed batch wrote nothing.
 * Blank lines are skipped (not counted as read). A UTF-8 byte order mark on the first line is ignored.
 */
export interface NdjsonImportOptions {
  /** Records per atomic write (1 to 10,000; default 1,000). */
  readonly batchSize?: number;
  /** Validate the whole file first; write nothing if any line is bad. */
  readonly strict?: boolean;
  /** Rejections kept with details (default 100). */
  readonly maxProblems?: number;
  readonly onProgress?: (progress: NdjsonImportProgress) => void;
  /** Stops between batches (the summary so far is in the NdjsonImportError). */
  readonly signal?: AbortSignal;
}

export interface NdjsonImportProgress {
  readonly phase: 'validating' | 'importing';
  readonly bytesRead: number;
  readonly totalBytes: number;
  readonly read: number;
  readonly imported: number;
  readonly rejected: number;
}

export interface NdjsonProblem {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
}

export interface NdjsonImportSummary {
  readonly dataset: Dataset;
  readonly file: string;
  readonly strict: boolean;
  /** Non-blank lines read. */
  read: number;
  /** Records written (lines in committed batches). */
  imported: number;
  rejected: number;
  blank: number;
  batches: number;
  /** The first `maxProblems` rejections. */
  problems: NdjsonProblem[];
  /** More lines were rejected than `problems` lists. */
  problemsTruncated: boolean;
  /** Strict mode found bad lines and wrote nothing. */
  aborted: boolean;
}

/** The import stopped (write failure, file changed, interruption); `summary` tells what was stored. */
export class NdjsonImportError extends Error {
  override readonly name = 'NdjsonImportError';
  constructor(
    message: string,
    readonly summary: NdjsonImportSummary,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Lines longer than this are rejected without parsing. */
export const MAX_LINE_CHARS = 1024 * 1024;
export const DEFAULT_BATCH_SIZE = 1000;
const DEFAULT_MAX_PROBLEMS = 100;

/** Parses and validates one line: the normalized record, or why the line is refused. */
export function parseNdjsonLine(
  dataset: Dataset,
  text: string,
): { ok: true; record: ObservationRecord } | { ok: false; reason: string } {
  if (text.length > MAX_LINE_CHARS)
    return { ok: false, reason: `line is longer than ${MAX_LINE_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const validation = validateRecord(dataset, value);
  if (!validation.ok) return { ok: false, reason: validation.problems.join('; ') };
  try {
    // The index's own check, so that a batch is never refused by write() because of one line.
    normalizeObservation(dataset, validation.record);
  } catch (error) {
    if (error instanceof InvalidObservationRecord) return { ok: false, reason: error.message };
    throw error;
  }
  return { ok: true, record: validation.record };
}

export async function importNdjson(
  index: Pick<ObservationIndex, 'write'>,
  dataset: Dataset,
  filePath: string,
  options: NdjsonImportOptions = {},
): Promise<NdjsonImportSummary> {
  if (!isDataset(dataset)) throw new RangeError(`unknown dataset ${JSON.stringify(dataset)}`);
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw new RangeError('batchSize must be an integer from 1 to 10000');
  const maxProblems = options.maxProblems ?? DEFAULT_MAX_PROBLEMS;
  const strict = options.strict ?? false;
  const before = await stat(filePath);
  if (!before.isFile()) throw new Error(`${filePath} is not a file`);

  const summary: NdjsonImportSummary = {
    dataset,
    file: filePath,
    strict,
    read: 0,
    imported: 0,
    rejected: 0,
    blank: 0,
    batches: 0,
    problems: [],
    problemsTruncated: false,
    aborted: false,
  };
  const reject = (line: number, reason: string) => {
    summary.rejected++;
    if (summary.problems.length < maxProblems) summary.problems.push({ line, reason });
    else summary.problemsTruncated = true;
  };

  if (strict) {
    await scan(filePath, before.size, 'validating', options, summary, (line, text) => {
      const parsed = parseNdjsonLine(dataset, text);
      if (!parsed.ok) reject(line, parsed.reason);
    });
    if (summary.rejected > 0) {
      summary.aborted = true;
      return summary;
    }
    const now = await stat(filePath);
    if (now.size !== before.size || now.mtimeMs !== before.mtimeMs)
      throw new NdjsonImportError(`${filePath} changed after it was validated; nothing was written`, summary);
    summary.read = 0;
    summary.blank = 0;
  }

  let batch: ObservationRecord[] = [];
  let batchFirstLine = 0;
  let lastLine = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const records = batch;
    batch = [];
    try {
      await index.write(dataset, records);
    } catch (error) {
      throw new NdjsonImportError(
        `writing lines ${batchFirstLine}–${lastLine} failed, nothing of them was written: ${error instanceof Error ? error.message : String(error)}`,
        summary,
        { cause: error },
      );
    }
    summary.imported += records.length;
    summary.batches++;
  };

  await scan(filePath, before.size, 'importing', options, summary, async (line, text) => {
    const parsed = parseNdjsonLine(dataset, text);
    if (!parsed.ok) {
      if (strict) {
        throw new NdjsonImportError(
          `${filePath} changed during a strict import: line ${line} is now refused (${parsed.reason})`,
          summary,
        );
      }
      reject(line, parsed.reason);
      return;
    }
    if (batch.length === 0) batchFirstLine = line;
    lastLine = line;
    batch.push(parsed.record);
    if (batch.length >= batchSize) {
      await flush();
      return true;
    }
    return false;
  });
  await flush();
  options.onProgress?.({
    phase: 'importing',
    bytesRead: before.size,
    totalBytes: before.size,
    read: summary.read,
    imported: summary.imported,
    rejected: summary.rejected,
  });
  return summary;
}

/**
 * Reads the file line by line (readline over a file stream, which pauses the stream while lines wait), counts
 * read and blank lines and hands each non-blank line to `handle`; progress after each batch (handle returns
 * true) and every 1,000 lines.
 */
async function scan(
  filePath: string,
  totalBytes: number,
  phase: NdjsonImportProgress['phase'],
  options: NdjsonImportOptions,
  summary: NdjsonImportSummary,
  handle: (line: number, text: string) => void | boolean | Promise<void | boolean>,
): Promise<void> {
  const stream = createReadStream(filePath, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const progress = () =>
    options.onProgress?.({
      phase,
      bytesRead: Math.min(stream.bytesRead, totalBytes),
      totalBytes,
      read: summary.read,
      imported: summary.imported,
      rejected: summary.rejected,
    });
  let number = 0;
  try {
    for await (const raw of lines) {
      number++;
      const text = number === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      if (text.trim() === '') {
        summary.blank++;
        continue;
      }
      if (options.signal?.aborted) {
        throw new NdjsonImportError(`import interrupted at line ${number}`, summary, {
          cause: options.signal.reason,
        });
      }
      summary.read++;
      const flushed = await handle(number, text);
      if (flushed === true || summary.read % 1000 === 0) progress();
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  progress();
}
