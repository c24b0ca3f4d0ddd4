import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';

/**
 * Monitoring of exposure scopes (issue 8): `exposure_watch`, one document per scope with its baseline and what
 * the latest watch run found (the inventory shows it); `exposure_deliveries`, one per queued email with each
 * recipient's outcome (the delivery worker's queue). Erasure (`ScopeErased`) purges both.
 */
export const EXPOSURE_WATCH = 'exposure_watch';
export const EXPOSURE_DELIVERIES = 'exposure_deliveries';

export interface LatestWatch {
  readonly runId: string;
  readonly outcome: 'baseline' | 'compared' | 'inconclusive';
  readonly finishedAt: string;
  readonly services: number | null;
  readonly newServices: number;
  readonly newKev: number;
  readonly notObserved: number;
  readonly partial: boolean;
  readonly reason: string | null;
}

export interface ExposureWatchDocument {
  readonly id: string;
  readonly scopeId: string;
  readonly scheduleId: string | null;
  readonly baseline: {
    readonly runId: string;
    readonly finishedAt: string;
    readonly services: number;
  } | null;
  readonly latest: LatestWatch | null;
  readonly requested: number;
  readonly [field: string]: unknown;
}

export interface ExposureDeliveryDocument {
  readonly id: string;
  readonly scopeId: string;
  readonly runId: string;
  readonly status: 'pending' | 'finished' | 'cancelled';
  readonly recipients: Readonly<Record<string, string>>;
  readonly queuedAt: string;
  readonly [field: string]: unknown;
}

type Data = Record<string, unknown>;

const WATCH_EVENTS = [
  'WatchRunRequested',
  'WatchBaselineEstablished',
  'WatchRunCompared',
  'WatchRunInconclusive',
];
const DELIVERY_EVENTS = [
  'NotificationQueued',
  'NotificationSent',
  'NotificationSkipped',
  'NotificationAttemptFailed',
  'NotificationCancelled',
];

function deliveryId(event: RecordedEvent): string {
  // `exposure-delivery-<scopeId (36)>-<runId>`
  const rest = event.streamId.slice('exposure-delivery-'.length);
  return `${rest.slice(0, 36)}:${rest.slice(37)}`;
}

export const exposureMonitoringProjection: ProjectionDefinition = {
  name: 'exposure-monitoring',
  version: 1,
  collections: {
    [EXPOSURE_WATCH]: {},
    [EXPOSURE_DELIVERIES]: {
      indexes: [
        {
          name: 'by_status',
          fields: [
            ['status', 1],
            ['queuedAt', 1],
          ],
        },
      ],
    },
  },
  handles: [...WATCH_EVENTS, ...DELIVERY_EVENTS, 'ScopeErased'],
  reads(event) {
    if (event.streamId.startsWith('exposure-watch-')) {
      return [{ collection: EXPOSURE_WATCH, id: (event.data as Data).scopeId as string }];
    }
    if (event.streamId.startsWith('exposure-delivery-')) {
      return [{ collection: EXPOSURE_DELIVERIES, id: deliveryId(event) }];
    }
    return [];
  },
  apply(event, view) {
    const data = event.data as Data;
    if (event.type === 'ScopeErased') {
      view.delete(EXPOSURE_WATCH, data.scopeId as string);
      view.deleteWhere(EXPOSURE_DELIVERIES, { scopeId: data.scopeId as string });
      return;
    }
    if (event.streamId.startsWith('exposure-watch-')) {
      const scopeId = data.scopeId as string;
      const current = view.get<ExposureWatchDocument>(EXPOSURE_WATCH, scopeId) ?? {
        id: scopeId,
        scopeId,
        scheduleId: null,
        baseline: null,
        latest: null,
        requested: 0,
      };
      const scheduleId = data.scheduleId as string;
      // A new schedule (monitoring stopped, then activated again) establishes its own baseline.
      const baseline = current.scheduleId === scheduleId ? current.baseline : null;
      const latest = (outcome: LatestWatch['outcome'], fields: Partial<LatestWatch> = {}): LatestWatch => ({
        runId: data.runId as string,
        outcome,
        finishedAt: data.finishedAt as string,
        services: (data.services as number | undefined) ?? null,
        newServices: 0,
        newKev: 0,
        notObserved: 0,
        partial: false,
        reason: null,
        ...fields,
      });
      let next: ExposureWatchDocument;
      switch (event.type) {
        case 'WatchRunRequested':
          next = { ...current, scheduleId, baseline, requested: current.requested + 1 };
          break;
        case 'WatchBaselineEstablished':
          next = {
            ...current,
            scheduleId,
            baseline: {
              runId: data.runId as string,
              finishedAt: data.finishedAt as string,
              services: data.services as number,
            },
            latest: latest('baseline'),
          };
          break;
        case 'WatchRunCompared':
          next = {
            ...current,
            scheduleId,
            baseline,
            latest: latest('compared', {
              newServices: data.newServices as number,
              newKev: data.newKev as number,
              notObserved: data.notObserved as number,
              partial: data.partial as boolean,
            }),
          };
          break;
        default:
          next = {
            ...current,
            scheduleId,
            baseline,
            latest: latest('inconclusive', { reason: data.reason as string }),
          };
      }
      view.put(EXPOSURE_WATCH, next);
      return;
    }
    const id = deliveryId(event);
    if (event.type === 'NotificationQueued') {
      const document: ExposureDeliveryDocument = {
        id,
        scopeId: data.scopeId as string,
        runId: data.runId as string,
        status: 'pending',
        recipients: Object.fromEntries((data.recipients as string[]).map((r) => [r, 'pending'])),
        queuedAt: data.queuedAt as string,
      };
      view.put(EXPOSURE_DELIVERIES, document);
      return;
    }
    const current = view.get<ExposureDeliveryDocument>(EXPOSURE_DELIVERIES, id);
    if (!current) return;
    const recipients: Record<string, string> = { ...current.recipients };
    switch (event.type) {
      case 'NotificationSent':
        recipients[data.recipient as string] = 'sent';
        break;
      case 'NotificationSkipped':
        recipients[data.recipient as string] = `skipped:${String(data.reason)}`;
        break;
      case 'NotificationAttemptFailed':
        if (data.final) recipients[data.recipient as string] = 'failed';
        break;
      case 'NotificationCancelled':
        for (const recipient of data.recipients as string[]) recipients[recipient] = 'cancelled';
        break;
    }
    const pending = Object.values(recipients).some((status) => status === 'pending');
    const status = event.type === 'NotificationCancelled' ? 'cancelled' : pending ? 'pending' : 'finished';
    view.put(EXPOSURE_DELIVERIES, { ...current, recipients, status });
  },
};
