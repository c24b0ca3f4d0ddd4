import pg from 'pg';
import type { SqlDatabase, SqlDatabaseKind, SqlExecutor, SqlResult } from './sql-database.js';

/**
 * A pool of node-postgres connections: a PostgreSQL server (DATABASE_URL) or, with kind `pglite-socket`,
 * the PGlite database another process of this service owns and serves on a unix socket.
 */
const CANCEL_CONNECT_TIMEOUT_MS = 5_000;

export class PostgresDatabase implements SqlDatabase {
  private readonly pool: pg.Pool;

  constructor(
    private readonly config: pg.PoolConfig,
    readonly kind: SqlDatabaseKind = 'postgres',
  ) {
    this.pool = new pg.Pool({ max: 10, ...config });
    // An idle client losing its connection must not crash the process; the next checkout reconnects.
    this.pool.on('error', () => undefined);
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
  return {
    query: async <R>(text: string, params?: readonly unknown[]) => {
      const result = await client.query(text, params as unknown[] | undefined);
      return { rows: result.rows as R[], affectedRows: result.rowCount ?? 0 };
    },
  };
}
