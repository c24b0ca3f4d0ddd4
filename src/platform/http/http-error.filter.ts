import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
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
    // Also here: router refusals (bad URL, over-long parameter) are answered before any hook runs.
    .header('x-request-id', String(request.id))
    .type('application/json; charset=utf-8')
    .send(response.body);
}

/**
 * What Node's HTTP parser refuses (a header with a NUL, an over-long request line or headers, a timeout) never
 * becomes a request: answer it on the socket in the same error shape, with a request id of its own.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const requestId = randomUUID();
    // Only the parser's and the timeout's codes: a socket errno here is the client's, never storage's.
    const code =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code?.startsWith('HPE_') ? error.code : 'HPE_OTHER';
    const response = toErrorResponse({ code }, requestId);
    const body = JSON.stringify(response.body);
    socket.write(
      `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n` +
        'Connection: close\r\n' +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
