import { describe, expect, it } from '@jest/globals';
import { HttpException, NotFoundException } from '@nestjs/common';
import { ERROR_STATUS } from '../../src/platform/errors/error-codes.js';
import { ServiceError } from '../../src/platform/errors/service-error.js';
import { WrongExpectedVersion } from '../../src/platform/event-store/event-store.port.js';
import { toErrorResponse } from '../../src/platform/http/error-response.js';

describe('one error mapping', () => {
  it('gives every registered code its status and a { code, message } body', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      const response = toErrorResponse(
        new ServiceError(code as keyof typeof ERROR_STATUS, `because ${code}`),
        'req-1',
      );
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ code, message: `because ${code}`, request_id: 'req-1' });
    }
  });

  it('maps the typed WrongExpectedVersion to 409 version_conflict, never by message text', () => {
    const response = toErrorResponse(new WrongExpectedVersion('scope-1', 3, 4));
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'version_conflict', details: { current_version: 4 } });
    const lookalike = toErrorResponse(new Error('stream scope-1 is at version 4, expected 3'));
    expect(lookalike.status).toBe(500);
  });

  it('sends an integer Retry-After with 429 answers', () => {
    const response = toErrorResponse(new ServiceError('rate_limited', 'slow down', undefined, 12.2));
    expect(response.status).toBe(429);
    expect(response.headers).toEqual({ 'retry-after': '13' });
  });

  it('maps fastify body errors and Nest exceptions to registered codes', () => {
    expect(toErrorResponse({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).body.code).toBe(
      'payload_too_large',
    );
    expect(toErrorResponse({ code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 }).status).toBe(422);
    expect(toErrorResponse(new NotFoundException('nope')).body).toEqual({
      code: 'not_found',
      message: 'nope',
    });
  });

  it('hides unexpected failures behind internal_error', () => {
    const response = toErrorResponse(new TypeError('secret detail'));
    expect(response).toMatchObject({ status: 500, unexpected: true, body: { code: 'internal_error' } });
    expect(JSON.stringify(response.body)).not.toContain('secret');
  });

  it("maps the router's and the HTTP parser's refusals to registered codes", () => {
    const cases: Array<[string, number, string]> = [
      ['FST_ERR_BAD_URL', 400, 'malformed_request'],
      ['FST_ERR_MAX_PARAM_LENGTH', 414, 'uri_too_long'],
      ['HPE_INVALID_HEADER_TOKEN', 400, 'malformed_request'],
      ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
      ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
    ];
    for (const [code, status, answer] of cases) {
      const response = toErrorResponse({ code, message: `'/${'a'.repeat(3000)}' is wrong` }, 'req-2');
      expect([response.status, response.body.code]).toEqual([status, answer]);
      expect(response.body.message).not.toContain('aaaa');
    }
  });

  it("answers for fastify's own error when Nest wrapped it in an HttpException", () => {
    const wrapped = new HttpException(
      "Body is not valid JSON but content-type is set to 'application/json'",
      400,
      {
        cause: Object.assign(new Error('fastify'), {
          code: 'FST_ERR_CTP_INVALID_JSON_BODY',
          statusCode: 400,
        }),
      },
    );
    expect(toErrorResponse(wrapped).body).toEqual({
      code: 'invalid_input',
      message: 'the body is not valid JSON',
    });
  });

  it('never echoes more than 200 characters of a framework message (Nest quotes the URL of an unknown route)', () => {
    const response = toErrorResponse(new NotFoundException(`Cannot GET /${'a'.repeat(5000)}`));
    expect(response.status).toBe(404);
    expect(response.body.message.length).toBeLessThanOrEqual(201);
  });

  it('a refusal with a 4xx status the registry does not list is still a 4xx, never a 500', () => {
    const response = toErrorResponse({ statusCode: 411, message: 'length required' });
    expect([response.status, response.body.code]).toEqual([422, 'invalid_input']);
  });

  it('storage that cannot be reached is 503 not_ready with Retry-After; a wrong statement stays a logged 500', () => {
    const unreachable = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
        syscall: 'connect',
      }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('database "t" is not currently accepting connections'), { code: '55000' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      new Error('Connection terminated unexpectedly'),
      new Error('PGlite is closed'),
      new Error('PGlite is closing'),
      Object.assign(new Error('getaddrinfo'), { name: 'MongoServerSelectionError' }),
      Object.assign(new Error('the read failed'), { cause: { code: 'ECONNRESET' } }),
    ];
    for (const error of unreachable) {
      const response = toErrorResponse(error, 'req-3');
      expect([response.status, response.body.code, response.headers['retry-after']]).toEqual([
        503,
        'not_ready',
        '5',
      ]);
      expect(response.unexpected).toBe(true);
    }
    for (const error of [
      Object.assign(new Error('syntax error at or near "SELEC"'), { code: '42601' }),
      Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT', syscall: 'open' }),
    ]) {
      expect(toErrorResponse(error).status).toBe(500);
    }
  });

  it("text PostgreSQL cannot store that slipped past the input check is still the caller's 422", () => {
    for (const code of ['22021', '22P05']) {
      const response = toErrorResponse(Object.assign(new Error('invalid byte sequence'), { code }));
      expect([response.status, response.body.code, response.unexpected]).toEqual([
        422,
        'invalid_input',
        true,
      ]);
    }
  });
});
