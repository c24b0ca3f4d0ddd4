/**
 * Requests for one operation of the OpenAPI document: a valid request built from its parameters' and body's
 * schemas, with at most one fault placed in it (a boundary, a wrong type, an unknown or missing field, a
 * hostile string, deep JSON, a broken URL, a wrong content type…). `inputClass` names the fault and where it
 * is, so failures group by class.
 */
import fc from 'fast-check';
import {
  COMMON_QUERY_NAMES,
  DEEP_JSON_DEPTHS,
  deepJson,
  hostileString,
  hostileUrlComponent,
  type HostileKind,
  INVALID_PERCENT_ENCODINGS,
  MALFORMED_JSON_BODIES,
  NON_OBJECT_BODIES,
  OVERLONG_SEGMENT_LENGTHS,
  WRONG_CONTENT_TYPES,
} from './hostile.js';
import type { Credential, FuzzOperation, ParameterSpec, Schema } from './openapi.js';
import {
  boundariesOf,
  fieldTargets,
  objectTargets,
  smallJsonValue,
  typesOf,
  validValue,
  valueWith,
  wrongTypeValues,
  type FieldTarget,
  type SchemaContext,
  type Step,
} from './schema-values.js';

/** Who sends the request: the personal account, or a member of the fixture organization in a role. */
export type ActorRole = 'personal' | 'owner' | 'administrator' | 'analyst' | 'external_client';

/** How the request authenticates; `malformed` sends a well-formed but unknown credential of the same kind. */
export interface CredentialChoice {
  readonly kind: Credential;
  readonly malformed: boolean;
}

export interface FuzzRequest {
  readonly operation: string;
  /** The fault placed in the request (`valid` when none), and where. */
  readonly inputClass: string;
  readonly method: string;
  /** The path as sent: already percent-encoded (or deliberately not). */
  readonly path: string;
  /** `?…` as sent, or empty. */
  readonly query: string;
  readonly contentType: string | undefined;
  /** Header parameters the document declares (If-Match…), as sent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
  readonly credential: CredentialChoice;
  readonly actor: ActorRole;
}

/** Parts of a request before it is serialized; a mutation replaces one part. */
interface Parts {
  readonly segments: Readonly<Record<string, string>>;
  readonly query: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  /** undefined: no body. */
  readonly body: { readonly json: unknown } | { readonly raw: Buffer } | undefined;
  readonly contentType: string | undefined | null;
}

interface Mutation {
  readonly inputClass: string;
  readonly weight: number;
  readonly parts: fc.Arbitrary<Parts>;
  readonly credential?: fc.Arbitrary<CredentialChoice>;
}

/** The role that acts on a route: organization routes are run by organization members, the rest personally. */
export function actorsFor(operation: FuzzOperation): fc.Arbitrary<ActorRole> {
  if (operation.path.startsWith('/api/v2/organizations')) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant<ActorRole>('owner') },
      { weight: 1, arbitrary: fc.constantFrom<ActorRole>('administrator', 'analyst', 'external_client') },
    );
  }
  return fc.constant<ActorRole>('personal');
}

/**
 * How often each kind of fault is drawn, whatever the number of fields: an operation with thirty body fields
 * gets as many valid requests and URL faults as one with a single field.
 */
const GROUP_WEIGHTS: Readonly<Record<FaultGroup, number>> = {
  valid: 20,
  field: 30,
  body: 15,
  path: 15,
  query: 10,
  header: 5,
  credential: 5,
};

type FaultGroup = 'valid' | 'field' | 'body' | 'path' | 'query' | 'header' | 'credential';

function groupOf(inputClass: string): FaultGroup {
  if (inputClass === 'valid') return 'valid';
  if (inputClass.startsWith('credential:')) return 'credential';
  const [fault = '', location = ''] = inputClass.split(' @ ');
  if (location.startsWith('path')) return 'path';
  if (location.includes('query')) return 'query';
  if (location.startsWith('header')) return 'header';
  if (location.startsWith('body.') || location.startsWith('key of')) return 'field';
  if (fault === 'unknown-field' || fault === 'missing-required') return 'field';
  return 'body';
}

export function requestArbitrary(
  context: SchemaContext,
  operation: FuzzOperation,
): fc.Arbitrary<FuzzRequest> {
  const groups = new Map<FaultGroup, Mutation[]>();
  for (const mutation of mutationsOf(context, operation)) {
    const group = groupOf(mutation.inputClass);
    groups.set(group, [...(groups.get(group) ?? []), mutation]);
  }
  const pick = fc.oneof(
    ...[...groups.entries()].map(([group, mutations]) => ({
      weight: GROUP_WEIGHTS[group],
      arbitrary: fc.oneof(
        ...mutations.map((mutation) => ({ weight: mutation.weight, arbitrary: fc.constant(mutation) })),
      ),
    })),
  );
  const validCredential = fc
    .constantFrom(...operation.credentials)
    .map((kind) => ({ kind, malformed: false }));
  return fc
    .tuple(pick, actorsFor(operation))
    .chain(([mutation, actor]) =>
      fc
        .tuple(mutation.parts, mutation.credential ?? validCredential)
        .map(([parts, credential]) => serialize(operation, mutation.inputClass, parts, credential, actor)),
    );
}

function serialize(
  operation: FuzzOperation,
  inputClass: string,
  parts: Parts,
  credential: CredentialChoice,
  actor: ActorRole,
): FuzzRequest {
  const path =
    operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => parts.segments[name] ?? '') +
    (parts.segments[APPENDED] ?? '');
  const body =
    parts.body === undefined
      ? undefined
      : 'raw' in parts.body
        ? parts.body.raw
        : Buffer.from(JSON.stringify(parts.body.json) ?? 'null', 'utf8');
  const contentType =
    parts.contentType === null ? undefined : (parts.contentType ?? (body ? 'application/json' : undefined));
  return {
    operation: operation.key,
    inputClass,
    method: operation.method,
    path,
    query: parts.query.length > 0 ? `?${parts.query.join('&')}` : '',
    contentType,
    headers: parts.headers,
    body,
    credential,
    actor,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The valid request.

function segmentValue(context: SchemaContext, parameter: ParameterSpec): fc.Arbitrary<string> {
  return validValue(context, parameter.schema, parameter.name).map((value) =>
    encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value)),
  );
}

function validSegments(
  context: SchemaContext,
  operation: FuzzOperation,
): fc.Arbitrary<Record<string, string>> {
  const arbitraries: Record<string, fc.Arbitrary<string>> = {};
  for (const parameter of operation.pathParams)
    arbitraries[parameter.name] = segmentValue(context, parameter);
  return fc.record(arbitraries);
}

/** `name=value` pairs for a query parameter's value (arrays repeat the name, as OpenAPI's form style does). */
function queryPairs(name: string, value: unknown): string[] {
  const encoded = encodeURIComponent(name);
  if (Array.isArray(value)) return value.flatMap((item) => queryPairs(name, item));
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return [`${encoded}=${encodeURIComponent(text)}`];
}

function validQuery(context: SchemaContext, parameters: readonly ParameterSpec[]): fc.Arbitrary<string[]> {
  if (parameters.length === 0) return fc.constant([]);
  const arbitraries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const parameter of parameters)
    arbitraries[parameter.name] = validValue(context, parameter.schema, parameter.name);
  const required = parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name);
  return fc
    .record(arbitraries, { requiredKeys: required })
    .map((values) => Object.entries(values).flatMap(([name, value]) => queryPairs(name, value)));
}

/** A header value as Node sends it: visible ASCII (and latin1), no controls. */
function headerText(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

function validHeaders(
  context: SchemaContext,
  parameters: readonly ParameterSpec[],
): fc.Arbitrary<Record<string, string>> {
  if (parameters.length === 0) return fc.constant({});
  const arbitraries: Record<string, fc.Arbitrary<string>> = {};
  for (const parameter of parameters) {
    arbitraries[parameter.name.toLowerCase()] = validValue(context, parameter.schema, parameter.name).map(
      headerText,
    );
  }
  const required = parameters.filter((p) => p.required).map((p) => p.name.toLowerCase());
  return fc.record(arbitraries, { requiredKeys: required }) as fc.Arbitrary<Record<string, string>>;
}

function validBody(context: SchemaContext, operation: FuzzOperation): fc.Arbitrary<Parts['body']> {
  if (!operation.body) return fc.constant(undefined);
  return validValue(context, operation.body.schema).map((json) => ({ json }));
}

function baseParts(
  context: SchemaContext,
  operation: FuzzOperation,
  override: {
    segments?: fc.Arbitrary<Record<string, string>>;
    headers?: fc.Arbitrary<Record<string, string>>;
    query?: fc.Arbitrary<string[]>;
    body?: fc.Arbitrary<Parts['body']>;
    contentType?: fc.Arbitrary<string | undefined | null>;
  } = {},
): fc.Arbitrary<Parts> {
  return fc.record({
    segments: override.segments ?? validSegments(context, operation),
    query: override.query ?? validQuery(context, operation.queryParams),
    headers: override.headers ?? validHeaders(context, operation.headerParams),
    body: override.body ?? validBody(context, operation),
    contentType: override.contentType ?? fc.constant(undefined),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Faults.

const where = (path: readonly Step[]): string =>
  path.length === 0
    ? 'body'
    : `body.${path.map((step) => (typeof step === 'number' ? `[${step}]` : step)).join('.')}`.replace(
        /\.\[/g,
        '[',
      );

function mutationsOf(context: SchemaContext, operation: FuzzOperation): Mutation[] {
  const mutations: Mutation[] = [{ inputClass: 'valid', weight: 1, parts: baseParts(context, operation) }];
  const add = (
    weight: number,
    inputClass: string,
    parts: fc.Arbitrary<Parts>,
    credential?: fc.Arbitrary<CredentialChoice>,
  ) => mutations.push({ inputClass, weight, parts, ...(credential ? { credential } : {}) });

  // Body fields: boundaries, wrong types, hostile strings, deep JSON at a field.
  const body = operation.body;
  const fields: FieldTarget[] = body ? fieldTargets(context, body.schema) : [];
  const place = (path: readonly Step[], value: fc.Arbitrary<unknown>) =>
    baseParts(context, operation, {
      body: valueWith(context, body!.schema, path, { kind: 'value', value }).map((json) => ({ json })),
    });
  for (const field of fields) {
    for (const boundary of boundariesOf(context, field.schema, field.name)) {
      add(1, `boundary:${boundary.label} @ ${where(field.path)}`, place(field.path, boundary.value));
    }
    const wrong = wrongTypeValues(context, field.schema);
    if (wrong) add(1, `wrong-type @ ${where(field.path)}`, place(field.path, wrong));
    const types = typesOf(context, field.schema);
    if (
      types.length === 0 ||
      types.includes('string') ||
      (types.includes('object') && !field.schema.properties)
    ) {
      for (const kind of HOSTILE_KINDS) {
        add(
          kind === 'nul' || kind === 'lone-surrogate' ? 2 : 1,
          `hostile-string:${kind} @ ${where(field.path)}`,
          place(field.path, hostileString(kind, stringBase(context, field.schema, field.name))),
        );
      }
    }
  }
  if (body) {
    // The whole body: a wrong type, hostile keys, deep JSON, malformed JSON, non-objects, missing.
    for (const object of objectTargets(context, body.schema)) {
      add(
        2,
        `unknown-field @ ${where(object.path)}`,
        baseParts(context, operation, {
          body: valueWith(context, body.schema, object.path, {
            kind: 'extra',
            key: fc.oneof(
              fc.constantFrom('unexpected', 'id', '__proto__', 'constructor', '$where'),
              fc.string({ minLength: 1, maxLength: 8 }),
            ),
            value: smallJsonValue(),
          }).map((json) => ({ json })),
        }),
      );
      add(
        1,
        `hostile-string:nul @ key of ${where(object.path)}`,
        baseParts(context, operation, {
          body: valueWith(context, body.schema, object.path, {
            kind: 'extra',
            key: hostileString('nul'),
            value: fc.constant(1),
          }).map((json) => ({ json })),
        }),
      );
      for (const name of object.required) {
        add(
          1,
          `missing-required @ ${where([...object.path, name])}`,
          baseParts(context, operation, {
            body: valueWith(context, body.schema, [...object.path, name], { kind: 'omit' }).map((json) => ({
              json,
            })),
          }),
        );
      }
    }
    add(
      3,
      'deep-json @ body',
      baseParts(context, operation, {
        body: fc
          .tuple(
            fc.constantFrom(...DEEP_JSON_DEPTHS),
            fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
          )
          .map(([depth, shape]) => ({ raw: Buffer.from(deepJson(depth, shape)) })),
      }),
    );
    const firstField = fields.find((field) => field.path.length === 1);
    if (firstField) {
      add(
        3,
        `deep-json @ ${where(firstField.path)}`,
        baseParts(context, operation, {
          body: fc
            .tuple(validValue(context, body.schema), fc.constantFrom(...DEEP_JSON_DEPTHS))
            .map(([json, depth]) => {
              const text = JSON.stringify({ ...(json as object), [firstField.name]: 0 });
              const placed = text.replace(
                `"${firstField.name}":0`,
                `"${firstField.name}":${deepJson(depth, 'mixed')}`,
              );
              return { raw: Buffer.from(placed) };
            }),
        }),
      );
    }
    add(
      2,
      'malformed-json',
      baseParts(context, operation, {
        body: fc.constantFrom(...MALFORMED_JSON_BODIES).map((text) => ({ raw: Buffer.from(text) })),
      }),
    );
    add(
      1,
      'non-object-body',
      baseParts(context, operation, {
        body: fc.constantFrom(...NON_OBJECT_BODIES).map((text) => ({ raw: Buffer.from(text) })),
      }),
    );
    add(1, 'empty-body', baseParts(context, operation, { body: fc.constant({ raw: Buffer.alloc(0) }) }));
    add(1, 'no-body', baseParts(context, operation, { body: fc.constant(undefined) }));
    add(
      2,
      'invalid-utf8 @ body',
      baseParts(context, operation, {
        body: fc
          .constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x00])
          .map((bytes) => ({
            raw: Buffer.concat([
              Buffer.from('{"'),
              Buffer.from(bytes),
              Buffer.from('":"'),
              Buffer.from(bytes),
              Buffer.from('"}'),
            ]),
          })),
      }),
    );
    add(
      1,
      'oversize-body',
      baseParts(context, operation, {
        body: fc.constantFrom(4 * 1024 + 1, 256 * 1024 + 1, 1024 * 1024 + 1).map((size) => ({
          raw: Buffer.from(JSON.stringify({ padding: 'a'.repeat(size) })),
        })),
      }),
    );
    add(
      3,
      'content-type:wrong',
      baseParts(context, operation, { contentType: fc.constantFrom(...WRONG_CONTENT_TYPES) }),
    );
    add(2, 'content-type:missing', baseParts(context, operation, { contentType: fc.constant(null) }));
  } else if (operation.method !== 'GET' && operation.method !== 'DELETE') {
    // A body the document does not expect.
    add(
      1,
      'unexpected-body',
      baseParts(context, operation, { body: fc.constant({ json: { unexpected: true } }) }),
    );
    add(
      1,
      'deep-json @ unexpected body',
      baseParts(context, operation, { body: fc.constant({ raw: Buffer.from(deepJson(5_000, 'array')) }) }),
    );
    add(
      1,
      'content-type:wrong',
      baseParts(context, operation, {
        body: fc.constant({ raw: Buffer.from('x=1') }),
        contentType: fc.constantFrom(...WRONG_CONTENT_TYPES),
      }),
    );
  }

  // Path parameters: hostile values, broken percent-encoding, over-long segments, wrong types, boundaries.
  for (const parameter of operation.pathParams) {
    const segment = (value: fc.Arbitrary<string>) =>
      baseParts(context, operation, {
        segments: fc
          .tuple(validSegments(context, operation), value)
          .map(([segments, raw]) => ({ ...segments, [parameter.name]: raw })),
      });
    const at = `path.${parameter.name}`;
    for (const kind of HOSTILE_KINDS) {
      add(
        kind === 'nul' || kind === 'lone-surrogate' ? 2 : 1,
        `hostile-string:${kind} @ ${at}`,
        segment(hostileUrlComponent(kind, stringBase(context, parameter.schema, parameter.name))),
      );
    }
    add(2, `invalid-percent-encoding @ ${at}`, segment(fc.constantFrom(...INVALID_PERCENT_ENCODINGS)));
    add(
      2,
      `overlong-segment @ ${at}`,
      segment(fc.constantFrom(...OVERLONG_SEGMENT_LENGTHS).map((length) => 'a'.repeat(length))),
    );
    add(1, `raw-bytes @ ${at}`, segment(fc.constantFrom('\u00ff', '\u00e9t\u00e9', '\u00c3(', 'a\u0080b')));
    add(
      1,
      `odd-segment @ ${at}`,
      segment(
        fc.constantFrom(
          '..',
          '.',
          '%2e%2e',
          '%2F',
          'a%2Fb',
          '%20',
          '+',
          '*',
          '%25',
          '0',
          '-1',
          'null',
          'undefined',
          '__proto__',
          'constructor',
        ),
      ),
    );
    const wrong = wrongTypeValues(context, parameter.schema);
    if (wrong && typesOf(context, parameter.schema).some((type) => type !== 'string')) {
      add(
        1,
        `wrong-type @ ${at}`,
        segment(
          wrong.map((value) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))),
        ),
      );
    }
    for (const boundary of boundariesOf(context, parameter.schema, parameter.name)) {
      add(
        1,
        `boundary:${boundary.label} @ ${at}`,
        segment(
          boundary.value.map((value) =>
            encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value)),
          ),
        ),
      );
    }
  }
  if (operation.pathParams.length === 0) {
    // NUL or a broken escape in a fixed segment: appended to the path's last segment.
    const appended = (value: fc.Arbitrary<string>) =>
      fc
        .tuple(baseParts(context, operation), value)
        .map(([parts, raw]) => ({ ...parts, segments: { ...parts.segments, [APPENDED]: raw } }));
    add(1, 'hostile-string:nul @ path', appended(fc.constantFrom('%00', 'a%00')));
    add(1, 'invalid-percent-encoding @ path', appended(fc.constantFrom(...INVALID_PERCENT_ENCODINGS)));
  }

  // Query parameters: the documented ones get boundaries, wrong types and hostile values; undocumented names and
  // broken query strings go to every operation.
  for (const parameter of operation.queryParams) {
    const at = `query.${parameter.name}`;
    const withValue = (raw: fc.Arbitrary<string>) =>
      baseParts(context, operation, {
        query: fc
          .tuple(
            validQuery(
              context,
              operation.queryParams.filter((p) => p.name !== parameter.name),
            ),
            raw,
          )
          .map(([pairs, value]) => [...pairs, `${encodeURIComponent(parameter.name)}=${value}`]),
      });
    for (const boundary of boundariesOf(context, parameter.schema, parameter.name)) {
      add(
        1,
        `boundary:${boundary.label} @ ${at}`,
        withValue(
          boundary.value.map((value) =>
            encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value)),
          ),
        ),
      );
    }
    const wrong = wrongTypeValues(context, parameter.schema);
    if (wrong)
      add(
        1,
        `wrong-type @ ${at}`,
        withValue(
          wrong.map((value) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))),
        ),
      );
    for (const kind of HOSTILE_KINDS) {
      add(
        1,
        `hostile-string:${kind} @ ${at}`,
        withValue(hostileUrlComponent(kind, stringBase(context, parameter.schema, parameter.name))),
      );
    }
    add(1, `invalid-percent-encoding @ ${at}`, withValue(fc.constantFrom(...INVALID_PERCENT_ENCODINGS)));
    add(
      1,
      `repeated @ ${at}`,
      baseParts(context, operation, {
        query: fc
          .tuple(
            validQuery(context, operation.queryParams),
            validValue(context, parameter.schema, parameter.name),
          )
          .map(([pairs, value]) => [
            ...pairs,
            ...queryPairs(parameter.name, value),
            ...queryPairs(parameter.name, value),
          ]),
      }),
    );
    if (parameter.required) {
      add(
        1,
        `missing-required @ ${at}`,
        baseParts(context, operation, {
          query: validQuery(
            context,
            operation.queryParams.filter((p) => p.name !== parameter.name),
          ),
        }),
      );
    }
  }
  const extraQuery = (value: fc.Arbitrary<string>) =>
    baseParts(context, operation, {
      query: fc
        .tuple(
          validQuery(context, operation.queryParams),
          fc.oneof(
            fc.constantFrom(...COMMON_QUERY_NAMES),
            fc.string({ minLength: 1, maxLength: 6 }).map(encodeURIComponent),
          ),
          value,
        )
        .map(([pairs, name, raw]) => [...pairs, `${name}=${raw}`]),
    });
  add(1, 'hostile-string:nul @ undocumented query', extraQuery(hostileUrlComponent('nul')));
  add(
    1,
    'hostile-string:lone-surrogate @ undocumented query',
    extraQuery(hostileUrlComponent('lone-surrogate')),
  );
  add(
    1,
    'invalid-percent-encoding @ undocumented query',
    extraQuery(fc.constantFrom(...INVALID_PERCENT_ENCODINGS)),
  );
  add(
    1,
    'wrong-type @ undocumented query',
    extraQuery(fc.constantFrom('-1', '1e999', 'abc', '', '%5B%5D', '2.5', '99999999999999999999')),
  );
  add(1, 'overlong @ query', extraQuery(fc.constantFrom(2_000, 20_000).map((length) => 'q'.repeat(length))));

  // Header parameters: boundaries, wrong types, latin1 bytes, missing (Node refuses to send NUL or controls).
  for (const parameter of operation.headerParams) {
    const name = parameter.name.toLowerCase();
    const at = `header.${name}`;
    const others = operation.headerParams.filter((p) => p.name.toLowerCase() !== name);
    const withHeader = (value: fc.Arbitrary<string>) =>
      baseParts(context, operation, {
        headers: fc
          .tuple(validHeaders(context, others), value)
          .map(([headers, raw]) => ({ ...headers, [name]: raw })),
      });
    for (const boundary of boundariesOf(context, parameter.schema, parameter.name)) {
      add(1, `boundary:${boundary.label} @ ${at}`, withHeader(boundary.value.map(headerText)));
    }
    const wrong = wrongTypeValues(context, parameter.schema);
    if (wrong) add(1, `wrong-type @ ${at}`, withHeader(wrong.map(headerText)));
    add(
      1,
      `raw-bytes @ ${at}`,
      withHeader(fc.constantFrom('\u00ff', 'W/"\u00e9"', '"\u00c3("', '*', '', ' ')),
    );
    if (parameter.required) {
      add(
        1,
        `missing-required @ ${at}`,
        baseParts(context, operation, { headers: validHeaders(context, others) }),
      );
    }
  }

  // Credentials: none, or one the service never issued.
  add(
    1,
    'credential:missing',
    baseParts(context, operation),
    fc.constant({ kind: 'none' as const, malformed: false }),
  );
  if (operation.credentials.some((kind) => kind !== 'none')) {
    add(
      1,
      'credential:unknown',
      baseParts(context, operation),
      fc
        .constantFrom(...operation.credentials.filter((kind) => kind !== 'none'))
        .map((kind) => ({ kind, malformed: true })),
    );
  }
  return mutations;
}

/** The segment key of a fault appended to a path that has no parameter. */
const APPENDED = '\u0000appended';

const HOSTILE_KINDS: readonly HostileKind[] = ['nul', 'lone-surrogate', 'control', 'noncharacter'];

/** A valid value of the field as a string (a real id or query when the pools know one), to put a fault into. */
function stringBase(context: SchemaContext, schema: Schema, name: string): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: validValue(context, schema, name).map((value) => (typeof value === 'string' ? value : '')),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
}
