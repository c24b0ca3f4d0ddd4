/**
 * Requests in flight come first. Projections run in the same process and on the same database as the requests
 * whose appends they follow; on a small machine their batches competed with the very search that appended
 * (its reservation woke them while its query ran). A projection about to apply a batch waits until no request
 * is in flight, or `maxDeferMs` at most, so it always progresses. A wait for projections (read-your-writes) is
 * parked meanwhile: it does not hold them back.
 *
 * Requests and parked waits are counted apart and only compared, so a wait parked outside any request (a
 * sweeper's) can never leave a request counted after it ended.
 */
export class ForegroundActivity {
  private active = 0;
  private parkedWaits = 0;
  private readonly quietWaiters = new Set<() => void>();

  /** A request started; call the returned function once when it ends (extra calls do nothing). */
  enter(): () => void {
    this.active += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.active -= 1;
      this.wakeIfQuiet();
    };
  }

  /** Runs `work` (a wait on projections) without counting one request as in flight meanwhile. */
  async parked<T>(work: () => Promise<T>): Promise<T> {
    this.parkedWaits += 1;
    this.wakeIfQuiet();
    try {
      return await work();
    } finally {
      this.parkedWaits -= 1;
    }
  }

  /** Requests in flight that are not waiting for projections. */
  get inFlight(): number {
    return Math.max(0, this.active - this.parkedWaits);
  }

  /** Resolves when no request is in flight, or after `maxDeferMs`. */
  quiet(maxDeferMs: number): Promise<void> {
    if (this.inFlight === 0 || maxDeferMs <= 0) return Promise.resolve();
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

  private wakeIfQuiet(): void {
    if (this.inFlight > 0 || this.quietWaiters.size === 0) return;
    const waiters = [...this.quietWaiters];
    this.quietWaiters.clear();
    for (const wake of waiters) wake();
  }
}
