import { DATASETS, type Dataset } from '../domain/datasets.js';
import type { ObservationRecord } from '../domain/records.js';
import type { ObservationIndex } from '../observation-index/observation-index.port.js';
import { generateRecords, type GenerateOptions } from './generator.js';

/** The demo corpus: what a fresh service searches before any real data is imported. */
export const DEMO_CORPUS_SEED = 'exposure-demo-corpus';
export const DEMO_CORPUS_RECORDS = 10_000;
export const GENERATE_BATCH_SIZE = 1000;

export interface GeneratedWrite {
  readonly dataset: Dataset;
  readonly records: number;
  readonly seconds: number;
  readonly recordsPerSecond: number;
}

/**
 * Streams generated records of one dataset into the index in batches (each batch one atomic write), holding
 * one batch at a time. `onProgress` gets the number of records written after each batch.
 */
export async function writeGenerated(
  index: Pick<ObservationIndex, 'write'>,
  dataset: Dataset,
  options: GenerateOptions & {
    readonly batchSize?: number;
    readonly onProgress?: (written: number) => void;
    readonly signal?: AbortSignal;
  },
): Promise<GeneratedWrite> {
  const batchSize = options.batchSize ?? GENERATE_BATCH_SIZE;
  const started = performance.now();
  let written = 0;
  let batch: ObservationRecord[] = [];
  for (const record of generateRecords(dataset, options)) {
    batch.push(record);
    if (batch.length >= batchSize) {
      options.signal?.throwIfAborted();
      await index.write(dataset, batch);
      written += batch.length;
      batch = [];
      options.onProgress?.(written);
    }
  }
  if (batch.length > 0) {
    await index.write(dataset, batch);
    written += batch.length;
    options.onProgress?.(written);
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    dataset,
    records: written,
    seconds: Math.round(seconds * 1000) / 1000,
    recordsPerSecond: seconds > 0 ? Math.round(written / seconds) : written,
  };
}

export type DemoCorpusResult =
  | { readonly loaded: true; readonly datasets: readonly GeneratedWrite[] }
  | { readonly loaded: false; readonly reason: string };

/**
 * At first start: when every dataset of the index is empty, writes ~10,000 generated records per dataset
 * (fixed seed, so every instance writes the same records, and two instances starting together only upsert
 * identical records). Observations are dated in the two years before `now`. When any dataset already holds
 * records nothing is written: demo records are never mixed with imported data.
 */
export async function loadDemoCorpus(
  index: Pick<ObservationIndex, 'write' | 'count'>,
  now: Date,
  options: {
    readonly count?: number;
    readonly onProgress?: (dataset: Dataset, written: number) => void;
  } = {},
): Promise<DemoCorpusResult> {
  for (const dataset of DATASETS) {
    const stored = await index.count(dataset);
    if (stored > 0) return { loaded: false, reason: `${dataset} already holds ${stored} records` };
  }
  const count = options.count ?? DEMO_CORPUS_RECORDS;
  const datasets: GeneratedWrite[] = [];
  for (const dataset of DATASETS) {
    datasets.push(
      await writeGenerated(index, dataset, {
        count,
        seed: DEMO_CORPUS_SEED,
        now,
        onProgress: (written) => options.onProgress?.(dataset, written),
      }),
    );
  }
  return { loaded: true, datasets };
}
