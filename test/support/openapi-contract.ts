import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { buildOpenApiDocument } from '../../src/platform/http/create-http-app.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** One answer the service gave, as the response contract checks it. */
export interface ObservedResponse {
  readonly method: string;
  /** The route as fastify matched it (`/api/v2/x/:id`); undefined when no route matched. */
  readonly route: string | undefined;
  readonly url: string;
  readonly status: number;
  readonly contentType: string | undefined;
  /** The body as sent; undefined when it was a stream (a file download). */
  readonly body: string | undefined;
}

const SAFE_HEADERS_ONLY = new Set(['HEAD', 'OPTIONS']);

/**
 * The OpenAPI document as a contract on real answers: every response of an operation must be documented for its
 * status and media type, and its body must match the documented schema (JSON), or each `data:` chunk the
 * documented chunk schema (Server-Sent Events). Answers of routes outside the document (404s of unknown paths)
 * must be the error body.
 */
export class ResponseContract {
  readonly violations: string[] = [];
  /** How many answers were checked, by status: what a suite exercised. */
  readonly checked = new Map<string, number>();
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations = new Map<string, { path: string; operation: OperationObject }>();

  constructor(readonly document: OpenAPIObject) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, 'openapi');
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (typeof operation === 'object' && operation && 'responses' in operation) {
          this.operations.set(`${method.toUpperCase()} ${path}`, {
            path,
            operation: operation as OperationObject,
          });
        }
      }
    }
  }

  /** Checks one answer; returns the problem (also recorded in `violations`), or null when it conforms. */
  check(response: ObservedResponse): string | null {
    const key = `${response.method} ${response.route ?? '(no route)'} ${response.status}`;
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
    const problem = this.problemOf(response);
    if (problem) this.violations.push(`${response.method} ${response.url} → ${response.status}: ${problem}`);
    return problem;
  }

  private problemOf(response: ObservedResponse): string | null {
    if (SAFE_HEADERS_ONLY.has(response.method)) return null;
    const path = response.route?.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const found = path ? this.operations.get(`${response.method} ${path}`) : undefined;
    if (!found) {
      // Not an operation of the document (unknown paths, the document and docs pages themselves).
      if (response.status < 400) return null;
      return this.bodyProblem(response, '#/components/schemas/ErrorBody', 'application/json');
    }
    const { operation } = found;
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in operation.responses);
    const documentedResponse = key === undefined ? undefined : this.resolve(found.path, response.method, key);
    if (!documentedResponse) {
      return `status ${status} is not documented for ${response.method} ${found.path} (documented: ${Object.keys(operation.responses).join(', ')})`;
    }
    const { documented, at } = documentedResponse;
    const content = documented.content;
    const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase();
    if (!content || Object.keys(content).length === 0) {
      return response.body ? `a body was sent where ${status} documents none` : null;
    }
    if (!mediaType || !content[mediaType]) {
      return `media type ${mediaType ?? '(none)'} is not documented for ${status} (documented: ${Object.keys(content).join(', ')})`;
    }
    const pointer = `${at}/content/${escape(mediaType)}`;
    if (mediaType === 'application/json') return this.bodyProblem(response, `${pointer}/schema`, mediaType);
    if (mediaType === 'text/event-stream') return this.eventsProblem(response, `${pointer}/x-data-schema`);
    return null;
  }

  /** The documented response of an operation and its JSON pointer, following a `components/responses` $ref. */
  private resolve(path: string, method: string, key: string): { documented: ResponseObject; at: string } {
    const response = this.operations.get(`${method} ${path}`)!.operation.responses[key]!;
    if (!('$ref' in response)) {
      return { documented: response, at: `#/paths/${escape(path)}/${method.toLowerCase()}/responses/${key}` };
    }
    const name = response.$ref.replace('#/components/responses/', '');
    return { documented: this.document.components!.responses![name] as ResponseObject, at: response.$ref };
  }

  private bodyProblem(response: ObservedResponse, schemaPointer: string, mediaType: string): string | null {
    if (response.body === undefined) return null;
    if (response.contentType?.split(';')[0]?.trim() !== mediaType) {
      return `media type ${response.contentType ?? '(none)'} where ${mediaType} was expected`;
    }
    let value: unknown;
    try {
      value = JSON.parse(response.body);
    } catch {
      return `the body is not JSON: ${response.body.slice(0, 200)}`;
    }
    return this.valueProblem(value, schemaPointer);
  }

  private eventsProblem(response: ObservedResponse, schemaPointer: string): string | null {
    const chunks = (response.body ?? '')
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice('data: '.length));
    for (const chunk of chunks) {
      let value: unknown;
      try {
        value = JSON.parse(chunk);
      } catch {
        return `a stream chunk is not JSON: ${chunk.slice(0, 200)}`;
      }
      const problem = this.valueProblem(value, schemaPointer);
      if (problem) return `stream chunk ${chunk.slice(0, 120)}…: ${problem}`;
    }
    return null;
  }

  private valueProblem(value: unknown, schemaPointer: string): string | null {
    let validate = this.validators.get(schemaPointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi${schemaPointer}` });
      this.validators.set(schemaPointer, validate);
    }
    if (validate(value)) return null;
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`)
      .join('; ');
    return `the body does not match the documented schema: ${errors}; body: ${JSON.stringify(value).slice(0, 400)}`;
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

type ObservedRequest = FastifyRequest & {
  contractBody?: string | undefined;
  contractChunks?: string[];
  contractStreamType?: string;
};

/**
 * Checks every answer the application gives against its own OpenAPI document (fastify hooks, so `inject` and a
 * listening server alike). Call before the first request.
 */
export function enforceResponseContract(app: NestFastifyApplication): ResponseContract {
  const contract = new ResponseContract(buildOpenApiDocument(app));
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', async (request: ObservedRequest, reply: FastifyReply) => {
    // Event streams written straight to the socket (SSE: writeHead, then writes) are read as they are written.
    const raw = reply.raw;
    const writeHead = raw.writeHead.bind(raw) as (...args: unknown[]) => typeof raw;
    raw.writeHead = ((status: number, ...rest: unknown[]) => {
      const headers = rest.find((arg) => typeof arg === 'object' && arg !== null) as
        Record<string, unknown> | undefined;
      const type = headers?.['content-type'] ?? headers?.['Content-Type'];
      if (typeof type === 'string' && type.startsWith('text/event-stream')) request.contractStreamType = type;
      return writeHead(status, ...rest);
    }) as typeof raw.writeHead;
    const write = raw.write.bind(raw) as (...args: unknown[]) => boolean;
    raw.write = ((chunk: unknown, ...rest: unknown[]) => {
      const type = request.contractStreamType ?? String(raw.getHeader('content-type') ?? '');
      if (type.startsWith('text/event-stream') && (typeof chunk === 'string' || Buffer.isBuffer(chunk))) {
        (request.contractChunks ??= []).push(chunk.toString());
      }
      return write(chunk, ...rest);
    }) as typeof raw.write;
  });
  fastify.addHook('onSend', async (request: ObservedRequest, _reply: FastifyReply, payload: unknown) => {
    if (typeof payload === 'string') request.contractBody = payload;
    else if (Buffer.isBuffer(payload)) request.contractBody = payload.toString('utf8');
    else if (payload === null || payload === undefined) request.contractBody = '';
    else request.contractBody = undefined; // a stream: its bytes are not read here
    return payload;
  });
  fastify.addHook('onResponse', async (request: ObservedRequest, reply: FastifyReply) => {
    const raw = reply.raw;
    const contentType = (request.contractStreamType ??
      reply.getHeader('content-type') ??
      raw.getHeader('content-type')) as string | undefined;
    const streamed = request.contractStreamType !== undefined;
    contract.check({
      method: request.method,
      route: request.routeOptions?.url,
      url: request.url,
      status: raw.statusCode,
      contentType,
      body: streamed ? (request.contractChunks ?? []).join('') : request.contractBody,
    });
  });
  return contract;
}
