import type { ChangeSignals } from '../database/change-signals.js';
import { isStorageDamage } from '../database/storage-damage.js';
import type { EventStore, RecordedEvent } from '../event-store/event-store.port.js';
import { comparePositions, type GlobalPosition } from '../event-store/global-position.js';
import {
  CheckpointMoved,
  type Checkpoint,
  type Collection,
  type ReadDocument,
  type ReadStore,
} from '../read-store/read-store.port.js';
import type { Upcasters } from '../event-sourcing/upcasters.js';
import { BatchCommitter } from './batch-committer.js';
import { liveCarriedDocuments } from './batch-view.js';
import {
  CHECKPOINT_DUE,
  handlesAny,
  SKIPPED_CHECKPOINT_EVENTS,
  skippedCheckpointDue,
  sleep,
  sleepUntilDue,
  withEventsApplied,
} from './held-checkpoints.js';
import { batches, type Batch } from './batches.js';
import {
  checkpointKey,
  physicalCollectionName,
  validateDefinitions,
  type ProjectionDefinition,
} from './projection-definition.js';
import {
  generationsKey,
  ProjectionEngine,
  ProjectionHandlerFailed,
  type BatchOutcome,
  type ProjectionGenerations,
} from './projection-engine.js';

export type ProjectionState = 'starting' | 'catching_up' | 'live' | 'rebuilding' | 'retrying' | 'stopped';

/** What a projection last reported, also stored in the read store so other processes can show it. */
export interface ReportedProjectionState {
  readonly state: ProjectionState;
  readonly lastError: string | null;
  readonly reportedAt: string;
  readonly reportedBy: string;
}

export const projectionStateKey = (projection: string): string => `projection-state:${projection}`;

export interface ProjectionRunnerOptions {
  /** Events per batch (default 500). */
  readonly batchSize?: number;
  /**
   * How often a live run checks whether another process switched its generation (default 500 ms), when no wake
   * channel carries the other processes' switches.
   */
  readonly generationCheckMs?: number;
  /**
   * The wake channel (ADR 88): switches made here are signalled on it; when it carries other processes' signals
   * (`crossProcess`), their switches wake the generation check, which otherwise runs at `generationSafetyMs`.
   */
  readonly changes?: ChangeSignals;
  /** The generation check's safety interval with a cross-process wake channel (default 10 s). */
  readonly generationSafetyMs?: number;
  /** First and largest delay between retries after a storage failure. */
  readonly retryDelayMs?: readonly [number, number];
  readonly log?: (
    level: 'info' | 'warn' | 'error',
    message: string,
    fields?: Record<string, unknown>,
  ) => void;
  /** Identifies this process in reported states. */
  readonly instance?: string;
  /**
   * After a batch that drained the log, wait this long before the next one (default 5 ms), so a busy log is
   * applied in batches instead of one transaction per append per projection.
   */
  readonly lingerMs?: number;
  /** Awaited before a live run applies a batch: lets requests in flight go first (ForegroundActivity.quiet). */
  readonly beforeApply?: () => Promise<void>;
  /** Called after every batch a live run applied (metrics, tests). */
  readonly onBatchApplied?: (projection: string, outcome: BatchOutcome) => void;
  /** Rebuilds a projection whose definition version is newer than its live generation (blue/green). */
  readonly rebuildOutdated?: (definition: ProjectionDefinition) => Promise<void>;
  /**
   * The storage answered that its data is damaged (isStorageDamage): the projection stops, since retrying reads
   * the same damaged page forever, and this is told (the service stops and says what to do).
   */
  readonly onStorageDamaged?: (error: unknown, projection: string) => void;
  /** Stored events of an older schema version are read through these before any projection sees them. */
  readonly upcasters?: Upcasters;
}

interface LiveRun {
  readonly definition: ProjectionDefinition;
  generation: number;
  position: GlobalPosition | null;
  eventsApplied: number;
  state: ProjectionState;
  lastError: string | null;
  /** Ends the whole run. */
  controller: AbortController;
  /** Ends the current subscription only (generation switch, lost race): the run starts a new one. */
  attempt: AbortController | null;
  done: Promise<void>;
}

interface Waiter {
  readonly names: readonly string[];
  readonly position: GlobalPosition;
  readonly resolve: (reached: boolean) => void;
}

/**
 * Runs every projection live in this process: catch up from the checkpoint, then follow the log.
 * Queries resolve collections through it, so they always read the live generation.
 */
export class ProjectionRunner {
  readonly engine: ProjectionEngine;
  private readonly definitions: ReadonlyMap<string, ProjectionDefinition>;
  private readonly runs = new Map<string, LiveRun>();
  private waiters: Waiter[] = [];
  private stopped = false;
  /** Started and not stopped: this process follows the log for its projections. */
  private following = false;
  private readonly batchSize: number;
  private readonly generationCheckMs: number;
  private readonly retryDelayMs: readonly [number, number];
  private readonly instance: string;
  private readonly lingerMs: number;
  /** The live runs' batches commit together (one transaction per group instead of one per projection). */
  private readonly committer: BatchCommitter;
  /** One timer for every run: a single read of all generations per tick instead of one read per projection. */
  private generationWatch: NodeJS.Timeout | undefined;
  private stopWatchingSignals: (() => void) | undefined;

  constructor(
    readonly eventStore: EventStore,
    readonly readStore: ReadStore,
    definitions: readonly ProjectionDefinition[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    validateDefinitions(definitions);
    this.engine = new ProjectionEngine(eventStore, readStore, options.upcasters);
    this.definitions = new Map(definitions.map((definition) => [definition.name, definition]));
    this.batchSize = options.batchSize ?? 500;
    this.generationCheckMs = options.generationCheckMs ?? 500;
    this.retryDelayMs = options.retryDelayMs ?? [50, 5000];
    this.instance = options.instance ?? `pid ${process.pid}`;
    this.lingerMs = options.lingerMs ?? 5;
    this.committer = new BatchCommitter(readStore);
  }

  get projectionNames(): string[] {
    return [...this.definitions.keys()];
  }

  definition(name: string): ProjectionDefinition {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`unknown projection ${name}`);
    return definition;
  }

  /** Makes sure every projection has a live generation, then starts following the log. */
  async start(): Promise<void> {
    this.stopped = false;
    this.following = true;
    this.watchGenerations();
    for (const definition of this.definitions.values()) {
      const generations = await ensureLiveGeneration(this.engine, definition);
      if (generations.version < definition.version && this.options.rebuildOutdated) {
        // The live generation keeps serving what it has while the new version builds beside it.
        this.log(
          'info',
          `projection ${definition.name} is at version ${generations.version}, rebuilding to ${definition.version}`,
        );
        void this.options.rebuildOutdated(definition).then(
          () => this.startRun(definition),
          (error: unknown) =>
            this.log('error', `rebuild of ${definition.name} failed`, { error: String(error) }),
        );
        continue;
      }
      await this.startRun(definition);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.following = false;
    clearInterval(this.generationWatch);
    this.generationWatch = undefined;
    this.stopWatchingSignals?.();
    this.stopWatchingSignals = undefined;
    const runs = [...this.runs.values()];
    for (const run of runs) run.controller.abort();
    await Promise.all(runs.map((run) => run.done));
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }

  /** Stops one projection (as after a crash) without touching the others. */
  async stopProjection(name: string): Promise<void> {
    const run = this.runs.get(name);
    if (!run) return;
    run.controller.abort();
    await run.done;
    this.runs.delete(name);
  }

  /** (Re)starts one projection's live run, e.g. after a stopped handler was fixed. */
  async startProjection(name: string): Promise<void> {
    await this.stopProjection(name);
    await this.startRun(this.definition(name));
  }

  /** The physical collection queries read for a projection's logical collection. */
  collection<T extends ReadDocument = ReadDocument>(projection: string, collection: string): Collection<T> {
    const definition = this.definition(projection);
    if (!Object.hasOwn(definition.collections, collection)) {
      throw new Error(`projection ${projection} has no collection ${collection}`);
    }
    const generation = this.runs.get(projection)?.generation ?? 1;
    return this.readStore.collection<T>(physicalCollectionName(collection, generation));
  }

  /**
   * Resolves true once every named projection has applied the log up to `position` (read-your-writes for
   * commands), false when the timeout passes first. The caller answers anyway; it never fails the command.
   */
  waitFor(names: readonly string[], position: GlobalPosition, timeoutMs: number): Promise<boolean> {
    if (this.reached(names, position)) return Promise.resolve(true);
    if (names.some((name) => !this.runs.has(name))) return this.waitForElsewhere(names, position, timeoutMs);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== entry);
        resolve(false);
      }, timeoutMs);
      const entry: Waiter = {
        names,
        position,
        resolve: (reached) => {
          clearTimeout(timer);
          resolve(reached);
        },
      };
      this.waiters.push(entry);
    });
  }

  /**
   * Whether every named projection has applied the log up to `position` (a stopped or rebuilding one has not);
   * undefined when this process follows no projections (the CLI beside a service): it cannot tell without
   * reading their checkpoints.
   */
  applied(names: readonly string[], position: GlobalPosition): boolean | undefined {
    if (!this.following) return undefined;
    return this.reached(names, position);
  }

  /** Another process (the service, seen from the CLI) runs these projections: watch their checkpoints. */
  private async waitForElsewhere(
    names: readonly string[],
    position: GlobalPosition,
    timeoutMs: number,
  ): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let all = true;
      for (const name of names) {
        const generations = await this.readGenerations(name);
        const checkpoint = generations
          ? await this.engine.checkpoint(this.definition(name), generations.live)
          : null;
        if (comparePositions((checkpoint?.position as GlobalPosition | undefined) ?? null, position) < 0)
          all = false;
      }
      if (all) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Live state of each projection in this process. */
  states(): Array<{
    name: string;
    generation: number;
    position: GlobalPosition | null;
    state: ProjectionState;
    lastError: string | null;
  }> {
    return [...this.definitions.keys()].map((name) => {
      const run = this.runs.get(name);
      return {
        name,
        generation: run?.generation ?? 0,
        position: run?.position ?? null,
        state: run?.state ?? 'starting',
        lastError: run?.lastError ?? null,
      };
    });
  }

  /** True when every projection is following the log and none is stopped. */
  allLive(): boolean {
    return this.projectionNames.every((name) => this.runs.get(name)?.state === 'live');
  }

  /** Called after an in-process rebuild switched generations, so this run follows at once. */
  async generationSwitched(name: string): Promise<void> {
    this.options.changes?.signal('generations');
    const run = this.runs.get(name);
    if (run && !run.controller.signal.aborted) run.attempt?.abort();
    else await this.startRun(this.definition(name));
  }

  private async startRun(definition: ProjectionDefinition): Promise<void> {
    if (this.stopped) return;
    const existing = this.runs.get(definition.name);
    if (existing && !existing.controller.signal.aborted) return;
    const run: LiveRun = {
      definition,
      generation: 0,
      position: null,
      eventsApplied: 0,
      state: 'starting',
      lastError: null,
      controller: new AbortController(),
      attempt: null,
      done: Promise.resolve(),
    };
    this.runs.set(definition.name, run);
    run.done = this.follow(run);
  }

  /** The supervised loop of one projection. */
  private async follow(run: LiveRun): Promise<void> {
    const { definition } = run;
    let failures = 0;
    const outer = run.controller;
    while (!outer.signal.aborted && !this.stopped) {
      const attempt = new AbortController();
      run.attempt = attempt;
      const abortAttempt = (): void => attempt.abort();
      outer.signal.addEventListener('abort', abortAttempt, { once: true });
      try {
        const generations = await this.readGenerations(definition.name);
        if (!generations) throw new Error(`projection ${definition.name} has no live generation`);
        run.generation = generations.live;
        let checkpoint = await this.engine.checkpoint(definition, run.generation);
        run.position = (checkpoint?.position as GlobalPosition | undefined) ?? null;
        run.eventsApplied = Number(
          (checkpoint?.details as { eventsApplied?: number } | undefined)?.eventsApplied ?? 0,
        );
        this.notify();
        // Nothing to catch up (an empty or idle log) means live at once, not after the next event.
        const head = await this.eventStore.headPosition();
        await this.report(run, comparePositions(run.position, head) >= 0 ? 'live' : 'catching_up', null);
        const events = this.eventStore.subscribeAll({ after: run.position, signal: attempt.signal });
        // Batches with no event this projection handles change no document: their checkpoint is written later
        // (with the next batch that does, or within SKIPPED_CHECKPOINT_MS), not once per batch. In-process
        // waiters read run.position, which moves at once.
        const held: { skipped: { count: number; last: RecordedEvent } | null } = { skipped: null };
        // The documents this attempt's batches read and wrote (ADR 111): every write is guarded by the checkpoint
        // it started from, so a document another writer changed since can only meet a CheckpointMoved, which
        // ends the attempt and these with it. A failed write ends it too, before anything reads them again.
        const carried = liveCarriedDocuments(run.generation);
        let lastWrite = Date.now();
        const write = async (events: readonly RecordedEvent[], alreadyCounted = 0): Promise<void> => {
          const from = held.skipped
            ? withEventsApplied(checkpoint, held.skipped.count - alreadyCounted)
            : checkpoint;
          const prepared = this.committer.preparingBatch();
          let outcome: BatchOutcome;
          try {
            const batch = await this.engine
              .prepareBatch(definition, run.generation, from, events, carried)
              .catch((error: unknown) => this.movedElsewhere(error, definition, run.generation, from));
            if (batch.write) {
              const committed = this.committer.submit(batch.write);
              prepared();
              await committed;
            }
            carried.forget();
            outcome = batch.outcome;
          } finally {
            prepared();
          }
          checkpoint = outcome.checkpoint;
          held.skipped = null;
          lastWrite = Date.now();
          this.options.onBatchApplied?.(definition.name, outcome);
        };
        const flushSkipped = async (): Promise<void> => {
          // The last skipped event stands for all of them: it is not handled, so it writes only the checkpoint.
          if (held.skipped) await write([held.skipped.last], 1);
        };
        const iterator = batches(events, this.batchSize)[Symbol.asyncIterator]();
        let next = iterator.next();
        try {
          for (;;) {
            const due: number | null = held.skipped ? skippedCheckpointDue(lastWrite) - Date.now() : null;
            let result: Awaited<typeof next> | typeof CHECKPOINT_DUE;
            if (due === null) result = await next;
            else {
              const wait = new AbortController();
              try {
                result = await Promise.race([
                  next,
                  sleepUntilDue(due, AbortSignal.any([attempt.signal, wait.signal])),
                ]);
              } finally {
                wait.abort(); // the timer of a lost race must not linger
              }
            }
            if (attempt.signal.aborted) break;
            if (result === CHECKPOINT_DUE) {
              await flushSkipped();
              continue;
            }
            if (result.done) break;
            next = iterator.next();
            const batch: Batch<RecordedEvent> = result.value;
            const last = batch.items.at(-1)!;
            if (handlesAny(definition, batch.items)) {
              await this.options.beforeApply?.();
              await write(batch.items);
            } else {
              held.skipped = { count: (held.skipped?.count ?? 0) + batch.items.length, last };
              if (held.skipped.count >= SKIPPED_CHECKPOINT_EVENTS) await flushSkipped();
            }
            run.position = last.position;
            run.eventsApplied += batch.items.length;
            failures = 0;
            this.notify();
            if (batch.drained && run.state !== 'live') await this.report(run, 'live', null);
            if (batch.drained && this.lingerMs > 0) await sleep(this.lingerMs, attempt.signal);
          }
        } finally {
          // A read may still be in flight: it settles once the attempt is aborted below (outer finally), and
          // only then can the generator close, so this must not wait for it.
          void next.catch(() => undefined);
          void iterator.return?.(undefined).catch(() => undefined);
        }
      } catch (error) {
        if (attempt.signal.aborted) continue;
        if (error instanceof CheckpointMoved) continue; // another runner applied these events; resume after it
        if (error instanceof ProjectionHandlerFailed) {
          await this.report(run, 'stopped', error.message);
          this.log('error', error.message, { projection: definition.name });
          return;
        }
        if (isStorageDamage(error)) {
          const message = error instanceof Error ? error.message : String(error);
          await this.report(run, 'stopped', message);
          this.log('error', `projection ${definition.name} stopped: the storage is damaged`, {
            error: message,
          });
          this.options.onStorageDamaged?.(error, definition.name);
          return;
        }
        failures += 1;
        const delay = Math.min(this.retryDelayMs[0] * 2 ** (failures - 1), this.retryDelayMs[1]);
        await this.report(run, 'retrying', error instanceof Error ? error.message : String(error));
        this.log('warn', `projection ${definition.name} retrying in ${delay} ms`, { error: String(error) });
        await sleep(delay, outer.signal);
      } finally {
        outer.signal.removeEventListener('abort', abortAttempt);
        attempt.abort();
      }
    }
  }

  /**
   * Another process may switch a projection's live generation (a rebuild): every check reads all generations
   * at once and restarts the runs whose generation moved. With a cross-process wake channel a check runs when
   * another process signals a switch (or the channel reconnects), and otherwise at the safety interval; without
   * one, every generationCheckMs.
   */
  private watchGenerations(): void {
    if (this.generationWatch) return;
    let reading = false;
    let again = false;
    const check = (): void => {
      const runs = [...this.runs.values()].filter((run) => run.attempt && !run.attempt.signal.aborted);
      if (runs.length === 0) return;
      if (reading) {
        again = true; // a signal during a read may concern a switch that read did not see
        return;
      }
      reading = true;
      void this.readStore
        .getMetas<ProjectionGenerations>(runs.map((run) => generationsKey(run.definition.name)))
        .then(
          (generations) => {
            for (const run of runs) {
              const live = generations.get(generationsKey(run.definition.name))?.live;
              if (live !== undefined && live !== run.generation) run.attempt?.abort();
            }
          },
          () => undefined,
        )
        .finally(() => {
          reading = false;
          if (again) {
            again = false;
            check();
          }
        });
    };
    const changes = this.options.changes;
    if (changes?.crossProcess) {
      this.stopWatchingSignals = changes.subscribe('generations', (origin) => {
        if (origin !== 'here') check();
      });
    }
    this.generationWatch = setInterval(
      check,
      changes?.crossProcess
        ? (this.options.generationSafetyMs ?? GENERATION_SAFETY_MS)
        : this.generationCheckMs,
    );
    this.generationWatch.unref();
  }

  /**
   * A handler that failed may have read documents another runner already moved past this batch's checkpoint (its
   * prefetch reads the store as it is now): when the stored checkpoint is no longer the batch's, that runner
   * applied these events and the failure is a CheckpointMoved; only on an unmoved checkpoint is it the handler's.
   */
  private async movedElsewhere(
    error: unknown,
    definition: ProjectionDefinition,
    generation: number,
    from: Checkpoint | null,
  ): Promise<never> {
    if (error instanceof ProjectionHandlerFailed) {
      const stored = await this.engine.checkpoint(definition, generation);
      const expected = from?.position ?? null;
      const actual = stored?.position ?? null;
      if (actual !== expected)
        throw new CheckpointMoved(checkpointKey(definition.name, generation), expected, actual);
    }
    throw error;
  }

  private async readGenerations(name: string): Promise<ProjectionGenerations | null> {
    return this.readStore.getMeta<ProjectionGenerations>(generationsKey(name));
  }

  private reached(names: readonly string[], position: GlobalPosition): boolean {
    return names.every((name) => {
      const run = this.runs.get(name);
      return run !== undefined && comparePositions(run.position, position) >= 0;
    });
  }

  private notify(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (this.reached(waiter.names, waiter.position)) waiter.resolve(true);
      else still.push(waiter);
    }
    this.waiters = still;
  }

  private async report(run: LiveRun, state: ProjectionState, lastError: string | null): Promise<void> {
    run.state = state;
    run.lastError = lastError;
    const value: ReportedProjectionState = {
      state,
      lastError,
      reportedAt: new Date().toISOString(),
      reportedBy: this.instance,
    };
    try {
      const key = projectionStateKey(run.definition.name);
      const current = await this.readStore.getMeta<ReportedProjectionState>(key);
      await this.readStore.compareAndSetMeta(key, current, value);
    } catch {
      // Reporting is best effort; the in-memory state above is what this process acts on.
    }
  }

  private log(level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void {
    this.options.log?.(level, message, fields);
  }
}

/** Creates generation 1 for a projection that has none yet. Returns the registry entry. */
export async function ensureLiveGeneration(
  engine: ProjectionEngine,
  definition: ProjectionDefinition,
): Promise<ProjectionGenerations> {
  const key = generationsKey(definition.name);
  for (;;) {
    const current = await engine.readStore.getMeta<ProjectionGenerations>(key);
    if (current) {
      await engine.ensureCollections(definition, current.live);
      return current;
    }
    await engine.ensureCollections(definition, 1);
    const initial: ProjectionGenerations = { live: 1, version: definition.version };
    if (await engine.readStore.compareAndSetMeta(key, null, initial)) return initial;
  }
}

/** With a cross-process wake channel, generations are read at least this often (a lost signal waits for it). */
const GENERATION_SAFETY_MS = 10_000;
