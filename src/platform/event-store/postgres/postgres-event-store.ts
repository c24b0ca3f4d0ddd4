/**
 * The PostgreSQL event store: PGlite (embedded or through its socket) or a PostgreSQL server, behind the
 * SqlDatabase seam. SQL is valid on PostgreSQL 15 and on PGlite (PostgreSQL 18).
 *
 * Global order is (transaction id, sequence), and readAll only shows events whose transaction id is below the
 * xmin of the current snapshot, i.e. older than every transaction still running. A transaction that started
 * writing early but commits late therefore holds back everything ordered after it instead of being skipped
 * by a reader whose checkpoint already moved past later events (the technique Emmett uses). The price: the
 * visibility of new events waits for the longest write transaction open in the database, so keep write
 * transactions short.
 */
import type { ChangeSignals } from '../../database/change-signals.js';
import type { SqlDatabase, SqlDatabaseKind, SqlExecutor } from '../../database/sql-database.js';
import { isStorageDamage } from '../../database/storage-damage.js';
import {
  StreamDeleted,
  WrongExpectedVersion,
  AppendConditionFailed,
  type AppendOptions,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type StreamErasure,
  type SubscribeAllOptions,
} from '../event-store.port.js';
import { comparePositions, decodePosition, encodePosition, type GlobalPosition } from '../global-position.js';
import type { EventLogIntegrity, LegacyEventRewriter } from '../event-log-integrity.js';
import { sealAppend, ZERO_HASH_HEX } from '../event-hash.js';
import {
  assertAppendable,
  assertPositiveLimit,
  encodeExpectedVersion,
  eventsParameter,
  storedEvent,
} from './append-parameters.js';
import { SCHEMA_LOCK_KEY, SCHEMA_STATEMENTS } from './event-store-schema.js';
import { SubscriptionTail } from './subscription-tail.js';
import { hashLegacyEvents, sealedHead, sealVisibleEvents } from './postgres-event-chain.js';
import { verifyPostgresChain } from './postgres-chain-verifier.js';

export interface PostgresEventStoreOptions {
  /** Source of `recordedAt`; defaults to the system clock. */
  readonly clock?: () => Date;
  /** How often a caught-up subscriber looks for events appended by other processes (default 100 ms). */
  readonly pollIntervalMs?: number;
  /**
   * Awaited after an append of this instance wakes a caught-up subscriber, before it reads: the service lets
   * the request that appended answer first. It must resolve on its own (bounded); none by default.
   */
  readonly wakeGate?: () => Promise<void>;
  /**
   * The wake channel (ADR 88): this instance's appends are signalled on it, and other instances' appends wake its
   * subscribers. When it carries other processes' signals (`crossProcess`), polls that find nothing back off to
   * `safetyPollMs`; without it they back off to 20 times the poll interval (ADR 86).
   */
  readonly changes?: ChangeSignals;
  /** The slowest poll while the wake channel carries other processes' appends (default 10 s). */
  readonly safetyPollMs?: number;
  /** Applied to events written before the hash chain, in the transaction that hashes them at init. */
  readonly legacyEventRewriters?: readonly LegacyEventRewriter[];
  /**
   * Benchmarks only: append through this function (the append of before the chain, installed by the benchmark),
   * to measure what the chain costs in the same run. Never set in the service.
   */
  readonly unchainedAppendFunction?: string;
}

const SUBSCRIPTION_PAGE_SIZE = 500;
/** Events the shared subscription tail keeps (ADR 104); a subscriber further behind reads the log itself. */
const SUBSCRIPTION_TAIL_EVENTS = 2_000;
const RETRY_INITIAL_DELAY_MS = 50;
const RETRY_MAX_DELAY_MS = 2_000;
/** Streams whose last hash an instance remembers (about 100 bytes each). */
const REMEMBERED_STREAM_HASHES = 10_000;
/** Without a wake channel, polls that find nothing come at most this many times less often than the interval. */
const IDLE_POLLS_SLOWER = 20;
/** With one, they come down to this: only a lost signal waits for it. */
const SAFETY_POLL_MS = 10_000;

/** Erased events keep their rows (and hashes) for the chain, but no reader sees them. */
const NOT_ERASED = `e.erased_at IS NULL`;

const EVENT_COLUMNS = `e.stream_id, e.stream_version::text AS stream_version, e.event_id::text AS event_id, e.type,
  e.schema_version, e.data, e.metadata, e.recorded_at, e.tx_id::text AS tx_id, e.seq::text AS seq`;

/** Only transactions older than every running one are finished, so only their events are safe to show. */
const VISIBLE = `e.tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot()))`;

interface EventRow {
  stream_id: string;
  stream_version: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: (Partial<EventMetadata> & Record<string, unknown>) | null;
  recorded_at: string;
  tx_id: string;
  seq: string;
}

const CONDITION_FAILED = 'condition_failed:';

interface AppendRow {
  /** `condition_failed:<stream>` names the condition stream that moved (ADR 0128). */
  outcome:
    'ok' | 'idempotent' | 'conflict' | 'deleted' | 'event_id_in_other_stream' | `condition_failed:${string}`;
  last_version: string | null;
  last_tx_id: string | null;
  last_seq: string | null;
  /**
   * Hex: PGlite parses bytea results a byte at a time in JavaScript; hex text is decoded natively. NULL from an
   * ok append when es_append took the stream hashes chained by this instance (it has the last one).
   */
  last_stream_hash: string | null;
}

export class PostgresEventStore implements EventStore {
  readonly kind: SqlDatabaseKind;

  private readonly clock: () => Date;
  private readonly pollIntervalMs: number;
  private readonly wakeGate: (() => Promise<void>) | undefined;
  private readonly legacyEventRewriters: readonly LegacyEventRewriter[];
  private readonly unchainedAppendFunction: string | undefined;
  /** Aborted by close(): ends every subscription of this instance. */
  private readonly closing = new AbortController();
  /** Bumped by every committed append of this instance, so a subscriber cannot miss a wake-up while reading. */
  private appendGeneration = 0;
  private readonly appendWaiters = new Set<() => void>();
  /** The last stream hash of streams this instance appended to (bounded; a stale entry only costs the SQL path). */
  private readonly lastStreamHashes = new Map<string, { version: number; hash: string }>();
  /** Subscribers waiting for the next poll, and the one timer that wakes them. */
  private readonly pollWaiters = new Set<() => void>();
  private pollTimer: NodeJS.Timeout | undefined;
  private pollDelayMs: number;
  /**
   * The last event this instance appended, until a subscription delivers it. It can be hidden behind an older
   * transaction (VISIBLE) for a while, and a request may be waiting for it (read-your-writes): meanwhile polls
   * back off only to IDLE_POLLS_SLOWER intervals, never to the safety interval.
   */
  private undeliveredAppend: GlobalPosition | null = null;
  /** When another instance last signalled an append: for a while polls back off from the interval (ADR 104). */
  private signalledElsewhereAt = -Infinity;
  /** The slowest poll: the safety interval with a wake channel, IDLE_POLLS_SLOWER intervals without. */
  private readonly slowestPollMs: number;
  private readonly changes: ChangeSignals | undefined;
  private readonly stopListening: () => void;
  /** Bumped by every poll, so a subscriber woken by one reads the log instead of the tail's memory of its end. */
  private pollEpoch = 0;
  /** The events the subscriptions last read, shared by all of them (ADR 104). */
  private readonly tail = new SubscriptionTail(
    async (after, limit) => {
      const page = await this.readPage({ after, limit });
      if (page.length > 0) this.sawEvents(page.at(-1)!.position);
      return page;
    },
    SUBSCRIPTION_PAGE_SIZE,
    SUBSCRIPTION_TAIL_EVENTS,
  );

  constructor(
    private readonly db: SqlDatabase,
    options: PostgresEventStoreOptions = {},
  ) {
    this.kind = db.kind;
    this.clock = options.clock ?? (() => new Date());
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.pollDelayMs = this.pollIntervalMs;
    this.changes = options.changes;
    this.slowestPollMs = this.changes?.crossProcess
      ? Math.max(options.safetyPollMs ?? SAFETY_POLL_MS, this.pollIntervalMs)
      : this.pollIntervalMs * IDLE_POLLS_SLOWER;
    // Another instance appended (or the channel reconnected and may have missed it): poll now.
    this.stopListening =
      this.changes?.subscribe('appended', (origin) => {
        if (origin !== 'here') this.pollNow();
      }) ?? (() => undefined);
    this.wakeGate = options.wakeGate;
    this.legacyEventRewriters = options.legacyEventRewriters ?? [];
    this.unchainedAppendFunction = options.unchainedAppendFunction;
  }

  readonly integrity: EventLogIntegrity = {
    seal: () => sealVisibleEvents(this.db),
    sealedHead: () => sealedHead(this.db),
    verify: (options) => verifyPostgresChain(this.db, options),
  };

  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Concurrent CREATE ... IF NOT EXISTS / CREATE OR REPLACE can still collide in the catalogs.
      await tx.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`);
      for (const statement of SCHEMA_STATEMENTS) await tx.query(statement);
    });
    // A log written before the chain: hashed once (after the rewriters), then sealed. Idempotent.
    if ((await hashLegacyEvents(this.db, this.legacyEventRewriters)) > 0) await this.integrity.seal();
  }

  /**
   * ANALYZE of the log (ADR 0124). Until its statistics cover a log written faster than autovacuum analyzes it,
   * the planner estimates a page after a position at a few dozen rows (erased_at IS NULL at its default
   * selectivity) and reads it by sorting every later event: measured 117 ms against 2.6 ms a page of 5,000 on
   * 100,000 events, a cost that grows with the log's length for every page of a rebuild.
   */
  async refreshReadStatistics(): Promise<void> {
    try {
      await this.db.query('ANALYZE es_events');
    } catch {
      // Statistics only speed the reads up; a role without the right to analyze reads as before.
    }
  }

  async append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const result = await this.appendWithin(this.db, streamId, events, options);
    if (comparePositions(result.position, this.undeliveredAppend) > 0)
      this.undeliveredAppend = result.position;
    this.wakeSubscribers();
    return result;
  }

  /**
   * The same append inside the caller's transaction (`executor` from SqlDatabase.transaction). The events
   * become visible when that transaction commits; subscribers of this instance notice on their next poll.
   */
  async appendWithin(
    executor: SqlExecutor,
    streamId: string,
    events: readonly NewEvent[],
    options: AppendOptions,
  ): Promise<AppendResult> {
    assertAppendable(events);
    const { mode, version } = encodeExpectedVersion(options.expectedVersion);
    const recordedAt = this.clock().toISOString();
    // Where this instance knows the stream's last hash (its own last append, or a new stream), it chains the
    // stream hashes too; es_append takes them only when that hash is still the stored one.
    const known =
      options.expectedVersion === 'no_stream'
        ? { version: -1, hash: ZERO_HASH_HEX }
        : typeof options.expectedVersion === 'number'
          ? this.lastStreamHashes.get(streamId)
          : undefined;
    const previous =
      known && known.version === (options.expectedVersion === 'no_stream' ? -1 : options.expectedVersion)
        ? known
        : undefined;
    // Salts, payload digests and content hashes are computed here (ADR 0081), as hex (ADR 0102); es_append
    // chains the stream hashes under the stream lock when they were not chained here, in the same round trip.
    const sealed = this.unchainedAppendFunction ? null : sealAppend(streamId, events, recordedAt, previous);
    const conditions = options.conditions ?? [];
    if (conditions.length > 0 && !sealed) throw new Error('the unchained append takes no conditions');
    // Without conditions the seven-parameter call: on PGlite every parameter costs, and appends are the hot path.
    const { rows } = await executor.query<AppendRow>(
      sealed
        ? // Hashes travel as hex text both ways: PGlite serializes and parses bytea a byte at a time in JavaScript.
          `SELECT outcome, last_version::text AS last_version, last_tx_id, last_seq,
                  encode(last_stream_hash, 'hex') AS last_stream_hash
             FROM es_append($1, $2::smallint, $3::bigint, $4::jsonb, $5, decode($6, 'hex'), decode($7, 'hex')${
               conditions.length > 0 ? ', $8::jsonb' : ''
             })`
        : `SELECT outcome, last_version::text AS last_version, last_tx_id, last_seq, NULL AS last_stream_hash
             FROM ${this.unchainedAppendFunction}($1, $2::smallint, $3::bigint, $4::jsonb, $5)`,
      sealed
        ? [
            streamId,
            mode,
            version,
            eventsParameter(events, sealed),
            recordedAt,
            sealed.seals,
            sealed.lastStreamHash === undefined ? null : previous!.hash,
            ...(conditions.length > 0
              ? [
                  JSON.stringify(
                    conditions.map((condition) => ({ s: condition.streamId, v: condition.version })),
                  ),
                ]
              : []),
          ]
        : [streamId, mode, version, JSON.stringify(events.map(storedEvent)), recordedAt],
    );
    const row = rows[0];
    if (!row) throw new Error(`es_append returned no row for stream ${streamId}`);
    if (row.outcome.startsWith(CONDITION_FAILED)) {
      const unmet = row.outcome.slice(CONDITION_FAILED.length);
      throw new AppendConditionFailed(
        streamId,
        conditions.find((condition) => condition.streamId === unmet) ?? { streamId: unmet, version: null },
      );
    }
    switch (row.outcome) {
      case 'ok':
      case 'idempotent':
        // No hash back from an ok append: es_append took the stream hashes chained here.
        this.rememberStreamHash(
          streamId,
          row,
          row.outcome === 'ok' && row.last_stream_hash === null ? sealed?.lastStreamHash : undefined,
        );
        return {
          nextExpectedVersion: Number(row.last_version),
          position: encodePosition(row.last_tx_id!, row.last_seq!),
        };
      case 'conflict': {
        const actual = Number(row.last_version);
        throw new WrongExpectedVersion(streamId, options.expectedVersion, actual < 0 ? null : actual);
      }
      case 'deleted':
        throw new StreamDeleted(streamId);
      case 'event_id_in_other_stream':
        // Event ids are global: a command appending to several streams must derive distinct ids per stream.
        throw new Error(`append to ${streamId}: some event ids are already stored in another stream`);
      default:
        throw new Error(`es_append answered ${row.outcome} for stream ${streamId}`);
    }
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events e
        WHERE e.stream_id = $1 AND e.stream_version >= $2::bigint AND ${NOT_ERASED}
        ORDER BY e.stream_version
        LIMIT $3::bigint`,
      [streamId, options.fromVersion ?? 0, options.maxCount ?? null],
    );
    return rows.map(toRecordedEvent);
  }

  async streamVersion(streamId: string): Promise<number | null> {
    const { rows } = await this.db.query<{ version: string; deleted: boolean }>(
      `SELECT version::text AS version, deleted FROM es_streams WHERE stream_id = $1`,
      [streamId],
    );
    const row = rows[0];
    if (!row || row.deleted) return null;
    const version = Number(row.version);
    return version < 0 ? null : version;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    assertPositiveLimit(options.limit);
    return this.readPage(options);
  }

  private async readPage(options: ReadAllOptions): Promise<RecordedEvent[]> {
    if (options.after === null) {
      const { rows } = await this.db.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM es_events e WHERE ${VISIBLE} AND ${NOT_ERASED} ORDER BY e.tx_id, e.seq LIMIT $1`,
        [options.limit],
      );
      return rows.map(toRecordedEvent);
    }
    const { major, minor } = decodePosition(options.after);
    // xid8 has no cast from bigint on PostgreSQL 15: go through text.
    const { rows } = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events e
        WHERE ${VISIBLE} AND ${NOT_ERASED} AND (e.tx_id, e.seq) > ($1::text::xid8, $2::text::bigint)
        ORDER BY e.tx_id, e.seq LIMIT $3`,
      [major.toString(), minor.toString(), options.limit],
    );
    return rows.map(toRecordedEvent);
  }

  async readLast(limit: number): Promise<RecordedEvent[]> {
    assertPositiveLimit(limit);
    const { rows } = await this.db.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM es_events e WHERE ${VISIBLE} AND ${NOT_ERASED}
        ORDER BY e.tx_id DESC, e.seq DESC LIMIT $1`,
      [limit],
    );
    return rows.map(toRecordedEvent).reverse();
  }

  async headPosition(): Promise<GlobalPosition | null> {
    const { rows } = await this.db.query<{ tx_id: string; seq: string }>(
      `SELECT e.tx_id::text AS tx_id, e.seq::text AS seq FROM es_events e
        WHERE ${VISIBLE} AND ${NOT_ERASED} ORDER BY e.tx_id DESC, e.seq DESC LIMIT 1`,
    );
    const row = rows[0];
    return row ? encodePosition(row.tx_id, row.seq) : null;
  }

  async lastCommittedPosition(): Promise<GlobalPosition | null> {
    // No VISIBLE filter: a committed event above the snapshot xmin is hidden from readers only until the
    // older transaction ends, and a reader that then reaches it has seen everything committed before.
    const { rows } = await this.db.query<{ tx_id: string; seq: string }>(
      `SELECT e.tx_id::text AS tx_id, e.seq::text AS seq FROM es_events e WHERE ${NOT_ERASED}
        ORDER BY e.tx_id DESC, e.seq DESC LIMIT 1`,
    );
    const row = rows[0];
    return row ? encodePosition(row.tx_id, row.seq) : null;
  }

  async *subscribeAll(options: SubscribeAllOptions): AsyncGenerator<RecordedEvent> {
    const signal = options.signal
      ? AbortSignal.any([options.signal, this.closing.signal])
      : this.closing.signal;
    let lastDelivered = options.after;
    let failedReads = 0;
    while (!signal.aborted) {
      // Through the shared tail (ADR 104): subscribers hold the same event objects, and never change them.
      let page: readonly RecordedEvent[];
      let generationBeforeRead: number;
      try {
        ({ events: page, generation: generationBeforeRead } = await this.tail.page(
          lastDelivered,
          this.appendGeneration,
          this.pollEpoch,
        ));
        failedReads = 0;
      } catch (error) {
        // Damaged pages read the same way every time: the subscriber has to know, not wait forever.
        if (isStorageDamage(error)) throw error;
        // A dropped connection or a restarting server: retry from the last delivered event.
        const delay = Math.min(RETRY_INITIAL_DELAY_MS * 2 ** failedReads, RETRY_MAX_DELAY_MS);
        failedReads += 1;
        await sleep(delay, signal);
        continue;
      }
      for (const event of page) {
        if (signal.aborted) return;
        lastDelivered = event.position;
        if (this.undeliveredAppend && comparePositions(event.position, this.undeliveredAppend) >= 0)
          this.undeliveredAppend = null;
        yield event;
      }
      if (page.length < SUBSCRIPTION_PAGE_SIZE) {
        await this.waitForAppend(generationBeforeRead, signal);
      }
    }
  }

  async eraseStream(streamId: string, erasure: StreamErasure): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Marking first takes the stream lock, so an append in flight finishes before the erasure reads events.
      await tx.query(
        `INSERT INTO es_streams (stream_id, version, deleted) VALUES ($1, -1, true)
         ON CONFLICT (stream_id) DO UPDATE SET deleted = true`,
        [streamId],
      );
      // The payload and its salt go; the envelope, the digest and the hashes stay for the chain.
      await tx.query(
        `UPDATE es_events SET data = NULL, salt = NULL, erased_by = $2::uuid, erased_at = $3
          WHERE stream_id = $1 AND erased_at IS NULL`,
        [streamId, erasure.by, erasure.at],
      );
    });
    this.tail.clear();
  }

  /** Ends this instance's subscriptions. The SqlDatabase belongs to its owner, who closes it. */
  async close(): Promise<void> {
    this.closing.abort();
    this.stopListening();
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
  }

  private rememberStreamHash(streamId: string, row: AppendRow, chainedHere: string | undefined): void {
    const hash = chainedHere ?? row.last_stream_hash;
    if (!hash || row.last_version === null) return;
    this.lastStreamHashes.delete(streamId); // re-inserted last: the map's order is the eviction order
    this.lastStreamHashes.set(streamId, { version: Number(row.last_version), hash });
    if (this.lastStreamHashes.size > REMEMBERED_STREAM_HASHES)
      this.lastStreamHashes.delete(this.lastStreamHashes.keys().next().value!);
  }

  private wakeSubscribers(): void {
    this.changes?.signal('appended');
    this.appendGeneration += 1;
    this.pollDelayMs = this.pollIntervalMs;
    // A poll armed while idle may be a safety interval away; the events just appended can still be hidden
    // behind an older transaction, so the next polls must come at the interval again, not after it.
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    for (const wake of this.appendWaiters) wake();
    this.appendWaiters.clear();
    if (this.pollWaiters.size > 0) this.armPoll();
  }

  /**
   * Resolves on the next append of this instance, at the next poll, or on abort. One poll timer serves every
   * waiting subscriber, so subscribers at the head read one shared page per poll; polls that find nothing
   * come further apart (doubling up to slowestPollMs), and any event found or appended here brings them back to
   * the interval: an idle service rests. Another instance's append polls at once (pollNow).
   */
  private waitForAppend(generationBeforeRead: number, signal: AbortSignal): Promise<void> {
    if (this.appendGeneration !== generationBeforeRead || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        signal.removeEventListener('abort', done);
        this.appendWaiters.delete(woken);
        this.pollWaiters.delete(done);
        resolve();
      };
      const woken = (): void => {
        this.pollWaiters.delete(done);
        if (!this.wakeGate) return done();
        this.appendWaiters.delete(woken);
        this.wakeGate().then(done, done);
      };
      signal.addEventListener('abort', done, { once: true });
      this.appendWaiters.add(woken);
      this.pollWaiters.add(done);
      this.armPoll();
    });
  }

  private armPoll(): void {
    if (this.pollTimer) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      // Back off until a read finds events (sawEvents) or this instance appends (wakeSubscribers).
      const slowest = this.undeliveredAppend
        ? Math.min(this.slowestPollMs, this.pollIntervalMs * IDLE_POLLS_SLOWER)
        : this.slowestPollMs;
      this.pollDelayMs = Math.min(this.pollDelayMs * 2, slowest);
      this.wakePollWaiters();
    }, this.pollDelayMs);
    this.pollTimer.unref();
  }

  /**
   * Polls at once, and then again at the interval, backing off from there: the events signalled may still be
   * hidden behind an older transaction (VISIBLE), and the next polls find them when it ends.
   */
  private pollNow(): void {
    this.signalledElsewhereAt = Date.now();
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    this.pollDelayMs = this.pollIntervalMs;
    this.wakePollWaiters();
  }

  private wakePollWaiters(): void {
    this.pollEpoch += 1;
    const waiters = [...this.pollWaiters];
    this.pollWaiters.clear();
    for (const wake of waiters) wake();
  }

  /**
   * A read found events: polls come at the interval again, unless the wake channel carries every other instance's
   * appends, none was signalled in the last IDLE_POLLS_SLOWER intervals (its append may still be hidden behind an
   * older transaction) and this instance's own were all read: then nothing is known to be hidden, and a poll only
   * guards against a lost signal (ADR 104).
   */
  private sawEvents(last: GlobalPosition): void {
    if (comparePositions(last, this.undeliveredAppend) >= 0) this.undeliveredAppend = null;
    const rest =
      this.changes?.crossProcess === true &&
      !this.undeliveredAppend &&
      Date.now() - this.signalledElsewhereAt > this.pollIntervalMs * IDLE_POLLS_SLOWER;
    this.pollDelayMs = rest ? this.slowestPollMs : this.pollIntervalMs;
    if (rest && this.pollTimer) {
      clearTimeout(this.pollTimer);
      this.pollTimer = undefined;
      if (this.pollWaiters.size > 0) this.armPoll();
    }
  }
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  const { actor, payer, scope, correlationId, causationId, ...optional } = row.metadata ?? {};
  return {
    id: row.event_id,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: {
      ...optional,
      actor: actor ?? '',
      payer: payer ?? '',
      scope: scope ?? null,
      correlationId: correlationId ?? '',
      causationId: causationId ?? '',
    },
    streamId: row.stream_id,
    streamVersion: Number(row.stream_version),
    position: encodePosition(row.tx_id, row.seq),
    recordedAt: row.recorded_at,
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
