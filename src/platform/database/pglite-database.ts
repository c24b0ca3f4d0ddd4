import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { describeThrown } from '../errors/describe-thrown.js';
import type { SqlDatabase, SqlExecutor, SqlResult } from './sql-database.js';

/**
 * PGlite inside this process. PGlite is one PostgreSQL session: its own mutexes serialize statements and
 * transactions of this process; clients of other processes come in through PgliteSocketServer, which holds
 * the same transaction mutex for the whole of a client's transaction.
 */
export class PgliteDatabase implements SqlDatabase {
  readonly kind = 'pglite' as const;

  private constructor(readonly pglite: PGlite) {}

  /**
   * `dataDir` undefined gives an in-memory database (tests). `image`, a `dumpDataDir` tarball, is what a new
   * database starts as instead of a fresh initdb (about four times faster; tests open hundreds).
   */
  static async open(dataDir?: string, options: { readonly image?: Blob } = {}): Promise<PgliteDatabase> {
    try {
      if (dataDir) mkdirSync(dataDir, { recursive: true });
      const pglite = await PGlite.create(dataDir ?? 'memory://', {
        extensions: { pg_trgm },
        ...(options.image ? { loadDataDir: options.image } : {}),
      });
      return new PgliteDatabase(pglite);
    } catch (error) {
      throw new EmbeddedDatabaseOpenFailed(dataDir ?? 'memory://', error);
    }
  }

  async query<R>(text: string, params?: readonly unknown[]): Promise<SqlResult<R>> {
    const result = await this.pglite.query<R>(text, params as unknown[] | undefined);
    return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.pglite.transaction(async (tx) =>
      fn({
        query: async <R>(text: string, params?: readonly unknown[]) => {
          const result = await tx.query<R>(text, params as unknown[] | undefined);
          return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
        },
      }),
    );
  }

  async exec(sql: string): Promise<void> {
    await this.pglite.exec(sql);
  }

  async close(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

/**
 * PGlite could not open its directory. What it throws says little (`PGlite failed to initialize properly`, a wasm
 * `Aborted()`, an emscripten ErrnoError with only a number), so the path travels with it for the explanation.
 */
export class EmbeddedDatabaseOpenFailed extends Error {
  override readonly name = 'EmbeddedDatabaseOpenFailed';
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`the embedded database in ${path} could not be opened: ${describeThrown(cause)}`);
  }
}
