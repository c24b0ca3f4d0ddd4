/**
 * The observation index: stored observations of the four datasets, searched with the query language's AST.
 * Adapters: PostgreSQL (PGlite or a server, postgres-observation-index.ts) and MongoDB
 * (mongodb-observation-index.ts); both pass test/contract/observation-index.contract.ts.
 *
 * Besides the port, this file holds (or re-exports) the semantics every adapter shares, so that they cannot
 * drift apart: what a valid record is and how its values are normalized (observation-records.ts), how
 * operands and integer and date ranges are read (query-operands.ts), the vocabulary checks
 * (vocabulary-checks.ts), the time frames, and how an AbortSignal ends a call.
 */
import type { Dataset } from '../domain/datasets.js';
import type { QueryNode } from '../query-language/ast.js';
import type { ObservationRecord } from './observation-records.js';
import { HOUR_MS, parseInstant } from './query-operands.js';
import type { SelectorNode } from './vocabulary-checks.js';

export {
  checkObservation,
  InvalidObservationRecord,
  type KeyValue,
  mergeSeenBatch,
  normalizeBatch,
  type NormalizedObservation,
  normalizeObservation,
  type ObservationRecord,
  valueAt,
} from './observation-records.js';
export {
  aggregatableField,
  assertDataset,
  assertSelectorApplies,
  MATCH_KINDS_BY_TYPE,
  searchableField,
  type SelectorNode,
  unsearchableNode,
} from './vocabulary-checks.js';
export {
  exactBoolean,
  exactInteger,
  exactKeyword,
  instantRange,
  type InstantRange,
  integerRange,
  type IntegerRange,
  type IpAddress,
  ipBlock,
  type IpBlock,
  keywordValue,
  parseInstant,
  parseIp,
} from './query-operands.js';

export type TimeFrame = 'all_time' | 'last_24h' | 'last_7d' | 'last_30d' | 'this_year';
export const TIME_FRAMES: readonly TimeFrame[] = ['all_time', 'last_24h', 'last_7d', 'last_30d', 'this_year'];

export interface ObservationQuery {
  /** Validated and interpreted: no `bare` node. A `none` node makes the dataset answer invalid_query. */
  readonly ast: QueryNode;
  /** ISO date-time from the time frame (see sinceOf): only records with last_seen >= since. */
  readonly since?: string;
}

export interface SearchPage {
  readonly records: ObservationRecord[];
  readonly total: number;
  /** More records match than were counted (countLimit): total is a lower bound. */
  readonly totalIsLowerBound: boolean;
}

export type FacetValue = string | number | boolean;
export type Facets = Record<string, Array<{ value: FacetValue; count: number }>>;

export const DEFAULT_COUNT_LIMIT = 10_000;

/**
 * How a write treats a record whose id is already stored (ADR 97):
 * - `replace` (the default): the record written replaces the stored one, dates included (the generator, fixtures,
 *   corrections);
 * - `merge`: a new observation of the same thing (collector imports). first_seen keeps the earliest, last_seen
 *   the latest, and the other fields come from the newest observation (the greater last_seen; on a tie, the
 *   record written): an older observation imported later only moves first_seen back. Records of one id within
 *   the batch are merged the same way before the write.
 */
export interface ObservationWriteOptions {
  readonly seen?: 'replace' | 'merge';
}

/** What a write did, in stored observations (records of one id in one batch are one observation). */
export interface ObservationWriteResult {
  /** Observations of an id not stored before. */
  readonly inserted: number;
  /** Stored observations replaced or merged into. */
  readonly updated: number;
}

/** writeMerged's answer: the merged rows (id, seen dates and the fields asked) and what the write did. */
export interface MergedWrite extends ObservationWriteResult {
  readonly records: ObservationRecord[];
}

export interface ObservationIndex {
  readonly kind: string;
  /** Creates tables (collections) and indexes; idempotent. */
  init(): Promise<void>;
  /**
   * Upserts records by id, atomically per call (a batch is all or nothing). Every record is validated first
   * (InvalidObservationRecord): one invalid record and nothing is written. `options.seen`: see
   * ObservationWriteOptions. Answers how many observations were new and how many were stored already.
   */
  write(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    options?: ObservationWriteOptions,
  ): Promise<ObservationWriteResult>;
  /**
   * Optional: `write(dataset, records, { seen: 'merge' })` that also answers, for every id written, the stored
   * record after the merge reduced to id, first_seen, last_seen and these top-level `fields` (those it has): what
   * a merge keeps may be the stored fields rather than the ones sent. Saves reading the rows back (getMany).
   */
  writeMerged?(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    fields: readonly string[],
  ): Promise<MergedWrite>;
  count(dataset: Dataset): Promise<number>;
  get(dataset: Dataset, id: string): Promise<ObservationRecord | null>;
  /** The stored records of these ids (those that exist), in no particular order: one query. */
  getMany(dataset: Dataset, ids: readonly string[]): Promise<ObservationRecord[]>;
  /**
   * Newest last_seen first, ties by id (code point order). total is exact up to countLimit (default 10,000),
   * else a lower bound.
   */
  search(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
    signal?: AbortSignal,
  ): Promise<SearchPage>;
  /**
   * Top values per field (facets), counted over the matching records: count descending, then value
   * ascending. Only aggregatable fields of the dataset. Case-insensitive keywords are counted lowercased;
   * a multiple field counts each record once per distinct value.
   */
  aggregate(
    dataset: Dataset,
    query: ObservationQuery,
    fields: readonly string[],
    limit: number,
    signal?: AbortSignal,
  ): Promise<Facets>;
  /**
   * Optional (ADR 0131): `search`, then `aggregate` over the same query, as one read (one commit on a
   * PostgreSQL server). The page is answered as soon as it is read, the facets after it (not read when the page
   * is empty: every field then answers no values). A failure of the facets never fails the page.
   */
  searchThenAggregate?(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
    facets: { readonly fields: readonly string[]; readonly limit: number },
    signal?: AbortSignal,
  ): Promise<{ page: SearchPage; facets: Promise<Facets> }>;
  /**
   * Every matching record, in a stable order (id ascending), a batch at a time, without loading the result in
   * memory (exports). Each batch is one short query (keyset on id): no transaction stays open between
   * batches, a record whose id exists throughout is delivered exactly once, records written meanwhile may or
   * may not be included.
   */
  stream(
    dataset: Dataset,
    query: ObservationQuery,
    batchSize: number,
    signal?: AbortSignal,
  ): AsyncIterable<ObservationRecord[]>;
  /** Deletes everything of a dataset (tests, re-imports). */
  clear(dataset: Dataset): Promise<void>;
}

export const OBSERVATION_INDEX = Symbol('ObservationIndex');

/**
 * `cve:`/`kev:` selectors are resolved by the enrichment context (an association between observations and
 * catalogue advisories). Each adapter takes an optional selector compiler (SqlSelectorCompiler,
 * MongoSelectorCompiler); without one, a query with a selector fails with this error instead of silently
 * matching nothing. A search answering with it is a dataset `error`, never zero matches.
 */
export class SelectorNotConfiguredError extends Error {
  override readonly name = 'SelectorNotConfiguredError';
  constructor(
    readonly selector: SelectorNode['selector'],
    adapter: string,
  ) {
    super(
      `${selector}: selectors need the enrichment context's association index, which is not configured ` +
        `for the ${adapter} observation index`,
    );
  }
}

/** The `since` of a time frame at `now` (undefined for all_time); this_year starts on January 1st, UTC. */
export function sinceOf(timeFrame: TimeFrame, now: Date): string | undefined {
  switch (timeFrame) {
    case 'all_time':
      return undefined;
    case 'last_24h':
      return new Date(now.getTime() - 24 * HOUR_MS).toISOString();
    case 'last_7d':
      return new Date(now.getTime() - 7 * 24 * HOUR_MS).toISOString();
    case 'last_30d':
      return new Date(now.getTime() - 30 * 24 * HOUR_MS).toISOString();
    case 'this_year':
      return new Date(Date.UTC(now.getUTCFullYear(), 0, 1)).toISOString();
  }
}

/** Throws the signal's reason (an AbortError DOMException unless the caller gave another, e.g. TimeoutError). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  signal?.throwIfAborted();
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts. Work that cannot be
 * interrupted (a running PGlite statement) goes on in the background; its outcome is then ignored.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      work.catch(() => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? (signal.reason as Error) : (error as Error));
      },
    );
  });
}

export interface PageRequest {
  readonly offset: number;
  readonly limit: number;
  readonly countLimit: number;
}

export function pageRequest(page: { offset: number; limit: number; countLimit?: number }): PageRequest {
  const check = (value: number, what: string): number => {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`${what} must be a non-negative integer`);
    return value;
  };
  return {
    offset: check(page.offset, 'offset'),
    limit: check(page.limit, 'limit'),
    countLimit: check(page.countLimit ?? DEFAULT_COUNT_LIMIT, 'countLimit'),
  };
}

/**
 * Whether the page alone tells the total: a page that is not full and not past the end ends the result.
 * Then no count is needed.
 */
export function totalFromPage(page: PageRequest, found: number): number | undefined {
  if (found < page.limit && (found > 0 || page.offset === 0)) return page.offset + found;
  return undefined;
}

/** total and totalIsLowerBound from a count capped at countLimit + 1. */
export function totalFromCount(
  page: PageRequest,
  found: number,
  counted: number,
): Omit<SearchPage, 'records'> {
  const total = Math.min(counted, page.countLimit);
  return {
    // Records on this page prove at least offset + found matches, whatever the cap.
    total: found > 0 ? Math.max(total, page.offset + found) : total,
    totalIsLowerBound: counted > page.countLimit,
  };
}

export function positiveInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${what} must be a positive integer`);
  return value;
}

export function sinceInstant(query: ObservationQuery): string | undefined {
  if (query.since === undefined) return undefined;
  const instant = parseInstant(query.since);
  if (!instant) throw new RangeError(`since must be an ISO date-time, not ${JSON.stringify(query.since)}`);
  return instant.iso;
}
