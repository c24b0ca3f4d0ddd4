import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import type { TransformOptions } from 'node:stream';
import { createGzip, type ZlibOptions } from 'node:zlib';
import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { ExportDocument } from '../../projections/exports.projection.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { BackgroundChecks } from '../platform/health/background-checks.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { isStorageUnavailable } from '../platform/storage/storage-unavailable.js';
import {
  OBSERVATION_INDEX,
  type ObservationIndex,
} from '../search/observation-index/observation-index.port.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import { ExportJobs } from './commands/export-jobs.js';
import {
  AbandonExportAttempt,
  CompleteExportAttempt,
  FailExport,
  RecordExportProgress,
  SettleExportCharge,
  StartExportAttempt,
} from './commands/export.commands.js';
import { rowFormatter } from './domain/export-formats.js';
import { leaseExpired } from './domain/export-job.js';
import { EXPORT_FILES, type ExportFileStore } from './files/export-file-store.port.js';
import { PollingWorkerPool, type PoolLog } from '../platform/scheduling/polling-worker-pool.js';
import type { RetryPolicy } from '../platform/scheduling/worker-failures.js';

/** What the pool works with: the export commands, the job reads, the files, the index and the clock. */
export interface ExportPoolPorts {
  readonly commands: CommandBus;
  readonly jobs: ExportJobs;
  readonly files: ExportFileStore;
  readonly observations: Pick<ObservationIndex, 'stream'>;
  readonly clock: Clock;
  readonly background: BackgroundChecks;
  readonly readStore: ReadStore;
  /** The service's logger, when the options name none. */
  readonly log?: PoolLog;
}

/** The pool's ports as a running application provides them (tests and benchmarks build pools of their own). */
export function exportPoolPorts(app: Pick<INestApplicationContext, 'get'>): ExportPoolPorts {
  return {
    commands: app.get(CommandBus),
    jobs: app.get(ExportJobs),
    files: app.get<symbol, ExportFileStore>(EXPORT_FILES),
    observations: app.get<symbol, ObservationIndex>(OBSERVATION_INDEX),
    clock: app.get<symbol, Clock>(CLOCK),
    background: app.get(BackgroundChecks),
    readStore: app.get<symbol, ReadStore>(READ_STORE),
    log: app.get<symbol, LogFunction>(SERVICE_LOG),
  };
}

export interface ExportWorkerPoolOptions {
  /** Jobs run at once in this process. */
  readonly concurrency: number;
  /** How long a running job's lease lasts; it is renewed well before (every third of it at the latest). */
  readonly leaseMs: number;
  readonly retentionMs: number;
  readonly pollIntervalMs?: number;
  /** Records read from the index per batch (one short keyset query each; default EXPORT_BATCH_SIZE). */
  readonly batchSize?: number;
  /** zlib level of the export files (default EXPORT_GZIP_LEVEL; the benchmark measures others). */
  readonly gzipLevel?: number;
  /** The index rows are read from (default: the service's observation index). */
  readonly index?: Pick<ObservationIndex, 'stream'>;
  readonly log?: (
    level: 'info' | 'warn' | 'error',
    message: string,
    fields?: Record<string, unknown>,
  ) => void;
  /** Backoff and parking of jobs that keep failing (default: DEFAULT_RETRY_POLICY). */
  readonly retry?: Partial<RetryPolicy>;
}

/**
 * Runs export jobs inside the service, at most `concurrency` at once. Fed from the event log through the
 * exports read model: pending jobs, processing jobs whose lease ran out (their worker died: a restart takes them
 * over, from the start, with a new attempt; after MAX_EXPORT_ATTEMPTS they fail) and finished jobs whose charge
 * has not reached the ledger. Claiming a job is an append with an expected version, so two instances never run
 * the same attempt. Rows stream from the observation index into gzip and into the file store, a batch at a time.
 * A job or a charge that throws never stops the pool: it waits with backoff while the others go on, and a job
 * that failed `parkAfter` times for reasons of its own is failed on its stream (its reservation released); storage
 * out of reach fails no job, however long it lasts. A charge is retried until it reaches the ledger.
 */
export class ExportWorkerPool extends PollingWorkerPool {
  readonly workerId = `worker-${randomUUID()}`;

  private readonly commands: CommandBus;
  private readonly jobs: ExportJobs;

  constructor(
    private readonly ports: ExportPoolPorts,
    private readonly options: ExportWorkerPoolOptions,
  ) {
    super(
      {
        ...options,
        log: options.log ?? ports.log,
        environment: { background: ports.background, readStore: ports.readStore },
      },
      'export-pool',
    );
    this.commands = ports.commands;
    this.jobs = ports.jobs;
  }

  /** Stops a job running here at once (its cancellation is already recorded). */
  interrupt(exportId: string): void {
    this.running.get(exportId)?.abort.abort();
  }

  protected async tick(): Promise<void> {
    const exports = this.jobs.queries.collection();
    await this.forgetSettled();
    // Waiting (backing-off) items are left out of every look, so they never hide the others.
    const waiting = await this.failures.waiting();
    const waitingCharges = waiting
      .filter((item) => item.startsWith(CHARGE))
      .map((item) => item.slice(CHARGE.length));
    const waitingJobs = waiting.filter((item) => !item.startsWith(CHARGE));
    // Charges that have not reached the ledger (a crash between the two appends, a job deleted meanwhile).
    for (const document of await exports.find(
      { charge_pending: true, ...(waitingCharges.length > 0 ? { id: { $nin: waitingCharges } } : {}) },
      { sort: [['created_at', 1]], limit: 50 },
    )) {
      if (this.stopped) return;
      // A charge is never given up: it is retried with backoff (capped) until it reaches the ledger.
      await this.failures.run(`${CHARGE}${document.id}`, () =>
        this.commands.execute(new SettleExportCharge(document.id)),
      );
    }
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    const now = this.ports.clock.now();
    const skip = [...waitingJobs, ...this.running.keys()];
    const notSkipped = skip.length > 0 ? { id: { $nin: skip } } : {};
    const candidates: ExportDocument[] = [
      ...(await exports.find(
        { status: 'processing', lease_until: { $lte: now.toISOString() }, ...notSkipped },
        { sort: [['created_at', 1]], limit: free },
      )),
      ...(await exports.find(
        { status: 'pending', ...notSkipped },
        { sort: [['created_at', 1]], limit: free },
      )),
    ];
    for (const document of candidates.slice(0, free)) {
      if (this.running.has(document.id) || this.stopped) continue;
      this.launch(
        document.id,
        (signal) => this.runJob(document.id, signal),
        // A job that keeps failing is failed on its stream and its reservation released. The customer reads a
        // fixed reason (it is stored in an event for good); the cause is logged with the export id when parked.
        () => this.fail(document.id, GIVEN_UP_REASON, undefined),
      );
    }
  }

  /** Failure records of jobs and charges that need no more work (finished, cancelled or charged meanwhile). */
  private forgetSettled(): Promise<void> {
    return this.failures.keepOnly(async (tracked) => {
      const exportIdOf = (item: string) => (item.startsWith(CHARGE) ? item.slice(CHARGE.length) : item);
      const documents = new Map(
        (await this.jobs.queries.collection().getMany([...new Set(tracked.map(exportIdOf))])).map((d) => [
          d.id,
          d,
        ]),
      );
      return tracked.filter((item) => {
        const document = documents.get(exportIdOf(item));
        if (!document || this.running.has(item)) return true;
        return item.startsWith(CHARGE)
          ? document.charge_pending
          : !document.deleted && (document.status === 'pending' || document.status === 'processing');
      });
    });
  }

  private async runJob(exportId: string, signal: AbortSignal): Promise<boolean> {
    let { state } = await this.jobs.load(exportId);
    const now = this.ports.clock.now();
    if (state.status === 'processing') {
      // Its worker stopped renewing the lease: the attempt is abandoned (its worker's later steps decide nothing),
      // then its reservation released, before a new attempt starts; after the last attempt the job fails.
      if (!leaseExpired(state, now)) return false;
      try {
        await this.commands.execute(
          new AbandonExportAttempt(exportId, this.jobs.systemEnvelope(state.request!.payer, exportId)),
        );
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'version_conflict') return false; // taken over already
        throw error;
      }
      await this.settleCharge(exportId);
      ({ state } = await this.jobs.load(exportId));
    }
    if (state.status !== 'pending') return false;
    // A lost attempt's reservation not released yet (a crash right after AbandonAttempt).
    if (state.chargePending) {
      await this.settleCharge(exportId);
      ({ state } = await this.jobs.load(exportId));
      if (state.status !== 'pending' || state.chargePending) return false;
    }
    const request = state.request!;
    const envelope = this.jobs.systemEnvelope(request.payer, exportId);

    let query;
    try {
      query = this.jobs.queryOf(state);
    } catch (error) {
      await this.fail(exportId, `The query can no longer run: ${(error as Error).message}`, undefined);
      return true;
    }
    const started = await this.commands.execute(
      new StartExportAttempt(exportId, this.workerId, query, this.options.leaseMs, envelope),
    );
    // Another worker claimed it, or it was cancelled meanwhile (its credits were given back).
    if (!started) return true;
    const { attempt, fileKey } = started;

    const pending = await this.ports.files.create(fileKey);
    // Up to GZIP_BACKLOG_BYTES of rows wait for the compressor (on libuv's thread pool), so the next batch is
    // read and formatted while the last one compresses; larger output chunks mean fewer thread-pool round trips.
    // zlib's streams take the Transform options too (writableHighWaterMark), though ZlibOptions does not say so.
    const gzip = createGzip({
      level: this.options.gzipLevel ?? EXPORT_GZIP_LEVEL,
      chunkSize: 64 * 1024,
      writableHighWaterMark: GZIP_BACKLOG_BYTES,
    } as ZlibOptions & TransformOptions);
    const stored = pipeline(gzip, pending.sink);
    stored.catch(() => undefined);
    const formatter = rowFormatter(request.searchType, request.format);
    let rows = 0;
    let originalBytes = 0;
    let truncated = false;
    let lastProgress = Date.now();
    const progressEveryMs = Math.min(2000, Math.floor(this.options.leaseMs / 3));
    const write = async (text: string): Promise<void> => {
      if (text === '') return;
      const chunk = Buffer.from(text, 'utf8');
      originalBytes += chunk.length;
      if (!gzip.write(chunk)) await once(gzip, 'drain', { signal });
    };
    try {
      await write(formatter.header);
      outer: for await (const batch of (this.options.index ?? this.ports.observations).stream(
        request.searchType,
        query,
        this.options.batchSize ?? EXPORT_BATCH_SIZE,
        signal,
      )) {
        let text = '';
        for (const record of batch) {
          if (rows >= started.rowLimit) {
            truncated = true;
            break;
          }
          text += formatter.row(record);
          rows++;
        }
        await write(text);
        if (truncated) break outer;
        if (signal.aborted) throw signal.reason ?? new Error('aborted');
        if (Date.now() - lastProgress >= progressEveryMs) {
          lastProgress = Date.now();
          const progressed = await this.commands.execute(
            new RecordExportProgress(exportId, this.workerId, attempt, rows, this.options.leaseMs, envelope),
          );
          if (!progressed) throw new JobLost();
        }
      }
      gzip.end();
      await stored;
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      const fileSizeBytes = await pending.commit();
      const completed = await this.commands.execute(
        new CompleteExportAttempt(
          exportId,
          this.workerId,
          attempt,
          { resultsCount: rows, fileSizeBytes, originalSizeBytes: originalBytes, truncated },
          this.options.retentionMs,
          envelope,
        ),
      );
      if (!completed) {
        // Cancelled (or taken over) while the last bytes were written: the file belongs to no completed job.
        await this.ports.files.delete(fileKey);
        return true;
      }
    } catch (error) {
      gzip.destroy();
      await pending.abort();
      if (error instanceof JobLost || signal.aborted) return true; // cancelled, taken over, or the pool stopped
      // Storage out of reach is no fault of the job: this attempt is lost, not failed (its lease runs out and the
      // pool starts another, within MAX_EXPORT_ATTEMPTS).
      if (isStorageUnavailable(error)) throw error;
      await this.fail(exportId, 'The export failed while writing its file; no credits were charged.', {
        attempt,
      });
      throw error;
    }
    // Outside the file's try: a charge that cannot reach the ledger now fails nothing; the pool retries it.
    await this.settleCharge(exportId);
    return true;
  }

  private async settleCharge(exportId: string): Promise<void> {
    await this.commands.execute(new SettleExportCharge(exportId));
  }

  private fail(exportId: string, reason: string, own: { attempt: number } | undefined): Promise<void> {
    return this.commands.execute(
      new FailExport(exportId, reason, own ? { workerId: this.workerId, attempt: own.attempt } : undefined),
    );
  }
}

/**
 * Rows per index read: a query's fixed cost is paid 1,000 times per million rows (about 0.3 s), and three batches
 * in flight hold a few MiB; 5,000 ran no faster and grew the process by 50-70 MiB more (docs/benchmarks.md, ADR 93).
 */
export const EXPORT_BATCH_SIZE = 1000;
/** zlib level of export files (ADR 93: the level measured against its file size and the export's rate). */
export const EXPORT_GZIP_LEVEL = 6;
/** Formatted rows that may wait for the compressor (about two batches of hosts as CSV). */
const GZIP_BACKLOG_BYTES = 4 * 1024 * 1024;

/** What a customer reads on a job the pool gave up on (after `parkAfter` failures of its own). */
export const GIVEN_UP_REASON = 'The export failed repeatedly and was given up; no credits were charged.';

/** Failure records of charges are `charge:<exportId>`; of jobs, the export id. */
const CHARGE = 'charge:';

/** The job is no longer this worker's (cancelled or taken over): stop without recording anything. */
class JobLost extends Error {}
