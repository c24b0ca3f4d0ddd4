import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';
import {
  pgErrorCode,
  type ReadGroupHandle,
  type SqlDatabase,
  type SqlDatabaseKind,
  type SqlExecutor,
  type SqlResult,
} from './sql-database.js';

/**
 * A pool of node-postgres connections: a PostgreSQL server (DATABASE_URL) or, with kind `pglite-socket`,
 * the PGlite database another process of this service owns and serves on a unix socket.
 */
const CANCEL_CONNECT_TIMEOUT_MS = 5_000;

export class PostgresDatabase implements SqlDatabase {
  private readonly pool: pg.Pool;
  /** The read group of the readTogether call the current code runs in, if any. */
  private readonly readGroups = new AsyncLocalStorage<ReadGroup>();

  constructor(
    private readonly config: pg.PoolConfig,
    readonly kind: SqlDatabaseKind = 'postgres',
  ) {
    this.pool = new pg.Pool({ max: 10, ...config });
    // An idle client losing its connection must not crash the process; the next checkout reconnects.
    this.pool.on('error', () => undefined);
    if (kind === 'postgres') {
      this.queryPrepared = async <R>(name: string, text: string, params?: readonly unknown[]) => {
        const group = this.readGroups.getStore();
        if (group?.open) return group.query<R>(text, params);
        const result = await this.pool.query({ name, text, values: params as unknown[] | undefined });
        return { rows: result.rows as R[], affectedRows: result.rowCount ?? 0 };
      };
    }
  }

  static fromUrl(url: string, max = 10): PostgresDatabase {
    return new PostgresDatabase({ connectionString: url, max });
  }

  /** The embedded PostgreSQL server of DATA_DIR, on its socket `${directory}/.s.PGSQL.5432`. */
  static fromServerSocketDirectory(directory: string, max = 10): PostgresDatabase {
    return new PostgresDatabase({ host: directory, port: 5432, user: 'postgres', database: 'postgres', max });
  }

  /** Connects to the unix socket `${directory}/.s.PGSQL.5432` served by PGliteSocketServer. */
  static fromSocketDirectory(directory: string, max = 4): PostgresDatabase {
    return new PostgresDatabase(
      { host: directory, port: 5432, user: 'postgres', database: 'postgres', max },
      'pglite-socket',
    );
  }

  async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    const group = this.readGroups.getStore();
    if (group?.open) return group.query<R>(text, params);
    return this.autocommit<R>(text, params);
  }

  /** On a server only; in a read group the statement runs there, unnamed (the group's connection is held). */
  queryPrepared?<R>(name: string, text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;

  /**
   * Only on a PostgreSQL server: the PGlite socket serves one session, which a held transaction would block.
   * The connection is taken at the first read and given back when `fn` settles; a nested call joins the group.
   */
  async readTogether<T>(fn: () => Promise<T>): Promise<T> {
    const group = this.readGroups.getStore()?.open ? null : this.openReadGroup();
    if (!group) return fn();
    try {
      return await group.run(fn);
    } finally {
      await group.end();
    }
  }

  openReadGroup(): ReadGroupHandle | null {
    if (this.kind !== 'postgres') return null;
    const group = new ReadGroup(
      () => this.checkOut(),
      (text, params) => this.autocommit(text, params),
    );
    return { run: (fn) => this.readGroups.run(group, fn), end: () => group.end() };
  }

  private async autocommit<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    const result = await this.pool.query(text, params as unknown[] | undefined);
    return { rows: result.rows as R[], affectedRows: result.rowCount ?? 0 };
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const held = await this.checkOut();
    try {
      await held.client.query('BEGIN');
      const value = await fn(executorOf(held.client));
      await held.client.query('COMMIT');
      return value;
    } catch (error) {
      await held.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      held.release();
    }
  }

  async pinned<T>(fn: (sql: SqlExecutor, backendPid: number) => Promise<T>): Promise<T> {
    const held = await this.checkOut();
    try {
      // node-postgres keeps the pid the server announced at connection (BackendKeyData); no query needed.
      const backendPid = (held.client as unknown as { processID: number | null }).processID;
      if (backendPid === null) throw new Error('the connection announced no backend process id');
      return await fn(executorOf(held.client), backendPid);
    } finally {
      held.release();
    }
  }

  /**
   * Cancels the statement a backend is running, on a connection of its own outside the pool: the cancel of a
   * pinned connection must never wait for the pool, since every pooled connection may be pinned by a statement
   * waiting for exactly such a cancel (a deadlock seen at 128 clients, ADR 92). Bounded by a connect timeout; a
   * cancel that cannot be sent leaves the statement to finish (or to its statement_timeout).
   */
  async cancelBackend(backendPid: number): Promise<void> {
    const client = new pg.Client({ ...this.config, connectionTimeoutMillis: CANCEL_CONNECT_TIMEOUT_MS });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT pg_cancel_backend($1::integer)', [backendPid]);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /**
   * A client of the pool, held outside pool.query. The pool listens for errors of idle clients only: a held
   * client whose connection drops (server restart, terminated backend) would emit an unhandled 'error' and end
   * the process. Its pending query rejects anyway; the broken client is discarded, not returned to the pool.
   */
  private async checkOut(): Promise<{ client: pg.PoolClient; release: () => void }> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    return {
      client,
      release: () => {
        client.off('error', onError);
        client.release(broken);
      },
    };
  }

  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function executorOf(client: pg.PoolClient): SqlExecutor {
  return { query: (text, params) => queryHeld(client, text, params) };
}

/**
 * A statement on a held connection, in node-postgres's callback form (as pool.query uses it). Through its promise
 * form a read's rows outlived it: V8 promoted every batch an export read on a held connection to the old
 * generation (16 full collections in a million-row export instead of 2, a tenth of its time).
 */
async function queryHeld<R>(
  client: pg.PoolClient,
  text: string,
  params?: readonly unknown[],
): Promise<SqlResult<R>> {
  try {
    return await new Promise<SqlResult<R>>((resolve, reject) => {
      client.query(text, (params ?? []) as unknown[], (error: Error | undefined, result: pg.QueryResult) => {
        if (error) reject(error);
        else resolve({ rows: result.rows as R[], affectedRows: result.rowCount ?? 0 });
      });
    });
  } catch (error) {
    // As the promise form does: a stack that leads back to the caller, not to the socket's handler.
    if (error instanceof Error) Error.captureStackTrace(error);
    throw error;
  }
}

/**
 * Statements that fail in a read group only because of the group: queued behind a failed one
 * (in_failed_sql_transaction), or a write (read_only_sql_transaction). They run again on their own.
 */
const BECAUSE_OF_THE_GROUP = new Set(['25P02', '25006']);

const ON_ITS_OWN = Symbol('on-its-own');

/**
 * The reads of one readTogether call: one read-only transaction on one connection, begun at the first read. A
 * failed statement ends the group's use of the transaction: the statements queued behind it, and every later
 * read, run on their own (autocommit), so one failure never fails a read that would have succeeded alone.
 * Reads begun after `fn` settled (a timer it started) run on their own too.
 */
class ReadGroup {
  open = true;
  private held: Promise<{ client: pg.PoolClient; release: () => void }> | undefined;
  private failed = false;
  /** The group's statements, one after another: a connection runs one query at a time. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly checkOut: () => Promise<{ client: pg.PoolClient; release: () => void }>,
    private readonly autocommit: <R>(text: string, params?: readonly unknown[]) => Promise<SqlResult<R>>,
  ) {}

  async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    if (this.failed) return this.autocommit<R>(text, params);
    const held = (this.held ??= this.begin());
    const outcome = this.serially(async (): Promise<SqlResult<R> | typeof ON_ITS_OWN> => {
      let client: pg.PoolClient;
      try {
        ({ client } = await held);
      } catch {
        this.failed = true;
        return ON_ITS_OWN;
      }
      if (this.failed) return ON_ITS_OWN;
      try {
        return await queryHeld<R>(client, text, params);
      } catch (error) {
        this.failed = true;
        if (BECAUSE_OF_THE_GROUP.has(pgErrorCode(error) ?? '')) return ON_ITS_OWN;
        throw error;
      }
    });
    const result = await outcome;
    return result === ON_ITS_OWN ? this.autocommit<R>(text, params) : result;
  }

  async end(): Promise<void> {
    // Ended once: a group handed on (ADR 111) may be ended by its taker and by the reply's close.
    if (!this.open) return;
    this.open = false;
    if (!this.held) return;
    let held: { client: pg.PoolClient; release: () => void };
    try {
      held = await this.held;
    } catch {
      return; // never began: nothing to end
    }
    try {
      await this.serially(() => held.client.query(this.failed ? 'ROLLBACK' : 'COMMIT'));
    } catch {
      // A broken connection: checkOut's release discards it.
    } finally {
      held.release();
    }
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.last.then(work);
    this.last = run.catch(() => undefined);
    return run;
  }

  private async begin(): Promise<{ client: pg.PoolClient; release: () => void }> {
    const held = await this.checkOut();
    try {
      await held.client.query('BEGIN READ ONLY');
      return held;
    } catch (error) {
      held.release();
      throw error;
    }
  }
}
