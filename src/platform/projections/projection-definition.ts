import type { DomainEvent } from '../event-sourcing/decider.js';
import type { RecordedEvent } from '../event-store/event-store.port.js';
import type { Filter, IndexSpec, ReadDocument } from '../read-store/read-store.port.js';

/** A stored event of one of the domain event types `E`, its `data` typed by that type (narrowed by `type`). */
export type RecordedEventOf<E extends DomainEvent> =
  E extends DomainEvent<infer TType, infer TData> ? RecordedEvent<TType, TData> : never;

/**
 * A read model built from the global event log. Handlers are pure: they see one event and the documents
 * they declared in `reads`, and record changes on the view. The runner batches events, prefetches the
 * declared documents in one query per collection, and writes the changes with the checkpoint atomically.
 *
 * `E` is the union of the domain events the projection handles (imported from the domains' `domain/` files):
 * a renamed event or a changed field breaks the projection's compilation. The runner only delivers the types
 * listed in `handles`, which is what makes the typing sound. `DomainEvent` (the default) is any event.
 */
export interface ProjectionDefinition<E extends DomainEvent = DomainEvent> {
  /** Stable name, also used by the CLI (`projections rebuild <name>`). Lowercase, dashes allowed. */
  readonly name: string;
  /** Bump when handlers or document shapes change: the service then rebuilds beside the live version. */
  readonly version: number;
  /**
   * Logical collections this projection owns (globally unique names, `[a-z][a-z0-9_]*`), with the indexes
   * its queries need. Physical names carry the generation: `<collection>__g<generation>`.
   */
  readonly collections: Readonly<
    Record<
      string,
      {
        readonly indexes?: readonly IndexSpec[];
        /** false: no index over every path (see EnsureCollectionOptions.withoutContainmentIndex). */
        readonly containmentIndex?: boolean;
      }
    >
  >;
  /** Event types the projection handles (`*` for all); other events only advance its checkpoint. */
  readonly handles: readonly E['type'][];
  /** Documents `apply` reads for this event. Undeclared reads fail loudly: they would be a hidden query. */
  reads?(event: RecordedEventOf<E>): ReadonlyArray<DocumentRef>;
  /** Pure: no I/O, no clock, no randomness. Throwing stops the projection (the event is never skipped). */
  apply(event: RecordedEventOf<E>, view: ProjectionView): void;
}

/**
 * Any projection, whatever events it handles: what the runner, the engine and the composition roots hold.
 * Handlers are declared as methods, so a `ProjectionDefinition<AccountEvent>` is one.
 */
export type AnyProjection = ProjectionDefinition<DomainEvent>;

export interface DocumentRef {
  readonly collection: string;
  readonly id: string;
}

export interface ProjectionView {
  /** The current document (as of the events applied so far in this batch), or null. */
  get<T extends ReadDocument>(collection: string, id: string): T | null;
  put(collection: string, document: ReadDocument): void;
  /** Shallow merge of top-level fields into an existing document; a field set to undefined is removed. */
  patch(collection: string, id: string, fields: Readonly<Record<string, unknown>>): void;
  delete(collection: string, id: string): void;
  deleteWhere(collection: string, filter: Filter): void;
}

export const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,40}$/;
export const PROJECTION_NAME = /^[a-z][a-z0-9-]{0,40}$/;

export function physicalCollectionName(collection: string, generation: number): string {
  return `${collection}__g${generation}`;
}

export function checkpointKey(projection: string, generation: number): string {
  return `${projection}@${generation}`;
}

export function validateDefinitions(definitions: readonly AnyProjection[]): void {
  const names = new Set<string>();
  const collections = new Map<string, string>();
  for (const definition of definitions) {
    if (!PROJECTION_NAME.test(definition.name)) throw new Error(`invalid projection name ${definition.name}`);
    if (names.has(definition.name)) throw new Error(`duplicate projection ${definition.name}`);
    names.add(definition.name);
    if (!Number.isInteger(definition.version) || definition.version < 1) {
      throw new Error(`projection ${definition.name}: version must be a positive integer`);
    }
    for (const collection of Object.keys(definition.collections)) {
      if (!COLLECTION_NAME.test(collection)) throw new Error(`invalid collection name ${collection}`);
      const owner = collections.get(collection);
      if (owner) throw new Error(`collection ${collection} belongs to both ${owner} and ${definition.name}`);
      collections.set(collection, definition.name);
    }
  }
}
