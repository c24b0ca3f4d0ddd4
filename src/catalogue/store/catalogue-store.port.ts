/**
 * The vulnerability catalogue (imported, not event-sourced) and the association index from host observations to
 * the CVEs that apply to them. Adapters: PostgreSQL (PGlite or a server; the association table lives beside
 * `obs_hosts`) and MongoDB (collections beside `obs_hosts`); both pass test/contract/catalogue-store.contract.ts.
 * Each adapter also compiles the search selectors `cve:`/`kev:` over its association index.
 */
import type { Advisory, CatalogueVersion, KevEntry, KevSource } from '../domain/advisory.js';
import type { Association } from '../domain/matching.js';
import type { MongoSelectorCompiler } from '../../search/observation-index/mongodb-query-compiler.js';
import type { SqlSelectorCompiler } from '../../search/observation-index/postgres-query-compiler.js';

export interface StoredAdvisory {
  readonly advisory: Advisory;
  /** sha-256 of the advisory as stored: an identical re-import changes nothing. */
  readonly hash: string;
}

export interface CatalogueChange {
  /**
   * New or changed advisories (already decided by the caller: newer or different), in batches read as they are
   * written (an NVD-sized import is never held whole). Each call starts over (a retried transaction calls it again).
   */
  readonly upserts: () => AsyncIterable<readonly StoredAdvisory[]>;
  /** A complete KEV catalogue replacing the current one, or null to keep it. */
  readonly kev: {
    readonly source: KevSource;
    readonly entries: readonly KevEntry[];
    readonly hash: string;
  } | null;
  readonly at: Date;
}

export interface CatalogueSnapshot {
  readonly version: CatalogueVersion;
  readonly advisories: readonly Advisory[];
  /** null when no KEV catalogue was ever imported. */
  readonly kev: readonly KevEntry[] | null;
}

export interface HostAssociation extends Association {
  readonly observation_id: string;
}

/** Which matcher built the association index (see MATCHER_VERSION), and when that build finished. */
export interface IndexStamp {
  readonly matcher_version: number;
  readonly built_at: string;
}

export interface CatalogueStore {
  readonly kind: string;
  init(): Promise<void>;
  version(): Promise<CatalogueVersion>;
  /** id → {hash, last_modified} of the stored advisories named (what an import compares with). */
  stamps(ids: readonly string[]): Promise<Map<string, { hash: string; last_modified: string | null }>>;
  kevHash(): Promise<string | null>;
  /**
   * Applies one import atomically and bumps the version (evaluated_at = `at`); with nothing to change it is not
   * called. Concurrent commits are serialized.
   */
  commit(change: CatalogueChange): Promise<CatalogueVersion>;
  load(): Promise<CatalogueSnapshot>;

  /** Replaces the associations of these observations (rows for other observations are untouched). */
  replaceAssociations(observationIds: readonly string[], rows: readonly HostAssociation[]): Promise<void>;
  clearAssociations(): Promise<void>;
  associationCount(): Promise<number>;
  associationsOf(observationIds: readonly string[]): Promise<Map<string, HostAssociation[]>>;
  /** null: no build of the index recorded its matcher version (an index older than the stamp, or a new one). */
  indexStamp(): Promise<IndexStamp | null>;
  /** Records that the whole index was just built with this matcher version (replaces the previous stamp). */
  stampIndex(matcherVersion: number, at: Date): Promise<void>;

  /** The `cve:`/`kev:` selector compiler over this store's association index (one of the two kinds). */
  readonly sqlSelectors?: SqlSelectorCompiler;
  readonly mongoSelectors?: MongoSelectorCompiler;
  close(): Promise<void>;
}

/**
 * What the selectors mean over the association index (both adapters):
 * - `cve:CVE-2021-44228`: the observation is associated with that advisory;
 * - `cve:CVE-2021-*`: with an advisory of that year; `cve:*`: with at least one advisory;
 * - `kev:true`: at least one associated advisory is in the loaded KEV catalogue;
 * - `kev:false`: associated with advisories, none of them KEV-listed, with a KEV catalogue loaded (a host without
 *   associations, or one whose KEV state is unknown, is not matched): a negative over the index, never proof of
 *   safety.
 */
export type SelectorMeaning =
  | { readonly kind: 'cve'; readonly id: string }
  | { readonly kind: 'cve-year'; readonly year: string }
  | { readonly kind: 'cve-any' }
  | { readonly kind: 'kev'; readonly listed: boolean };

export function selectorMeaning(selector: 'cve' | 'kev', value: string): SelectorMeaning {
  if (selector === 'kev') return { kind: 'kev', listed: value === 'true' };
  if (value === '*') return { kind: 'cve-any' };
  const year = /^CVE-(\d{4})-\*$/.exec(value);
  if (year) return { kind: 'cve-year', year: year[1]! };
  return { kind: 'cve', id: value };
}
