/**
 * The export job stream (`export-<id>`): a search turned into a gzip file, asynchronously. Pure: no I/O, no
 * clock (the time comes in the context). Contract rules live here: statuses and their transitions, the cost
 * (ceil(rows / 100) on rows actually written, never more than was reserved), truncation and retention.
 */
import { ServiceError } from '../../platform/errors/service-error.js';
import type { Channel } from '../../credits/domain/ledger.js';
import type { Decider } from '../../platform/event-sourcing/decider.js';
import { creditsForRows, rowsForCredits, truncationReason, type TruncationCause } from './export-cost.js';
import type {
  ExportCommand,
  ExportContext,
  ExportEvent,
  ExportRequested,
  ExportStatus,
} from './export-job-messages.js';

export {
  ROWS_PER_CREDIT,
  creditsForRows,
  exportAllowance,
  rowsForCredits,
  truncationReason,
  type TruncationCause,
} from './export-cost.js';
export * from './export-job-messages.js';

/** A job interrupted this many times (crash, lost lease) fails instead of starting again. */
export const MAX_EXPORT_ATTEMPTS = 3;

/** The channel a job's credits are reserved and charged under (contract: usage_mcp is a subset of usage). */
export function exportChannel(request: { readonly channel?: Channel } | null | undefined): Channel {
  return request?.channel ?? 'api';
}

export function exportStreamId(exportId: string): string {
  return `export-${exportId}`;
}

// --- state ------------------------------------------------------------------------------------------------

export interface ExportState {
  readonly status: ExportStatus | 'none' | 'deleted';
  readonly request: ExportRequested['data'] | null;
  readonly attempt: number;
  readonly workerId: string | null;
  readonly reservationId: string | null;
  readonly reservedCredits: number;
  readonly rowLimit: number;
  readonly matching: number;
  readonly truncationCause: TruncationCause | null;
  readonly leaseUntil: string | null;
  readonly rowsWritten: number;
  readonly resultsCount: number;
  readonly creditsConsumed: number;
  readonly fileKey: string | null;
  readonly fileSizeBytes: number | null;
  readonly originalSizeBytes: number | null;
  readonly wasTruncated: boolean;
  readonly truncationReason: string | null;
  readonly failureReason: string | null;
  readonly expiresAt: string | null;
  readonly fileExpired: boolean;
  /**
   * A charge (or release) of `reservationId` that has not reached the ledger yet: a terminal job's, or a lost
   * attempt's (released before the next attempt starts).
   */
  readonly chargePending: boolean;
}

const initialState: ExportState = {
  status: 'none',
  request: null,
  attempt: 0,
  workerId: null,
  reservationId: null,
  reservedCredits: 0,
  rowLimit: 0,
  matching: 0,
  truncationCause: null,
  leaseUntil: null,
  rowsWritten: 0,
  resultsCount: 0,
  creditsConsumed: 0,
  fileKey: null,
  fileSizeBytes: null,
  originalSizeBytes: null,
  wasTruncated: false,
  truncationReason: null,
  failureReason: null,
  expiresAt: null,
  fileExpired: false,
  chargePending: false,
};

export function isFinished(status: ExportState['status']): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A processing job whose worker stopped renewing its lease (crashed or lost): the pool may take it over. */
export function leaseExpired(state: ExportState, now: Date): boolean {
  return (
    state.status === 'processing' &&
    state.leaseUntil !== null &&
    Date.parse(state.leaseUntil) <= now.getTime()
  );
}

function evolve(state: ExportState, event: ExportEvent): ExportState {
  switch (event.type) {
    case 'ExportRequested':
      return { ...initialState, status: 'pending', request: event.data };
    case 'ExportStarted':
      return {
        ...state,
        status: 'processing',
        attempt: event.data.attempt,
        workerId: event.data.workerId,
        reservationId: event.data.reservationId,
        reservedCredits: event.data.reservedCredits,
        rowLimit: event.data.rowLimit,
        matching: event.data.matching,
        truncationCause: event.data.truncationCause,
        fileKey: event.data.fileKey,
        leaseUntil: event.data.leaseUntil,
        rowsWritten: 0,
      };
    case 'ExportProgressed':
      return { ...state, rowsWritten: event.data.rowsWritten, leaseUntil: event.data.leaseUntil };
    case 'ExportTruncated':
      return { ...state, wasTruncated: true, truncationReason: event.data.reason };
    case 'ExportCompleted':
      return {
        ...state,
        status: 'completed',
        workerId: null,
        leaseUntil: null,
        rowsWritten: event.data.resultsCount,
        resultsCount: event.data.resultsCount,
        creditsConsumed: event.data.creditsConsumed,
        fileKey: event.data.fileKey,
        fileSizeBytes: event.data.fileSizeBytes,
        originalSizeBytes: event.data.originalSizeBytes,
        expiresAt: event.data.expiresAt,
        chargePending: state.reservationId !== null,
      };
    case 'ExportFailed':
      return {
        ...state,
        status: 'failed',
        workerId: null,
        leaseUntil: null,
        resultsCount: 0,
        creditsConsumed: 0,
        failureReason: event.data.reason,
        chargePending: state.reservationId !== null,
      };
    case 'ExportAttemptAbandoned':
      return {
        ...state,
        status: 'pending',
        workerId: null,
        leaseUntil: null,
        rowsWritten: 0,
        rowLimit: 0,
        resultsCount: 0,
        creditsConsumed: 0,
        fileKey: null,
        chargePending: state.reservationId !== null,
      };
    case 'ExportCancelled':
      return {
        ...state,
        status: 'cancelled',
        workerId: null,
        leaseUntil: null,
        resultsCount: event.data.resultsCount,
        creditsConsumed: event.data.creditsConsumed,
        chargePending: state.reservationId !== null,
      };
    case 'ExportCharged':
      // A lost attempt's reservation, once released, is no reservation of the job any more.
      return state.status === 'pending'
        ? { ...state, chargePending: false, reservationId: null, reservedCredits: 0 }
        : { ...state, chargePending: false };
    case 'ExportFileExpired':
      return { ...state, fileExpired: true };
    case 'ExportDeleted':
      return { ...state, status: 'deleted' };
  }
}

function decide(command: ExportCommand, state: ExportState, context: ExportContext): ExportEvent[] {
  const now = context.now.toISOString();
  if (command.type !== 'RequestExport' && state.status === 'none') {
    throw new ServiceError('not_found', 'No such export.');
  }
  if (state.status === 'deleted') {
    switch (command.type) {
      // A charge decided before the deletion still reaches the ledger, and is recorded once.
      case 'RecordCharge':
        break;
      // A worker that lost the job, or a file already gone with its job: nothing to decide.
      case 'RecordProgress':
      case 'CompleteExport':
      case 'FailExport':
      case 'ExpireExportFile':
        return [];
      case 'RequestExport':
        break;
      default:
        throw new ServiceError('not_found', 'No such export.');
    }
  }
  switch (command.type) {
    case 'RequestExport': {
      if (state.status !== 'none') {
        // The same request retried (same id) decides nothing; another request cannot reuse the id.
        if (state.request?.rawQuery === command.rawQuery && state.request.format === command.format)
          return [];
        throw new ServiceError('already_exists', 'An export with this id exists.', {
          export_id: command.exportId,
        });
      }
      if (!Number.isSafeInteger(command.estimatedCount) || command.estimatedCount < 0) {
        throw new ServiceError('invalid_input', 'estimatedCount must be a non-negative integer');
      }
      const { type: _type, ...data } = command;
      return [{ type: 'ExportRequested', data: { ...data, requestedAt: now } }];
    }

    case 'StartExport': {
      // A lost attempt is abandoned first (AbandonAttempt), so its reservation is never confused with this one.
      if (state.status !== 'pending') {
        throw new ServiceError('version_conflict', `The export is ${state.status}; it cannot start.`, {
          status: state.status,
        });
      }
      if (state.chargePending) {
        throw new ServiceError(
          'version_conflict',
          "The previous attempt's reservation is not released yet; the export cannot start.",
        );
      }
      if (state.attempt >= MAX_EXPORT_ATTEMPTS) {
        throw new ServiceError('version_conflict', 'The export used all its attempts.');
      }
      if (command.rowLimit > rowsForCredits(command.reservedCredits)) {
        // Never write a row that the reservation cannot pay for.
        throw new ServiceError('invalid_input', 'The row limit exceeds what the reservation pays for.', {
          rowLimit: command.rowLimit,
          reservedCredits: command.reservedCredits,
        });
      }
      if ((command.reservationId === null) !== (command.reservedCredits === 0)) {
        throw new ServiceError('invalid_input', 'A reservation id goes with reserved credits.');
      }
      return [
        {
          type: 'ExportStarted',
          data: {
            attempt: state.attempt + 1,
            workerId: command.workerId,
            reservationId: command.reservationId,
            reservedCredits: command.reservedCredits,
            rowLimit: command.rowLimit,
            matching: command.matching,
            truncationCause: command.truncationCause,
            fileKey: command.fileKey,
            startedAt: now,
            leaseUntil: new Date(context.now.getTime() + command.leaseMs).toISOString(),
          },
        },
      ];
    }

    case 'RecordProgress': {
      // A worker that lost its job (cancelled, taken over) learns it from the state: nothing is decided.
      if (!ownsAttempt(state, command)) return [];
      if (command.rowsWritten < state.rowsWritten || command.rowsWritten > state.rowLimit) {
        throw new ServiceError('invalid_input', 'Progress must grow and stay within the row limit.', {
          rowsWritten: command.rowsWritten,
          rowLimit: state.rowLimit,
        });
      }
      return [
        {
          type: 'ExportProgressed',
          data: {
            attempt: state.attempt,
            rowsWritten: command.rowsWritten,
            leaseUntil: new Date(context.now.getTime() + command.leaseMs).toISOString(),
          },
        },
      ];
    }

    case 'CompleteExport': {
      if (!ownsAttempt(state, command)) return [];
      if (
        command.resultsCount > state.rowLimit ||
        creditsForRows(command.resultsCount) > state.reservedCredits
      ) {
        throw new ServiceError('invalid_input', 'More rows than the reservation pays for.', {
          resultsCount: command.resultsCount,
          rowLimit: state.rowLimit,
        });
      }
      const events: ExportEvent[] = [];
      if (command.truncated) {
        events.push({
          type: 'ExportTruncated',
          data: {
            attempt: state.attempt,
            resultsCount: command.resultsCount,
            matching: Math.max(state.matching, command.resultsCount + 1),
            reason: truncationReason(
              state.truncationCause ?? 'growth',
              command.resultsCount,
              Math.max(state.matching, command.resultsCount + 1),
            ),
          },
        });
      }
      events.push({
        type: 'ExportCompleted',
        data: {
          attempt: state.attempt,
          resultsCount: command.resultsCount,
          creditsConsumed: creditsForRows(command.resultsCount),
          fileKey: state.fileKey as string,
          fileSizeBytes: command.fileSizeBytes,
          originalSizeBytes: command.originalSizeBytes,
          completedAt: now,
          expiresAt: new Date(context.now.getTime() + command.retentionMs).toISOString(),
        },
      });
      return events;
    }

    case 'FailExport': {
      if (
        command.workerId !== undefined &&
        !ownsAttempt(state, { workerId: command.workerId, attempt: command.attempt ?? -1 })
      )
        return [];
      if (isFinished(state.status)) return [];
      return [
        {
          type: 'ExportFailed',
          data: { reason: command.reason, resultsCount: 0, creditsConsumed: 0, failedAt: now },
        },
      ];
    }

    case 'AbandonAttempt': {
      if (!leaseExpired(state, context.now)) {
        throw new ServiceError('version_conflict', `The export is ${state.status} under a live lease.`, {
          status: state.status,
        });
      }
      const abandoned: ExportEvent = {
        type: 'ExportAttemptAbandoned',
        data: {
          attempt: state.attempt,
          reservationId: state.reservationId,
          rowsWritten: state.rowsWritten,
          abandonedAt: now,
        },
      };
      if (state.attempt < MAX_EXPORT_ATTEMPTS) return [abandoned];
      return [
        abandoned,
        {
          type: 'ExportFailed',
          data: {
            reason: `The export was interrupted ${state.attempt} times and was given up.`,
            resultsCount: 0,
            creditsConsumed: 0,
            failedAt: now,
          },
        },
      ];
    }

    case 'CancelOrDeleteExport': {
      if (state.status === 'pending' || state.status === 'processing') {
        // A running job is charged for the rows it had recorded as written; it stops at its next batch.
        const rows = state.status === 'processing' ? state.rowsWritten : 0;
        return [
          {
            type: 'ExportCancelled',
            data: {
              wasRunning: state.status === 'processing',
              resultsCount: rows,
              creditsConsumed: creditsForRows(rows),
              cancelledAt: now,
            },
          },
        ];
      }
      return [
        {
          type: 'ExportDeleted',
          data: {
            fileKey: state.status === 'completed' && !state.fileExpired ? state.fileKey : null,
            deletedAt: now,
          },
        },
      ];
    }

    case 'RecordCharge':
      if (!state.chargePending) return [];
      return [
        {
          type: 'ExportCharged',
          data: { reservationId: state.reservationId, creditsConsumed: state.creditsConsumed },
        },
      ];

    case 'ExpireExportFile':
      if (state.status !== 'completed' || state.fileExpired || state.fileKey === null) return [];
      if (state.expiresAt === null || Date.parse(state.expiresAt) > context.now.getTime()) return [];
      return [{ type: 'ExportFileExpired', data: { fileKey: state.fileKey, expiredAt: now } }];
  }
}

function ownsAttempt(state: ExportState, command: { workerId: string; attempt: number }): boolean {
  return (
    state.status === 'processing' && state.workerId === command.workerId && state.attempt === command.attempt
  );
}

export const exportDecider: Decider<ExportCommand, ExportEvent, ExportState, ExportContext> = {
  initialState,
  evolve,
  decide,
};
