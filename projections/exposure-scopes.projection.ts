import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  DocumentRef,
  ProjectionDefinition,
  ProjectionView,
  RecordedEventOf,
} from '../src/platform/projections/projection-definition.js';
import { declarationKey, type LatestRefresh } from '../src/exposure/domain/coverage.js';
import type { RefreshEvent, RefreshServicesRecorded } from '../src/exposure/domain/refresh-run.js';
import type { ScopeErased } from '../src/exposure/domain/scope-erasure.js';
import type { SpaceEvent } from '../src/organizations/domain/space.js';
import { eventTypes, isOneOf } from './event-types.js';

/**
 * Scope lifecycle and refresh tasks (issue 8). `exposure_scopes`: one document per client space of any kind
 * (the deleted-client list covers clients and scopes), with the exposure declaration when it is a scope, its
 * lifecycle state (active, archived, deleted), its quoted version and the latest and last completed refresh.
 * `exposure_runs`: one document per refresh task (the worker pool's queue). Erasure (`ScopeErased`) purges both.
 */
export const EXPOSURE_SCOPES = 'exposure_scopes';
export const EXPOSURE_RUNS = 'exposure_runs';

export interface LastCompletedRefresh {
  readonly runId: string;
  readonly completedAt: string;
  readonly services: number;
  readonly excludedSharedEdge: number;
  readonly domains: number;
  readonly partial: boolean;
  readonly observedRange: { readonly first: string | null; readonly last: string | null };
  readonly catalogueVersion: number | null;
  /**
   * Where the completion is in the log. The refresh's subjects are projected apart (exposure-inventory), from
   * events before it: a read that finds this completion waits for the inventory to reach it (ADR 130).
   */
  readonly position: RecordedEvent['position'];
}

export interface ExposureScopeDocument {
  readonly id: string;
  readonly organizationId: string;
  readonly kind: string;
  readonly name: string;
  /** null for a client space that declares no exposure scope. */
  readonly exposure: {
    readonly domain: string;
    readonly timezone: string;
    readonly addresses: readonly string[];
    readonly billing: 'capacity' | 'credit';
    readonly input: string;
  } | null;
  readonly monitoring: boolean;
  readonly creditLimit: number | null;
  readonly state: 'active' | 'archived' | 'deleted';
  /** The stream version: quoted, it is the If-Match of the scope routes. */
  readonly version: number;
  readonly createdAt: string;
  readonly deletion: {
    readonly deletedAt: string;
    readonly deletedBy: string;
    readonly eraseAfter: string;
    readonly previousState: string;
    readonly erasing: boolean;
  } | null;
  readonly latestRefresh: LatestRefresh | null;
  readonly lastCompletedRefresh: LastCompletedRefresh | null;
  readonly [field: string]: unknown;
}

export interface ExposureRunDocument extends LatestRefresh {
  readonly id: string;
  readonly scopeId: string;
  readonly organizationId: string;
  readonly trigger: string;
  readonly billing: string;
  readonly reservation: { readonly reservationId: string; readonly amount: number } | null;
  readonly charge: number | null;
  readonly [field: string]: unknown;
}

/** A refresh's recorded services feed the inventory; a task's document does not change with them. */
type RunEvent = Exclude<RefreshEvent, RefreshServicesRecorded>;

const SPACE_EVENTS = eventTypes<SpaceEvent>({
  SpaceCreated: true,
  ExposureScopeDeclared: true,
  SpaceRenamed: true,
  SpaceArchived: true,
  SpaceRestored: true,
  CreditLimitSet: true,
  MonitoringActivated: true,
  MonitoringStopped: true,
  ShareCreated: true,
  ShareRevoked: true,
  ExposureTimezoneChanged: true,
  SpaceDeleted: true,
  SpaceDeletionCancelled: true,
  SpaceErasureStarted: true,
});
const RUN_EVENTS = eventTypes<RunEvent>({
  RefreshRequested: true,
  RefreshStarted: true,
  RefreshLeaseRenewed: true,
  RefreshCompleted: true,
  RefreshRetryScheduled: true,
  RefreshFailed: true,
  RefreshCancelled: true,
});

export const runDocumentId = (scopeId: string, runId: string): string => `${scopeId}:${runId}`;

function runOf(event: Pick<RecordedEvent, 'streamId'>): { scopeId: string; runId: string } | null {
  if (!event.streamId.startsWith('exposure-run-')) return null;
  const rest = event.streamId.slice('exposure-run-'.length);
  // `<scopeId (a UUID, 36 characters)>-<key hash>`
  return { scopeId: rest.slice(0, 36), runId: rest.slice(37) };
}

export const exposureScopesProjection: ProjectionDefinition<SpaceEvent | RunEvent | ScopeErased> = {
  name: 'exposure-scopes',
  // 2: the last completed refresh carries its position in the log.
  version: 2,
  collections: {
    [EXPOSURE_SCOPES]: {
      indexes: [
        {
          name: 'by_organization_state',
          fields: [
            ['organizationId', 1],
            ['state', 1],
          ],
        },
      ],
    },
    [EXPOSURE_RUNS]: {
      indexes: [
        {
          name: 'by_status',
          fields: [
            ['status', 1],
            ['availableAt', 1],
          ],
        },
        {
          name: 'by_scope',
          fields: [
            ['scopeId', 1],
            ['requestedAt', -1],
          ],
        },
      ],
    },
  },
  handles: [...SPACE_EVENTS, ...RUN_EVENTS, 'ScopeErased'],
  reads(event): DocumentRef[] {
    if (event.streamId.startsWith('client-')) {
      return [{ collection: EXPOSURE_SCOPES, id: event.streamId.slice('client-'.length) }];
    }
    const run = runOf(event);
    if (run) {
      return [
        { collection: EXPOSURE_SCOPES, id: run.scopeId },
        { collection: EXPOSURE_RUNS, id: runDocumentId(run.scopeId, run.runId) },
      ];
    }
    return [];
  },
  apply(event, view) {
    if (event.type === 'ScopeErased') {
      const scopeId = event.data.scopeId;
      view.delete(EXPOSURE_SCOPES, scopeId);
      view.deleteWhere(EXPOSURE_RUNS, { scopeId });
      return;
    }
    if (event.streamId.startsWith('client-') && isOneOf(event, SPACE_EVENTS)) return applyScope(event, view);
    const run = runOf(event);
    if (run && isOneOf(event, RUN_EVENTS)) applyRun(event, run, view);
  },
};

function applyScope(event: RecordedEventOf<SpaceEvent>, view: ProjectionView): void {
  const scopeId = event.streamId.slice('client-'.length);
  if (event.type === 'SpaceCreated') {
    const data = event.data;
    if (data.kind === 'general') return;
    const document: ExposureScopeDocument = {
      id: scopeId,
      organizationId: data.organizationId,
      kind: data.kind,
      name: data.name,
      exposure: null,
      monitoring: false,
      creditLimit: data.creditLimit ?? null,
      state: 'active',
      version: event.streamVersion,
      createdAt: data.createdAt,
      deletion: null,
      latestRefresh: null,
      lastCompletedRefresh: null,
    };
    view.put(EXPOSURE_SCOPES, document);
    return;
  }
  const scope = view.get<ExposureScopeDocument>(EXPOSURE_SCOPES, scopeId);
  if (!scope) return;
  const patch = (fields: Readonly<Record<string, unknown>>) =>
    view.patch(EXPOSURE_SCOPES, scopeId, { ...fields, version: event.streamVersion });
  switch (event.type) {
    case 'ExposureScopeDeclared': {
      const { domain, timezone, addresses, billing } = event.data;
      patch({ exposure: { domain, timezone, addresses, billing, input: declarationKey(domain, addresses) } });
      return;
    }
    case 'SpaceRenamed':
      patch({ name: event.data.to });
      return;
    case 'SpaceArchived':
      patch({ state: 'archived' });
      return;
    case 'SpaceRestored':
      patch({ state: 'active' });
      return;
    case 'CreditLimitSet':
      patch({ creditLimit: event.data.creditLimit });
      return;
    case 'MonitoringActivated':
      patch({ monitoring: true });
      return;
    case 'MonitoringStopped':
      patch({ monitoring: false });
      return;
    case 'ExposureTimezoneChanged':
      if (scope.exposure) patch({ exposure: { ...scope.exposure, timezone: event.data.to } });
      return;
    case 'SpaceDeleted':
      patch({
        state: 'deleted',
        deletion: {
          deletedAt: event.data.deletedAt,
          deletedBy: event.metadata.actor,
          eraseAfter: event.data.eraseAfter,
          previousState: event.data.previousState,
          erasing: false,
        },
      });
      return;
    case 'SpaceDeletionCancelled':
      patch({ state: 'archived', deletion: null });
      return;
    case 'SpaceErasureStarted':
      if (scope.deletion) patch({ deletion: { ...scope.deletion, erasing: true } });
      return;
    default:
      // Shares change the version the client must send next.
      patch({});
  }
}

function applyRun(
  event: RecordedEventOf<RunEvent>,
  { scopeId, runId }: { scopeId: string; runId: string },
  view: ProjectionView,
): void {
  const id = runDocumentId(scopeId, runId);
  const scope = view.get<ExposureScopeDocument>(EXPOSURE_SCOPES, scopeId);
  let run: ExposureRunDocument | null = view.get<ExposureRunDocument>(EXPOSURE_RUNS, id);
  if (event.type === 'RefreshRequested') {
    const data = event.data;
    run = {
      id,
      scopeId,
      organizationId: data.organizationId,
      runId,
      trigger: data.trigger,
      billing: data.billing,
      reservation: data.reservation ?? null,
      input: data.input,
      status: 'queued',
      attempt: 0,
      requestedAt: data.requestedAt,
      availableAt: data.requestedAt,
      startedAt: null,
      leaseUntil: null,
      finishedAt: null,
      lastAttemptAt: null,
      error: null,
      charge: null,
    };
  } else if (run) {
    switch (event.type) {
      case 'RefreshStarted':
        run = {
          ...run,
          status: 'running',
          attempt: event.data.attempt,
          startedAt: event.data.startedAt,
          lastAttemptAt: event.data.startedAt,
          leaseUntil: event.data.leaseUntil,
          availableAt: null,
        };
        break;
      case 'RefreshLeaseRenewed':
        run = { ...run, leaseUntil: event.data.leaseUntil };
        break;
      case 'RefreshCompleted':
        run = {
          ...run,
          status: 'completed',
          leaseUntil: null,
          finishedAt: event.data.completedAt,
          charge: event.data.charge,
          error: null,
        };
        break;
      case 'RefreshRetryScheduled':
        run = {
          ...run,
          status: 'retry_scheduled',
          leaseUntil: null,
          lastAttemptAt: event.data.failedAt,
          availableAt: event.data.availableAt,
          error: event.data.error,
        };
        break;
      case 'RefreshFailed':
        run = {
          ...run,
          status: 'failed',
          leaseUntil: null,
          lastAttemptAt: event.data.failedAt,
          finishedAt: event.data.failedAt,
          error: event.data.error,
        };
        break;
      case 'RefreshCancelled':
        run = {
          ...run,
          status: 'cancelled',
          leaseUntil: null,
          finishedAt: event.data.cancelledAt,
          availableAt: null,
        };
        break;
    }
  }
  if (!run) return;
  view.put(EXPOSURE_RUNS, run);
  if (!scope) return;
  // The scope shows its newest task (by request time), and the last one that completed.
  const latest = scope.latestRefresh;
  const fields: Record<string, unknown> = {};
  if (!latest || latest.runId === runId || latest.requestedAt <= run.requestedAt) {
    fields.latestRefresh = latestOf(run);
  }
  if (event.type === 'RefreshCompleted') {
    const data = event.data;
    const completed: LastCompletedRefresh = {
      runId,
      completedAt: data.completedAt,
      services: data.services,
      excludedSharedEdge: data.excludedSharedEdge,
      domains: data.domains,
      partial: data.partial,
      observedRange: data.observedRange,
      catalogueVersion: data.catalogueVersion,
      position: event.position,
    };
    fields.lastCompletedRefresh = completed;
  }
  if (Object.keys(fields).length > 0) view.patch(EXPOSURE_SCOPES, scopeId, fields);
}

function latestOf(run: ExposureRunDocument): LatestRefresh {
  return {
    runId: run.runId,
    status: run.status,
    input: run.input,
    attempt: run.attempt,
    requestedAt: run.requestedAt,
    availableAt: run.availableAt,
    startedAt: run.startedAt,
    leaseUntil: run.leaseUntil,
    finishedAt: run.finishedAt,
    lastAttemptAt: run.lastAttemptAt,
    error: run.error,
  };
}
