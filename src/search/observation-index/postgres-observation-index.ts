/**
 * ObservationIndex over PostgreSQL (a server, or PGlite in or out of this process). Passes
 * test/contract/observation-index.contract.ts. Layout, indexes and the query compiler: postgres-query-compiler.ts.
 *
 * - write: validated and normalized first (one invalid record refuses the batch), then one transaction of
 *   set-based upserts (one jsonb parameter per chunk of rows).
 * - search: a count capped at countLimit + 1, then the page, read filter-first when the count shows few
 *   matches (see PageStrategy in the compiler).
 * - Abort: the call rejects with the signal's reason (AbortError, or e.g. TimeoutError for
 *   AbortSignal.timeout), and the signal is checked before every statement.
 *   - PostgreSQL server: a call with a signal runs on one pinned connection (no transaction: a read needs none,
 *     and BEGIN/COMMIT would be two more round trips per search); when the signal
 *     aborts, `pg_cancel_backend(pid)` is sent on a connection of its own, outside the pool (every pooled
 *     connection may be pinned by a statement waiting for its cancel), and the running statement ends
 *     with 57014. The cancel is awaited before the pinned connection is released, so it cannot hit a later,
 *     unrelated statement (a cancel that reaches a backend waiting for a command is discarded by PostgreSQL).
 *   - PGlite through its socket (another process owns it): one session, no cancel; the call rejects at once
 *     and the running statement finishes in the owner's process, holding the session until then.
 *   - PGlite in this process: a running statement cannot be interrupted and even blocks this thread (the
 *     timer of a deadline fires only when it ends). The abort lands between statements: the call rejects after
 *     the current statement and runs no further one.
 */
import { pgErrorCode, type SqlDatabase, type SqlExecutor } from '../../platform/database/sql-database.js';
import { DATASETS, type Dataset } from '../domain/datasets.js';
import {
  aggregatableField,
  assertDataset,
  normalizeBatch,
  pageRequest,
  positiveInteger,
  raceAbort,
  throwIfAborted,
  totalFromCount,
  totalFromPage,
  type Facets,
  type FacetValue,
  type MergedWrite,
  type ObservationIndex,
  type ObservationQuery,
  type ObservationRecord,
  type ObservationWriteOptions,
  type ObservationWriteResult,
  type SearchPage,
} from './observation-index.port.js';
import {
  facetsStatement,
  countStatement,
  FILTER_FIRST_MAX_MATCHES,
  layoutOf,
  mergeUpsertSql,
  searchStatement,
  streamStatement,
  tableDdl,
  tableOf,
  upsertSql,
  writeRows,
  type PageStrategy,
  type SqlSelectorCompiler,
  type SqlStatement,
} from './postgres-query-compiler.js';

export interface PostgresObservationIndexOptions {
  /** Compiles `cve:`/`kev:` selectors (enrichment context); without it such queries fail. */
  readonly selectors?: SqlSelectorCompiler;
  /** Rows per INSERT statement of a write (default 500). */
  readonly writeChunk?: number;
}

const QUERY_CANCELED = '57014';
/** Serializes the DDL of init across processes (concurrent CREATE ... IF NOT EXISTS can still collide). */
const DDL_ADVISORY_LOCK = 0x6f62_7378; // 'obsx'

export class PostgresObservationIndex implements ObservationIndex {
  readonly kind: string;
  private readonly selectors: SqlSelectorCompiler | undefined;
  private readonly writeChunk: number;

  constructor(
    private readonly db: SqlDatabase,
    options: PostgresObservationIndexOptions = {},
  ) {
    this.kind = db.kind;
    this.selectors = options.selectors;
    this.writeChunk = positiveInteger(options.writeChunk ?? 500, 'writeChunk');
  }

  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${DDL_ADVISORY_LOCK})`);
      await tx.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      for (const dataset of DATASETS) {
        const layout = layoutOf(dataset);
        for (const statement of tableDdl(dataset)) await tx.query(statement);
        // Each index carries its DDL as comment: a changed definition replaces the index.
        const { rows } = await tx.query<{ name: string; ddl: string | null }>(
          `SELECT i.relname AS name, obj_description(i.oid, 'pg_class') AS ddl
             FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE x.indrelid = to_regclass($1)`,
          [layout.table],
        );
        const existing = new Map(rows.map((row) => [row.name, row.ddl]));
        for (const index of layout.indexes) {
          if (existing.has(index.name)) {
            if (existing.get(index.name) === index.ddl) continue;
            await tx.query(`DROP INDEX ${index.name}`);
          }
          await tx.query(index.ddl);
          await tx.query(`COMMENT ON INDEX ${index.name} IS ${literal(index.ddl)}`);
        }
        // Statistics on the indexed expressions (ADR 129), each with its DDL as comment, as the indexes.
        const { rows: known } = await tx.query<{ name: string; ddl: string | null }>(
          `SELECT s.stxname AS name, obj_description(s.oid, 'pg_statistic_ext') AS ddl
             FROM pg_statistic_ext s WHERE s.stxrelid = to_regclass($1)`,
          [layout.table],
        );
        const stored = new Map(known.map((row) => [row.name, row.ddl]));
        const added = layout.statistics.filter(
          (statistics) => stored.get(statistics.name) !== statistics.ddl,
        );
        for (const statistics of added) {
          if (stored.has(statistics.name)) await tx.query(`DROP STATISTICS ${statistics.name}`);
          await tx.query(statistics.ddl);
          await tx.query(`COMMENT ON STATISTICS ${statistics.name} IS ${literal(statistics.ddl)}`);
        }
        // New statistics are empty until the table is analyzed: a table with rows gets them now (ANALYZE
        // samples a bounded number of rows), an empty one when autovacuum first analyzes it.
        if (added.length > 0) await tx.query(`ANALYZE ${layout.table}`);
      }
    });
  }

  async write(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    options: ObservationWriteOptions = {},
  ): Promise<ObservationWriteResult> {
    const { rows, observations } = await this.upsert<{ inserted: number }>(
      dataset,
      records,
      options.seen ?? 'replace',
      countedWriteSql,
    );
    const inserted = rows.reduce((sum, row) => sum + Number(row.inserted ?? 0), 0);
    return { inserted, updated: observations - inserted };
  }

  async writeMerged(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    fields: readonly string[],
  ): Promise<MergedWrite> {
    // The merge statement answers the merged rows: no second statement reads them back.
    const { rows, observations } = await this.upsert<{ doc: ObservationRecord; inserted: boolean }>(
      dataset,
      records,
      'merge',
      (upsert) =>
        `${upsert}\n          RETURNING ${storedFieldsSql(fields)} AS doc, (o.xmax = 0) AS inserted`,
    );
    const inserted = rows.filter((row) => row.inserted).length;
    return { records: rows.map((row) => row.doc), inserted, updated: observations - inserted };
  }

  /** One transaction of upserts of the normalized batch, each chunk's statement made by `statement`. */
  private async upsert<R>(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    seen: 'replace' | 'merge',
    statement: (upsert: string) => string,
  ): Promise<{ rows: R[]; observations: number }> {
    const observations = normalizeBatch(dataset, records, seen);
    if (observations.length === 0) return { rows: [], observations: 0 };
    const sql = statement(seen === 'merge' ? mergeUpsertSql(dataset) : upsertSql(dataset));
    const rows = await this.db.transaction(async (tx) => {
      const answered: R[] = [];
      for (let start = 0; start < observations.length; start += this.writeChunk) {
        const chunk = writeRows(dataset, observations.slice(start, start + this.writeChunk));
        answered.push(...(await tx.query<R & Record<string, unknown>>(sql, [chunk])).rows);
      }
      return answered;
    });
    return { rows, observations: observations.length };
  }

  async getMany(dataset: Dataset, ids: readonly string[]): Promise<ObservationRecord[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ doc: ObservationRecord }>(
      `SELECT doc FROM ${tableOf(dataset)} WHERE id = ANY($1::text[])`,
      [[...ids]],
    );
    return rows.map((row) => row.doc);
  }

  async count(dataset: Dataset): Promise<number> {
    const { rows } = await this.db.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM ${tableOf(dataset)}`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  async get(dataset: Dataset, id: string): Promise<ObservationRecord | null> {
    const { rows } = await this.db.query<{ doc: ObservationRecord }>(
      `SELECT doc FROM ${tableOf(dataset)} WHERE id = $1::text`,
      [id],
    );
    return rows[0]?.doc ?? null;
  }

  async search(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
    signal?: AbortSignal,
  ): Promise<SearchPage> {
    // Compiled before anything runs: an invalid query fails without touching the database.
    const readPage = this.pageReader(dataset, query, page);
    return this.read(signal, { together: true }, readPage);
  }

  /**
   * ADR 0131: the page, then the facets over the same query, in the one read-only transaction of the page (one
   * commit instead of two on a server). The page is answered as soon as it is read; the facets follow it, and
   * are not read when the page is empty.
   */
  async searchThenAggregate(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
    facets: { readonly fields: readonly string[]; readonly limit: number },
    signal?: AbortSignal,
  ): Promise<{ page: SearchPage; facets: Promise<Facets> }> {
    const readPage = this.pageReader(dataset, query, page);
    const readFacets = this.facetsReader(dataset, query, facets.fields, facets.limit);
    let answerPage!: (read: SearchPage) => void;
    const pageRead = new Promise<SearchPage>((resolve) => (answerPage = resolve));
    const both = this.read(signal, { together: true }, async (sql) => {
      const read = await readPage(sql);
      answerPage(read);
      return read.records.length === 0 ? readFacets.none : readFacets.run(sql);
    });
    // Nobody may be left waiting for the facets (a failed page, a caller that stops early): never unhandled.
    both.catch(() => undefined);
    return { page: await Promise.race([pageRead, both.then(() => pageRead)]), facets: both };
  }

  /** Reads one page (count first, then the rows) with whatever runs the statements. */
  private pageReader(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
  ): (sql: SqlExecutor) => Promise<SearchPage> {
    const request = pageRequest(page);
    const countSql = countStatement(dataset, query, request.countLimit + 1, this.selectors);
    const pageSql = (strategy: PageStrategy) =>
      searchStatement(dataset, query, request, this.selectors, strategy);
    return async (sql) => {
      // The count comes first: it chooses how the page is read (see PageStrategy).
      const [row] = await run<{ count: string }>(sql, countSql);
      const counted = Number(row?.count ?? 0);
      const exact = counted <= request.countLimit;
      let records: ObservationRecord[] = [];
      if (request.limit > 0 && (!exact || counted > request.offset)) {
        const strategy = exact && counted <= FILTER_FIRST_MAX_MATCHES ? 'filter-first' : 'ordered';
        records = (await run<{ doc: ObservationRecord }>(sql, pageSql(strategy))).map((r) => r.doc);
        // A page that is not full ends the result: it tells the total even past countLimit.
        const total = totalFromPage(request, records.length);
        if (total !== undefined) return { records, total, totalIsLowerBound: false };
      }
      return { records, ...totalFromCount(request, records.length, counted) };
    };
  }

  async aggregate(
    dataset: Dataset,
    query: ObservationQuery,
    fields: readonly string[],
    limit: number,
    signal?: AbortSignal,
  ): Promise<Facets> {
    const facets = this.facetsReader(dataset, query, fields, limit);
    return facets.statement ? this.read(signal, { together: false }, facets.run) : facets.none;
  }

  /** The facets statement (checked and compiled now), its reading, and the answer when no field is asked. */
  private facetsReader(dataset: Dataset, query: ObservationQuery, fields: readonly string[], limit: number) {
    assertDataset(dataset);
    positiveInteger(limit, 'limit');
    const names = [...new Set(fields)];
    for (const name of names) aggregatableField(dataset, name);
    const none: Facets = Object.fromEntries(names.map((name) => [name, []]));
    const statement =
      names.length > 0 ? facetsStatement(dataset, query, names, limit, this.selectors) : undefined;
    return {
      statement,
      none,
      run: async (sql: SqlExecutor): Promise<Facets> => {
        if (!statement) return none;
        const facets: Facets = Object.fromEntries(names.map((name) => [name, []]));
        for (const row of await run<{ f: number; value: FacetValue; count: string }>(sql, statement))
          facets[names[row.f]!]!.push({ value: row.value, count: Number(row.count) });
        return facets;
      },
    };
  }

  async *stream(
    dataset: Dataset,
    query: ObservationQuery,
    batchSize: number,
    signal?: AbortSignal,
  ): AsyncIterable<ObservationRecord[]> {
    positiveInteger(batchSize, 'batchSize');
    const fetchAfter = (afterId: string) => {
      const statement = streamStatement(dataset, query, afterId, batchSize, this.selectors);
      return this.read(signal, { together: false }, (sql) =>
        run<{ id: string; doc: ObservationRecord }>(sql, statement),
      );
    };
    // The next batch is read while the consumer handles this one (one batch ahead, never more).
    type Row = { id: string; doc: ObservationRecord };
    let next: Promise<Row[]> | undefined = fetchAfter('');
    try {
      while (next) {
        const rows: Row[] = await next;
        next = rows.length < batchSize ? undefined : fetchAfter(rows[rows.length - 1]!.id);
        if (rows.length > 0) yield rows.map((row) => row.doc);
      }
    } finally {
      // A consumer that stopped early leaves a read in flight: its outcome is of no interest.
      next?.catch(() => undefined);
    }
  }

  async clear(dataset: Dataset): Promise<void> {
    await this.db.query(`TRUNCATE ${tableOf(dataset)}`);
  }

  /**
   * Runs reads under the signal (see the file comment). Without a signal, straight on the pool. `together`:
   * the work runs several statements; on a server they commit once, in one read-only transaction (ADR 104), each
   * still reading what was committed before it began (READ COMMITTED).
   */
  private read<T>(
    signal: AbortSignal | undefined,
    options: { readonly together: boolean },
    work: (sql: SqlExecutor) => Promise<T>,
  ): Promise<T> {
    if (!signal) {
      return options.together && this.db.readTogether
        ? this.db.readTogether(() => work(this.db))
        : work(this.db);
    }
    throwIfAborted(signal);
    // In-process PGlite runs each statement synchronously on this thread: nothing (not even the timer that
    // aborts a deadline) runs until it ends. A macrotask turn before each statement lets a due abort land.
    const yieldFirst = this.db.kind === 'pglite';
    const checked = (executor: SqlExecutor): SqlExecutor => ({
      query: async (text, params) => {
        if (yieldFirst) await new Promise((resolve) => setTimeout(resolve, 0));
        throwIfAborted(signal);
        return executor.query(text, params);
      },
    });
    if (this.db.kind !== 'postgres') return raceAbort(work(checked(this.db)), signal);
    const onOneConnection = <T>(fn: (sql: SqlExecutor, pid: number) => Promise<T>): Promise<T> =>
      this.db.pinned
        ? this.db.pinned(fn)
        : this.db.transaction(async (tx) => {
            const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
            return fn(tx, rows[0]!.pid);
          });
    const pinned = onOneConnection(async (tx, pid) => {
      let cancelling: Promise<unknown> | undefined;
      const cancel = (): void => {
        cancelling = (
          this.db.cancelBackend
            ? this.db.cancelBackend(pid)
            : this.db.query('SELECT pg_cancel_backend($1::integer)', [pid])
        ).catch(() => undefined);
      };
      signal.addEventListener('abort', cancel, { once: true });
      let begun = false;
      try {
        if (options.together) {
          await tx.query('BEGIN READ ONLY');
          begun = true;
        }
        const result = await work(checked(tx));
        if (begun) await tx.query('COMMIT');
        begun = false;
        return result;
      } catch (error) {
        if (signal.aborted && pgErrorCode(error) === QUERY_CANCELED) throw signal.reason;
        throw error;
      } finally {
        signal.removeEventListener('abort', cancel);
        // The cancel must land before the connection is reused by anyone else.
        if (cancelling) await cancelling;
        // A failed or cancelled statement left the transaction aborted: end it (once no cancel can land on
        // this connection any more) before the connection goes back.
        if (begun) await tx.query('ROLLBACK').catch(() => undefined);
      }
    });
    return raceAbort(pinned, signal);
  }
}

async function run<R>(sql: SqlExecutor, statement: SqlStatement): Promise<R[]> {
  return (await sql.query<R>(statement.text, statement.params)).rows;
}

/** The stored document of a merged row reduced to id, first_seen, last_seen and `fields` (top-level names). */
function storedFieldsSql(fields: readonly string[]): string {
  const names = ['id', 'first_seen', 'last_seen', ...fields].map((field) => {
    if (!/^[a-z][a-z0-9_]*$/.test(field))
      throw new RangeError(`not a top-level field: ${JSON.stringify(field)}`);
    return `'${field}', o.doc -> '${field}'`;
  });
  // An absent field is SQL NULL here; stripped, as a stored record holds no null.
  return `jsonb_strip_nulls(jsonb_build_object(${names.join(', ')}))`;
}

/** A string literal for DDL (COMMENT takes no parameters). */
function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** An upsert that answers how many rows it inserted: a row inserted (not updated) has no xmax yet. */
function countedWriteSql(upsert: string): string {
  return `WITH written AS (${upsert} RETURNING (o.xmax = 0) AS inserted)
          SELECT count(*) FILTER (WHERE inserted)::int AS inserted FROM written`;
}
