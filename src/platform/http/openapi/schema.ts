import type { ReferenceObject, SchemaObject } from '@nestjs/swagger';

/**
 * JSON Schema (OpenAPI 3.1) builders for the response documents of the API. Named schemas are registered here
 * and land under `components/schemas` (buildOpenApiDocument), so a view is described once and referenced.
 */
export type Schema = SchemaObject | ReferenceObject;

const COMPONENTS = new Map<string, Schema>();

/** Registers a named schema and returns its `$ref`. */
export function component(name: string, schema: Schema): ReferenceObject {
  const known = COMPONENTS.get(name);
  if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema)) {
    throw new Error(`two different OpenAPI schemas are named ${name}`);
  }
  COMPONENTS.set(name, schema);
  return { $ref: `#/components/schemas/${name}` };
}

export function registeredComponents(): Record<string, Schema> {
  return Object.fromEntries(COMPONENTS);
}

type Extra = Omit<SchemaObject, 'type'>;

export const string = (extra: Extra = {}): SchemaObject => ({ type: 'string', ...extra });
export const integer = (extra: Extra = {}): SchemaObject => ({ type: 'integer', ...extra });
export const number = (extra: Extra = {}): SchemaObject => ({ type: 'number', ...extra });
export const boolean = (extra: Extra = {}): SchemaObject => ({ type: 'boolean', ...extra });
export const dateTime = (extra: Extra = {}): SchemaObject => string({ format: 'date-time', ...extra });
export const date = (extra: Extra = {}): SchemaObject => string({ format: 'date', ...extra });
export const uuid = (extra: Extra = {}): SchemaObject => string({ format: 'uuid', ...extra });
export const constant = (value: string | number | boolean, extra: Extra = {}): SchemaObject => ({
  type: typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value,
  enum: [value],
  ...extra,
});
export const oneOfStrings = (values: readonly string[], extra: Extra = {}): SchemaObject =>
  string({ enum: [...values], ...extra });
export const arrayOf = (items: Schema, extra: Extra = {}): SchemaObject => ({
  type: 'array',
  items,
  ...extra,
});
/** An object whose keys are data (dataset names, states): every value has this schema. */
export const mapOf = (values: Schema, extra: Extra = {}): SchemaObject => ({
  type: 'object',
  additionalProperties: values,
  ...extra,
});
/** A JSON object whose fields the contract leaves open ("not shown"): any members. */
export const anyObject = (description: string): SchemaObject => ({
  type: 'object',
  additionalProperties: true,
  description,
});
/** Any JSON value. */
export const anyValue = (description: string): SchemaObject => ({ description });

/** The schema, or null. */
export function nullable(schema: Schema): Schema {
  if ('$ref' in schema || schema.type === undefined || schema.allOf || schema.oneOf || schema.anyOf) {
    return { anyOf: [schema, { type: 'null' }] };
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return {
    ...schema,
    type: types.includes('null') ? types : [...types, 'null'],
    ...(schema.enum && !schema.enum.includes(null) ? { enum: [...schema.enum, null] } : {}),
  };
}

/**
 * An object with the members always present (`required`) and the members present only in some answers
 * (`optional`). Members not listed are allowed: a client must ignore what it does not know.
 */
export function object(
  required: Record<string, Schema>,
  optional: Record<string, Schema> = {},
  extra: Extra = {},
): SchemaObject {
  const names = Object.keys(required);
  return {
    type: 'object',
    ...(names.length > 0 ? { required: names } : {}),
    properties: { ...required, ...optional },
    ...extra,
  };
}
