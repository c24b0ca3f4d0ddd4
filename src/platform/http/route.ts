import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, type HeadersObject } from '@nestjs/swagger';
import { Access, type AccessRule } from '../auth/access.js';
import { ApiEmpty, ApiErrors, ApiJson, ApiQueryParams, ApiRedirect } from './openapi/responses.js';
import type { Schema } from './openapi/schema.js';

type Decorator = MethodDecorator & ClassDecorator;

const METHODS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete } as const;

/** What a route answers on success: a JSON document, no body, or a redirect (the handler sends it itself). */
export type RouteAnswer =
  | {
      readonly status: number;
      readonly schema: Schema;
      readonly description?: string;
      readonly headers?: HeadersObject;
    }
  | { readonly status: number; readonly empty: string; readonly headers?: HeadersObject }
  | { readonly status: 302 | 303; readonly redirect: string; readonly headers?: HeadersObject };

export interface RouteSpec {
  readonly method: keyof typeof METHODS;
  readonly path: string;
  /** Who may call it (surface, permission, and for organization routes the capability). */
  readonly access: AccessRule;
  readonly summary: string;
  readonly answer: RouteAnswer;
  /**
   * Error statuses besides the shared ones. A route with a capability also answers 403 (the organization
   * access layer's refusal), documented without being listed here.
   */
  readonly errors?: readonly number[];
  /** Query parameters, each with its schema and meaning. */
  readonly query?: Parameters<typeof ApiQueryParams>[0];
  /** Anything else the operation documents (headers, further answers). */
  readonly also?: readonly Decorator[];
}

const API_PARAMETERS = 'swagger/apiParameters';

/**
 * The path's parameters, documented from the path itself (their schema and meaning by name in
 * complete-document.ts), so a handler may take them together (CurrentCaller) instead of one @Param each. They
 * come first, in path order, as Nest documents @Param arguments; one the route documents itself (a narrower
 * schema, in `also`) stays as it is.
 */
function PathParameters(path: string): MethodDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const declared = (Reflect.getMetadata(API_PARAMETERS, method) ?? []) as Array<{
      name: string;
      in: string;
    }>;
    const undeclared = [...path.matchAll(/:([A-Za-z0-9_]+)/g)]
      .map(([, name]) => name!)
      .filter((name) => !declared.some((parameter) => parameter.in === 'path' && parameter.name === name))
      .map((name) => ({ name, required: true, in: 'path', type: String }));
    Reflect.defineMetadata(API_PARAMETERS, [...undeclared, ...declared], method);
  };
}

function answerDecorator(answer: RouteAnswer): Decorator {
  if ('redirect' in answer) return ApiRedirect(answer.status, answer.redirect, answer.headers);
  if ('empty' in answer) return ApiEmpty(answer.status, answer.empty, answer.headers);
  return ApiJson(answer.status, answer.schema, answer.description ?? 'OK', answer.headers);
}

/**
 * One route's declaration in one place: method and path, access rule, summary, success answer, errors and
 * query. Controllers list what differs between routes instead of repeating the same stack of decorators.
 */
export function Route(spec: RouteSpec): MethodDecorator {
  const answer = spec.answer;
  // A redirect's status is the handler's own (it answers through the reply); a GET answers 200 by default.
  const defaultStatus = 'redirect' in answer || (spec.method === 'GET' && answer.status === 200);
  const errors = new Set([...(spec.access.capability ? [403] : []), ...(spec.errors ?? [])]);
  return applyDecorators(
    METHODS[spec.method](spec.path),
    ...(defaultStatus ? [] : [HttpCode(answer.status)]),
    Access(spec.access),
    ApiOperation({ summary: spec.summary }),
    answerDecorator(answer),
    ...(errors.size > 0 ? [ApiErrors(...[...errors].sort((a, b) => a - b))] : []),
    ...(spec.query ? [ApiQueryParams(spec.query)] : []),
    ...(spec.also ?? []),
    // Last: it sees what `also` documented.
    PathParameters(spec.path),
  );
}
