/**
 * The fuzz harness catches what it claims to (a harness that cannot fail proves nothing): generated valid
 * values keep every documented limit and boundaries step exactly one past them; the error-shape rule refuses
 * the framework's own error bodies and a 5xx; a request that never answers is a hang; and the effect tracker,
 * on real storage, attributes a refused request's events and credit moves to it, and a background worker's
 * to nobody.
 */
import { createServer, type Server } from 'node:http';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import fc from 'fast-check';
import { PurchaseCredits, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { buildOpenApiDocument } from '../../src/platform/http/create-http-app.js';
import { effectProblems, judgeResponse } from '../support/fuzz/checks.js';
import type { GenerationReport } from '../support/fuzz/generation-check.js';
import { EffectTracker } from '../support/fuzz/effects.js';
import { FuzzHttpClient, type RawResponse } from '../support/fuzz/http-client.js';
import { hostileString } from '../support/fuzz/hostile.js';
import { credentialsFor, operationsOf, type OpenApiDocument, type Schema } from '../support/fuzz/openapi.js';
import { requestArbitrary } from '../support/fuzz/requests.js';
import { boundariesOf, validValue, type SchemaContext } from '../support/fuzz/schema-values.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const BODY: Schema = {
  type: 'object',
  required: ['name', 'page', 'kind'],
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 8 },
    page: { type: 'integer', minimum: 1, maximum: 5 },
    kind: { type: 'string', enum: ['a', 'b'] },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 },
  },
};
const DOCUMENT: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/things/{thingId}': {
      post: {
        parameters: [{ name: 'thingId', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
        },
        security: [{ api_key: [] }],
      },
    },
  },
  components: {
    schemas: { Thing: BODY },
    securitySchemes: { api_key: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
  },
};
const CONTEXT: SchemaContext = { document: DOCUMENT, pools: { valuesFor: () => undefined } };

describe('values generated from a schema', () => {
  it('valid values keep every documented limit, required field and enum', () => {
    fc.assert(
      fc.property(validValue(CONTEXT, BODY), (value) => {
        const body = value as { name: string; page: number; kind: string; tags?: string[] };
        // JSON Schema (and class-validator) count characters: code points, not UTF-16 units.
        expect([...body.name].length).toBeGreaterThanOrEqual(2);
        expect([...body.name].length).toBeLessThanOrEqual(8);
        expect(Number.isInteger(body.page) && body.page >= 1 && body.page <= 5).toBe(true);
        expect(['a', 'b']).toContain(body.kind);
        if (body.tags) expect(body.tags.length >= 1 && body.tags.length <= 3).toBe(true);
      }),
    );
  });

  it('valid values keep minProperties and maxProperties: one of two fields, never both', () => {
    const either: Schema = {
      type: 'object',
      minProperties: 1,
      maxProperties: 1,
      properties: {
        reference: { type: 'string', minLength: 1 },
        cpes: { type: 'array', items: { type: 'string' } },
      },
    };
    fc.assert(
      fc.property(validValue(CONTEXT, either), (value) =>
        expect(Object.keys(value as object)).toHaveLength(1),
      ),
    );
  });

  it('boundaries are each limit and one past it', () => {
    const labels = (schema: Schema) => boundariesOf(CONTEXT, schema).map((boundary) => boundary.label);
    expect(labels(BODY.properties!.name!)).toEqual(
      expect.arrayContaining(['minLength', 'minLength-1', 'maxLength', 'maxLength+1']),
    );
    expect(labels(BODY.properties!.page!)).toEqual(
      expect.arrayContaining(['minimum', 'minimum-1', 'maximum', 'maximum+1', 'fraction']),
    );
    const maxPlusOne = boundariesOf(CONTEXT, BODY.properties!.name!).find((b) => b.label === 'maxLength+1')!;
    // JSON Schema counts characters (code points), not UTF-16 units.
    fc.assert(fc.property(maxPlusOne.value, (value) => expect([...(value as string)]).toHaveLength(9)));
    const tooMany = boundariesOf(CONTEXT, BODY.properties!.tags!).find((b) => b.label === 'maxItems+1')!;
    fc.assert(fc.property(tooMany.value, (value) => expect(value).toHaveLength(4)));
  });

  it('a hostile string carries exactly its one fault: NUL never comes with a split surrogate pair', () => {
    fc.assert(
      fc.property(hostileString('nul', fc.string({ unit: 'grapheme', maxLength: 8 })), (value) => {
        expect(value).toContain('\u0000');
        expect(value.isWellFormed()).toBe(true);
      }),
    );
    fc.assert(
      fc.property(hostileString('lone-surrogate'), (value) => expect(value.isWellFormed()).toBe(false)),
    );
  });

  it('a security requirement of several schemes is one credential: session cookie + CSRF header is a session', () => {
    const document: OpenApiDocument = {
      ...DOCUMENT,
      components: {
        ...DOCUMENT.components,
        securitySchemes: {
          api_key: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
          bearer: { type: 'http', scheme: 'bearer' },
          session: { type: 'apiKey', in: 'cookie', name: '__Host-ps' },
          csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
          csrf_cookie: { type: 'apiKey', in: 'cookie', name: '__Host-pc' },
        },
      },
    };
    const credentials = (security: unknown) =>
      credentialsFor(document, { security }, '/api/v2/anything').credentials;
    expect(credentials([{ session: [], csrf: [], csrf_cookie: [] }])).toEqual(['session']);
    expect(credentials([{ api_key: [] }, { bearer: [] }])).toEqual(['api_key', 'bearer']);
    expect(credentials([{}])).toEqual(['none']);
  });

  it('requests come from the document: its path parameters, its body, its security, one fault each', () => {
    const [operation] = operationsOf(DOCUMENT);
    expect(operation).toMatchObject({ key: 'POST /things/{thingId}', credentials: ['api_key'] });
    const classes = new Set<string>();
    let valid = 0;
    fc.assert(
      fc.property(requestArbitrary(CONTEXT, operation!), (request) => {
        classes.add(request.inputClass.replace(/ @ .*/, ''));
        if (request.inputClass === 'valid') valid += 1;
        expect(request.path.startsWith('/things/')).toBe(true);
      }),
      { numRuns: 2_000, seed: 13 },
    );
    // About one request in five carries no fault, however many fields the body has.
    expect(valid).toBeGreaterThan(250);
    expect(valid).toBeLessThan(550);
    for (const expected of [
      'valid',
      'boundary:maxLength+1',
      'wrong-type',
      'unknown-field',
      'missing-required',
      'hostile-string:nul',
      'hostile-string:lone-surrogate',
      'deep-json',
      'invalid-percent-encoding',
      'overlong-segment',
      'content-type:wrong',
      'content-type:missing',
      'malformed-json',
    ]) {
      expect(classes).toContain(expected);
    }
  });
});

const answered = (status: number, body: unknown, headers: Record<string, string> = {}): RawResponse => ({
  kind: 'answered',
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: Buffer.from(JSON.stringify(body)),
  elapsedMs: 1,
});

describe('the answer rules', () => {
  it('accept the one error shape with a registered code and its status', () => {
    const verdict = judgeResponse(
      answered(422, { code: 'invalid_input', message: 'no', details: { fields: [] }, request_id: 'r-1' }),
    );
    expect(verdict).toEqual({ problems: [], refused: true });
  });

  it("refuse the framework's own error body (no request_id, unknown code, extra keys)", () => {
    const { problems } = judgeResponse(
      answered(400, { statusCode: 400, code: 'FST_ERR_BAD_URL', error: 'Bad Request', message: 'bad url' }),
    );
    expect(problems).toEqual([
      'error body has other keys: error, statusCode',
      'error code FST_ERR_BAD_URL is not in error-codes.ts',
      'error body has no request_id',
    ]);
  });

  it('refuse a 5xx, but not a 503 that says when to retry', () => {
    const error = { code: 'internal_error', message: 'failed', request_id: 'r-2' };
    expect(judgeResponse(answered(500, error)).problems).toEqual(['status 500']);
    const busy = { code: 'not_ready', message: 'busy', request_id: 'r-3' };
    expect(judgeResponse(answered(503, busy, { 'retry-after': '2' })).problems).toEqual([]);
  });

  it('a request that gets no answer before the deadline is a hang', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (typeof address !== 'object' || address === null) throw new Error('not listening');
    try {
      const response = await new FuzzHttpClient('127.0.0.1', address.port).send(
        { method: 'GET', target: '/', headers: {}, body: undefined },
        200,
      );
      expect(response.kind).toBe('hang');
      expect(judgeResponse(response).problems).toEqual(['hang: no complete answer within 5000 ms']);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

/**
 * Samples every operation of a document in a worker thread and answers its reports, or throws naming the
 * operation whose generation did not finish within the deadline (a spin cannot be interrupted in-thread).
 */
async function generationReports(document: OpenApiDocument, deadlineMs: number): Promise<GenerationReport[]> {
  const worker = new Worker(new URL('../support/fuzz/generation-worker.mjs', import.meta.url), {
    workerData: { document },
  });
  try {
    return await new Promise<GenerationReport[]>((resolve, reject) => {
      let current = '(loading)';
      let timer = setTimeout(() => undefined, 0);
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => reject(new Error(`generating requests of ${current} took over ${deadlineMs} ms`)),
          deadlineMs,
        );
      };
      arm();
      worker.on('message', (message: { starting?: string; reports?: GenerationReport[] }) => {
        if (message.starting) {
          current = message.starting;
          arm();
        }
        if (message.reports) {
          clearTimeout(timer);
          resolve(message.reports);
        }
      });
      worker.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } finally {
    await worker.terminate();
  }
}

describe('on a real service (PGlite): the effect tracker and the real document', () => {
  let service: TestService;
  let accountId: string;
  const bus = () => service.app.get(CommandBus);

  beforeAll(async () => {
    service = await startTestService('pglite');
    await waitUntil(() => service.context.projections.allLive());
    const envelope = commandEnvelope({ actor: 'operator:test', payer: 'system' });
    ({ accountId } = (await bus().execute(
      new RegisterAccount(
        `tracker-${Date.now()}@example.com`,
        'professional',
        'tracker-password-0123',
        envelope,
      ),
    )) as { accountId: string });
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('every operation of the real document generates its requests without spinning (a deadline per operation) and bounded in size', async () => {
    // A schema whose values fast-check had to filter for (a uuid under a default length cap) once made
    // generation spin at full CPU for minutes on the first operation with a uuid path parameter.
    const document = buildOpenApiDocument(service.app) as unknown as OpenApiDocument;
    const reports = await generationReports(document, 30_000);
    expect(reports.length).toBe(operationsOf(document).length);
    expect(reports.length).toBeGreaterThan(50);
    expect(reports.filter((report) => report.problems.length > 0)).toEqual([]);
  });

  const purchase = (envelope: ReturnType<typeof commandEnvelope>) =>
    bus().execute(new PurchaseCredits(accountId, 10, envelope));

  it("attributes a refused request's events and credit move to it", async () => {
    const tracker = new EffectTracker(service);
    await tracker.start();
    const payer = `account:${accountId}` as const;
    const before = await tracker.credits([payer]);
    await purchase(commandEnvelope({ actor: `account:${accountId}`, payer, correlationId: 'request-1' }));
    const effects = await tracker.after('request-1', 'POST /refused', before);
    expect(effects.ownEvents.map((event) => event.type)).toContain('CreditsPurchased');
    expect(effects.creditChanges).toHaveLength(1);
    expect(effectProblems(effects)).toHaveLength(2);

    // Later work of that refused request is reported in whichever window it shows up.
    const next = await tracker.credits([payer]);
    await purchase(commandEnvelope({ actor: 'system:worker', payer, correlationId: 'request-1' }));
    const late = await tracker.after('request-2', null, next);
    expect(late.lateEvents).toHaveLength(1);
    expect(effectProblems(late)[0]).toContain('earlier refused request: POST /refused');
  });

  it("does not attribute a background worker's events or credit moves to the request", async () => {
    const tracker = new EffectTracker(service);
    await tracker.start();
    const payer = `account:${accountId}` as const;
    const before = await tracker.credits([payer]);
    await purchase(commandEnvelope({ actor: 'system:export-worker', payer, correlationId: 'export-1' }));
    const effects = await tracker.after('request-3', 'POST /refused', before);
    expect(effects).toEqual({ ownEvents: [], lateEvents: [], creditChanges: [] });
  });
});
