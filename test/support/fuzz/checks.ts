/**
 * The rules every answer to a fuzzed request must keep (issue 13, part 3), and the failure text that lets a
 * person replay it: the request as sent (secrets never shown: the credential is named, not printed) and the
 * answer, both truncated.
 */
import { ERROR_STATUS, isErrorCode } from '../../../src/platform/errors/error-codes.js';
import type { RequestEffects } from './effects.js';
import type { RawResponse } from './http-client.js';
import type { FuzzRequest } from './requests.js';

/** A request that got no complete answer within this time hangs. */
export const HANG_MS = 5_000;

const ERROR_KEYS = new Set(['code', 'message', 'details', 'request_id']);

export interface Verdict {
  /** Short, stable names of what went wrong (for grouping), empty when the answer keeps every rule. */
  readonly problems: readonly string[];
  /** Whether the service refused the request (a 4xx). */
  readonly refused: boolean;
}

/** The status, error-shape and timing rules of one answer. */
export function judgeResponse(response: RawResponse): Verdict {
  if (response.kind === 'hang')
    return { problems: [`hang: no complete answer within ${HANG_MS} ms`], refused: false };
  if (response.kind === 'failed') return { problems: [`no answer: ${response.error}`], refused: false };
  const problems: string[] = [];
  const { status } = response;
  if (status >= 500) {
    // The one 5xx the contract allows: a dataset or lookup that is busy or not ready, with Retry-After.
    const retryable = status === 503 && response.headers['retry-after'] !== undefined;
    if (!retryable) problems.push(`status ${status}`);
  }
  if (status >= 400) problems.push(...errorShapeProblems(response));
  return { problems, refused: status >= 400 && status < 500 };
}

/** Problems with an error answer: it must be exactly `{code, message, details?, request_id}` with a stable code. */
export function errorShapeProblems(response: Extract<RawResponse, { kind: 'answered' }>): string[] {
  const contentType = String(response.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(contentType)) {
    return [`error body is not JSON (content-type ${JSON.stringify(contentType)})`];
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    return ['error body is not parseable JSON'];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return ['error body is not an object'];
  const fields = body as Record<string, unknown>;
  const problems: string[] = [];
  const extra = Object.keys(fields).filter((key) => !ERROR_KEYS.has(key));
  if (extra.length > 0) problems.push(`error body has other keys: ${extra.sort().join(', ')}`);
  if (typeof fields.code !== 'string') problems.push('error body has no string code');
  else if (!isErrorCode(fields.code)) problems.push(`error code ${fields.code} is not in error-codes.ts`);
  else if (ERROR_STATUS[fields.code] !== response.status) {
    problems.push(`error code ${fields.code} answers ${ERROR_STATUS[fields.code]}, not ${response.status}`);
  }
  if (typeof fields.message !== 'string') problems.push('error body has no string message');
  if (typeof fields.request_id !== 'string' || fields.request_id.length === 0) {
    problems.push('error body has no request_id');
  } else {
    const header = response.headers['x-request-id'];
    if (typeof header === 'string' && header !== fields.request_id) {
      problems.push('error request_id differs from the X-Request-Id header');
    }
  }
  if (
    'details' in fields &&
    (typeof fields.details !== 'object' || fields.details === null || Array.isArray(fields.details))
  ) {
    problems.push('error details is not an object');
  }
  return problems;
}

/**
 * The record of a refusal, which a refusal appends on purpose (ADR 70): a failed sign-in is evidence for the
 * auditor, and changes no state any rule reads.
 */
const REFUSAL_RECORDS: ReadonlySet<string> = new Set(['SignInFailed']);

/** Problems with what a refused request changed. */
export function effectProblems(effects: RequestEffects): string[] {
  const problems: string[] = [];
  const changes = effects.ownEvents.filter((event) => !REFUSAL_RECORDS.has(event.type));
  if (changes.length > 0) {
    const types = [...new Set(changes.map((event) => event.type))].sort().join(', ');
    problems.push(`refused request appended ${changes.length} event(s): ${types}`);
  }
  for (const { event, refusedRequest } of effects.lateEvents) {
    problems.push(
      `event ${event.type} on ${event.streamId} appended later for an earlier refused request: ${refusedRequest}`,
    );
  }
  for (const { before, after } of effects.creditChanges) {
    problems.push(
      `refused request moved the credits of ${before.payer}: available ${before.available} → ${after.available}, ` +
        `purchased ${before.purchased} → ${after.purchased}`,
    );
  }
  return problems;
}

const TRUNCATE = 600;

function truncated(text: string, limit = TRUNCATE): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters)`;
}

/** The body as readable text: JSON-escaped (NUL, surrogates and controls visible), or hex when not UTF-8. */
export function printableBody(body: Buffer | undefined): string {
  if (body === undefined) return '(none)';
  if (body.length === 0) return '(empty)';
  const text = body.toString('utf8');
  if (Buffer.from(text, 'utf8').equals(body)) return truncated(JSON.stringify(text));
  return `bytes ${truncated(body.subarray(0, TRUNCATE / 2).toString('hex'))}${body.length > TRUNCATE / 2 ? ` (${body.length} bytes)` : ''}`;
}

/** The request as sent, secrets left out. */
export function describeRequest(request: FuzzRequest): string {
  const credential =
    request.credential.kind === 'none'
      ? 'no credential'
      : `${request.credential.malformed ? 'an unknown' : 'a valid'} ${request.credential.kind} of ${request.actor}` +
        (request.credential.kind === 'session' ? ' (+ CSRF cookie and header)' : '');
  return [
    `${request.method} ${truncated(request.path + request.query, 300)}`,
    `  input class: ${request.inputClass}`,
    `  credential: ${credential}`,
    `  content-type: ${request.contentType ?? '(none)'}`,
    ...Object.entries(request.headers).map(
      ([name, value]) => `  ${name}: ${truncated(JSON.stringify(value), 200)}`,
    ),
    `  body: ${printableBody(request.body)}`,
  ].join('\n');
}

export function describeResponse(response: RawResponse): string {
  if (response.kind !== 'answered') return `${response.kind} after ${response.elapsedMs} ms`;
  const headers = ['content-type', 'retry-after', 'x-request-id']
    .filter((name) => response.headers[name] !== undefined)
    .map((name) => `${name}: ${String(response.headers[name])}`)
    .join('; ');
  return `${response.status} in ${response.elapsedMs} ms (${headers})\n  body: ${printableBody(response.body)}`;
}
