import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Routes served outside Nest, taken over in `onRequest` before any body is parsed: a mounted component that
 * speaks its own protocol and reads its own bodies (the OAuth authorization server, ADR 106). Such a component
 * answers every request it takes, refusals included.
 */
export interface RawHttpRoutes {
  matches(url: string): boolean;
  /** Hijacks the reply and answers it. */
  serve(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

export const RAW_HTTP_ROUTES = Symbol('RawHttpRoutes');
