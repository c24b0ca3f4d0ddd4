/**
 * Requests in flight come first. Projections run in the same process and on the same database as the requests
 * whose appends they follow; on a small machine their batches competed with the very search that appended
 * (its reservation woke them while its query ran). A projection about to apply a batch waits until no request
 * is in flight, or `maxDeferMs` at most, so it always progresses. A request waiting for its own projections
 * (read-your-writes) is parked meanwhile: it does not hold them back.
 */
export class ForegroundActivity {
  private active = 0;
  private quietWaiters = new Set<() => void>();

  /** A request started; call the returned function once when it ends (extra calls do nothing). */
  enter(): () => void {
    this.active += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.leave();
    };
  }

  /** Runs `work` (a wait on projections) without counting its request as in flight. */
  async parked<T>(work: () => Promise<T>): Promise<T> {
    const wasActive = this.active > 0;
    if (wasActive) this.leave();
    try {
      return await work();
    } finally {
      if (wasActive) this.active += 1;
    }
  }

  get inFlight(): number {
    return this.active;
  }

  /** Resolves when no request is in flight, or after `maxDeferMs`. */
  quiet(maxDeferMs: number): Promise<void> {
    if (this.active === 0 || maxDeferMs <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.quietWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxDeferMs);
      this.quietWaiters.add(done);
    });
  }

  private leave(): void {
    this.active = Math.max(0, this.active - 1);
    if (this.active > 0 || this.quietWaiters.size === 0) return;
    const waiters = [...this.quietWaiters];
    this.quietWaiters.clear();
    for (const wake of waiters) wake();
  }
}
