/**
 * Filters, sorts and index declarations of the ReadStore port translated to SQL over the `doc` JSONB column,
 * ordering values like MongoDB.
 */
import type {
  FieldCondition,
  Filter,
  FilterValue,
  FindOptions,
  IndexSpec,
  Sort,
  SortDirection,
} from '../read-store.port.js';
import { declaredIndexName, json, quote, tableName } from './read-store-names.js';

export const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;

export interface SqlStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/**
 * The SELECT that Collection.find runs (exported so tests can EXPLAIN exactly what the store executes).
 * `offset` and `limit` must be non-negative integers.
 */
export function buildFindStatement(
  collection: string,
  filter: Filter = {},
  options: FindOptions = {},
  params: SqlParameters = new SqlParameters(),
): SqlStatement {
  const where = compileFilter(filter, params);
  let text = `SELECT doc FROM ${quote(tableName(collection))} WHERE ${where} ORDER BY ${compileSort(options.sort)}`;
  if (options.limit !== undefined) {
    text += ` LIMIT ${params.add(nonNegativeInteger(options.limit, 'limit'), 'bigint')}`;
  }
  if (options.offset) {
    text += ` OFFSET ${params.add(nonNegativeInteger(options.offset, 'offset'), 'bigint')}`;
  }
  return { text, params: params.values };
}

/** Bound parameters of one statement, with the cast each placeholder needs. */
export class SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown, type: 'text' | 'numeric' | 'jsonb' | 'bigint'): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  json(value: unknown): string {
    return this.add(json(value), 'jsonb');
  }
}

export type RangeOperator = '>' | '>=' | '<' | '<=';

export const RANGE_OPERATORS: Readonly<Record<string, RangeOperator>> = {
  $gt: '>',
  $gte: '>=',
  $lt: '<',
  $lte: '<=',
};

/** SQL for conditions on one field, and the keys that order it. */
export interface FieldSql {
  equals(value: FilterValue, params: SqlParameters): string;
  /** Scalar-only equality, spelled on the sort keys so that an index leading with the field is sought. */
  is(value: string | number | boolean, params: SqlParameters): string;
  equalsAny(values: readonly FilterValue[], params: SqlParameters): string;
  compare(operator: RangeOperator, bound: string | number, params: SqlParameters): string;
  startsWith(prefix: string, params: SqlParameters): string;
  exists(): string;
  /** Expressions that order the field like MongoDB; indexes are built from exactly these. */
  sortKeys(): string[];
  /** Equality with a string, on the field's string key (what a strings-only index holds). */
  isString(value: string, params: SqlParameters): string;
  /** The field's value when it is a string, else NULL: the one key of a strings-only index. */
  stringKey(): string;
  /** Condition under which a unique index covers a document, or null when every document has the field. */
  presence(): string | null;
}

/** MongoDB's order of BSON types, for the types JSON has (null and missing sort first). */
export const TYPE_RANK = { null: 0, number: 1, string: 2, object: 3, array: 4, boolean: 5 } as const;

/**
 * A field inside `doc`, at a dotted path. Its value `v` is `(doc #> '{a,b}')` (SQL NULL when missing).
 * Sort keys, in order:
 *   1. type rank:  CASE jsonb_typeof(v) WHEN 'number' THEN 1 WHEN 'string' THEN 2 ... ELSE 0 END
 *   2. number key: CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END
 *   3. text key:   (CASE WHEN jsonb_typeof(v) <> 'number' THEN doc #>> '{a,b}' END) COLLATE "C"
 * so numbers compare numerically, strings by code point, booleans false < true, and null/missing have
 * (0, NULL, NULL). Range filters are `rank = 1 AND number key > $n` (or rank 2 and the text key).
 */
export class DocumentField implements FieldSql {
  private readonly segments: readonly string[];
  private readonly value: string;
  private readonly rank: string;
  private readonly numberKey: string;
  private readonly textKey: string;
  private readonly stringOnlyKey: string;

  constructor(path: string) {
    this.segments = path.split('.');
    // Segments are validated ([A-Za-z0-9_]), so they are safe inside a text[] literal.
    const pathLiteral = `'{${this.segments.join(',')}}'`;
    this.value = `(doc #> ${pathLiteral})`;
    const ranks = Object.entries(TYPE_RANK)
      .filter(([, rank]) => rank !== TYPE_RANK.null)
      .map(([type, rank]) => `WHEN '${type}' THEN ${rank}`)
      .join(' ');
    this.rank = `(CASE jsonb_typeof${this.value} ${ranks} ELSE ${TYPE_RANK.null} END)`;
    this.numberKey = `(CASE WHEN jsonb_typeof${this.value} = 'number' THEN ${this.value}::numeric END)`;
    this.textKey = `((CASE WHEN jsonb_typeof${this.value} <> 'number' THEN doc #>> ${pathLiteral} END) COLLATE "C")`;
    this.stringOnlyKey = `((CASE WHEN jsonb_typeof${this.value} = 'string' THEN doc #>> ${pathLiteral} END) COLLATE "C")`;
  }

  equals(value: FilterValue, params: SqlParameters): string {
    // MongoDB: null matches null and missing fields.
    if (value === null) return `(${this.rank} = ${TYPE_RANK.null})`;
    assertFilterValue(value);
    // Containment does not look into nested arrays, so the array case is spelled out.
    return `(doc @> ${params.json(this.nest(value))} OR doc @> ${params.json(this.nest([value]))})`;
  }

  equalsAny(values: readonly FilterValue[], params: SqlParameters): string {
    if (values.length === 0) return 'FALSE';
    return `(${values.map((value) => this.equals(value, params)).join(' OR ')})`;
  }

  is(value: string | number | boolean, params: SqlParameters): string {
    // Every sort key bound (`IS NULL` is an equality to a btree), so the index's next columns give the order.
    if (typeof value === 'number') {
      return `(${this.rank} = ${TYPE_RANK.number} AND ${this.numberKey} = ${params.add(finite(value), 'numeric')} AND ${this.textKey} IS NULL)`;
    }
    if (typeof value === 'boolean') {
      return `(${this.rank} = ${TYPE_RANK.boolean} AND ${this.numberKey} IS NULL AND ${this.textKey} = ${params.add(String(value), 'text')})`;
    }
    if (typeof value !== 'string') throw new Error('$is needs a string, a number or a boolean');
    return `(${this.stringKeys()} = ${params.add(value, 'text')})`;
  }

  compare(operator: RangeOperator, bound: string | number, params: SqlParameters): string {
    // Range operators only compare values of the bound's type (MongoDB type bracketing).
    if (typeof bound === 'number') {
      return `(${this.rank} = ${TYPE_RANK.number} AND ${this.numberKey} ${operator} ${params.add(finite(bound), 'numeric')})`;
    }
    return `(${this.stringKeys()} ${operator} ${params.add(bound, 'text')})`;
  }

  startsWith(prefix: string, params: SqlParameters): string {
    // LIKE with a literal prefix under COLLATE "C" becomes an index range on the text key.
    return `(${this.stringKeys()} LIKE ${params.add(likePrefix(prefix), 'text')})`;
  }

  /**
   * The sort keys of a string value, up to its text key. The number key of a string is always NULL; saying
   * so lets a btree use the text key as a boundary (a seek) rather than a filter over every string.
   */
  private stringKeys(): string {
    return `${this.rank} = ${TYPE_RANK.string} AND ${this.numberKey} IS NULL AND ${this.textKey}`;
  }

  exists(): string {
    return `(${this.value} IS NOT NULL)`;
  }

  sortKeys(): string[] {
    return [this.rank, this.numberKey, this.textKey];
  }

  isString(value: string, params: SqlParameters): string {
    // One exact condition on one indexed expression: the planner estimates it from the index's statistics.
    return `(${this.stringOnlyKey} = ${params.add(stringOperand(value), 'text')})`;
  }

  stringKey(): string {
    return this.stringOnlyKey;
  }

  presence(): string {
    return this.exists();
  }

  private nest(leaf: unknown): unknown {
    return this.segments.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), leaf);
  }
}

/** The top-level `id`: the primary key column (its copy in `doc` is always the same string). */
export class IdColumn implements FieldSql {
  equals(value: FilterValue, params: SqlParameters): string {
    return typeof value === 'string' ? `(id = ${params.add(value, 'text')})` : 'FALSE';
  }

  is(value: string | number | boolean, params: SqlParameters): string {
    return this.equals(value, params);
  }

  equalsAny(values: readonly FilterValue[], params: SqlParameters): string {
    const ids = values.filter((value): value is string => typeof value === 'string');
    if (ids.length === 0) return 'FALSE';
    return `(id IN (SELECT jsonb_array_elements_text(${params.json(ids)})))`;
  }

  compare(operator: RangeOperator, bound: string | number, params: SqlParameters): string {
    return typeof bound === 'string' ? `(id ${operator} ${params.add(bound, 'text')})` : 'FALSE';
  }

  startsWith(prefix: string, params: SqlParameters): string {
    return `(id LIKE ${params.add(likePrefix(prefix), 'text')})`;
  }

  exists(): string {
    return 'TRUE';
  }

  sortKeys(): string[] {
    return ['id'];
  }

  isString(value: string, params: SqlParameters): string {
    return this.equals(stringOperand(value), params);
  }

  stringKey(): string {
    return 'id';
  }

  presence(): null {
    return null;
  }
}

export function fieldSql(path: string): FieldSql {
  if (!FIELD_PATH.test(path)) throw new Error(`invalid field path ${JSON.stringify(path)}`);
  return path === 'id' ? new IdColumn() : new DocumentField(path);
}

export function compileFilter(filter: Filter, params: SqlParameters): string {
  const conditions: string[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    if (key === '$or') {
      const alternatives = condition as readonly Filter[];
      // An empty $or matches nothing, like `some` over an empty list.
      conditions.push(
        alternatives.length === 0
          ? 'FALSE'
          : `(${alternatives.map((alternative) => `(${compileFilter(alternative, params)})`).join(' OR ')})`,
      );
    } else if (key.startsWith('$')) {
      throw new Error(`unsupported filter operator ${key}`);
    } else {
      conditions.push(compileCondition(fieldSql(key), condition as FieldCondition, params));
    }
  }
  return conditions.length === 0 ? 'TRUE' : conditions.join(' AND ');
}

export function compileCondition(field: FieldSql, condition: FieldCondition, params: SqlParameters): string {
  if (condition === null || typeof condition !== 'object') return field.equals(condition, params);
  const conditions: string[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    const range = RANGE_OPERATORS[operator];
    if (range) {
      conditions.push(field.compare(range, rangeBound(operator, operand), params));
      continue;
    }
    switch (operator) {
      case '$is':
        conditions.push(field.is(operand as string | number | boolean, params));
        break;
      case '$string':
        conditions.push(field.isString(operand as string, params));
        break;
      case '$in':
        conditions.push(field.equalsAny(filterValues(operator, operand), params));
        break;
      case '$nin':
        conditions.push(`NOT ${field.equalsAny(filterValues(operator, operand), params)}`);
        break;
      case '$ne':
        conditions.push(`NOT ${field.equals(operand as FilterValue, params)}`);
        break;
      case '$exists':
        conditions.push(operand ? field.exists() : `NOT ${field.exists()}`);
        break;
      case '$prefix':
        if (typeof operand !== 'string') throw new Error('$prefix needs a string');
        conditions.push(field.startsWith(operand, params));
        break;
      default:
        throw new Error(`unsupported filter operator ${operator}`);
    }
  }
  return conditions.length === 0 ? 'TRUE' : `(${conditions.join(' AND ')})`;
}

export function compileSort(sort: Sort | undefined): string {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const [path, direction] of sort ?? []) {
    if (seen.has(path)) continue;
    seen.add(path);
    const order = sqlDirection(direction);
    for (const key of fieldSql(path).sortKeys()) keys.push(`${key} ${order}`);
  }
  // Ties by id so that pages are stable.
  if (!seen.has('id')) keys.push('id ASC');
  return keys.join(', ');
}

export function indexDdl(collection: string, index: IndexSpec): string {
  if (index.fields.length === 0) throw new Error(`index ${index.name} declares no field`);
  const fields = index.fields.map(([path, direction]) => ({ field: fieldSql(path), path, direction }));
  const paths = new Set(fields.map(({ path }) => path));
  if (paths.size !== fields.length) throw new Error(`index ${index.name} repeats a field`);
  if (index.stringsOnly && index.unique)
    throw new Error(`index ${index.name} cannot be unique on strings only`);
  // A strings-only index holds one key a field, its value when a string: `$string` filters bind exactly it.
  const columns = fields.flatMap(({ field, direction }) =>
    (index.stringsOnly ? [field.stringKey()] : field.sortKeys()).map(
      (key) => `${key} ${sqlDirection(direction)}`,
    ),
  );
  const name = quote(declaredIndexName(collection, index.name));
  const table = quote(tableName(collection));
  if (!index.unique) {
    // The id tie-break is part of every sort, so the index serves the whole ORDER BY.
    if (!paths.has('id')) columns.push('id ASC');
    return `CREATE INDEX ${name} ON ${table} (${columns.join(', ')})`;
  }
  // A missing field leaves the document out (no collision); NULL keys of present values must still collide.
  const presence = fields.map(({ field }) => field.presence()).filter((condition) => condition !== null);
  const where = presence.length > 0 ? ` WHERE ${presence.join(' AND ')}` : '';
  return `CREATE UNIQUE INDEX ${name} ON ${table} (${columns.join(', ')}) NULLS NOT DISTINCT${where}`;
}

/** LIKE pattern matching strings that start with `prefix` (its wildcards escaped). */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
}

export function sqlDirection(direction: SortDirection): 'ASC' | 'DESC' {
  if (direction === 1) return 'ASC';
  if (direction === -1) return 'DESC';
  throw new Error(`invalid sort direction ${String(direction)}`);
}

function stringOperand(value: unknown): string {
  if (typeof value !== 'string') throw new Error('$string needs a string');
  return value;
}

export function assertFilterValue(value: unknown): void {
  if (typeof value === 'number') finite(value);
  else if (typeof value !== 'string' && typeof value !== 'boolean') {
    throw new Error(`filters compare with strings, numbers, booleans or null, not ${typeof value}`);
  }
}

export function filterValues(operator: string, operand: unknown): readonly FilterValue[] {
  if (!Array.isArray(operand)) throw new Error(`${operator} needs an array`);
  return operand as FilterValue[];
}

export function rangeBound(operator: string, operand: unknown): string | number {
  if (typeof operand === 'string') return operand;
  if (typeof operand === 'number') return finite(operand);
  throw new Error(`${operator} needs a string or a number`);
}

export function finite(value: number): number {
  if (!Number.isFinite(value)) throw new Error(`filters need finite numbers, not ${value}`);
  return value;
}

export function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0) throw new Error(`${what} must be a non-negative integer`);
  return value;
}
