import type { ControlRecordsImported } from '../src/exposure/domain/control-records.js';
import type { DeliveryClaimed, DeliveryEvent } from '../src/exposure/domain/notification-delivery.js';
import type { NotificationPreferenceSaved } from '../src/exposure/domain/notification-preference.js';
import type {
  RefreshEvent,
  RefreshLeaseRenewed,
  RefreshServicesRecorded,
  RefreshStarted,
} from '../src/exposure/domain/refresh-run.js';
import type { ReportFrozen } from '../src/exposure/domain/report.js';
import type { ScopeErased } from '../src/exposure/domain/scope-erasure.js';
import type { SubjectEvent } from '../src/exposure/domain/subject.js';
import type { WatchEvent } from '../src/exposure/domain/watch.js';
import type { SpaceEvent } from '../src/organizations/domain/space.js';
import type {
  ProjectionDefinition,
  RecordedEventOf,
} from '../src/platform/projections/projection-definition.js';

/**
 * A scope's history (issue 8): one attributed entry per lifecycle change, decision, refresh, enrichment, control
 * import and setting change, newest first by global log position. Entries carry the actor, payer and the
 * correlation id of the request that caused them. Erasure (`ScopeErased`) purges the scope's entries; the
 * audit record of the erasure itself stays in the event log.
 */
export const EXPOSURE_HISTORY = 'exposure_history';

export interface ExposureHistoryDocument {
  readonly id: string;
  readonly scopeId: string;
  readonly subjectId: string | null;
  readonly position: string;
  readonly at: string;
  readonly type: string;
  readonly actor: string;
  readonly payer: string;
  readonly correlationId: string;
  readonly summary: string;
  readonly details: Record<string, unknown>;
  readonly [field: string]: unknown;
}

/**
 * The events a scope's history shows. Left out: a refresh attempt's start, lease and recorded services (the
 * attempt's outcome is the entry) and a delivery's lease (DeliveryClaimed).
 */
type HistoryEvent =
  | SpaceEvent
  | Exclude<RefreshEvent, RefreshStarted | RefreshLeaseRenewed | RefreshServicesRecorded>
  | SubjectEvent
  | ControlRecordsImported
  | ReportFrozen
  | NotificationPreferenceSaved
  | WatchEvent
  | Exclude<DeliveryEvent, DeliveryClaimed>;
type HistoryType = HistoryEvent['type'];
type DataOf<T extends HistoryType> = Extract<HistoryEvent, { type: T }>['data'];

/** What each event says in the history, in words that never claim a check was executed. */
const SUMMARIES: { readonly [T in HistoryType]: (data: DataOf<T>) => string } = {
  SpaceCreated: (d) => `scope created: ${String(d.name)}`,
  ExposureScopeDeclared: (d) =>
    `declared ${String(d.domain)} with ${d.addresses.length} address(es), timezone ${String(d.timezone)}, ${String(d.billing)} billing`,
  SpaceRenamed: (d) => `renamed from ${String(d.from)} to ${String(d.to)}`,
  SpaceArchived: () => 'archived: queued and running refreshes and monitoring stopped, guest links revoked',
  SpaceRestored: () => 'reactivated (no schedule restarted)',
  CreditLimitSet: (d) => `credit limit set to ${d.creditLimit === null ? 'none' : String(d.creditLimit)}`,
  MonitoringActivated: () => 'monitoring activated',
  MonitoringStopped: (d) => `monitoring stopped (${String(d.reason)})`,
  ShareCreated: () => 'guest link created',
  ShareRevoked: (d) => `guest link revoked (${String(d.reason)})`,
  ExposureTimezoneChanged: (d) => `timezone changed from ${String(d.from)} to ${String(d.to)}`,
  SpaceDeleted: (d) => `deleted; erasure after ${String(d.eraseAfter)} unless restored`,
  SpaceDeletionCancelled: () =>
    'deletion cancelled: restored as archived (grants, links and schedules not restored)',
  SpaceErasureStarted: () => 'erasure started',
  RefreshRequested: (d) =>
    d.trigger === 'creation'
      ? 'initial refresh from stored observations requested'
      : d.trigger === 'watch'
        ? 'scheduled watch: refresh from stored observations requested'
        : 'refresh from stored observations requested',
  RefreshCompleted: (d) =>
    `refresh from stored observations completed: ${String(d.services)} service(s), ${String(d.domains)} registration(s)${d.partial ? ' (partial)' : ''}`,
  RefreshRetryScheduled: (d) =>
    `refresh attempt ${String(d.attempt)} failed (${String(d.error)}); retry scheduled`,
  RefreshFailed: (d) => `refresh from stored observations failed: ${String(d.error)}`,
  RefreshCancelled: (d) => `refresh cancelled (${String(d.reason)})`,
  DecisionRecorded: (d) =>
    `decision: ${String(d.decision)}${d.conclusion ? ` (${String(d.conclusion)})` : ''} (was ${String(d.previous)})`,
  SubjectReopened: (d) => `reopened by a later observation (was ${String(d.previous)})`,
  AssetEnriched: (d) =>
    `catalogue association of the stored observation: ${String(d.evaluation.result)} (${String(d.evaluation.coverage)})`,
  ControlRecordsImported: (d) => `${d.records.length} historical control record(s) imported`,
  // Reports, monitoring and notifications (src/exposure/domain/report.ts, watch.ts, notification-*.ts).
  ReportFrozen: (d) => {
    const contents = d.contents;
    return `report #${String(d.sequence)} frozen: ${String(contents.observations)} observation(s), ${String(contents.historyEntries)} history entr${contents.historyEntries === 1 ? 'y' : 'ies'}${contents.historyPartial ? ' (history truncated)' : ''}`;
  },
  NotificationPreferenceSaved: (d) =>
    d.enabled
      ? `email notifications enabled for ${d.recipients.length} recipient(s), in ${String(d.language)}`
      : 'email notifications disabled',
  WatchRunRequested: () => 'scheduled watch run requested',
  WatchBaselineEstablished: (d) =>
    `watch baseline established from stored observations: ${String(d.services)} service(s)`,
  WatchRunCompared: (d) =>
    `watch run compared with the previous one: ${String(d.newServices)} newly observed service(s), ${String(d.newKev)} new KEV association(s); ${String(d.notObserved)} service(s) not observed this time (not evidence that they disappeared)${d.partial ? ' (partial run)' : ''}`,
  WatchRunInconclusive: (d) =>
    d.reason === 'partial_before_baseline'
      ? 'watch run partial: no baseline established (missing data proves nothing)'
      : `watch run ${String(d.reason)}: nothing compared (missing data proves nothing)`,
  NotificationQueued: (d) => `email notification queued for ${d.recipients.length} recipient(s)`,
  NotificationSent: () => 'email notification handed to the mail relay',
  NotificationSkipped: (d) => `email notification skipped for a recipient (${String(d.reason)})`,
  NotificationAttemptFailed: (d) =>
    `email notification attempt ${String(d.attempt)} failed${d.final ? ' (giving up)' : '; will retry'}`,
  NotificationCancelled: (d) => `pending email notification cancelled (${String(d.reason)})`,
};

/** Fields that are bulky or internal stay out of the entry's details. */
const OMITTED = new Set([
  'services',
  'domains',
  'records',
  'evaluation',
  'reservation',
  'input',
  'newServicesListed',
  'newKevListed',
]);

const HISTORY_TYPES = Object.keys(SUMMARIES) as HistoryType[];

function scopeOf(event: RecordedEventOf<HistoryEvent>): string | null {
  if (event.streamId.startsWith('client-')) return event.streamId.slice('client-'.length);
  const data = event.data;
  if ('scopeId' in data && typeof data.scopeId === 'string') return data.scopeId;
  return event.metadata.scope;
}

function summarize<T extends HistoryType>(type: T, data: DataOf<T>): string {
  return SUMMARIES[type](data);
}

export const exposureHistoryProjection: ProjectionDefinition<HistoryEvent | ScopeErased> = {
  name: 'exposure-history',
  version: 1,
  collections: {
    [EXPOSURE_HISTORY]: {
      indexes: [
        {
          name: 'by_scope_position',
          fields: [
            ['scopeId', 1],
            ['position', -1],
          ],
        },
        {
          name: 'by_scope_subject_position',
          fields: [
            ['scopeId', 1],
            ['subjectId', 1],
            ['position', -1],
          ],
        },
      ],
    },
  },
  handles: [...HISTORY_TYPES, 'ScopeErased'],
  reads: () => [],
  apply(event, view) {
    if (event.type === 'ScopeErased') {
      view.deleteWhere(EXPOSURE_HISTORY, { scopeId: event.data.scopeId });
      return;
    }
    if (event.type === 'SpaceCreated' && event.data.kind === 'general') return;
    const scopeId = scopeOf(event);
    if (!scopeId) return;
    const data = event.data;
    const details: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(data)) if (!OMITTED.has(key)) details[key] = value;
    if (event.type === 'AssetEnriched') {
      details.result = event.data.evaluation.result;
      details.coverage = event.data.evaluation.coverage;
    }
    const entry: ExposureHistoryDocument = {
      id: event.id,
      scopeId,
      subjectId: 'subjectId' in data && typeof data.subjectId === 'string' ? data.subjectId : null,
      position: event.position,
      at: event.recordedAt,
      type: event.type,
      actor: event.metadata.actor,
      payer: event.metadata.payer,
      correlationId: event.metadata.correlationId,
      summary: summarize(event.type, event.data),
      details,
    };
    view.put(EXPOSURE_HISTORY, entry);
  },
};
