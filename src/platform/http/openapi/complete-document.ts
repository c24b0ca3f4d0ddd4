import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
} from '@nestjs/swagger';
import { ACCESS_EXTENSION, type AccessRule } from '../../auth/access.js';
import { errorResponse } from './responses.js';
import { component, integer, nullable, object, registeredComponents, type Schema } from './schema.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Methods whose requests fastify reads a body for (so 413 and 415 can answer), and which need CSRF. */
const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/** Statuses any route can answer: the URL or request line is unreadable, too long, or a parameter is invalid. */
const EVERY_ROUTE = [400, 414, 422];
/** A request with a body: too large, or not JSON. */
const WITH_BODY = [413, 415];

/** What the service_credits interceptor adds to session JSON objects (contract: Credit usage). */
const SERVICE_CREDITS = component(
  'ServiceCredits',
  object(
    {
      charged: integer({ minimum: 0, description: 'credits this request charged' }),
      available: nullable(integer({ description: 'what the payer has available after it; null if unknown' })),
    },
    {},
    { description: 'Eligible session JSON object responses carry it; streams and arrays do not' },
  ),
);

const UUID: SchemaObject = { type: 'string', format: 'uuid' };
const SUBJECT_ID: SchemaObject = { type: 'string', pattern: '^[a-z]{3}-[0-9a-f]{24}$' };

/**
 * Path parameters mean the same thing on every route that names them: their schema and meaning are said once
 * here (a route may still say more with ApiParam). Another value than the schema allows is a 404 or a 422.
 */
const PATH_PARAMETERS: Readonly<Record<string, { schema: SchemaObject; description: string }>> = {
  orgId: { schema: UUID, description: 'the organization' },
  clientId: { schema: UUID, description: 'the space: a client or an exposure scope' },
  spaceId: { schema: UUID, description: 'the space' },
  accountId: { schema: UUID, description: 'the member account' },
  invitationId: { schema: UUID, description: 'the invitation' },
  caseId: { schema: UUID, description: 'the case' },
  evidenceId: { schema: UUID, description: 'the evidence item' },
  itemId: { schema: UUID, description: 'the review queue item' },
  comparisonId: { schema: UUID, description: 'the comparison' },
  shareId: { schema: UUID, description: 'the guest share link' },
  exportId: { schema: UUID, description: 'the export' },
  reportId: { schema: UUID, description: 'the frozen report' },
  subjectId: { schema: SUBJECT_ID, description: 'the inventory subject' },
  assetKey: { schema: SUBJECT_ID, description: 'the asset key of a service subject (its subject id)' },
  keyId: {
    schema: { type: 'string', pattern: '^[a-z2-7]{12}$' },
    description: 'the API key id (after exr_)',
  },
};

const REQUEST_ID = {
  description: "the request's id: the caller's well-formed X-Request-Id, else a UUID",
  schema: { type: 'string' as const },
};
const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };

/**
 * Finishes the document Nest generated from the controllers: the named response schemas, the security of each
 * route (from its Access rule: API key or bearer, session cookie plus CSRF on unsafe methods, or public), and the
 * refusals every route shares. One place, so no controller repeats them.
 */
export function completeOpenApiDocument(document: OpenAPIObject): OpenAPIObject {
  const refusals: Record<string, ResponseObject> = {};
  document.components = {
    ...document.components,
    headers: { ...document.components?.headers, RequestId: REQUEST_ID },
    responses: refusals,
    schemas: { ...document.components?.schemas, ...(registeredComponents() as Record<string, SchemaObject>) },
    securitySchemes: {
      ...document.components?.securitySchemes,
      api_key: {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-KEY',
        description: 'Personal API key (personal API routes, /api/v2/common/...)',
      },
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Authorization: Bearer with a personal API key or an OAuth access token holding service.read',
      },
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: '__Host-ps',
        description: 'Browser session cookie set by POST /api/v2/auth/login',
      },
      csrf: {
        type: 'apiKey',
        in: 'header',
        name: 'X-CSRF-Token',
        description:
          'Unsafe session requests: the value of the __Host-pc cookie (also the csrf_token of login)',
      },
      operator_credential: {
        type: 'http',
        scheme: 'bearer',
        description:
          'Authorization: Bearer with an operator credential (opc_<id>_<secret>, `operators add`); /api/v2/operator/ only',
      },
      csrf_cookie: {
        type: 'apiKey',
        in: 'cookie',
        name: '__Host-pc',
        description: 'The CSRF cookie set at login; must match X-CSRF-Token',
      },
    },
  };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) completeOperation(method, operation, refusals);
    }
  }
  return document;
}

function completeOperation(
  method: string,
  operation: OperationObject,
  refusals: Record<string, ResponseObject>,
): void {
  const extensions = operation as unknown as Record<string, unknown>;
  const rule = extensions[ACCESS_EXTENSION] as AccessRule | undefined;
  delete extensions[ACCESS_EXTENSION];
  if (!rule) {
    // Refused at run time (403 forbidden) and reported by the route-inventory test.
    for (const status of [...EVERY_ROUTE, 403])
      operation.responses[status] ??= errorResponse(status) as ResponseObject;
    finishResponses(operation, refusals, false);
    return;
  }
  const unsafe = UNSAFE.has(method);
  operation.security = securityOf(rule, unsafe);

  for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
    const known = parameter.in === 'path' ? PATH_PARAMETERS[parameter.name] : undefined;
    if (!known) continue;
    const schema = parameter.schema as SchemaObject | undefined;
    if (!schema || (schema.type === 'string' && Object.keys(schema).length === 1))
      parameter.schema = known.schema;
    parameter.description ??= known.description;
  }

  const statuses = [...EVERY_ROUTE];
  if (unsafe) statuses.push(...WITH_BODY);
  if ((operation.parameters ?? []).some((p) => (p as ParameterObject).in === 'path')) statuses.push(404);
  if (rule.surface === 'personal_api') statuses.push(401, 403, ...(rule.personalData ? [402] : []));
  if (rule.surface === 'session') statuses.push(401, ...(unsafe ? [403] : []));
  if (rule.surface === 'operator') statuses.push(401);
  // Every authenticated route reads storage (the credential itself): unavailable storage is a 503, not a 500.
  if (rule.surface !== 'public') statuses.push(503);
  for (const status of statuses) {
    operation.responses[status] ??= errorResponse(status) as ResponseObject;
  }
  finishResponses(operation, refusals, rule.surface === 'session');
}

/**
 * Every answer carries X-Request-Id; a refusal that is the shared one of its status is referenced from
 * `components/responses` (ErrorNNN) rather than repeated; session JSON objects may carry service_credits.
 */
function finishResponses(
  operation: OperationObject,
  refusals: Record<string, ResponseObject>,
  session: boolean,
): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    const answer = response as ResponseObject;
    const shared = Number(status) >= 400 ? errorResponse(Number(status)) : undefined;
    if (shared && JSON.stringify(answer) === JSON.stringify(shared)) {
      const name = `Error${status}`;
      refusals[name] ??= {
        ...shared,
        headers: { ...REQUEST_ID_HEADER, ...shared.headers },
      } as ResponseObject;
      operation.responses[status] = { $ref: `#/components/responses/${name}` };
      continue;
    }
    answer.headers = { ...REQUEST_ID_HEADER, ...answer.headers };
    if (session && status.startsWith('2')) withServiceCredits(answer);
  }
  operation.responses = sortedByStatus(operation.responses);
}

function securityOf(rule: AccessRule, unsafe: boolean): SecurityRequirementObject[] {
  switch (rule.surface) {
    case 'public':
      return [];
    case 'personal_api':
      return [{ api_key: [] }, { bearer: [] }];
    case 'mcp':
      return [{ bearer: [] }];
    case 'session':
      return unsafe ? [{ session: [], csrf: [], csrf_cookie: [] }] : [{ session: [] }];
    case 'operator':
      return [{ operator_credential: [] }];
  }
}

/** Session JSON objects may carry service_credits (the interceptor adds it); arrays and streams do not. */
function withServiceCredits(response: ResponseObject): void {
  const media = response.content?.['application/json'];
  if (!media?.schema || !isObjectSchema(media.schema)) return;
  media.schema = {
    allOf: [media.schema, { type: 'object', properties: { service_credits: SERVICE_CREDITS } }],
  };
}

function isObjectSchema(schema: Schema): boolean {
  const resolved =
    '$ref' in schema ? registeredComponents()[schema.$ref.replace('#/components/schemas/', '')] : schema;
  if (!resolved) return false;
  if ('$ref' in resolved) return isObjectSchema(resolved);
  if (resolved.type === 'object' || (resolved.allOf ?? []).some(isObjectSchema)) return true;
  const branches = resolved.oneOf ?? resolved.anyOf;
  return branches !== undefined && branches.every(isObjectSchema);
}

function sortedByStatus<T>(responses: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}
