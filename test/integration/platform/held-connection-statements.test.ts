import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SqlDatabase } from '../../../src/platform/database/sql-database.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';

/**
 * Statements on a held connection of the PostgreSQL server (a transaction, a pinned connection, a read group) run
 * through node-postgres's callback form, as pool.query does (see docs/benchmarks.md, exports): the same rows and
 * counts as a statement on the pool, and a failure carries its SQLSTATE and a stack that leads back to the caller.
 */
describe('statements on a held connection (PostgreSQL server)', () => {
  let database: TestDatabase;
  let db: SqlDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    db = database.db;
    await db.exec('CREATE TABLE held_rows (id integer PRIMARY KEY, doc jsonb NOT NULL)');
  }, 60_000);

  afterAll(async () => {
    await database.dispose();
  });

  const insert = `INSERT INTO held_rows (id, doc) SELECT g, jsonb_build_object('n', g) FROM generate_series(1, $1::integer) g`;
  const select = 'SELECT id, doc FROM held_rows ORDER BY id';

  it('answer the rows and affected counts a statement on the pool answers', async () => {
    const inserted = await db.transaction(async (tx) => tx.query(insert, [3]));
    expect(inserted.affectedRows).toBe(3);
    const onPool = await db.query(select);
    const inTransaction = await db.transaction(async (tx) => tx.query(select));
    const pinned = await db.pinned!(async (sql) => sql.query(select));
    const together = await db.readTogether!(async () => db.query(select));
    expect(onPool.rows).toEqual([
      { id: 1, doc: { n: 1 } },
      { id: 2, doc: { n: 2 } },
      { id: 3, doc: { n: 3 } },
    ]);
    for (const answer of [inTransaction, pinned, together]) expect(answer).toEqual(onPool);
    // A statement without parameters (the simple protocol) and one that changes nothing.
    expect((await db.transaction(async (tx) => tx.query('SELECT 1 AS one'))).rows).toEqual([{ one: 1 }]);
    expect(
      (await db.transaction(async (tx) => tx.query('DELETE FROM held_rows WHERE id < 0'))).affectedRows,
    ).toBe(0);
  });

  it('a failed statement rejects with its SQLSTATE and a stack through the caller; the transaction rolls back', async () => {
    async function insertTwiceInOneTransaction(): Promise<unknown> {
      return await db.transaction(async (tx) => {
        await tx.query('INSERT INTO held_rows (id, doc) VALUES (10, $1::jsonb)', ['{}']);
        return tx.query('INSERT INTO held_rows (id, doc) VALUES (10, $1::jsonb)', ['{}']);
      });
    }
    const failure = (await insertTwiceInOneTransaction().catch((error: unknown) => error)) as Error & {
      code?: string;
    };
    expect(failure).toBeInstanceOf(Error);
    expect(failure.code).toBe('23505');
    expect(failure.stack).toContain('insertTwiceInOneTransaction');
    expect((await db.query('SELECT id FROM held_rows WHERE id = 10')).rows).toEqual([]);
    // The connection went back to the pool usable.
    expect((await db.pinned!(async (sql) => sql.query('SELECT 2 AS two'))).rows).toEqual([{ two: 2 }]);
  });
});
