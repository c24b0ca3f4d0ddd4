/**
 * ADR 0131: a unified search reads the host page and its facets in one read (`searchThenAggregate`): one
 * read-only transaction on a PostgreSQL server instead of two commits. What it answers must be what `search`
 * and `aggregate` answer apart, the page before the facets, and a failure of the facets never fails the page.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SqlDatabase, SqlExecutor } from '../../../src/platform/database/sql-database.js';
import type { ObservationQuery } from '../../../src/search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../../../src/search/observation-index/postgres-observation-index.js';
import { loadFixtures, q } from '../../contract/observation-index.contract.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../../support/databases.js';

const FACETS = { fields: ['port', 'country', 'product'], limit: 10 } as const;
const PAGE = { offset: 0, limit: 5 };

/** The database, with its statements recorded (those of pinned connections too, where a server search runs). */
function recordingPinned(db: SqlDatabase, statements: string[]): SqlDatabase {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property === 'pinned' && target.pinned) {
        return <T>(fn: (sql: SqlExecutor, pid: number) => Promise<T>) =>
          target.pinned!((sql, pid) =>
            fn(
              {
                query: (text, params) => {
                  statements.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
                  return sql.query(text, params);
                },
              },
              pid,
            ),
          );
      }
      if (property === 'query') {
        return (text: string, params?: unknown[]) => {
          statements.push(text.trim().split(/\s+/).slice(0, 3).join(' '));
          return target.query(text, params);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

for (const kind of SQL_KINDS) {
  describe(`searchThenAggregate (${kind})`, () => {
    let database: TestDatabase;
    let index: PostgresObservationIndex;
    const statements: string[] = [];

    beforeAll(async () => {
      database = await createTestDatabase(kind);
      index = new PostgresObservationIndex(recordingPinned(database.db, statements));
      await index.init();
      await loadFixtures(index);
    });

    afterAll(async () => {
      await database?.dispose();
    });

    it.each([
      ['every host', q.all()],
      ['nginx hosts', q.exact('product', 'nginx')],
      ['hosts on port 22 or 443', q.or(q.exact('port', 22), q.exact('port', 443))],
    ])('answers the page search gives and the facets aggregate gives (%s)', async (_name, ast) => {
      const query: ObservationQuery = { ast };
      const signal = new AbortController().signal;
      const read = await index.searchThenAggregate('hosts', query, PAGE, FACETS, signal);
      expect(read.page).toEqual(await index.search('hosts', query, PAGE, signal));
      expect(read.page.records.length).toBeGreaterThan(0);
      expect(await read.facets).toEqual(
        await index.aggregate('hosts', query, FACETS.fields, FACETS.limit, signal),
      );
    });

    it('reads no facets for an empty page: every field answers no values', async () => {
      statements.length = 0;
      const read = await index.searchThenAggregate(
        'hosts',
        { ast: q.exact('product', 'no-such-product') },
        PAGE,
        FACETS,
        new AbortController().signal,
      );
      expect(read.page).toEqual({ records: [], total: 0, totalIsLowerBound: false });
      expect(await read.facets).toEqual({ port: [], country: [], product: [] });
      expect(statements.some((statement) => statement.startsWith('SELECT f,'))).toBe(false);
    });

    if (kind === 'postgres') {
      it('runs the count, the page and the facets in one read-only transaction on one connection', async () => {
        statements.length = 0;
        const read = await index.searchThenAggregate(
          'hosts',
          { ast: q.exact('product', 'nginx') },
          PAGE,
          FACETS,
          new AbortController().signal,
        );
        await read.facets;
        expect(statements.slice(statements.indexOf('BEGIN READ ONLY'))).toEqual([
          'BEGIN READ ONLY',
          'SELECT count(*)::text AS',
          expect.stringMatching(/^(SELECT|WITH) /),
          'SELECT f, value,',
          'COMMIT',
        ]);
      });
    }

    if (kind === 'pglite') {
      // In this process an abort lands between statements, so it reliably falls after the page, before the facets.
      it('answers the page when the facets fail after it', async () => {
        const controller = new AbortController();
        const query: ObservationQuery = { ast: q.exact('product', 'nginx') };
        const read = await index.searchThenAggregate('hosts', query, PAGE, FACETS, controller.signal);
        controller.abort();
        expect(read.page).toEqual(await index.search('hosts', query, PAGE));
        await expect(read.facets).rejects.toThrow();
      });
    }

    it('fails the page when its query cannot run, before anything is read', async () => {
      statements.length = 0;
      await expect(
        index.searchThenAggregate('hosts', { ast: q.selector('cve', '*') }, PAGE, FACETS),
      ).rejects.toThrow(/selectors need/);
      expect(statements).toEqual([]);
    });
  });
}
