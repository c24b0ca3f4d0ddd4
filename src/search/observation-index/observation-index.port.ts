/**
 * The observation index: stored observations of the four datasets, searched with the query language's AST.
 * Adapters: PostgreSQL (PGlite or a server, postgres-observation-index.ts) and MongoDB
 * (mongodb-observation-index.ts); both pass test/contract/observation-index.contract.ts.
 *
 * Besides the port, this file holds the semantics every adapter shares, so that they cannot drift apart:
 * what a valid record is and how its values are normalized (case folding, dates, addresses), how integer and
 * date ranges are read, the time frames, and how an AbortSignal ends a call.
 */
import { isIP } from 'node:net';
import { fieldNamed, fieldsOf, isDataset, type Dataset, type FieldDefinition } from '../domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from '../query-language/ast.js';

export type TimeFrame = 'all_time' | 'last_24h' | 'last_7d' | 'last_30d' | 'this_year';
export const TIME_FRAMES: readonly TimeFrame[] = ['all_time', 'last_24h', 'last_7d', 'last_30d', 'this_year'];

/**
 * One stored observation: `{ id, ...fields }`, field paths nested by their dots (`http.title` is
 * `{ http: { title } }`), `multiple` fields as arrays, dates as ISO strings. Other properties (raw data the
 * vocabulary does not search) are stored and returned untouched.
 */
export interface ObservationRecord {
  readonly id: string;
  readonly first_seen: string;
  readonly last_seen: string;
  readonly [field: string]: unknown;
}

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

export interface ObservationIndex {
  readonly kind: string;
  /** Creates tables (collections) and indexes; idempotent. */
  init(): Promise<void>;
  /**
   * Upserts records by id, atomically per call (a batch is all or nothing). Every record is validated first
   * (InvalidObservationRecord): one invalid record and nothing is written.
   */
  write(dataset: Dataset, records: readonly ObservationRecord[]): Promise<void>;
  count(dataset: Dataset): Promise<number>;
  get(dataset: Dataset, id: string): Promise<ObservationRecord | null>;
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

// --- selectors -------------------------------------------------------------------------------------------

export type SelectorNode = Extract<QueryNode, { kind: 'selector' }>;

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

/** A record refused by write(); the whole batch was refused with it. */
export class InvalidObservationRecord extends Error {
  override readonly name = 'InvalidObservationRecord';
  constructor(
    readonly recordId: string | undefined,
    message: string,
  ) {
    super(
      `invalid observation record${recordId === undefined ? '' : ` ${JSON.stringify(recordId)}`}: ${message}`,
    );
  }
}

// --- time frames -----------------------------------------------------------------------------------------

const HOUR_MS = 3_600_000;

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

// --- abort -----------------------------------------------------------------------------------------------

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

// --- vocabulary checks -----------------------------------------------------------------------------------

export function assertDataset(dataset: unknown): asserts dataset is Dataset {
  if (!isDataset(dataset)) throw new Error(`unknown dataset ${JSON.stringify(dataset)}`);
}

/** Match kinds each field type accepts. Anything else is a 422 invalid_query. */
export const MATCH_KINDS_BY_TYPE: Readonly<Record<FieldDefinition['type'], readonly Match['kind'][]>> = {
  keyword: ['exact', 'prefix', 'suffix', 'contains'],
  text: ['exact', 'prefix', 'suffix', 'contains'],
  integer: ['exact', 'range'],
  date: ['exact', 'range'],
  ip: ['exact', 'cidr'],
  boolean: ['exact'],
};

/** The field of a `field` node, checked against the dataset and the match kind. */
export function searchableField(
  dataset: Dataset,
  node: Extract<QueryNode, { kind: 'field' }>,
): FieldDefinition {
  const field = fieldNamed(node.field);
  if (!field || !field.datasets.includes(dataset)) {
    throw new QuerySyntaxError(`field ${node.field} does not apply to ${dataset}`, node.span.start);
  }
  if (!MATCH_KINDS_BY_TYPE[field.type].includes(node.match.kind)) {
    throw new QuerySyntaxError(
      `${node.field} is a ${field.type} field: ${node.match.kind} matches do not apply`,
      node.span.start,
    );
  }
  return field;
}

/** What a node other than and/or/not/field/selector means here: `none` is invalid_query, `bare` a caller bug. */
export function unsearchableNode(node: Extract<QueryNode, { kind: 'none' | 'bare' }>): Error {
  if (node.kind === 'none') return new QuerySyntaxError(node.reason, node.span.start);
  return new Error('bare input reached the observation index: interpret the query before searching');
}

/** Selectors are attributes of host observations only. */
export function assertSelectorApplies(dataset: Dataset, node: SelectorNode): void {
  if (dataset !== 'hosts') {
    throw new QuerySyntaxError(
      `${node.selector}: selectors apply to hosts observations only`,
      node.span.start,
    );
  }
}

/** The aggregatable field named `name` in the dataset. */
export function aggregatableField(dataset: Dataset, name: string): FieldDefinition {
  const field = fieldNamed(name);
  if (!field || !field.datasets.includes(dataset))
    throw new Error(`field ${name} does not apply to ${dataset}`);
  if (!field.aggregatable) throw new Error(`field ${name} is not aggregatable`);
  return field;
}

// --- values ----------------------------------------------------------------------------------------------

/** How keyword values are compared: lowercased (JavaScript toLowerCase) for case-insensitive fields. */
export function keywordValue(field: FieldDefinition, value: string): string {
  return field.caseInsensitive ? value.toLowerCase() : value;
}

/** An exact keyword operand (numbers and booleans compare as their text). */
export function exactKeyword(field: FieldDefinition, value: string | number | boolean): string {
  return keywordValue(field, String(value));
}

/** An exact integer operand; null when the value is no integer (then nothing matches). */
export function exactInteger(value: string | number | boolean, position: number): number | null {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  if (!Number.isFinite(number)) throw new QuerySyntaxError(`${String(value)} is not a number`, position);
  return Number.isSafeInteger(number) ? number : null;
}

export function exactBoolean(value: string | number | boolean, position: number): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new QuerySyntaxError(`${String(value)} is not true or false`, position);
}

/** An integer range with inclusive bounds (exclusive and fractional bounds are rounded inward). */
export type IntegerRange = { readonly gte?: number; readonly lte?: number } | 'empty';

export function integerRange(match: Extract<Match, { kind: 'range' }>, position: number): IntegerRange {
  const bound = (value: number | string): number => {
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(number)) throw new QuerySyntaxError(`${String(value)} is not a number`, position);
    return number;
  };
  let gte: number | undefined;
  let lte: number | undefined;
  if (match.lower) {
    const value = bound(match.lower.value);
    gte = match.lower.inclusive ? Math.ceil(value) : Math.floor(value) + 1;
  }
  if (match.upper) {
    const value = bound(match.upper.value);
    lte = match.upper.inclusive ? Math.floor(value) : Math.ceil(value) - 1;
  }
  if (gte !== undefined && lte !== undefined && gte > lte) return 'empty';
  // Beyond the safe integers nothing is stored: clamp, so that the bound stays a valid bigint.
  if (gte !== undefined && gte > Number.MAX_SAFE_INTEGER) return 'empty';
  if (lte !== undefined && lte < Number.MIN_SAFE_INTEGER) return 'empty';
  return {
    ...(gte !== undefined && gte > Number.MIN_SAFE_INTEGER ? { gte } : {}),
    ...(lte !== undefined && lte < Number.MAX_SAFE_INTEGER ? { lte } : {}),
  };
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A date or date-time as an instant: `YYYY-MM-DD` is midnight UTC, a date-time without an offset is UTC.
 * Returns undefined for anything else.
 */
export function parseInstant(
  value: string,
): { readonly iso: string; readonly dateOnly: boolean } | undefined {
  const day = DATE_ONLY.exec(value);
  if (day) {
    const time = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const iso = new Date(time).toISOString();
    // Rejects 2025-02-30 and friends, which Date.UTC would roll over.
    return iso.startsWith(value) ? { iso, dateOnly: true } : undefined;
  }
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [, year, month, date, hours, minutes, seconds = '00', fraction = '', zone] = match;
  const millis = fraction ? fraction.slice(1, 4).padEnd(3, '0') : '000';
  const offset =
    !zone || zone.toUpperCase() === 'Z'
      ? 'Z'
      : zone.includes(':')
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const text = `${year}-${month}-${date}T${hours}:${minutes}:${seconds}.${millis}${offset}`;
  const time = Date.parse(text);
  if (Number.isNaN(time) || Number(month) > 12 || Number(date) > 31 || Number(hours) > 23) return undefined;
  if (Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  const check = new Date(Date.UTC(Number(year), Number(month) - 1, Number(date)));
  if (check.getUTCDate() !== Number(date)) return undefined;
  return { iso: new Date(time).toISOString(), dateOnly: false };
}

/** A date range as instants: lower `gte`/`gt`, upper `lt`/`lte`. */
export interface InstantRange {
  readonly gte?: string;
  readonly gt?: string;
  readonly lt?: string;
  readonly lte?: string;
}

const DAY_MS = 24 * HOUR_MS;

function instantOperand(value: string | number | boolean, position: number) {
  const instant = typeof value === 'string' ? parseInstant(value.trim()) : undefined;
  if (!instant) throw new QuerySyntaxError(`${String(value)} is not a date`, position);
  return instant;
}

function nextDay(iso: string): string {
  return new Date(Date.parse(iso) + DAY_MS).toISOString();
}

/**
 * A date `exact` or `range` as instants. A date without a time stands for the whole UTC day: `created:2024-02-29`
 * is that day, `<=2024-02-29` includes it, `>2024-02-29` starts the next day, `<2024-02-29` ends before it.
 */
export function instantRange(match: Match, position: number): InstantRange {
  if (match.kind === 'exact') {
    const instant = instantOperand(match.value, position);
    return instant.dateOnly
      ? { gte: instant.iso, lt: nextDay(instant.iso) }
      : { gte: instant.iso, lte: instant.iso };
  }
  if (match.kind !== 'range') throw new QuerySyntaxError(`dates take exact values or ranges`, position);
  const range: { gte?: string; gt?: string; lt?: string; lte?: string } = {};
  if (match.lower) {
    const instant = instantOperand(match.lower.value, position);
    if (instant.dateOnly) range.gte = match.lower.inclusive ? instant.iso : nextDay(instant.iso);
    else if (match.lower.inclusive) range.gte = instant.iso;
    else range.gt = instant.iso;
  }
  if (match.upper) {
    const instant = instantOperand(match.upper.value, position);
    if (instant.dateOnly) range.lt = match.upper.inclusive ? nextDay(instant.iso) : instant.iso;
    else if (match.upper.inclusive) range.lte = instant.iso;
    else range.lt = instant.iso;
  }
  return range;
}

/** An IPv4 or IPv6 address, parsed. IPv4-mapped IPv6 addresses stay IPv6 (as PostgreSQL's inet does). */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  /** Canonical text: dotted quad, or RFC 5952 (lowercase, longest zero run compressed). */
  readonly text: string;
}

export function parseIp(value: string): IpAddress | undefined {
  const family = isIP(value);
  if (family === 4) {
    const bytes = Uint8Array.from(value.split('.').map(Number));
    return { family: 4, bytes, text: ipText(4, bytes) };
  }
  if (family !== 6 || value.includes('%')) return undefined;
  let text = value.toLowerCase();
  const groups: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const quad = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${(((quad[0] ?? 0) << 8) | (quad[1] ?? 0)).toString(16)}:${(((quad[2] ?? 0) << 8) | (quad[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  groups.push(...headGroups.map((g) => parseInt(g, 16)));
  if (tail !== undefined) for (let i = 0; i < missing; i += 1) groups.push(0);
  groups.push(...tailGroups.map((g) => parseInt(g, 16)));
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff))
    return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return { family: 6, bytes, text: ipText(6, bytes) };
}

function ipText(family: 4 | 6, bytes: Uint8Array): string {
  if (family === 4) return [...bytes].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  // IPv4-mapped: ::ffff:a.b.c.d, as PostgreSQL prints it.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${[...bytes.slice(12)].join('.')}`;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** A CIDR block: its network (host bits cleared) and the first and last addresses it holds. */
export interface IpBlock {
  readonly family: 4 | 6;
  readonly prefixLength: number;
  readonly first: IpAddress;
  readonly last: IpAddress;
  /** `network/prefixLength`, canonical. */
  readonly text: string;
}

export function ipBlock(match: Extract<Match, { kind: 'cidr' }>, position: number): IpBlock {
  const address = parseIp(match.network);
  const bits = match.family === 4 ? 32 : 128;
  if (!address || address.family !== match.family) {
    throw new QuerySyntaxError(`${match.network} is not an IPv${match.family} address`, position);
  }
  if (!Number.isInteger(match.prefixLength) || match.prefixLength < 0 || match.prefixLength > bits) {
    throw new QuerySyntaxError(
      `/${match.prefixLength} is not a valid IPv${match.family} prefix length`,
      position,
    );
  }
  const first = new Uint8Array(address.bytes);
  const last = new Uint8Array(address.bytes);
  for (let bit = match.prefixLength; bit < bits; bit += 1) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    first[byte] = (first[byte] ?? 0) & ~mask;
    last[byte] = (last[byte] ?? 0) | mask;
  }
  const network = { family: match.family, bytes: first, text: ipText(match.family, first) } as const;
  return {
    family: match.family,
    prefixLength: match.prefixLength,
    first: network,
    last: { family: match.family, bytes: last, text: ipText(match.family, last) },
    text: `${network.text}/${match.prefixLength}`,
  };
}

// --- records ---------------------------------------------------------------------------------------------

export type KeyValue = string | number | boolean;

/**
 * A record as the adapters store it: the record itself plus its searchable values, normalized.
 * - keys: keyword (lowercased when case-insensitive; arrays for multiple fields, deduplicated), integer and
 *   boolean fields, and ip fields as canonical text, by field name;
 * - instants: date fields as ISO UTC instants;
 * - addresses: ip fields, parsed.
 * Text fields are matched on the record itself. Absent and null fields are left out.
 */
export interface NormalizedObservation {
  readonly id: string;
  readonly record: ObservationRecord;
  readonly keys: Readonly<Record<string, KeyValue | readonly string[]>>;
  readonly instants: Readonly<Record<string, string>>;
  readonly addresses: Readonly<Record<string, IpAddress>>;
}

const MAX_ID_LENGTH = 1_024;

/** The value at a dotted path of a record (`http.title` → record.http.title). */
export function valueAt(record: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = record;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** Validates a record against the dataset's vocabulary and normalizes its searchable values. */
export function normalizeObservation(dataset: Dataset, input: ObservationRecord): NormalizedObservation {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidObservationRecord(undefined, 'a record is a JSON object');
  }
  const id: unknown = input.id;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    throw new InvalidObservationRecord(
      undefined,
      `id must be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    );
  }
  // JSON round trip: what is stored is exactly what a JSON store gives back (no undefined, no class instances).
  const record = JSON.parse(JSON.stringify(input)) as ObservationRecord;
  const keys: Record<string, KeyValue | readonly string[]> = {};
  const instants: Record<string, string> = {};
  const addresses: Record<string, IpAddress> = {};
  const fail = (field: string, message: string): never => {
    throw new InvalidObservationRecord(id, `${field} ${message}`);
  };

  for (const field of fieldsOf(dataset)) {
    const value = valueAt(record, field.name);
    if (value === undefined || value === null) {
      if (field.name === 'first_seen' || field.name === 'last_seen') fail(field.name, 'is required');
      continue;
    }
    if (field.multiple) {
      if (field.type !== 'keyword')
        fail(field.name, `is a multiple ${field.type} field, which is not supported`);
      if (!Array.isArray(value)) fail(field.name, 'must be an array');
      const values = value as unknown[];
      if (!values.every((element): element is string => typeof element === 'string')) {
        fail(field.name, 'must hold strings');
      }
      keys[field.name] = [...new Set((values as string[]).map((element) => keywordValue(field, element)))];
      continue;
    }
    switch (field.type) {
      case 'keyword':
        if (typeof value !== 'string') fail(field.name, 'must be a string');
        keys[field.name] = keywordValue(field, value as string);
        break;
      case 'text':
        if (typeof value !== 'string') fail(field.name, 'must be a string');
        break;
      case 'integer':
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail(field.name, 'must be an integer');
        keys[field.name] = value as number;
        break;
      case 'boolean':
        if (typeof value !== 'boolean') fail(field.name, 'must be true or false');
        keys[field.name] = value as boolean;
        break;
      case 'date': {
        const instant = typeof value === 'string' ? parseInstant(value) : undefined;
        if (!instant) fail(field.name, 'must be an ISO date or date-time');
        instants[field.name] = instant!.iso;
        break;
      }
      case 'ip': {
        const address = typeof value === 'string' ? parseIp(value) : undefined;
        if (!address) fail(field.name, 'must be an IPv4 or IPv6 address');
        addresses[field.name] = address!;
        keys[field.name] = address!.text;
        break;
      }
    }
  }
  return { id, record, keys, instants, addresses };
}

/** Normalizes a batch; later records of the same id replace earlier ones (upsert order). */
export function normalizeBatch(
  dataset: Dataset,
  records: readonly ObservationRecord[],
): NormalizedObservation[] {
  assertDataset(dataset);
  if (!Array.isArray(records))
    throw new InvalidObservationRecord(undefined, 'write takes an array of records');
  const byId = new Map<string, NormalizedObservation>();
  for (const record of records) {
    const normalized = normalizeObservation(dataset, record);
    byId.delete(normalized.id);
    byId.set(normalized.id, normalized);
  }
  return [...byId.values()];
}

// --- paging ----------------------------------------------------------------------------------------------

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
