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
 * - Erasure: EventStoreDB keeps the events of deleted streams in $all until a scavenge runs. `eraseStream`
 *   therefore first records the stream in the adapter-owned stream `_erased-streams` (a regular, non-system
 *   stream so it needs no admin rights) and then tombstones the stream (a hard delete: it can never be
 *   written again, reads fail with StreamDeleted). readAll / subscribeAll / headPosition filter events of
 *   erased streams through an in-memory set that is loaded at init, updated on delete, refreshed
 *   incrementally (before each readAll / headPosition, at most once a second while a subscription runs) and
 *   whenever the log itself shows a new erasure record. Recording first means a crash between the two
 *   steps never leaves a stream visible; a retried eraseStream finishes the tombstone. Erasure is logical until
 *   a scavenge (ADR 95): `scavenge()` runs one and records what it covered, after which every instance stops
 *   tracking those streams, so the in-memory record holds the erasures since the last scavenge only.
 * - Retried `any` / `exists` appends (ADR 95): each attempt announces its slot in an append guard stream before
 *   taking it, so a retry finds the original even after a restart, a failover or many later appends.
 * - Tamper evidence (ADR 0079): each event's metadata carries its salt, payload digest, content hash and stream
 *   hash (event-hash.ts), the stream hash chained to the stored hash of the revision the append expects. With
 *   `any` / `exists` the adapter reads the stream's newest events, appends at exactly the last revision and, when
 *   another writer got there first, reads and appends again: the caller expressed no expectation. A retry of an
 *   append is recognised among those newest events (EventStoreDB's own dedupe for `any` does not apply at an exact
 *   revision). A caller's own stale version still fails with WrongExpectedVersion. `integrity.seal()` folds $all, in order, into chain records of
 *   `_event-chain` (appended with expected revisions: two sealers cannot fork it), and `integrity.verify()` walks
 *   $all against the hashes, the chain and the signed checkpoints (esdb-event-chain.ts). The port's
 *   `$checkpoints` stream is stored as `_chain-checkpoints` (a `$` stream needs admin rights and reads as system).
 */
import {
  AccessDeniedError,
  type AllStreamSubscription,
  ANY,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  InvalidArgumentError,
  jsonEvent,
  NO_STREAM,
  type ReadPosition,
  START,
  StreamDeletedError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import { sealEvent, ZERO_HASH } from '../event-hash.js';
import { uuidV5 } from '../event-id.js';
import {
  type ChainCheckpoint,
  type ChainHead,
  CHECKPOINT_STREAM,
  type EventLogIntegrity,
  type VerificationReport,
  type VerifyOptions,
} from '../event-log-integrity.js';
import {
  type AppendOptions,
  type AppendResult,
  type EventStore,
  type ExpectedVersion,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamErasure,
  StreamDeleted,
  AppendConditionFailed,
  type SubscribeAllOptions,
  WrongExpectedVersion,
} from '../event-store.port.js';
import { comparePositions, encodePosition, type GlobalPosition } from '../global-position.js';
import { Aborted, describeFailure, nextOrAbort, sleep } from './abortable.js';
import {
  CHAIN_RECORD_SIZE,
  CHAIN_RECORD_TYPE,
  CHAIN_STREAM,
  type ChainEntry,
  chainEntryOf,
  chainRecordHead,
  chainStreamHashes,
  decodeChainRecord,
  decodeCheckpoint,
  encodeChainRecord,
  eventIdOf,
  type LoggedEvent,
  nextChainRecord,
  storedStreamHashOf,
  type StreamErasureRecord,
  verifyChainWalk,
} from './esdb-event-chain.js';
import {
  ADAPTER_NAMESPACE,
  erasedStreamOf,
  esdbEventId,
  type EsdbRecord,
  fromCurrentRevision,
  isSystemRecord,
  logicalStreamOf,
  storedMetadata,
  storedStreamOf,
  STREAM_ERASED_EVENT,
  toExpectedRevision,
  toReadPosition,
  toRecordedEvent,
} from './esdb-mapping.js';
import {
  APPEND_ATTEMPT_EVENT,
  APPEND_GUARD_PREFIX,
  appendGuardStream,
  DEFAULT_CHUNK_SIZE,
  ERASURES_SCAVENGED_EVENT,
  guardedSlots,
  locateAppend,
  PendingErasures,
  scavengeDue,
} from './esdb-retries.js';

/** The adapter-owned stream that records erased streams (not a `$` system stream: no admin rights needed). */
export const ERASED_STREAMS_STREAM = '_erased-streams';

const READ_ALL_PAGE = 500;
const HEAD_PAGE = 50;
const ERASED_REFRESH_INTERVAL_MS = 1_000;
/**
 * Appends without an expectation that lost the race for the stream's end this many times in a row give up. Each
 * loss is another writer's success, so this bounds only the pathological: n racing writers need at most n tries.
 */
const UNEXPECTED_APPEND_ATTEMPTS = 100;
/** How many of a stream's newest events an append without expectation looks through for its own retry. */
const RECENT_APPEND_WINDOW = 64;

/** The adapter's own streams: never written, erased or shown through the port. */
function isAdapterStream(streamId: string): boolean {
  return (
    streamId === CHAIN_STREAM ||
    streamId === ERASED_STREAMS_STREAM ||
    streamId.startsWith(APPEND_GUARD_PREFIX)
  );
}

/** The client's HTTP helper (protected; the client itself uses it for its admin calls). */
type HttpRequest = <T>(method: 'POST' | 'GET', path: string, options: object) => Promise<T>;

export interface EventStoreDbLogger {
  warn(message: string, context?: Record<string, unknown>): void;
}

export interface EventStoreDbEventStoreOptions {
  /** Clock of the writer, for `recordedAt` (e.g. `() => clock.now()`). Defaults to the system clock. */
  readonly clock?: () => Date;
  /** Resubscription backoff: first delay and cap, in milliseconds. */
  readonly resubscribeBackoff?: { readonly initialMs: number; readonly maxMs: number };
  readonly logger?: EventStoreDbLogger;
  /**
   * Erased streams' events stay in EventStoreDB's files until a scavenge (ADR 95): once this many erasures wait for
   * one, the adapter starts `scavenge()` (`automatic`, needs an `$ops` / `$admins` user) or warns that one is due.
   * 0 turns both off. Default: 100 erasures, warn only.
   */
  readonly scavenge?: {
    readonly afterErasures?: number;
    readonly automatic?: boolean;
    readonly chunkSize?: bigint;
  };
}

/** What a completed `scavenge()` did. */
export interface ScavengeReport {
  readonly scavengeId: string;
  /** Erasures whose events the scavenge removed: the adapter no longer tracks them. */
  readonly erasuresCovered: number;
  /** Erasures still tracked (made after the scavenge started, or in the chunk it could not rewrite). */
  readonly erasuresPending: number;
}

export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb';

  private readonly client: EventStoreDBClient;
  private readonly clock: () => Date;
  private readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  private readonly logger: EventStoreDbLogger | undefined;

  /** Erased streams whose events may still be in $all, and how far `_erased-streams` has been read (-1n: nothing). */
  private readonly erased = new PendingErasures();
  private erasedRevision = -1n;
  private erasedRefresh: Promise<void> | null = null;
  private erasedLoaded = false;
  private readonly scavengeThreshold: number;
  private readonly scavengeAutomatic: boolean;
  private readonly chunkSize: bigint;
  private scavenging: Promise<ScavengeReport> | null = null;
  private closed = false;

  constructor(client: EventStoreDBClient, options: EventStoreDbEventStoreOptions = {}) {
    this.client = client;
    this.clock = options.clock ?? (() => new Date());
    this.backoff = options.resubscribeBackoff ?? { initialMs: 100, maxMs: 5_000 };
    this.logger = options.logger;
    this.scavengeThreshold = options.scavenge?.afterErasures ?? 100;
    this.scavengeAutomatic = options.scavenge?.automatic ?? false;
    this.chunkSize = options.scavenge?.chunkSize ?? DEFAULT_CHUNK_SIZE;
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
    if (isAdapterStream(streamId)) throw new Error(`${streamId} belongs to the EventStoreDB adapter`);
    if (this.erased.has(streamId)) throw new StreamDeleted(streamId);
    const expected = options.expectedVersion;
    const stored = storedStreamOf(streamId);
    // EventStoreDB appends to one stream at a time: conditions on others are read just before (ADR 0128), the
    // guarantee the read they replace gave, not the SQL stores' lock.
    for (const condition of options.conditions ?? []) {
      if ((await this.streamVersion(condition.streamId)) !== condition.version)
        throw new AppendConditionFailed(streamId, condition);
    }
    const recordedAt = this.clock().toISOString();
    const seals = events.map((event) => sealEvent(streamId, event, recordedAt));
    const exact = expected === 'no_stream' || typeof expected === 'number';
    const guardStream = exact
      ? null
      : appendGuardStream(
          stored,
          events.map((event) => esdbEventId(event.id)),
        );

    for (let attempt = 1; ; attempt += 1) {
      // The revision the events follow, and the stream hash they chain to.
      let revision: AppendExpectedRevision;
      let previous: Buffer = ZERO_HASH;
      let firstVersion = 0;
      if (exact) {
        revision = toExpectedRevision(expected);
        if (typeof expected === 'number') {
          const before = await this.readRecordAt(stored, BigInt(expected));
          previous = storedStreamHashOf(before?.metadata) ?? ZERO_HASH;
          firstVersion = expected + 1;
        }
      } else {
        // The guard first: an attempt that announced its slot after this read conflicts with ours below.
        const guard = await this.readGuard(guardStream!);
        const recent = await this.readRecentRecords(streamId, stored, RECENT_APPEND_WINDOW);
        const last = recent.at(-1);
        if (last === undefined) {
          if (expected === 'exists') throw new WrongExpectedVersion(streamId, expected, null);
          revision = NO_STREAM;
        } else {
          const original =
            this.findRecentAppend(streamId, events, expected, recent) ??
            (await this.findGuardedAppend(stored, events, guard.slots));
          if (original) return original;
          revision = last.revision;
          previous = storedStreamHashOf(last.metadata) ?? ZERO_HASH;
          firstVersion = Number(last.revision) + 1;
        }
        // Announce the slot before taking it: a retry, even after a restart, looks there (ADR 95).
        try {
          await this.client.appendToStream(
            guardStream!,
            jsonEvent({
              type: APPEND_ATTEMPT_EVENT,
              data: { stream: stored, firstRevision: String(firstVersion) },
            }),
            { expectedRevision: guard.revision ?? NO_STREAM },
          );
        } catch (error) {
          // A concurrent attempt of the same append announced first: look again.
          if (error instanceof WrongExpectedVersionError && attempt < UNEXPECTED_APPEND_ATTEMPTS) continue;
          throw error;
        }
      }
      const streamHashes = chainStreamHashes(
        previous,
        firstVersion,
        seals.map((seal) => seal.contentHash),
      );
      const payload = events.map((event, i) =>
        jsonEvent({
          id: esdbEventId(event.id),
          type: event.type,
          // JSON.stringify(undefined) is not JSON: store null instead.
          data: (event.data ?? null) as never,
          metadata: storedMetadata(streamId, event, recordedAt, {
            seal: seals[i]!,
            streamHash: streamHashes[i]!,
          }) as unknown as Record<string, unknown>,
        }),
      );

      let result: EsdbAppendResult;
      try {
        result = await this.client.appendToStream(stored, payload, { expectedRevision: revision });
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) {
          // The caller expected nothing: another writer took the end of the stream, chain to the new one.
          if (!exact && attempt < UNEXPECTED_APPEND_ATTEMPTS) continue;
          const original = exact ? await this.findIdempotentAppend(stored, events, expected) : null;
          if (original) return original;
          throw new WrongExpectedVersion(streamId, expected, fromCurrentRevision(error.actualVersion));
        }
        if (error instanceof StreamDeletedError) throw new StreamDeleted(streamId);
        throw error;
      }
      if (!result.success) {
        // Only when the connection string sets throwOnAppendFailure=false.
        if (!exact && attempt < UNEXPECTED_APPEND_ATTEMPTS) continue;
        const original = exact ? await this.findIdempotentAppend(stored, events, expected) : null;
        if (original) return original;
        throw new WrongExpectedVersion(streamId, expected, fromCurrentRevision(result.nextExpectedRevision));
      }
      return this.appendResult(stored, events.length, result);
    }
  }

  private async appendResult(stored: string, count: number, result: EsdbAppendResult): Promise<AppendResult> {
    const nextExpectedVersion = Number(result.nextExpectedRevision);
    if (count === 1 && result.position && result.position.commit === result.position.prepare) {
      return {
        nextExpectedVersion,
        position: encodePosition(result.position.commit, result.position.prepare),
      };
    }
    // Several events (or an idempotent retry, which carries no position): the last event's own position.
    const last = await this.readRecordAt(stored, result.nextExpectedRevision);
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
      `EventStoreDB returned no position for the append to ${logicalStreamOf(stored)} (server older than 22.6?)`,
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
      const read = this.client.readStream(storedStreamOf(streamId), {
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
    const last = await this.readLastRecord(storedStreamOf(streamId));
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

  async eraseStream(streamId: string, erasure: StreamErasure): Promise<void> {
    if (isAdapterStream(streamId)) throw new Error(`${streamId} cannot be deleted`);
    await this.refreshErased();
    // Erased and scavenged already (no longer pending): recording it again would only grow the record.
    if (!this.erased.has(streamId) && (await this.isTombstoned(streamId))) return;
    // 1. Record the erasure (idempotent: deterministic event id): $all readers hide the stream from now on.
    if (!this.erased.has(streamId))
      await this.client.appendToStream(
        ERASED_STREAMS_STREAM,
        jsonEvent({
          id: uuidV5(`erased:${streamId}`, ADAPTER_NAMESPACE),
          type: STREAM_ERASED_EVENT,
          data: { streamId, erasedAt: erasure.at, erasedBy: erasure.by },
        }),
        { expectedRevision: ANY },
      );
    this.erased.noteLocal(streamId);
    // 2. Tombstone (hard delete): reads and appends fail with StreamDeleted from now on. The events stay in the
    // log files, and in $all for a reader that does not filter them, until a scavenge (ADR 95).
    await this.tombstone(streamId);
    this.promptScavenge();
  }

  /**
   * The erased streams whose events a scavenge has not removed yet: until it runs, erasure is logical (their
   * events are hidden from every read of this adapter, but still in EventStoreDB's files and backups).
   */
  pendingErasures(): Promise<number> {
    return this.refreshErased().then(() => this.erased.size);
  }

  /**
   * Runs an EventStoreDB scavenge (`POST /admin/scavenge`, the connection's user needs `$ops` or `$admins`) and
   * waits for it; then records in `_erased-streams` which erasures it covered, so this and every other instance
   * stop tracking them. Every pending erasure is tombstoned again first (idempotent): a crash between recording
   * and tombstoning must not leave a stream the scavenge keeps. Single-flight.
   */
  scavenge(
    options: { readonly pollMs?: number; readonly signal?: AbortSignal } = {},
  ): Promise<ScavengeReport> {
    if (this.scavenging) return this.scavenging;
    this.scavenging = this.runScavenge(options.pollMs ?? 2_000, options.signal).finally(() => {
      this.scavenging = null;
    });
    return this.scavenging;
  }

  private async runScavenge(pollMs: number, signal?: AbortSignal): Promise<ScavengeReport> {
    await this.refreshErased();
    for (const streamId of this.erased.streams()) await this.tombstone(streamId);
    await this.refreshErased(); // positions of erasures made just now
    const head = await this.rawHead();
    const request = (this.client as unknown as { HTTPRequest: HttpRequest }).HTTPRequest;
    const started = await request<{ scavengeId?: string }>('POST', '/admin/scavenge', {});
    const scavengeId = started.scavengeId;
    if (!scavengeId) throw new Error('EventStoreDB started no scavenge (no scavengeId in its answer)');
    for (;;) {
      const result = await this.scavengeResult(scavengeId);
      if (result === 'Success') break;
      if (result !== null) throw new Error(`EventStoreDB scavenge ${scavengeId} ended: ${result}`);
      await sleep(pollMs, signal);
    }
    const before = this.erased.size;
    const covers = head === null ? null : this.erased.coveredBy(head, this.chunkSize);
    if (covers !== null) {
      await this.client.appendToStream(
        ERASED_STREAMS_STREAM,
        jsonEvent({
          id: uuidV5(`scavenged:${scavengeId}`, ADAPTER_NAMESPACE),
          type: ERASURES_SCAVENGED_EVENT,
          data: { scavengeId, coversRevision: covers.toString(), at: this.clock().toISOString() },
        }),
        { expectedRevision: ANY },
      );
      await this.refreshErased();
    }
    return { scavengeId, erasuresCovered: before - this.erased.size, erasuresPending: this.erased.size };
  }

  /** `$scavengeCompleted`'s result in `$scavenges-<id>`, or null while it runs. */
  private async scavengeResult(scavengeId: string): Promise<string | null> {
    for (const record of await this.readRecords(`$scavenges-${scavengeId}`, 0n, Number.MAX_SAFE_INTEGER)) {
      if (record.type !== '$scavengeCompleted') continue;
      const result = (record.data as { result?: unknown } | null)?.result;
      return typeof result === 'string' ? result : 'Success';
    }
    return null;
  }

  /** The commit position of the last record of $all, whatever it is. */
  private async rawHead(): Promise<bigint | null> {
    const read = this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 });
    for await (const resolved of read) if (resolved.event?.position) return resolved.event.position.commit;
    return null;
  }

  /** Warns (or starts a scavenge) once enough erasures wait for one. */
  private promptScavenge(): void {
    if (!scavengeDue(this.erased.size, this.scavengeThreshold) || this.scavenging) return;
    if (!this.scavengeAutomatic) {
      this.logger?.warn(
        "EventStoreDB keeps erased streams in its files until a scavenge: run one (the adapter's scavenge(), " +
          'or POST /admin/scavenge then scavenge() to record it)',
        { pendingErasures: this.erased.size },
      );
      return;
    }
    void this.scavenge().then(
      (report) => this.logger?.warn('EventStoreDB scavenge after erasures completed', { ...report }),
      (error: unknown) =>
        this.logger?.warn('EventStoreDB scavenge after erasures failed', { error: describeFailure(error) }),
    );
  }

  private async tombstone(streamId: string): Promise<void> {
    try {
      await this.client.tombstoneStream(streamId, { expectedRevision: ANY });
    } catch (error) {
      if (error instanceof StreamDeletedError || error instanceof StreamNotFoundError) return;
      throw error;
    }
  }

  private async isTombstoned(streamId: string): Promise<boolean> {
    try {
      const read = this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
      for await (const _ of read) return false;
      return false;
    } catch (error) {
      if (error instanceof StreamDeletedError) return true;
      if (error instanceof StreamNotFoundError) return false;
      throw error;
    }
  }

  /** The hash chain of this log (ADR 0079): sealing into `_event-chain`, and verification. */
  readonly integrity: EventLogIntegrity = {
    seal: () => this.sealChain(),
    sealedHead: () => this.sealedHead(),
    verify: (options) => this.verifyChain(options),
  };

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.dispose();
  }

  // --- internals -------------------------------------------------------------------------------------------

  /** User events only: no system streams or types, no bookkeeping, nothing of an erased stream. */
  private isVisible(record: EsdbRecord): boolean {
    if (isSystemRecord(record) || record.streamId === CHAIN_STREAM) return false;
    if (record.streamId.startsWith(APPEND_GUARD_PREFIX)) return false;
    if (record.streamId === ERASED_STREAMS_STREAM) {
      this.noteErasureRecord(record);
      return false;
    }
    return !this.erased.has(record.streamId);
  }

  private noteErasureRecord(record: EsdbRecord): void {
    this.erased.note(record);
  }

  /**
   * Reads `_erased-streams` from where the last refresh stopped; the first time, only back to the last scavenge
   * record (what came before it was scavenged: the pending record stays bounded). Single-flight.
   */
  private refreshErased(): Promise<void> {
    if (this.erasedRefresh) return this.erasedRefresh;
    const run = (async () => {
      try {
        if (!this.erasedLoaded) {
          const since: EsdbRecord[] = [];
          const back = this.client.readStream(ERASED_STREAMS_STREAM, {
            direction: BACKWARDS,
            fromRevision: END,
          });
          try {
            for await (const resolved of back) {
              const record = resolved.event as EsdbRecord | undefined;
              if (!record) continue;
              since.push(record);
              if (record.type === ERASURES_SCAVENGED_EVENT) break;
            }
          } finally {
            await back.cancel().catch(() => undefined);
          }
          for (const record of since.reverse()) {
            this.noteErasureRecord(record);
            if (record.revision > this.erasedRevision) this.erasedRevision = record.revision;
          }
          this.erasedLoaded = true;
        }
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
        if (error instanceof StreamNotFoundError) {
          this.erasedLoaded = true;
          return;
        }
        throw error;
      }
    })();
    this.erasedRefresh = run.finally(() => {
      this.erasedRefresh = null;
    });
    return this.erasedRefresh;
  }

  /** The newest `count` records of a stream, oldest first, for an append without expectation. */
  private async readRecentRecords(streamId: string, stored: string, count: number): Promise<EsdbRecord[]> {
    const out: EsdbRecord[] = [];
    try {
      const read = this.client.readStream(stored, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: count,
      });
      for await (const resolved of read) {
        const record = resolved.event as EsdbRecord | undefined;
        if (record) out.push(record);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      if (error instanceof StreamDeletedError) throw new StreamDeleted(streamId);
      throw error;
    }
    return out.reverse();
  }

  /**
   * An append without expectation goes at the exact end of the stream, where EventStoreDB's own idempotency
   * for `any` does not look: are these events among the stream's recent ones already (a retry)? Then their
   * original result; some of them but not exactly these: a conflict, as the server answers. A retry older than
   * the window is found through the append guard (findGuardedAppend, ADR 95).
   */
  private findRecentAppend(
    streamId: string,
    events: readonly NewEvent[],
    expected: ExpectedVersion,
    recent: readonly EsdbRecord[],
  ): AppendResult | null {
    const found = locateAppend(
      events.map((event) => esdbEventId(event.id)),
      recent,
    );
    if (found.kind === 'absent') return null;
    if (found.kind === 'conflict' || !found.last.position)
      throw new WrongExpectedVersion(streamId, expected, Number(recent[recent.length - 1]!.revision));
    return {
      nextExpectedVersion: Number(found.last.revision),
      position: encodePosition(found.last.position.commit, found.last.position.prepare),
    };
  }

  /** The slots earlier attempts of this append announced, and the guard stream's revision (null: none yet). */
  private async readGuard(guardStream: string): Promise<{ revision: bigint | null; slots: bigint[] }> {
    const records = await this.readRecords(guardStream, 0n, Number.MAX_SAFE_INTEGER);
    return { revision: records.at(-1)?.revision ?? null, slots: guardedSlots(records) };
  }

  /** Beyond the recent window: are these events stored at a slot an earlier attempt announced? */
  private async findGuardedAppend(
    stored: string,
    events: readonly NewEvent[],
    slots: readonly bigint[],
  ): Promise<AppendResult | null> {
    const ids = events.map((event) => esdbEventId(event.id));
    for (const slot of slots) {
      const found = locateAppend(ids, await this.readRecords(stored, slot, events.length));
      if (found.kind === 'stored' && found.last.position)
        return {
          nextExpectedVersion: Number(found.last.revision),
          position: encodePosition(found.last.position.commit, found.last.position.prepare),
        };
    }
    return null;
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

  // --- the hash chain (ADR 0079) -----------------------------------------------------------------------------

  /** A record of $all as the chain sees it, or null for what the chain does not cover (system, bookkeeping). */
  private loggedEventOf(record: EsdbRecord): LoggedEvent | null {
    if (!record.position || isSystemRecord(record)) return null;
    if (isAdapterStream(record.streamId)) return null;
    return {
      streamId: logicalStreamOf(record.streamId),
      streamVersion: Number(record.revision),
      type: record.type,
      data: record.data,
      metadata: record.metadata,
      position: encodePosition(record.position.commit, record.position.prepare),
    };
  }

  /** The events of $all after `after` that the chain covers, in order, page by page. */
  private async *chainedEvents(after: GlobalPosition | null): AsyncGenerator<LoggedEvent> {
    let cursor = after;
    for (;;) {
      const read = this.client.readAll({
        direction: FORWARDS,
        fromPosition: toReadPosition(cursor, START),
        maxCount: READ_ALL_PAGE,
      });
      let seen = 0;
      let stopped = true;
      try {
        for await (const resolved of read) {
          seen += 1;
          const record = resolved.event as EsdbRecord | undefined;
          if (!record?.position) continue;
          const position = encodePosition(record.position.commit, record.position.prepare);
          if (comparePositions(position, cursor) <= 0) continue;
          cursor = position;
          const event = this.loggedEventOf(record);
          if (event) yield event;
        }
        stopped = false;
      } finally {
        if (stopped) await read.cancel().catch(() => undefined);
      }
      if (seen < READ_ALL_PAGE) return;
    }
  }

  private async lastChainRecord(): Promise<{ revision: bigint; head: ChainHead } | null> {
    const last = await this.readLastRecord(CHAIN_STREAM);
    if (!last) return null;
    const record = decodeChainRecord(last.data);
    if (!record)
      throw new Error(`the last record of ${CHAIN_STREAM} is not a chain record: run \`events verify\``);
    return { revision: last.revision, head: chainRecordHead(record) };
  }

  private async sealedHead(): Promise<ChainHead | null> {
    return (await this.lastChainRecord())?.head ?? null;
  }

  /**
   * Appends chain records for what $all holds past the sealed head, at the chain stream's expected revision:
   * when another sealer appended first, starts again from its head. An event without hashes (not written by
   * an append) stops sealing before it; verification names it.
   */
  private async sealChain(): Promise<ChainHead | null> {
    for (;;) {
      const last = await this.lastChainRecord();
      let head = last?.head ?? null;
      const entries: ChainEntry[] = [];
      let blocked = false;
      const events = this.chainedEvents(head?.position ?? null);
      try {
        for await (const event of events) {
          const entry = chainEntryOf(event);
          if (!entry) {
            blocked = true;
            break;
          }
          entries.push(entry);
          if (entries.length >= CHAIN_RECORD_SIZE) break;
        }
      } finally {
        await events.return(undefined);
      }
      if (entries.length === 0) return head;
      const record = nextChainRecord(head, entries);
      try {
        await this.client.appendToStream(
          CHAIN_STREAM,
          jsonEvent({
            id: uuidV5(`event-chain:${record.firstIndex}`, ADAPTER_NAMESPACE),
            type: CHAIN_RECORD_TYPE,
            data: encodeChainRecord(record) as never,
          }),
          { expectedRevision: last ? last.revision : NO_STREAM },
        );
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) continue;
        throw error;
      }
      head = chainRecordHead(record);
      if (blocked || entries.length < CHAIN_RECORD_SIZE) return head;
    }
  }

  private async verifyChain(options: VerifyOptions): Promise<VerificationReport> {
    const chainRecords = (await this.readRecords(CHAIN_STREAM, 0n, Number.MAX_SAFE_INTEGER))
      .filter((record) => !isSystemRecord(record))
      .map((record) => decodeChainRecord(record.data));
    const checkpoints = (
      await this.readRecords(storedStreamOf(CHECKPOINT_STREAM), 0n, Number.MAX_SAFE_INTEGER)
    )
      .filter((record) => !isSystemRecord(record))
      .map((record) => decodeCheckpoint(record.data))
      .filter((checkpoint): checkpoint is ChainCheckpoint => checkpoint !== null);
    const erasures = new Map<string, StreamErasureRecord>();
    for (const record of await this.readRecords(ERASED_STREAMS_STREAM, 0n, Number.MAX_SAFE_INTEGER)) {
      const streamId = erasedStreamOf(record);
      const data = record.data as { erasedBy?: unknown; erasedAt?: unknown };
      if (streamId !== null && !erasures.has(streamId))
        erasures.set(streamId, {
          erasedBy: typeof data.erasedBy === 'string' ? data.erasedBy : '',
          erasedAt: typeof data.erasedAt === 'string' ? data.erasedAt : '',
        });
    }
    return verifyChainWalk(
      {
        events: this.chainedEvents(options.from ?? null),
        chainRecords,
        erasures,
        checkpoints,
        isStored: async (entry) => {
          const record = await this.readRecordAt(storedStreamOf(entry.streamId), BigInt(entry.streamVersion));
          const event = record ? this.loggedEventOf(record) : null;
          return event !== null && eventIdOf(event) === entry.eventId;
        },
        storedStreamHash: async (streamId, version) =>
          storedStreamHashOf((await this.readRecordAt(storedStreamOf(streamId), BigInt(version)))?.metadata),
      },
      options,
    );
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
