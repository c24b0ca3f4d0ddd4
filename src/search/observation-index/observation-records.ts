/**
 * What a valid observation record is and how its searchable values are normalized before any adapter stores
 * it.
 */
import { type Dataset, fieldsOf } from '../domain/datasets.js';
import { type IpAddress, keywordValue, parseInstant, parseIp } from './query-operands.js';
import { assertDataset } from './vocabulary-checks.js';

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

export const MAX_ID_LENGTH = 1_024;

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
  return normalized(dataset, input, 'copy');
}

/** `copy`: the record stored is a JSON copy of the input; `keep`: the input itself (already plain JSON). */
function normalized(
  dataset: Dataset,
  input: ObservationRecord,
  form: 'copy' | 'keep',
): NormalizedObservation {
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
  const record = form === 'copy' ? (JSON.parse(JSON.stringify(input)) as ObservationRecord) : input;
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

/**
 * Records already normalized by checkObservation, by identity, with what it made of them: a write trusts these
 * instead of normalizing them again (the collector import checks every record as it reads it, ADR 112). Weak:
 * an entry lives as long as its record.
 */
const checkedObservations = new WeakMap<
  ObservationRecord,
  { dataset: Dataset; observation: NormalizedObservation }
>();

/**
 * normalizeObservation, remembered: normalizeBatch trusts the record without a second normalization. The record
 * is kept, not copied, and frozen all the way down, so that what was checked is what gets written: give it a
 * plain JSON tree nothing else holds (validateRecord's answer). Throws InvalidObservationRecord as
 * normalizeObservation does.
 */
export function checkObservation(dataset: Dataset, record: ObservationRecord): NormalizedObservation {
  const observation = normalized(dataset, deepFrozen(record), 'keep');
  checkedObservations.set(record, { dataset, observation });
  return observation;
}

/** The normalization of a record checkObservation answered for this dataset, else a fresh one. */
function normalizedOf(dataset: Dataset, record: ObservationRecord): NormalizedObservation {
  const checked = checkedObservations.get(record);
  return checked?.dataset === dataset ? checked.observation : normalizeObservation(dataset, record);
}

/**
 * Normalizes a batch; later records of the same id replace earlier ones (upsert order), or with `merge` are
 * merged with them (mergeSeenBatch). Records checkObservation answered are not normalized again.
 */
export function normalizeBatch(
  dataset: Dataset,
  records: readonly ObservationRecord[],
  seen: 'replace' | 'merge' = 'replace',
): NormalizedObservation[] {
  assertDataset(dataset);
  if (!Array.isArray(records))
    throw new InvalidObservationRecord(undefined, 'write takes an array of records');
  if (seen === 'merge') return mergeSeenBatch(records.map((record) => normalizedOf(dataset, record)));
  const byId = new Map<string, NormalizedObservation>();
  for (const record of records) {
    const normalized = normalizedOf(dataset, record);
    byId.delete(normalized.id);
    byId.set(normalized.id, normalized);
  }
  return [...byId.values()];
}

/**
 * The batch of a `merge` write (ObservationWriteOptions): records of one id become one, with the earliest
 * first_seen, the latest last_seen and the other fields of the newest (greater last_seen). Records with the same
 * last_seen are parts of one observation (masscan writes a line per banner): their fields add up, the later's
 * where both have one, objects (`http`, `tls`, …) merged one level down (see addedUp).
 */
export function mergeSeenBatch(observations: readonly NormalizedObservation[]): NormalizedObservation[] {
  const byId = new Map<string, NormalizedObservation>();
  for (const next of observations) {
    const kept = byId.get(next.id);
    byId.set(next.id, kept ? mergeSeen(kept, next) : next);
  }
  return [...byId.values()];
}

/** `next` observed again what `kept` holds (see mergeSeenBatch). */
export function mergeSeen(kept: NormalizedObservation, next: NormalizedObservation): NormalizedObservation {
  const instant = (o: NormalizedObservation, field: 'first_seen' | 'last_seen') =>
    Date.parse(o.instants[field]!);
  const order = instant(next, 'last_seen') - instant(kept, 'last_seen');
  const newest: NormalizedObservation =
    order > 0
      ? next
      : order < 0
        ? kept
        : {
            id: next.id,
            record: addedUp(kept.record, next.record),
            keys: { ...kept.keys, ...next.keys },
            instants: { ...kept.instants, ...next.instants },
            addresses: { ...kept.addresses, ...next.addresses },
          };
  const earliest = instant(next, 'first_seen') < instant(kept, 'first_seen') ? next : kept;
  return {
    ...newest,
    record: { ...newest.record, first_seen: earliest.record.first_seen, last_seen: newest.record.last_seen },
    instants: {
      ...newest.instants,
      first_seen: earliest.instants.first_seen!,
      last_seen: newest.instants.last_seen!,
    },
  };
}

/**
 * Two parts of one observation: `later`'s fields over `earlier`'s, and an object both have (`http`: status from
 * one line, title from another) merged one level down. The vocabulary nests no deeper than that, but for
 * `tls.subject.cn` (one field: taking either subject whole is the same).
 */
export function addedUp<R extends Record<string, unknown>>(earlier: R, later: R): R {
  const merged: Record<string, unknown> = { ...earlier, ...later };
  for (const [key, value] of Object.entries(later)) {
    const before = earlier[key];
    if (isObject(value) && isObject(before)) merged[key] = { ...before, ...value };
  }
  return merged as R;
}

/** A JSON value frozen with everything it holds (a checked record cannot change after its check). */
function deepFrozen<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFrozen(inner);
    Object.freeze(value);
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
