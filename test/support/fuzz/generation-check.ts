/**
 * A check of the fuzz's own generator: every operation of a document generates its requests without spinning and with a
 * bounded size. Run in a worker thread (generation-worker.mjs) so that a generator that spins (fast-check
 * filtering for values that almost never pass) fails the check by a deadline instead of hanging the test file.
 */
import fc from 'fast-check';
import { operationsOf, type OpenApiDocument } from './openapi.js';
import { requestArbitrary, type FuzzRequest } from './requests.js';

/** Requests sampled per operation. */
export const SAMPLED_REQUESTS = 40;
/** The largest request the fuzz sends on purpose: a body just past the 1 MiB limit. */
export const LARGEST_REQUEST_BYTES = 1024 * 1024 + 64 * 1024;
/** A request without a fault is small: short strings, a few items per list. */
export const LARGEST_VALID_REQUEST_BYTES = 16 * 1024;
/** Lists in a valid request: the documented minimum plus a few (no documented minimum exceeds 1). */
export const LONGEST_VALID_LIST = 8;

export interface GenerationReport {
  readonly operation: string;
  readonly elapsedMs: number;
  /** What broke a bound, e.g. `valid request of 20000 bytes`; empty when none. */
  readonly problems: readonly string[];
}

/** Samples requests of each operation, calling `starting` before each (so a watcher knows which one spins). */
export function checkGeneration(
  document: OpenApiDocument,
  starting: (operation: string) => void,
  seed = 13,
): GenerationReport[] {
  const context = { document, pools: { valuesFor: () => undefined } };
  return operationsOf(document).map((operation) => {
    starting(operation.key);
    const started = performance.now();
    const requests = fc.sample(requestArbitrary(context, operation), { numRuns: SAMPLED_REQUESTS, seed });
    const elapsedMs = Math.round(performance.now() - started);
    const problems: string[] = [];
    // No time budget here: a wall-clock bound fails on a loaded machine, not on a bad generator. A generator
    // that spins is caught by the caller's deadline per operation (the worker is terminated).
    for (const request of requests) problems.push(...boundProblems(request));
    return { operation: operation.key, elapsedMs, problems: [...new Set(problems)] };
  });
}

function boundProblems(request: FuzzRequest): string[] {
  const bytes = request.path.length + request.query.length + (request.body?.length ?? 0);
  if (bytes > LARGEST_REQUEST_BYTES) return [`${request.inputClass}: ${bytes} bytes`];
  if (request.inputClass !== 'valid') return [];
  const body: unknown = request.body ? JSON.parse(request.body.toString('utf8')) : undefined;
  const list = longestList(body);
  if (bytes > LARGEST_VALID_REQUEST_BYTES) return [`valid request of ${bytes} bytes`];
  if (list > LONGEST_VALID_LIST) return [`valid request with a list of ${list} items`];
  return [];
}

function longestList(value: unknown): number {
  if (Array.isArray(value)) return Math.max(value.length, ...value.map(longestList));
  if (value !== null && typeof value === 'object')
    return Math.max(0, ...Object.values(value).map(longestList));
  return 0;
}
