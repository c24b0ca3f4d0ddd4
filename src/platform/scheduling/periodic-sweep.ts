/**
 * A pass that every instance runs on an interval (expiring reservations, deleting expired files, ending trials).
 * Passes never overlap in one process, a failed pass waits for the next tick, and `stop` waits for the pass in
 * flight. The work itself must be idempotent: other instances sweep too.
 */
export abstract class PeriodicSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  protected constructor(private readonly defaultIntervalMs: number) {}

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
    this.running ??= this.sweep().finally(() => (this.running = undefined));
    return this.running;
  }

  protected abstract sweep(): Promise<number>;
}
