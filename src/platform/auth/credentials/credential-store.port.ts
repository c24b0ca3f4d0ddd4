/**
 * Credential material kept beside the event log, never in it (ADR 65): password hashes, API key hashes, an
 * organization's sealed OpenID Connect client secret, recovery code hashes. An event only says that a
 * credential changed and names it by id; whoever verifies reads the material here.
 *
 * Credentials are immutable: a new password is a new credential with a new id, which the event then names. A
 * credential written without its event (a refused or abandoned decision) is therefore never reachable, so a
 * store that cannot share the event store's transaction can still write it first.
 */
import { createHash } from 'node:crypto';
import type { SqlExecutor } from '../../database/sql-database.js';

export interface Credential {
  /** Named by the event (or derived from an id it carries, e.g. `api-key:<keyId>`). */
  readonly id: string;
  /** What it is: `password`, `api-key`, `sso-client-secret`, `sso-recovery-code`. */
  readonly kind: string;
  /** Whose it is (`account:<id>`, `organization:<id>`): a lookup checks it, so an id never opens another's. */
  readonly subject: string;
  /** The stored form: a password or key hash, a sealed secret as JSON text. Never a clear secret. */
  readonly material: string;
  readonly createdAt: string;
}

export interface CredentialStore {
  /** `postgres`/`pglite` (the event store's SQL database) or `mongodb`. */
  readonly kind: string;
  /** Creates the table or collection; idempotent. */
  init(): Promise<void>;
  /**
   * Stores a credential once: an id already stored keeps what it holds. `within` is the caller's SQL transaction
   * (the one appending the event), used when the store lives in that database.
   */
  put(credential: Credential, within?: SqlExecutor): Promise<void>;
  /** The credential with this id, or null; check its kind and subject with `credentialOf`. */
  get(id: string): Promise<Credential | null>;
  /** Every credential of one subject (erasure, audits); material included. */
  ofSubject(subject: string): Promise<Credential[]>;
  close(): Promise<void>;
}

export const CREDENTIAL_STORE = Symbol('CredentialStore');

/** The credential when it is of this kind and subject, else null: an id never opens someone else's. */
export function credentialOf(
  credential: Credential | null,
  expected: { readonly kind: string; readonly subject: string },
): Credential | null {
  return credential && credential.kind === expected.kind && credential.subject === expected.subject
    ? credential
    : null;
}

/**
 * The id of material moved out of an event written before ADR 65 (by the migration, and by the upcaster that
 * reads such an event before the migration ran): derived from the material, so both agree without a lookup.
 * A digest of a hash or of sealed text gives nothing away.
 */
export function legacyCredentialId(kind: string, material: string): string {
  return `${kind}-legacy-${createHash('sha256').update(material, 'utf8').digest('hex').slice(0, 32)}`;
}
