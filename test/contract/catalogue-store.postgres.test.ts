/** The CatalogueStore contract on PostgreSQL: in-memory PGlite and a fresh database on the server. */
import { PostgresCatalogueStore } from '../../src/catalogue/store/postgres-catalogue-store.js';
import { PostgresObservationIndex } from '../../src/search/observation-index/postgres-observation-index.js';
import { createTestDatabase, SQL_KINDS } from '../support/databases.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';

for (const kind of SQL_KINDS) {
  catalogueStoreContract(kind, async () => {
    const database = await createTestDatabase(kind);
    const store = new PostgresCatalogueStore(database.db);
    const observations = new PostgresObservationIndex(database.db, { selectors: store.sqlSelectors });
    await observations.init();
    await store.init();
    return { store, observations, dispose: () => database.dispose() };
  });
}
