/**
 * The event store port. Adapters: PostgreSQL (PGlite embedded or a server) and EventStoreDB.
 * Every adapter passes the same contract suite (test/contract/event-store.contract.ts).
 */
import type { EventLogIntegrity } from './event-log-integrity.js';
import type { GlobalPosition } from './global-position.js';

export type { LegacyEventRewriter } from './event-log-integrity.js';

/** Who acted, on whose behalf, and why: carried by every event. */
export interface EventMetadata {
  /** The account that did it (or `system:<component>` for the service itself, `operator:<name>` for the CLI). */
  readonly actor: string;
  /** Who pays / on whose behalf: `account:<id>`, `organization:<id>` or `system`. */
  readonly payer: string;
  /** The exposure scope or client space the event belongs to, when any. */
  readonly scope: string | null;
  readonly correlationId: string;
  readonly causationId: string;
  /**
   * The credential that acted (ADR 68): `api_key:<keyId>`, `access_token:<tokenId>`, `session:<reference>`,
   * `operator_credential:<credentialId>`, `oauth_client:<clientId>` (ADR 106), or null for the service itself. Absent on events written before.
   */
  readonly credential?: string | null;
  /** Where the command came from: `api`, `session`, `mcp`, `cli` or `system`. */
  readonly surface?: EventSurface;
  /** The OAuth client the acting access token was issued to (an MCP client, a third-party app), when known. */
  readonly clientId?: string;
  /** The HTTP request id or the CLI invocation id. */
  readonly requestId?: string;
  /** Why an operator did it (`--reason`): required of money-moving and access-changing operator commands. */
  readonly reason?: string;
}

export type EventSurface = 'api' | 'session' | 'mcp' | 'cli' | 'system';

/** An event as a command handler produces it, before it is stored. */
export interface NewEvent<TType extends string = string, TData = unknown> {
  /** Deterministic: derived from the command id (see eventIdFor), so a retried command stores nothing twice. */
  readonly id: string;
  readonly type: TType;
  readonly schemaVersion: number;
  readonly data: TData;
  readonly metadata: EventMetadata;
}

/** An event as read back from the store. */
export interface RecordedEvent<TType extends string = string, TData = unknown> extends NewEvent<
  TType,
  TData
> {
  readonly streamId: string;
  /** 0-based position of the event inside its stream. */
  readonly streamVersion: number;
  /** Position in the global log, comparable with comparePositions. */
  readonly position: GlobalPosition;
  /** ISO-8601, from the injected clock of the writer. */
  readonly recordedAt: string;
}

/** Who erased a stream and when: an event id of the log (usually the erasure's audit record) and an ISO time. */
export interface StreamErasure {
  readonly by: string;
  readonly at: string;
}

/**
 * `no_stream`: the stream must not exist; `exists`: it must exist; `any`: no check;
 * a number: the stream's current version must be exactly that (0-based version of its last event).
 */
export type ExpectedVersion = 'no_stream' | 'exists' | 'any' | number;

export interface AppendOptions {
  readonly expectedVersion: ExpectedVersion;
  /**
   * Other streams the decision read, at the versions it read them (null: the stream did not exist): the append
   * happens only if each is still there, else AppendConditionFailed (ADR 0128). A decision that used another
   * stream's state (a ledger deciding with its account's plan) is then proven current without reading that stream
   * again. SQL stores check them under a shared lock on those streams in the append's transaction, so a write to
   * them waits for it; EventStoreDB reads their versions just before the append.
   */
  readonly conditions?: readonly AppendCondition[];
}

export interface AppendCondition {
  readonly streamId: string;
  readonly version: number | null;
}

export interface AppendResult {
  /** The stream's version after the append: pass it as the next expectedVersion. */
  readonly nextExpectedVersion: number;
  /** Global position of the last appended event. */
  readonly position: GlobalPosition;
}

export interface ReadStreamOptions {
  /** First stream version to return (default 0). */
  readonly fromVersion?: number;
  readonly maxCount?: number;
}

export interface ReadAllOptions {
  /** Return events strictly after this position; null means from the beginning. */
  readonly after: GlobalPosition | null;
  readonly limit: number;
}

export interface SubscribeAllOptions {
  readonly after: GlobalPosition | null;
  /** Aborting ends the iteration. */
  readonly signal?: AbortSignal;
}

export interface EventStore {
  /** Short adapter name for logs and status output (e.g. `pglite`, `postgres`, `eventstoredb`). */
  readonly kind: string;

  /** Creates tables or connects; idempotent. */
  init(): Promise<void>;

  /**
   * Appends events atomically. Throws WrongExpectedVersion when the stream is not at the expected version,
   * StreamDeleted when the stream was deleted. Appending events whose ids are all already stored in that
   * stream is a no-op that returns the original result (idempotent retry).
   */
  append(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;

  /** Events of one stream in stream order. A missing or deleted stream gives an empty list. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  /** Current version of a stream, or null when it has no events. */
  streamVersion(streamId: string): Promise<number | null>;

  /**
   * Events of all streams in global commit order, strictly after `after`. Never skips an event that commits
   * late: an event becomes visible only once every event ordered before it is visible too.
   */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;

  /**
   * Before reading the whole log in pages (a rebuild): brings what the store's query planner knows of the log up
   * to date, best effort (ADR 0124). Optional: stores whose reads do not depend on statistics leave it out.
   */
  refreshReadStatistics?(): Promise<void>;

  /** The newest `limit` events visible to readAll, oldest first (for `events tail`). */
  readLast(limit: number): Promise<RecordedEvent[]>;

  /** Position of the last event visible to readAll, or null for an empty store. */
  headPosition(): Promise<GlobalPosition | null>;

  /**
   * Position of the last event committed before this call, even while an older transaction still hides it
   * from readAll. Waiting until a reader reaches it is read-your-writes for everything committed so far
   * (frozen reports, the erasure sweeper); headPosition may lag behind it while such a transaction runs, so
   * it is the right start for a live tail but not for that wait.
   */
  lastCommittedPosition(): Promise<GlobalPosition | null>;

  /**
   * Live subscription to the global log: catches up, then follows. Pull-based (`for await`), so a slow
   * consumer applies backpressure. Resubscribes after a dropped connection from the last delivered position.
   */
  subscribeAll(options: SubscribeAllOptions): AsyncIterable<RecordedEvent>;

  /**
   * Erases a stream: its events disappear for readStream, readAll, subscriptions and replays, and later appends
   * are refused with StreamDeleted. Their payloads are removed but their envelopes and hashes stay, marked as
   * erased by `erasure.by` (the id of the event that records the erasure) at `erasure.at`, so the hash chain
   * stays whole (ADR 0062). Idempotent.
   */
  eraseStream(streamId: string, erasure: StreamErasure): Promise<void>;

  /** The hash chain and its verification, when the adapter keeps one (PostgreSQL). */
  readonly integrity?: EventLogIntegrity;

  close(): Promise<void>;
}

/** The typed optimistic-concurrency failure; mapped once to HTTP 409 `version_conflict`. */
export class WrongExpectedVersion extends Error {
  override readonly name = 'WrongExpectedVersion';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number | null,
  ) {
    super(`stream ${streamId} is at version ${actual ?? 'none'}, expected ${String(expected)}`);
  }
}

/** An append refused because a stream it was conditioned on (AppendOptions.conditions) moved: decide again. */
export class AppendConditionFailed extends Error {
  override readonly name = 'AppendConditionFailed';
  constructor(
    readonly streamId: string,
    readonly condition: AppendCondition,
  ) {
    super(
      `append to ${streamId}: ${condition.streamId} is no longer at version ${condition.version ?? 'none'}`,
    );
  }
}

/** Appending to a deleted (erased) stream. */
export class StreamDeleted extends Error {
  override readonly name = 'StreamDeleted';
  constructor(readonly streamId: string) {
    super(`stream ${streamId} was deleted`);
  }
}

export const EVENT_STORE = Symbol('EventStore');
