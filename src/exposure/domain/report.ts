/**
 * A frozen report (`report-<reportId>`): the scope's view as it stood when a member froze it, stored as one
 * immutable document (a blob behind the file store port) that the `ReportFrozen` event references with its
 * SHA-256. Contract, Frozen report and Limits: at most 100 per scope, 16 MiB per document, at most 500 history
 * entries (`history_partial` marks a truncated history). Freezing runs no search, scan, guest link or email.
 *
 * The 100-per-scope limit holds under concurrency without a scope-wide lock: report n of a scope lives in the
 * stream derived from (scope, n), created with `no_stream`, so two freezes can never both take slot n, and no
 * slot above 100 exists.
 */
import { createHash } from 'node:crypto';
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

export const MAX_REPORTS_PER_SCOPE = 100;
export const MAX_REPORT_BYTES = 16 * 1024 * 1024;
export const MAX_REPORT_HISTORY = 500;
export const REPORT_FORMAT = 'exposure-report/1';

/** The report id of slot `sequence` (1 to 100) of a scope: a UUID-shaped digest, opaque to clients. */
export function reportIdFor(scopeId: string, sequence: number): string {
  const hex = createHash('sha256').update(`report:${scopeId}:${sequence}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function reportStreamId(reportId: string): string {
  return `report-${reportId}`;
}

export function isReportId(value: unknown): value is string {
  return (
    typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value)
  );
}

/** The stored document: where it lives and what it holds (counts for the summary list). */
export interface ReportBlob {
  /** File store key of the gzip-compressed JSON document. */
  readonly key: string;
  /** SHA-256 (hex) of the uncompressed JSON bytes: what GET verifies before answering. */
  readonly sha256: string;
  /** Uncompressed size: the 16 MiB limit applies to it. */
  readonly bytes: number;
  readonly storedBytes: number;
}

export interface ReportContents {
  readonly observations: number;
  readonly kev: number;
  readonly matched: number;
  readonly historyEntries: number;
  readonly historyTotal: number;
  readonly historyPartial: boolean;
  readonly partial: boolean;
}

export interface FreezeReport {
  readonly type: 'FreezeReport';
  readonly reportId: string;
  readonly scopeId: string;
  readonly organizationId: string;
  readonly sequence: number;
  readonly authorId: string;
  readonly scopeName: string;
  readonly timezone: string;
  readonly referenceTime: string;
  readonly referencePosition: string | null;
  readonly blob: ReportBlob;
  readonly contents: ReportContents;
}
export type ReportCommand = FreezeReport;

export type ReportFrozen = DomainEvent<
  'ReportFrozen',
  {
    reportId: string;
    scopeId: string;
    organizationId: string;
    sequence: number;
    authorId: string;
    scopeName: string;
    timezone: string;
    referenceTime: string;
    referencePosition: string | null;
    blob: ReportBlob;
    contents: ReportContents;
    frozenAt: string;
  }
>;
export type ReportEvent = ReportFrozen;

export interface ReportState {
  readonly exists: boolean;
  readonly reportId: string | null;
  readonly scopeId: string | null;
  readonly blob: ReportBlob | null;
}

export const initialReportState: ReportState = { exists: false, reportId: null, scopeId: null, blob: null };

export function reportLimitReached(): ServiceError {
  return new ServiceError(
    'report_limit_reached',
    `a scope keeps at most ${MAX_REPORTS_PER_SCOPE} frozen reports`,
    { limit: MAX_REPORTS_PER_SCOPE },
  );
}

export function reportTooLarge(bytes: number): ServiceError {
  return new ServiceError(
    'report_too_large',
    `the frozen document would exceed ${MAX_REPORT_BYTES} bytes (16 MiB); nothing was saved`,
    { limit_bytes: MAX_REPORT_BYTES, at_least_bytes: bytes },
  );
}

export const reportDecider: Decider<ReportCommand, ReportEvent, ReportState, { now: Date }> = {
  initialState: initialReportState,
  decide(command, state, { now }) {
    if (state.exists) throw new ServiceError('already_exists', 'this report slot is taken');
    if (
      !Number.isInteger(command.sequence) ||
      command.sequence < 1 ||
      command.sequence > MAX_REPORTS_PER_SCOPE
    ) {
      throw reportLimitReached();
    }
    // The limit rests on the id being the slot's own: any other id would be a stream outside the 100 slots.
    if (command.reportId !== reportIdFor(command.scopeId, command.sequence)) {
      throw new ServiceError('invalid_input', 'the report id must be the id of its slot in the scope');
    }
    if (command.blob.bytes > MAX_REPORT_BYTES) throw reportTooLarge(command.blob.bytes);
    if (command.contents.historyEntries > MAX_REPORT_HISTORY) {
      throw new ServiceError('invalid_input', `a report holds at most ${MAX_REPORT_HISTORY} history entries`);
    }
    if (!/^[0-9a-f]{64}$/.test(command.blob.sha256)) {
      throw new ServiceError('invalid_input', 'the content hash must be a SHA-256 digest');
    }
    return [
      {
        type: 'ReportFrozen',
        data: {
          reportId: command.reportId,
          scopeId: command.scopeId,
          organizationId: command.organizationId,
          sequence: command.sequence,
          authorId: command.authorId,
          scopeName: command.scopeName,
          timezone: command.timezone,
          referenceTime: command.referenceTime,
          referencePosition: command.referencePosition,
          blob: { ...command.blob },
          contents: { ...command.contents },
          frozenAt: now.toISOString(),
        },
      },
    ];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ReportFrozen':
        return {
          exists: true,
          reportId: event.data.reportId,
          scopeId: event.data.scopeId,
          blob: event.data.blob,
        };
      default:
        return state;
    }
  },
};
