import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import { eventTypes } from './event-types.js';
import type { ExportEvent } from '../src/exports/domain/export-job.js';

/**
 * One document per export job, in the contract's field names, plus what the worker pool and the sweeper look
 * for (status, lease, charge, file). A deleted export keeps a tombstone (`deleted: true`): queries hide it, and
 * its rows still count against the cycle's results quota.
 */
export const EXPORTS = 'exports';

export interface ExportDocument {
  readonly id: string;
  readonly owner_account_id: string;
  readonly payer: string;
  readonly status: string;
  readonly search_type: string;
  readonly raw_query: string;
  readonly time_frame: string;
  readonly format: string;
  readonly results_count: number;
  readonly credits_consumed: number;
  readonly file_size_bytes: number | null;
  readonly original_size_bytes: number | null;
  readonly estimated_count: number;
  readonly was_truncated: boolean;
  readonly truncation_reason: string | null;
  readonly failure_reason: string | null;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly completed_at: string | null;
  readonly attempt: number;
  readonly row_limit: number;
  readonly lease_until: string | null;
  readonly file_key: string | null;
  readonly file_expired: boolean;
  readonly charge_pending: boolean;
  readonly deleted: boolean;
  readonly [field: string]: unknown;
}

const exportId = (event: RecordedEvent): string => event.streamId.slice('export-'.length);

export const exportsProjection: ProjectionDefinition<ExportEvent> = {
  name: 'exports',
  version: 2,
  collections: {
    [EXPORTS]: {
      indexes: [
        {
          name: 'by_owner',
          fields: [
            ['owner_account_id', 1],
            ['created_at', -1],
          ],
        },
        {
          name: 'by_status',
          fields: [
            ['status', 1],
            ['created_at', 1],
          ],
        },
        { name: 'by_expiry', fields: [['expires_at', 1]] },
      ],
    },
  },
  handles: eventTypes<ExportEvent>({
    ExportRequested: true,
    ExportStarted: true,
    ExportProgressed: true,
    ExportTruncated: true,
    ExportCompleted: true,
    ExportFailed: true,
    ExportAttemptAbandoned: true,
    ExportCancelled: true,
    ExportCharged: true,
    ExportFileExpired: true,
    ExportDeleted: true,
  }),
  reads: (event) => [{ collection: EXPORTS, id: exportId(event) }],
  apply(event, view) {
    const id = exportId(event);
    if (event.type === 'ExportRequested') {
      const data = event.data;
      const document: ExportDocument = {
        id,
        owner_account_id: data.ownerAccountId,
        payer: data.payer,
        status: 'pending',
        search_type: data.searchType,
        raw_query: data.rawQuery,
        time_frame: data.timeFrame,
        format: data.format,
        results_count: 0,
        credits_consumed: 0,
        file_size_bytes: null,
        original_size_bytes: null,
        estimated_count: data.estimatedCount,
        was_truncated: false,
        truncation_reason: null,
        failure_reason: null,
        created_at: data.requestedAt,
        expires_at: null,
        completed_at: null,
        attempt: 0,
        row_limit: 0,
        lease_until: null,
        file_key: null,
        file_expired: false,
        charge_pending: false,
        deleted: false,
      };
      view.put(EXPORTS, document);
      return;
    }
    const current = view.get<ExportDocument>(EXPORTS, id);
    if (!current) return;
    const patch = (fields: Partial<ExportDocument>): void => view.patch(EXPORTS, id, fields);
    switch (event.type) {
      case 'ExportStarted':
        return patch({
          status: 'processing',
          attempt: event.data.attempt,
          row_limit: event.data.rowLimit,
          lease_until: event.data.leaseUntil,
          file_key: event.data.fileKey,
          results_count: 0,
          reservation_id: event.data.reservationId,
        });
      case 'ExportProgressed':
        return patch({ results_count: event.data.rowsWritten, lease_until: event.data.leaseUntil });
      case 'ExportTruncated':
        return patch({ was_truncated: true, truncation_reason: event.data.reason });
      case 'ExportCompleted':
        return patch({
          status: 'completed',
          results_count: event.data.resultsCount,
          credits_consumed: event.data.creditsConsumed,
          file_size_bytes: event.data.fileSizeBytes,
          original_size_bytes: event.data.originalSizeBytes,
          file_key: event.data.fileKey,
          completed_at: event.data.completedAt,
          expires_at: event.data.expiresAt,
          lease_until: null,
          charge_pending: current.reservation_id != null,
        });
      case 'ExportFailed':
        return patch({
          status: 'failed',
          results_count: 0,
          credits_consumed: 0,
          failure_reason: event.data.reason,
          lease_until: null,
          charge_pending: current.reservation_id != null,
        });
      case 'ExportAttemptAbandoned':
        // Pending again: the lost attempt's rows are discarded and its reservation is about to be released.
        return patch({
          status: 'pending',
          results_count: 0,
          row_limit: 0,
          lease_until: null,
          file_key: null,
          charge_pending: current.reservation_id != null,
        });
      case 'ExportCancelled':
        return patch({
          status: 'cancelled',
          results_count: event.data.resultsCount,
          credits_consumed: event.data.creditsConsumed,
          lease_until: null,
          charge_pending: current.reservation_id != null,
        });
      case 'ExportCharged':
        // A lost attempt's released reservation is no reservation of the (pending again) job any more.
        return patch(
          current.status === 'pending'
            ? { charge_pending: false, reservation_id: null }
            : { charge_pending: false },
        );
      case 'ExportFileExpired':
        return patch({ file_expired: true });
      case 'ExportDeleted':
        return patch({ deleted: true, deleted_at: event.data.deletedAt });
    }
  },
};
