import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { stat } from 'node:fs/promises';
import { DATASETS, type Dataset } from '../../domain/datasets.js';
import { recordIdOf, validateRecord, type ObservationRecord } from '../../domain/records.js';
import {
  checkObservation,
  InvalidObservationRecord,
  type ObservationIndex,
} from '../../observation-index/observation-index.port.js';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type CollectorFormat,
  type CollectorFormatName,
  type ObservationIdentifier,
} from './collected.js';
import { COLLECTOR_FORMATS } from './formats.js';
import { isPrettyPrintedJson, jsonDocumentsOf } from './json-documents.js';
import {
  linesOf,
  openSource,
  readWhole,
  resolveSources,
  STDIN,
  type ImportSource,
  type OpenedSource,
} from './import-sources.js';

/**
 * `data import`: collector output (files, folders, standard input) → records → the observation index, streaming
 * (ADR 97). Each item (a line, or a whole file for `file` formats) goes through its format, then each record
 * through the identifier (fingerprinting, when given), `validateRecord` and the index's own check; a bad item or
 * record is rejected with its file, line and reason, and the import goes on. Good records wait in one batch per
 * dataset (default 1,000) written with `write(…, { seen: 'merge' })`: re-importing moves last_seen, keeps the
 * earliest first_seen, and never duplicates. Memory holds the batches and one item, never an input.
 *
 * `strict` reads everything first and writes nothing if anything is rejected (files only: standard input cannot
 * be read twice). A failed write stops the import with a CollectorImportError carrying the summary so far.
 */
export interface CollectorImportOptions {
  /** The dataset every record must belong to, or `auto` (each record's own). */
  readonly target: Dataset | 'auto';
  /** Skips sniffing: every input is of this format. */
  readonly format?: CollectorFormatName;
  /** Records per atomic write (1 to 10,000; default 1,000). */
  readonly batchSize?: number;
  readonly strict?: boolean;
  /** Rejections kept with details (default 100). */
  readonly maxProblems?: number;
  /** Fills vendor, product, version and cpe from a record's evidence before validation. */
  readonly identifier?: ObservationIdentifier;
  /** first_seen/last_seen of items that carry no time (ISO 8601); default: now. */
  readonly seenAt?: string;
  /** The formats known, in sniffing order (default COLLECTOR_FORMATS). */
  readonly formats?: readonly CollectorFormat[];
  /** What `-` reads (default process.stdin). */
  readonly stdin?: Readable;
  readonly onProgress?: (progress: CollectorImportProgress) => void;
  readonly signal?: AbortSignal;
}

export interface CollectorImportProgress {
  readonly phase: 'validating' | 'importing';
  readonly file: string;
  readonly bytesRead: number;
  /** Undefined when standard input is among the inputs. */
  readonly totalBytes: number | undefined;
  readonly read: number;
  readonly imported: number;
  readonly rejected: number;
}

export interface ImportProblem {
  readonly file: string;
  /** The line of a `lines` format; absent for a whole-file item. */
  readonly line?: number;
  readonly reason: string;
}

export type DatasetCounts = Partial<Record<Dataset, number>>;

export interface FileImportSummary {
  readonly file: string;
  format: CollectorFormatName;
  /** Items read: non-blank lines, or 1 for a whole file. */
  read: number;
  blank: number;
  imported: DatasetCounts;
  rejected: number;
  /** Records of another dataset than the one named (not written). */
  refused: DatasetCounts;
  /** Bytes read from the input, and their SHA-256 once it was read to its end (null before). */
  bytes: number;
  sha256: string | null;
}

export interface CollectorImportSummary {
  readonly target: Dataset | 'auto';
  readonly strict: boolean;
  read: number;
  blank: number;
  imported: DatasetCounts;
  /** Of the records imported, those merged into an observation stored before (or into one of their batch). */
  merged: number;
  rejected: number;
  refused: DatasetCounts;
  /** Why records of other datasets were refused, once per dataset. */
  refusedReasons: Partial<Record<Dataset, string>>;
  batches: number;
  /** The first `maxProblems` rejections. */
  problems: ImportProblem[];
  problemsTruncated: boolean;
  /** Strict mode found rejections and wrote nothing. */
  aborted: boolean;
  files: FileImportSummary[];
}

/** The import stopped (write failure, changed file, interruption); `summary` tells what was stored. */
export class CollectorImportError extends Error {
  override readonly name = 'CollectorImportError';
  constructor(
    message: string,
    readonly summary: CollectorImportSummary,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const DEFAULT_IMPORT_BATCH_SIZE = 1000;
const DEFAULT_MAX_PROBLEMS = 100;
/** A line longer than this is refused as it streams (NDJSON's own limit is 1 Mi characters). */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** A whole-file item (a certificate bundle, a WHOIS response) larger than this is refused. */
const MAX_FILE_ITEM_BYTES = 64 * 1024 * 1024;

export function totalImported(counts: DatasetCounts): number {
  return Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
}

/** The format of an input: the one named, else the first whose sniff accepts its first bytes. */
export function formatOf(
  head: Buffer,
  file: string,
  formats: readonly CollectorFormat[],
  named?: CollectorFormatName,
): CollectorFormat {
  if (named) {
    const format = formats.find((candidate) => candidate.name === named);
    if (!format) throw new Error(`unknown format "${named}" (${formats.map((f) => f.name).join(', ')})`);
    return format;
  }
  const format = formats.find((candidate) => candidate.sniff(head));
  if (!format)
    throw new Error(
      `${file === STDIN ? 'standard input' : file}: no format recognizes this content ` +
        `(${head.length === 0 ? 'it is empty' : `tried ${formats.map((f) => f.name).join(', ')}`}); ` +
        'name it with --format',
    );
  return format;
}

interface Pending {
  readonly record: ObservationRecord;
  readonly file: FileImportSummary;
  readonly line: number | undefined;
}

export async function importCollected(
  index: Pick<ObservationIndex, 'write'>,
  paths: readonly string[],
  options: CollectorImportOptions,
): Promise<CollectorImportSummary> {
  const target = options.target;
  if (target !== 'auto' && !DATASETS.includes(target))
    throw new RangeError(`unknown dataset ${JSON.stringify(target)}`);
  const batchSize = options.batchSize ?? DEFAULT_IMPORT_BATCH_SIZE;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw new RangeError('batchSize must be an integer from 1 to 10000');
  const maxProblems = options.maxProblems ?? DEFAULT_MAX_PROBLEMS;
  const strict = options.strict ?? false;
  const formats = options.formats ?? COLLECTOR_FORMATS;
  const seenAt = options.seenAt ?? new Date().toISOString();
  const stdin = options.stdin ?? process.stdin;
  const sources = await resolveSources(paths);
  if (strict && sources.some((source) => source.path === STDIN))
    throw new Error('--strict reads its inputs twice: it cannot read standard input (-)');
  const totalBytes = sources.every((source) => source.stats)
    ? sources.reduce((sum, source) => sum + source.stats!.size, 0)
    : undefined;

  // Files are sniffed before anything is written: a file no format fits stops the import at once. Only the
  // format is kept (not the first bytes: a folder may hold many files).
  const formatsOf = new Map<ImportSource, CollectorFormat>();
  for (const source of sources) {
    if (source.path === STDIN) continue;
    const { head } = await openSource(source, stdin);
    formatsOf.set(source, formatOf(head, source.path, formats, options.format));
  }
  let stdinInput: OpenedSource | undefined;

  const summary: CollectorImportSummary = {
    target,
    strict,
    read: 0,
    blank: 0,
    imported: {},
    merged: 0,
    rejected: 0,
    refused: {},
    refusedReasons: {},
    batches: 0,
    problems: [],
    problemsTruncated: false,
    aborted: false,
    files: [],
  };

  const run = async (phase: CollectorImportProgress['phase'], write: boolean): Promise<void> => {
    summary.read = summary.blank = summary.rejected = summary.batches = summary.merged = 0;
    summary.imported = {};
    summary.refused = {};
    summary.problems = [];
    summary.problemsTruncated = false;
    summary.files = [];
    const batches = new Map<Dataset, Pending[]>();
    let bytesRead = 0;
    let current: FileImportSummary | undefined;

    const progress = () =>
      options.onProgress?.({
        phase,
        file: current?.file ?? '',
        bytesRead,
        totalBytes,
        read: summary.read,
        imported: totalImported(summary.imported),
        rejected: summary.rejected,
      });
    const reject = (file: FileImportSummary, line: number | undefined, reason: string) => {
      summary.rejected++;
      file.rejected++;
      if (summary.problems.length < maxProblems)
        summary.problems.push({ file: file.file, ...(line === undefined ? {} : { line }), reason });
      else summary.problemsTruncated = true;
    };
    // One batch is written while the next is read and parsed (the database and this process work at the same
    // time), never more: writes stay in order, and memory holds the batch in flight and the ones filling.
    let writing: Promise<void> | undefined;
    const settle = async () => {
      const inFlight = writing;
      writing = undefined;
      await inFlight;
    };
    const flush = async (dataset: Dataset) => {
      const batch = batches.get(dataset);
      if (!batch || batch.length === 0) return;
      batches.set(dataset, []);
      await settle();
      writing = store(dataset, batch);
      // Awaited by the next flush or at the end; until then its failure must not count as unhandled.
      writing.catch(() => undefined);
    };
    const store = async (dataset: Dataset, batch: readonly Pending[]) => {
      let written;
      try {
        written = await index.write(
          dataset,
          batch.map((pending) => pending.record),
          { seen: 'merge' },
        );
      } catch (error) {
        throw new CollectorImportError(
          `writing ${dataset} ${describeSpan(batch)} failed, nothing of them was written: ` +
            `${error instanceof Error ? error.message : String(error)}`,
          summary,
          { cause: error },
        );
      }
      summary.merged += batch.length - written.inserted;
      for (const pending of batch) {
        summary.imported[dataset] = (summary.imported[dataset] ?? 0) + 1;
        pending.file.imported[dataset] = (pending.file.imported[dataset] ?? 0) + 1;
      }
      summary.batches++;
      progress();
    };

    const accept = async (
      collected: CollectedRecord | CollectedRecordRefused,
      file: FileImportSummary,
      line: number | undefined,
    ) => {
      if (collected instanceof CollectedRecordRefused) return reject(file, line, collected.message);
      const { dataset } = collected;
      if (target !== 'auto' && dataset !== target) {
        summary.refused[dataset] = (summary.refused[dataset] ?? 0) + 1;
        file.refused[dataset] = (file.refused[dataset] ?? 0) + 1;
        summary.refusedReasons[dataset] ??=
          `${dataset} records are not imported into ${target} (import into auto to keep them)`;
        return;
      }
      const record = checkedRecord(collected, options.identifier);
      if (!record.ok) return reject(file, line, record.reason);
      if (!write) return;
      let batch = batches.get(dataset);
      if (!batch) batches.set(dataset, (batch = []));
      batch.push({ record: record.record, file, line });
      if (batch.length >= batchSize) await flush(dataset);
    };

    try {
      for (const source of sources) {
        const input =
          source.path === STDIN
            ? (stdinInput ??= await openSource(source, stdin))
            : await openSource(source, stdin);
        const format = formatsOf.get(source) ?? formatOf(input.head, source.path, formats, options.format);
        const file: FileImportSummary = {
          file: source.path,
          format: format.name,
          read: 0,
          blank: 0,
          imported: {},
          rejected: 0,
          refused: {},
          bytes: 0,
          sha256: null,
        };
        current = file;
        summary.files.push(file);
        const context: CollectorContext = {
          seenAt,
          source: source.path,
          ...(target === 'auto' ? {} : { dataset: target }),
        };
        const countBytes = (bytes: number) => (bytesRead += bytes);
        const chunks = () => hashedChunks(input.chunks(), file);
        if (format.unit === 'file') {
          throwIfInterrupted(options.signal, `import interrupted before ${source.path}`, summary);
          const whole = await readWhole(chunks(), MAX_FILE_ITEM_BYTES, countBytes);
          summary.read++;
          file.read++;
          if (!whole) reject(file, undefined, `larger than ${MAX_FILE_ITEM_BYTES} bytes`);
          else
            for (const collected of itemRecords(format, whole, context))
              await accept(collected, file, undefined);
          progress();
          continue;
        }
        if (isPrettyPrintedJson(input.head)) {
          const whole = await readWhole(chunks(), MAX_FILE_ITEM_BYTES, countBytes);
          if (!whole) {
            summary.read++;
            file.read++;
            reject(
              file,
              1,
              `pretty-printed JSON larger than ${MAX_FILE_ITEM_BYTES} bytes (write one object a line)`,
            );
          } else
            for (const document of jsonDocumentsOf(whole.toString('utf8'))) {
              summary.read++;
              file.read++;
              if ('error' in document) reject(file, document.line, document.error);
              else
                for (const collected of itemRecords(format, document.text, context))
                  await accept(collected, file, document.line);
            }
          progress();
          continue;
        }
        for await (const line of linesOf(chunks(), MAX_LINE_BYTES, countBytes)) {
          if ('tooLong' in line) {
            summary.read++;
            file.read++;
            reject(file, line.number, `line is longer than ${MAX_LINE_BYTES} bytes`);
            continue;
          }
          if (line.text.trim() === '') {
            summary.blank++;
            file.blank++;
            continue;
          }
          throwIfInterrupted(
            options.signal,
            `import interrupted at ${source.path} line ${line.number}`,
            summary,
          );
          summary.read++;
          file.read++;
          for (const collected of itemRecords(format, line.text, context))
            await accept(collected, file, line.number);
          if (summary.read % 1000 === 0) progress();
        }
        progress();
      }
      for (const dataset of DATASETS) await flush(dataset);
      await settle();
    } catch (error) {
      // A failed read or an interruption waits for the write in flight, so that the summary tells what was
      // stored (a write that fails counts nothing of its batch).
      await writing?.catch(() => undefined);
      throw error;
    }
    progress();
  };

  if (strict) {
    await run('validating', false);
    if (summary.rejected > 0) {
      summary.aborted = true;
      summary.imported = {};
      return summary;
    }
    for (const source of sources) {
      const now = await stat(source.path);
      if (now.size !== source.stats!.size || now.mtimeMs !== source.stats!.mtimeMs)
        throw new CollectorImportError(
          `${source.path} changed after it was validated; nothing was written`,
          summary,
        );
    }
  }
  try {
    await run('importing', true);
  } catch (error) {
    // Stopped after writing: the caller learns what was stored (a load event records it, ADR 110).
    if (error instanceof CollectorImportError || summary.batches === 0) throw error;
    throw new CollectorImportError(
      `import stopped: ${error instanceof Error ? error.message : String(error)}`,
      summary,
      { cause: error },
    );
  }
  return summary;
}

/** The chunks of an input, counted and hashed into its summary as they pass (the load event records both). */
async function* hashedChunks(chunks: AsyncIterable<Buffer>, file: FileImportSummary): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  for await (const chunk of chunks) {
    hash.update(chunk);
    file.bytes += chunk.length;
    yield chunk;
  }
  file.sha256 = hash.digest('hex');
}

/** The records of one item; a thrown refusal (or any error of a parser) rejects the item as a whole. */
function itemRecords(
  format: CollectorFormat,
  item: string | Buffer,
  context: CollectorContext,
): Array<CollectedRecord | CollectedRecordRefused> {
  try {
    return format.records(item, context);
  } catch (error) {
    if (error instanceof CollectedRecordRefused) return [error];
    return [
      new CollectedRecordRefused(
        `${format.name} could not read it: ${error instanceof Error ? error.message : String(error)}`,
      ),
    ];
  }
}

/**
 * A collected record identified (when an identifier is given), its id derived when the format left it out, then
 * validated (`validateRecord`) and checked as the index will (so a batch is never refused for one record); the
 * record answered is the index's own normalized copy, frozen, which its write does not normalize again.
 */
export function checkedRecord(
  collected: CollectedRecord,
  identifier?: ObservationIdentifier,
): { ok: true; record: ObservationRecord } | { ok: false; reason: string } {
  const { dataset, evidence } = collected;
  let record = collected.record;
  try {
    if (identifier) record = identifier.identify(dataset, record, evidence);
  } catch (error) {
    return {
      ok: false,
      reason: `fingerprinting failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (record.id === undefined) {
    try {
      record = { id: recordIdOf(dataset, record), ...record };
    } catch {
      // validateRecord names what is missing.
    }
  }
  const validation = validateRecord(dataset, record);
  if (!validation.ok) return { ok: false, reason: validation.problems.join('; ') };
  try {
    // The record answered is the one checked: the index's write trusts it instead of normalizing it again.
    return { ok: true, record: checkObservation(dataset, validation.record).record };
  } catch (error) {
    if (error instanceof InvalidObservationRecord) return { ok: false, reason: error.message };
    throw error;
  }
}

function describeSpan(batch: readonly Pending[]): string {
  const first = batch[0]!;
  const last = batch[batch.length - 1]!;
  const at = (pending: Pending) => (pending.line === undefined ? '' : ` line ${pending.line}`);
  if (first.file === last.file) {
    if (first.line === undefined) return `records of ${first.file.file}`;
    return `records of ${first.file.file} lines ${first.line}–${last.line}`;
  }
  return `records from ${first.file.file}${at(first)} to ${last.file.file}${at(last)}`;
}

function throwIfInterrupted(
  signal: AbortSignal | undefined,
  message: string,
  summary: CollectorImportSummary,
): void {
  if (signal?.aborted) throw new CollectorImportError(message, summary, { cause: signal.reason });
}
