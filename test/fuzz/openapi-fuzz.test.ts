/**
 * Issue 13, part 3: every operation of `/api/v2/openapi.json`, fuzzed with requests generated from the
 * document itself (valid requests from each parameter's and body field's schema, with at most one fault:
 * a boundary of a documented limit, a wrong type, an unknown or missing field, NUL or a lone surrogate in
 * any string, JSON thousands of levels deep, a broken or over-long URL, a wrong content type, a missing or
 * unknown credential), sent over real HTTP to the real service on PGlite and on the PostgreSQL server, with
 * a valid API key or a session and CSRF token, to real fixture ids some of the time.
 *
 * Every answer: never a 5xx (a 503 with Retry-After is the contract's "busy"), never a hang over 5 s, every
 * error exactly `{code, message, details?, request_id}` with a code of error-codes.ts and its status, and a
 * refused request changed nothing: no event of its own in the log, no credits moved (test/support/fuzz/
 * effects.ts says how that is measured while background workers run).
 *
 * CI runs FUZZ_CI_RUNS requests per operation and storage kind. `npm run fuzz` runs FUZZ_RUNS (default
 * FUZZ_LONG_RUNS) per operation; FUZZ_SEED=<seed> (and FUZZ_PATH=<path>) replays what a failure printed;
 * FUZZ_REPORT=<file> keeps going after failures and writes one JSON line per failing request (a survey);
 * FUZZ_TRACE=<file> writes one line per request (status, operation, input class) to see what the fuzz reaches.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { SQL_KINDS, type TestDatabaseKind } from '../support/databases.js';
import { operationsOf, type FuzzOperation } from '../support/fuzz/openapi.js';
import { requestArbitrary, type FuzzRequest } from '../support/fuzz/requests.js';
import { failureText, FuzzRunner, reportFailure } from '../support/fuzz/runner.js';
import { FuzzWorld } from '../support/fuzz/world.js';
import { describeRequest } from '../support/fuzz/checks.js';

/**
 * Requests per operation and storage kind in `npm test`: 98 operations, two kinds, 2,352 requests. The two
 * fuzz files then take about 35 s on an idle 2-core machine, most of it starting the two worlds (measured:
 * 8 runs 25 s, 16 runs 30 s for this file), which keeps them well under 2 minutes on a loaded one.
 */
const FUZZ_CI_RUNS = 12;
const FUZZ_LONG_RUNS = 200;

const long = process.env.FUZZ_LONG === '1';
const runs = Number(process.env.FUZZ_RUNS ?? (long ? FUZZ_LONG_RUNS : FUZZ_CI_RUNS));
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`FUZZ_RUNS must be a positive integer, not ${process.env.FUZZ_RUNS}`);
/**
 * One seed for the whole file (printed with any failure), so FUZZ_SEED replays every operation's sequence;
 * each operation draws from its own seed derived from it and the operation, so operations do not all start
 * with the same fault.
 */
const seed =
  process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
if (!Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${process.env.FUZZ_SEED}`);
const replayPath = process.env.FUZZ_PATH;
const reportFile = process.env.FUZZ_REPORT;
/** Generous: a run is one request (5 s at most) and its checks; shrinking a failure re-runs many. */
const perOperationTimeoutMs = 120_000 + runs * 8_000;

// Top-level await: the operations come from the document, which a running service serves, and jest needs them
// to declare the tests. The PGlite world that served it is the PGlite leg's world.
const firstWorld = await FuzzWorld.start('pglite');
const document = await firstWorld.document();
/** Reads first, then writes, deletions last: the fixtures the reads hit real ids of survive longest. */
const METHOD_ORDER = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'];
const operations = operationsOf(document).sort(
  (a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
);

function operationSeed(operation: FuzzOperation): number {
  let hash = 0x811c9dc5;
  for (const character of operation.key) hash = Math.imul(hash ^ character.charCodeAt(0), 0x01000193);
  return (hash ^ seed) | 0;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function printable(request: FuzzRequest): FuzzRequest {
  return Object.defineProperty(request, fc.toStringMethod, {
    value: () => `\n${describeRequest(request)}\n`,
  });
}

// The PGlite world started above is disposed here too: when a filter (-t) skips the PGlite leg, its afterAll
// does not run.
afterAll(() => firstWorld.dispose());

describe('the fuzz covers the document', () => {
  it('finds every operation of the document, with a credential for each', () => {
    expect(operations.length).toBeGreaterThan(50);
    for (const operation of operations) expect(operation.credentials.length).toBeGreaterThan(0);
    expect(operations.map((operation) => operation.key)).toContain('POST /api/v2/common/data/search');
  });
});

describe.each(SQL_KINDS)('OpenAPI fuzz on %s', (kind: TestDatabaseKind) => {
  let world: FuzzWorld;
  let runner: FuzzRunner;
  const context = () => ({ document, pools: world.pools });

  beforeAll(async () => {
    world = kind === 'pglite' ? firstWorld : await FuzzWorld.start(kind);
    runner = await FuzzRunner.start(world);
  });

  afterAll(async () => {
    if (runner && (long || reportFile)) {
      process.stdout.write(
        `fuzz ${kind}: seed ${seed}, answers by status ${JSON.stringify(Object.fromEntries(runner.statuses))}\n`,
      );
    }
    if (world !== firstWorld) await world?.dispose();
  });

  it.each(operations.map((operation) => [operation.key, operation] as const))(
    '%s: no 5xx, no hang, one error shape, refusals change nothing',
    async (_key: string, operation: FuzzOperation) => {
      // CI reports the failing request as generated (each carries one fault); a long run also shrinks it.
      const generated = requestArbitrary(context(), operation);
      const requests = (long && !reportFile ? generated : fc.noShrink(generated)).map(printable);
      if (reportFile) {
        // Survey: every failing request is written down, none stops the run; the test still fails at the end.
        let failures = 0;
        await fc.assert(
          fc.asyncProperty(requests, async (request) => {
            const outcome = await runner.run(request);
            if (outcome.problems.length > 0) {
              failures += 1;
              reportFailure(reportFile, kind, request, outcome);
            }
          }),
          { numRuns: runs, seed: operationSeed(operation) },
        );
        if (failures > 0)
          throw new Error(`${failures} failing request(s) of ${runs}, written to ${reportFile}`);
        return;
      }
      const details = await fc.check(
        fc.asyncProperty(requests, async (request) => {
          const outcome = await runner.run(request);
          if (outcome.problems.length > 0) throw new Error(failureText(kind, request, outcome));
        }),
        { numRuns: runs, seed: operationSeed(operation), ...(replayPath ? { path: replayPath } : {}) },
      );
      if (details.failed) {
        throw new Error(
          `${fc.defaultReportMessage(details)}\n${errorMessage(details.errorInstance)}\n\n` +
            `replay: FUZZ_SEED=${seed} FUZZ_PATH=${details.counterexamplePath} npm run fuzz -- -t '${kind} ${operation.key}'`,
        );
      }
    },
    perOperationTimeoutMs,
  );
});
