import type { RecordedEvent } from '../src/platform/event-store/event-store.port.js';
import type {
  ProjectionDefinition,
  ProjectionView,
} from '../src/platform/projections/projection-definition.js';

/**
 * One document per stream: what kind of stream it is, how far it has gone, who touched it last.
 * Operators use it to find streams (`events replay --stream`), and it is the platform's own example of a
 * pure projection. Handles every event type, so it is also the widest rebuild in the benchmarks.
 */
export interface EventStreamDocument {
  readonly id: string;
  /** The stream's type: the part of its id before the first dash (`account`, `ledger`, `export`, …). */
  readonly category: string;
  readonly version: number;
  readonly eventCount: number;
  readonly firstRecordedAt: string;
  readonly lastRecordedAt: string;
  readonly lastEventType: string;
  readonly lastActor: string;
  readonly lastPayer: string;
  readonly scope: string | null;
  readonly [field: string]: unknown;
}

export const EVENT_STREAMS_COLLECTION = 'event_streams';

export const eventStreamsProjection: ProjectionDefinition = {
  name: 'event-streams',
  version: 1,
  collections: {
    [EVENT_STREAMS_COLLECTION]: {
      indexes: [
        {
          name: 'by_category',
          fields: [
            ['category', 1],
            ['lastRecordedAt', -1],
          ],
        },
        { name: 'by_last_recorded', fields: [['lastRecordedAt', -1]] },
      ],
    },
  },
  handles: ['*'],
  reads: (event: RecordedEvent) => [{ collection: EVENT_STREAMS_COLLECTION, id: event.streamId }],
  apply(event: RecordedEvent, view: ProjectionView): void {
    // Erased streams are gone from the log: their documents go too, so a rebuild gives the same view.
    const data = event.data;
    const erased =
      typeof data === 'object' && data !== null && 'erasedStreams' in data ? data.erasedStreams : undefined;
    if (event.type === 'ScopeErased' && Array.isArray(erased)) {
      for (const streamId of erased as unknown[])
        if (typeof streamId === 'string') view.delete(EVENT_STREAMS_COLLECTION, streamId);
    }
    const current = view.get<EventStreamDocument>(EVENT_STREAMS_COLLECTION, event.streamId);
    const next: EventStreamDocument = {
      id: event.streamId,
      category: categoryOf(event.streamId),
      version: event.streamVersion,
      eventCount: (current?.eventCount ?? 0) + 1,
      firstRecordedAt: current?.firstRecordedAt ?? event.recordedAt,
      lastRecordedAt: event.recordedAt,
      lastEventType: event.type,
      lastActor: event.metadata.actor,
      lastPayer: event.metadata.payer,
      scope: event.metadata.scope ?? current?.scope ?? null,
    };
    view.put(EVENT_STREAMS_COLLECTION, next);
  },
};

export function categoryOf(streamId: string): string {
  const dash = streamId.indexOf('-');
  return dash === -1 ? streamId : streamId.slice(0, dash);
}
