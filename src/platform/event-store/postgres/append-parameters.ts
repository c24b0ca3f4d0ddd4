/**
 * What es_append receives, encoded in the appending process: the expected version as a mode and a number, the
 * events as one JSON parameter written from the canonical text the hashes were computed from (the seals
 * come as sealAppend's hex). Pure: no database, no clock.
 */
import type { ExpectedVersion, NewEvent } from '../event-store.port.js';
import type { SealedAppend } from '../event-hash.js';

/** How es_append receives the expected version: a mode, plus the number when the mode is `exact`. */
const EXPECTED_MODE = { any: 0, noStream: 1, exists: 2, exact: 3 } as const;

export function assertAppendable(events: readonly NewEvent[]): void {
  if (events.length === 0) throw new RangeError('append needs at least one event');
  const ids = new Set(events.map((event) => event.id));
  if (ids.size !== events.length) throw new RangeError('append got the same event id twice');
}

export function assertPositiveLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new RangeError(`limit must be a positive integer, got ${limit}`);
}

export function encodeExpectedVersion(expected: ExpectedVersion): { mode: number; version: number | null } {
  switch (expected) {
    case 'any':
      return { mode: EXPECTED_MODE.any, version: null };
    case 'no_stream':
      return { mode: EXPECTED_MODE.noStream, version: null };
    case 'exists':
      return { mode: EXPECTED_MODE.exists, version: null };
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`expected version must be a non-negative integer, got ${expected}`);
      }
      return { mode: EXPECTED_MODE.exact, version: expected };
  }
}

/** es_append's p_events as the unchained append of the benchmark takes it (JSON.stringify of these). */
export function storedEvent(event: NewEvent): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    schema_version: event.schemaVersion,
    data: event.data,
    metadata: event.metadata,
  };
}

/**
 * es_append's p_events: what JSON.stringify(events.map(storedEvent)) gives, with data and metadata written as
 * the canonical JSON the hashes were computed from (the same jsonb once parsed), so no event is serialized
 * twice. The whole metadata object (optional fields included) is stored: exactly what the content hash covers.
 */
export function eventsParameter(events: readonly NewEvent[], sealed: SealedAppend): string {
  let text = '[';
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i]!;
    const data = sealed.data[i];
    const metadata = sealed.metadata[i];
    text +=
      `${i === 0 ? '' : ','}{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)}` +
      `,"schema_version":${JSON.stringify(event.schemaVersion) ?? 'null'}` +
      (data === undefined ? '' : `,"data":${data}`) +
      (metadata === undefined ? '' : `,"metadata":${metadata}`) +
      '}';
  }
  return `${text}]`;
}
