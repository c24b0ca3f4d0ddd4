import type { FastifyReply, FastifyRequest } from 'fastify';

/** A Server-Sent Events answer: JSON data chunks; `closed` aborts when the client goes away. */
export interface EventStream {
  send(chunk: { readonly type: string }): void;
  end(): void;
  readonly closed: AbortSignal;
}

export function openEventStream(request: FastifyRequest, reply: FastifyReply): EventStream {
  const controller = new AbortController();
  let ended = false;
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-request-id': String(request.id),
  });
  reply.raw.flushHeaders?.();
  const onClose = (): void => {
    if (!ended) controller.abort();
  };
  reply.raw.on('close', onClose);
  return {
    closed: controller.signal,
    send: (chunk) => {
      if (ended || reply.raw.destroyed) return;
      reply.raw.write(`data: ${JSON.stringify(chunk)}\n\n`);
    },
    end: () => {
      if (ended) return;
      ended = true;
      reply.raw.off('close', onClose);
      reply.raw.end();
    },
  };
}
