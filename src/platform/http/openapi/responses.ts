import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery, ApiResponse, type ApiParamOptions, type HeadersObject } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../../errors/error-codes.js';
import { anyObject, component, object, string, type Schema } from './schema.js';

/**
 * Decorators that document what a route answers, so controllers say it in one line each:
 * `@ApiJson(200, View)`, `@ApiErrors(404, 409)`, `@ApiEventStream(...)`, `@ApiFile(...)`.
 * Statuses every route shares (authentication, URL and body refusals) are added by completeOpenApiDocument.
 */

type Decorator = MethodDecorator & ClassDecorator;

/** The one error body of the API (error-response.ts); `code` is one of the registry's codes. */
export const ERROR_BODY = component(
  'ErrorBody',
  object(
    {
      code: string({
        enum: Object.keys(ERROR_STATUS),
        description: 'stable error code; callers read it, not only the status',
      }),
      message: string({ description: 'readable explanation' }),
      request_id: string({ description: 'the id of this request (also in the X-Request-Id header)' }),
    },
    { details: anyObject('what the refusal is about (fields, limits, current version, …)') },
  ),
);

const MEANING: Readonly<Record<number, string>> = {
  400: 'The request could not be read (malformed URL or request line)',
  401: 'Missing or invalid authentication',
  402: 'Entitlement or budget refusal',
  403: 'Permission or CSRF refusal',
  404: 'No such resource, or not one the caller may see',
  405: 'Method not allowed',
  409: 'Version, state or capacity conflict: refetch and reconcile',
  410: 'Gone',
  413: 'The body is larger than this route accepts',
  414: 'The URL is too long',
  415: 'The body is not sent as application/json',
  422: 'Invalid input (body, query, path or header)',
  428: 'A precondition header (If-Match) is required',
  429: 'Rate, cadence or concurrency limit: honor Retry-After',
  503: 'Temporarily unavailable: retry later (honor Retry-After when present)',
};

/** The `Retry-After` response header (whole seconds), described for the answer that carries it. */
export function retryAfterHeader(description = 'seconds to wait before retrying'): HeadersObject {
  return { 'Retry-After': { description, schema: { type: 'integer', minimum: 1 } } };
}

const RETRY_AFTER: HeadersObject = retryAfterHeader();

/** The registry's codes answered with this status. */
export function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
}

/** The error body of one status: the shared shape, with `code` narrowed to that status's codes. */
export function errorSchema(status: number): Schema {
  const codes = codesOf(status);
  if (codes.length === 0) return ERROR_BODY;
  return component(`Error${status}`, {
    allOf: [ERROR_BODY, { type: 'object', properties: { code: string({ enum: codes }) } }],
  });
}

/** The response object of an error status, as the document shows it. */
export function errorResponse(status: number) {
  const codes = codesOf(status);
  const meaning = MEANING[status] ?? 'Refused';
  return {
    description:
      codes.length > 0 ? `${meaning}. Codes: ${codes.map((c) => `\`${c}\``).join(', ')}.` : `${meaning}.`,
    content: { 'application/json': { schema: errorSchema(status) } },
    ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
  };
}

/** The error statuses a route (or every route of a controller) can answer, besides the shared ones. */
export function ApiErrors(...statuses: number[]): Decorator {
  return applyDecorators(...statuses.map((status) => ApiResponse({ status, ...errorResponse(status) })));
}

/** A JSON answer. */
export function ApiJson(
  status: number,
  schema: Schema,
  description = 'OK',
  headers?: HeadersObject,
): Decorator {
  return ApiResponse({
    status,
    description,
    content: { 'application/json': { schema } },
    ...(headers ? { headers } : {}),
  });
}

/** An answer without a body. */
export function ApiEmpty(status: number, description: string, headers?: HeadersObject): Decorator {
  return ApiResponse({ status, description, ...(headers ? { headers } : {}) });
}

/**
 * A route that answers Server-Sent Events, or one JSON document when the request asks for it. Each `data:`
 * line of the stream holds one JSON chunk; `x-data-schema` is the schema of a chunk.
 */
export function ApiEventStream(
  status: number,
  options: { json: Schema; chunk: Schema; description: string; headers?: HeadersObject },
): Decorator {
  return ApiResponse({
    status,
    description: options.description,
    ...(options.headers ? { headers: options.headers } : {}),
    content: {
      'text/event-stream': {
        schema: string({
          description: 'Server-Sent Events: `data: <JSON chunk>` lines, a blank line after each',
        }),
        'x-data-schema': options.chunk,
      } as never,
      'application/json': { schema: options.json },
    },
  });
}

/** A file download in one of these media types. */
export function ApiFile(
  status: number,
  mediaTypes: readonly string[],
  description: string,
  headers?: HeadersObject,
) {
  return ApiResponse({
    status,
    description,
    content: Object.fromEntries(
      mediaTypes.map((type) => [type, { schema: string({ description: 'the file' }) }]),
    ),
    ...(headers ? { headers } : {}),
  });
}

/** A redirect to another address (with the cookies it sets, if any). */
export function ApiRedirect(status: 302 | 303, description: string, headers: HeadersObject = {}): Decorator {
  return ApiEmpty(status, description, {
    Location: { description: 'where the browser goes next', schema: string() },
    ...headers,
  });
}

/** Query parameters, each with its schema (types, limits) and meaning. */
export function ApiQueryParams(
  parameters: Record<string, { schema: Schema; description: string; required?: boolean }>,
): MethodDecorator {
  return applyDecorators(
    ...Object.entries(parameters).map(([name, parameter]) =>
      ApiQuery({
        name,
        required: parameter.required ?? false,
        description: parameter.description,
        schema: parameter.schema,
      }),
    ),
  );
}

/** Path parameters, each with its schema and meaning (replaces the bare `string` Nest infers). */
export function ApiPathParams(
  parameters: Record<string, { schema: Schema; description: string }>,
): Decorator {
  return applyDecorators(
    ...Object.entries(parameters).map(([name, parameter]) =>
      ApiParam({ name, description: parameter.description, schema: parameter.schema } as ApiParamOptions),
    ),
  );
}
