import type { EventStore, RecordedEvent } from '../event-store/event-store.port.js';
import { comparePositions, type GlobalPosition } from '../event-store/global-position.js';
import { noUpcasters, type Upcasters } from '../event-sourcing/upcasters.js';
import type {
  ApplyBatchesOptions,
  BatchWrite,
  Checkpoint,
  ReadStore,
} from '../read-store/read-store.port.js';
import { BatchView, type CarriedDocuments } from './batch-view.js';
import {
  checkpointKey,
  physicalCollectionName,
  type DocumentRef,
  type ProjectionDefinition,
} from './projection-definition.js';

/** A handler threw: the projection stops at this event and never skips it. */
export class ProjectionHandlerFailed extends Error {
  override readonly name = 'ProjectionHandlerFailed';
  constructor(
    readonly projection: string,
    readonly event: Pick<RecordedEvent, 'id' | 'type' | 'streamId' | 'streamVersion' | 'position'>,
    readonly reason: unknown,
  ) {
    super(
      `projection ${projection} failed on ${event.type} (${event.streamId}@${event.streamVersion}, position ${event.position}): ${
        reason instanceof Error ? reason.message : String(reason)
      }`,
    );
  }
}

/** What the live registry in the read store says about a projection. */
export interface ProjectionGenerations {
  /** The generation queries read. */
  readonly live: number;
  /** Definition version the live generation was built with. */
  readonly version: number;
  /** A generation being built beside the live one, when a rebuild runs. */
  readonly building?: number;
}

export interface BatchOutcome {
  readonly applied: number;
  readonly handled: number;
  readonly position: GlobalPosition | null;
  /** The checkpoint as stored after the batch (the `from` of the next one). */
  readonly checkpoint: Checkpoint | null;
}

export const generationsKey = (projection: string): string => `projection:${projection}`;

/**
 * Applies events to one generation of one projection: prefetch, pure handlers, one atomic write with the
 * checkpoint. Shared by the live runner, rebuilds and verification, so all three build identical documents.
 */
export class ProjectionEngine {
  constructor(
    readonly eventStore: EventStore,
    readonly readStore: ReadStore,
    /** Stored events of an older schema version are read through these before any handler sees them. */
    readonly upcasters: Upcasters = noUpcasters,
  ) {}

  /** `withoutIndexes` for a generation about to be bulk-loaded: ensureCollections again then builds them. */
  async ensureCollections(
    definition: ProjectionDefinition,
    generation: number,
    options: { readonly withoutIndexes?: boolean } = {},
  ): Promise<void> {
    for (const [collection, spec] of Object.entries(definition.collections)) {
      await this.readStore.ensureCollection(
        physicalCollectionName(collection, generation),
        spec.indexes ?? [],
        {
          ...options,
          withoutContainmentIndex: spec.containmentIndex === false,
        },
      );
    }
  }

  async dropGeneration(definition: ProjectionDefinition, generation: number): Promise<void> {
    for (const collection of Object.keys(definition.collections)) {
      await this.readStore.dropCollection(physicalCollectionName(collection, generation));
    }
    await this.readStore.deleteCheckpoint(checkpointKey(definition.name, generation));
  }

  async checkpoint(definition: ProjectionDefinition, generation: number): Promise<Checkpoint | null> {
    return this.readStore.getCheckpoint(checkpointKey(definition.name, generation));
  }

  /**
   * Applies one batch of events (already read, in global order, all after `from`). Events the projection
   * does not handle still advance the checkpoint. Throws CheckpointMoved when another runner got there first.
   */
  async applyBatch(
    definition: ProjectionDefinition,
    generation: number,
    from: Checkpoint | null,
    stored: readonly RecordedEvent[],
  ): Promise<BatchOutcome> {
    const prepared = await this.prepareBatch(definition, generation, from, stored);
    if (prepared.write) {
      const { changes, checkpoint, guard } = prepared.write;
      await this.readStore.applyBatch(changes, checkpoint, guard);
    }
    return prepared.outcome;
  }

  /**
   * Writes several projections' prepared batches: in one transaction where the store can
   * (ReadStore.applyBatches), else one by one. Throws the first CheckpointMoved, after the others were written.
   */
  async writeBatches(writes: readonly BatchWrite[], options: ApplyBatchesOptions = {}): Promise<void> {
    if (writes.length > 1 && this.readStore.applyBatches) {
      const moved = (await this.readStore.applyBatches(writes, options)).find((outcome) => outcome !== null);
      if (moved) throw moved;
      return;
    }
    options.onDispatched?.();
    for (const { changes, checkpoint, guard } of writes)
      await this.readStore.applyBatch(changes, checkpoint, guard);
  }

  /**
   * Everything applyBatch does but the write: the documents the batch reads, the handlers, and the write
   * (changes, checkpoint and guard) to commit, alone or with other projections' (BatchCommitter).
   */
  async prepareBatch(
    definition: ProjectionDefinition,
    generation: number,
    from: Checkpoint | null,
    stored: readonly RecordedEvent[],
    /** What earlier batches of the generation's only writer carry over (a rebuild's, see CarriedDocuments). */
    carried?: CarriedDocuments,
  ): Promise<{ readonly outcome: BatchOutcome; readonly write: BatchWrite | null }> {
    const events = this.upcasters.upcastAll(stored);
    const last = events.at(-1);
    if (!last) {
      return {
        outcome: {
          applied: 0,
          handled: 0,
          position: (from?.position as GlobalPosition) ?? null,
          checkpoint: from,
        },
        write: null,
      };
    }
    const handledTypes = new Set(definition.handles);
    const relevant = handledTypes.has('*') ? events : events.filter((event) => handledTypes.has(event.type));
    const view = new BatchView(
      definition.name,
      (collection) => {
        if (!Object.hasOwn(definition.collections, collection)) {
          throw new Error(`projection ${definition.name} wrote to undeclared collection ${collection}`);
        }
        return physicalCollectionName(collection, generation);
      },
      carried?.known,
    );
    await this.prefetch(definition, generation, relevant, view, carried);
    for (const event of relevant) {
      try {
        definition.apply(event, view);
      } catch (reason) {
        throw new ProjectionHandlerFailed(definition.name, event, reason);
      }
    }
    const previous = (from?.details ?? {}) as { eventsApplied?: number };
    const checkpoint: Checkpoint = {
      key: checkpointKey(definition.name, generation),
      position: last.position,
      details: {
        eventsApplied: (previous.eventsApplied ?? 0) + events.length,
        lastRecordedAt: last.recordedAt,
      },
    };
    return {
      outcome: { applied: events.length, handled: relevant.length, position: last.position, checkpoint },
      write: { changes: view.changes, checkpoint, guard: { expectedPosition: from?.position ?? null } },
    };
  }

  /**
   * Reads and applies pages from the checkpoint of `generation` until the log is exhausted or `until` is
   * reached. Returns the number of events applied.
   */
  async catchUp(
    definition: ProjectionDefinition,
    generation: number,
    options: {
      readonly until?: GlobalPosition | null;
      readonly pageSize?: number;
      readonly signal?: AbortSignal;
      readonly onBatch?: (outcome: BatchOutcome) => void;
    } = {},
  ): Promise<number> {
    const pageSize = options.pageSize ?? 2000;
    let total = 0;
    let checkpoint = await this.checkpoint(definition, generation);
    while (!options.signal?.aborted) {
      if (options.until !== undefined && comparePositions(checkpoint?.position ?? null, options.until) >= 0)
        break;
      let events = await this.eventStore.readAll({
        after: (checkpoint?.position as GlobalPosition) ?? null,
        limit: pageSize,
      });
      if (options.until !== undefined) {
        const until = options.until;
        events = events.filter((event) => comparePositions(event.position, until) <= 0);
      }
      if (events.length === 0) break;
      const outcome = await this.applyBatch(definition, generation, checkpoint, events);
      total += outcome.applied;
      options.onBatch?.(outcome);
      checkpoint = outcome.checkpoint;
    }
    return total;
  }

  private async prefetch(
    definition: ProjectionDefinition,
    generation: number,
    events: readonly RecordedEvent[],
    view: BatchView,
    carried?: CarriedDocuments,
  ): Promise<void> {
    if (!definition.reads) return;
    const wanted: DocumentRef[] = [];
    for (const event of events) wanted.push(...definition.reads(event));
    const byCollection = new Map<string, Set<string>>();
    for (const ref of view.missing(wanted)) {
      let ids = byCollection.get(ref.collection);
      if (!ids) byCollection.set(ref.collection, (ids = new Set()));
      ids.add(ref.id);
    }
    for (const [collection, ids] of byCollection) {
      const physical = physicalCollectionName(collection, generation);
      await carried?.beforeRead(physical, ids);
      const found = await this.readStore.collection(physical).getMany([...ids]);
      view.load(collection, ids, found);
    }
  }
}
