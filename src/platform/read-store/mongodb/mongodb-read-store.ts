/**
 * ReadStore adapter over MongoDB (official `mongodb` driver). Passes test/contract/read-store.contract.ts.
 *
 * - One MongoDB collection per read-store collection; a document is stored with `_id` = its `id` (and no
 *   separate `id` field). A top-level `id` in filters, sorts and index declarations means `_id`.
 * - Filters map directly to MongoDB query operators (the port's Filter is MongoDB-like by design, and
 *   MongoDB's semantics are the reference: equality on an array matches an element, `null` matches a
 *   missing field, range operators only compare values of the same type). `$prefix` becomes an anchored,
 *   escaped, case-sensitive `$regex`; `$is` is `$eq` on a field that is not an array. An empty condition
 *   object matches everything.
 * - Sorts always end with `_id` ascending, so equal sort keys page stably.
 * - Unique indexes are partial (`$exists: true` on each field), so documents that lack the field do not
 *   collide, as with SQL unique indexes over NULLs.
 * - Writes use write concern `majority`. `applyBatch` runs in one multi-document transaction
 *   (`session.withTransaction`, snapshot read concern, majority write concern): the changes (one ordered
 *   bulkWrite per collection, which preserves the order of changes to any single document) and the
 *   checkpoint in `_checkpoints`. The guard reads the stored checkpoint inside the transaction and throws
 *   CheckpointMoved when it differs; two concurrent runners both write the checkpoint document, so one of
 *   them hits a write conflict, withTransaction retries it, and the retry sees the moved checkpoint.
 *   Transactions need a replica set (a single-node one is enough; see docker-compose.yml); init() fails
 *   with a clear message otherwise.
 * - `_meta` holds the key/value registry: `{ _id: key, value, canonical }` where `canonical` is the value
 *   as key-sorted JSON. compareAndSetMeta is one atomic write: an update filtered on the expected canonical
 *   JSON (deep JSON equality, independent of key order), or, when the expected value is null (absent), an
 *   insert whose duplicate-key error means another writer won the race.
 * - `_checkpoints` and `_meta` are hidden from listCollections.
 */
import {
  MongoClient,
  MongoServerError,
  type AnyBulkWriteOperation,
  type ClientSession,
  type Collection as MongoCollection,
  type Db,
  type Document,
  type Filter as MongoFilter,
  type Sort as MongoSort,
} from 'mongodb';
import { reconcileIndexes, type DeclaredIndex } from '../../mongodb/index-reconciliation.js';
import {
  CheckpointMoved,
  type AtOnceRead,
  type AtOnceResults,
  type Checkpoint,
  type Collection,
  type DocumentChange,
  type EnsureCollectionOptions,
  type FieldCondition,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type ReadDocument,
  type ReadStore,
} from '../read-store.port.js';
import { databaseNameOf } from '../../mongodb/connect.js';

export const CHECKPOINTS_COLLECTION = '_checkpoints';
export const META_COLLECTION = '_meta';
const INTERNAL_COLLECTIONS = new Set([CHECKPOINTS_COLLECTION, META_COLLECTION]);

/** MongoDB server error codes the adapter recognises. */
const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;

interface StoredDocument {
  _id: string;
  [field: string]: unknown;
}

interface StoredCheckpoint {
  _id: string;
  position: string | null;
  details?: Record<string, unknown>;
}

interface StoredMeta {
  _id: string;
  value: unknown;
  canonical: string;
}

/** Internal: the checkpoint was created concurrently (turned into CheckpointMoved after the transaction). */
class CheckpointRaced extends Error {
  override readonly name = 'CheckpointRaced';
}

const FIELD_OPERATORS = new Set([
  '$is',
  '$string',
  '$in',
  '$nin',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$exists',
  '$prefix',
]);

export interface MongoReadStoreOptions {
  /** Close the MongoClient in close() (true when the store created it). */
  readonly ownsClient?: boolean;
}

export class MongoReadStore implements ReadStore {
  readonly kind = 'mongodb';

  private readonly db: Db;
  private readonly ownsClient: boolean;
  private closed = false;

  constructor(
    private readonly client: MongoClient,
    dbName: string,
    options: MongoReadStoreOptions = {},
  ) {
    this.db = client.db(dbName, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
    this.ownsClient = options.ownsClient ?? false;
  }

  /**
   * Connects to `url` (e.g. `mongodb://host:27017/exposure?replicaSet=rs0`); the database is `dbName`, else
   * the one named in the URL path, else `exposure`. The store owns the client and closes it.
   */
  static async connect(url: string, dbName?: string): Promise<MongoReadStore> {
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      ignoreUndefined: true,
      serverSelectionTimeoutMS: 10_000,
    });
    await client.connect();
    const name = dbName ?? databaseNameOf(url) ?? 'exposure';
    return new MongoReadStore(client, name, { ownsClient: true });
  }

  async init(): Promise<void> {
    const hello = await this.db.admin().command({ hello: 1 });
    if (typeof hello.setName !== 'string' && hello.msg !== 'isdbgrid') {
      throw new Error(
        'the MongoDB read store needs transactions: run MongoDB as a replica set (a single node is enough, ' +
          'e.g. `mongod --replSet rs0` and `rs.initiate()`)',
      );
    }
    // Created up front: transactions then never need to create them.
    await this.createCollectionIfMissing(CHECKPOINTS_COLLECTION);
    await this.createCollectionIfMissing(META_COLLECTION);
  }

  collection<T extends ReadDocument = ReadDocument>(name: string): Collection<T> {
    return new MongoDocumentCollection<T>(name, this.documents(name));
  }

  /** A snapshot session (MongoDB 5.0+, replica sets): the reads, one after another, at one cluster time. */
  async readAtOnce<const R extends readonly AtOnceRead<ReadDocument>[]>(reads: R): Promise<AtOnceResults<R>> {
    const session = this.client.startSession({ snapshot: true });
    try {
      const answers: unknown[] = [];
      for (const read of reads) {
        const collection = new MongoDocumentCollection(
          read.collection.name,
          this.documents(read.collection.name),
        );
        answers.push(
          'id' in read
            ? await collection.get(read.id, session)
            : await collection.find(read.filter, read.options, session),
        );
      }
      return answers as AtOnceResults<R>;
    } finally {
      await session.endSession();
    }
  }

  async ensureCollection(
    name: string,
    indexes: readonly IndexSpec[] = [],
    // withoutContainmentIndex: MongoDB has no index over every path to leave out.
    options: EnsureCollectionOptions = {},
  ): Promise<void> {
    assertCollectionName(name);
    await this.createCollectionIfMissing(name);
    // A bulk load first, its indexes built afterwards by a call without the option.
    if (options.withoutIndexes) return;
    const declared: DeclaredIndex[] = [];
    // stringsOnly: MongoDB's keys are ordered by type already, so the plain index serves `$string` too.
    for (const index of indexes) {
      const keys: Record<string, 1 | -1> = {};
      for (const [field, direction] of index.fields) keys[fieldPath(field)] = direction;
      // An index on the id alone is MongoDB's own unique `_id` index, which always exists.
      if (Object.keys(keys).length === 1 && '_id' in keys) continue;
      const partial: Document = {};
      if (index.unique) {
        for (const [field] of index.fields) {
          const path = fieldPath(field);
          if (path !== '_id') partial[path] = { $exists: true };
        }
      }
      declared.push({
        name: index.name,
        keys,
        ...(index.unique ? { unique: true } : {}),
        ...(Object.keys(partial).length > 0 ? { partialFilterExpression: partial } : {}),
      });
    }
    // A declaration whose name or definition changed replaces the existing index (see index-reconciliation.ts).
    await reconcileIndexes(this.documents(name), declared);
  }

  async dropCollection(name: string): Promise<void> {
    assertCollectionName(name);
    try {
      await this.db.dropCollection(name);
    } catch (error) {
      if (!hasCode(error, NAMESPACE_NOT_FOUND)) throw error;
    }
  }

  async listCollections(prefix?: string): Promise<string[]> {
    const filter: Document = prefix ? { name: { $regex: `^${escapeRegex(prefix)}` } } : {};
    const infos = await this.db.listCollections(filter, { nameOnly: true }).toArray();
    return infos
      .map((info) => info.name)
      .filter((name) => !INTERNAL_COLLECTIONS.has(name) && !name.startsWith('system.'))
      .sort();
  }

  async applyBatch(
    changes: readonly DocumentChange[],
    checkpoint: Checkpoint,
    guard?: { readonly expectedPosition: string | null },
  ): Promise<void> {
    const byCollection = new Map<string, AnyBulkWriteOperation<StoredDocument>[]>();
    for (const change of changes) {
      assertCollectionName(change.collection);
      const operation = toBulkOperation(change);
      if (!operation) continue;
      let operations = byCollection.get(change.collection);
      if (!operations) byCollection.set(change.collection, (operations = []));
      operations.push(operation);
    }
    const checkpoints = this.checkpoints();
    const stored: StoredCheckpoint = { _id: checkpoint.key, position: checkpoint.position };
    if (checkpoint.details !== undefined) stored.details = { ...checkpoint.details };

    await this.inTransaction(async (session) => {
      if (guard) {
        const current = await checkpoints.findOne({ _id: checkpoint.key }, { session });
        const actual = current?.position ?? null;
        if (actual !== guard.expectedPosition) {
          throw new CheckpointMoved(checkpoint.key, guard.expectedPosition, actual);
        }
      }
      for (const [name, operations] of byCollection) {
        await this.documents(name).bulkWrite(operations, { session, ordered: true });
      }
      try {
        await checkpoints.replaceOne({ _id: checkpoint.key }, stored, { upsert: true, session });
      } catch (error) {
        // Two first batches racing to create the checkpoint: the loser normally gets a (retried) write
        // conflict, but may see the winner's insert as a duplicate key. With a guard, that means it moved.
        if (guard && hasCode(error, DUPLICATE_KEY)) throw new CheckpointRaced();
        throw error;
      }
    }).catch(async (error: unknown) => {
      if (!(error instanceof CheckpointRaced) || !guard) throw error;
      const current = await checkpoints.findOne({ _id: checkpoint.key });
      throw new CheckpointMoved(checkpoint.key, guard.expectedPosition, current?.position ?? null);
    });
  }

  async getCheckpoint(key: string): Promise<Checkpoint | null> {
    const stored = await this.checkpoints().findOne({ _id: key });
    return stored ? toCheckpoint(stored) : null;
  }

  async listCheckpoints(prefix?: string): Promise<Checkpoint[]> {
    const filter: MongoFilter<StoredCheckpoint> = prefix
      ? { _id: { $regex: `^${escapeRegex(prefix)}` } }
      : {};
    const stored = await this.checkpoints().find(filter).sort({ _id: 1 }).toArray();
    return stored.map(toCheckpoint);
  }

  async deleteCheckpoint(key: string): Promise<void> {
    await this.checkpoints().deleteOne({ _id: key });
  }

  async getMeta<T>(key: string): Promise<T | null> {
    const stored = await this.meta().findOne({ _id: key });
    return stored ? (stored.value as T) : null;
  }

  async getMetas<T>(keys: readonly string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return new Map();
    const stored = await this.meta()
      .find({ _id: { $in: [...keys] } })
      .toArray();
    return new Map(
      stored.filter((entry) => entry.value !== null).map((entry) => [entry._id, entry.value as T]),
    );
  }

  async compareAndSetMeta<T>(key: string, expected: T | null, value: T): Promise<boolean> {
    const next = { value: toJson(value), canonical: canonicalJson(value) };
    if (expected === null) {
      try {
        await this.meta().insertOne({ _id: key, ...next });
        return true;
      } catch (error) {
        if (hasCode(error, DUPLICATE_KEY)) return false;
        throw error;
      }
    }
    const result = await this.meta().updateOne(
      { _id: key, canonical: canonicalJson(expected) },
      { $set: next },
    );
    return result.matchedCount === 1;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  // --- internals -------------------------------------------------------------------------------------------

  private documents(name: string): MongoCollection<StoredDocument> {
    return this.db.collection<StoredDocument>(name);
  }

  private checkpoints(): MongoCollection<StoredCheckpoint> {
    return this.db.collection<StoredCheckpoint>(CHECKPOINTS_COLLECTION);
  }

  private meta(): MongoCollection<StoredMeta> {
    return this.db.collection<StoredMeta>(META_COLLECTION);
  }

  private async createCollectionIfMissing(name: string): Promise<void> {
    try {
      await this.db.createCollection(name);
    } catch (error) {
      if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
    }
  }

  private async inTransaction(work: (session: ClientSession) => Promise<void>): Promise<void> {
    const session = this.client.startSession();
    try {
      await session.withTransaction(() => work(session), {
        readConcern: { level: 'snapshot' },
        writeConcern: { w: 'majority' },
        readPreference: 'primary',
      });
    } finally {
      await session.endSession();
    }
  }
}

class MongoDocumentCollection<T extends ReadDocument> implements Collection<T> {
  constructor(
    readonly name: string,
    private readonly collection: MongoCollection<StoredDocument>,
  ) {}

  async get(id: string, session?: ClientSession): Promise<T | null> {
    const stored = await this.collection.findOne({ _id: id }, { session });
    return stored ? fromStored<T>(stored) : null;
  }

  async getMany(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const stored = await this.collection.find({ _id: { $in: unique } }).toArray();
    const byId = new Map(stored.map((document) => [document._id, fromStored<T>(document)]));
    return unique.flatMap((id) => {
      const document = byId.get(id);
      return document ? [document] : [];
    });
  }

  async upsert(document: T): Promise<void> {
    assertId(document.id);
    await this.collection.replaceOne({ _id: document.id }, toStoredBody(document), { upsert: true });
  }

  async patch(id: string, fields: Readonly<Record<string, unknown>>): Promise<boolean> {
    const update = toPatchUpdate(fields);
    if (!update) return (await this.collection.countDocuments({ _id: id }, { limit: 1 })) > 0;
    const result = await this.collection.updateOne({ _id: id }, update);
    return result.matchedCount > 0;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.collection.deleteOne({ _id: id });
    return result.deletedCount > 0;
  }

  async find(filter: Filter = {}, options: FindOptions = {}, session?: ClientSession): Promise<T[]> {
    if (options.limit !== undefined && options.limit <= 0) return [];
    let cursor = this.collection.find(toMongoFilter(filter), { session }).sort(toMongoSort(options.sort));
    if (options.offset) cursor = cursor.skip(options.offset);
    if (options.limit !== undefined) cursor = cursor.limit(options.limit);
    const stored = await cursor.toArray();
    return stored.map((document) => fromStored<T>(document));
  }

  async count(filter: Filter = {}): Promise<number> {
    return this.collection.countDocuments(toMongoFilter(filter));
  }
}

// --- mapping helpers ---------------------------------------------------------------------------------------

/** The stored field path for a port field path: a top-level `id` is `_id`. */
function fieldPath(path: string): string {
  return path === 'id' ? '_id' : path;
}

export function toMongoFilter(filter: Filter): MongoFilter<StoredDocument> {
  const out: Document = {};
  const and: Document[] = [];
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '$or') {
      const alternatives = condition as unknown as readonly Filter[];
      // An empty $or matches nothing (as `some` over an empty list); MongoDB rejects `$or: []`.
      if (alternatives.length === 0) return { _id: { $in: [] } };
      and.push({ $or: alternatives.map((alternative) => toMongoFilter(alternative)) });
      continue;
    }
    if (path.startsWith('$')) throw new Error(`unsupported filter operator ${path}`);
    const mapped = toMongoCondition(condition as FieldCondition);
    if (mapped === undefined) continue;
    out[fieldPath(path)] = mapped;
  }
  if (and.length === 1) Object.assign(out, and[0]);
  else if (and.length > 1) out.$and = and;
  return out as MongoFilter<StoredDocument>;
}

/** undefined when the condition constrains nothing. */
function toMongoCondition(condition: FieldCondition): unknown {
  if (condition === null || typeof condition !== 'object') return condition;
  const out: Document = {};
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    if (!FIELD_OPERATORS.has(operator)) throw new Error(`unsupported filter operator ${operator}`);
    if (operator === '$prefix') out.$regex = `^${escapeRegex(operand as string)}`;
    else if (operator === '$is' || operator === '$string') {
      // Equality that an array holding the value does not satisfy (the port's scalar-only equality).
      out.$eq = operand;
      out.$not = { $type: 'array' };
    } else out[operator] = operand;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function toMongoSort(sort: FindOptions['sort']): MongoSort {
  const out: Record<string, 1 | -1> = {};
  for (const [field, direction] of sort ?? []) {
    const path = fieldPath(field);
    if (!(path in out)) out[path] = direction;
  }
  if (!('_id' in out)) out._id = 1;
  return out;
}

function toBulkOperation(change: DocumentChange): AnyBulkWriteOperation<StoredDocument> | null {
  switch (change.kind) {
    case 'upsert':
      assertId(change.document.id);
      return {
        replaceOne: {
          filter: { _id: change.document.id },
          replacement: toStoredBody(change.document),
          upsert: true,
        },
      };
    case 'patch': {
      const update = toPatchUpdate(change.fields);
      return update ? { updateOne: { filter: { _id: change.id }, update } } : null;
    }
    case 'delete':
      return { deleteOne: { filter: { _id: change.id } } };
    case 'deleteWhere':
      return { deleteMany: { filter: toMongoFilter(change.filter) } };
  }
}

/** `$set` for defined fields, `$unset` for fields set to undefined; null when there is nothing to change. */
function toPatchUpdate(fields: Readonly<Record<string, unknown>>): Document | null {
  const set: Document = {};
  const unset: Document = {};
  for (const [field, value] of Object.entries(fields)) {
    if (field === 'id' || field === '_id') continue; // the id never changes
    if (value === undefined) unset[field] = '';
    else set[field] = value;
  }
  const update: Document = {};
  if (Object.keys(set).length > 0) update.$set = set;
  if (Object.keys(unset).length > 0) update.$unset = unset;
  return Object.keys(update).length > 0 ? update : null;
}

function toStoredBody(document: ReadDocument): Omit<StoredDocument, '_id'> {
  const { id: _id, ...body } = document;
  delete (body as { _id?: unknown })._id;
  return body;
}

function fromStored<T extends ReadDocument>(stored: StoredDocument): T {
  const { _id, ...body } = stored;
  return { id: _id, ...body } as unknown as T;
}

function toCheckpoint(stored: StoredCheckpoint): Checkpoint {
  return stored.details === undefined || stored.details === null
    ? { key: stored._id, position: stored.position ?? null }
    : { key: stored._id, position: stored.position ?? null, details: stored.details };
}

/** A JSON value as plain data (drops undefined, functions, class identity), as the port promises. */
function toJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** JSON with object keys sorted at every level: equal for deeply equal JSON values. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(toJson(value)));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function hasCode(error: unknown, ...codes: number[]): boolean {
  return error instanceof MongoServerError && typeof error.code === 'number' && codes.includes(error.code);
}

function assertCollectionName(name: string): void {
  if (!name || name.includes('$') || name.includes('\0') || name.startsWith('system.')) {
    throw new Error(`invalid collection name ${JSON.stringify(name)}`);
  }
  if (INTERNAL_COLLECTIONS.has(name)) throw new Error(`collection name ${name} is reserved`);
}

function assertId(id: unknown): void {
  if (typeof id !== 'string' || id.length === 0)
    throw new Error('a read document needs a non-empty string id');
}
