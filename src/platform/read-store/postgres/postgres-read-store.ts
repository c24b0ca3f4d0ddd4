/**
 * ReadStore adapter over PostgreSQL JSONB (a PostgreSQL server, or PGlite in or out of this process).
 * Passes test/contract/read-store.contract.ts.
 *
 * - One table per collection: `rs_<name> (id text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL)`; `doc` is the
 *   whole document, id included. Collection names, index names and field paths are validated before they
 *   are interpolated as identifiers or path literals; values are always bound parameters.
 * - Equality is JSONB containment (`doc @> {"a":{"b":v}}` or `doc @> {"a":{"b":[v]}}`, so an array field
 *   matches an element, as in MongoDB), served by one GIN `jsonb_path_ops` index per collection.
 * - Sorts and range filters order values like MongoDB: null/missing < numbers < strings < objects < arrays
 *   < booleans; numbers numerically, strings by code point. Every field path becomes three typed sort keys
 *   (see DocumentField); IndexSpec indexes are built from the very same expressions, so the planner uses
 *   them for ordering and for ranges. Ties are broken by id (code point order).
 * - Unique indexes only cover documents that have every indexed field (as the MongoDB adapter's partial
 *   unique indexes), and compare values by type and value (1 and 1.0 collide, '1' and 1 do not).
 * - applyBatch is one transaction. Consecutive upserts, patches and deletes of a collection are folded into
 *   their net effect per id (in batch order) and written with at most three set-based statements;
 *   deleteWhere flushes its collection first, so the order of changes is preserved.
 */
import { createHash } from 'node:crypto';
import { pgErrorCode, PG_ERROR, type SqlDatabase, type SqlExecutor } from '../../database/sql-database.js';
import {
  CheckpointMoved,
  type Checkpoint,
  type Collection,
  type DocumentChange,
  type FieldCondition,
  type Filter,
  type FilterValue,
  type FindOptions,
  type IndexSpec,
  type ReadDocument,
  type ReadStore,
  type Sort,
  type SortDirection,
} from '../read-store.port.js';

const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,50}$/;
const INDEX_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

const TABLE_PREFIX = 'rs_';
const CHECKPOINTS_TABLE = 'rs_checkpoints';
const META_TABLE = 'rs_meta';
/** Collection names whose tables would be the store's own tables. */
const RESERVED_COLLECTIONS = new Set(['checkpoints', 'meta']);
/** Suffixes of the indexes every collection table has (primary key, containment). */
const PRIMARY_KEY_SUFFIX = 'pkey';
const CONTAINMENT_INDEX_SUFFIX = 'containment';
const RESERVED_INDEX_NAMES = new Set([PRIMARY_KEY_SUFFIX, CONTAINMENT_INDEX_SUFFIX]);
/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1). */
const MAX_IDENTIFIER_BYTES = 63;
/** Serializes the store's DDL across processes: concurrent CREATE ... IF NOT EXISTS can still collide. */
const DDL_ADVISORY_LOCK = 0x7265_6164; // 'read'

export class PostgresReadStore implements ReadStore {
  readonly kind: string;

  constructor(private readonly db: SqlDatabase) {
    this.kind = db.kind;
  }

  async init(): Promise<void> {
    await this.withDdlLock(async (tx) => {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${CHECKPOINTS_TABLE} (key text COLLATE "C" PRIMARY KEY, position text, details jsonb)`,
      );
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${META_TABLE} (key text COLLATE "C" PRIMARY KEY, value jsonb)`,
      );
    });
  }

  collection<T extends ReadDocument = ReadDocument>(name: string): Collection<T> {
    return new PostgresCollection<T>(this.db, name);
  }

  async ensureCollection(name: string, indexes: readonly IndexSpec[] = []): Promise<void> {
    const table = tableName(name);
    if (new Set(indexes.map((index) => index.name)).size !== indexes.length) {
      throw new Error(`duplicate index names for collection ${name}`);
    }
    const statements = indexes.map((index) => ({
      name: declaredIndexName(name, index.name),
      ddl: indexDdl(name, index),
    }));

    await this.withDdlLock(async (tx) => {
      await tx.query(
        `CREATE TABLE IF NOT EXISTS ${quote(table)} (
           id text COLLATE "C" NOT NULL CONSTRAINT ${quote(indexName(name, PRIMARY_KEY_SUFFIX))} PRIMARY KEY,
           doc jsonb NOT NULL)`,
      );
      await tx.query(
        `CREATE INDEX IF NOT EXISTS ${quote(indexName(name, CONTAINMENT_INDEX_SUFFIX))}
           ON ${quote(table)} USING gin (doc jsonb_path_ops)`,
      );
      // Each declared index carries its own DDL as comment: a changed declaration replaces the index.
      const { rows } = await tx.query<{ name: string; ddl: string | null }>(
        `SELECT i.relname AS name, obj_description(i.oid, 'pg_class') AS ddl
           FROM pg_index x
           JOIN pg_class i ON i.oid = x.indexrelid
          WHERE x.indrelid = to_regclass($1)`,
        [quote(table)],
      );
      const existing = new Map(rows.map((row) => [row.name, row.ddl]));
      for (const statement of statements) {
        if (existing.has(statement.name)) {
          if (existing.get(statement.name) === statement.ddl) continue;
          await tx.query(`DROP INDEX ${quote(statement.name)}`);
        }
        await tx.query(statement.ddl);
        await tx.query(`COMMENT ON INDEX ${quote(statement.name)} IS ${literal(statement.ddl)}`);
      }
    });
  }

  async dropCollection(name: string): Promise<void> {
    await this.db.query(`DROP TABLE IF EXISTS ${quote(tableName(name))}`);
  }

  async listCollections(prefix = ''): Promise<string[]> {
    const { rows } = await this.db.query<{ name: string }>(
      `SELECT substr(c.relname, ${TABLE_PREFIX.length + 1}) AS name
         FROM pg_class c
        WHERE c.relkind IN ('r', 'p')
          AND c.relnamespace = current_schema()::regnamespace
          AND starts_with(c.relname, $1)
          AND c.relname NOT IN ('${CHECKPOINTS_TABLE}', '${META_TABLE}')
        ORDER BY c.relname COLLATE "C"`,
      [TABLE_PREFIX + prefix],
    );
    return rows.map((row) => row.name).filter((name) => COLLECTION_NAME.test(name));
  }

  async applyBatch(
    changes: readonly DocumentChange[],
    checkpoint: Checkpoint,
    guard?: { readonly expectedPosition: string | null },
  ): Promise<void> {
    const steps = planBatch(changes);
    await this.db.transaction(async (tx) => {
      // A batch and its checkpoint commit together and can always be derived again from the event log, so the
      // commit need not wait for its WAL flush: a database crash can only lose both, and the projection then
      // applies those events again. Waiting would put every projection's flush in line with the appends.
      if (guard) await lockAndVerifyCheckpoint(tx, checkpoint.key, guard.expectedPosition);
      else await tx.query('SET LOCAL synchronous_commit TO OFF');
      for (const step of steps) await executeStep(tx, step);
      await tx.query(
        `INSERT INTO ${CHECKPOINTS_TABLE} (key, position, details) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (key) DO UPDATE SET position = EXCLUDED.position, details = EXCLUDED.details`,
        [
          checkpoint.key,
          checkpoint.position,
          checkpoint.details === undefined ? null : json(checkpoint.details),
        ],
      );
    });
  }

  async getCheckpoint(key: string): Promise<Checkpoint | null> {
    const { rows } = await this.db.query<CheckpointRow>(
      `SELECT key, position, details FROM ${CHECKPOINTS_TABLE} WHERE key = $1`,
      [key],
    );
    return rows[0] ? toCheckpoint(rows[0]) : null;
  }

  async listCheckpoints(prefix = ''): Promise<Checkpoint[]> {
    const { rows } = await this.db.query<CheckpointRow>(
      `SELECT key, position, details FROM ${CHECKPOINTS_TABLE} WHERE starts_with(key, $1) ORDER BY key`,
      [prefix],
    );
    return rows.map(toCheckpoint);
  }

  async deleteCheckpoint(key: string): Promise<void> {
    await this.db.query(`DELETE FROM ${CHECKPOINTS_TABLE} WHERE key = $1`, [key]);
  }

  async getMeta<T>(key: string): Promise<T | null> {
    const { rows } = await this.db.query<{ value: T | null }>(
      `SELECT value FROM ${META_TABLE} WHERE key = $1`,
      [key],
    );
    return rows[0]?.value ?? null;
  }

  async compareAndSetMeta<T>(key: string, expected: T | null, value: T): Promise<boolean> {
    // One statement each: row locks and the primary key make concurrent callers see each other's writes.
    const result =
      expected === null
        ? await this.db.query(
            `INSERT INTO ${META_TABLE} (key, value) VALUES ($1, $2::jsonb)
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE ${META_TABLE}.value = 'null'::jsonb`,
            [key, json(value)],
          )
        : await this.db.query(
            `UPDATE ${META_TABLE} SET value = $3::jsonb WHERE key = $1 AND value = $2::jsonb`,
            [key, json(expected), json(value)],
          );
    return result.affectedRows === 1;
  }

  /** The SqlDatabase belongs to whoever opened it (it is shared with the event store). */
  async close(): Promise<void> {}

  private async withDdlLock(fn: (tx: SqlExecutor) => Promise<void>): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${DDL_ADVISORY_LOCK})`);
      await fn(tx);
    });
  }
}

class PostgresCollection<T extends ReadDocument> implements Collection<T> {
  private readonly table: string;

  constructor(
    private readonly db: SqlDatabase,
    readonly name: string,
  ) {
    this.table = quote(tableName(name));
  }

  async get(id: string): Promise<T | null> {
    const rows = await this.read<DocRow<T>>(`SELECT doc FROM ${this.table} WHERE id = $1`, [id]);
    return rows[0]?.doc ?? null;
  }

  async getMany(ids: readonly string[]): Promise<T[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const rows = await this.read<DocRow<T>>(
      `SELECT doc FROM ${this.table} WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
      [json(unique)],
    );
    const byId = new Map(rows.map((row) => [row.doc.id, row.doc]));
    return unique.flatMap((id) => byId.get(id) ?? []);
  }

  async upsert(document: T): Promise<void> {
    assertDocumentId(document.id);
    await this.db.query(
      `INSERT INTO ${this.table} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`,
      [document.id, json(document)],
    );
  }

  async patch(id: string, fields: Readonly<Record<string, unknown>>): Promise<boolean> {
    const patch = patchOf(fields);
    const result = await this.db.query(
      `UPDATE ${this.table} SET doc = (doc || $2::jsonb) - ARRAY(SELECT jsonb_array_elements_text($3::jsonb))
        WHERE id = $1`,
      [id, json(patch.fields), json([...patch.removed])],
    );
    return result.affectedRows > 0;
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.query(`DELETE FROM ${this.table} WHERE id = $1`, [id]);
    return result.affectedRows > 0;
  }

  async find(filter: Filter = {}, options: FindOptions = {}): Promise<T[]> {
    if (options.limit !== undefined && options.limit <= 0) return [];
    const statement = buildFindStatement(this.name, filter, options);
    const rows = await this.read<DocRow<T>>(statement.text, statement.params);
    return rows.map((row) => row.doc);
  }

  async count(filter: Filter = {}): Promise<number> {
    const params = new SqlParameters();
    const where = compileFilter(filter, params);
    const rows = await this.read<{ count: string }>(
      `SELECT count(*)::text AS count FROM ${this.table} WHERE ${where}`,
      params.values,
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** A collection that was never created (or was dropped) reads as empty, as in MongoDB. */
  private async read<R>(text: string, params: readonly unknown[]): Promise<R[]> {
    try {
      return (await this.db.query<R>(text, params)).rows;
    } catch (error) {
      if (pgErrorCode(error) === PG_ERROR.undefinedTable) return [];
      throw error;
    }
  }
}

// --- queries -------------------------------------------------------------------------------------------------

export interface SqlStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * The SELECT that Collection.find runs (exported so tests can EXPLAIN exactly what the store executes).
 * `offset` and `limit` must be non-negative integers.
 */
export function buildFindStatement(
  collection: string,
  filter: Filter = {},
  options: FindOptions = {},
): SqlStatement {
  const params = new SqlParameters();
  const where = compileFilter(filter, params);
  let text = `SELECT doc FROM ${quote(tableName(collection))} WHERE ${where} ORDER BY ${compileSort(options.sort)}`;
  if (options.limit !== undefined) {
    text += ` LIMIT ${params.add(nonNegativeInteger(options.limit, 'limit'), 'bigint')}`;
  }
  if (options.offset) {
    text += ` OFFSET ${params.add(nonNegativeInteger(options.offset, 'offset'), 'bigint')}`;
  }
  return { text, params: params.values };
}

/** Bound parameters of one statement, with the cast each placeholder needs. */
class SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown, type: 'text' | 'numeric' | 'jsonb' | 'bigint'): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  json(value: unknown): string {
    return this.add(json(value), 'jsonb');
  }
}

type RangeOperator = '>' | '>=' | '<' | '<=';

const RANGE_OPERATORS: Readonly<Record<string, RangeOperator>> = {
  $gt: '>',
  $gte: '>=',
  $lt: '<',
  $lte: '<=',
};

/** SQL for conditions on one field, and the keys that order it. */
interface FieldSql {
  equals(value: FilterValue, params: SqlParameters): string;
  equalsAny(values: readonly FilterValue[], params: SqlParameters): string;
  compare(operator: RangeOperator, bound: string | number, params: SqlParameters): string;
  startsWith(prefix: string, params: SqlParameters): string;
  exists(): string;
  /** Expressions that order the field like MongoDB; indexes are built from exactly these. */
  sortKeys(): string[];
  /** Condition under which a unique index covers a document, or null when every document has the field. */
  presence(): string | null;
}

/** MongoDB's order of BSON types, for the types JSON has (null and missing sort first). */
const TYPE_RANK = { null: 0, number: 1, string: 2, object: 3, array: 4, boolean: 5 } as const;

/**
 * A field inside `doc`, at a dotted path. Its value `v` is `(doc #> '{a,b}')` (SQL NULL when missing).
 * Sort keys, in order:
 *   1. type rank:  CASE jsonb_typeof(v) WHEN 'number' THEN 1 WHEN 'string' THEN 2 ... ELSE 0 END
 *   2. number key: CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END
 *   3. text key:   (CASE WHEN jsonb_typeof(v) <> 'number' THEN doc #>> '{a,b}' END) COLLATE "C"
 * so numbers compare numerically, strings by code point, booleans false < true, and null/missing have
 * (0, NULL, NULL). Range filters are `rank = 1 AND number key > $n` (or rank 2 and the text key).
 */
class DocumentField implements FieldSql {
  private readonly segments: readonly string[];
  private readonly value: string;
  private readonly rank: string;
  private readonly numberKey: string;
  private readonly textKey: string;

  constructor(path: string) {
    this.segments = path.split('.');
    // Segments are validated ([A-Za-z0-9_]), so they are safe inside a text[] literal.
    const pathLiteral = `'{${this.segments.join(',')}}'`;
    this.value = `(doc #> ${pathLiteral})`;
    const ranks = Object.entries(TYPE_RANK)
      .filter(([, rank]) => rank !== TYPE_RANK.null)
      .map(([type, rank]) => `WHEN '${type}' THEN ${rank}`)
      .join(' ');
    this.rank = `(CASE jsonb_typeof${this.value} ${ranks} ELSE ${TYPE_RANK.null} END)`;
    this.numberKey = `(CASE WHEN jsonb_typeof${this.value} = 'number' THEN ${this.value}::numeric END)`;
    this.textKey = `((CASE WHEN jsonb_typeof${this.value} <> 'number' THEN doc #>> ${pathLiteral} END) COLLATE "C")`;
  }

  equals(value: FilterValue, params: SqlParameters): string {
    // MongoDB: null matches null and missing fields.
    if (value === null) return `(${this.rank} = ${TYPE_RANK.null})`;
    assertFilterValue(value);
    // Containment does not look into nested arrays, so the array case is spelled out.
    return `(doc @> ${params.json(this.nest(value))} OR doc @> ${params.json(this.nest([value]))})`;
  }

  equalsAny(values: readonly FilterValue[], params: SqlParameters): string {
    if (values.length === 0) return 'FALSE';
    return `(${values.map((value) => this.equals(value, params)).join(' OR ')})`;
  }

  compare(operator: RangeOperator, bound: string | number, params: SqlParameters): string {
    // Range operators only compare values of the bound's type (MongoDB type bracketing).
    if (typeof bound === 'number') {
      return `(${this.rank} = ${TYPE_RANK.number} AND ${this.numberKey} ${operator} ${params.add(finite(bound), 'numeric')})`;
    }
    return `(${this.rank} = ${TYPE_RANK.string} AND ${this.textKey} ${operator} ${params.add(bound, 'text')})`;
  }

  startsWith(prefix: string, params: SqlParameters): string {
    // LIKE with a literal prefix under COLLATE "C" becomes an index range on the text key.
    return `(${this.rank} = ${TYPE_RANK.string} AND ${this.textKey} LIKE ${params.add(likePrefix(prefix), 'text')})`;
  }

  exists(): string {
    return `(${this.value} IS NOT NULL)`;
  }

  sortKeys(): string[] {
    return [this.rank, this.numberKey, this.textKey];
  }

  presence(): string {
    return this.exists();
  }

  private nest(leaf: unknown): unknown {
    return this.segments.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), leaf);
  }
}

/** The top-level `id`: the primary key column (its copy in `doc` is always the same string). */
class IdColumn implements FieldSql {
  equals(value: FilterValue, params: SqlParameters): string {
    return typeof value === 'string' ? `(id = ${params.add(value, 'text')})` : 'FALSE';
  }

  equalsAny(values: readonly FilterValue[], params: SqlParameters): string {
    const ids = values.filter((value): value is string => typeof value === 'string');
    if (ids.length === 0) return 'FALSE';
    return `(id IN (SELECT jsonb_array_elements_text(${params.json(ids)})))`;
  }

  compare(operator: RangeOperator, bound: string | number, params: SqlParameters): string {
    return typeof bound === 'string' ? `(id ${operator} ${params.add(bound, 'text')})` : 'FALSE';
  }

  startsWith(prefix: string, params: SqlParameters): string {
    return `(id LIKE ${params.add(likePrefix(prefix), 'text')})`;
  }

  exists(): string {
    return 'TRUE';
  }

  sortKeys(): string[] {
    return ['id'];
  }

  presence(): null {
    return null;
  }
}

function fieldSql(path: string): FieldSql {
  if (!FIELD_PATH.test(path)) throw new Error(`invalid field path ${JSON.stringify(path)}`);
  return path === 'id' ? new IdColumn() : new DocumentField(path);
}

function compileFilter(filter: Filter, params: SqlParameters): string {
  const conditions: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$or') {
      const alternatives = condition as readonly Filter[];
      // An empty $or matches nothing, like `some` over an empty list.
      conditions.push(
        alternatives.length === 0
          ? 'FALSE'
          : `(${alternatives.map((alternative) => `(${compileFilter(alternative, params)})`).join(' OR ')})`,
      );
    } else if (key.startsWith('$')) {
      throw new Error(`unsupported filter operator ${key}`);
    } else {
      conditions.push(compileCondition(fieldSql(key), condition as FieldCondition, params));
    }
  }
  return conditions.length === 0 ? 'TRUE' : conditions.join(' AND ');
}

function compileCondition(field: FieldSql, condition: FieldCondition, params: SqlParameters): string {
  if (condition === null || typeof condition !== 'object') return field.equals(condition, params);
  const conditions: string[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    const range = RANGE_OPERATORS[operator];
    if (range) {
      conditions.push(field.compare(range, rangeBound(operator, operand), params));
      continue;
    }
    switch (operator) {
      case '$in':
        conditions.push(field.equalsAny(filterValues(operator, operand), params));
        break;
      case '$nin':
        conditions.push(`NOT ${field.equalsAny(filterValues(operator, operand), params)}`);
        break;
      case '$ne':
        conditions.push(`NOT ${field.equals(operand as FilterValue, params)}`);
        break;
      case '$exists':
        conditions.push(operand ? field.exists() : `NOT ${field.exists()}`);
        break;
      case '$prefix':
        if (typeof operand !== 'string') throw new Error('$prefix needs a string');
        conditions.push(field.startsWith(operand, params));
        break;
      default:
        throw new Error(`unsupported filter operator ${operator}`);
    }
  }
  return conditions.length === 0 ? 'TRUE' : `(${conditions.join(' AND ')})`;
}

function compileSort(sort: Sort | undefined): string {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const [path, direction] of sort ?? []) {
    if (seen.has(path)) continue;
    seen.add(path);
    const order = sqlDirection(direction);
    for (const key of fieldSql(path).sortKeys()) keys.push(`${key} ${order}`);
  }
  // Ties by id so that pages are stable.
  if (!seen.has('id')) keys.push('id ASC');
  return keys.join(', ');
}

function indexDdl(collection: string, index: IndexSpec): string {
  if (index.fields.length === 0) throw new Error(`index ${index.name} declares no field`);
  const fields = index.fields.map(([path, direction]) => ({ field: fieldSql(path), path, direction }));
  const paths = new Set(fields.map(({ path }) => path));
  if (paths.size !== fields.length) throw new Error(`index ${index.name} repeats a field`);
  const columns = fields.flatMap(({ field, direction }) =>
    field.sortKeys().map((key) => `${key} ${sqlDirection(direction)}`),
  );
  const name = quote(declaredIndexName(collection, index.name));
  const table = quote(tableName(collection));
  if (!index.unique) {
    // The id tie-break is part of every sort, so the index serves the whole ORDER BY.
    if (!paths.has('id')) columns.push('id ASC');
    return `CREATE INDEX ${name} ON ${table} (${columns.join(', ')})`;
  }
  // A missing field leaves the document out (no collision); NULL keys of present values must still collide.
  const presence = fields.map(({ field }) => field.presence()).filter((condition) => condition !== null);
  const where = presence.length > 0 ? ` WHERE ${presence.join(' AND ')}` : '';
  return `CREATE UNIQUE INDEX ${name} ON ${table} (${columns.join(', ')}) NULLS NOT DISTINCT${where}`;
}

// --- batches -------------------------------------------------------------------------------------------------

interface Patch {
  readonly fields: Record<string, unknown>;
  readonly removed: Set<string>;
}

/** What a run of changes leaves of one document. */
type NetChange =
  | { readonly kind: 'put'; readonly document: ReadDocument }
  | { readonly kind: 'delete' }
  | { readonly kind: 'patch'; readonly patch: Patch };

type BatchStep =
  | { readonly kind: 'write'; readonly collection: string; readonly changes: ReadonlyMap<string, NetChange> }
  | { readonly kind: 'deleteWhere'; readonly collection: string; readonly filter: Filter };

/**
 * Folds the changes into set-based steps with the same outcome as applying them one by one. Collections are
 * independent, so only a deleteWhere needs the pending writes of its own collection to be flushed before it.
 */
function planBatch(changes: readonly DocumentChange[]): BatchStep[] {
  const steps: BatchStep[] = [];
  const pending = new Map<string, Map<string, NetChange>>();
  const flush = (collection: string): void => {
    const writes = pending.get(collection);
    if (writes) steps.push({ kind: 'write', collection, changes: writes });
    pending.delete(collection);
  };
  for (const change of changes) {
    assertCollectionName(change.collection);
    if (change.kind === 'deleteWhere') {
      flush(change.collection);
      steps.push({ kind: 'deleteWhere', collection: change.collection, filter: change.filter });
      continue;
    }
    let writes = pending.get(change.collection);
    if (!writes) pending.set(change.collection, (writes = new Map()));
    const id = change.kind === 'upsert' ? change.document.id : change.id;
    assertDocumentId(id);
    const next = fold(writes.get(id), change);
    // Re-inserted so rows are written in the order of their last change.
    writes.delete(id);
    writes.set(id, next);
  }
  for (const collection of [...pending.keys()]) flush(collection);
  return steps;
}

function fold(
  previous: NetChange | undefined,
  change: Exclude<DocumentChange, { kind: 'deleteWhere' }>,
): NetChange {
  switch (change.kind) {
    case 'upsert':
      return { kind: 'put', document: change.document };
    case 'delete':
      return { kind: 'delete' };
    case 'patch': {
      const patch = patchOf(change.fields);
      if (!previous) return { kind: 'patch', patch };
      if (previous.kind === 'delete') return previous; // patching a missing document changes nothing
      if (previous.kind === 'put') return { kind: 'put', document: applyPatch(previous.document, patch) };
      return { kind: 'patch', patch: composePatches(previous.patch, patch) };
    }
  }
}

async function executeStep(tx: SqlExecutor, step: BatchStep): Promise<void> {
  const table = quote(tableName(step.collection));
  if (step.kind === 'deleteWhere') {
    const params = new SqlParameters();
    await tx.query(`DELETE FROM ${table} WHERE ${compileFilter(step.filter, params)}`, params.values);
    return;
  }
  const deleted: string[] = [];
  const documents: { id: string; doc: ReadDocument }[] = [];
  const patches: { id: string; fields: Record<string, unknown>; removed: string[] }[] = [];
  for (const [id, change] of step.changes) {
    if (change.kind === 'delete') deleted.push(id);
    else if (change.kind === 'put') documents.push({ id, doc: change.document });
    else patches.push({ id, fields: change.patch.fields, removed: [...change.patch.removed] });
  }
  // Each id has one net change, so the order of these statements does not matter.
  if (deleted.length > 0) {
    await tx.query(`DELETE FROM ${table} WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))`, [
      json(deleted),
    ]);
  }
  if (documents.length > 0) {
    await tx.query(
      `INSERT INTO ${table} (id, doc)
       SELECT r.id, r.doc FROM jsonb_to_recordset($1::jsonb) AS r(id text, doc jsonb)
       ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`,
      [json(documents)],
    );
  }
  if (patches.length > 0) {
    await tx.query(
      `UPDATE ${table} AS t
          SET doc = (t.doc || p.fields) - ARRAY(SELECT jsonb_array_elements_text(p.removed))
         FROM jsonb_to_recordset($1::jsonb) AS p(id text, fields jsonb, removed jsonb)
        WHERE t.id = p.id`,
      [json(patches)],
    );
  }
}

/**
 * Locks the checkpoint row for the rest of the transaction (creating a placeholder when there is none, so a
 * first batch is guarded too), then compares. A concurrent runner waits here and then sees the new position.
 * One statement (it also turns off the commit's WAL flush wait): a batch runs for every few appends, and each
 * round trip of it competes with the requests.
 */
async function lockAndVerifyCheckpoint(tx: SqlExecutor, key: string, expected: string | null): Promise<void> {
  // On conflict the no-op update locks the existing row and RETURNING gives its position unchanged.
  const { rows } = await tx.query<{ position: string | null }>(
    `INSERT INTO ${CHECKPOINTS_TABLE} AS c (key, position, details) VALUES ($1, NULL, NULL)
     ON CONFLICT (key) DO UPDATE SET key = c.key
     RETURNING c.position, set_config('synchronous_commit', 'off', true) AS synchronous_commit`,
    [key],
  );
  const actual = rows[0]?.position ?? null;
  if (actual !== expected) throw new CheckpointMoved(key, expected, actual);
}

// --- patches -------------------------------------------------------------------------------------------------

/** JSON has no undefined: fields set to undefined become an explicit list of removed fields. */
function patchOf(fields: Readonly<Record<string, unknown>>): Patch {
  const patch: Patch = { fields: {}, removed: new Set() };
  for (const [field, value] of Object.entries(fields)) {
    if (field === 'id') continue; // the id never changes
    if (value === undefined) patch.removed.add(field);
    else patch.fields[field] = value;
  }
  return patch;
}

function applyPatch(document: ReadDocument, patch: Patch): ReadDocument {
  const patched: Record<string, unknown> = { ...document, ...patch.fields };
  for (const field of patch.removed) delete patched[field];
  return patched as ReadDocument;
}

/** One patch with the effect of `first` then `second`; its fields and removals never overlap. */
function composePatches(first: Patch, second: Patch): Patch {
  const composed: Patch = { fields: { ...first.fields }, removed: new Set(first.removed) };
  for (const [field, value] of Object.entries(second.fields)) {
    composed.fields[field] = value;
    composed.removed.delete(field);
  }
  for (const field of second.removed) {
    delete composed.fields[field];
    composed.removed.add(field);
  }
  return composed;
}

// --- helpers -------------------------------------------------------------------------------------------------

interface DocRow<T> {
  doc: T;
}

interface CheckpointRow {
  key: string;
  position: string | null;
  details: Record<string, unknown> | null;
}

function toCheckpoint(row: CheckpointRow): Checkpoint {
  return row.details === null
    ? { key: row.key, position: row.position }
    : { key: row.key, position: row.position, details: row.details };
}

function assertCollectionName(collection: string): void {
  if (!COLLECTION_NAME.test(collection))
    throw new Error(`invalid collection name ${JSON.stringify(collection)}`);
  if (RESERVED_COLLECTIONS.has(collection)) throw new Error(`collection name ${collection} is reserved`);
}

/** The table of a collection; the name is validated, so it is safe to interpolate. */
function tableName(collection: string): string {
  assertCollectionName(collection);
  return TABLE_PREFIX + collection;
}

/** `rs_<collection>__<index>`; names past PostgreSQL's limit are cut and made unique with a hash. */
function indexName(collection: string, index: string): string {
  if (!INDEX_NAME.test(index)) throw new Error(`invalid index name ${JSON.stringify(index)}`);
  const name = `${tableName(collection)}__${index}`;
  if (name.length <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - hash.length - 1)}_${hash}`;
}

function declaredIndexName(collection: string, index: string): string {
  if (RESERVED_INDEX_NAMES.has(index)) throw new Error(`index name ${index} is reserved`);
  return indexName(collection, index);
}

/** Identifiers here are validated lower-case names; quoting keeps them exact. */
function quote(identifier: string): string {
  return `"${identifier}"`;
}

/** A string literal for DDL (COMMENT takes no parameters). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** LIKE pattern matching strings that start with `prefix` (its wildcards escaped). */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
}

function sqlDirection(direction: SortDirection): 'ASC' | 'DESC' {
  if (direction === 1) return 'ASC';
  if (direction === -1) return 'DESC';
  throw new Error(`invalid sort direction ${String(direction)}`);
}

function assertDocumentId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0)
    throw new Error('a read document needs a non-empty string id');
}

function assertFilterValue(value: unknown): void {
  if (typeof value === 'number') finite(value);
  else if (typeof value !== 'string' && typeof value !== 'boolean') {
    throw new Error(`filters compare with strings, numbers, booleans or null, not ${typeof value}`);
  }
}

function filterValues(operator: string, operand: unknown): readonly FilterValue[] {
  if (!Array.isArray(operand)) throw new Error(`${operator} needs an array`);
  return operand as FilterValue[];
}

function rangeBound(operator: string, operand: unknown): string | number {
  if (typeof operand === 'string') return operand;
  if (typeof operand === 'number') return finite(operand);
  throw new Error(`${operator} needs a string or a number`);
}

function finite(value: number): number {
  if (!Number.isFinite(value)) throw new Error(`filters need finite numbers, not ${value}`);
  return value;
}

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${what} must be a non-negative integer`);
  return value;
}
