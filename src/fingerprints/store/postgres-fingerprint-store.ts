/**
 * FingerprintStore over PostgreSQL (PGlite or a server): one table, `fingerprint_databases`, a row per file name.
 */
import type { SqlDatabase } from '../../platform/database/sql-database.js';
import type {
  FingerprintDatabaseWrite,
  FingerprintStore,
  StoredFingerprintDatabase,
} from './fingerprint-store.port.js';

const LOCK = 0x66_70_72_74; // 'fprt'

export class PostgresFingerprintStore implements FingerprintStore {
  readonly kind: string;

  constructor(private readonly db: SqlDatabase) {
    this.kind = db.kind;
  }

  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
      await tx.query(
        `CREATE TABLE IF NOT EXISTS fingerprint_databases (
           name text COLLATE "C" PRIMARY KEY,
           matches text NOT NULL,
           fingerprints integer NOT NULL,
           hash text NOT NULL,
           imported_at timestamptz NOT NULL,
           xml text NOT NULL)`,
      );
    });
  }

  async put(databases: readonly FingerprintDatabaseWrite[], at: Date): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const changed: string[] = [];
      for (const database of databases) {
        // An identical file keeps its row (and its import time): re-importing changes nothing.
        const { rows } = await tx.query<{ name: string }>(
          `INSERT INTO fingerprint_databases (name, matches, fingerprints, hash, imported_at, xml)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (name) DO UPDATE
             SET matches = EXCLUDED.matches, fingerprints = EXCLUDED.fingerprints, hash = EXCLUDED.hash,
                 imported_at = EXCLUDED.imported_at, xml = EXCLUDED.xml
           WHERE fingerprint_databases.hash <> EXCLUDED.hash
           RETURNING name`,
          [
            database.name,
            database.matches,
            database.fingerprints,
            database.hash,
            at.toISOString(),
            database.xml,
          ],
        );
        if (rows.length > 0) changed.push(database.name);
      }
      return changed;
    });
  }

  async list(): Promise<StoredFingerprintDatabase[]> {
    const { rows } = await this.db.query<Row>(
      'SELECT name, matches, fingerprints, hash, imported_at FROM fingerprint_databases ORDER BY name',
    );
    return rows.map(stored);
  }

  async load(): Promise<Array<StoredFingerprintDatabase & { readonly xml: string }>> {
    const { rows } = await this.db.query<Row & { xml: string }>(
      'SELECT name, matches, fingerprints, hash, imported_at, xml FROM fingerprint_databases ORDER BY name',
    );
    return rows.map((row) => ({ ...stored(row), xml: row.xml }));
  }

  async close(): Promise<void> {
    // The SQL database belongs to the platform's storage, which closes it.
  }
}

interface Row {
  name: string;
  matches: string;
  fingerprints: number;
  hash: string;
  imported_at: Date | string;
}

function stored(row: Row): StoredFingerprintDatabase {
  return {
    name: row.name,
    matches: row.matches,
    fingerprints: Number(row.fingerprints),
    hash: row.hash,
    imported_at: new Date(row.imported_at).toISOString(),
  };
}
