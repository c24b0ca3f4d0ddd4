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
}

/**
 * A pool that looks for work on an interval (and when nudged) and runs leased jobs in this process: exports,
 * exposure refreshes. Looks never overlap; `stop` aborts the running jobs (their leases lapse, a later start or
 * another instance takes them over) and waits for them. What a look does is the subclass's `tick`.
 */
export abstract class PollingWorkerPool {
  /** Running jobs by id: the subclass adds and removes them. */
  protected readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  protected stopped = true;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  protected constructor(
    private readonly pool: PollingWorkerPoolOptions,
    private readonly name: string,
  ) {}

  start(): void {
    if (this.pool.concurrency <= 0 || !this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => this.nudge(), this.pool.pollIntervalMs ?? 250);
    this.timer.unref();
    this.nudge();
  }

  /** Stops taking jobs and interrupts the running ones (their leases run out; a later start takes them over). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    for (const job of this.running.values()) job.abort.abort();
    await this.ticking?.catch(() => undefined);
    await Promise.all([...this.running.values()].map((job) => job.done.catch(() => undefined)));
  }

  /** Looks for work now (after a request, instead of waiting for the next poll). */
  nudge(): void {
    if (this.stopped || this.ticking) return;
    this.ticking = this.tick()
      .catch((error: unknown) => this.pool.log?.('error', `${this.name} tick failed`, { err: String(error) }))
      .finally(() => (this.ticking = undefined));
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
