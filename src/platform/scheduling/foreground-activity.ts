/**
 * Requests in flight come first. Projections run in the same process and on the same database as the requests
 * whose appends they follow; on a small machine their batches competed with the very search that appended
 * (its reservation woke them while its query ran). A projection about to apply a batch waits until no request
 * is in flight, or `maxDeferMs` at most, so it always progresses. A wait for projections (read-your-writes) is
 * parked meanwhile: it does not hold them back.
 *
 * Requests and parked waits are counted apart and only compared, so a wait parked outside any request (a
 * sweeper's) can never leave a request counted after it ended.
 *
 * `lingerMs` (ADR 0131): quiet means no request for that long, not only at this instant. Back-to-back requests
 * of one client leave gaps of a millisecond or two between them; without the linger, every gap let the
 * projections read and write the last request's few events on their own (a page read and a write transaction
 * per request). With it they apply several requests' events together, at most `maxDeferMs` late. A parked wait
 * (someone reads their own writes) cuts the linger short.
 */
export class ForegroundActivity {
  private active = 0;
  private parkedWaits = 0;
  private readonly quietWaiters = new Set<() => void>();
  private readonly lingerMs: number;
  /** When the last request in flight ended (performance.now()); long ago at first. */
  private quietSince = Number.NEGATIVE_INFINITY;
  private lingerTimer: NodeJS.Timeout | undefined;

  constructor(options: { readonly lingerMs?: number } = {}) {
    this.lingerMs = options.lingerMs ?? 0;
  }

  /** A request started; call the returned function once when it ends (extra calls do nothing). */
  enter(): () => void {
    this.active += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.active -= 1;
      if (this.inFlight === 0) this.quietSince = performance.now();
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

  /** Resolves when no request is in flight (for lingerMs, unless a wait is parked), or after `maxDeferMs`. */
  quiet(maxDeferMs: number): Promise<void> {
    if (maxDeferMs <= 0 || this.settledQuiet()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.quietWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, maxDeferMs);
      this.quietWaiters.add(done);
      this.wakeIfQuiet();
    });
  }

  /** No request in flight, and none for lingerMs or someone waiting for the projections. */
  private settledQuiet(): boolean {
    if (this.inFlight > 0) return false;
    return this.parkedWaits > 0 || performance.now() - this.quietSince >= this.lingerMs;
  }

  private wakeIfQuiet(): void {
    if (this.inFlight > 0 || this.quietWaiters.size === 0) return;
    if (!this.settledQuiet()) {
      // Quiet, but not for long enough yet: look again when the linger ends (a request may come first).
      this.lingerTimer ??= setTimeout(
        () => {
          this.lingerTimer = undefined;
          this.wakeIfQuiet();
        },
        Math.max(1, this.lingerMs - (performance.now() - this.quietSince)),
      );
      return;
    }
    const waiters = [...this.quietWaiters];
    this.quietWaiters.clear();
    for (const wake of waiters) wake();
  }
}
