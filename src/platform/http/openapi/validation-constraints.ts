import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DECORATORS, type SchemaObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';

/**
 * Request bodies are DTO classes checked by class-validator (validation.ts). Their documented schemas take the
 * same constraints from the validators (integer, uuid, email, lengths, bounds, item counts, no unknown fields), so
 * the document states the limits the service applies, from one place. Only what a schema does not say is added.
 */

type Constructor = abstract new (...args: never[]) => unknown;

/** The classes the routes' handlers take as parameters (bodies), and the classes nested in them. */
export function requestBodyClasses(app: INestApplication): Constructor[] {
  const found = new Set<Constructor>();
  const visit = (type: unknown): void => {
    const candidate = Array.isArray(type) ? type[0] : type;
    if (typeof candidate !== 'function' || found.has(candidate as Constructor)) return;
    const properties = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, candidate.prototype) as
      string[] | undefined;
    if (!properties) return;
    found.add(candidate as Constructor);
    for (const key of properties) {
      const metadata = Reflect.getMetadata(
        DECORATORS.API_MODEL_PROPERTIES,
        candidate.prototype,
        key.replace(/^:/, ''),
      ) as { type?: unknown } | undefined;
      const nested =
        typeof metadata?.type === 'function' && !isBuiltIn(metadata.type) ? metadata.type : undefined;
      visit(Array.isArray(metadata?.type) ? metadata.type : nested);
    }
  };
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const prototype = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!prototype) continue;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const types = Reflect.getMetadata('design:paramtypes', prototype, name) as unknown[] | undefined;
        types?.forEach(visit);
      }
    }
  }
  return [...found];
}

function isBuiltIn(type: unknown): boolean {
  return [String, Number, Boolean, Object, Array, Date].includes(type as never);
}

/** Adds the validators' constraints to the component schema of each class (named as the class). */
export function applyValidationConstraints(
  schemas: Record<string, SchemaObject>,
  classes: readonly Constructor[],
): void {
  const storage = getMetadataStorage();
  for (const type of classes) {
    const schema = schemas[type.name];
    if (!schema?.properties) continue;
    // The validation pipe refuses unknown fields (forbidNonWhitelisted).
    schema.additionalProperties ??= false;
    for (const validation of storage.getTargetValidationMetadatas(type as never, '', true, false)) {
      const property = schema.properties[validation.propertyName] as SchemaObject | undefined;
      if (!property || '$ref' in property) continue;
      const target = validation.each && property.items ? (property.items as SchemaObject) : property;
      if ('$ref' in target) continue;
      constrain(target, validation.name ?? '', (validation.constraints ?? []) as unknown[]);
    }
  }
}

function constrain(schema: SchemaObject, validator: string, constraints: unknown[]): void {
  const [first, second] = constraints;
  const numeric = (value: unknown): value is number => typeof value === 'number';
  switch (validator) {
    case 'isInt':
      return retype(schema, 'integer', ['number', 'object']);
    case 'isBoolean':
      return retype(schema, 'boolean', ['object']);
    case 'isString':
      return retype(schema, 'string', ['object']);
    case 'isUuid':
      schema.format ??= 'uuid';
      return;
    case 'isEmail':
      schema.format ??= 'email';
      return;
    case 'isIn':
      if (!schema.enum && Array.isArray(first)) schema.enum = [...(first as unknown[])];
      return;
    case 'isLength':
      if (numeric(first)) schema.minLength ??= first;
      if (numeric(second)) schema.maxLength ??= second;
      return;
    case 'minLength':
      if (numeric(first)) schema.minLength ??= first;
      return;
    case 'maxLength':
      if (numeric(first)) schema.maxLength ??= first;
      return;
    case 'min':
      if (numeric(first)) schema.minimum ??= first;
      return;
    case 'max':
      if (numeric(first)) schema.maximum ??= first;
      return;
    case 'arrayMinSize':
      if (numeric(first)) schema.minItems ??= first;
      return;
    case 'arrayMaxSize':
      if (numeric(first)) schema.maxItems ??= first;
      return;
  }
}

/** Replaces a vaguer type (`number` for an integer, `object` for a union), keeping `null` when it is allowed. */
function retype(schema: SchemaObject, type: string, vaguer: readonly string[]): void {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0 && !types.some((t) => vaguer.includes(t))) return;
  schema.type = types.includes('null') ? [type, 'null'] : type;
}
