/**
 * What the export job stream (`export-<id>`) is told and what it records: its commands and events, and the
 * vocabulary they share. The rules deciding between them are in export-job.ts.
 */
import type { Channel } from '../../credits/domain/ledger.js';
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';
import type { TruncationCause } from './export-cost.js';

export const EXPORT_SEARCH_TYPES = ['hosts', 'dns', 'whois', 'vhosts'] as const;
export type ExportSearchType = (typeof EXPORT_SEARCH_TYPES)[number];
export const EXPORT_FORMATS = ['json', 'csv', 'txt'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

// --- commands ---------------------------------------------------------------------------------------------

export interface RequestExport {
  readonly type: 'RequestExport';
  readonly exportId: string;
  readonly ownerAccountId: string;
  readonly payer: string;
  readonly searchType: ExportSearchType;
  readonly rawQuery: string;
  readonly timeFrame: string;
  /** Resolved from the time frame when requested, so a restarted job exports the same window. */
  readonly since: string | null;
  readonly broad: boolean;
  readonly format: ExportFormat;
  readonly estimatedCount: number;
  /**
   * The channel the request came through (`mcp` for an MCP client's access token): the job's charge is recorded
   * under it, so an MCP export counts in usage_mcp. Absent on jobs requested before it was recorded: `api`.
   */
  readonly channel?: Channel;
}
export interface StartExport {
  readonly type: 'StartExport';
  readonly workerId: string;
  readonly reservationId: string | null;
  readonly reservedCredits: number;
  readonly rowLimit: number;
  readonly matching: number;
  readonly truncationCause: TruncationCause | null;
  readonly fileKey: string;
  readonly leaseMs: number;
}
export interface RecordProgress {
  readonly type: 'RecordProgress';
  readonly workerId: string;
  readonly attempt: number;
  readonly rowsWritten: number;
  readonly leaseMs: number;
}
export interface CompleteExport {
  readonly type: 'CompleteExport';
  readonly workerId: string;
  readonly attempt: number;
  readonly resultsCount: number;
  readonly fileSizeBytes: number;
  readonly originalSizeBytes: number;
  /** Rows were left out (the allowance ran out before the index did). */
  readonly truncated: boolean;
  readonly retentionMs: number;
}
export interface FailExport {
  readonly type: 'FailExport';
  readonly reason: string;
  /** A worker failing its own attempt; absent when the pool gives up on an interrupted job. */
  readonly workerId?: string;
  readonly attempt?: number;
}
/**
 * A pool taking over a job whose worker stopped renewing its lease: the lost attempt ends here (its worker's
 * later steps decide nothing) and its reservation is to be released before another attempt starts.
 */
export interface AbandonAttempt {
  readonly type: 'AbandonAttempt';
}
/** DELETE on the export: cancels a pending or processing job, deletes a finished one. */
export interface CancelOrDeleteExport {
  readonly type: 'CancelOrDeleteExport';
}
export interface RecordCharge {
  readonly type: 'RecordCharge';
}
export interface ExpireExportFile {
  readonly type: 'ExpireExportFile';
}

export type ExportCommand =
  | RequestExport
  | StartExport
  | RecordProgress
  | CompleteExport
  | FailExport
  | AbandonAttempt
  | CancelOrDeleteExport
  | RecordCharge
  | ExpireExportFile;

export interface ExportContext {
  readonly now: Date;
}

// --- events -----------------------------------------------------------------------------------------------

export type ExportRequested = DomainEvent<
  'ExportRequested',
  Omit<RequestExport, 'type'> & { requestedAt: string }
>;
export type ExportStarted = DomainEvent<
  'ExportStarted',
  {
    attempt: number;
    workerId: string;
    reservationId: string | null;
    reservedCredits: number;
    rowLimit: number;
    matching: number;
    truncationCause: TruncationCause | null;
    fileKey: string;
    startedAt: string;
    leaseUntil: string;
  }
>;
export type ExportProgressed = DomainEvent<
  'ExportProgressed',
  { attempt: number; rowsWritten: number; leaseUntil: string }
>;
export type ExportTruncated = DomainEvent<
  'ExportTruncated',
  { attempt: number; resultsCount: number; matching: number; reason: string }
>;
export type ExportCompleted = DomainEvent<
  'ExportCompleted',
  {
    attempt: number;
    resultsCount: number;
    creditsConsumed: number;
    fileKey: string;
    fileSizeBytes: number;
    originalSizeBytes: number;
    completedAt: string;
    expiresAt: string;
  }
>;
export type ExportFailed = DomainEvent<
  'ExportFailed',
  { reason: string; resultsCount: 0; creditsConsumed: 0; failedAt: string }
>;
/** A lost attempt (its lease ran out): the job is pending again and the attempt's reservation is released. */
export type ExportAttemptAbandoned = DomainEvent<
  'ExportAttemptAbandoned',
  { attempt: number; reservationId: string | null; rowsWritten: number; abandonedAt: string }
>;
export type ExportCancelled = DomainEvent<
  'ExportCancelled',
  { wasRunning: boolean; resultsCount: number; creditsConsumed: number; cancelledAt: string }
>;
/** The job's charge reached the ledger (settled, or released when nothing was owed). */
export type ExportCharged = DomainEvent<
  'ExportCharged',
  { reservationId: string | null; creditsConsumed: number }
>;
export type ExportFileExpired = DomainEvent<'ExportFileExpired', { fileKey: string; expiredAt: string }>;
export type ExportDeleted = DomainEvent<'ExportDeleted', { fileKey: string | null; deletedAt: string }>;

export type ExportEvent =
  | ExportRequested
  | ExportStarted
  | ExportProgressed
  | ExportTruncated
  | ExportCompleted
  | ExportFailed
  | ExportAttemptAbandoned
  | ExportCancelled
  | ExportCharged
  | ExportFileExpired
  | ExportDeleted;
