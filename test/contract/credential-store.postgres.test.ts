/**
 * The CredentialStore contract against PostgreSQL: in-memory PGlite and a fresh database on the server
 * (TEST_DATABASE_URL); plus the write inside a caller's transaction, rolled back with it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PostgresCredentialStore } from '../../src/platform/auth/credentials/postgres-credential-store.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../support/databases.js';
import { credentialStoreContract } from './credential-store.contract.js';

for (const kind of SQL_KINDS) {
  credentialStoreContract(kind, async () => {
    const database = await createTestDatabase(kind);
    const store = new PostgresCredentialStore(database.db);
    await store.init();
    return { store, dispose: () => database.dispose() };
  });

  describe(`PostgresCredentialStore inside a transaction: ${kind}`, () => {
    let database: TestDatabase;
    let store: PostgresCredentialStore;
    beforeAll(async () => {
      database = await createTestDatabase(kind);
      store = new PostgresCredentialStore(database.db);
      await store.init();
    });
    afterAll(async () => {
      await database?.dispose();
    });

    it('commits with the caller’s transaction and disappears when it rolls back', async () => {
      const kept = {
        id: `k-${randomUUID()}`,
        kind: 'password',
        subject: 'account:a',
        material: 'h1',
        createdAt: 't',
      };
      const dropped = { ...kept, id: `d-${randomUUID()}` };
      await database.db.transaction((tx) => store.put(kept, tx));
      await expect(
        database.db.transaction(async (tx) => {
          await store.put(dropped, tx);
          throw new Error('the append failed');
        }),
      ).rejects.toThrow('the append failed');
      expect(await store.get(kept.id)).toEqual(kept);
      expect(await store.get(dropped.id)).toBeNull();
    });
  });
}
