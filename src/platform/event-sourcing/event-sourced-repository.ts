import type { SqlExecutor } from '../database/sql-database.js';
import type {
  AppendOptions,
  AppendResult,
  EventStore,
  NewEvent,
  RecordedEvent,
} from '../event-store/event-store.port.js';
import { WrongExpectedVersion } from '../event-store/event-store.port.js';
import { eventIdFor } from '../event-store/event-id.js';
import { readStreamPrefix } from '../event-store/stream-prefix.js';
import type { GlobalPosition } from '../event-store/global-position.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import type { CommandEnvelope } from './command-metadata.js';
import type { Decider, DomainEvent } from './decider.js';
import { KeyedMutex } from './keyed-mutex.js';
import { noUpcasters, type Upcasters } from './upcasters.js';

export interface HandleOptions {
  /**
   * The version the client read (If-Match or a body version). A stale one is a 409 for the client to
   * reconcile; it is never retried on the client's behalf.
   */
  readonly expectedVersion?: number;
  /** How many times a conflict with another writer is retried when the client sent no version (default 5). */
  readonly conflictRetries?: number;
  /** Written with the append (StreamDecision.alongside); run again on every attempt. */
  readonly alongside?: AlongsideWrite;
}

/**
 * A write that commits with a decision's append (a credential beside its event, ADR 65): given the append's SQL
 * transaction when the event store is SQL, else undefined, and then run before the append. It must be idempotent
 * and harmless when the append does not happen (a conflict, a retried command).
 */
export type AlongsideWrite = (within: SqlExecutor | undefined) => Promise<void>;

/** Appends with an alongside write in one transaction (built by the ServiceContext for the SQL event store). */
export type AppendAlongside = (
  streamId: string,
  events: readonly NewEvent[],
  options: AppendOptions,
  alongside: AlongsideWrite,
) => Promise<AppendResult>;

export interface HandleResult<TEvent, TState> {
  readonly events: readonly TEvent[];
  readonly state: TState;
  /** Stream version after the command (unchanged when it decided nothing). */
  readonly version: number | null;
  /** Global position of the last appended event (null when nothing was appended). */
  readonly position: GlobalPosition | null;
}

export interface LoadedStream<TState> {
  readonly state: TState;
  readonly version: number | null;
}

/** A folded state, with the shape (Decider.stateVersion) it was folded in. */
interface Cached<TState> extends LoadedStream<TState> {
  readonly stateVersion: number;
}

type Folding<TEvent extends DomainEvent, TState> = Pick<
  Decider<unknown, TEvent, TState, unknown>,
  'initialState' | 'evolve' | 'stateVersion'
>;

const stateVersionOf = (decider: { readonly stateVersion?: number }): number => decider.stateVersion ?? 1;

const SNAPSHOT_COLLECTION = 'stream_snapshots';

/**
 * Loads a stream (cached state plus the events after it, or a snapshot), decides, and appends with the
 * expected version. One command at a time per stream in this process, so concurrent requests for the same
 * stream queue instead of conflicting; across processes the expected version still guards every append.
 */
export class EventSourcedRepository {
  private readonly cache = new Map<string, Cached<unknown>>();
  private readonly locks = new KeyedMutex();
  private snapshotsReady: Promise<void> | undefined;

  constructor(
    private readonly eventStore: EventStore,
    private readonly readStore: ReadStore,
    private readonly options: {
      readonly cacheSize?: number;
      readonly snapshotEvery?: number;
      /** Stored events of an older schema version are read through these before any decider sees them. */
      readonly upcasters?: Upcasters;
      /** Appends with an alongside write atomically; without it the write runs first, then the append. */
      readonly appendAlongside?: AppendAlongside;
    } = {},
  ) {
    this.upcasters = options.upcasters ?? noUpcasters;
  }

  private readonly upcasters: Upcasters;

  async handle<TCommand, TEvent extends DomainEvent, TState, TContext>(
    streamId: string,
    decider: Decider<TCommand, TEvent, TState, TContext>,
    command: TCommand,
    context: TContext | ((state: TState) => TContext),
    envelope: CommandEnvelope,
    options: HandleOptions = {},
  ): Promise<HandleResult<TEvent, TState>> {
    return this.locks.run(streamId, async () => {
      const retries = options.expectedVersion === undefined ? (options.conflictRetries ?? 5) : 0;
      // The first try decides on the cached state without reading the stream: the append's expected version
      // proves it current. Anything but a successful append on a cached state (a refusal, a no-op, a version
      // the client did not send, a conflict) is decided again on a fresh read, which is not counted as a retry.
      let cached = this.cached<TState>(streamId, decider);
      for (let attempt = 0; ; attempt++) {
        const optimistic = cached !== undefined;
        const loaded = cached ?? (await this.load(streamId, decider));
        cached = undefined;
        if (optimistic) attempt--;
        if (options.expectedVersion !== undefined && options.expectedVersion !== (loaded.version ?? -1)) {
          if (optimistic) continue;
          throw new WrongExpectedVersion(streamId, options.expectedVersion, loaded.version);
        }
        const resolvedContext =
          typeof context === 'function' ? (context as (state: TState) => TContext)(loaded.state) : context;
        let events: readonly TEvent[];
        try {
          events = decider.decide(command, loaded.state, resolvedContext);
        } catch (refusal) {
          if (optimistic) continue;
          throw refusal;
        }
        if (events.length === 0) {
          if (optimistic) continue;
          return { events, state: loaded.state, version: loaded.version, position: null };
        }
        const newEvents: NewEvent[] = events.map((event, index) => ({
          // One command may touch several streams: ids are unique per (command, stream, index).
          id: eventIdFor(`${envelope.commandId}@${streamId}`, index),
          type: event.type,
          schemaVersion: this.upcasters.currentVersion(event.type),
          data: event.data,
          metadata: envelope.metadata,
        }));
        try {
          const appendOptions: AppendOptions = {
            expectedVersion: loaded.version === null ? 'no_stream' : loaded.version,
          };
          const result = options.alongside
            ? await this.appendAlongside(streamId, newEvents, appendOptions, options.alongside)
            : await this.eventStore.append(streamId, newEvents, appendOptions);
          if (result.nextExpectedVersion <= (loaded.version ?? -1)) {
            // The store already held these events: a retried command. Nothing new happened.
            return { events: [], state: loaded.state, version: loaded.version, position: result.position };
          }
          const state = events.reduce((s, e) => decider.evolve(s, e), loaded.state);
          const stateVersion = stateVersionOf(decider);
          this.remember(streamId, { state, version: result.nextExpectedVersion, stateVersion });
          await this.maybeSnapshot(streamId, state, result.nextExpectedVersion, stateVersion);
          return { events, state, version: result.nextExpectedVersion, position: result.position };
        } catch (error) {
          this.cache.delete(streamId);
          if (error instanceof WrongExpectedVersion && optimistic) continue;
          if (error instanceof WrongExpectedVersion && attempt < retries) {
            // Another process won the race; jitter so the two do not collide again at once.
            await new Promise((resolve) =>
              setTimeout(resolve, Math.random() * 2 ** Math.min(attempt + 1, 7)),
            );
            continue;
          }
          throw error;
        }
      }
    });
  }

  /** The current state of a stream (folded from the cache, a snapshot and the newer events). */
  async load<TEvent extends DomainEvent, TState>(
    streamId: string,
    decider: Folding<TEvent, TState>,
  ): Promise<LoadedStream<TState>> {
    const stateVersion = stateVersionOf(decider);
    let base = this.cached<TState>(streamId, decider);
    if (!base && this.options.snapshotEvery) base = await this.readSnapshot<TState>(streamId, stateVersion);
    const fromVersion = base?.version === null || base === undefined ? 0 : base.version + 1;
    const stored: RecordedEvent[] = await this.eventStore.readStream(streamId, { fromVersion });
    let state = base?.state ?? decider.initialState;
    for (const event of this.upcasters.upcastAll(stored))
      state = decider.evolve(state, { type: event.type, data: event.data } as TEvent);
    const version = stored.at(-1)?.streamVersion ?? base?.version ?? null;
    this.remember(streamId, { state, version, stateVersion });
    return { state, version };
  }

  private async appendAlongside(
    streamId: string,
    events: readonly NewEvent[],
    options: AppendOptions,
    alongside: AlongsideWrite,
  ): Promise<AppendResult> {
    if (this.options.appendAlongside)
      return this.options.appendAlongside(streamId, events, options, alongside);
    await alongside(undefined);
    return this.eventStore.append(streamId, events, options);
  }

  /**
   * A stream's state as it stood when `include` stopped holding (an `as_of` read): folded from the start,
   * without the cache or snapshots, which only know the present. Returns the events folded too. `prefix`: the
   * events `include` accepts are a prefix of the stream (a position), so the read stops at the first it refuses.
   */
  async loadUpTo<TEvent extends DomainEvent, TState>(
    streamId: string,
    decider: Folding<TEvent, TState>,
    include: (event: RecordedEvent) => boolean,
    options: { readonly prefix?: boolean } = {},
  ): Promise<LoadedStream<TState> & { readonly events: readonly RecordedEvent[] }> {
    const events = options.prefix
      ? await readStreamPrefix(this.eventStore, streamId, include)
      : (await this.eventStore.readStream(streamId)).filter(include);
    let state = decider.initialState;
    for (const event of this.upcasters.upcastAll(events))
      state = decider.evolve(state, { type: event.type, data: event.data } as TEvent);
    return { state, version: events.at(-1)?.streamVersion ?? null, events };
  }

  /** Forgets cached states (tests that rewrite history, erasure). */
  forget(streamId?: string): void {
    if (streamId) this.cache.delete(streamId);
    else this.cache.clear();
  }

  /** The cached state of a stream, unless it was folded in another shape than the decider's. */
  private cached<TState>(
    streamId: string,
    decider: { readonly stateVersion?: number },
  ): Cached<TState> | undefined {
    const cached = this.cache.get(streamId) as Cached<TState> | undefined;
    return cached?.stateVersion === stateVersionOf(decider) ? cached : undefined;
  }

  private remember(streamId: string, value: Cached<unknown>): void {
    this.cache.delete(streamId);
    this.cache.set(streamId, value);
    const limit = this.options.cacheSize ?? 10_000;
    while (this.cache.size > limit) this.cache.delete(this.cache.keys().next().value as string);
  }

  private async maybeSnapshot(
    streamId: string,
    state: unknown,
    version: number,
    stateVersion: number,
  ): Promise<void> {
    const every = this.options.snapshotEvery;
    if (!every || (version + 1) % every !== 0) return;
    await this.ensureSnapshots();
    await this.readStore
      .collection(SNAPSHOT_COLLECTION)
      .upsert({ id: streamId, version, stateVersion, state: state as Record<string, unknown> });
  }

  private async readSnapshot<TState>(
    streamId: string,
    stateVersion: number,
  ): Promise<Cached<TState> | undefined> {
    await this.ensureSnapshots();
    const snapshot = await this.readStore.collection(SNAPSHOT_COLLECTION).get(streamId);
    if (!snapshot) return undefined;
    // A snapshot of another state shape is ignored: the stream is folded again (snapshots taken before state
    // versions existed are shape 1).
    if (((snapshot.stateVersion as number | undefined) ?? 1) !== stateVersion) return undefined;
    // A snapshot of a stream that was erased since must not resurrect it.
    const current = await this.eventStore.streamVersion(streamId);
    if (current === null || current < (snapshot.version as number)) return undefined;
    return { state: snapshot.state as TState, version: snapshot.version as number, stateVersion };
  }

  private ensureSnapshots(): Promise<void> {
    this.snapshotsReady ??= this.readStore.ensureCollection(SNAPSHOT_COLLECTION);
    return this.snapshotsReady;
  }
}
