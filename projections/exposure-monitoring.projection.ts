import type { DeliveryClaimed, DeliveryEvent } from '../src/exposure/domain/notification-delivery.js';
import type { ScopeErased } from '../src/exposure/domain/scope-erasure.js';
import type { WatchEvent } from '../src/exposure/domain/watch.js';
import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  ProjectionDefinition,
  ProjectionView,
  RecordedEventOf,
} from '../src/platform/projections/projection-definition.js';
import { eventTypes, isOneOf } from './event-types.js';

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

type WatchOrDelivery = WatchEvent | Exclude<DeliveryEvent, DeliveryClaimed>;

/**
 * DeliveryClaimed (the delivery worker's lease) is deliberately not followed: the lease lives in the delivery
 * stream, which the worker folds before it sends; the read model shows each recipient's outcome only.
 */
const WATCH_EVENTS = eventTypes<WatchEvent>({
  WatchRunRequested: true,
  WatchBaselineEstablished: true,
  WatchRunCompared: true,
  WatchRunInconclusive: true,
});
const DELIVERY_EVENTS = eventTypes<Exclude<DeliveryEvent, DeliveryClaimed>>({
  NotificationQueued: true,
  NotificationSent: true,
  NotificationSkipped: true,
  NotificationAttemptFailed: true,
  NotificationCancelled: true,
});

function deliveryId(event: Pick<RecordedEvent, 'streamId'>): string {
  // `exposure-delivery-<scopeId (36)>-<runId>`
  const rest = event.streamId.slice('exposure-delivery-'.length);
  return `${rest.slice(0, 36)}:${rest.slice(37)}`;
}

const isWatchEvent = (
  event: RecordedEventOf<WatchOrDelivery | ScopeErased>,
): event is RecordedEventOf<WatchEvent> => isOneOf(event, WATCH_EVENTS);

export const exposureMonitoringProjection: ProjectionDefinition<WatchOrDelivery | ScopeErased> = {
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
    if (event.streamId.startsWith('exposure-watch-') && isWatchEvent(event)) {
      return [{ collection: EXPOSURE_WATCH, id: event.data.scopeId }];
    }
    if (event.streamId.startsWith('exposure-delivery-')) {
      return [{ collection: EXPOSURE_DELIVERIES, id: deliveryId(event) }];
    }
    return [];
  },
  apply(event, view) {
    if (event.type === 'ScopeErased') {
      view.delete(EXPOSURE_WATCH, event.data.scopeId);
      view.deleteWhere(EXPOSURE_DELIVERIES, { scopeId: event.data.scopeId });
      return;
    }
    if (event.streamId.startsWith('exposure-watch-') && isWatchEvent(event)) {
      view.put(EXPOSURE_WATCH, nextWatch(event, view));
      return;
    }
    if (isWatchEvent(event)) return;
    const id = deliveryId(event);
    if (event.type === 'NotificationQueued') {
      const data = event.data;
      const document: ExposureDeliveryDocument = {
        id,
        scopeId: data.scopeId,
        runId: data.runId,
        status: 'pending',
        recipients: Object.fromEntries(data.recipients.map((r) => [r, 'pending'])),
        queuedAt: data.queuedAt,
      };
      view.put(EXPOSURE_DELIVERIES, document);
      return;
    }
    const current = view.get<ExposureDeliveryDocument>(EXPOSURE_DELIVERIES, id);
    if (!current) return;
    const recipients: Record<string, string> = { ...current.recipients };
    switch (event.type) {
      case 'NotificationSent':
        recipients[event.data.recipient] = 'sent';
        break;
      case 'NotificationSkipped':
        recipients[event.data.recipient] = `skipped:${String(event.data.reason)}`;
        break;
      case 'NotificationAttemptFailed':
        if (event.data.final) recipients[event.data.recipient] = 'failed';
        break;
      case 'NotificationCancelled':
        for (const recipient of event.data.recipients) recipients[recipient] = 'cancelled';
        break;
    }
    const pending = Object.values(recipients).some((status) => status === 'pending');
    const status = event.type === 'NotificationCancelled' ? 'cancelled' : pending ? 'pending' : 'finished';
    view.put(EXPOSURE_DELIVERIES, { ...current, recipients, status });
  },
};

function nextWatch(event: RecordedEventOf<WatchEvent>, view: ProjectionView): ExposureWatchDocument {
  const { scopeId, scheduleId } = event.data;
  const current = view.get<ExposureWatchDocument>(EXPOSURE_WATCH, scopeId) ?? {
    id: scopeId,
    scopeId,
    scheduleId: null,
    baseline: null,
    latest: null,
    requested: 0,
  };
  // A new schedule (monitoring stopped, then activated again) establishes its own baseline.
  const baseline = current.scheduleId === scheduleId ? current.baseline : null;
  if (event.type === 'WatchRunRequested') {
    return { ...current, scheduleId, baseline, requested: current.requested + 1 };
  }
  const data = event.data;
  const latest = (outcome: LatestWatch['outcome'], fields: Partial<LatestWatch> = {}): LatestWatch => ({
    runId: data.runId,
    outcome,
    finishedAt: data.finishedAt,
    services: 'services' in data ? data.services : null,
    newServices: 0,
    newKev: 0,
    notObserved: 0,
    partial: false,
    reason: null,
    ...fields,
  });
  switch (event.type) {
    case 'WatchBaselineEstablished':
      return {
        ...current,
        scheduleId,
        baseline: { runId: data.runId, finishedAt: data.finishedAt, services: event.data.services },
        latest: latest('baseline'),
      };
    case 'WatchRunCompared':
      return {
        ...current,
        scheduleId,
        baseline,
        latest: latest('compared', {
          newServices: event.data.newServices,
          newKev: event.data.newKev,
          notObserved: event.data.notObserved,
          partial: event.data.partial,
        }),
      };
    case 'WatchRunInconclusive':
      return {
        ...current,
        scheduleId,
        baseline,
        latest: latest('inconclusive', { reason: event.data.reason }),
      };
  }
}
