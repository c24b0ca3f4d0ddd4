/** The OAuthStore contract on the PostgreSQL read store: in-memory PGlite and the server (TEST_DATABASE_URL). */
import { PostgresReadStore } from '../../src/platform/read-store/postgres/postgres-read-store.js';
import { createTestDatabase, SQL_KINDS } from '../support/databases.js';
import { oauthStoreContract } from './oauth-store.contract.js';

for (const kind of SQL_KINDS) {
  oauthStoreContract(kind, async () => {
    const database = await createTestDatabase(kind);
    const readStore = new PostgresReadStore(database.db);
    await readStore.init();
    return {
      readStore,
      dispose: async () => {
        await readStore.close();
        await database.dispose();
      },
    };
  });
}
