import type { ReadDocument, ReadStore } from '../platform/read-store/read-store.port.js';

/**
 * The operator credentials' hashes (ADR 68), beside the log: never in an event, so not a projection either
 * (a rebuild could not recreate it, and `projections rebuild` never touches it). A row proves nothing alone:
 * its credential is valid only while the operator's stream says it was issued and not revoked.
 */
export const OPERATOR_CREDENTIALS_COLLECTION = 'operator_credentials';

export interface OperatorCredentialDocument extends ReadDocument {
  /** The credential id. */
  readonly id: string;
  readonly operator: string;
  /** SHA-256 (hex) of the secret. */
  readonly secretHash: string;
  readonly issuedAt: string;
}

export class OperatorCredentialTable {
  private ready: Promise<void> | undefined;

  constructor(private readonly readStore: ReadStore) {}

  async get(credentialId: string): Promise<OperatorCredentialDocument | null> {
    await this.init();
    return this.readStore
      .collection<OperatorCredentialDocument>(OPERATOR_CREDENTIALS_COLLECTION)
      .get(credentialId);
  }

  async put(document: OperatorCredentialDocument): Promise<void> {
    await this.init();
    await this.readStore
      .collection<OperatorCredentialDocument>(OPERATOR_CREDENTIALS_COLLECTION)
      .upsert(document);
  }

  async delete(credentialId: string): Promise<void> {
    await this.init();
    await this.readStore.collection(OPERATOR_CREDENTIALS_COLLECTION).delete(credentialId);
  }

  private init(): Promise<void> {
    this.ready ??= this.readStore
      .ensureCollection(OPERATOR_CREDENTIALS_COLLECTION)
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    return this.ready;
  }
}
