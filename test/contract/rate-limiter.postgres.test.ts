/**
 * The RateLimiter contract against PostgreSQL: in-memory PGlite, and a fresh database on the PostgreSQL server
 * (TEST_DATABASE_URL). On the server, the second instance is a separate connection pool to the same database;
 * an in-memory PGlite is a single session, so there the second instance shares it (still separate limiter
 * objects, no shared memory).
 */
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import { PostgresRateLimiter } from '../../src/platform/rate-limit/postgres-rate-limiter.js';
import { createTestDatabase, SQL_KINDS } from '../support/databases.js';
import { rateLimiterContract, type RateLimiterUnderTest } from './rate-limiter.contract.js';

for (const kind of SQL_KINDS) {
  rateLimiterContract(kind, async (clock): Promise<RateLimiterUnderTest> => {
    const database = await createTestDatabase(kind);
    const limiter = new PostgresRateLimiter(database.db, clock);
    await limiter.init();
    return {
      limiter,
      openAnother: async () => {
        const db: SqlDatabase = kind === 'pglite' ? database.db : database.openAnother(10);
        const another = new PostgresRateLimiter(db, clock);
        await another.init();
        return another;
      },
      dispose: () => database.dispose(),
    };
  });
}
