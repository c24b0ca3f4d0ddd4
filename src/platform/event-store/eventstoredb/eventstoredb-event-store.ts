/**
 * EventStore adapter over EventStoreDB / KurrentDB (gRPC client `@eventstore/db-client`).
 *
 * Design choices (the contract suite in test/contract/event-store.contract.ts is the specification):
 *
 * - Streams map 1:1 to EventStoreDB streams. ExpectedVersion maps to the client's expectedRevision:
 *   `no_stream` → NO_STREAM, `exists` → STREAM_EXISTS, `any` → ANY, a number n → BigInt(n).
 *   The client's WrongExpectedVersionError becomes our WrongExpectedVersion and StreamDeletedError becomes
 *   StreamDeleted, recognised by class / error type, never by message text.
 * - Event ids are passed as the EventStoreDB event id (ids that are not UUIDs are mapped to a name-based
 *   UUID v5, deterministically), so the server's idempotency check covers retried commands. The server
 *   guarantees it for `no_stream` and numeric expected versions and does its best for `any`. On top of that,
 *   when an append fails with a version conflict, the adapter looks at the slot the events would have taken
 *   and, when the same ids are already stored there, returns the original result instead of failing.
 * - Event metadata is JSON: our EventMetadata fields plus `schemaVersion`, `recordedAt` (ISO-8601 from the
 *   injected clock) and the original `eventId`; `$correlationId` / `$causationId` are written as well so
 *   EventStoreDB's own tooling (projections, the UI) links events.
 * - Global positions are encodePosition(commit, prepare) of the event's $all position. The position of an
 *   append is the position of its last event: taken from the append response when a single event was
 *   written (commit == prepare == the event's log position), otherwise read back from the stream, because
 *   for multi-event writes the response carries the transaction's commit/prepare pair, not the last event's.
 * - readAll / readLast / subscribeAll / headPosition only show user events: system streams and system event
 *   types (names starting with `$`, which includes tombstone markers and links) are excluded, as are the
 *   adapter's own bookkeeping stream and events of erased streams. `readAll` pages through $all (the client
 *   has no server-side filter for reads) and drops anything at or before `after`, so it is correct whether
 *   the server treats the start position as inclusive or exclusive. `headPosition` and `readLast` read $all
 *   backwards and return the last *visible* events, so a projection that caught up with readAll reaches the
 *   head.
 * - subscribeAll is an async generator over the client's catch-up subscription to $all (server-side
 *   `excludeSystemEvents()` filter). It pulls one event at a time (`for await` semantics over a Readable in
 *   object mode), so a slow consumer applies real backpressure down to gRPC flow control. It is supervised:
 *   when the subscription errors or ends, it resubscribes from the last position it has processed, with a
 *   capped exponential backoff, and drops anything at or before that position, so it never re-delivers or
 *   skips. It ends when the AbortSignal fires (or the consumer stops iterating) and cancels the gRPC call.
 * - Erasure: EventStoreDB keeps the events of deleted streams in $all until a scavenge runs. `deleteStream`
 *   therefore first records the stream in the adapter-owned stream `_erased-streams` (a regular, non-system
 *   stream so it needs no admin rights) and then tombstones the stream (a hard delete: it can never be
 *   written again, reads fail with StreamDeleted). readAll / subscribeAll / headPosition filter events of
 *   erased streams through an in-memory set that is loaded at init, updated on delete, refreshed
 *   incrementally (before each readAll / headPosition, at most once a second while a subscription runs) and
 *   whenever the log itself shows a new erasure record. Recording first means a crash between the two
 *   steps never leaves a stream visible; a retried deleteStream finishes the tombstone.
 */
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  AccessDeniedError,
  InvalidArgumentError,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
} from '@eventstore/db-client';
import type {
  AllStreamSubscription,
  AppendExpectedRevision,
  AppendResult as EsdbAppendResult,
  Position,
  ReadPosition,
} from '@eventstore/db-client';
import { uuidV5 } from '../event-id.js';
import {
  StreamDeleted,
  WrongExpectedVersion,
  type AppendOptions,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeAllOptions,
} from '../event-store.port.js';
import { comparePositions, decodePosition, encodePosition, type GlobalPosition } from '../global-position.js';

/** The adapter-owned stream that records erased streams (not a `$` system stream: no admin rights needed). */
export const ERASED_STREAMS_STREAM = '_erased-streams';
const STREAM_ERASED_EVENT = 'StreamErased';

/** Namespace for name-based UUIDs minted by this adapter (non-UUID event ids, erasure records). */
const ADAPTER_NAMESPACE = '5f0c2b8e-3d71-4c1a-9e62-7b4a0d9c8f13';
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const READ_ALL_PAGE = 500;
const HEAD_PAGE = 50;
const ERASED_REFRESH_INTERVAL_MS = 1_000;

export interface EventStoreDbLogger {
  warn(message: string, context?: Record<string, unknown>): void;
}

export interface EventStoreDbEventStoreOptions {
  /** Clock of the writer, for `recordedAt` (e.g. `() => clock.now()`). Defaults to the system clock. */
  readonly clock?: () => Date;
  /** Resubscription backoff: first delay and cap, in milliseconds. */
  readonly resubscribeBackoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly logger?: EventStoreDbLogger;
}

/** The shape of a recorded event as the client returns it (JSON or binary). */
interface EsdbRecord {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly created: Date;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly position?: Position;
}

/** What the adapter writes as EventStoreDB event metadata. */
interface StoredMetadata {
  readonly $correlationId: string;
  readonly $causationId: string;
  readonly eventId: string;
  readonly schemaVersion: number;
  readonly recordedAt: string;
  readonly actor: string;
  readonly payer: string;
  readonly scope: string | null;
  readonly correlationId: string;
  readonly causationId: string;
}

class Aborted extends Error {
  override readonly name = 'Aborted';
}

export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb';

  private readonly client: EventStoreDBClient;
  private readonly clock: () => Date;
  private readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  private readonly logger: EventStoreDbLogger | undefined;

  /** Streams known to be erased, and how far `_erased-streams` has been read (-1n: nothing yet). */
  private readonly erased = new Set<string>();
  private erasedRevision = -1n;
  private erasedRefresh: Promise<void> | null = null;
  private closed = false;

  constructor(client: EventStoreDBClient, options: EventStoreDbEventStoreOptions = {}) {
    this.client = client;
    this.clock = options.clock ?? (() => new Date());
    this.backoff = options.resubscribeBackoff ?? { initialMs: 100, maxMs: 5_000 };
    this.logger = options.logger;
  }

  /**
   * E.g. `esdb://localhost:2113?tls=false`. The KurrentDB spellings (`kurrentdb://`, `kdb://`,
   * `kurrentdb+discover://`) are accepted too: this client (v6) only parses the `esdb` schemes, same meaning.
   */
  static fromConnectionString(
    connectionString: string,
    options: EventStoreDbEventStoreOptions = {},
  ): EventStoreDbEventStore {
    const normalized = connectionString.replace(/^(?:kurrentdb|kdb)(\+discover)?:\/\//i, 'esdb$1://');
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(normalized), options);
  }

  async init(): Promise<void> {
    // Also proves connectivity: the first read fails fast when the server is unreachable.
    await this.refreshErased();
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`append to ${streamId} needs at least one event`);
    if (this.erased.has(streamId)) throw new StreamDeleted(streamId);
    const expected = options.expectedVersion;
    const recordedAt = this.clock().toISOString();
    const payload = events.map((event) =>
      jsonEvent({
        id: esdbEventId(event.id),
        type: event.type,
        // JSON.stringify(undefined) is not JSON: store null instead.
        data: (event.data ?? null) as never,
        metadata: storedMetadata(event, recordedAt) as unknown as Record<string, unknown>,
      }),
    );

    let result: EsdbAppendResult;
    try {
      result = await this.client.appendToStream(streamId, payload, {
        expectedRevision: toExpectedRevision(expected),
      });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const original = await this.findIdempotentAppend(streamId, events, expected);
        if (original) return original;
        throw new WrongExpectedVersion(streamId, expected, fromCurrentRevision(error.actualVersion));
      }
      if (error instanceof StreamDeletedError) throw new StreamDeleted(streamId);
      throw error;
    }
    if (!result.success) {
      // Only when the connection string sets throwOnAppendFailure=false.
      const original = await this.findIdempotentAppend(streamId, events, expected);
      if (original) return original;
      throw new WrongExpectedVersion(streamId, expected, fromCurrentRevision(result.nextExpectedRevision));
    }

    const nextExpectedVersion = Number(result.nextExpectedRevision);
    if (events.length === 1 && result.position && result.position.commit === result.position.prepare) {
      return {
        nextExpectedVersion,
        position: encodePosition(result.position.commit, result.position.prepare),
      };
    }
    // Several events (or an idempotent retry, which carries no position): the last event's own position.
    const last = await this.readRecordAt(streamId, result.nextExpectedRevision);
    if (last?.position) {
      return { nextExpectedVersion, position: encodePosition(last.position.commit, last.position.prepare) };
    }
    if (result.position) {
      return {
        nextExpectedVersion,
        position: encodePosition(result.position.commit, result.position.prepare),
      };
    }
    throw new Error(
      `EventStoreDB returned no position for the append to ${streamId} (server older than 22.6?)`,
    );
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    if (this.erased.has(streamId)) return [];
    const fromVersion = options.fromVersion ?? 0;
    if (!Number.isInteger(fromVersion) || fromVersion < 0)
      throw new Error(`invalid fromVersion ${fromVersion}`);
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: BigInt(fromVersion),
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of read) {
        const record = resolved.event as EsdbRecord | undefined;
        if (!record || isSystemRecord(record)) continue;
        out.push(toRecordedEvent(record));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw error;
    }
    return out;
  }

  async streamVersion(streamId: string): Promise<number | null> {
    if (this.erased.has(streamId)) return null;
    const last = await this.readLastRecord(streamId);
    return last ? Number(last.revision) : null;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const { after, limit } = options;
    if (limit <= 0) return [];
    await this.refreshErased();
    const out: RecordedEvent[] = [];
    let cursor: GlobalPosition | null = after;
    const pageSize = Math.max(READ_ALL_PAGE, Math.min(limit, 4_096));
    for (;;) {
      const read = this.client.readAll({
        direction: FORWARDS,
        fromPosition: toReadPosition(cursor, START),
        maxCount: pageSize,
      });
      let seen = 0;
      let done = false;
      try {
        for await (const resolved of read) {
          seen += 1;
          const record = resolved.event as EsdbRecord | undefined;
          if (!record?.position) continue;
          const position = encodePosition(record.position.commit, record.position.prepare);
          // The start position may be inclusive: never hand out anything at or before the cursor.
          if (comparePositions(position, cursor) <= 0) continue;
          cursor = position;
          if (!this.isVisible(record)) continue;
          out.push(toRecordedEvent(record, position));
          if (out.length >= limit) {
            done = true;
            break;
          }
        }
      } finally {
        if (done) await read.cancel().catch(() => undefined);
      }
      if (done || seen < pageSize) return out;
    }
  }

  async readLast(limit: number): Promise<RecordedEvent[]> {
    if (limit <= 0) return [];
    await this.refreshErased();
    return (await this.scanBackwards(limit)).reverse();
  }

  async headPosition(): Promise<GlobalPosition | null> {
    await this.refreshErased();
    const [last] = await this.scanBackwards(1);
    return last?.position ?? null;
  }

  /** $all is in commit order: nothing committed is ever hidden behind a running transaction. */
  lastCommittedPosition(): Promise<GlobalPosition | null> {
    return this.headPosition();
  }

  /** The newest `limit` visible events, newest first, paging backwards through $all. */
  private async scanBackwards(limit: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const pageSize = Math.max(HEAD_PAGE, Math.min(limit, 4_096));
    let from: ReadPosition = END;
    let previous: GlobalPosition | null = null;
    for (;;) {
      const read = this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: pageSize });
      let seen = 0;
      let done = false;
      try {
        for await (const resolved of read) {
          seen += 1;
          const record = resolved.event as EsdbRecord | undefined;
          if (!record?.position) continue;
          const position = encodePosition(record.position.commit, record.position.prepare);
          // The start position of a page may be inclusive: skip what the previous page already covered.
          if (previous !== null && comparePositions(position, previous) >= 0) continue;
          previous = position;
          from = record.position;
          if (!this.isVisible(record)) continue;
          out.push(toRecordedEvent(record, position));
          if (out.length >= limit) {
            done = true;
            break;
          }
        }
      } finally {
        if (done) await read.cancel().catch(() => undefined);
      }
      if (done || seen < pageSize) return out;
    }
  }

  subscribeAll(options: SubscribeAllOptions): AsyncIterable<RecordedEvent> {
    return this.subscription(options.after, options.signal);
  }

  async deleteStream(streamId: string): Promise<void> {
    if (streamId === ERASED_STREAMS_STREAM) throw new Error(`${ERASED_STREAMS_STREAM} cannot be deleted`);
    // 1. Record the erasure (idempotent: deterministic event id): $all readers hide the stream from now on.
    await this.client.appendToStream(
      ERASED_STREAMS_STREAM,
      jsonEvent({
        id: uuidV5(`erased:${streamId}`, ADAPTER_NAMESPACE),
        type: STREAM_ERASED_EVENT,
        data: { streamId, erasedAt: this.clock().toISOString() },
      }),
      { expectedRevision: ANY },
    );
    this.erased.add(streamId);
    // 2. Tombstone (hard delete): reads and appends fail with StreamDeleted from now on.
    try {
      await this.client.tombstoneStream(streamId, { expectedRevision: ANY });
    } catch (error) {
      if (error instanceof StreamDeletedError || error instanceof StreamNotFoundError) return;
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.dispose();
  }

  // --- internals -------------------------------------------------------------------------------------------

  /** User events only: no system streams or types, no bookkeeping, nothing of an erased stream. */
  private isVisible(record: EsdbRecord): boolean {
    if (isSystemRecord(record)) return false;
    if (record.streamId === ERASED_STREAMS_STREAM) {
      this.noteErasureRecord(record);
      return false;
    }
    return !this.erased.has(record.streamId);
  }

  private noteErasureRecord(record: EsdbRecord): void {
    const streamId = erasedStreamOf(record);
    if (streamId !== null) this.erased.add(streamId);
  }

  /** Reads `_erased-streams` from where the last refresh stopped. Single-flight. */
  private refreshErased(): Promise<void> {
    if (this.erasedRefresh) return this.erasedRefresh;
    const run = (async () => {
      try {
        const read = this.client.readStream(ERASED_STREAMS_STREAM, {
          direction: FORWARDS,
          fromRevision: this.erasedRevision + 1n,
        });
        for await (const resolved of read) {
          const record = resolved.event as EsdbRecord | undefined;
          if (!record) continue;
          this.noteErasureRecord(record);
          if (record.revision > this.erasedRevision) this.erasedRevision = record.revision;
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return;
        throw error;
      }
    })();
    this.erasedRefresh = run.finally(() => {
      this.erasedRefresh = null;
    });
    return this.erasedRefresh;
  }

  private async readLastRecord(streamId: string): Promise<EsdbRecord | null> {
    try {
      const read = this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
      for await (const resolved of read) {
        const record = resolved.event as EsdbRecord | undefined;
        if (record) return record;
      }
      return null;
    } catch (error) {
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return null;
      throw error;
    }
  }

  private async readRecordAt(streamId: string, revision: bigint): Promise<EsdbRecord | null> {
    const records = await this.readRecords(streamId, revision, 1);
    return records[0] ?? null;
  }

  private async readRecords(streamId: string, fromRevision: bigint, count: number): Promise<EsdbRecord[]> {
    const out: EsdbRecord[] = [];
    try {
      const read = this.client.readStream(streamId, { direction: FORWARDS, fromRevision, maxCount: count });
      for await (const resolved of read) {
        const record = resolved.event as EsdbRecord | undefined;
        if (record) out.push(record);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError || error instanceof StreamDeletedError) return [];
      throw error;
    }
    return out;
  }

  /**
   * After a version conflict: are exactly these events already stored where this append would have put them?
   * Then the append is a retry that already succeeded, and its original result is returned.
   */
  private async findIdempotentAppend(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
  ): Promise<AppendResult | null> {
    let first: bigint;
    if (expected === 'no_stream') first = 0n;
    else if (typeof expected === 'number') first = BigInt(expected) + 1n;
    else return null;
    const stored = await this.readRecords(streamId, first, events.length);
    if (stored.length !== events.length) return null;
    for (let i = 0; i < events.length; i += 1) {
      if (stored[i]!.id.toLowerCase() !== esdbEventId(events[i]!.id).toLowerCase()) return null;
    }
    const last = stored[stored.length - 1]!;
    if (!last.position) return null;
    return {
      nextExpectedVersion: Number(last.revision),
      position: encodePosition(last.position.commit, last.position.prepare),
    };
  }

  private async *subscription(
    after: GlobalPosition | null,
    signal?: AbortSignal,
  ): AsyncGenerator<RecordedEvent> {
    let cursor: GlobalPosition | null = after;
    let attempt = 0;
    let lastRefresh: number;
    while (!signal?.aborted && !this.closed) {
      let subscription: AllStreamSubscription | null = null;
      let failure: unknown = null;
      try {
        await this.refreshErased();
        lastRefresh = Date.now();
        subscription = this.client.subscribeToAll({
          fromPosition: toReadPosition(cursor, START),
          filter: excludeSystemEvents(),
        });
        // Errors after we stopped reading must not crash the process; while reading, the iterator throws.
        subscription.on('error', () => undefined);
        const iterator = subscription[Symbol.asyncIterator]();
        for (;;) {
          const next = await nextOrAbort(iterator, signal);
          if (next.done) break; // the server ended the subscription: resubscribe
          const record = next.value.event as EsdbRecord | undefined;
          if (!record?.position) continue;
          const position = encodePosition(record.position.commit, record.position.prepare);
          if (comparePositions(position, cursor) <= 0) continue; // never re-deliver
          if (Date.now() - lastRefresh >= ERASED_REFRESH_INTERVAL_MS) {
            await this.refreshErased();
            lastRefresh = Date.now();
          }
          const visible = this.isVisible(record);
          cursor = position;
          attempt = 0;
          if (visible) yield toRecordedEvent(record, position);
        }
      } catch (error) {
        if (error instanceof Aborted || signal?.aborted) return;
        if (error instanceof AccessDeniedError || error instanceof InvalidArgumentError) throw error;
        failure = error;
      } finally {
        if (subscription) {
          await subscription.unsubscribe().catch(() => undefined);
          subscription.destroy();
        }
      }
      if (signal?.aborted || this.closed) return;
      const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** attempt);
      attempt = Math.min(attempt + 1, 16);
      this.logger?.warn('EventStoreDB $all subscription dropped; resubscribing', {
        after: cursor,
        delayMs: delay,
        error: describeFailure(failure),
      });
      try {
        await sleep(delay, signal);
      } catch {
        return;
      }
    }
  }
}

// --- mapping helpers ---------------------------------------------------------------------------------------

function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  switch (expected) {
    case 'no_stream':
      return NO_STREAM;
    case 'exists':
      return STREAM_EXISTS;
    case 'any':
      return ANY;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0)
        throw new Error(`invalid expected version ${expected}`);
      return BigInt(expected);
  }
}

/** The client reports "no stream" as the string `no_stream` (or, in some paths, as -1). */
function fromCurrentRevision(current: bigint | string): number | null {
  if (typeof current !== 'bigint') return null;
  return current < 0n ? null : Number(current);
}

function toReadPosition(position: GlobalPosition | null, fallback: typeof START | typeof END): ReadPosition {
  if (position === null) return fallback;
  const { major, minor } = decodePosition(position);
  return { commit: major, prepare: minor };
}

function esdbEventId(id: string): string {
  return UUID_PATTERN.test(id) ? id.toLowerCase() : uuidV5(id, ADAPTER_NAMESPACE);
}

function isSystemRecord(record: EsdbRecord): boolean {
  return record.streamId.startsWith('$') || record.type.startsWith('$');
}

function erasedStreamOf(record: EsdbRecord): string | null {
  if (record.type !== STREAM_ERASED_EVENT) return null;
  const data = record.data;
  if (
    typeof data === 'object' &&
    data !== null &&
    typeof (data as { streamId?: unknown }).streamId === 'string'
  ) {
    return (data as { streamId: string }).streamId;
  }
  return null;
}

function storedMetadata(event: NewEvent, recordedAt: string): StoredMetadata {
  const m = event.metadata;
  return {
    $correlationId: m.correlationId,
    $causationId: m.causationId,
    eventId: event.id,
    schemaVersion: event.schemaVersion,
    recordedAt,
    actor: m.actor,
    payer: m.payer,
    scope: m.scope,
    correlationId: m.correlationId,
    causationId: m.causationId,
  };
}

function toRecordedEvent(record: EsdbRecord, knownPosition?: GlobalPosition): RecordedEvent {
  const position =
    knownPosition ??
    (record.position ? encodePosition(record.position.commit, record.position.prepare) : undefined);
  if (position === undefined) {
    throw new Error(
      `EventStoreDB returned no position for ${record.streamId}@${record.revision} (server < 22.6?)`,
    );
  }
  const raw: Partial<StoredMetadata> =
    typeof record.metadata === 'object' &&
    record.metadata !== null &&
    !(record.metadata instanceof Uint8Array)
      ? (record.metadata as Partial<StoredMetadata>)
      : {};
  const metadata: EventMetadata = {
    actor: raw.actor ?? 'unknown',
    payer: raw.payer ?? 'system',
    scope: raw.scope ?? null,
    correlationId: raw.correlationId ?? raw.$correlationId ?? record.id,
    causationId: raw.causationId ?? raw.$causationId ?? record.id,
  };
  return {
    id: raw.eventId ?? record.id,
    type: record.type,
    schemaVersion: raw.schemaVersion ?? 1,
    data: record.data,
    metadata,
    streamId: record.streamId,
    streamVersion: Number(record.revision),
    position,
    recordedAt: raw.recordedAt ?? record.created.toISOString(),
  };
}

// --- async helpers -----------------------------------------------------------------------------------------

function nextOrAbort<T>(iterator: AsyncIterator<T>, signal?: AbortSignal): Promise<IteratorResult<T>> {
  if (!signal) return iterator.next();
  if (signal.aborted) return Promise.reject(new Aborted());
  return new Promise<IteratorResult<T>>((resolve, reject) => {
    const onAbort = () => reject(new Aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function describeFailure(failure: unknown): string {
  if (failure === null) return 'ended by the server';
  if (failure instanceof Error) return failure.message ? `${failure.name}: ${failure.message}` : failure.name;
  return String(failure);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new Aborted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
