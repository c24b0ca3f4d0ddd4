/**
 * Sends one fuzzed request to a world and judges the whole outcome: the answer's status, shape and timing,
 * and, for a refusal, that it changed nothing (events and credits).
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { describeRequest, describeResponse, effectProblems, HANG_MS, judgeResponse } from './checks.js';
import { EffectTracker } from './effects.js';
import type { RawResponse } from './http-client.js';
import type { FuzzRequest } from './requests.js';
import type { FuzzWorld } from './world.js';

export interface Outcome {
  readonly problems: readonly string[];
  readonly response: RawResponse;
}

export class FuzzFailure extends Error {
  override readonly name = 'FuzzFailure';
}

let sent = 0;
/** FUZZ_TRACE=<file>: one line per request (status, own events, operation, input class, answer), to see coverage. */
const traceFile = process.env.FUZZ_TRACE;

export class FuzzRunner {
  private readonly tracker: EffectTracker;
  /** Answers by status, for the summary of a run. */
  readonly statuses = new Map<string, number>();

  private constructor(readonly world: FuzzWorld) {
    this.tracker = new EffectTracker(world.service);
  }

  static async start(world: FuzzWorld): Promise<FuzzRunner> {
    const runner = new FuzzRunner(world);
    await runner.tracker.start();
    return runner;
  }

  async run(request: FuzzRequest): Promise<Outcome> {
    sent += 1;
    const requestId = `fuzz-${sent}-${randomBytes(6).toString('hex')}`;
    const creditsBefore = await this.tracker.credits(this.world.payersOf(request));
    const response = await this.world.send(request, requestId, HANG_MS);
    const verdict = judgeResponse(response);
    const effects = await this.tracker.after(
      requestId,
      verdict.refused ? `${request.method} ${request.path.slice(0, 120)} (${request.inputClass})` : null,
      creditsBefore,
    );
    const status = response.kind === 'answered' ? String(response.status) : response.kind;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    // Only a refusal must leave no trace; work an earlier refusal left running is reported whatever this answer.
    const problems = [
      ...verdict.problems,
      ...effectProblems(verdict.refused ? effects : { ...effects, ownEvents: [], creditChanges: [] }),
    ];
    if (traceFile) {
      const body = response.kind === 'answered' ? response.body.toString('utf8').slice(0, 160) : '';
      appendFileSync(
        traceFile,
        `${status}\t${effects.ownEvents.length}\t${request.operation}\t${request.inputClass}\t${JSON.stringify(body)}\n`,
      );
    }
    return { problems, response };
  }

  /** Runs the request and throws a failure naming the request and the answer when a rule is broken. */
  async check(request: FuzzRequest): Promise<void> {
    const outcome = await this.run(request);
    if (outcome.problems.length === 0) return;
    throw new FuzzFailure(failureText(this.world.kind, request, outcome));
  }
}

export function failureText(kind: string, request: FuzzRequest, outcome: Outcome): string {
  return [
    `${request.operation} on ${kind}: ${outcome.problems.join('; ')}`,
    `request:\n  ${describeRequest(request).replace(/\n/g, '\n  ')}`,
    `response:\n  ${describeResponse(outcome.response).replace(/\n/g, '\n  ')}`,
  ].join('\n');
}

/** Survey mode (FUZZ_REPORT=<file>): one JSON line per failing request. */
export function reportFailure(file: string, kind: string, request: FuzzRequest, outcome: Outcome): void {
  const response = outcome.response;
  appendFileSync(
    file,
    `${JSON.stringify({
      kind,
      operation: request.operation,
      inputClass: request.inputClass,
      problems: outcome.problems,
      request: describeRequest(request),
      response: describeResponse(response),
      status: response.kind === 'answered' ? response.status : response.kind,
    })}\n`,
  );
}
