/**
 * The MongoDB adapter's merge write (ADR 97) without a server: the update pipeline observationMerge builds, run by a
 * minimal interpreter of the aggregation operators it uses (MongoDB semantics: missing sorts before any value,
 * $min/$max ignore missing values, one $set stage reads the document as it was). It proves the pipeline's
 * logic; the observation index contract proves it on a server wherever one is available.
 */
import { describe, expect, it } from '@jest/globals';
import type { Document } from 'mongodb';
import {
  observationMerge,
  toStored,
  type StoredObservation,
} from '../../../src/search/observation-index/mongodb-query-compiler.js';
import {
  normalizeObservation,
  type ObservationRecord,
} from '../../../src/search/observation-index/observation-index.port.js';

const MISSING = Symbol('missing');
type Value = unknown;

function path(document: Document, dotted: string): Value {
  let value: Value = document;
  for (const segment of dotted.split('.')) {
    if (value === null || typeof value !== 'object' || !(segment in (value as object))) return MISSING;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}

/** BSON order for what the pipeline compares: missing and null first, then dates by time. */
function compare(a: Value, b: Value): number {
  const rank = (v: Value) => (v === MISSING || v === null || v === undefined ? 0 : 1);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (rank(a) === 0) return 0;
  const x = a instanceof Date ? a.getTime() : (a as number);
  const y = b instanceof Date ? b.getTime() : (b as number);
  return x < y ? -1 : x > y ? 1 : 0;
}

function evaluate(expression: Value, document: Document): Value {
  if (typeof expression === 'string')
    return expression.startsWith('$') ? path(document, expression.slice(1)) : expression;
  if (expression === null || typeof expression !== 'object' || expression instanceof Date) return expression;
  if (Array.isArray(expression)) return expression.map((e) => evaluate(e, document));
  const entries = Object.entries(expression as Document);
  const [operator, operand] = entries[0] ?? [];
  if (entries.length === 1 && operator?.startsWith('$')) {
    const args = () => (operand as Value[]).map((e) => evaluate(e, document));
    switch (operator) {
      case '$literal':
        return operand;
      case '$cond': {
        const [test, then, otherwise] = operand as Value[];
        return evaluate(test, document) ? evaluate(then, document) : evaluate(otherwise, document);
      }
      case '$or':
        return args().some(Boolean);
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
      case '$eq': {
        const [a, b] = args();
        const c = compare(a, b);
        return { $gt: c > 0, $gte: c >= 0, $lt: c < 0, $lte: c <= 0, $eq: c === 0 }[operator];
      }
      case '$min':
      case '$max': {
        const present = args().filter((v) => v !== MISSING && v !== null);
        if (present.length === 0) return null;
        return present.reduce((a, b) =>
          (operator === '$min' ? compare(b, a) < 0 : compare(b, a) > 0) ? b : a,
        );
      }
      case '$mergeObjects': {
        const merged: Record<string, unknown> = {};
        for (const part of args()) if (part && part !== MISSING) Object.assign(merged, part);
        return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== MISSING));
      }
      default:
        throw new Error(`operator ${operator} not interpreted`);
    }
  }
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    const result = evaluate(value, document);
    if (result !== MISSING) object[key] = result;
  }
  return object;
}

/** Applies an upsert updateOne with a pipeline to the stored document (or none). */
function apply(existing: Document | undefined, write: StoredObservation): Document {
  const operation = observationMerge(write) as {
    updateOne: { filter: Document; update: Document[]; upsert: boolean };
  };
  expect(operation.updateOne.upsert).toBe(true);
  let document: Document = existing ?? { ...operation.updateOne.filter };
  for (const stage of operation.updateOne.update) {
    const [[name, spec]] = Object.entries(stage) as [[string, Document]];
    expect(name).toBe('$set');
    const next = { ...document };
    for (const [field, expression] of Object.entries(spec)) next[field] = evaluate(expression, document);
    document = next;
  }
  return document;
}

const host = (first: string, last: string, fields: Record<string, unknown>): ObservationRecord => ({
  id: '192.0.2.1:80/tcp',
  ip: '192.0.2.1',
  port: 80,
  transport: 'tcp',
  first_seen: first,
  last_seen: last,
  ...fields,
});
const stored = (record: ObservationRecord) => toStored('hosts', normalizeObservation('hosts', record));

describe('MongoDB merge write (update pipeline, in memory)', () => {
  it('inserts a new observation as it is', () => {
    const record = host('2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', { product: 'nginx' });
    const document = apply(undefined, stored(record));
    expect(document.record).toEqual(record);
    expect(document.t).toEqual(stored(record).t);
    expect(document.k).toEqual(stored(record).k);
  });

  it('a newer observation moves last_seen and brings its fields; an older one only moves first_seen', () => {
    const first = host('2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', {
      product: 'nginx',
      banner: 'x',
    });
    let document = apply(undefined, stored(first));
    const newer = host('2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z', { product: '$caddy' });
    document = apply(document, stored(newer));
    expect(document.record).toEqual({ ...newer, first_seen: '2026-01-01T00:00:00.000Z' });
    expect(document.k.product).toBe('$caddy');
    expect(document.t).toEqual({
      first_seen: new Date('2026-01-01T00:00:00.000Z'),
      last_seen: new Date('2026-03-02T00:00:00.000Z'),
    });
    const older = host('2025-06-01T00:00:00.000Z', '2025-07-01T00:00:00.000Z', { product: 'apache httpd' });
    document = apply(document, stored(older));
    expect(document.record).toEqual({ ...newer, first_seen: '2025-06-01T00:00:00.000Z' });
    expect(document.k.product).toBe('$caddy');
    expect(document.t.first_seen).toEqual(new Date('2025-06-01T00:00:00.000Z'));
    expect(document.t.last_seen).toEqual(new Date('2026-03-02T00:00:00.000Z'));
  });

  it('on equal last_seen the fields add up, the incoming ones where both have one', () => {
    const part = host('2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', {
      banner: 'HTTP/1.1 200 OK',
      http: { status: 200 },
    });
    const other = host('2026-01-05T00:00:00.000Z', '2026-02-01T00:00:00.000Z', {
      http: { title: 'Welcome' },
    });
    const document = apply(apply(undefined, stored(part)), stored(other));
    expect(document.record).toEqual({ ...part, http: { status: 200, title: 'Welcome' } });
    expect(document.k.http__status).toBe(200);
    expect(document.x).toEqual({ banner: 'http/1.1 200 ok', http__title: 'welcome' });
  });
});
