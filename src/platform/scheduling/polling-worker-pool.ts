import { WorkerFailures, type RetryPolicy, type WorkerEnvironment } from './worker-failures.js';

/**
 * An idle pool looks at most this many times less often than a busy one (250 ms → 30 s by default, ADR 88): work
 * created here nudges the pool at once, so only another instance's job that its own pool left, or a lapsed
 * lease, waits for the slow look.
 */
const IDLE_LOOKS_SLOWER = 120;

/** What a worker pool logs through (the service's logger, or nothing). */
export type PoolLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface PollingWorkerPoolOptions {
  /** Jobs run at once in this process (0: the pool never starts). */
  readonly concurrency: number;
  readonly pollIntervalMs?: number;
  readonly log?: PoolLog;
  /** Where failures are recorded and shown (/health/ready); without it, they are only logged. */
  readonly environment?: Omit<WorkerEnvironment, 'log'>;
  /** Backoff and parking of failing jobs (defaults: DEFAULT_RETRY_POLICY). */
  readonly retry?: Partial<RetryPolicy>;
}

/**
 * A pool that looks for work on an interval (and when nudged) and runs leased jobs in this process: exports,
 * exposure refreshes. Looks never overlap; `stop` aborts the running jobs (their leases lapse, a later start or
 * another instance takes them over) and waits for them. What a look does is the subclass's `tick`.
 *
 * No job can stop the pool: a job that throws is recorded (WorkerFailures), logged once, and waits with backoff
 * while the others run; a look that fails as a whole is logged once per streak, and both show in /health/ready.
 */
export abstract class PollingWorkerPool {
  /** Running jobs by id: the subclass adds and removes them. */
  protected readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  protected stopped = true;
  /** Failure records of this pool's jobs and looks. */
  readonly failures: WorkerFailures;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** The current wait between looks (grows while looks find nothing). */
  private idleIntervalMs = 0;
  private nudgedDuringLook = false;

  protected constructor(
    private readonly pool: PollingWorkerPoolOptions,
    readonly name: string,
  ) {
    this.failures = new WorkerFailures(
      name,
      { ...pool.environment, ...(pool.log ? { log: pool.log } : {}) },
      pool.retry,
    );
  }

  start(): void {
    if (this.pool.concurrency <= 0 || !this.stopped) return;
    this.stopped = false;
    this.nudge();
  }

  /** The interval between looks while there is work; an idle pool doubles it up to IDLE_LOOKS_SLOWER times. */
  private get busyIntervalMs(): number {
    return this.pool.pollIntervalMs ?? 250;
  }

  /**
   * Schedules the next look: soon while jobs run, further apart while looks find nothing (an idle service
   * rests). A request that creates work nudges the pool at once, so only another instance's new work or a
   * lapsed lease waits for the slower look.
   */
  private scheduleNextLook(): void {
    if (this.stopped) return;
    const nudged = this.nudgedDuringLook;
    this.nudgedDuringLook = false;
    this.idleIntervalMs =
      this.running.size > 0 || nudged
        ? this.busyIntervalMs
        : Math.min(this.idleIntervalMs * 2, this.busyIntervalMs * IDLE_LOOKS_SLOWER);
    clearTimeout(this.timer);
    // A nudge that came while a look was running may concern work that look did not see: look again now.
    this.timer = setTimeout(() => this.look(), nudged ? 0 : this.idleIntervalMs);
    this.timer.unref();
  }

  /** Stops taking jobs and interrupts the running ones (their leases run out; a later start takes them over). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const job of this.running.values()) job.abort.abort();
    await this.ticking?.catch(() => undefined);
    await Promise.all([...this.running.values()].map((job) => job.done.catch(() => undefined)));
  }

  /**
   * Looks for work now (after a request, instead of waiting for the next poll), and soon again: the work may reach
   * the read model the look reads only after it (a projection applies it), so looks that find nothing back off
   * from the busy interval again, not from where an idle pool had got to.
   */
  nudge(): void {
    if (this.stopped) return;
    this.idleIntervalMs = this.busyIntervalMs / 2; // the next look that finds nothing waits busyIntervalMs
    this.look();
  }

  private look(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.nudgedDuringLook = true;
      return;
    }
    this.ticking = this.tick()
      .then(
        () => this.failures.passSucceeded(),
        (error: unknown) => this.failures.passFailed(error),
      )
      .finally(() => {
        this.ticking = undefined;
        this.scheduleNextLook();
      });
  }

  /**
   * Runs a job in this process under its failure record: one that throws waits with backoff (it is left out of
   * the next looks, see `failures.waiting()`), and after `parkAfter` failures of its own (storage unavailability
   * does not count) `park` records the failure on the job. A job interrupted by `stop` is no failure.
   */
  protected launch(
    id: string,
    job: (signal: AbortSignal) => Promise<boolean>,
    park?: (lastError: string, attempts: number) => Promise<void>,
  ): void {
    const abort = new AbortController();
    const work = () =>
      job(abort.signal).catch((error: unknown) => {
        if (abort.signal.aborted) return false;
        throw error;
      });
    const done = this.failures
      .run(id, work, park)
      .then((outcome) =>
        this.afterJob(outcome.status === 'done' ? outcome.value : outcome.status === 'parked'),
      )
      .finally(() => this.running.delete(id));
    this.running.set(id, { abort, done });
  }

  /**
   * After a job, look again once the event loop has turned, and only when the job did work. A job that found
   * nothing to do (its read model was behind its stream) must not look again at once: on PGlite, whose
   * statements resolve without a macrotask, tick → job → tick would starve every timer, projections included,
   * and the read model that would end the loop could never catch up.
   */
  protected afterJob(worked: boolean): void {
    if (worked) setImmediate(() => this.nudge());
  }

  get active(): number {
    return this.running.size;
  }

  protected abstract tick(): Promise<void>;
}
