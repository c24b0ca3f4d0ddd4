import type { EventStore, RecordedEvent } from './event-store.port.js';

/** Events per read of a stream prefix: a page ends the read early without a round trip per event. */
export const STREAM_PREFIX_PAGE = 500;

/**
 * The events of a stream from its start up to the first one `accept` refuses (excluded), read page by page, so
 * an `as_of` at an early position reads that much of a long stream, not all of it (ADR 78). Only for predicates
 * that hold for a prefix of the stream, such as "recorded at or before this global position".
 */
export async function readStreamPrefix(
  eventStore: Pick<EventStore, 'readStream'>,
  streamId: string,
  accept: (event: RecordedEvent) => boolean,
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (let fromVersion = 0; ;) {
    const page = await eventStore.readStream(streamId, { fromVersion, maxCount: STREAM_PREFIX_PAGE });
    for (const event of page) {
      if (!accept(event)) return events;
      events.push(event);
    }
    if (page.length < STREAM_PREFIX_PAGE) return events;
    fromVersion = page.at(-1)!.streamVersion + 1;
  }
}
