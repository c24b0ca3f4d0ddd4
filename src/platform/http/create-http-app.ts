import { randomUUID } from 'node:crypto';
import type { DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject, type SchemaObject } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../service-context.js';
import { MAX_PATH_PARAMETER_LENGTH, ROUTE_BODY_LIMITS } from './request-limits.js';
import { answerClientError, HttpErrorFilter, sendError } from './http-error.filter.js';
import { defaultConsoleDirectory, serveConsole } from './console-assets.js';
import { acceptJsonBodiesOnly } from './json-body.js';
import { RAW_HTTP_ROUTES, type RawHttpRoutes } from './raw-routes.js';
import { completeOpenApiDocument } from './openapi/complete-document.js';
import { applyValidationConstraints, requestBodyClasses } from './openapi/validation-constraints.js';
import { refuseUnstorableText } from './storable-text.js';
import { createValidationPipe } from './validation.js';

/** Largest body any route accepts; routes with a smaller contract limit set their own. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * Builds the HTTP application on fastify: pino logs with request ids, one error mapping (the router's and the
 * HTTP parser's refusals included), JSON bodies only, one check of every string for text PostgreSQL cannot
 * store, DTO validation, and the OpenAPI document generated from the code. Used by main.ts and by the HTTP tests.
 */
export async function createHttpApp(
  context: ServiceContext,
  /** The application's root module on this context (the composition root's AppModule.forContext). */
  root: DynamicModule,
  options: { readonly logger?: boolean } = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: options.logger === false ? false : { level: context.config.logLevel },
    bodyLimit: DEFAULT_BODY_LIMIT,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // The router refuses a URL that does not decode or an over-long parameter before any hook runs.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) =>
      sendError(error, request, reply),
    clientErrorHandler: answerClientError,
    // A caller's X-Request-Id is kept (for tracing across services) when it is well formed.
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(root, adapter, {
    logger: options.logger === false ? false : ['error', 'warn'],
    bufferLogs: false,
    // Nest would add a urlencoded parser: bodies are JSON only (acceptJsonBodiesOnly).
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  acceptJsonBodiesOnly(fastify);
  // Routes register at init: give each its contract body limit first.
  fastify.addHook('onRoute', (route: { url: string; bodyLimit?: number }) => {
    const limit = ROUTE_BODY_LIMITS[route.url];
    if (limit !== undefined) route.bodyLimit = limit;
  });
  // Requests in flight go before projection batches (ForegroundActivity); a request ends when its response has
  // gone or its client left.
  const requestEnds = new WeakMap<FastifyRequest, () => void>();
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const leave = context.foreground.enter();
    requestEnds.set(request, leave);
    reply.raw.once('close', leave);
  });
  const end = async (request: FastifyRequest) => requestEnds.get(request)?.();
  fastify.addHook('onResponse', end);
  // Components that read their own bodies (the OAuth authorization server) take their requests before parsing.
  const raw = optionalProvider<RawHttpRoutes>(app, RAW_HTTP_ROUTES);
  if (raw) {
    fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (raw.matches(request.url)) await raw.serve(request, reply);
    });
  }
  serveConsole(fastify, context.config.consoleDir ?? defaultConsoleDirectory());
  fastify.addHook('onRequestAbort', end);
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('x-request-id', String(request.id));
  });
  // One check for every route, with or without a DTO, before guards and handlers (unknown routes stay 404).
  fastify.addHook('preValidation', async (request: FastifyRequest) => {
    if (!request.is404) refuseUnstorableText(request);
  });
  app.useGlobalFilters(new HttpErrorFilter());
  app.useGlobalPipes(createValidationPipe());

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('api/v2/docs', app, document, {
    jsonDocumentUrl: 'api/v2/openapi.json',
    yamlDocumentUrl: 'api/v2/openapi.yaml',
    customSiteTitle: 'Exposure research service API',
  });
  await app.init();
  return app;
}

function optionalProvider<T>(app: NestFastifyApplication, token: symbol): T | undefined {
  try {
    return app.get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Exposure research service')
    .setDescription(
      'Search over previously collected internet observations (hosts, dns, vhosts, whois), billed in credits, ' +
        'with CVE/KEV enrichment, asynchronous exports and organization exposure scopes. The service never scans ' +
        'assets. Every refusal is `{ "code", "message", "details"?, "request_id" }` with a stable code; callers ' +
        'read the code, not only the status. Every answer carries the request id in `X-Request-Id`.',
    )
    .setVersion('2')
    .addServer('/', 'This service')
    .build();
  // Security schemes, named schemas and the refusals every route shares are added from the routes' Access rules;
  // request bodies take their limits from their validators.
  const document = completeOpenApiDocument(SwaggerModule.createDocument(app, config));
  applyValidationConstraints(
    (document.components?.schemas ?? {}) as Record<string, SchemaObject>,
    requestBodyClasses(app),
  );
  return document;
}
