import {
  WorkerFailures,
  type ItemOutcome,
  type RetryPolicy,
  type WorkerEnvironment,
  type WorkerLog,
} from './worker-failures.js';

/** What a sweep's owner may set: its backoff, and its logger (default: the service's). */
export interface SweepOptions {
  readonly retry?: Partial<RetryPolicy>;
  readonly log?: WorkerLog;
}

/**
 * A pass that every instance runs on an interval (expiring reservations, deleting expired files, erasing scopes,
 * monitoring). Passes never overlap in one process, a failed pass waits for the next tick, and `stop` waits for
 * the pass in flight. The work itself must be idempotent: other instances sweep too.
 *
 * No item can stop a pass: each item's work runs through `item()`, so one that throws is recorded, logged once
 * and retried with backoff while the pass goes on with the others; a pass that fails as a whole is logged once
 * per streak. Both show in /health/ready under the sweep's name.
 */
export abstract class PeriodicSweep {
  /** Failure records of this sweep's items and passes. */
  readonly failures: WorkerFailures;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  protected constructor(
    private readonly defaultIntervalMs: number,
    readonly name: string,
    environment?: WorkerEnvironment,
    retry?: Partial<RetryPolicy>,
  ) {
    this.failures = new WorkerFailures(name, environment, retry);
  }

  start(intervalMs = this.defaultIntervalMs): void {
    this.timer ??= setInterval(() => void this.sweepOnce().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One pass (joining the one in flight, if any); answers how much it did. */
  sweepOnce(): Promise<number> {
    this.running ??= this.sweep()
      .then(
        (done) => {
          this.failures.passSucceeded();
          return done;
        },
        (error: unknown) => {
          this.failures.passFailed(error);
          throw error;
        },
      )
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** One item's work, under its failure record: never throws (see WorkerFailures.run). */
  protected item<T>(id: string, work: () => Promise<T>): Promise<ItemOutcome<T>> {
    return this.failures.run(id, work);
  }

  protected abstract sweep(): Promise<number>;
}
