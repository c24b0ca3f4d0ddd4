/**
 * The one SQL seam used by the PostgreSQL adapters (event store, read store, observation index).
 * Implementations: PGlite in this process, PGlite owned by another process (through its unix socket),
 * and a PostgreSQL server (DATABASE_URL). SQL must be valid on PostgreSQL 15 and on PGlite (PostgreSQL 18).
 *
 * Value conventions, identical for every implementation: select bigint columns as text (`::text`) and parse
 * them yourself; pass structured values as one JSON parameter (`$1::jsonb`) rather than driver arrays.
 */
export interface SqlResult<R> {
  readonly rows: R[];
  readonly affectedRows: number;
}

export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
}

export type SqlDatabaseKind = 'pglite' | 'pglite-socket' | 'postgres';

export interface SqlDatabase extends SqlExecutor {
  readonly kind: SqlDatabaseKind;
  /** Runs fn in one transaction (READ COMMITTED); commits when it resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs fn on one pooled connection, outside a transaction, with that connection's backend process id so
   * another connection can cancel its running statement. Only a PostgreSQL server has it; callers fall back
   * to `transaction` without it.
   */
  pinned?<T>(fn: (sql: SqlExecutor, backendPid: number) => Promise<T>): Promise<T>;
  /** Cancels a pinned connection's running statement without waiting for a pooled connection (server only). */
  cancelBackend?(backendPid: number): Promise<void>;
  /**
   * Runs `fn` with its plain reads (`query`, not `transaction` or `pinned`) in one read-only transaction on one
   * connection, so a request's lookups commit once instead of once each (ADR 104). Each statement still sees
   * what was committed before it began (READ COMMITTED): nothing read here is older than an autocommit read.
   * Only for code that writes nothing. Absent: `fn` runs as it is.
   */
  readTogether?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * `query` as a named statement, prepared once per connection and then executed without the server parsing and
   * planning it again (ADR 0134). `name` must only ever name this `text`. Only a PostgreSQL server has it (a
   * PGlite socket's connections share one session, where a second preparation under a name fails).
   */
  queryPrepared?<R = Record<string, unknown>>(
    name: string,
    text: string,
    params?: readonly unknown[],
  ): Promise<SqlResult<R>>;
  /**
   * A read group several callers may join (each `run`), ended by whoever holds it: readTogether for work that
   * starts in more than one place. Null where reads cannot be grouped.
   */
  openReadGroup?(): ReadGroupHandle | null;
  /** Runs several statements without parameters (DDL). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL error codes we react to (by code, never by message text). */
export const PG_ERROR = {
  uniqueViolation: '23505',
  undefinedTable: '42P01',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
} as const;

export function pgErrorCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

export const SQL_DATABASE = Symbol('SqlDatabase');

/** One read-only transaction that the plain reads of every `run` join, until `end` (ADR 104). */
export interface ReadGroupHandle {
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Commits, and gives the connection back; reads begun afterwards run on their own. */
  end(): Promise<void>;
}

/** Runs reads together where the database can (SqlDatabase.readTogether), else as they are. */
export type ReadTogether = <T>(fn: () => Promise<T>) => Promise<T>;
export const READ_TOGETHER = Symbol('ReadTogether');

/** Opens a read group several steps of one request join (SqlDatabase.openReadGroup); null where there is none. */
export type OpenReadGroup = () => ReadGroupHandle | null;
export const OPEN_READ_GROUP = Symbol('OpenReadGroup');

export function openReadGroupOf(db: SqlDatabase | undefined): OpenReadGroup {
  return () => db?.openReadGroup?.() ?? null;
}

export function readTogetherOf(db: SqlDatabase | undefined): ReadTogether {
  return db?.readTogether ? (fn) => db.readTogether!(fn) : (fn) => fn();
}
