/**
 * The read store port: JSON document collections maintained by projections.
 * Adapters: PostgreSQL (JSONB, PGlite or a server) and MongoDB. Both pass test/contract/read-store.contract.ts.
 *
 * Collections are addressed by their physical name. Projections get versioned physical names from the
 * projection runner (blue/green rebuilds); queries resolve the live one through ProjectionCatalog.
 */

/** Every document has a string id, unique within its collection. */
export interface ReadDocument {
  readonly id: string;
  readonly [field: string]: unknown;
}

/** Scalar values that filters compare with. */
export type FilterValue = string | number | boolean | null;

/**
 * A small MongoDB-like filter over dotted field paths. All entries must hold (AND).
 * `{ 'a.b': 1 }` is equality; operators: $is, $string, $in, $nin, $ne, $gt, $gte, $lt, $lte, $exists, $prefix.
 * Equality on a field that holds an array matches when the array contains the value (as in MongoDB).
 * `$is` is equality on a scalar only (an array holding the value does not match): the PostgreSQL adapter can
 * then seek an index that leads with the field, where plain equality needs its containment index. `$string` is
 * `$is` with a string, spelled for a strings-only index (IndexSpec.stringsOnly), which it alone can seek.
 */
export type FieldCondition =
  | FilterValue
  | {
      /** Exactly this string, number or boolean (never an array element). */
      $is?: string | number | boolean;
      /** Exactly this string (never an array element): the condition a strings-only index serves. */
      $string?: string;
      $in?: readonly FilterValue[];
      $nin?: readonly FilterValue[];
      $ne?: FilterValue;
      $gt?: string | number;
      $gte?: string | number;
      $lt?: string | number;
      $lte?: string | number;
      $exists?: boolean;
      /** String starts with (case-sensitive). */
      $prefix?: string;
    };

export interface Filter {
  /** Any of these filters holds. */
  readonly $or?: readonly Filter[];
  readonly [field: string]: FieldCondition | readonly Filter[] | undefined;
}

export type SortDirection = 1 | -1;
/** Ordered list of [field path, direction]. Ties are broken by id ascending so pages are stable. */
export type Sort = ReadonlyArray<readonly [string, SortDirection]>;

export interface FindOptions {
  readonly sort?: Sort;
  readonly offset?: number;
  readonly limit?: number;
}

/** Index declaration: the fields in order; `unique` across the collection. */
export interface IndexSpec {
  readonly name: string;
  readonly fields: ReadonlyArray<readonly [string, SortDirection]>;
  readonly unique?: boolean;
  /**
   * Index only the fields' string values (ADR 0127): it serves `$string` filters and the id order within them, at
   * a fraction of a full index's write cost (one key per field, instead of the three that order every type and
   * serve sorts, ranges and `$is`). Not unique.
   */
  readonly stringsOnly?: boolean;
}

/** One change inside an atomic batch. */
export type DocumentChange =
  | { readonly kind: 'upsert'; readonly collection: string; readonly document: ReadDocument }
  | {
      readonly kind: 'patch';
      readonly collection: string;
      readonly id: string;
      /** Shallow merge of top-level fields; a field set to undefined is removed. */
      readonly fields: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: 'delete'; readonly collection: string; readonly id: string }
  | { readonly kind: 'deleteWhere'; readonly collection: string; readonly filter: Filter };

export interface Checkpoint {
  /** Projection name plus generation, e.g. `credit-usage@3`. */
  readonly key: string;
  /** Last global position applied (opaque string, see GlobalPosition). */
  readonly position: string | null;
  /** Extra progress information the runner keeps (counts, timestamps, last error). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface Collection<T extends ReadDocument = ReadDocument> {
  readonly name: string;
  get(id: string): Promise<T | null>;
  getMany(ids: readonly string[]): Promise<T[]>;
  upsert(document: T): Promise<void>;
  /** Shallow merge into an existing document; returns false when there is none. */
  patch(id: string, fields: Readonly<Record<string, unknown>>): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  find(filter?: Filter, options?: FindOptions): Promise<T[]>;
  count(filter?: Filter): Promise<number>;
}

/** One projection's batch: what `applyBatch` takes. */
export interface BatchWrite {
  readonly changes: readonly DocumentChange[];
  readonly checkpoint: Checkpoint;
  readonly guard?: { readonly expectedPosition: string | null };
}

export interface ApplyBatchesOptions {
  /**
   * Called once the largest statement of the write is on its way to the database (or once the write ended): a
   * caller with CPU work of its own (a rebuild preparing its next page) starts it then, so that work and the
   * database's run side by side instead of one after the other (ADR 0125). A store that cannot tell calls it at
   * once.
   */
  readonly onDispatched?: () => void;
}

export interface EnsureCollectionOptions {
  /** Only the bare collection: a bulk load fills it, and a call without the option builds its indexes. */
  readonly withoutIndexes?: boolean;
  /**
   * No index over every path of every document (PostgreSQL's containment GIN, which plain equality uses): for a
   * large collection whose reads seek its id or its declared indexes only (ADR 0127). Its equality filters still
   * hold, as filters over what those seeks find.
   */
  readonly withoutContainmentIndex?: boolean;
}

/** One read of ReadStore.readAtOnce: a document by id, or a find. */
export type AtOnceRead<T extends ReadDocument = ReadDocument> =
  | { readonly collection: Collection<T>; readonly id: string }
  | { readonly collection: Collection<T>; readonly filter: Filter; readonly options?: FindOptions };

/** What readAtOnce answers for each read, in order: the document (or null) for an id, the documents for a find. */
export type AtOnceResults<R extends readonly AtOnceRead<ReadDocument>[]> = {
  -readonly [K in keyof R]: R[K] extends { readonly collection: Collection<infer T>; readonly id: string }
    ? T | null
    : R[K] extends { readonly collection: Collection<infer T> }
      ? T[]
      : never;
};

export interface ReadStore {
  readonly kind: string;
  init(): Promise<void>;
  collection<T extends ReadDocument = ReadDocument>(name: string): Collection<T>;
  /**
   * Several reads of collections of this store answered as of one moment (ADR 0134): what `get` and `find` would
   * answer, all from one snapshot, so a document read beside a page tells the state that page was read in. A
   * collection never created reads as empty, as everywhere. PostgreSQL: one statement (one round trip);
   * MongoDB: a snapshot session.
   */
  readAtOnce<const R extends readonly AtOnceRead<ReadDocument>[]>(reads: R): Promise<AtOnceResults<R>>;
  /**
   * Creates the collection and its indexes if missing; idempotent. With `withoutIndexes` only the bare collection
   * (its id key) is created: a bulk load (a rebuild's new generation) fills it faster, and a later call without
   * the option builds the indexes over what is there.
   */
  ensureCollection(
    name: string,
    indexes?: readonly IndexSpec[],
    options?: EnsureCollectionOptions,
  ): Promise<void>;
  dropCollection(name: string): Promise<void>;
  listCollections(prefix?: string): Promise<string[]>;

  /**
   * Applies the changes in order and stores the checkpoint, all or nothing.
   * `guard`, when given, is checked inside the same transaction: if the stored checkpoint position
   * differs from `guard.expectedPosition`, nothing is written and CheckpointMoved is thrown. This is how two
   * runners (a service and a CLI) never apply the same events twice.
   */
  applyBatch(
    changes: readonly DocumentChange[],
    checkpoint: Checkpoint,
    guard?: { readonly expectedPosition: string | null },
  ): Promise<void>;

  /**
   * Several projections' batches in one transaction, each as `applyBatch` would write it (its changes, its
   * checkpoint, its guard). A batch whose guard fails is left out and answered with its CheckpointMoved; the
   * others commit. Optional: without it callers apply the batches one by one.
   */
  applyBatches?(
    batches: readonly BatchWrite[],
    options?: ApplyBatchesOptions,
  ): Promise<ReadonlyArray<CheckpointMoved | null>>;

  getCheckpoint(key: string): Promise<Checkpoint | null>;
  listCheckpoints(prefix?: string): Promise<Checkpoint[]>;
  deleteCheckpoint(key: string): Promise<void>;

  /** A small key/value registry (live projection generations and similar), atomic per key. */
  getMeta<T>(key: string): Promise<T | null>;
  /** Several registry entries in one read (keys without a value are absent from the map). */
  getMetas<T>(keys: readonly string[]): Promise<Map<string, T>>;
  /** Compare-and-set: writes only when the current value equals `expected` (deep JSON equality). */
  compareAndSetMeta<T>(key: string, expected: T | null, value: T): Promise<boolean>;

  close(): Promise<void>;
}

export class CheckpointMoved extends Error {
  override readonly name = 'CheckpointMoved';
  constructor(
    readonly key: string,
    readonly expected: string | null,
    readonly actual: string | null,
  ) {
    super(`checkpoint ${key} is at ${actual ?? 'start'}, expected ${expected ?? 'start'}`);
  }
}

export const READ_STORE = Symbol('ReadStore');
