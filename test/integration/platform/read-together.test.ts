import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SqlDatabase } from '../../../src/platform/database/sql-database.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';

/**
 * SqlDatabase.readTogether on the PostgreSQL server (ADR 104): the plain reads of a call share one read-only
 * transaction (one commit), each statement still sees what was committed before it began, and a failure or a
 * write inside never fails what would have succeeded on its own.
 */
describe('readTogether on the PostgreSQL server', () => {
  let database: TestDatabase;
  let db: SqlDatabase;
  let other: SqlDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    db = database.db;
    other = database.openAnother(2);
    await db.exec('CREATE TABLE flags (id text PRIMARY KEY, value text NOT NULL)');
  }, 60_000);

  afterAll(async () => {
    await database.dispose();
  });

  /** The transaction's start time and backend: equal for statements of one transaction. */
  const whereAmI = async () =>
    (
      await db.query<{ started: string; pid: number; readOnly: string }>(
        `SELECT now()::text AS started, pg_backend_pid() AS pid, current_setting('transaction_read_only') AS "readOnly"`,
      )
    ).rows[0]!;

  it('runs the reads of one call, concurrent ones too, in one read-only transaction', async () => {
    const [first, second, third] = await db.readTogether!(async () => {
      const together = await Promise.all([whereAmI(), whereAmI()]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return [...together, await whereAmI()];
    });
    expect(first!.readOnly).toBe('on');
    expect(new Set([first!.started, second!.started, third!.started]).size).toBe(1);
    expect(new Set([first!.pid, second!.pid, third!.pid]).size).toBe(1);
    // Outside a call: a transaction of its own, as before.
    const outside = await whereAmI();
    expect(outside.readOnly).toBe('off');
    expect(outside.started).not.toBe(first!.started);
  });

  it('shows each statement what was committed before it began (a revocation counts at once)', async () => {
    await db.query(`INSERT INTO flags (id, value) VALUES ('key', 'active')`);
    const seen = await db.readTogether!(async () => {
      const before = (await db.query<{ value: string }>(`SELECT value FROM flags WHERE id = 'key'`)).rows[0];
      await other.query(`UPDATE flags SET value = 'revoked' WHERE id = 'key'`);
      const after = (await db.query<{ value: string }>(`SELECT value FROM flags WHERE id = 'key'`)).rows[0];
      return [before?.value, after?.value];
    });
    expect(seen).toEqual(['active', 'revoked']);
  });

  it('answers a failed statement with its error and runs the other reads on their own', async () => {
    const outcome = await db.readTogether!(async () => {
      const failed = db.query('SELECT 1 / 0 AS never').then(
        () => 'answered',
        (error: unknown) => (error as { code?: string }).code,
      );
      const queuedBehind = db.query<{ one: number }>('SELECT 1 AS one');
      return [
        await failed,
        (await queuedBehind).rows[0]!.one,
        (await db.query<{ two: number }>('SELECT 2 AS two')).rows[0]!.two,
      ];
    });
    expect(outcome).toEqual(['22012', 1, 2]);
  });

  it('lets a write that slipped in run on its own instead of failing on the read-only transaction', async () => {
    await db.readTogether!(async () => {
      await db.query(`SELECT value FROM flags WHERE id = 'key'`);
      await db.query(`INSERT INTO flags (id, value) VALUES ('written', 'yes')`);
    });
    const { rows } = await other.query<{ value: string }>(`SELECT value FROM flags WHERE id = 'written'`);
    expect(rows).toEqual([{ value: 'yes' }]);
  });

  it('gives the connection back: reads after the call, and as many calls as connections, still run', async () => {
    const calls = Array.from({ length: 40 }, (_, i) =>
      db.readTogether!(async () => (await db.query<{ n: number }>('SELECT $1::int AS n', [i])).rows[0]!.n),
    );
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const { rows } = await db.query<{ idle: string }>(
      `SELECT count(*)::text AS idle FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'idle in transaction'`,
    );
    expect(rows[0]!.idle).toBe('0');
  });
});
