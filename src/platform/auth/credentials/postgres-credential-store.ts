/**
 * Credentials in the SQL database (PGlite or a server), table `credentials`: the event store's, so the command
 * that appends an event writes its credential in the same transaction (beside EventStoreDB, the read models').
 */
import type { SqlDatabase, SqlExecutor } from '../../database/sql-database.js';
import type { Credential, CredentialStore } from './credential-store.port.js';

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS credentials (
     id text PRIMARY KEY,
     kind text NOT NULL,
     subject text NOT NULL,
     material text NOT NULL,
     created_at text NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS credentials_by_subject ON credentials (subject)`,
];

/** Concurrent CREATE ... IF NOT EXISTS can collide in the catalogs: one transaction at a time creates. */
const SCHEMA_LOCK = `SELECT pg_advisory_xact_lock(hashtext('credentials-schema'))`;

interface CredentialRow {
  id: string;
  kind: string;
  subject: string;
  material: string;
  created_at: string;
}

export class PostgresCredentialStore implements CredentialStore {
  readonly kind: string;

  constructor(private readonly db: SqlDatabase) {
    this.kind = db.kind === 'postgres' ? 'postgres' : 'pglite';
  }

  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(SCHEMA_LOCK);
      for (const statement of SCHEMA) await tx.query(statement);
    });
  }

  async put(credential: Credential, within?: SqlExecutor): Promise<void> {
    await insertCredential(within ?? this.db, credential);
  }

  async get(id: string): Promise<Credential | null> {
    if (typeof id !== 'string' || id.length === 0) return null;
    const { rows } = await this.db.query<CredentialRow>(
      `SELECT id, kind, subject, material, created_at FROM credentials WHERE id = $1`,
      [id],
    );
    return rows[0] ? toCredential(rows[0]) : null;
  }

  async ofSubject(subject: string): Promise<Credential[]> {
    const { rows } = await this.db.query<CredentialRow>(
      `SELECT id, kind, subject, material, created_at FROM credentials WHERE subject = $1 ORDER BY created_at, id`,
      [subject],
    );
    return rows.map(toCredential);
  }

  async close(): Promise<void> {
    // The database belongs to the storage, which closes it.
  }
}

async function insertCredential(executor: SqlExecutor, credential: Credential): Promise<void> {
  await executor.query(
    `INSERT INTO credentials (id, kind, subject, material, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING`,
    [credential.id, credential.kind, credential.subject, credential.material, credential.createdAt],
  );
}

/**
 * Stores a credential in the caller's transaction, creating the table first: the migration of old events
 * (a LegacyEventRewriter) may run before the credential store was opened.
 */
export async function putCredentialWithin(tx: SqlExecutor, credential: Credential): Promise<void> {
  await tx.query(SCHEMA_LOCK);
  for (const statement of SCHEMA) await tx.query(statement);
  await insertCredential(tx, credential);
}

function toCredential(row: CredentialRow): Credential {
  return {
    id: row.id,
    kind: row.kind,
    subject: row.subject,
    material: row.material,
    createdAt: row.created_at,
  };
}
