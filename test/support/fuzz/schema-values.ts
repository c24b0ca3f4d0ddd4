/**
 * fast-check arbitraries from JSON Schemas: valid values that respect every documented limit, the boundaries
 * of each limit (at the limit and one past it), values of the wrong JSON type, and the locations (fields,
 * array items, objects) a mutation can target. Only what the schema declares is used; a field the document
 * types loosely (`object` for a scalar) gets loose values until the document says better.
 */
import fc from 'fast-check';
import { resolveSchema, type OpenApiDocument, type Schema } from './openapi.js';

/** A step into a JSON value: an object key or an array index. */
export type Step = string | number;

/** Known real values (fixture ids, datasets…) by field name, so generated requests sometimes hit real things. */
export interface ValuePools {
  valuesFor(name: string): readonly unknown[] | undefined;
}

export interface SchemaContext {
  readonly document: OpenApiDocument;
  readonly pools: ValuePools;
}

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

const MAX_GENERATED_ITEMS = 4;
/** Longest string generated when the schema has no maxLength (keeps requests small and fast). */
const DEFAULT_MAX_STRING = 24;
const MAX_DEPTH = 6;

/**
 * A small JSON value (a scalar, or a short list or object of scalars): `fc.jsonValue` ignores its size option
 * for the lists and objects inside, which then hold ten items each.
 */
export function smallJsonValue(): fc.Arbitrary<unknown> {
  const scalar = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000, max: 1_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ maxLength: 8 }),
  );
  return fc.oneof(
    { weight: 3, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), scalar, { maxKeys: 3 }),
    },
  );
}

/** The JSON types a schema admits; an empty list means any. */
export function typesOf(context: SchemaContext, raw: Schema): JsonType[] {
  const schema = resolveSchema(context.document, raw);
  if (schema.type !== undefined) {
    const declared = (Array.isArray(schema.type) ? schema.type : [schema.type]) as JsonType[];
    return schema.nullable && !declared.includes('null') ? [...declared, 'null'] : declared;
  }
  if (schema.enum) return [...new Set(schema.enum.map(jsonTypeOf))];
  if (schema.const !== undefined) return [jsonTypeOf(schema.const)];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const types = alternatives.map((alternative) => typesOf(context, alternative));
    return types.some((list) => list.length === 0) ? [] : [...new Set(types.flat())];
  }
  if (schema.allOf) return typesOf(context, mergeAllOf(context, schema));
  if (schema.properties) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

function admits(types: readonly JsonType[], value: unknown): boolean {
  if (types.length === 0) return true;
  const type = jsonTypeOf(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** `allOf` as one schema: properties and required lists merged, other keywords from the last member. */
function mergeAllOf(context: SchemaContext, schema: Schema): Schema {
  const members = (schema.allOf ?? []).map((member) => resolveSchema(context.document, member));
  const merged: Record<string, unknown> = {};
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const member of [...members, { ...schema, allOf: undefined }]) {
    Object.assign(merged, member);
    Object.assign(properties, member.properties ?? {});
    required.push(...(member.required ?? []));
  }
  return { ...merged, allOf: undefined, properties, required } as Schema;
}

/** The schema with `allOf` merged and references resolved, and the object branch of `anyOf`/`oneOf` picked. */
export function objectShape(context: SchemaContext, raw: Schema): Schema | undefined {
  let schema = resolveSchema(context.document, raw);
  if (schema.allOf) schema = mergeAllOf(context, schema);
  if (schema.properties || typesOf(context, schema).includes('object')) return schema;
  for (const alternative of schema.anyOf ?? schema.oneOf ?? []) {
    const shape = objectShape(context, alternative);
    if (shape) return shape;
  }
  return undefined;
}

function arrayShape(context: SchemaContext, raw: Schema): Schema | undefined {
  const schema = resolveSchema(context.document, raw);
  if (schema.items || typesOf(context, schema).includes('array')) return schema;
  for (const alternative of schema.anyOf ?? schema.oneOf ?? []) {
    const shape = arrayShape(context, alternative);
    if (shape) return shape;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Valid values.

/** A value the schema accepts. `name` is the field or parameter name (for the value pools). */
export function validValue(context: SchemaContext, raw: Schema, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveSchema(context.document, raw);
  const fromSchema = schemaValue(context, schema, name, depth);
  const pool = context.pools.valuesFor(name)?.filter((value) => admitsLoosely(context, schema, value));
  if (!pool || pool.length === 0) return fromSchema;
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pool) }, { weight: 1, arbitrary: fromSchema });
}

/**
 * A pool value fits a field when its JSON type is one the schema names, or the schema types it `object`
 * without properties (the document's way of saying "some scalar" today).
 */
function admitsLoosely(context: SchemaContext, schema: Schema, value: unknown): boolean {
  const types = typesOf(context, schema);
  const looseObject = types.includes('object') && !schema.properties;
  return looseObject || admits(types, value);
}

function schemaValue(
  context: SchemaContext,
  schema: Schema,
  name: string,
  depth: number,
): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema.allOf) return schemaValue(context, mergeAllOf(context, schema), name, depth);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((alternative) => validValue(context, alternative, name, depth)));
  }
  const examples = [
    ...(schema.example !== undefined ? [schema.example] : []),
    ...(schema.examples ?? []),
    ...(schema.default !== undefined ? [schema.default] : []),
  ];
  const types = typesOf(context, schema);
  const byType = (types.length > 0 ? types : (['string', 'integer', 'boolean', 'null'] as JsonType[])).map(
    (type) => valueOfType(context, schema, type, name, depth),
  );
  const generated = byType.length === 1 ? byType[0]! : fc.oneof(...byType);
  const fitting = examples.filter((example) => admits(types, example));
  return fitting.length > 0
    ? fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...fitting) }, { weight: 3, arbitrary: generated })
    : generated;
}

function valueOfType(
  context: SchemaContext,
  schema: Schema,
  type: JsonType,
  name: string,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numberValue(schema, type === 'integer');
    case 'string':
      return stringValue(schema);
    case 'array':
      return arrayValue(context, schema, name, depth);
    case 'object':
      return objectValue(context, schema, depth);
  }
}

function numericBounds(schema: Schema, integer: boolean): { min: number; max: number } {
  const step = integer ? 1 : Number.EPSILON;
  let min = schema.minimum ?? -1_000_000;
  let max = schema.maximum ?? Math.max(min + 1_000_000, 1_000_000);
  if (typeof schema.exclusiveMinimum === 'number') min = schema.exclusiveMinimum + step;
  else if (schema.exclusiveMinimum === true) min += step;
  if (typeof schema.exclusiveMaximum === 'number') max = schema.exclusiveMaximum - step;
  else if (schema.exclusiveMaximum === true) max -= step;
  return { min, max };
}

function numberValue(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const { min, max } = numericBounds(schema, true);
  const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
  const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
  // Most numeric fields are counts, pages and versions: small integers just above the minimum (or 0) find most.
  const from = Math.min(Math.max(lo, schema.minimum ?? 0), hi);
  const near = fc.integer({ min: from, max: Math.min(hi, from + 10) });
  const integers = fc.oneof(
    { weight: 4, arbitrary: near },
    { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) },
  );
  if (integer) return integers;
  const doubles = fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  return fc.oneof({ weight: 4, arbitrary: integers }, { weight: 1, arbitrary: doubles });
}

const FORMAT_VALUES: Readonly<Record<string, () => fc.Arbitrary<string>>> = {
  email: () => fc.emailAddress(),
  uuid: () => fc.uuid(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  'date-time': () =>
    fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString()),
  date: () =>
    fc
      .date({
        min: new Date('2000-01-01T00:00:00Z'),
        max: new Date('2099-12-31T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString().slice(0, 10)),
};

/**
 * A string the schema accepts. Never a `.filter`: a filter that rarely passes (a uuid under a length cap, a
 * pattern under a minimum length) makes fast-check spin; a value outside the documented length is repaired to
 * fit instead (see `fitLength`). Only documented length limits apply to patterns and formats.
 */
function stringValue(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength;
  if (schema.pattern !== undefined) {
    const pattern = compilePattern(schema.pattern);
    if (pattern) return fitLength(fc.stringMatching(pattern), minLength, maxLength);
  }
  const format = schema.format ? FORMAT_VALUES[schema.format] : undefined;
  if (format) return fitLength(format(), minLength, maxLength);
  // Short ASCII most of the time; full Unicode (no lone surrogates: those are a hostile class of their own) and
  // the longest allowed length some of the time.
  const cap = Math.min(maxLength ?? Infinity, minLength + DEFAULT_MAX_STRING);
  const longest = maxLength ?? Math.max(minLength, DEFAULT_MAX_STRING);
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength: cap }) },
    {
      weight: 1,
      arbitrary: fitLength(fc.string({ minLength, maxLength: cap, unit: 'grapheme' }), minLength, cap),
    },
    { weight: 1, arbitrary: fc.constant('x'.repeat(longest)) },
  );
}

/**
 * Brings a generated string within [minLength, maxLength] characters (code points, as JSON Schema counts) in
 * one step: a long one is cut, a short one repeated. A repeated match of a pattern like `^[a-z]+$` still
 * matches; for a pattern it does not, the value is one near-valid request among many, which the fuzz's rules
 * (no 5xx, one error shape) judge the same way.
 */
export function fitLength(
  arbitrary: fc.Arbitrary<string>,
  minLength: number,
  maxLength: number | undefined,
): fc.Arbitrary<string> {
  if (minLength === 0 && maxLength === undefined) return arbitrary;
  return arbitrary.map((value) => {
    let points = Array.from(value);
    if (points.length < minLength) {
      const unit = points.length > 0 ? points : ['a'];
      points = Array.from({ length: Math.ceil(minLength / unit.length) }, () => unit).flat();
    }
    return points.slice(0, Math.max(minLength, maxLength ?? points.length)).join('');
  });
}

function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

function arrayValue(
  context: SchemaContext,
  schema: Schema,
  name: string,
  depth: number,
): fc.Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.max(
    minLength,
    Math.min(schema.maxItems ?? MAX_GENERATED_ITEMS, minLength + MAX_GENERATED_ITEMS),
  );
  if (depth >= MAX_DEPTH) return fc.constant([]);
  const item = validValue(context, schema.items ?? {}, singular(name), depth + 1);
  return schema.uniqueItems
    ? fc.uniqueArray(item, { minLength, maxLength, selector: (value) => JSON.stringify(value) })
    : fc.array(item, { minLength, maxLength });
}

/**
 * A list of exactly `length` valid items, cheaply: a few items generated and repeated (a list at `maxItems` of
 * a hundred objects costs three), or distinct items where the schema wants them unique (fast-check gives up
 * after a bounded number of duplicates, so a small item space yields a shorter list, never a spin).
 */
function listOfLength(
  context: SchemaContext,
  schema: Schema,
  name: string,
  length: number,
): fc.Arbitrary<unknown[]> {
  const size = Math.max(0, length);
  const item = validValue(context, schema.items ?? {}, singular(name), 1);
  if (schema.uniqueItems) {
    return fc.uniqueArray(item, {
      minLength: size,
      maxLength: size,
      selector: (value) => JSON.stringify(value),
    });
  }
  if (size === 0) return fc.constant([]);
  return fc
    .array(item, { minLength: 1, maxLength: Math.min(size, 3) })
    .map((few) => Array.from({ length: size }, (_, index) => few[index % few.length]));
}

/** The item name of a list field: `evidence_ids` → `evidence_id`, `recipients` → `recipient`. */
export function singular(name: string): string {
  return name.endsWith('s') ? name.slice(0, -1) : name;
}

function objectValue(
  context: SchemaContext,
  schema: Schema,
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  if (depth >= MAX_DEPTH) return fc.constant({});
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (typeof schema.additionalProperties === 'object') {
      return fc.dictionary(
        fc.string({ minLength: 1, maxLength: 8 }),
        validValue(context, schema.additionalProperties, '', depth + 1),
        {
          maxKeys: 3,
        },
      );
    }
    // An object without properties: the document does not say what it holds.
    return fc.oneof(
      fc.constant({}),
      fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), smallJsonValue(), { maxKeys: 2 }),
    );
  }
  return someProperties(context, schema, depth);
}

/**
 * Valid values for the properties of an object schema, the required ones always and the optional ones within
 * `minProperties`/`maxProperties` (`reference` or `cpes`, never both). `except` is left out (the caller places
 * it), and counts against `maxProperties`.
 */
function someProperties(
  context: SchemaContext,
  schema: Schema,
  depth: number,
  except?: string,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const names = Object.keys(properties).filter((name) => name !== except);
  const arbitraries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const name of names) arbitraries[name] = validValue(context, properties[name]!, name, depth + 1);
  const required = (schema.required ?? []).filter((name) => names.includes(name));
  if (schema.minProperties === undefined && schema.maxProperties === undefined) {
    return fc.record(arbitraries, { requiredKeys: required });
  }
  const placed = except !== undefined ? 1 : 0;
  const optional = names.filter((name) => !required.includes(name));
  const most = Math.min(optional.length, (schema.maxProperties ?? Infinity) - required.length - placed);
  const least = Math.min(
    Math.max(0, (schema.minProperties ?? 0) - required.length - placed),
    Math.max(0, most),
  );
  return fc.subarray(optional, { minLength: least, maxLength: Math.max(least, most) }).chain((chosen) => {
    const picked: Record<string, fc.Arbitrary<unknown>> = {};
    for (const name of [...required, ...chosen]) picked[name] = arbitraries[name]!;
    return fc.record(picked);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Targets: where a mutation can go.

export interface FieldTarget {
  /** Steps from the body root to the field; array items are index 0. */
  readonly path: readonly Step[];
  readonly schema: Schema;
  /** The field name (the last key), for pools and messages. */
  readonly name: string;
}

/** Every field (object property or array item) of a schema, nested up to a few levels. */
export function fieldTargets(
  context: SchemaContext,
  raw: Schema,
  path: readonly Step[] = [],
  depth = 0,
): FieldTarget[] {
  if (depth > 4) return [];
  const targets: FieldTarget[] = [];
  const object = objectShape(context, raw);
  for (const [name, child] of Object.entries(object?.properties ?? {})) {
    const childPath = [...path, name];
    targets.push({ path: childPath, schema: resolveSchema(context.document, child), name });
    targets.push(...fieldTargets(context, child, childPath, depth + 1));
  }
  const array = object ? undefined : arrayShape(context, raw);
  if (array?.items) {
    const childPath = [...path, 0];
    const name = singular(String(path.at(-1) ?? 'item'));
    targets.push({ path: childPath, schema: resolveSchema(context.document, array.items), name });
    targets.push(...fieldTargets(context, array.items, childPath, depth + 1));
  }
  return targets;
}

/** The objects of a schema (the root included) with their required property names. */
export function objectTargets(
  context: SchemaContext,
  raw: Schema,
): Array<{ path: readonly Step[]; schema: Schema; required: readonly string[] }> {
  const all = [
    { path: [] as readonly Step[], schema: resolveSchema(context.document, raw) },
    ...fieldTargets(context, raw),
  ];
  return all.flatMap((target) => {
    const object = objectShape(context, target.schema);
    if (!object) return [];
    return [{ path: target.path, schema: object, required: object.required ?? [] }];
  });
}

export type Placement =
  | { readonly kind: 'value'; readonly value: fc.Arbitrary<unknown> }
  | { readonly kind: 'omit' }
  | { readonly kind: 'extra'; readonly key: fc.Arbitrary<string>; readonly value: fc.Arbitrary<unknown> };

/**
 * A valid value of the schema, except at `path`: there it places the given value, omits the key, or adds an
 * extra key to the object found there. Every object on the way holds its required properties, so the only
 * fault in the result is the one placed.
 */
export function valueWith(
  context: SchemaContext,
  raw: Schema,
  path: readonly Step[],
  placement: Placement,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (path.length === 0) {
    if (placement.kind === 'value') return placement.value;
    const object = objectShape(context, raw) ?? {};
    const base = objectValue(context, object, depth);
    if (placement.kind === 'omit') return base;
    return fc
      .tuple(base, placement.key, placement.value)
      .map(([value, key, extra]) => ({ ...value, [key]: extra }));
  }
  const [step, ...rest] = path as [Step, ...Step[]];
  if (typeof step === 'number') {
    const array = arrayShape(context, raw) ?? {};
    const item = array.items ?? {};
    const others = fc.array(validValue(context, item, '', depth + 1), {
      maxLength: Math.max(0, Math.min((array.maxItems ?? MAX_GENERATED_ITEMS) - 1, 2)),
    });
    return fc
      .tuple(valueWith(context, item, rest, placement, depth + 1), others)
      .map(([first, more]) => [first, ...more]);
  }
  const object = objectShape(context, raw) ?? {};
  const properties = object.properties ?? {};
  if (rest.length === 0 && placement.kind === 'omit') {
    // The omitted field is the fault; the others are as a valid value has them.
    const { [step]: _omitted, ...kept } = properties;
    return someProperties(context, { ...object, properties: kept, minProperties: undefined }, depth);
  }
  const base = someProperties(context, object, depth, step);
  const child = properties[step] ?? {};
  return fc
    .tuple(base, valueWith(context, child, rest, placement, depth + 1))
    .map(([value, placed]) => ({ ...value, [step]: placed }));
}

// ---------------------------------------------------------------------------------------------------------------
// Boundaries and wrong types.

export interface Boundary {
  /** e.g. `maxLength+1`, `minimum`, `maxItems+1`, `not in enum`. */
  readonly label: string;
  readonly value: fc.Arbitrary<unknown>;
  /** Whether the schema accepts the value (the limit itself) or not (one past it). */
  readonly valid: boolean;
}

/** Each documented limit of a field: the value at the limit and the value one past it. */
export function boundariesOf(context: SchemaContext, raw: Schema, name = ''): Boundary[] {
  const schema = resolveSchema(context.document, raw);
  const boundaries: Boundary[] = [];
  const types = typesOf(context, schema);
  const text = (length: number) =>
    fc
      .constantFrom('a', 'é', '\u{1F600}', '0')
      .map((unit) => unit.repeat(Math.max(0, length)).slice(0, unit.length * length));
  if (schema.minLength !== undefined) {
    boundaries.push({ label: 'minLength', value: text(schema.minLength), valid: true });
    if (schema.minLength > 0)
      boundaries.push({ label: 'minLength-1', value: text(schema.minLength - 1), valid: false });
  }
  if (schema.maxLength !== undefined) {
    boundaries.push({ label: 'maxLength', value: fc.constant('a'.repeat(schema.maxLength)), valid: true });
    boundaries.push({ label: 'maxLength+1', value: text(schema.maxLength + 1), valid: false });
  }
  const integer = types.includes('integer') && !types.includes('number');
  if (schema.minimum !== undefined) {
    boundaries.push({ label: 'minimum', value: fc.constant(schema.minimum), valid: true });
    boundaries.push({ label: 'minimum-1', value: fc.constant(schema.minimum - 1), valid: false });
  }
  if (schema.maximum !== undefined) {
    boundaries.push({ label: 'maximum', value: fc.constant(schema.maximum), valid: true });
    boundaries.push({ label: 'maximum+1', value: fc.constant(schema.maximum + 1), valid: false });
  }
  if (typeof schema.exclusiveMinimum === 'number') {
    boundaries.push({ label: 'exclusiveMinimum', value: fc.constant(schema.exclusiveMinimum), valid: false });
  }
  if (typeof schema.exclusiveMaximum === 'number') {
    boundaries.push({ label: 'exclusiveMaximum', value: fc.constant(schema.exclusiveMaximum), valid: false });
  }
  if (types.includes('integer') || types.includes('number')) {
    const base = schema.minimum ?? 1;
    if (integer) boundaries.push({ label: 'fraction', value: fc.constant(base + 0.5), valid: false });
    boundaries.push({
      label: 'extreme number',
      value: fc.constantFrom(-1, 0, -0, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 5e-324),
      valid: false,
    });
  }
  const list = (length: number) => listOfLength(context, schema, name, length);
  if (schema.minItems !== undefined) {
    boundaries.push({ label: 'minItems', value: list(schema.minItems), valid: true });
    if (schema.minItems > 0)
      boundaries.push({ label: 'minItems-1', value: list(schema.minItems - 1), valid: false });
  }
  if (schema.maxItems !== undefined) {
    boundaries.push({ label: 'maxItems', value: list(schema.maxItems), valid: true });
    boundaries.push({ label: 'maxItems+1', value: list(schema.maxItems + 1), valid: false });
  }
  if (types.includes('array') && schema.maxItems === undefined) {
    boundaries.push({ label: 'many items', value: fc.constant(new Array(10_000).fill('a')), valid: false });
  }
  if (schema.enum && schema.enum.length > 0) {
    const strings = schema.enum.filter((value): value is string => typeof value === 'string');
    const outside = [
      ...strings.map((value) => value.toUpperCase()),
      ...strings.map((value) => ` ${value}`),
      ...strings.map((value) => `${value}x`),
      'unknown',
      '',
    ].filter((value) => !schema.enum!.includes(value));
    if (outside.length > 0)
      boundaries.push({ label: 'not in enum', value: fc.constantFrom(...outside), valid: false });
  }
  if (schema.pattern !== undefined || schema.format !== undefined) {
    boundaries.push({
      label: schema.pattern !== undefined ? 'not matching pattern' : `not a ${schema.format}`,
      value: fc.constantFrom('not-valid', '', ' ', '../..', 'a'.repeat(300), '1'),
      valid: false,
    });
  }
  if (types.includes('string') && schema.maxLength === undefined) {
    boundaries.push({ label: 'very long string', value: fc.constant('a'.repeat(100_000)), valid: false });
  }
  return boundaries;
}

const ALL_WRONG_VALUES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e21,
  '',
  'text',
  '12',
  'true',
  'null',
  [],
  ['a'],
  [1, 2],
  {},
  { a: 1 },
  { $gt: '' },
];

/** Values whose JSON type the schema does not admit (or any unusual value when it admits any type). */
export function wrongTypeValues(context: SchemaContext, raw: Schema): fc.Arbitrary<unknown> | undefined {
  const schema = resolveSchema(context.document, raw);
  const types = typesOf(context, schema);
  const wrong = ALL_WRONG_VALUES.filter((value) => {
    if (schema.enum) return !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value));
    return !admits(types, value);
  });
  return wrong.length > 0 ? fc.constantFrom(...wrong) : undefined;
}
