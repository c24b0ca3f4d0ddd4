import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { Access } from '../../src/platform/auth/access.js';
import { ERROR_STATUS } from '../../src/platform/errors/error-codes.js';
import { ApiJson } from '../../src/platform/http/openapi/responses.js';
import { integer, object } from '../../src/platform/http/openapi/schema.js';
import { ResponseContract } from '../support/openapi-contract.js';
import { startTestService, type TestService } from '../support/service.js';

/** A route that answers something other than what it documents: the response contract must notice. */
@Controller('contract-probe')
class DriftingController {
  @Get()
  @Access({ surface: 'public', permission: 'service.health' })
  @ApiJson(200, object({ count: integer() }))
  drift(): { count: string } {
    return { count: 'three' };
  }
}

@Module({ controllers: [DriftingController] })
class DriftingModule {}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

let document: OpenAPIObject;

/** A documented response, following a `components/responses` $ref. */
function responseOf(operation: OperationObject, status: string): ResponseObject {
  const response = operation.responses[status]!;
  if (!('$ref' in response)) return response;
  return document.components!.responses![
    response.$ref.replace('#/components/responses/', '')
  ] as ResponseObject;
}

function operationsOf(document: OpenAPIObject) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      key: `${method.toUpperCase()} ${path}`,
      method,
      path,
      operation: item[method] as OperationObject,
    })),
  );
}

/** Every schema object of the document, with where it is. */
function schemasOf(value: unknown, at = '#'): Array<{ at: string; schema: SchemaObject }> {
  if (typeof value !== 'object' || value === null) return [];
  const found: Array<{ at: string; schema: SchemaObject }> = [];
  const record = value as Record<string, unknown>;
  if ('type' in record || 'properties' in record) found.push({ at, schema: record as SchemaObject });
  for (const [key, child] of Object.entries(record)) found.push(...schemasOf(child, `${at}/${key}`));
  return found;
}

describe('The OpenAPI document tells the truth', () => {
  let service: TestService;
  const operations = () => operationsOf(document).filter(({ path }) => !path.startsWith('/contract-probe'));

  beforeAll(async () => {
    service = await startTestService('pglite', { modules: [DriftingModule] });
    const served = await service.app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    expect(served.statusCode).toBe(200);
    document = served.json();
  });

  afterAll(async () => {
    // The drifting probe's answer was a deliberate mismatch, asserted below.
    service.contract?.violations.splice(0);
    await service.dispose();
  });

  it('every operation documents its success answer, its security, and only the one error shape for refusals', () => {
    expect(operations().length).toBeGreaterThanOrEqual(98);
    for (const { key, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      expect({ key, answers: statuses.some((s) => /^[23]/.test(s)) }).toEqual({ key, answers: true });
      expect({ key, security: Array.isArray(operation.security) }).toEqual({ key, security: true });
      // Readiness answers its checks with 503 until ready: a status report, not a refusal.
      const refusals = statuses.filter(
        (s) => Number(s) >= 400 && !(key === 'GET /health/ready' && s === '503'),
      );
      for (const status of refusals) {
        const schema = responseOf(operation, status).content?.['application/json']?.schema;
        expect({ key, status, schema: schema && '$ref' in schema ? schema.$ref : schema }).toEqual({
          key,
          status,
          schema: expect.stringMatching(/^#\/components\/schemas\/(ErrorBody|Error\d{3})$/),
        });
      }
      // Any route refuses an unreadable URL, a too long one and invalid input in the one shape.
      expect({ key, shared: ['400', '414', '422'].filter((s) => statuses.includes(s)) }).toEqual({
        key,
        shared: ['400', '414', '422'],
      });
    }
    const errorBody = document.components!.schemas!.ErrorBody as SchemaObject;
    expect(errorBody.required).toEqual(['code', 'message', 'request_id']);
    expect((errorBody.properties!.code as SchemaObject).enum).toEqual(Object.keys(ERROR_STATUS));
  });

  it('security follows the access rules: API key or bearer, session cookie plus CSRF on unsafe methods, a few public routes', () => {
    const schemes = document.components!.securitySchemes!;
    expect(schemes).toMatchObject({
      api_key: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
      bearer: { type: 'http', scheme: 'bearer' },
      session: { type: 'apiKey', in: 'cookie', name: '__Host-ps' },
      csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
      csrf_cookie: { type: 'apiKey', in: 'cookie', name: '__Host-pc' },
    });
    const security = (key: string) => operations().find((o) => o.key === key)!.operation.security;
    expect(security('POST /api/v2/common/data/search')).toEqual([{ api_key: [] }, { bearer: [] }]);
    expect(security('GET /api/v2/auth/credits')).toEqual([{ session: [] }]);
    expect(security('POST /api/v2/data/search')).toEqual([{ session: [], csrf: [], csrf_cookie: [] }]);
    const publicRoutes = operations()
      .filter(({ operation }) => operation.security!.length === 0)
      .map(({ key }) => key)
      .sort();
    expect(publicRoutes).toEqual([
      'GET /.well-known/event-log-key',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-protected-resource/mcp',
      'GET /api/v2/auth/sso/{orgId}/callback',
      'GET /api/v2/auth/sso/{orgId}/start',
      'GET /api/v2/common/caller-ip',
      'GET /health/live',
      'GET /health/ready',
      'POST /api/v2/auth/login',
      'POST /api/v2/auth/sso/{orgId}/recovery',
    ]);
    for (const { key, method, operation } of operations()) {
      const session = operation.security!.some((requirement) => 'session' in requirement);
      if (!session) continue;
      const unsafe = method !== 'get';
      expect({ key, csrf: operation.security!.every((r) => 'csrf' in r) }).toEqual({ key, csrf: unsafe });
      if (unsafe) expect({ key, has403: '403' in operation.responses }).toEqual({ key, has403: true });
    }
  });

  it('query and path parameters are documented with their types and limits', () => {
    const parameters = (key: string) =>
      Object.fromEntries(
        ((operations().find((o) => o.key === key)!.operation.parameters ?? []) as ParameterObject[]).map(
          (p) => [`${p.in}:${p.name}`, p.schema],
        ),
      );
    const inventory = parameters('GET /api/v2/organizations/{orgId}/clients/{clientId}/exposure');
    expect(inventory).toMatchObject({
      'path:orgId': { type: 'string', format: 'uuid' },
      'path:clientId': { type: 'string', format: 'uuid' },
      'query:offset': { type: 'integer', minimum: 0, maximum: 50_000 },
      'query:group_by': { type: 'string', enum: ['host'] },
      'query:filter': { type: 'string' },
      'query:as_of': { type: 'string' },
    });
    expect(parameters('GET /api/v2/organizations/{orgId}/clients/{clientId}/exposure/history')).toMatchObject(
      {
        'query:offset': { type: 'integer', minimum: 0, maximum: 100_000 },
        'query:subject': { type: 'string' },
      },
    );
    expect(parameters('POST /api/v2/common/data/{dataset}')['path:dataset']).toEqual({
      type: 'string',
      enum: ['hosts', 'dns', 'vhosts', 'whois'],
    });
  });

  it('no scalar field is typed object, and request bodies carry the limits their validators apply', () => {
    const vague = schemasOf(document)
      .filter(({ schema }) => {
        const types = ([] as unknown[]).concat(schema.type ?? []);
        return (
          types.includes('object') &&
          !schema.properties &&
          schema.additionalProperties === undefined &&
          !schema.allOf &&
          !schema.oneOf &&
          !schema.anyOf
        );
      })
      .map(({ at }) => at);
    expect(vague).toEqual([]);
    const schemas = document.components!.schemas! as Record<string, SchemaObject>;
    const property = (name: string, field: string) => schemas[name]!.properties![field];
    expect(property('InvitationBody', 'portion')).toMatchObject({ type: ['integer', 'null'], minimum: 0 });
    expect(property('CreateOrganizationBody', 'expected_transfer')).toMatchObject({
      type: 'integer',
      minimum: 0,
    });
    expect(property('SelectContextBody', 'space_id')).toMatchObject({ type: 'string', format: 'uuid' });
    expect(property('RunBody', 'key')).toMatchObject({ type: 'string', minLength: 16, maxLength: 64 });
    expect(property('NotificationPreferenceBody', 'enabled')).toMatchObject({ type: 'boolean' });
    expect(schemas.SearchBody!.additionalProperties).toBe(false);
  });

  it('search documents the event stream and the JSON answer; downloads document their media types', () => {
    const post = (path: string) => document.paths[path]!.post!;
    for (const path of ['/api/v2/common/data/search', '/api/v2/data/search']) {
      const content = responseOf(post(path), '200').content!;
      expect(Object.keys(content).sort()).toEqual(['application/json', 'text/event-stream']);
      expect(content['text/event-stream']).toHaveProperty('x-data-schema');
    }
    const download = document.paths['/api/v2/common/exports/{exportId}/download']!.get!;
    expect(Object.keys(responseOf(download, '200').content!).sort()).toEqual([
      'application/x-ndjson',
      'text/csv',
      'text/plain',
    ]);
    expect(Object.keys(download.responses)).toEqual(expect.arrayContaining(['404', '409', '410']));
  });

  it('the response contract refuses an undocumented status, a body off its schema and a stream chunk off its schema', () => {
    const contract = new ResponseContract(document);
    const answer = {
      method: 'GET',
      route: '/api/v2/common/exports/:exportId/poll',
      url: '/api/v2/common/exports/x/poll',
      contentType: 'application/json; charset=utf-8',
    };
    expect(contract.check({ ...answer, status: 418, body: '{}' })).toMatch(/status 418 is not documented/);
    expect(contract.check({ ...answer, status: 200, body: JSON.stringify({ id: 'x' }) })).toMatch(
      /does not match the documented schema/,
    );
    expect(
      contract.check({
        ...answer,
        status: 404,
        body: JSON.stringify({ code: 'not_found', message: 'No such export.', request_id: 'r-1' }),
      }),
    ).toBeNull();
    expect(
      contract.check({
        ...answer,
        status: 404,
        body: JSON.stringify({ code: 'version_conflict', message: 'x', request_id: 'r-1' }),
      }),
    ).toMatch(/code/);
    const stream = {
      method: 'POST',
      route: '/api/v2/common/data/search',
      url: '/api/v2/common/data/search',
      status: 200,
      contentType: 'text/event-stream; charset=utf-8',
    };
    const partial = { type: 'partial', dataset: 'hosts', status: 'ok', total: 3, lower_bound: false };
    expect(contract.check({ ...stream, body: `data: ${JSON.stringify(partial)}\n\n` })).toBeNull();
    expect(
      contract.check({ ...stream, body: `data: ${JSON.stringify({ ...partial, status: 'fine' })}\n\n` }),
    ).toMatch(/stream chunk/);
    // Routes outside the document (unknown paths) still refuse in the one error shape.
    expect(
      contract.check({
        method: 'GET',
        route: undefined,
        url: '/nowhere',
        status: 404,
        contentType: 'text/html',
        body: '<h1>Not found</h1>',
      }),
    ).toMatch(/media type/);
  });

  it('every answer of a test service is checked: a route that drifts from its document is reported', async () => {
    const before = service.contract!.violations.length;
    const response = await service.app.inject({ method: 'GET', url: '/contract-probe' });
    expect(response.statusCode).toBe(200);
    expect(service.contract!.violations.slice(before)).toEqual([
      expect.stringMatching(/^GET \/contract-probe → 200: the body does not match the documented schema/),
    ]);
    const conforming = await service.app.inject({ method: 'GET', url: '/health/live' });
    expect(conforming.statusCode).toBe(200);
    expect(service.contract!.violations).toHaveLength(before + 1);
  });
});
