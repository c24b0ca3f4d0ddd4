import { describe, expect, it } from '@jest/globals';
import { NotFoundException } from '@nestjs/common';
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
});
