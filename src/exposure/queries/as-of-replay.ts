/**
 * For auditors (issue 8, item 9): `GET …/exposure?as_of=` and `GET …/exposure/history?as_of=` answer from the
 * event log as it stood at a past moment. The scope's streams are read up to that global position (or that
 * recorded time), merged in log order and applied by the very projection handlers the live read models use, into
 * documents held in memory; the same queries then read those documents, with that moment as "now". Nothing is
 * written and nothing live is touched.
 */
import {
  EVENT_STREAMS_COLLECTION,
  type EventStreamDocument,
} from '../../../projections/event-streams.projection.js';
import { allProjections } from '../../../projections/index.js';
import type { RecordedEvent } from '../../platform/event-store/event-store.port.js';
import { comparePositions, isGlobalPosition } from '../../platform/event-store/global-position.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { BatchView } from '../../platform/projections/batch-view.js';
import { InMemoryDocuments } from '../../platform/projections/in-memory-documents.js';
import { matchesFilter, valueAt } from '../../platform/read-store/filter-matcher.js';
import type {
  Collection,
  Filter,
  FindOptions,
  ReadDocument,
} from '../../platform/read-store/read-store.port.js';
import { spaceStreamId } from '../../organizations/domain/space.js';
import { notificationStreamId } from '../domain/notification-preference.js';
import { MAX_REPORTS_PER_SCOPE, reportIdFor, reportStreamId } from '../domain/report.js';
import { watchStreamId } from '../domain/watch.js';
import type { ExposureReadPorts, ExposureReadSource } from './exposure-queries.js';

/** The read models an exposure answer is made of. */
export const AS_OF_PROJECTIONS = [
  'exposure-scopes',
  'exposure-inventory',
  'exposure-history',
  'exposure-reports',
  'exposure-monitoring',
];

export interface AsOfPoint {
  /** What the caller asked for, as given. */
  readonly requested: string;
  /** The last event of the scope included in the replay (null: the scope had no event yet). */
  readonly position: string | null;
  /** The moment the answer describes: the requested time, or the time of the requested position's event. */
  readonly time: string;
  readonly eventsReplayed: number;
}

/** `as_of`: a global position (`00000000000000000012-00000000000000000003`) or an ISO-8601 timestamp. */
export function parseAsOf(raw: unknown): { position: string } | { time: string } {
  if (typeof raw === 'string' && isGlobalPosition(raw)) return { position: raw };
  if (
    typeof raw === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(raw) &&
    !Number.isNaN(Date.parse(raw))
  ) {
    return { time: new Date(raw).toISOString() };
  }
  throw new ServiceError(
    'invalid_input',
    'as_of must be an ISO-8601 timestamp with a timezone, or a global log position',
    { fields: [{ field: 'as_of', problems: ['must be a timestamp or a position'] }] },
  );
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
class MemoryCollection<T extends ReadDocument> implements Collection<T> {
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

/** Every stream that can hold an event of this scope. */
async function scopeStreams(ports: ExposureReadPorts, scopeId: string): Promise<string[]> {
  const streams = ports.projections.collection<EventStreamDocument>(
    'event-streams',
    EVENT_STREAMS_COLLECTION,
  );
  const prefixed = await Promise.all(
    [`exposure-run-${scopeId}-`, `subject-${scopeId}-`, `exposure-delivery-${scopeId}-`].map((prefix) =>
      streams.find({ id: { $prefix: prefix } }),
    ),
  );
  const reports: string[] = [];
  for (let sequence = 1; sequence <= MAX_REPORTS_PER_SCOPE; sequence++) {
    const streamId = reportStreamId(reportIdFor(scopeId, sequence));
    if ((await ports.eventStore.streamVersion(streamId)) === null) break;
    reports.push(streamId);
  }
  return [
    spaceStreamId(scopeId),
    `exposure-controls-${scopeId}`,
    notificationStreamId(scopeId),
    watchStreamId(scopeId),
    ...prefixed.flat().map((stream) => stream.id),
    ...reports,
  ];
}

/**
 * Replays a scope's streams up to `asOf` into memory and returns a read source for the exposure queries.
 */
export async function replayScopeAsOf(
  ports: ExposureReadPorts,
  scopeId: string,
  asOf: unknown,
): Promise<{ source: ExposureReadSource; point: AsOfPoint }> {
  const target = parseAsOf(asOf);
  const include = (event: RecordedEvent) =>
    'position' in target
      ? comparePositions(event.position, target.position) <= 0
      : event.recordedAt <= target.time;
  const events: RecordedEvent[] = [];
  for (const streamId of await scopeStreams(ports, scopeId)) {
    for (const event of await ports.eventStore.readStream(streamId)) {
      if (include(event)) events.push(event);
    }
  }
  events.sort((a, b) => comparePositions(a.position, b.position));

  const documents = new InMemoryDocuments();
  const collectionOf = (name: string) => documents.collection(name);
  for (const definition of allProjections.filter((d) => AS_OF_PROJECTIONS.includes(d.name))) {
    const handled = new Set(definition.handles);
    const view = new BatchView(definition.name, (collection) => collection);
    for (const event of events) {
      if (!handled.has('*') && !handled.has(event.type)) continue;
      for (const ref of view.missing(definition.reads?.(event) ?? [])) {
        const found = collectionOf(ref.collection).get(ref.id);
        view.load(ref.collection, [ref.id], found ? [found] : []);
      }
      definition.apply(event, view);
    }
    documents.apply(view.changes);
  }
  const last = events.at(-1) ?? null;
  const time = 'time' in target ? target.time : (last?.recordedAt ?? new Date(0).toISOString());
  const point: AsOfPoint = {
    requested: String(asOf),
    position: last?.position ?? null,
    time,
    eventsReplayed: events.length,
  };
  return {
    point,
    source: {
      collection: <T extends ReadDocument>(_projection: string, name: string) =>
        new MemoryCollection<T>(name, collectionOf(name)),
      now: () => new Date(time),
    },
  };
}
