/**
 * The Recog databases an operator imported, each kept whole (its XML, as read) under its file name: an import of
 * the same name replaces it, an identical one changes nothing. Adapters: PostgreSQL (PGlite or a server) and
 * MongoDB.
 */
export interface StoredFingerprintDatabase {
  /** The file's base name (`http_servers.xml`). */
  readonly name: string;
  readonly matches: string;
  readonly fingerprints: number;
  /** sha-256 of the XML. */
  readonly hash: string;
  readonly imported_at: string;
}

export interface FingerprintDatabaseWrite extends Omit<StoredFingerprintDatabase, 'imported_at'> {
  readonly xml: string;
}

export interface FingerprintStore {
  readonly kind: string;
  init(): Promise<void>;
  /** Stores the databases (one transaction); returns the names whose content changed (new or replaced). */
  put(databases: readonly FingerprintDatabaseWrite[], at: Date): Promise<string[]>;
  list(): Promise<StoredFingerprintDatabase[]>;
  /** Every stored database with its XML, by name. */
  load(): Promise<Array<StoredFingerprintDatabase & { readonly xml: string }>>;
  close(): Promise<void>;
}
