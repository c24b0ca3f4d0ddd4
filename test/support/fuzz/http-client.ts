/**
 * Sends one request over real HTTP exactly as given (the path is not normalized or re-encoded, unlike fetch),
 * and reads the whole answer, or gives up after a deadline: a hang is a finding, not a stuck test.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface RawRequest {
  readonly method: string;
  /** Path and query as sent on the request line. */
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

export type RawResponse =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly headers: IncomingHttpHeaders;
      readonly body: Buffer;
      readonly elapsedMs: number;
    }
  /** No complete answer within the deadline. */
  | { readonly kind: 'hang'; readonly elapsedMs: number }
  /** The connection failed or was closed without an answer. */
  | { readonly kind: 'failed'; readonly error: string; readonly elapsedMs: number };

export class FuzzHttpClient {
  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  send(request: RawRequest, deadlineMs: number): Promise<RawResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const settle = (response: RawResponse) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(response);
      };
      const outgoing = httpRequest({
        host: this.host,
        port: this.port,
        method: request.method,
        path: request.target,
        headers: {
          ...request.headers,
          ...(request.body ? { 'content-length': String(request.body.length) } : {}),
        },
        // A connection per request: a refusal may close its connection, and a reused one would then fail the
        // next request for a reason that is not the service's.
        agent: false,
        // The path may carry raw bytes on purpose (latin1 on the wire); Node checks only for spaces and controls.
        insecureHTTPParser: true,
      });
      const timer = setTimeout(() => {
        settle({ kind: 'hang', elapsedMs: elapsed() });
        outgoing.destroy();
      }, deadlineMs);
      outgoing.on('response', (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          settle({
            kind: 'answered',
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks),
            elapsedMs: elapsed(),
          }),
        );
        incoming.on('error', (error) =>
          settle({ kind: 'failed', error: String(error), elapsedMs: elapsed() }),
        );
      });
      outgoing.on('error', (error) => settle({ kind: 'failed', error: String(error), elapsedMs: elapsed() }));
      outgoing.end(request.body);
    });
  }

  close(): void {
    // Nothing pooled: every request had its own connection.
  }
}
