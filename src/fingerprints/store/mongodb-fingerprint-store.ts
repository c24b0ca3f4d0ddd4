/**
 * FingerprintStore over MongoDB, in the observation index's database: `fingerprint_databases`, one document per
 * file name (`_id`). An import replaces a document only when its hash differs, so re-importing changes nothing.
 */
import { MongoClient, type Db } from 'mongodb';
import type {
  FingerprintDatabaseWrite,
  FingerprintStore,
  StoredFingerprintDatabase,
} from './fingerprint-store.port.js';
import { connectMongo } from '../../platform/mongodb/connect.js';

interface DatabaseDocument {
  _id: string;
  matches: string;
  fingerprints: number;
  hash: string;
  imported_at: Date;
  xml: string;
}

export class MongoFingerprintStore implements FingerprintStore {
  readonly kind = 'mongodb';
  private readonly db: Db;

  constructor(
    private readonly client: MongoClient,
    databaseName: string,
    private readonly ownsClient = false,
  ) {
    this.db = client.db(databaseName);
  }

  /** The database is `databaseName`, else the one named in the URL path, else `exposure` (as the index). */
  static async connect(url: string, databaseName?: string): Promise<MongoFingerprintStore> {
    const connected = await connectMongo(url, databaseName);
    return new MongoFingerprintStore(connected.client, connected.databaseName, true);
  }

  private get databases() {
    return this.db.collection<DatabaseDocument>('fingerprint_databases');
  }

  async init(): Promise<void> {
    // The collection needs no index beyond _id; creating it up front keeps list() cheap on an empty store.
  }

  async put(databases: readonly FingerprintDatabaseWrite[], at: Date): Promise<string[]> {
    const changed: string[] = [];
    for (const database of databases) {
      const result = await this.databases.updateOne(
        { _id: database.name, hash: { $ne: database.hash } },
        {
          $set: {
            matches: database.matches,
            fingerprints: database.fingerprints,
            hash: database.hash,
            imported_at: at,
            xml: database.xml,
          },
        },
        { upsert: false },
      );
      if (result.modifiedCount > 0) {
        changed.push(database.name);
        continue;
      }
      // Absent (insert) or identical (nothing): the insert fails on an existing _id, which is the identical case.
      const inserted = await this.databases
        .insertOne({
          _id: database.name,
          matches: database.matches,
          fingerprints: database.fingerprints,
          hash: database.hash,
          imported_at: at,
          xml: database.xml,
        })
        .then(
          () => true,
          (error: unknown) => {
            if ((error as { code?: number }).code === 11000) return false;
            throw error;
          },
        );
      if (inserted) changed.push(database.name);
    }
    return changed;
  }

  async list(): Promise<StoredFingerprintDatabase[]> {
    const documents = await this.databases
      .find({}, { projection: { xml: 0 } })
      .sort({ _id: 1 })
      .toArray();
    return documents.map(stored);
  }

  async load(): Promise<Array<StoredFingerprintDatabase & { readonly xml: string }>> {
    const documents = await this.databases.find({}).sort({ _id: 1 }).toArray();
    return documents.map((document) => ({ ...stored(document), xml: document.xml }));
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}

function stored(document: Omit<DatabaseDocument, 'xml'>): StoredFingerprintDatabase {
  return {
    name: document._id,
    matches: document.matches,
    fingerprints: document.fingerprints,
    hash: document.hash,
    imported_at: document.imported_at.toISOString(),
  };
}
