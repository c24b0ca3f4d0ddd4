import { isDeepStrictEqual } from 'node:util';
import type { GlobalPosition } from '../event-store/global-position.js';
import type { Checkpoint, DocumentChange, ReadDocument } from '../read-store/read-store.port.js';
import { checkpointKey, physicalCollectionName, type ProjectionDefinition } from './projection-definition.js';
import { generationsKey, type ProjectionEngine, type ProjectionGenerations } from './projection-engine.js';
import { ensureLiveGeneration } from './projection-runner.js';
import { forgetOldest, type CarriedDocuments } from './batch-view.js';

export interface RebuildProgress {
  readonly projection: string;
  readonly eventsApplied: number;
  readonly position: GlobalPosition | null;
}

export interface RebuildResult {
  readonly projection: string;
  readonly previousGeneration: number;
  readonly generation: number;
  readonly events: number;
  /** Wall time of the whole rebuild: preparing, building, switching, the grace period and the drops. */
  readonly seconds: number;
  /** `events / seconds`, over that whole wall time. */
  readonly eventsPerSecond: number;
  /** Generations dropped after the switch: the previous one and any a crashed rebuild left behind. */
  readonly droppedGenerations: readonly number[];
}

export interface DocumentDifference {
  readonly collection: string;
  readonly id: string;
  readonly live: ReadDocument | null;
  readonly rebuilt: ReadDocument | null;
}

export interface VerifyResult {
  readonly projection: string;
  readonly equal: boolean;
  readonly position: GlobalPosition | null;
  readonly documentsCompared: number;
  readonly differences: readonly DocumentDifference[];
}

export class RebuildConflict extends Error {
  override readonly name = 'RebuildConflict';
}

/**
 * Operator work on projections: blue/green rebuilds and verification. Safe while a service runs the live
 * projection in another process: the live generation keeps serving until the switch, which is one
 * compare-and-set on the generation registry; the old generation is dropped after a grace period that is
 * longer than the live runners' generation check interval.
 */
export class ProjectionMaintenance {
  constructor(
    private readonly engine: ProjectionEngine,
    private readonly options: {
      readonly dropGraceMs?: number;
      readonly pageSize?: number;
      /** Documents a rebuild keeps known per collection between pages (default 20,000). */
      readonly knownDocumentsPerCollection?: number;
      /** Called after a switch, for an in-process runner to follow the new generation at once. */
      readonly onSwitched?: (projection: string) => Promise<void>;
    } = {},
  ) {}

  async rebuild(
    definition: ProjectionDefinition,
    onProgress?: (progress: RebuildProgress) => void,
    signal?: AbortSignal,
  ): Promise<RebuildResult> {
    const started = performance.now();
    const key = generationsKey(definition.name);
    const before = await ensureLiveGeneration(this.engine, definition);
    const generation = Math.max(before.live, before.building ?? 0) + 1;
    const announced: ProjectionGenerations = { ...before, building: generation };
    if (!(await this.engine.readStore.compareAndSetMeta(key, before, announced))) {
      throw new RebuildConflict(`projection ${definition.name} changed while the rebuild started; try again`);
    }
    try {
      const builds = [newBuild(definition, generation)];
      await this.engine.dropGeneration(definition, generation);
      await this.engine.ensureCollections(definition, generation, { withoutIndexes: true });
      const events = await this.buildFromLog(
        builds,
        (applied, position) =>
          onProgress?.({ projection: definition.name, eventsApplied: applied, position }),
        signal,
      );
      const current = await this.engine.readStore.getMeta<ProjectionGenerations>(key);
      const switched: ProjectionGenerations = { live: generation, version: definition.version };
      if (!current || current.building !== generation) {
        throw new RebuildConflict(
          `another rebuild of ${definition.name} took over; generation ${generation} abandoned`,
        );
      }
      if (!(await this.engine.readStore.compareAndSetMeta(key, current, switched))) {
        throw new RebuildConflict(`projection ${definition.name} changed during the rebuild; try again`);
      }
      await this.options.onSwitched?.(definition.name);
      await delay(this.options.dropGraceMs ?? 2000);
      // Every older generation goes, not only the previous one: a rebuild that died while building, or between
      // its switch and this drop, left its tables behind, and nothing else would ever drop them.
      const droppedGenerations = await this.dropGenerationsBelow(definition, generation);
      const seconds = (performance.now() - started) / 1000;
      return {
        projection: definition.name,
        previousGeneration: current.live,
        generation,
        events,
        seconds,
        eventsPerSecond: seconds > 0 ? Math.round(events / seconds) : events,
        droppedGenerations,
      };
    } catch (error) {
      await this.abandon(definition, generation);
      throw error;
    }
  }

  /**
   * Rebuilds several projections blue/green in one pass over the log: each page is read once, every
   * projection's batch prepared from it (the same prefetch and handlers as `rebuild` and the live runner), and
   * all of them written in one transaction, each with its own checkpoint. Then each switches, one grace period
   * is waited for all, and the old generations go. A failure abandons every new generation (the live ones keep
   * serving). Each result reports the whole pass's wall time.
   */
  async rebuildAll(
    definitions: readonly ProjectionDefinition[],
    onProgress?: (progress: RebuildProgress) => void,
    signal?: AbortSignal,
  ): Promise<RebuildResult[]> {
    const started = performance.now();
    const builds: Build[] = [];
    let events = 0;
    try {
      for (const definition of definitions) {
        const key = generationsKey(definition.name);
        const before = await ensureLiveGeneration(this.engine, definition);
        const generation = Math.max(before.live, before.building ?? 0) + 1;
        const announced: ProjectionGenerations = { ...before, building: generation };
        if (!(await this.engine.readStore.compareAndSetMeta(key, before, announced))) {
          throw new RebuildConflict(
            `projection ${definition.name} changed while the rebuild started; try again`,
          );
        }
        const build = newBuild(definition, generation);
        build.previousGeneration = before.live;
        builds.push(build);
        await this.engine.dropGeneration(definition, generation);
        await this.engine.ensureCollections(definition, generation, { withoutIndexes: true });
      }
      events = await this.buildFromLog(
        builds,
        (applied, position) => onProgress?.({ projection: 'all', eventsApplied: applied, position }),
        signal,
      );
      for (const build of builds) {
        const key = generationsKey(build.definition.name);
        const current = await this.engine.readStore.getMeta<ProjectionGenerations>(key);
        if (!current || current.building !== build.generation) {
          throw new RebuildConflict(
            `another rebuild of ${build.definition.name} took over; generation ${build.generation} abandoned`,
          );
        }
        const switched: ProjectionGenerations = { live: build.generation, version: build.definition.version };
        if (!(await this.engine.readStore.compareAndSetMeta(key, current, switched))) {
          throw new RebuildConflict(
            `projection ${build.definition.name} changed during the rebuild; try again`,
          );
        }
        build.previousGeneration = current.live;
        await this.options.onSwitched?.(build.definition.name);
      }
    } catch (error) {
      for (const build of builds) await this.abandon(build.definition, build.generation);
      throw error;
    }
    await delay(this.options.dropGraceMs ?? 2000);
    const dropped = new Map<string, number[]>();
    for (const build of builds) {
      dropped.set(build.definition.name, await this.dropGenerationsBelow(build.definition, build.generation));
    }
    const seconds = (performance.now() - started) / 1000;
    return builds.map((build) => ({
      projection: build.definition.name,
      previousGeneration: build.previousGeneration,
      generation: build.generation,
      events,
      seconds,
      eventsPerSecond: seconds > 0 ? Math.round(events / seconds) : events,
      droppedGenerations: dropped.get(build.definition.name) ?? [],
    }));
  }

  /**
   * Builds new generations (created without their indexes) from the whole log, then their indexes; returns the
   * events read. Each page is read once, prepared by every build with the same prefetch and handlers as the
   * live runner (rebuild-equals-live), and written in one transaction with every build's checkpoint and guard
   * (exactly-once). Three pages are in flight: one read, one prepared, one written, so the database and this
   * process work at the same time. A build is its generation's only writer: the documents its batches read and
   * wrote stay known to the next ones (up to KNOWN_DOCUMENTS_PER_COLLECTION a collection) and need no
   * prefetch, and a prefetch of what the write in flight changes waits for that write.
   */
  private async buildFromLog(
    builds: readonly Build[],
    onPage: (eventsApplied: number, position: GlobalPosition) => void,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const { eventStore } = this.engine;
    const limit = this.options.pageSize ?? REBUILD_PAGE_SIZE;
    const knownLimit = this.options.knownDocumentsPerCollection ?? KNOWN_DOCUMENTS_PER_COLLECTION;
    let events = 0;
    await eventStore.refreshReadStatistics?.();
    let next = eventStore.readAll({ after: null, limit });
    let writing: Promise<void> = Promise.resolve();
    try {
      for (;;) {
        if (signal?.aborted) throw new RebuildConflict('the rebuild was cancelled');
        const page = await next;
        if (page.length === 0) break;
        const after = page.at(-1)!.position;
        next = eventStore.readAll({ after, limit });
        const prepared = await Promise.all(
          builds.map((build) =>
            this.engine.prepareBatch(
              build.definition,
              build.generation,
              build.checkpoint,
              page,
              build.carried,
            ),
          ),
        );
        // The previous page is committed: what was forgotten now is read again with its last write.
        await writing;
        const writes = prepared.flatMap((batch) => (batch.write ? [batch.write] : []));
        // The next page is prepared once this one's largest statement is on its way (ADR 0125): preparing is
        // the process's CPU and would otherwise hold back the write's round trips until it ends.
        let onDispatched!: () => void;
        const dispatched = new Promise<void>((resolve) => (onDispatched = resolve));
        writing = this.engine.writeBatches(writes, { onDispatched });
        await Promise.race([dispatched, writing.catch(() => undefined)]);
        prepared.forEach((batch, index) => {
          const build = builds[index]!;
          build.checkpoint = batch.outcome.checkpoint;
          forgetOldest(build.carried.known, knownLimit);
          build.inFlight = { changed: changedIds(batch.write?.changes ?? []), written: writing };
        });
        events += page.length;
        const written = events;
        void writing.then(
          () => onPage(written, after),
          () => undefined,
        );
      }
      await writing;
    } finally {
      // A page read ahead of a failure is not wanted, and its own failure is not the one to report.
      next.catch(() => undefined);
      writing.catch(() => undefined);
    }
    for (const build of builds) await this.engine.ensureCollections(build.definition, build.generation);
    return events;
  }

  /**
   * Rebuilds the projection to the side, up to the live generation's position, and compares every document.
   * The side generation is dropped afterwards; the live one is never touched.
   */
  async verify(
    definition: ProjectionDefinition,
    onProgress?: (progress: RebuildProgress) => void,
  ): Promise<VerifyResult> {
    const key = generationsKey(definition.name);
    const before = await ensureLiveGeneration(this.engine, definition);
    const side = Math.max(before.live, before.building ?? 0) + 1;
    const announced: ProjectionGenerations = { ...before, building: side };
    if (!(await this.engine.readStore.compareAndSetMeta(key, before, announced))) {
      throw new RebuildConflict(
        `projection ${definition.name} changed while verification started; try again`,
      );
    }
    try {
      await this.engine.dropGeneration(definition, side);
      // Compared by id and then dropped: its indexes would only be written.
      await this.engine.ensureCollections(definition, side, { withoutIndexes: true });
      let events = 0;
      // The live generation may move while we compare: catch up to where it is and compare again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const live = await this.engine.checkpoint(definition, before.live);
        const position = (live?.position as GlobalPosition | undefined) ?? null;
        await this.engine.catchUp(definition, side, {
          until: position,
          onBatch: (outcome) => {
            events += outcome.applied;
            onProgress?.({ projection: definition.name, eventsApplied: events, position: outcome.position });
          },
        });
        const comparison = await this.compare(definition, before.live, side);
        const after = await this.engine.checkpoint(definition, before.live);
        if ((after?.position ?? null) === position) {
          return { projection: definition.name, position, ...comparison };
        }
      }
      throw new RebuildConflict(`projection ${definition.name} kept moving; verify again when it is quieter`);
    } finally {
      await this.abandon(definition, side);
    }
  }

  private async compare(
    definition: ProjectionDefinition,
    liveGeneration: number,
    sideGeneration: number,
  ): Promise<{ equal: boolean; documentsCompared: number; differences: DocumentDifference[] }> {
    const differences: DocumentDifference[] = [];
    let documentsCompared = 0;
    for (const collection of Object.keys(definition.collections)) {
      const live = await this.allDocuments(physicalCollectionName(collection, liveGeneration));
      const rebuilt = await this.allDocuments(physicalCollectionName(collection, sideGeneration));
      const ids = new Set([...live.keys(), ...rebuilt.keys()]);
      for (const id of [...ids].sort()) {
        documentsCompared++;
        const a = live.get(id) ?? null;
        const b = rebuilt.get(id) ?? null;
        if (!isDeepStrictEqual(a, b)) differences.push({ collection, id, live: a, rebuilt: b });
      }
    }
    return { equal: differences.length === 0, documentsCompared, differences };
  }

  private async allDocuments(physical: string): Promise<Map<string, ReadDocument>> {
    const collection = this.engine.readStore.collection(physical);
    const documents = new Map<string, ReadDocument>();
    const page = 1000;
    for (let offset = 0; ; offset += page) {
      const found = await collection.find({}, { sort: [['id', 1]], offset, limit: page });
      for (const document of found) documents.set(document.id, document);
      if (found.length < page) return documents;
    }
  }

  /** Drops the collections and checkpoints of every generation of `definition` older than `generation`. */
  private async dropGenerationsBelow(
    definition: ProjectionDefinition,
    generation: number,
  ): Promise<number[]> {
    const { readStore } = this.engine;
    const older = new Set<number>();
    for (const collection of Object.keys(definition.collections)) {
      const prefix = physicalCollectionName(collection, 0).slice(0, -1);
      for (const name of await readStore.listCollections(prefix)) {
        const found = generationOf(name, prefix);
        if (found !== undefined && found < generation) older.add(found);
      }
    }
    const checkpointPrefix = checkpointKey(definition.name, 0).slice(0, -1);
    for (const checkpoint of await readStore.listCheckpoints(checkpointPrefix)) {
      const found = generationOf(checkpoint.key, checkpointPrefix);
      if (found !== undefined && found < generation) older.add(found);
    }
    const dropped = [...older].sort((a, b) => a - b);
    for (const old of dropped) await this.engine.dropGeneration(definition, old);
    return dropped;
  }

  /** Drops a side generation and clears the `building` mark if it is still ours. */
  private async abandon(definition: ProjectionDefinition, generation: number): Promise<void> {
    const key = generationsKey(definition.name);
    const current = await this.engine.readStore.getMeta<ProjectionGenerations>(key);
    if (current && current.live !== generation) {
      await this.engine.dropGeneration(definition, generation);
      if (current.building === generation) {
        const cleared: ProjectionGenerations = { live: current.live, version: current.version };
        await this.engine.readStore.compareAndSetMeta(key, current, cleared);
      }
    }
  }
}

/** Events per page a rebuild reads and writes in one transaction (ADR 103). */
const REBUILD_PAGE_SIZE = 5000;
/** Documents a build keeps known per collection between pages (ADR 103): bounded memory, fewer prefetch reads. */
const KNOWN_DOCUMENTS_PER_COLLECTION = 20_000;

interface Build {
  readonly definition: ProjectionDefinition;
  readonly generation: number;
  readonly carried: CarriedDocuments;
  /** The build's last batch while its transaction may still run: the ids it changes, by physical collection. */
  inFlight: { readonly changed: ChangedIds; readonly written: Promise<void> } | null;
  checkpoint: Checkpoint | null;
  previousGeneration: number;
}

/** Ids a batch changes, by physical collection; `all` where a deleteWhere may change any. */
type ChangedIds = Map<string, Set<string> | 'all'>;

function newBuild(definition: ProjectionDefinition, generation: number): Build {
  const build: Build = {
    definition,
    generation,
    carried: {
      known: new Map(),
      beforeRead: async (collection, ids) => {
        const inFlight = build.inFlight;
        const changed = inFlight?.changed.get(collection);
        if (!changed) return;
        if (changed === 'all' || [...ids].some((id) => changed.has(id))) await inFlight!.written;
      },
    },
    inFlight: null,
    checkpoint: null,
    previousGeneration: 0,
  };
  return build;
}

function changedIds(changes: readonly DocumentChange[]): ChangedIds {
  const changed: ChangedIds = new Map();
  for (const change of changes) {
    const ids = changed.get(change.collection);
    if (ids === 'all') continue;
    if (change.kind === 'deleteWhere') {
      changed.set(change.collection, 'all');
      continue;
    }
    const id = change.kind === 'upsert' ? change.document.id : change.id;
    if (ids) ids.add(id);
    else changed.set(change.collection, new Set([id]));
  }
  return changed;
}

/** The generation in `<prefix><generation>` (a physical collection name or a checkpoint key), if that is its form. */
function generationOf(name: string, prefix: string): number | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const digits = name.slice(prefix.length);
  return /^[1-9][0-9]{0,8}$/.test(digits) ? Number(digits) : undefined;
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
