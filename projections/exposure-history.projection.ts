import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';

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

type Data = Record<string, unknown>;

/** What each event says in the history, in words that never claim a check was executed. */
const SUMMARIES: Readonly<Record<string, (data: Data) => string>> = {
  SpaceCreated: (d) => `scope created: ${String(d.name)}`,
  ExposureScopeDeclared: (d) =>
    `declared ${String(d.domain)} with ${(d.addresses as unknown[]).length} address(es), timezone ${String(d.timezone)}, ${String(d.billing)} billing`,
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
    `catalogue association of the stored observation: ${String((d.evaluation as Data).result)} (${String((d.evaluation as Data).coverage)})`,
  ControlRecordsImported: (d) => `${(d.records as unknown[]).length} historical control record(s) imported`,
  // Reports, monitoring and notifications (src/exposure/domain/report.ts, watch.ts, notification-*.ts).
  ReportFrozen: (d) => {
    const contents = d.contents as Data;
    return `report #${String(d.sequence)} frozen: ${String(contents.observations)} observation(s), ${String(contents.historyEntries)} history entr${contents.historyEntries === 1 ? 'y' : 'ies'}${contents.historyPartial ? ' (history truncated)' : ''}`;
  },
  NotificationPreferenceSaved: (d) =>
    d.enabled
      ? `email notifications enabled for ${(d.recipients as unknown[]).length} recipient(s), in ${String(d.language)}`
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
  NotificationQueued: (d) =>
    `email notification queued for ${(d.recipients as unknown[]).length} recipient(s)`,
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

function scopeOf(event: RecordedEvent): string | null {
  if (event.streamId.startsWith('client-')) return event.streamId.slice('client-'.length);
  const data = event.data as Data;
  if (typeof data.scopeId === 'string') return data.scopeId;
  return event.metadata.scope;
}

export const exposureHistoryProjection: ProjectionDefinition = {
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
  handles: [...Object.keys(SUMMARIES), 'ScopeErased'],
  reads: () => [],
  apply(event, view) {
    const data = event.data as Data;
    if (event.type === 'ScopeErased') {
      view.deleteWhere(EXPOSURE_HISTORY, { scopeId: data.scopeId as string });
      return;
    }
    if (event.type === 'SpaceCreated' && data.kind === 'general') return;
    const scopeId = scopeOf(event);
    const summary = SUMMARIES[event.type];
    if (!scopeId || !summary) return;
    const details: Data = {};
    for (const [key, value] of Object.entries(data)) if (!OMITTED.has(key)) details[key] = value;
    if (event.type === 'AssetEnriched') {
      const evaluation = data.evaluation as Data;
      details.result = evaluation.result;
      details.coverage = evaluation.coverage;
    }
    const entry: ExposureHistoryDocument = {
      id: event.id,
      scopeId,
      subjectId: typeof data.subjectId === 'string' ? data.subjectId : null,
      position: event.position,
      at: event.recordedAt,
      type: event.type,
      actor: event.metadata.actor,
      payer: event.metadata.payer,
      correlationId: event.metadata.correlationId,
      summary: summary(data),
      details,
    };
    view.put(EXPOSURE_HISTORY, entry);
  },
};
