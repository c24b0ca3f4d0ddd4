import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  DocumentRef,
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';
import { declarationKey, type LatestRefresh } from '../src/exposure/domain/coverage.js';
import { declarationOf } from '../src/exposure/domain/scope-declaration.js';

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

type Data = Record<string, unknown>;

const SPACE_EVENTS = [
  'SpaceCreated',
  'ExposureScopeDeclared',
  'SpaceRenamed',
  'SpaceArchived',
  'SpaceRestored',
  'CreditLimitSet',
  'MonitoringActivated',
  'MonitoringStopped',
  'ShareCreated',
  'ShareRevoked',
  'ExposureTimezoneChanged',
  'SpaceDeleted',
  'SpaceDeletionCancelled',
  'SpaceErasureStarted',
];
const RUN_EVENTS = [
  'RefreshRequested',
  'RefreshStarted',
  'RefreshLeaseRenewed',
  'RefreshCompleted',
  'RefreshRetryScheduled',
  'RefreshFailed',
  'RefreshCancelled',
];

export const runDocumentId = (scopeId: string, runId: string): string => `${scopeId}:${runId}`;

function runOf(event: RecordedEvent): { scopeId: string; runId: string } | null {
  if (!event.streamId.startsWith('exposure-run-')) return null;
  const rest = event.streamId.slice('exposure-run-'.length);
  // `<scopeId (a UUID, 36 characters)>-<key hash>`
  return { scopeId: rest.slice(0, 36), runId: rest.slice(37) };
}

export const exposureScopesProjection: ProjectionDefinition = {
  name: 'exposure-scopes',
  version: 1,
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
    const data = event.data as Data;
    if (event.type === 'ScopeErased') {
      const scopeId = data.scopeId as string;
      view.delete(EXPOSURE_SCOPES, scopeId);
      view.deleteWhere(EXPOSURE_RUNS, { scopeId });
      return;
    }
    if (event.streamId.startsWith('client-')) return applyScope(event, data, view);
    const run = runOf(event);
    if (run) applyRun(event, data, run, view);
  },
};

function applyScope(event: RecordedEvent, data: Data, view: ProjectionView): void {
  const scopeId = event.streamId.slice('client-'.length);
  if (event.type === 'SpaceCreated') {
    if (data.kind === 'general') return;
    const document: ExposureScopeDocument = {
      id: scopeId,
      organizationId: data.organizationId as string,
      kind: data.kind as string,
      name: data.name as string,
      exposure: null,
      monitoring: false,
      creditLimit: (data.creditLimit as number | null) ?? null,
      state: 'active',
      version: event.streamVersion,
      createdAt: data.createdAt as string,
      deletion: null,
      latestRefresh: null,
      lastCompletedRefresh: null,
    };
    view.put(EXPOSURE_SCOPES, document);
    return;
  }
  const scope = view.get<ExposureScopeDocument>(EXPOSURE_SCOPES, scopeId);
  if (!scope) return;
  const patch = (fields: Data) =>
    view.patch(EXPOSURE_SCOPES, scopeId, { ...fields, version: event.streamVersion });
  switch (event.type) {
    case 'ExposureScopeDeclared':
      patch({
        exposure: {
          ...declarationOf(data),
          input: declarationKey(data.domain as string, data.addresses as string[]),
        },
      });
      return;
    case 'SpaceRenamed':
      patch({ name: data.to });
      return;
    case 'SpaceArchived':
      patch({ state: 'archived' });
      return;
    case 'SpaceRestored':
      patch({ state: 'active' });
      return;
    case 'CreditLimitSet':
      patch({ creditLimit: data.creditLimit });
      return;
    case 'MonitoringActivated':
      patch({ monitoring: true });
      return;
    case 'MonitoringStopped':
      patch({ monitoring: false });
      return;
    case 'ExposureTimezoneChanged':
      if (scope.exposure) patch({ exposure: { ...scope.exposure, timezone: data.to } });
      return;
    case 'SpaceDeleted':
      patch({
        state: 'deleted',
        deletion: {
          deletedAt: data.deletedAt,
          deletedBy: event.metadata.actor,
          eraseAfter: data.eraseAfter,
          previousState: data.previousState,
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
  event: RecordedEvent,
  data: Data,
  { scopeId, runId }: { scopeId: string; runId: string },
  view: ProjectionView,
): void {
  const id = runDocumentId(scopeId, runId);
  const scope = view.get<ExposureScopeDocument>(EXPOSURE_SCOPES, scopeId);
  let run: ExposureRunDocument | null = view.get<ExposureRunDocument>(EXPOSURE_RUNS, id);
  if (event.type === 'RefreshRequested') {
    run = {
      id,
      scopeId,
      organizationId: data.organizationId as string,
      runId,
      trigger: data.trigger as string,
      billing: data.billing as string,
      reservation: (data.reservation as ExposureRunDocument['reservation']) ?? null,
      input: data.input as string,
      status: 'queued',
      attempt: 0,
      requestedAt: data.requestedAt as string,
      availableAt: data.requestedAt as string,
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
          attempt: data.attempt as number,
          startedAt: data.startedAt as string,
          lastAttemptAt: data.startedAt as string,
          leaseUntil: data.leaseUntil as string,
          availableAt: null,
        };
        break;
      case 'RefreshLeaseRenewed':
        run = { ...run, leaseUntil: data.leaseUntil as string };
        break;
      case 'RefreshCompleted':
        run = {
          ...run,
          status: 'completed',
          leaseUntil: null,
          finishedAt: data.completedAt as string,
          charge: data.charge as number,
          error: null,
        };
        break;
      case 'RefreshRetryScheduled':
        run = {
          ...run,
          status: 'retry_scheduled',
          leaseUntil: null,
          lastAttemptAt: data.failedAt as string,
          availableAt: data.availableAt as string,
          error: data.error as string,
        };
        break;
      case 'RefreshFailed':
        run = {
          ...run,
          status: 'failed',
          leaseUntil: null,
          lastAttemptAt: data.failedAt as string,
          finishedAt: data.failedAt as string,
          error: data.error as string,
        };
        break;
      case 'RefreshCancelled':
        run = {
          ...run,
          status: 'cancelled',
          leaseUntil: null,
          finishedAt: data.cancelledAt as string,
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
  const fields: Data = {};
  if (!latest || latest.runId === runId || latest.requestedAt <= run.requestedAt) {
    fields.latestRefresh = latestOf(run);
  }
  if (event.type === 'RefreshCompleted') {
    fields.lastCompletedRefresh = {
      runId,
      completedAt: data.completedAt,
      services: data.services,
      excludedSharedEdge: data.excludedSharedEdge,
      domains: data.domains,
      partial: data.partial,
      observedRange: data.observedRange,
      catalogueVersion: data.catalogueVersion,
    };
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
