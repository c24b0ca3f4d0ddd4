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
 *   (see DocumentField in filter-sql.ts); IndexSpec indexes are built from the very same expressions, so the
 *   planner uses them for ordering and for ranges. Ties are broken by id (code point order).
 * - Unique indexes only cover documents that have every indexed field (as the MongoDB adapter's partial
 *   unique indexes), and compare values by type and value (1 and 1.0 collide, '1' and 1 do not).
 * - applyBatch is one transaction. Consecutive upserts, patches and deletes of a collection are folded into
 *   their net effect per id (in batch order) and written with at most three set-based statements;
 *   deleteWhere flushes its collection first, so the order of changes is preserved.
 */
import { hash } from 'node:crypto';
import { PG_ERROR, pgErrorCode, type SqlDatabase, type SqlExecutor } from '../../database/sql-database.js';
import {
  type ApplyBatchesOptions,
  type AtOnceRead,
  type AtOnceResults,
  type BatchWrite,
  type Checkpoint,
  CheckpointMoved,
  type Collection,
  type DocumentChange,
  type EnsureCollectionOptions,
  type Filter,
  type FindOptions,
  type IndexSpec,
  type ReadDocument,
  type ReadStore,
} from '../read-store.port.js';
import { type BatchStep, patchOf, planBatch } from './batch-plan.js';
import { buildFindStatement, compileFilter, indexDdl, SqlParameters } from './filter-sql.js';
import {
  assertDocumentId,
  COLLECTION_NAME,
  CONTAINMENT_INDEX_SUFFIX,
  declaredIndexName,
  indexName,
  json,
  literal,
  PRIMARY_KEY_SUFFIX,
  quote,
  TABLE_PREFIX,
  tableName,
} from './read-store-names.js';

export { buildFindStatement, type SqlStatement } from './filter-sql.js';

const CHECKPOINTS_TABLE = 'rs_checkpoints';
const META_TABLE = 'rs_meta';
/** Serializes the store's DDL across processes: concurrent CREATE ... IF NOT EXISTS can still collide. */
const DDL_ADVISORY_LOCK = 0x7265_6164; // 'read'

/** How many distinct readAtOnce statements are prepared on the server's connections at most. */
const MAX_PREPARED_READS = 256;

export class PostgresReadStore implements ReadStore {
  readonly kind: string;
  /** The readAtOnce statements prepared by name (mayPrepare). */
  private readonly preparedReads = new Set<string>();

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

  /**
   * One statement, so one snapshot and one round trip (ADR 0134): each read is a branch of a UNION ALL tagged
   * with its place, a find's rows numbered in their order. A collection that does not exist is left out and reads
   * as empty (looked up only when the statement names one).
   */
  async readAtOnce<const R extends readonly AtOnceRead<ReadDocument>[]>(reads: R): Promise<AtOnceResults<R>> {
    const answers: unknown[] = reads.map((read) => ('id' in read ? null : []));
    let missing = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      const params = new SqlParameters();
      const branches: string[] = [];
      reads.forEach((read, place) => {
        if (missing.has(read.collection.name)) return;
        if ('id' in read) {
          const table = quote(tableName(read.collection.name));
          branches.push(
            `SELECT ${place} AS place, 0::bigint AS rank, doc FROM ${table} WHERE id = ${params.add(read.id, 'text')}`,
          );
        } else if (read.options?.limit === undefined || read.options.limit > 0) {
          const { text } = buildFindStatement(read.collection.name, read.filter, read.options, params);
          branches.push(
            `SELECT ${place} AS place, row_number() OVER () AS rank, doc FROM (${text}) AS found`,
          );
        }
      });
      if (branches.length === 0) return answers as AtOnceResults<R>;
      let rows: Array<{ place: number; doc: ReadDocument }>;
      try {
        const text = `SELECT place, doc FROM (${branches.map((branch) => `(${branch})`).join(' UNION ALL ')}) AS reads
              ORDER BY place, rank`;
        rows = (
          this.db.queryPrepared && this.mayPrepare(text)
            ? await this.db.queryPrepared<{ place: number; doc: ReadDocument }>(
                `rs_at_once_${hash('sha256', text, 'hex').slice(0, 24)}`,
                text,
                params.values,
              )
            : await this.db.query<{ place: number; doc: ReadDocument }>(text, params.values)
        ).rows;
      } catch (error) {
        if (pgErrorCode(error) !== PG_ERROR.undefinedTable || attempt > 1) throw error;
        missing = await this.missingCollections(reads.map((read) => read.collection.name));
        continue;
      }
      for (const { place, doc } of rows) {
        const answer = answers[place];
        if (Array.isArray(answer)) answer.push(doc);
        else answers[place] = doc;
      }
      return answers as AtOnceResults<R>;
    }
  }

  /**
   * Named where the server allows: the same few statements (one per page shape) are then not parsed and planned
   * for every page (0.35 ms of a 2.4 ms page). A connection keeps what it prepared, so only the first
   * MAX_PREPARED_READS texts this process meets are named (a filter's `$in` spells each value in the text).
   */
  private mayPrepare(text: string): boolean {
    if (this.preparedReads.has(text)) return true;
    if (this.preparedReads.size >= MAX_PREPARED_READS) return false;
    this.preparedReads.add(text);
    return true;
  }

  private async missingCollections(names: readonly string[]): Promise<Set<string>> {
    const unique = [...new Set(names)];
    const { rows } = await this.db.query<{ name: string }>(
      `SELECT name FROM jsonb_to_recordset($1::jsonb) AS c(name text, qualified text)
        WHERE to_regclass(qualified) IS NULL`,
      [json(unique.map((name) => ({ name, qualified: quote(tableName(name)) })))],
    );
    return new Set(rows.map((row) => row.name));
  }

  async ensureCollection(
    name: string,
    indexes: readonly IndexSpec[] = [],
    options: EnsureCollectionOptions = {},
  ): Promise<void> {
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
      // A GIN index grows far faster in one build over the loaded rows than by one insert after another.
      if (options.withoutIndexes) return;
      const containment = quote(indexName(name, CONTAINMENT_INDEX_SUFFIX));
      await tx.query(
        options.withoutContainmentIndex
          ? `DROP INDEX IF EXISTS ${containment}`
          : `CREATE INDEX IF NOT EXISTS ${containment} ON ${quote(table)} USING gin (doc jsonb_path_ops)`,
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
    const statements = compileSteps(planBatch(changes));
    await this.db.transaction(async (tx) => {
      // A batch and its checkpoint commit together and can always be derived again from the event log, so the
      // commit need not wait for its WAL flush: a database crash can only lose both, and the projection then
      // applies those events again. Waiting would put every projection's flush in line with the appends.
      if (guard) await lockAndVerifyCheckpoint(tx, checkpoint.key, guard.expectedPosition);
      else await tx.query('SET LOCAL synchronous_commit TO OFF');
      for (const { text, params } of statements) await tx.query(text, params);
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

  async applyBatches(
    batches: readonly BatchWrite[],
    options: ApplyBatchesOptions = {},
  ): Promise<ReadonlyArray<CheckpointMoved | null>> {
    let dispatched = false;
    const dispatch = (): void => {
      if (dispatched) return;
      dispatched = true;
      options.onDispatched?.();
    };
    try {
      return await this.applyBatchesDispatching(batches, dispatch);
    } finally {
      dispatch();
    }
  }

  private async applyBatchesDispatching(
    batches: readonly BatchWrite[],
    dispatch: () => void,
  ): Promise<ReadonlyArray<CheckpointMoved | null>> {
    const outcomes: Array<CheckpointMoved | null> = batches.map(() => null);
    // Checkpoint rows are locked in key order, so two runners committing overlapping groups cannot deadlock.
    let remaining = batches
      .map((batch, index) => ({ batch, index, statements: compileSteps(planBatch(batch.changes)) }))
      .sort((a, b) => (a.batch.checkpoint.key < b.batch.checkpoint.key ? -1 : 1));
    while (remaining.length > 0) {
      const moved = new Set<number>();
      try {
        await this.db.transaction(async (tx) => {
          // One statement: it turns off the commit's WAL flush wait (see applyBatch: derived data) and locks every
          // guarded checkpoint (in key order) a group of sixteen projections would otherwise lock one by one.
          const guarded = remaining.filter(({ batch }) => batch.guard);
          const positions = await lockCheckpoints(
            tx,
            guarded.map(({ batch }) => batch.checkpoint.key),
          );
          for (const { batch, index } of guarded) {
            const actual = positions.get(batch.checkpoint.key) ?? null;
            if (actual !== batch.guard!.expectedPosition) {
              outcomes[index] = new CheckpointMoved(
                batch.checkpoint.key,
                batch.guard!.expectedPosition,
                actual,
              );
              moved.add(index);
            }
          }
          // Locking inserts a missing checkpoint row: a moved batch rolls the group back (moves are rare: a
          // generation switch, another runner), and the others are tried again without it.
          if (moved.size > 0) throw GROUP_RETRY;
          const statements = remaining.flatMap((each) => each.statements);
          const largest = largestStatement(statements);
          for (const [index, { text, params }] of statements.entries()) {
            const running = tx.query(text, params);
            // node-postgres sends a statement when it is issued: the caller's own work can start now.
            if (index === largest) dispatch();
            await running;
          }
          // Every checkpoint of the group in one statement.
          await tx.query(
            `INSERT INTO ${CHECKPOINTS_TABLE} (key, position, details)
             SELECT key, position, details
               FROM jsonb_to_recordset($1::jsonb) AS c(key text, position text, details jsonb)
             ON CONFLICT (key) DO UPDATE SET position = EXCLUDED.position, details = EXCLUDED.details`,
            [
              json(
                // An absent details key reads as SQL NULL, as applyBatch stores it.
                remaining.map(({ batch: { checkpoint } }) =>
                  checkpoint.details === undefined
                    ? { key: checkpoint.key, position: checkpoint.position }
                    : { key: checkpoint.key, position: checkpoint.position, details: checkpoint.details },
                ),
              ),
            ],
          );
        });
        return outcomes;
      } catch (error) {
        if (error !== GROUP_RETRY) throw error;
        remaining = remaining.filter(({ index }) => !moved.has(index));
      }
    }
    return outcomes;
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

  async getMetas<T>(keys: readonly string[]): Promise<Map<string, T>> {
    if (keys.length === 0) return new Map();
    const { rows } = await this.db.query<{ key: string; value: T | null }>(
      `SELECT key, value FROM ${META_TABLE} WHERE key = ANY ($1::text[])`,
      [keys],
    );
    return new Map(rows.filter((row) => row.value !== null).map((row) => [row.key, row.value as T]));
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

/** The index of the statement with the most parameter text (-1 for none). */
function largestStatement(statements: readonly StepStatement[]): number {
  let largest = -1;
  let size = -1;
  for (const [index, { params }] of statements.entries()) {
    const length = params.reduce<number>(
      (sum, param) => sum + (typeof param === 'string' ? param.length : 0),
      0,
    );
    if (length > size) [largest, size] = [index, length];
  }
  return largest;
}

/** One statement of a batch's write, its parameters serialized. */
interface StepStatement {
  readonly text: string;
  readonly params: unknown[];
}

/**
 * The statements of a batch's steps, their parameters serialized before the transaction begins (ADR 0125): a
 * rebuild page serializes megabytes of documents, and doing it between statements held the transaction open
 * and its connection idle while the process worked.
 */
function compileSteps(steps: readonly BatchStep[]): StepStatement[] {
  const statements: StepStatement[] = [];
  for (const step of steps) {
    const table = quote(tableName(step.collection));
    if (step.kind === 'deleteWhere') {
      const params = new SqlParameters();
      statements.push({
        text: `DELETE FROM ${table} WHERE ${compileFilter(step.filter, params)}`,
        params: params.values,
      });
      continue;
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
    if (deleted.length > 0)
      statements.push({
        text: `DELETE FROM ${table} WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
        params: [json(deleted)],
      });
    if (documents.length > 0)
      statements.push({
        text: `INSERT INTO ${table} (id, doc)
       SELECT r.id, r.doc FROM jsonb_to_recordset($1::jsonb) AS r(id text, doc jsonb)
       ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`,
        params: [json(documents)],
      });
    if (patches.length > 0)
      statements.push({
        text: `UPDATE ${table} AS t
          SET doc = (t.doc || p.fields) - ARRAY(SELECT jsonb_array_elements_text(p.removed))
         FROM jsonb_to_recordset($1::jsonb) AS p(id text, fields jsonb, removed jsonb)
        WHERE t.id = p.id`,
        params: [json(patches)],
      });
  }
  return statements;
}

/**
 * Locks the checkpoint row for the rest of the transaction (creating a placeholder when there is none, so a
 * first batch is guarded too), then compares. A concurrent runner waits here and then sees the new position.
 * One statement (it also turns off the commit's WAL flush wait): a batch runs for every few appends, and each
 * round trip of it competes with the requests.
 */
/** Rolls a group back to try it again without the batches whose checkpoint moved. */
const GROUP_RETRY = Symbol('group-retry');

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

/**
 * lockAndVerifyCheckpoint for several keys in one statement (in key order, as the callers sort them), with the
 * commit's WAL flush wait turned off. Returns each key's stored position.
 */
async function lockCheckpoints(
  tx: SqlExecutor,
  keys: readonly string[],
): Promise<Map<string, string | null>> {
  const { rows } = await tx.query<{ key: string; position: string | null }>(
    `WITH locked AS (
       INSERT INTO ${CHECKPOINTS_TABLE} AS c (key, position, details)
       SELECT k.key, NULL, NULL FROM jsonb_array_elements_text($1::jsonb) WITH ORDINALITY AS k(key, n) ORDER BY k.n
       ON CONFLICT (key) DO UPDATE SET key = c.key
       RETURNING c.key, c.position)
     SELECT key, position, set_config('synchronous_commit', 'off', true) AS synchronous_commit FROM locked`,
    [json(keys)],
  );
  return new Map(rows.map((row) => [row.key, row.position]));
}

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
