import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import {
  checkLoadReason,
  dataLoadEnvelope,
  LOAD_REASON_HELP,
  recordDataLoad,
} from '../../data-loads/cli/record-data-load.js';
import type { LoadOutcome, RecordDataLoad } from '../../data-loads/domain/data-load.js';
import type { RecordedDataLoad } from '../../data-loads/commands/data-load.commands.js';
import { startProgress } from '../../platform/cli/progress.js';
import type { ServiceContext } from '../../platform/service-context.js';
import { DATASETS, isDataset, type Dataset } from '../domain/datasets.js';
import type { ObservationIndex } from '../observation-index/observation-index.port.js';
import { GENERATE_BATCH_SIZE, writeGenerated, type GeneratedWrite } from './demo-corpus.js';
import { generateRecords } from './generator.js';
import type { CollectorFormatName } from './collectors/collected.js';
import {
  CollectorImportError,
  importCollected,
  totalImported,
  type CollectorImportSummary,
  type DatasetCounts,
} from './collectors/collector-import.js';
import { COLLECTOR_FORMATS } from './collectors/formats.js';

const MAX_COUNT = 100_000_000;
const SHOWN_PROBLEMS = 20;

/**
 * `data generate` fills the observation index with a realistic deterministic corpus; `data import` loads
 * collector output (collectors/collector-import.ts). Exit codes: 0 done, 3 some import items rejected (nothing
 * written with --strict), 1 failure.
 */
export function registerDataCommands(program: Command, runtime: CliRuntime): void {
  const data = program.command('data').description('observation data: generated corpus and collector import');

  data
    .command('generate')
    .description(
      'generate realistic observations (same seed, count and --now: same records) and write them to the index ' +
        'in batches of 1,000; generate every dataset with the same seed and count so that they share domains',
    )
    .requiredOption('--dataset <dataset>', `${DATASETS.join(', ')} or all`)
    .requiredOption('--count <n>', 'records per dataset')
    .requiredOption('--seed <seed>', 'any text')
    .option('--now <time>', 'reference time (ISO 8601): observations fall in the two years before it', '')
    .option('--replace', 'clear each dataset before writing')
    .option(
      '--out <path>',
      'write NDJSON instead (a file, or a directory of <dataset>.ndjson with --dataset all)',
    )
    .option('--json', 'machine-readable output')
    .action(
      action(
        runtime,
        async (options: {
          dataset: string;
          count: string;
          seed: string;
          now: string;
          replace?: boolean;
          out?: string;
          json?: boolean;
        }) => {
          const datasets = datasetsOption(options.dataset);
          const count = countOption(options.count);
          const json = Boolean(options.json);
          let now: Date;
          let index: ObservationIndex | undefined;
          if (options.out) {
            now = nowOption(options.now) ?? new Date();
          } else {
            const context = await runtime.open();
            index = observationIndexOf(context);
            now = nowOption(options.now) ?? context.clock.now();
          }
          const results: Array<GeneratedWrite & { file?: string }> = [];
          for (const dataset of datasets) {
            const progress = startProgress(`generating ${dataset}`, { json, total: count, unit: 'records' });
            let result: GeneratedWrite & { file?: string };
            if (index) {
              if (options.replace) await index.clear(dataset);
              result = await writeGenerated(index, dataset, {
                count,
                seed: options.seed,
                now,
                batchSize: GENERATE_BATCH_SIZE,
                onProgress: (written) => progress.update(written),
              });
            } else {
              const file = await outputFile(options.out!, dataset, datasets.length > 1);
              result = {
                ...(await writeNdjson(file, dataset, count, options.seed, now, (n) => progress.update(n))),
                file,
              };
            }
            progress.stop();
            results.push(result);
          }
          runtime.print(
            json,
            {
              seed: options.seed,
              now: now.toISOString(),
              count,
              generated: results.map((r) => ({
                dataset: r.dataset,
                records: r.records,
                seconds: r.seconds,
                records_per_second: r.recordsPerSecond,
                ...(r.file ? { file: r.file } : {}),
              })),
            },
            () => results.map(describeGenerated).join('\n'),
          );
        },
      ),
    );

  data
    .command('import')
    .description(
      'import collector output (NDJSON records, masscan, zgrab2, LeakIX, certificates, raw WHOIS) from files, ' +
        'folders (walked, files in name order) or - (standard input): the format is recognized from the content ' +
        'unless --format names it; valid records are written in atomic batches per dataset, a record seen again ' +
        'moves last_seen (first_seen keeps the earliest); bad items are reported with their file, line and ' +
        'reason and skipped; --strict writes nothing if any is bad. The load is recorded as an event with the operator, ' +
        'the reason, each file (SHA-256, bytes) and the counts. Exit codes: 0 done, 3 some items rejected, 1 failure',
    )
    .argument('<dataset>', `${DATASETS.join(', ')}, or auto (each record's own dataset)`)
    .argument('<inputs...>', 'files, folders, or - for standard input')
    .option(
      '--format <format>',
      `${COLLECTOR_FORMATS.map((format) => format.name).join(', ')} (default: recognized)`,
    )
    .option('--strict', 'read everything first and write nothing if any item is bad (not with -)')
    .option('--batch-size <n>', 'records per atomic write', '1000')
    .option(
      '--no-fingerprints',
      'keep product, version and cpe as the input has them (by default, the Recog databases loaded with ' +
        '`fingerprints import` identify them from banners, headers, titles and certificates)',
    )
    .option('--reason <text>', LOAD_REASON_HELP)
    .option('--json', 'machine-readable output')
    .action(
      action(
        runtime,
        async (
          datasetText: string,
          inputs: string[],
          options: {
            format?: string;
            strict?: boolean;
            batchSize: string;
            fingerprints: boolean;
            reason?: string;
            json?: boolean;
          },
        ) => {
          checkLoadReason('data import', options.reason);
          if (datasetText !== 'auto' && !isDataset(datasetText))
            throw new Error(`unknown dataset "${datasetText}" (one of ${DATASETS.join(', ')}, or auto)`);
          const format = options.format?.trim().toLowerCase();
          if (format !== undefined && !COLLECTOR_FORMATS.some((known) => known.name === format))
            throw new Error(
              `unknown format "${options.format}" (one of ${COLLECTOR_FORMATS.map((known) => known.name).join(', ')})`,
            );
          const batchSize = Number(options.batchSize);
          if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
            throw new Error('--batch-size must be from 1 to 10000');
          const json = Boolean(options.json);
          const envelope = await dataLoadEnvelope(runtime, 'data import', options.reason);
          const context = await runtime.open();
          const index = observationIndexOf(context);
          // With no database loaded the identifier changes nothing, so fingerprinting is on by default.
          const identifier = options.fingerprints ? await context.fingerprints.identifier() : undefined;
          const started = performance.now();
          let phase = '';
          const progress = startProgress(`importing into ${datasetText}`, { json, unit: 'bytes' });
          // Ctrl-C (or a TERM) stops the import between items, so that what it wrote is recorded.
          const interruption = new AbortController();
          const interrupt = (signal: NodeJS.Signals) =>
            interruption.abort(new Error(`interrupted by ${signal}`));
          process.once('SIGINT', interrupt);
          process.once('SIGTERM', interrupt);
          const record = (summary: CollectorImportSummary, outcome: LoadOutcome, error?: string) =>
            recordDataLoad(
              runtime,
              envelope,
              observationDataLoad(summary, { fingerprinting: options.fingerprints, outcome, error }),
            );
          try {
            const summary = await importCollected(index, inputs, {
              target: datasetText,
              ...(identifier ? { identifier } : {}),
              ...(format ? { format: format as CollectorFormatName } : {}),
              batchSize,
              strict: Boolean(options.strict),
              signal: interruption.signal,
              onProgress: (p) => {
                phase = p.phase;
                progress.update(p.bytesRead, {
                  ...(p.totalBytes === undefined ? {} : { total: p.totalBytes }),
                  detail: `${p.phase} ${p.file}: ${p.read.toLocaleString('en-US')} items, ${p.imported.toLocaleString('en-US')} imported, ${p.rejected.toLocaleString('en-US')} rejected`,
                });
              },
            });
            const seconds = (performance.now() - started) / 1000;
            progress.stop();
            // --strict that found a bad item wrote nothing: like a refused load, it records nothing.
            const recorded = summary.aborted ? null : await record(summary, 'completed');
            runtime.print(json, { ...importJson(summary, seconds), recorded }, () =>
              [describeImport(summary, seconds), ...describeRecorded(recorded)].join('\n'),
            );
            return summary.rejected > 0 ? 3 : 0;
          } catch (error) {
            progress.stop();
            if (!(error instanceof CollectorImportError)) throw error;
            const seconds = (performance.now() - started) / 1000;
            // A load that stopped before its first write appends nothing; one that wrote says what and why.
            const recorded =
              error.summary.batches === 0
                ? null
                : await record(
                    error.summary,
                    interruption.signal.aborted ? 'interrupted' : 'failed',
                    error.message,
                  );
            runtime.print(
              json,
              { ...importJson(error.summary, seconds), error: error.message, recorded },
              () =>
                [
                  `error${phase ? ` while ${phase}` : ''}: ${error.message}`,
                  describeImport(error.summary, seconds),
                  ...describeRecorded(recorded),
                ].join('\n'),
            );
            return 1;
          } finally {
            process.off('SIGINT', interrupt);
            process.off('SIGTERM', interrupt);
          }
        },
      ),
    );
}

/** What the load event says of a collector import (ADR 110): files with their hashes, counts, never records. */
function observationDataLoad(
  summary: CollectorImportSummary,
  facts: { fingerprinting: boolean; outcome: LoadOutcome; error: string | undefined },
): RecordDataLoad {
  const sum = (counts: DatasetCounts) => totalImported(counts);
  return {
    type: 'RecordObservationDataLoad',
    outcome: facts.outcome,
    ...(facts.error !== undefined ? { error: facts.error } : {}),
    load: {
      target: summary.target,
      datasets: Object.entries(summary.imported)
        .filter(([, count]) => (count ?? 0) > 0)
        .map(([dataset]) => dataset),
      formats: [...new Set(summary.files.map((file) => file.format))],
      files: summary.files.map((file) => ({
        name: file.file,
        format: file.format,
        bytes: file.bytes,
        sha256: file.sha256,
        read: file.read,
        written: sum(file.imported),
        rejected: file.rejected,
      })),
      records: {
        read: summary.read,
        written: sum(summary.imported),
        merged: summary.merged,
        rejected: summary.rejected,
        refused: sum(summary.refused),
      },
      fingerprinting: facts.fingerprinting,
      strict: summary.strict,
    },
  };
}

function describeRecorded(recorded: RecordedDataLoad | null): string[] {
  return recorded ? [`recorded as ObservationDataLoaded on ${recorded.stream}`] : [];
}

/**
 * The service context's observation index. It is opened with the configured storage by the service context
 * (`ServiceContext.observations`); this is the one place the CLI reaches for it.
 */
function observationIndexOf(context: ServiceContext): ObservationIndex {
  const index = (context as ServiceContext & { readonly observations?: ObservationIndex }).observations;
  if (!index) throw new Error('the observation index is not available in this service context');
  return index;
}

function datasetsOption(value: string): Dataset[] {
  const text = value.trim().toLowerCase();
  if (text === 'all') return [...DATASETS];
  if (!isDataset(text))
    throw new Error(`--dataset must be one of ${DATASETS.join(', ')} or all, got "${value}"`);
  return [text];
}

function countOption(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(count) || count < 1 || count > MAX_COUNT)
    throw new Error(`--count must be a whole number from 1 to ${MAX_COUNT.toLocaleString('en-US')}`);
  return count;
}

function nowOption(value: string): Date | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`--now must be an ISO 8601 date-time, got "${value}"`);
  return new Date(ms);
}

async function outputFile(out: string, dataset: Dataset, many: boolean): Promise<string> {
  if (!many) return out;
  await mkdir(out, { recursive: true });
  return join(out, `${dataset}.ndjson`);
}

async function writeNdjson(
  file: string,
  dataset: Dataset,
  count: number,
  seed: string,
  now: Date,
  onProgress: (written: number) => void,
): Promise<GeneratedWrite> {
  const started = performance.now();
  const stream = createWriteStream(file, { encoding: 'utf8' });
  let written = 0;
  let chunk = '';
  const drain = async () => {
    if (!stream.write(chunk)) await once(stream, 'drain');
    chunk = '';
  };
  try {
    for (const record of generateRecords(dataset, { count, seed, now })) {
      chunk += `${JSON.stringify(record)}\n`;
      if (++written % GENERATE_BATCH_SIZE === 0) {
        await drain();
        onProgress(written);
      }
    }
    await drain();
    onProgress(written);
  } finally {
    stream.end();
    await once(stream, 'close');
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    dataset,
    records: written,
    seconds: Math.round(seconds * 1000) / 1000,
    recordsPerSecond: seconds > 0 ? Math.round(written / seconds) : written,
  };
}

function describeGenerated(result: GeneratedWrite & { file?: string }): string {
  return (
    `${result.dataset}: ${result.records.toLocaleString('en-US')} records in ${result.seconds.toFixed(2)} s ` +
    `(${result.recordsPerSecond.toLocaleString('en-US')} records/s)${result.file ? ` → ${result.file}` : ''}`
  );
}

function importJson(summary: CollectorImportSummary, seconds: number): Record<string, unknown> {
  const imported = totalImported(summary.imported);
  return {
    dataset: summary.target,
    ...(summary.files.length === 1 ? { file: summary.files[0]!.file, format: summary.files[0]!.format } : {}),
    strict: summary.strict,
    read: summary.read,
    imported,
    imported_by_dataset: summary.imported,
    merged: summary.merged,
    rejected: summary.rejected,
    refused: summary.refused,
    refused_reasons: summary.refusedReasons,
    blank: summary.blank,
    batches: summary.batches,
    aborted: summary.aborted,
    seconds: Math.round(seconds * 1000) / 1000,
    records_per_second: seconds > 0 ? Math.round(imported / seconds) : imported,
    files: summary.files.map((file) => ({
      file: file.file,
      format: file.format,
      read: file.read,
      blank: file.blank,
      imported: totalImported(file.imported),
      imported_by_dataset: file.imported,
      rejected: file.rejected,
      refused: file.refused,
      bytes: file.bytes,
      sha256: file.sha256,
      problems: summary.problems.filter((problem) => problem.file === file.file),
    })),
    problems: summary.problems,
    problems_truncated: summary.problemsTruncated,
  };
}

function describeImport(summary: CollectorImportSummary, seconds: number): string {
  const n = (value: number) => value.toLocaleString('en-US');
  const counts = (byDataset: DatasetCounts) =>
    Object.entries(byDataset)
      .map(([dataset, count]) => `${n(count ?? 0)} ${dataset}`)
      .join(', ') || '0';
  const imported = totalImported(summary.imported);
  const lines = summary.files.map(
    (file) =>
      `${file.file} (${file.format}): ${n(file.read)} items, imported ${counts(file.imported)}, ` +
      `${n(file.rejected)} rejected`,
  );
  lines.push(
    summary.aborted
      ? `${n(summary.rejected)} of ${n(summary.read)} items rejected, nothing written (--strict)`
      : `into ${summary.target}: ${n(imported)} records imported (${counts(summary.imported)}) from ` +
          `${n(summary.read)} items, ${n(summary.rejected)} rejected, in ${seconds.toFixed(2)} s ` +
          `(${n(seconds > 0 ? Math.round(imported / seconds) : imported)} records/s)`,
  );
  for (const [dataset, count] of Object.entries(summary.refused))
    lines.push(`  ${n(count ?? 0)} refused: ${summary.refusedReasons[dataset as Dataset] ?? ''}`);
  for (const problem of summary.problems.slice(0, SHOWN_PROBLEMS))
    lines.push(
      `  ${problem.file}${problem.line === undefined ? '' : ` line ${problem.line}`}: ${problem.reason}`,
    );
  const hidden = summary.rejected - Math.min(summary.problems.length, SHOWN_PROBLEMS);
  if (hidden > 0)
    lines.push(`  … ${n(hidden)} more rejected items (--json lists the first ${summary.problems.length})`);
  return lines.join('\n');
}
