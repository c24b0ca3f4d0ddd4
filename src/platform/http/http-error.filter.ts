import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from './error-response.js';

/** Renders every error a route throws through toErrorResponse. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<FastifyRequest>();
    const reply = context.getResponse<FastifyReply>();
    sendError(error, request, reply);
  }
}

export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const response = toErrorResponse(error, String(request.id));
  if (response.unexpected) request.log.error({ err: error }, 'unexpected failure');
  else request.log.info({ code: response.body.code, status: response.status }, 'request refused');
  if (reply.sent || reply.raw.headersSent) {
    // A stream already started (SSE, downloads): the best we can do is end it.
    reply.raw.end();
    return;
  }
  void reply
    .status(response.status)
    .headers(response.headers)
    .type('application/json; charset=utf-8')
    .send(response.body);
}
