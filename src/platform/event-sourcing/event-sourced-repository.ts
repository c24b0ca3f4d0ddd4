import type { SqlExecutor } from '../database/sql-database.js';
import type {
  AppendCondition,
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
import { SharedReads } from './shared-reads.js';
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
  /**
   * Group commit (ADR 91): the command waits in its stream's queue and is decided with the others queued there,
   * all their events in one append. Only for commands without a client version or an alongside write.
   */
  readonly groupCommit?: boolean;
  /**
   * Other streams the decision's context came from, at the versions it read (ADR 128): the append carries them
   * as conditions and fails with AppendConditionFailed when one moved, for the caller to decide again.
   */
  readonly conditions?: readonly AppendCondition[];
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

type AnyDecider = Decider<unknown, DomainEvent, unknown, unknown>;
type AnyResult = HandleResult<DomainEvent, unknown>;

/** A command waiting in its stream's queue for the next group (ADR 91). */
interface QueuedCommand {
  readonly decider: AnyDecider;
  readonly command: unknown;
  readonly context: unknown;
  readonly envelope: CommandEnvelope;
  readonly conflictRetries: number | undefined;
  readonly conditions: readonly AppendCondition[] | undefined;
  resolve(result: AnyResult): void;
  reject(error: unknown): void;
}

/** One command's outcome within a group: its events and the state and version after them, or its refusal. */
interface GroupDecision {
  readonly queued: QueuedCommand;
  readonly events: readonly DomainEvent[];
  readonly state: unknown;
  readonly version: number | null;
  /** Set when the decider refused the command: what it threw. */
  readonly refused?: { readonly reason: unknown };
}

/** The most commands one group appends: bounds the append's size and the wait of the last one in it. */
const MAX_GROUP = 200;

function settleDecisions(decisions: readonly GroupDecision[], position: GlobalPosition | null): void {
  for (const { queued, events, state, version, refused } of decisions) {
    if (refused) queued.reject(refused.reason);
    else queued.resolve({ events, state, version, position: events.length > 0 ? position : null });
  }
}

/** Conditions in a comparable form: commands group only with those that read the same versions. */
function conditionsKey(conditions: readonly AppendCondition[] | undefined): string {
  return conditions?.length
    ? JSON.stringify(conditions.map((condition) => [condition.streamId, condition.version]))
    : '';
}

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
  /** Commands waiting for their stream's next group (ADR 91), by stream. */
  private readonly queues = new Map<string, QueuedCommand[]>();
  private readonly reads = new SharedReads();
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
    if (options.groupCommit && options.expectedVersion === undefined && !options.alongside) {
      return this.enqueue(streamId, {
        decider: decider as unknown as AnyDecider,
        command,
        context,
        envelope,
        conflictRetries: options.conflictRetries,
        conditions: options.conditions,
      }) as Promise<HandleResult<TEvent, TState>>;
    }
    return this.locks.run(streamId, () =>
      this.handleNow(streamId, decider, command, context, envelope, options),
    );
  }

  /** One command decided and appended on its own; the caller holds the stream's lock. */
  private async handleNow<TCommand, TEvent extends DomainEvent, TState, TContext>(
    streamId: string,
    decider: Decider<TCommand, TEvent, TState, TContext>,
    command: TCommand,
    context: TContext | ((state: TState) => TContext),
    envelope: CommandEnvelope,
    options: HandleOptions,
  ): Promise<HandleResult<TEvent, TState>> {
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
          ...(options.conditions?.length ? { conditions: options.conditions } : {}),
        };
        const result = options.alongside
          ? await this.appendAlongside(streamId, newEvents, appendOptions, options.alongside)
          : await this.eventStore.append(streamId, newEvents, appendOptions);
        if (result.nextExpectedVersion <= (loaded.version ?? -1)) {
          // The store already held these events: a retried command. Nothing new happened.
          await this.assertRetryOfSameCommand(streamId, newEvents, result.nextExpectedVersion);
          return { events: [], state: loaded.state, version: loaded.version, position: result.position };
        }
        const state = events.reduce((s, e) => decider.evolve(s, e), loaded.state);
        const stateVersion = stateVersionOf(decider);
        this.remember(streamId, { state, version: result.nextExpectedVersion, stateVersion });
        await this.maybeSnapshot(streamId, state, loaded.version, result.nextExpectedVersion, stateVersion);
        return { events, state, version: result.nextExpectedVersion, position: result.position };
      } catch (error) {
        this.cache.delete(streamId);
        if (error instanceof WrongExpectedVersion && optimistic) continue;
        if (error instanceof WrongExpectedVersion && attempt < retries) {
          // Another process won the race; jitter so the two do not collide again at once.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(attempt + 1, 7)));
          continue;
        }
        throw error;
      }
    }
  }

  /**
   * Event ids come from the command id, so a store that already holds them reads as a retry. That is only true
   * when the held events are the ones this command decided: a command id reused for another command on the
   * same stream would otherwise be answered as done while nothing it decided was stored (a key handed out that
   * no store knows). Read on the retry path only.
   */
  private async assertRetryOfSameCommand(
    streamId: string,
    events: readonly NewEvent[],
    lastHeldVersion: number,
  ): Promise<void> {
    const held = await this.eventStore.readStream(streamId, {
      fromVersion: Math.max(0, lastHeldVersion - events.length + 1),
      maxCount: events.length,
    });
    const heldTypes = new Map(held.map((event) => [event.id, event.type]));
    const different = events.find(
      (event) => heldTypes.has(event.id) && heldTypes.get(event.id) !== event.type,
    );
    if (different) {
      throw new Error(
        `command id reused on ${streamId}: event ${different.id} is stored as ${heldTypes.get(different.id)}, ` +
          `this command decided ${different.type}; give every command its own id`,
      );
    }
  }

  /** Queues a command on its stream; the stream's next group decides it (ADR 91). */
  private enqueue(streamId: string, command: Omit<QueuedCommand, 'resolve' | 'reject'>): Promise<AnyResult> {
    return new Promise<AnyResult>((resolve, reject) => {
      let queue = this.queues.get(streamId);
      if (!queue) {
        const fresh: QueuedCommand[] = [];
        this.queues.set(streamId, fresh);
        queue = fresh;
        // Runs once the stream is free: whatever queued meanwhile is decided together.
        void this.locks.run(streamId, () => this.commitQueued(streamId, fresh));
      }
      queue.push({ ...command, resolve, reject });
    });
  }

  /** Decides and appends a queue's commands in groups (same decider, distinct command ids, bounded size). */
  private async commitQueued(streamId: string, queue: QueuedCommand[]): Promise<void> {
    // Commands arriving from now on start the next group, which waits for this one.
    if (this.queues.get(streamId) === queue) this.queues.delete(streamId);
    for (let start = 0; start < queue.length;) {
      const decider = queue[start]!.decider;
      // One append carries one set of conditions: a group holds the commands that read the same versions.
      const conditions = conditionsKey(queue[start]!.conditions);
      const commandIds = new Set<string>();
      let end = start;
      while (
        end < queue.length &&
        end - start < MAX_GROUP &&
        queue[end]!.decider === decider &&
        conditionsKey(queue[end]!.conditions) === conditions &&
        !commandIds.has(queue[end]!.envelope.commandId)
      ) {
        commandIds.add(queue[end]!.envelope.commandId);
        end++;
      }
      const group = queue.slice(start, end);
      start = end;
      try {
        if (group.length === 1) await this.commitAlone(streamId, group[0]!);
        else await this.commitGroup(streamId, decider, group);
      } catch (error) {
        // Settling an already settled promise does nothing: this reaches only the commands left waiting.
        for (const queued of group) queued.reject(error);
      }
    }
  }

  private async commitAlone(streamId: string, queued: QueuedCommand): Promise<void> {
    try {
      queued.resolve(
        await this.handleNow(streamId, queued.decider, queued.command, queued.context, queued.envelope, {
          ...(queued.conflictRetries !== undefined ? { conflictRetries: queued.conflictRetries } : {}),
          ...(queued.conditions ? { conditions: queued.conditions } : {}),
        }),
      );
    } catch (error) {
      queued.reject(error);
    }
  }

  /**
   * Group commit: the commands are decided in their order, each on the state the ones before it leave, and all
   * their events are appended in one call with the expected version. A refused command gets its own error and
   * the others go on. Nothing is settled before the append: if it conflicts, the whole group is decided again on
   * the stream as it is (the same retries as one command without a client version); if it fails otherwise, the
   * commands that decided events get that error and the others are decided again without them.
   */
  private async commitGroup(
    streamId: string,
    decider: AnyDecider,
    group: readonly QueuedCommand[],
  ): Promise<void> {
    let pending = group;
    const retries = Math.min(...group.map((queued) => queued.conflictRetries ?? 5));
    let cached = this.cached<unknown>(streamId, decider);
    for (let attempt = 0; pending.length > 0; attempt++) {
      const optimistic = cached !== undefined;
      const loaded = cached ?? (await this.load(streamId, decider));
      cached = undefined;
      if (optimistic) attempt--;
      const decisions = this.decideInOrder(decider, pending, loaded);
      const appending = decisions.filter((decision) => decision.events.length > 0);
      // As for one command: a refusal or a no-op on the cached state is decided again on a fresh read.
      if (optimistic && appending.length !== decisions.length) continue;
      if (appending.length === 0) {
        settleDecisions(decisions, null);
        return;
      }
      const newEvents: NewEvent[] = appending.flatMap((decision) =>
        decision.events.map((event, index) => ({
          id: eventIdFor(`${decision.queued.envelope.commandId}@${streamId}`, index),
          type: event.type,
          schemaVersion: this.upcasters.currentVersion(event.type),
          data: event.data,
          // Each command's own actor, payer, correlation and causation: the chain seals every event with its own.
          metadata: decision.queued.envelope.metadata,
        })),
      );
      let result: AppendResult;
      try {
        const conditions = pending[0]!.conditions;
        result = await this.eventStore.append(streamId, newEvents, {
          expectedVersion: loaded.version === null ? 'no_stream' : loaded.version,
          ...(conditions?.length ? { conditions } : {}),
        });
      } catch (error) {
        this.cache.delete(streamId);
        if (error instanceof WrongExpectedVersion) {
          if (optimistic) continue;
          if (error.actual === loaded.version) {
            // The stream did not move: some of these event ids are stored already (a retried command among
            // new ones). Each command on its own then, as without group commit.
            for (const queued of pending) await this.commitAlone(streamId, queued);
            return;
          }
          if (attempt < retries) {
            await new Promise((resolve) =>
              setTimeout(resolve, Math.random() * 2 ** Math.min(attempt + 1, 7)),
            );
            continue;
          }
        }
        for (const decision of appending) decision.queued.reject(error);
        pending = decisions
          .filter((decision) => decision.events.length === 0)
          .map((decision) => decision.queued);
        continue;
      }
      if (result.nextExpectedVersion <= (loaded.version ?? -1)) {
        // The store already held every one of these events: retried commands. Nothing new happened.
        try {
          await this.assertRetryOfSameCommand(streamId, newEvents, result.nextExpectedVersion);
        } catch (error) {
          for (const decision of decisions) decision.queued.reject(error);
          return;
        }
        for (const decision of decisions) {
          if (decision.refused) decision.queued.reject(decision.refused.reason);
          else
            decision.queued.resolve({
              events: [],
              state: loaded.state,
              version: loaded.version,
              position: decision.events.length > 0 ? result.position : null,
            });
        }
        return;
      }
      const last = decisions.at(-1)!;
      const stateVersion = stateVersionOf(decider);
      this.remember(streamId, { state: last.state, version: result.nextExpectedVersion, stateVersion });
      // Every command of the group waits for the group's last position: read-your-writes covers its own events.
      settleDecisions(decisions, result.position);
      await this.maybeSnapshot(
        streamId,
        last.state,
        loaded.version,
        result.nextExpectedVersion,
        stateVersion,
      );
      return;
    }
  }

  /** Each command decided on the state the commands before it leave; a refusal leaves the state as it was. */
  private decideInOrder(
    decider: AnyDecider,
    pending: readonly QueuedCommand[],
    loaded: LoadedStream<unknown>,
  ): GroupDecision[] {
    let state = loaded.state;
    let version = loaded.version;
    return pending.map((queued) => {
      try {
        const context =
          typeof queued.context === 'function'
            ? (queued.context as (state: unknown) => unknown)(state)
            : queued.context;
        const events = decider.decide(queued.command, state, context);
        for (const event of events) state = decider.evolve(state, event);
        if (events.length > 0) version = (version ?? -1) + events.length;
        return { queued, events, state, version };
      } catch (refusal) {
        return { queued, events: [], state, version, refused: { reason: refusal } };
      }
    });
  }

  /**
   * The state this process last knew of a stream, without reading it (undefined: not cached). Deciding with it
   * is safe only with the version as an append condition (ADR 128), which proves it still current.
   */
  known<TEvent extends DomainEvent, TState>(
    streamId: string,
    decider: Folding<TEvent, TState>,
  ): LoadedStream<TState> | undefined {
    const cached = this.cached<TState>(streamId, decider);
    return cached ? { state: cached.state, version: cached.version } : undefined;
  }

  /**
   * The current state of a stream (folded from the cache, a snapshot and the newer events). Concurrent loads of
   * one stream share a read that started after each of them was asked for (SharedReads).
   */
  load<TEvent extends DomainEvent, TState>(
    streamId: string,
    decider: Folding<TEvent, TState>,
    options: { readonly ownRead?: boolean } = {},
  ): Promise<LoadedStream<TState>> {
    // A read group's reads (ownRead) never wait for a shared read begun elsewhere: that one needs a pool
    // connection, and groups waiting so could hold the whole pool (a deadlock found under 32 clients, ADR 120).
    if (options.ownRead) return this.readAndFold(streamId, decider);
    return this.reads.read(streamId, decider, () => this.readAndFold(streamId, decider));
  }

  private async readAndFold<TEvent extends DomainEvent, TState>(
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
    // A read that began before an append of this process may end after it: it never replaces a newer state.
    const newer = this.cached<TState>(streamId, decider);
    if (!newer || (newer.version ?? -1) <= (version ?? -1))
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
    previousVersion: number | null,
    version: number,
    stateVersion: number,
  ): Promise<void> {
    const every = this.options.snapshotEvery;
    // Every `every` events: an append of several events may step over the multiple, so crossing it counts.
    if (!every || Math.floor((version + 1) / every) === Math.floor(((previousVersion ?? -1) + 1) / every))
      return;
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

  /**
   * Makes the snapshot collection ready before any request loads a stream. Made lazily, the first loads of a
   * restarted service ran its DDL (a transaction on a connection of its own) from inside their read groups: 32
   * concurrent searches held every pooled connection in their groups and each waited for one more (a deadlock
   * found by the load benchmark on a kept corpus).
   */
  prepare(): Promise<void> {
    return this.options.snapshotEvery ? this.ensureSnapshots() : Promise.resolve();
  }

  private ensureSnapshots(): Promise<void> {
    this.snapshotsReady ??= this.readStore.ensureCollection(SNAPSHOT_COLLECTION);
    return this.snapshotsReady;
  }
}
