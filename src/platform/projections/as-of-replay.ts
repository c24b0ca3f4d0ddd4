/**
 * `as_of` answers (ADR 52, ADR 73): the streams an answer is made of, read up to a global position or a recorded
 * time, merged in log order and applied by the very projection handlers the live read models use, into
 * documents held in memory. The same query code then reads those documents with that moment as "now". Nothing
 * is written and nothing live is touched.
 */
import { ServiceError } from '../errors/service-error.js';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port.js';
import { comparePositions, isGlobalPosition } from '../event-store/global-position.js';
import { readStreamPrefix } from '../event-store/stream-prefix.js';
import { matchesFilter, valueAt } from '../read-store/filter-matcher.js';
import type { Collection, Filter, FindOptions, ReadDocument } from '../read-store/read-store.port.js';
import { InMemoryDocuments } from './in-memory-documents.js';
import type { AnyProjection, ProjectionView } from './projection-definition.js';

/** A moment of the log: a global position (inclusive) or a recorded time (events recorded at or before it). */
export type LogPoint = { readonly position: string } | { readonly time: string };

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Reads a position (`<20 digits>-<20 digits>`) or an ISO-8601 time with a timezone; refuses anything else. */
export function parseLogPoint(raw: unknown, field = 'as_of'): LogPoint {
  if (typeof raw === 'string' && isGlobalPosition(raw)) return { position: raw };
  if (typeof raw === 'string' && ISO_TIME.test(raw) && !Number.isNaN(Date.parse(raw))) {
    return { time: new Date(raw).toISOString() };
  }
  throw new ServiceError(
    'invalid_input',
    `${field} must be an ISO-8601 timestamp with a timezone, or a global log position`,
    { fields: [{ field, problems: ['must be a timestamp or a position'] }] },
  );
}

/** True when the event is part of the log as it stood at `point`. */
export function recordedBy(event: RecordedEvent, point: LogPoint): boolean {
  return 'position' in point
    ? comparePositions(event.position, point.position) <= 0
    : event.recordedAt <= point.time;
}

/** What an `as_of` answer says about itself. */
export interface AsOfPoint {
  /** What the caller asked for, as given. */
  readonly requested: string;
  /** The last event included in the replay (null: none yet). */
  readonly position: string | null;
  /** The moment the answer describes: the requested time, or the time of the last event replayed. */
  readonly time: string;
  readonly eventsReplayed: number;
}

export function asOfPoint(requested: unknown, point: LogPoint, events: readonly RecordedEvent[]): AsOfPoint {
  const last = events.at(-1) ?? null;
  return {
    requested: String(requested),
    position: last?.position ?? null,
    time: 'time' in point ? point.time : (last?.recordedAt ?? new Date(0).toISOString()),
    eventsReplayed: events.length,
  };
}

/**
 * True when the events `point` includes are a prefix of every stream: a position is (a stream's positions grow
 * with its versions); a time is not (the writers' clocks need not agree), so a time reads whole streams.
 */
export const includesStreamPrefix = (point: LogPoint): boolean => 'position' in point;

/** The events of one stream recorded by `point`; at a position, only that much of the stream is read. */
export async function readStreamUpTo(
  eventStore: Pick<EventStore, 'readStream'>,
  streamId: string,
  point: LogPoint,
): Promise<RecordedEvent[]> {
  const include = (event: RecordedEvent) => recordedBy(event, point);
  return includesStreamPrefix(point)
    ? readStreamPrefix(eventStore, streamId, include)
    : (await eventStore.readStream(streamId)).filter(include);
}

/** The events of these streams recorded by `point`, in global log order. */
export async function readStreamsUpTo(
  eventStore: Pick<EventStore, 'readStream'>,
  streams: readonly string[],
  point: LogPoint,
): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (const streamId of new Set(streams))
    events.push(...(await readStreamUpTo(eventStore, streamId, point)));
  return events.sort((a, b) => comparePositions(a.position, b.position));
}

/** Where a query reads its documents from: the live read models or an `as_of` replay, and what "now" is. */
export interface ReadSource {
  collection<T extends ReadDocument>(projection: string, name: string): Collection<T>;
  now(): Date;
}

/**
 * The view an `as_of` replay's handlers write to: the documents in memory themselves. A live batch records its
 * changes to write them in one transaction; a replay only needs the documents as they end up, so it neither
 * keeps a change list nor copies each document twice (measured: two thirds of the replay of a long ledger went
 * to that, ADR 78). Writes are copied as a batch copies them, so a handler never aliases a stored document.
 */
class ReplayView implements ProjectionView {
  constructor(private readonly documents: InMemoryDocuments) {}

  get<T extends ReadDocument>(collection: string, id: string): T | null {
    return (this.documents.collection(collection).get(id) ?? null) as T | null;
  }

  put(collection: string, document: ReadDocument): void {
    this.documents.collection(collection).set(document.id, structuredClone(document));
  }

  patch(collection: string, id: string, fields: Readonly<Record<string, unknown>>): void {
    this.documents.apply([{ kind: 'patch', collection, id, fields }]);
  }

  delete(collection: string, id: string): void {
    this.documents.collection(collection).delete(id);
  }

  deleteWhere(collection: string, filter: Filter): void {
    this.documents.apply([{ kind: 'deleteWhere', collection, filter }]);
  }
}

/** Applies `events` through these projections' own handlers into memory: the read models as they stood. */
export function replayProjections(
  definitions: readonly AnyProjection[],
  events: readonly RecordedEvent[],
  now: Date,
): ReadSource {
  const documents = new InMemoryDocuments();
  const view = new ReplayView(documents);
  for (const definition of definitions) {
    const handled = new Set<string>(definition.handles);
    for (const event of events) {
      if (!handled.has('*') && !handled.has(event.type)) continue;
      definition.apply(event, view);
    }
  }
  return {
    collection: <T extends ReadDocument>(_projection: string, name: string) =>
      new MemoryCollection<T>(name, documents.collection(name)),
    now: () => now,
  };
}

const TYPE_RANK: Record<string, number> = { number: 1, string: 2, object: 3, array: 4, boolean: 5 };

function rankOf(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (Array.isArray(value)) return TYPE_RANK.array!;
  return TYPE_RANK[typeof value] ?? 0;
}

/** The read stores' order: type rank, then numbers numerically and strings by code unit; ties by id. */
function compareValues(a: unknown, b: unknown): number {
  const ranks = rankOf(a) - rankOf(b);
  if (ranks !== 0) return ranks;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = JSON.stringify(a);
  const y = JSON.stringify(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A read-only collection over documents held in memory, with the read store port's filter and sort meaning. */
export class MemoryCollection<T extends ReadDocument> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly documents: ReadonlyMap<string, ReadDocument>,
  ) {}

  async get(id: string): Promise<T | null> {
    return (this.documents.get(id) as T | undefined) ?? null;
  }

  async getMany(ids: readonly string[]): Promise<T[]> {
    return ids.map((id) => this.documents.get(id)).filter((d): d is T => d !== undefined);
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    const sort = [...(options.sort ?? []), ['id', 1] as const];
    const found = [...this.documents.values()]
      .filter((document) => matchesFilter(document, filter))
      .sort((a, b) => {
        for (const [path, direction] of sort) {
          const order = compareValues(valueAt(a, path), valueAt(b, path));
          if (order !== 0) return order * direction;
        }
        return 0;
      });
    const offset = options.offset ?? 0;
    return found.slice(offset, options.limit === undefined ? undefined : offset + options.limit) as T[];
  }

  async count(filter: Filter = {}): Promise<number> {
    let count = 0;
    for (const document of this.documents.values()) if (matchesFilter(document, filter)) count++;
    return count;
  }

  async upsert(): Promise<void> {
    throw new Error('an as_of view is read-only');
  }

  async patch(): Promise<boolean> {
    throw new Error('an as_of view is read-only');
  }

  async delete(): Promise<boolean> {
    throw new Error('an as_of view is read-only');
  }
}
