/**
 * The MongoDB layout of the observation index and the compiler from the query AST to a MongoDB filter.
 * Same semantics as the PostgreSQL compiler (test/contract/observation-index.contract.ts holds both to them).
 *
 * One collection per dataset, `obs_<dataset>`, one document per record:
 *   _id     the record id
 *   record  the record as written (returned by get/search/stream)
 *   k       searchable values, normalized (normalizeObservation): keyword values lowercased for
 *           case-insensitive fields, multiple fields as arrays, integers, booleans, ip as canonical text
 *   t       date fields as BSON dates
 *   n4, n6  ip fields as numbers: IPv4 as an integer, IPv6 as 32 lowercase hex digits (fixed width, so string
 *           order is address order): a CIDR block is one range
 *   x       text fields lowercased (as PostgreSQL's `lower(doc #>> path)`), indexed: matches are case-sensitive
 *           on it, so an exact match is an index point, a prefix an index range, and a suffix/contains regex
 *           scans index keys only (MongoDB has no trigram index; this is the nearest it allows)
 * Keys inside k, t, n4 and n6 are the vocabulary names with `.` written `__` (`k.http__status`).
 *
 * Matches:
 *   - exact keyword/integer/boolean/ip: equality on `k.<f>` (an array field matches any element, natively);
 *   - keyword prefix: anchored regex on the normalized value (case-sensitive, so the index bounds it);
 *     suffix/contains: escaped regex, unanchored at the start;
 *   - text fields: on the lowercased `x.<f>` with the lowercased value: equality for exact, escaped regex
 *     anchored at the start for prefix, \z for suffix, unanchored for contains;
 *   - integer ranges: $gte/$lte on `k.<f>` (bounds made inclusive integers); dates: on `t.<f>`;
 *   - cidr: a range of `n4.<f>` or `n6.<f>`;
 *   - not: $nor (a record without the field matches the negation, as in the PostgreSQL adapter).
 * Values are never interpreted as operators or patterns: strings go into equality or into escaped regexes.
 */
import type { AnyBulkWriteOperation, Db, Document, Filter } from 'mongodb';
import { fieldsOf, type Dataset, type FieldDefinition } from '../domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from '../query-language/ast.js';
import { FILTER_FIRST_MAX_MATCHES, type PageStrategy } from './postgres-query-compiler.js';
import {
  aggregatableField,
  assertDataset,
  assertSelectorApplies,
  exactBoolean,
  exactInteger,
  exactKeyword,
  instantRange,
  integerRange,
  ipBlock,
  parseIp,
  searchableField,
  SelectorNotConfiguredError,
  sinceInstant,
  unsearchableNode,
  type IpAddress,
  type NormalizedObservation,
  type ObservationQuery,
  type ObservationRecord,
  type SelectorNode,
} from './observation-index.port.js';

export interface StoredObservation {
  _id: string;
  record: ObservationRecord;
  k: Record<string, unknown>;
  t: Record<string, Date>;
  n4: Record<string, number>;
  n6: Record<string, string>;
  /** Text fields lowercased (absent in documents written before ADR 83: init backfills them). */
  x?: Record<string, string>;
}

export interface MongoSelectorContext {
  readonly dataset: Dataset;
  /** The database holding the observation collections (and, typically, the association). */
  readonly db: Db;
  /** The observation collection (`obs_hosts`). */
  readonly collection: string;
  readonly signal?: AbortSignal;
}

/**
 * The enrichment context's extension point for `cve:` and `kev:` selectors: a filter on the stored
 * observations, e.g. `{ _id: { $in: ids } }` resolved from an association collection, or a condition on fields
 * the enrichment context maintains in the observation documents. It may throw QuerySyntaxError (code
 * invalid_cve_selector) for a value it refuses.
 */
export interface MongoSelectorCompiler {
  compile(
    node: SelectorNode,
    context: MongoSelectorContext,
  ): Filter<StoredObservation> | Promise<Filter<StoredObservation>>;
}

// --- layout ----------------------------------------------------------------------------------------------

const FIELD_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

export function collectionOf(dataset: Dataset): string {
  assertDataset(dataset);
  return `obs_${dataset}`;
}

/** The key of a field inside k, t, n4 and n6. */
export function storageKey(field: FieldDefinition): string {
  if (!FIELD_NAME.test(field.name)) throw new Error(`invalid field name ${JSON.stringify(field.name)}`);
  return field.name.replaceAll('.', '__');
}

export interface MongoIndexDefinition {
  readonly name: string;
  readonly keys: Readonly<Record<string, 1 | -1>>;
}

/** The indexes of a dataset's collection: the order, and one per searchable stored value. */
export function indexesOf(dataset: Dataset): MongoIndexDefinition[] {
  const indexes: MongoIndexDefinition[] = [{ name: 'recent', keys: { ...RECENT_ORDER } }];
  for (const field of fieldsOf(dataset)) {
    const key = storageKey(field);
    if (field.multiple && field.type !== 'keyword') {
      throw new Error(`multiple ${field.type} field ${field.name} is not supported by the MongoDB index`);
    }
    switch (field.type) {
      case 'keyword':
      case 'integer':
      case 'boolean':
        indexes.push({ name: `k_${key}`, keys: { [`k.${key}`]: 1 } });
        break;
      case 'date':
        if (field.name !== 'last_seen') indexes.push({ name: `t_${key}`, keys: { [`t.${key}`]: 1 } });
        break;
      case 'ip':
        indexes.push({ name: `k_${key}`, keys: { [`k.${key}`]: 1 } });
        indexes.push({ name: `n4_${key}`, keys: { [`n4.${key}`]: 1 } });
        indexes.push({ name: `n6_${key}`, keys: { [`n6.${key}`]: 1 } });
        break;
      case 'text':
        indexes.push({ name: `x_${key}`, keys: { [`x.${key}`]: 1 } });
        break;
    }
  }
  return indexes;
}

/** The stored document of a normalized record. */
export function toStored(dataset: Dataset, observation: NormalizedObservation): StoredObservation {
  const stored: StoredObservation = {
    _id: observation.id,
    record: observation.record,
    k: {},
    t: {},
    n4: {},
    n6: {},
    x: loweredTexts(dataset, observation.record),
  };
  for (const field of fieldsOf(dataset)) {
    const key = storageKey(field);
    const value = observation.keys[field.name];
    if (value !== undefined) stored.k[key] = value;
    const instant = observation.instants[field.name];
    if (instant !== undefined) stored.t[key] = new Date(instant);
    const address = observation.addresses[field.name];
    if (address?.family === 4) stored.n4[key] = ipv4Number(address);
    if (address?.family === 6) stored.n6[key] = ipv6Hex(address);
  }
  return stored;
}

/** `x`: each text field of the record, lowercased, by storage key. */
export function loweredTexts(dataset: Dataset, record: ObservationRecord): Record<string, string> {
  const lowered: Record<string, string> = {};
  for (const field of fieldsOf(dataset)) {
    if (field.type !== 'text') continue;
    let value: unknown = record;
    for (const segment of field.name.split('.')) {
      value =
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined;
    }
    if (typeof value === 'string') lowered[storageKey(field)] = value.toLowerCase();
  }
  return lowered;
}

/**
 * The write of one observation: its own fields are set and the rest of the document is kept, so the summary of
 * its associations (`assoc`, maintained by the catalogue store) survives a re-observation (a replaceOne would
 * drop it until the association is rewritten, and a `cve:` query in between would miss the host).
 */
export function observationUpsert(stored: StoredObservation): AnyBulkWriteOperation<StoredObservation> {
  const { _id, ...fields } = stored;
  return { updateOne: { filter: { _id }, update: { $set: fields }, upsert: true } };
}

/**
 * The upsert of a `merge` write (ObservationWriteOptions, ADR 97) as an update pipeline: t.first_seen keeps the
 * earliest ($min), t.last_seen the latest ($max), and record, k, n4, n6, x and the other dates come from the
 * newest observation; on equal last_seen both are parts of one observation and their fields add up
 * ($mergeObjects, the incoming one's where both have one). A new document has no stored last_seen, and missing
 * sorts before any date. One $set stage: every expression reads the stored document as it was. Incoming values
 * are $literal, so that a string starting with `$` is never read as a field path.
 */
export function observationMerge(stored: StoredObservation): AnyBulkWriteOperation<StoredObservation> {
  const { _id, record, k, t, n4, n6, x } = stored;
  const firstSeen = t.first_seen!;
  const lastSeen = t.last_seen!;
  const newer = { $gt: [{ $literal: lastSeen }, '$t.last_seen'] };
  const same = { $eq: [{ $literal: lastSeen }, '$t.last_seen'] };
  const earlier = {
    $or: [{ $lte: ['$t.first_seen', null] }, { $lt: [{ $literal: firstSeen }, '$t.first_seen'] }],
  };
  const newest = (incoming: unknown, path: string, addedUp: unknown[] = []) => ({
    $cond: [
      newer,
      { $literal: incoming },
      { $cond: [same, { $mergeObjects: [path, { $literal: incoming }, ...addedUp] }, path] },
    ],
  });
  // Objects of the record (`http`, `tls`, …) are merged one level down on equal last_seen (addedUp).
  const nested = Object.entries(record)
    .filter(
      ([key, value]) =>
        /^[a-z][a-z0-9_]*$/.test(key) && value !== null && typeof value === 'object' && !Array.isArray(value),
    )
    .map(([key, value]) => ({ [key]: { $mergeObjects: [`$record.${key}`, { $literal: value }] } }));
  const update = [
    {
      $set: {
        record: {
          $mergeObjects: [
            newest(record, '$record', nested),
            {
              first_seen: { $cond: [earlier, { $literal: record.first_seen }, '$record.first_seen'] },
              last_seen: {
                $cond: [{ $or: [newer, same] }, { $literal: record.last_seen }, '$record.last_seen'],
              },
            },
          ],
        },
        k: newest(k, '$k'),
        n4: newest(n4, '$n4'),
        n6: newest(n6, '$n6'),
        x: newest(x, '$x'),
        t: {
          $mergeObjects: [
            newest(t, '$t'),
            {
              first_seen: { $min: [{ $literal: firstSeen }, '$t.first_seen'] },
              last_seen: { $max: [{ $literal: lastSeen }, '$t.last_seen'] },
            },
          ],
        },
      },
    },
  ];
  return { updateOne: { filter: { _id }, update, upsert: true } };
}

function ipv4Number(address: IpAddress): number {
  return address.bytes.reduce((number, byte) => number * 256 + byte, 0);
}

function ipv6Hex(address: IpAddress): string {
  return [...address.bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

// --- compilation -----------------------------------------------------------------------------------------

/** Matches no document (MongoDB refuses an empty $or). */
const NOTHING: Filter<StoredObservation> = { _id: { $in: [] } };

export interface MongoCompileOptions {
  readonly selectors?: MongoSelectorCompiler;
  readonly db?: Db;
  readonly signal?: AbortSignal;
}

export async function compileQuery(
  dataset: Dataset,
  query: ObservationQuery,
  options: MongoCompileOptions = {},
): Promise<Filter<StoredObservation>> {
  assertDataset(dataset);
  // Validation first: a selector compiler is called only for a query that is otherwise valid.
  const compiler = new FilterCompiler(dataset, options);
  const filter = await compiler.filter(query.ast);
  const since = sinceInstant(query);
  if (since === undefined) return filter;
  return and([filter, { 't.last_seen': { $gte: new Date(since) } }]);
}

function and(filters: Filter<StoredObservation>[]): Filter<StoredObservation> {
  const meaningful = filters.filter((filter) => Object.keys(filter).length > 0);
  if (meaningful.length === 0) return {};
  if (meaningful.length === 1) return meaningful[0]!;
  return { $and: meaningful };
}

class FilterCompiler {
  constructor(
    private readonly dataset: Dataset,
    private readonly options: MongoCompileOptions,
  ) {}

  async filter(node: QueryNode): Promise<Filter<StoredObservation>> {
    switch (node.kind) {
      case 'and':
        return and(await Promise.all(node.children.map((child) => this.filter(child))));
      case 'or':
        if (node.children.length === 0) return NOTHING;
        return { $or: await Promise.all(node.children.map((child) => this.filter(child))) };
      case 'not':
        return { $nor: [await this.filter(node.child)] };
      case 'field':
        return this.field(searchableField(this.dataset, node), node.match, node.span.start);
      case 'selector': {
        assertSelectorApplies(this.dataset, node);
        const { selectors, db, signal } = this.options;
        if (!selectors || !db) throw new SelectorNotConfiguredError(node.selector, 'MongoDB');
        return selectors.compile(node, {
          dataset: this.dataset,
          db,
          collection: collectionOf(this.dataset),
          ...(signal ? { signal } : {}),
        });
      }
      case 'none':
      case 'bare':
        throw unsearchableNode(node);
    }
  }

  private field(field: FieldDefinition, match: Match, position: number): Filter<StoredObservation> {
    const key = storageKey(field);
    switch (field.type) {
      case 'keyword':
        return this.keyword(field, key, match, position);
      case 'text':
        return this.text(field, match, position);
      case 'integer':
        return this.integer(key, match, position);
      case 'boolean':
        if (match.kind !== 'exact') throw unsupported(field, match, position);
        return { [`k.${key}`]: exactBoolean(match.value, position) };
      case 'date': {
        const range = instantRange(match, position);
        const condition: Document = {};
        if (range.gte !== undefined) condition.$gte = new Date(range.gte);
        if (range.gt !== undefined) condition.$gt = new Date(range.gt);
        if (range.lt !== undefined) condition.$lt = new Date(range.lt);
        if (range.lte !== undefined) condition.$lte = new Date(range.lte);
        return { [`t.${key}`]: Object.keys(condition).length > 0 ? condition : { $exists: true } };
      }
      case 'ip':
        return this.ip(field, key, match, position);
    }
  }

  private keyword(
    field: FieldDefinition,
    key: string,
    match: Match,
    position: number,
  ): Filter<StoredObservation> {
    if (match.kind === 'exact') return { [`k.${key}`]: exactKeyword(field, match.value) };
    if (match.kind !== 'prefix' && match.kind !== 'suffix' && match.kind !== 'contains') {
      throw unsupported(field, match, position);
    }
    return { [`k.${key}`]: { $regex: anchored(match.kind, escapeRegex(exactKeyword(field, match.value))) } };
  }

  private text(field: FieldDefinition, match: Match, position: number): Filter<StoredObservation> {
    const path = `x.${storageKey(field)}`;
    if (match.kind === 'exact') return { [path]: String(match.value).toLowerCase() };
    if (match.kind !== 'prefix' && match.kind !== 'suffix' && match.kind !== 'contains') {
      throw unsupported(field, match, position);
    }
    return { [path]: { $regex: anchored(match.kind, escapeRegex(match.value.toLowerCase())) } };
  }

  private integer(key: string, match: Match, position: number): Filter<StoredObservation> {
    if (match.kind === 'exact') {
      const value = exactInteger(match.value, position);
      return value === null ? NOTHING : { [`k.${key}`]: value };
    }
    if (match.kind !== 'range') throw new QuerySyntaxError(`integers take exact values or ranges`, position);
    const range = integerRange(match, position);
    if (range === 'empty') return NOTHING;
    const condition: Document = {};
    if (range.gte !== undefined) condition.$gte = range.gte;
    if (range.lte !== undefined) condition.$lte = range.lte;
    // Only numbers: a range never matches a value of another type (there are none, by validation).
    return { [`k.${key}`]: Object.keys(condition).length > 0 ? condition : { $type: 'number' } };
  }

  private ip(field: FieldDefinition, key: string, match: Match, position: number): Filter<StoredObservation> {
    if (match.kind === 'exact') {
      const address = parseIp(String(match.value).trim());
      if (!address) throw new QuerySyntaxError(`${String(match.value)} is not an IP address`, position);
      return { [`k.${key}`]: address.text };
    }
    if (match.kind !== 'cidr') throw unsupported(field, match, position);
    const block = ipBlock(match, position);
    return block.family === 4
      ? { [`n4.${key}`]: { $gte: ipv4Number(block.first), $lte: ipv4Number(block.last) } }
      : { [`n6.${key}`]: { $gte: ipv6Hex(block.first), $lte: ipv6Hex(block.last) } };
  }
}

function unsupported(field: FieldDefinition, match: Match, position: number): QuerySyntaxError {
  return new QuerySyntaxError(
    `${field.name}: ${match.kind} matches do not apply to ${field.type} fields`,
    position,
  );
}

/** PCRE pattern for a literal string. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function anchored(kind: 'prefix' | 'suffix' | 'contains', escaped: string): string {
  if (kind === 'prefix') return `^${escaped}`;
  if (kind === 'suffix') return `${escaped}\\z`;
  return escaped;
}

// --- reading a page ------------------------------------------------------------------------------------------

/** The order of every page, and the index that walks it. */
export const RECENT_ORDER = { 't.last_seen': -1, _id: 1 } as const;

/**
 * How search() reads a page, chosen from the capped count as in the PostgreSQL adapter (see PageStrategy there):
 * - nothing to read (no limit, or an exact count at or below the offset): the count answers alone;
 * - `filter-first` when the count is exact and at most FILTER_FIRST_MAX_MATCHES: no hint, so the planner takes
 *   a filter index (its trial ends as soon as that plan reaches its end) and sorts the few matches in memory;
 * - `ordered` otherwise: hinted to walk the recent index, keeping matches until the page is full (dense matches
 *   fill it early; a rare value never gets there, because its count is exact and small).
 */
export type MongoPagePlan =
  | { readonly read: false }
  | { readonly read: true; readonly strategy: PageStrategy; readonly hint?: Document };

export function pagePlan(
  request: { readonly offset: number; readonly limit: number; readonly countLimit: number },
  counted: number,
): MongoPagePlan {
  const exact = counted <= request.countLimit;
  if (request.limit === 0 || (exact && counted <= request.offset)) return { read: false };
  if (exact && counted <= FILTER_FIRST_MAX_MATCHES) return { read: true, strategy: 'filter-first' };
  return { read: true, strategy: 'ordered', hint: { ...RECENT_ORDER } };
}

/**
 * The server-side limit of the next operation of a call that started at `startedAt` with `budgetMs` in all (the
 * dataset deadline): the call's operations share it, as they share the deadline's AbortSignal.
 */
export function remainingTimeMS(budgetMs: number, startedAt: number, now: number): number {
  return Math.max(1, Math.floor(budgetMs - (now - startedAt)));
}

// --- aggregation -----------------------------------------------------------------------------------------

/** The $facet stages of aggregate(): count descending, then value ascending (binary order for strings). */
export function facetPipelines(
  dataset: Dataset,
  fields: readonly string[],
  limit: number,
): Record<string, Document[]> {
  const facets: Record<string, Document[]> = {};
  fields.forEach((name, i) => {
    const field = aggregatableField(dataset, name);
    if (
      field.type !== 'keyword' &&
      field.type !== 'integer' &&
      field.type !== 'boolean' &&
      field.type !== 'ip'
    ) {
      throw new Error(`${field.type} field ${field.name} cannot be aggregated`);
    }
    facets[`f${i}`] = [
      { $project: { _id: 0, value: `$k.${storageKey(field)}` } },
      ...(field.multiple ? [{ $unwind: '$value' }] : []),
      { $match: { value: { $exists: true, $ne: null } } },
      { $group: { _id: '$value', count: { $sum: 1 } } },
      { $sort: { count: -1, _id: 1 } },
      { $limit: limit },
    ];
  });
  return facets;
}
