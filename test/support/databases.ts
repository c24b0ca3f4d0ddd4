/**
 * Real databases for tests: an in-memory PGlite, or a fresh database on the PostgreSQL server
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), created per suite and dropped after.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-database.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import { blankDatabaseImage } from './pglite-template.js';

export type TestDatabaseKind = 'pglite' | 'postgres';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly db: SqlDatabase;
  /** Connection URL when the database is on the server (for child processes), else undefined. */
  readonly url: string | undefined;
  /** Opens another independent connection pool to the same database (server only). */
  openAnother(max?: number): SqlDatabase;
  dispose(): Promise<void>;
}

export async function createTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const db = await PgliteDatabase.open(undefined, { image: await blankDatabaseImage() });
    return {
      db,
      url: undefined,
      openAnother: () => {
        throw new Error('an in-memory PGlite has a single session');
      },
      dispose: () => db.close(),
    };
  }
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  // Tests never survive a server crash, so their commits need not wait for the WAL flush; on a shared CI machine
  // that wait was most of the time of the server legs. Behaviour is otherwise identical.
  await admin.query(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const others: SqlDatabase[] = [];
  const db = PostgresDatabase.fromUrl(url.toString(), 30);
  return {
    db,
    url: url.toString(),
    openAnother: (max = 10) => {
      const another = PostgresDatabase.fromUrl(url.toString(), max);
      others.push(another);
      return another;
    },
    dispose: async () => {
      await Promise.all(others.map((o) => o.close().catch(() => undefined)));
      await db.close();
      const cleanup = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** Both kinds, for `describe.each`. */
export const SQL_KINDS: TestDatabaseKind[] = ['pglite', 'postgres'];
