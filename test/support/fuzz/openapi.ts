/**
 * The operations of an OpenAPI 3.x document, as the fuzzer needs them: parameters by location, the request
 * body's media types and schema, and the credentials each operation accepts. Everything comes from the
 * document, so the fuzzer gets richer by itself as the document gets more precise (query parameters, scalar
 * types, limits, security requirements). Only where the document declares no security does the fuzzer fall
 * back to the route prefix (see `credentialsFor`).
 */

/** A JSON Schema as OpenAPI 3.1 writes it (the subset the fuzzer reads). */
export interface Schema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number | boolean;
  readonly exclusiveMaximum?: number | boolean;
  readonly multipleOf?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly items?: Schema;
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | Schema;
  readonly minProperties?: number;
  readonly maxProperties?: number;
  readonly anyOf?: readonly Schema[];
  readonly oneOf?: readonly Schema[];
  readonly allOf?: readonly Schema[];
  readonly nullable?: boolean;
  readonly example?: unknown;
  readonly examples?: readonly unknown[];
  readonly default?: unknown;
}

export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, Schema>>;
    readonly securitySchemes?: Readonly<Record<string, SecurityScheme>>;
    readonly parameters?: Readonly<Record<string, unknown>>;
    readonly requestBodies?: Readonly<Record<string, unknown>>;
  };
  readonly security?: readonly SecurityRequirement[];
}

interface SecurityScheme {
  readonly type: string;
  readonly in?: string;
  readonly name?: string;
  readonly scheme?: string;
}

type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface ParameterSpec {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required: boolean;
  readonly schema: Schema;
}

export interface BodySpec {
  readonly required: boolean;
  /** The media types the document lists, e.g. `application/json`. */
  readonly mediaTypes: readonly string[];
  /** The schema of the JSON media type (or of the first one). */
  readonly schema: Schema;
}

/** How a request proves who it is. */
export type Credential = 'api_key' | 'bearer' | 'session' | 'none';

export interface FuzzOperation {
  readonly method: HttpMethod;
  /** The path template as the document writes it: `/api/v2/organizations/{orgId}`. */
  readonly path: string;
  readonly key: string;
  readonly pathParams: readonly ParameterSpec[];
  readonly queryParams: readonly ParameterSpec[];
  readonly headerParams: readonly ParameterSpec[];
  readonly body: BodySpec | undefined;
  /**
   * Credential alternatives the fuzzer may send (any one of them authenticates), from the document's security
   * requirements, or from the route prefix when the document declares none for this operation.
   */
  readonly credentials: readonly Credential[];
  /** Where `credentials` came from, for failure messages. */
  readonly credentialSource: 'document' | 'route prefix';
}

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** Follows `$ref`s (`#/components/...`) until a schema that is not a reference. */
export function resolveSchema(document: OpenApiDocument, schema: Schema | undefined): Schema {
  let current: Schema = schema ?? {};
  for (let hops = 0; current.$ref !== undefined; hops++) {
    if (hops > 32) throw new Error(`reference cycle at ${current.$ref}`);
    current = resolvePointer(document, current.$ref) as Schema;
  }
  return current;
}

function resolvePointer(document: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Record<string, unknown> | undefined)?.[part];
    if (node === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  return node;
}

function deref<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  let current: unknown = value;
  for (let hops = 0; typeof current === 'object' && current !== null && '$ref' in current; hops++) {
    if (hops > 32) throw new Error('reference cycle');
    current = resolvePointer(document, (current as { $ref: string }).$ref);
  }
  return current as T;
}

/** Every operation of the document, sorted by path then method. */
export function operationsOf(document: OpenApiDocument): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const operation = item[method.toLowerCase()] as Record<string, unknown> | undefined;
      if (!operation) continue;
      const parameters = mergeParameters(document, shared, (operation.parameters as unknown[]) ?? []);
      // Path parameters the template names but the document forgot are still filled (as strings).
      for (const name of templateNames(path)) {
        if (!parameters.some((p) => p.in === 'path' && p.name === name)) {
          parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
        }
      }
      const { credentials, source } = credentialsFor(document, operation, path);
      operations.push({
        method,
        path,
        key: `${method} ${path}`,
        pathParams: parameters.filter((p) => p.in === 'path'),
        queryParams: parameters.filter((p) => p.in === 'query'),
        headerParams: parameters.filter((p) => p.in === 'header'),
        body: bodyOf(document, operation.requestBody),
        credentials,
        credentialSource: source,
      });
    }
  }
  return operations.sort((a, b) =>
    a.path === b.path ? a.method.localeCompare(b.method) : a.path < b.path ? -1 : 1,
  );
}

export function templateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

function mergeParameters(document: OpenApiDocument, shared: unknown[], own: unknown[]): ParameterSpec[] {
  const byKey = new Map<string, ParameterSpec>();
  for (const raw of [...shared, ...own]) {
    const parameter = deref<Record<string, unknown>>(document, raw as Record<string, unknown>);
    const location = parameter.in as ParameterSpec['in'];
    const name = String(parameter.name);
    byKey.set(`${location}:${name}`, {
      name,
      in: location,
      required: location === 'path' ? true : parameter.required === true,
      schema: resolveSchema(document, (parameter.schema as Schema | undefined) ?? { type: 'string' }),
    });
  }
  return [...byKey.values()];
}

function bodyOf(document: OpenApiDocument, raw: unknown): BodySpec | undefined {
  if (raw === undefined) return undefined;
  const body = deref<{ required?: boolean; content?: Record<string, { schema?: Schema }> }>(
    document,
    raw as Record<string, unknown>,
  );
  const content = body.content ?? {};
  const mediaTypes = Object.keys(content);
  const json = mediaTypes.find((type) => /json/i.test(type)) ?? mediaTypes[0];
  return {
    required: body.required === true,
    mediaTypes,
    schema: resolveSchema(document, json ? content[json]?.schema : undefined),
  };
}

/**
 * The credentials that authenticate an operation. The document's security requirements (operation-level,
 * else document-level) when it declares them: an empty requirement `{}` means anonymous; each scheme maps to a
 * credential kind by its type and location. When the document declares none, the route prefix decides, as the
 * service's surfaces do (contract, Surfaces): `/api/v2/common/…` is the personal API (API key; caller-ip is
 * public but ignores a key), `/health/…`, the OpenAPI document and `/api/v2/auth/sso/{orgId}/…` are public,
 * and every other `/api/v2/…` route is a session route.
 */
export function credentialsFor(
  document: OpenApiDocument,
  operation: Record<string, unknown>,
  path: string,
): { credentials: Credential[]; source: FuzzOperation['credentialSource'] } {
  const requirements = (operation.security as SecurityRequirement[] | undefined) ?? document.security;
  if (requirements !== undefined && requirements.length > 0) {
    const credentials = new Set<Credential>();
    for (const requirement of requirements) {
      const names = Object.keys(requirement);
      if (names.length === 0) credentials.add('none');
      // An alternative needs all its schemes at once: the session cookie with the CSRF header and cookie is one
      // session credential (the fuzzer sends the three together), not a session or an API key.
      const kinds = names
        .map((name) => credentialOfScheme(document.components?.securitySchemes?.[name]))
        .filter((kind): kind is Credential => kind !== undefined);
      const credential = kinds.includes('session') ? 'session' : kinds[0];
      if (credential) credentials.add(credential);
    }
    if (credentials.size > 0) return { credentials: [...credentials], source: 'document' };
  }
  return { credentials: [credentialByPrefix(path)], source: 'route prefix' };
}

function credentialOfScheme(scheme: SecurityScheme | undefined): Credential | undefined {
  if (!scheme) return undefined;
  if (scheme.type === 'apiKey' && scheme.in === 'cookie') return 'session';
  if (scheme.type === 'apiKey' && scheme.in === 'header') return 'api_key';
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') return 'bearer';
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return 'bearer';
  return undefined;
}

function credentialByPrefix(path: string): Credential {
  if (path.startsWith('/api/v2/common/')) return 'api_key';
  if (path.startsWith('/api/v2/auth/sso/')) return 'none';
  if (path.startsWith('/api/v2/')) return 'session';
  return 'none';
}
