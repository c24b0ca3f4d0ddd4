import { applyDecorators, Delete, Get, HttpCode, Patch, Post, Put } from '@nestjs/common';
import { ApiOperation, type HeadersObject } from '@nestjs/swagger';
import { Access, type AccessRule } from '../auth/access.js';
import { ApiEmpty, ApiErrors, ApiJson } from './openapi/responses.js';
import type { Schema } from './openapi/schema.js';

type Decorator = MethodDecorator & ClassDecorator;

const METHODS = { GET: Get, POST: Post, PUT: Put, PATCH: Patch, DELETE: Delete } as const;

/** What a route answers on success: a JSON document, or no body. */
export type RouteAnswer =
  | {
      readonly status: number;
      readonly schema: Schema;
      readonly description?: string;
      readonly headers?: HeadersObject;
    }
  | { readonly status: number; readonly empty: string; readonly headers?: HeadersObject };

export interface RouteSpec {
  readonly method: keyof typeof METHODS;
  readonly path: string;
  /** Who may call it (surface, permission, and for organization routes the capability). */
  readonly access: AccessRule;
  readonly summary: string;
  readonly answer: RouteAnswer;
  /** Error statuses besides the shared ones. */
  readonly errors?: readonly number[];
  /** Anything else the operation documents (headers, query or path parameters). */
  readonly also?: readonly Decorator[];
}

/**
 * One route's declaration in one place: method and path, access rule, summary, success answer and errors.
 * Controllers list what differs between routes instead of repeating the same stack of decorators.
 */
export function Route(spec: RouteSpec): MethodDecorator {
  const answer = spec.answer;
  return applyDecorators(
    METHODS[spec.method](spec.path),
    ...(spec.method === 'GET' && answer.status === 200 ? [] : [HttpCode(answer.status)]),
    Access(spec.access),
    ApiOperation({ summary: spec.summary }),
    'empty' in answer
      ? ApiEmpty(answer.status, answer.empty, answer.headers)
      : ApiJson(answer.status, answer.schema, answer.description ?? 'OK', answer.headers),
    ...(spec.errors?.length ? [ApiErrors(...spec.errors)] : []),
    ...(spec.also ?? []),
  );
}
