/**
 * Credentials in MongoDB (collection `credentials`), for deployments with no SQL database (EventStoreDB events,
 * MongoDB read models). No transaction spans EventStoreDB and MongoDB: the credential is written first and is
 * unreachable until an event names it (credential-store.port.ts).
 */
import { MongoClient, type Collection, type Db } from 'mongodb';
import type { Credential, CredentialStore } from './credential-store.port.js';
import { databaseNameOf } from '../../mongodb/connect.js';

export const CREDENTIALS_COLLECTION = 'credentials';
const DUPLICATE_KEY = 11000;
const NAMESPACE_EXISTS = 48;

interface CredentialDocument {
  _id: string;
  kind: string;
  subject: string;
  material: string;
  createdAt: string;
}

export class MongoCredentialStore implements CredentialStore {
  readonly kind = 'mongodb';
  private readonly db: Db;
  private readonly credentials: Collection<CredentialDocument>;
  private closed = false;

  constructor(
    private readonly client: MongoClient,
    dbName: string,
    private readonly ownsClient = false,
  ) {
    this.db = client.db(dbName, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
    this.credentials = this.db.collection<CredentialDocument>(CREDENTIALS_COLLECTION);
  }

  /** Connects to `url`; the database is `dbName`, else the one named in the URL path, else `exposure`. */
  static async connect(url: string, dbName?: string): Promise<MongoCredentialStore> {
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      ignoreUndefined: true,
      serverSelectionTimeoutMS: 10_000,
    });
    await client.connect();
    return new MongoCredentialStore(client, dbName ?? databaseNameOf(url) ?? 'exposure', true);
  }

  async init(): Promise<void> {
    try {
      await this.db.createCollection(CREDENTIALS_COLLECTION);
    } catch (error) {
      if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
    }
    await this.credentials.createIndex({ subject: 1 }, { name: 'by_subject' });
  }

  async put(credential: Credential): Promise<void> {
    try {
      await this.credentials.insertOne({
        _id: credential.id,
        kind: credential.kind,
        subject: credential.subject,
        material: credential.material,
        createdAt: credential.createdAt,
      });
    } catch (error) {
      // Credentials are immutable: the id is already stored, and keeps what it holds.
      if (!hasCode(error, DUPLICATE_KEY)) throw error;
    }
  }

  async get(id: string): Promise<Credential | null> {
    if (typeof id !== 'string' || id.length === 0) return null;
    const document = await this.credentials.findOne({ _id: id });
    return document ? toCredential(document) : null;
  }

  async ofSubject(subject: string): Promise<Credential[]> {
    const documents = await this.credentials.find({ subject }).sort({ createdAt: 1, _id: 1 }).toArray();
    return documents.map(toCredential);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }
}

function toCredential(document: CredentialDocument): Credential {
  return {
    id: document._id,
    kind: document.kind,
    subject: document.subject,
    material: document.material,
    createdAt: document.createdAt,
  };
}

function hasCode(error: unknown, code: number): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
