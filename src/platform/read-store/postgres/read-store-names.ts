/**
 * Tables and indexes of collections: names validated before they are interpolated, quoted, and JSON
 * parameters.
 */
import { createHash } from 'node:crypto';

export const COLLECTION_NAME = /^[a-z][a-z0-9_]{0,50}$/;
export const INDEX_NAME = /^[a-z][a-z0-9_]{0,62}$/;

export const TABLE_PREFIX = 'rs_';
/** Collection names whose tables would be the store's own tables. */
export const RESERVED_COLLECTIONS = new Set(['checkpoints', 'meta']);
/** Suffixes of the indexes every collection table has (primary key, containment). */
export const PRIMARY_KEY_SUFFIX = 'pkey';
export const CONTAINMENT_INDEX_SUFFIX = 'containment';
export const RESERVED_INDEX_NAMES = new Set([PRIMARY_KEY_SUFFIX, CONTAINMENT_INDEX_SUFFIX]);
/** PostgreSQL truncates longer identifiers (NAMEDATALEN - 1). */
export const MAX_IDENTIFIER_BYTES = 63;

export function assertCollectionName(collection: string): void {
  if (!COLLECTION_NAME.test(collection))
    throw new Error(`invalid collection name ${JSON.stringify(collection)}`);
  if (RESERVED_COLLECTIONS.has(collection)) throw new Error(`collection name ${collection} is reserved`);
}

/** The table of a collection; the name is validated, so it is safe to interpolate. */
export function tableName(collection: string): string {
  assertCollectionName(collection);
  return TABLE_PREFIX + collection;
}

/** `rs_<collection>__<index>`; names past PostgreSQL's limit are cut and made unique with a hash. */
export function indexName(collection: string, index: string): string {
  if (!INDEX_NAME.test(index)) throw new Error(`invalid index name ${JSON.stringify(index)}`);
  const name = `${tableName(collection)}__${index}`;
  if (name.length <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - hash.length - 1)}_${hash}`;
}

export function declaredIndexName(collection: string, index: string): string {
  if (RESERVED_INDEX_NAMES.has(index)) throw new Error(`index name ${index} is reserved`);
  return indexName(collection, index);
}

/** Identifiers here are validated lower-case names; quoting keeps them exact. */
export function quote(identifier: string): string {
  return `"${identifier}"`;
}

/** A string literal for DDL (COMMENT takes no parameters). */
export function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

export function json(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function assertDocumentId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0)
    throw new Error('a read document needs a non-empty string id');
}
