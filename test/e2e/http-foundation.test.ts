import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Body, Controller, Get, Module, Post } from '@nestjs/common';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { Access } from '../../src/platform/auth/access.js';
import { ApiErrors, ApiJson } from '../../src/platform/http/openapi/responses.js';
import { anyObject } from '../../src/platform/http/openapi/schema.js';
import { ServiceError } from '../../src/platform/errors/service-error.js';
import { WrongExpectedVersion } from '../../src/platform/event-store/event-store.port.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

class ProbeBody {
  @IsString()
  name!: string;

  @IsInt()
  @Min(1)
  @Max(25)
  limit!: number;
}

/** Routes that fail in each way the error mapping must handle (documented, as the answers are checked). */
@Access({ surface: 'public', permission: 'service.health' })
@Controller('probe')
class ProbeController {
  @Post('validate')
  @ApiJson(201, anyObject('the accepted body'))
  validate(@Body() body: ProbeBody): { accepted: ProbeBody } {
    return { accepted: body };
  }

  @Get('conflict')
  @ApiErrors(409)
  conflict(): never {
    throw new WrongExpectedVersion('scope-123', 4, 6);
  }

  @Get('rate')
  @ApiErrors(429)
  rate(): never {
    throw new ServiceError('rate_limited', 'too many requests; wait before retrying', { limit: 60 }, 17);
  }

  @Get('boom')
  @ApiErrors(500)
  boom(): never {
    throw new Error('database password is hunter2');
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

describe('HTTP foundation', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService('pglite', { modules: [ProbeModule] });
  });

  afterAll(async () => {
    await service.dispose();
  });

  it('GET /health/live answers and every response carries a request id', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/health/live' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const traced = await service.app.inject({
      method: 'GET',
      url: '/health/live',
      headers: { 'x-request-id': 'trace-42' },
    });
    expect(traced.headers['x-request-id']).toBe('trace-42');
  });

  it('GET /health/ready is ready once storage answers and projections follow the log', async () => {
    await waitUntil(() => service.context.projections.allLive());
    const response = await service.app.inject({ method: 'GET', url: '/health/ready' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toBe('ready');
    expect(body.checks.event_store).toEqual({ ok: true, detail: 'pglite' });
    expect(body.checks.read_store).toEqual({ ok: true, detail: 'pglite' });
    expect(body.projections.map((p: { name: string }) => p.name)).toContain('event-streams');
  });

  it('serves an OpenAPI 3.1 document generated from the code, in JSON and YAML, and a docs page', async () => {
    const json = await service.app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    expect(json.statusCode).toBe(200);
    const document = json.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/health/live', '/health/ready', '/probe/validate']),
    );
    const yaml = await service.app.inject({ method: 'GET', url: '/api/v2/openapi.yaml' });
    expect(yaml.statusCode).toBe(200);
    expect(yaml.body).toContain('openapi: 3.1.0');
    const docs = await service.app.inject({ method: 'GET', url: '/api/v2/docs' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
  });

  it('unknown routes are 404 not_found in the common error shape', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/api/v2/nowhere?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'not_found', message: 'Cannot GET /api/v2/nowhere?x=1' });
  });

  it('invalid bodies are 422 invalid_input with every problem by field; unknown fields are refused', async () => {
    const response = await service.app.inject({
      method: 'POST',
      url: '/probe/validate',
      payload: { name: 5, limit: 26, extra: true },
    });
    expect(response.statusCode).toBe(422);
    const body = response.json();
    expect(body.code).toBe('invalid_input');
    const fields = body.details.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['extra', 'limit', 'name']);
    const ok = await service.app.inject({
      method: 'POST',
      url: '/probe/validate',
      payload: { name: 'x', limit: 25 },
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json()).toEqual({ accepted: { name: 'x', limit: 25 } });
  });

  it('malformed JSON is 422 invalid_input and an oversized body is 413 payload_too_large', async () => {
    const malformed = await service.app.inject({
      method: 'POST',
      url: '/probe/validate',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().code).toBe('invalid_input');
    const huge = await service.app.inject({
      method: 'POST',
      url: '/probe/validate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), limit: 1 }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().code).toBe('payload_too_large');
  });

  it('a stale version is 409 version_conflict, a rate limit is 429 with an integer Retry-After', async () => {
    const conflict = await service.app.inject({ method: 'GET', url: '/probe/conflict' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'version_conflict', details: { current_version: 6 } });
    const rate = await service.app.inject({ method: 'GET', url: '/probe/rate' });
    expect(rate.statusCode).toBe(429);
    expect(rate.headers['retry-after']).toBe('17');
    expect(rate.json()).toMatchObject({ code: 'rate_limited', details: { limit: 60 } });
  });

  it('an unexpected failure is 500 internal_error and leaks nothing', async () => {
    const response = await service.app.inject({ method: 'GET', url: '/probe/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      code: 'internal_error',
      message: 'the service failed to answer; the failure was logged',
      request_id: response.headers['x-request-id'],
    });
  });
});
