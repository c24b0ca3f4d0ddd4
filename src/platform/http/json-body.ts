import type { FastifyInstance, FastifyRequest } from 'fastify';
import { truncate } from '../errors/describe-thrown.js';
import { ServiceError } from '../errors/service-error.js';

/** Deepest JSON body any route accepts (objects and arrays); the query language nests at most as deep. */
export const MAX_JSON_DEPTH = 32;

const JSON_MEDIA_TYPE = 'application/json';

/**
 * Bodies are JSON only: every other parser (fastify's text/plain, Nest's urlencoded) is removed, so a body
 * sent as anything else is 415 unsupported_media_type before any route code runs. The JSON parser refuses a
 * body nested deeper than MAX_JSON_DEPTH before parsing it (class-transformer and validation recurse per
 * level; thousands of levels overflowed the stack), then parses with fastify's own parser (which refuses
 * `__proto__` and `constructor` poisoning).
 */
export function acceptJsonBodiesOnly(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.addContentTypeParser(
    JSON_MEDIA_TYPE,
    { parseAs: 'string' },
    (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (nestingDepthExceeds(text, MAX_JSON_DEPTH)) {
        done(
          new ServiceError('invalid_input', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, {
            max_depth: MAX_JSON_DEPTH,
          }),
        );
        return;
      }
      parseJson(request, text, done);
    },
  );
  // Any other media type, or a body without one: say what the route takes.
  fastify.addContentTypeParser('*', (request: FastifyRequest, _payload: unknown, done) => {
    const given = request.headers['content-type'];
    done(
      new ServiceError(
        'unsupported_media_type',
        given
          ? `send the body as ${JSON_MEDIA_TYPE}; ${truncate(given, 100)} is not accepted`
          : `send the body as ${JSON_MEDIA_TYPE}; the request has a body but no Content-Type`,
        { expected: JSON_MEDIA_TYPE },
      ),
    );
  });
}

/**
 * Whether the JSON text opens more than `max` objects/arrays at once, scanning characters (never recursing),
 * brackets inside strings excluded. Malformed text is left to the parser.
 */
export function nestingDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c /* \ */) i++;
      else if (char === 0x22 /* " */) inString = false;
      continue;
    }
    if (char === 0x22) inString = true;
    else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      depth++;
      if (depth > max) return true;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) depth--;
  }
  return false;
}
