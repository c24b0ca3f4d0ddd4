import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { GlobalPosition } from '../../platform/event-store/global-position.js';
import type { ObservationQuery } from '../../search/observation-index/observation-index.port.js';
import type { ExportRequestBody } from './export-jobs.js';

/** Starts an export of the caller's search: checked now, run by the worker pool. */
export class RequestExport extends Command<{ export_id: string }> {
  constructor(
    readonly principal: Principal,
    readonly searchType: string,
    readonly body: ExportRequestBody,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * DELETE on one export: a pending or processing job is cancelled (a running one is charged for the rows it
 * had recorded as written and stops at its next batch); a finished one is deleted with its file.
 */
export class CancelOrDeleteExport extends Command<{
  export_id: string;
  outcome: 'cancelled' | 'deleted';
}> {
  constructor(
    readonly principal: Principal,
    readonly exportId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** DELETE on the collection: every export of the caller, each as DELETE on it would. */
export class CancelOrDeleteAllExports extends Command<{ deleted_count: number; cancelled_count: number }> {
  constructor(
    readonly principal: Principal,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * Brings a finished job's charge to the ledger and records it on the job. Answers the position of the recorded
 * charge (null when nothing was pending).
 */
export class SettleExportCharge extends Command<GlobalPosition | null> {
  constructor(readonly exportId: string) {
    super();
  }
}

/** A worker's attempt whose lease ran out is abandoned before another starts (a version conflict: taken over). */
export class AbandonExportAttempt extends Command<void> {
  constructor(
    readonly exportId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** What a worker writes once its attempt started. */
export interface StartedAttempt {
  readonly attempt: number;
  readonly fileKey: string;
  readonly rowLimit: number;
}

/**
 * A worker takes a pending job: reserves the credits its rows may cost (within the balance and the results
 * quota) and starts an attempt. Null when another worker took it or it was cancelled meanwhile.
 */
export class StartExportAttempt extends Command<StartedAttempt | null> {
  constructor(
    readonly exportId: string,
    readonly workerId: string,
    readonly query: ObservationQuery,
    readonly leaseMs: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Renews a running attempt's lease with the rows written so far; false when the job is no longer its worker's. */
export class RecordExportProgress extends Command<boolean> {
  constructor(
    readonly exportId: string,
    readonly workerId: string,
    readonly attempt: number,
    readonly rowsWritten: number,
    readonly leaseMs: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** The attempt's file is stored; false when the job was cancelled or taken over meanwhile. */
export class CompleteExportAttempt extends Command<boolean> {
  constructor(
    readonly exportId: string,
    readonly workerId: string,
    readonly attempt: number,
    readonly result: {
      readonly resultsCount: number;
      readonly fileSizeBytes: number;
      readonly originalSizeBytes: number;
      readonly truncated: boolean;
    },
    readonly retentionMs: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Fails a job (an attempt of this worker, or the job the pool gave up on) and settles its charge. */
export class FailExport extends Command<void> {
  constructor(
    readonly exportId: string,
    readonly reason: string,
    readonly own: { readonly workerId: string; readonly attempt: number } | undefined,
  ) {
    super();
  }
}

/** A completed export's file is past its expiry: recorded on the job, then the file deleted (true if it was). */
export class ExpireExportFile extends Command<{ position: GlobalPosition | null; fileDeleted: boolean }> {
  constructor(
    readonly exportId: string,
    readonly payer: string,
    readonly fileKey: string | null,
  ) {
    super();
  }
}
