import { describeThrown, truncate } from '../errors/describe-thrown.js';
import type { BackgroundChecks, FailingItem } from '../health/background-checks.js';
import type { ReadDocument, ReadStore } from '../read-store/read-store.port.js';
import { isStorageUnavailable } from '../storage/storage-unavailable.js';

export type WorkerLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

/** Where a background worker reports (the service context provides all three). */
export interface WorkerEnvironment {
  readonly background?: BackgroundChecks;
  /** Failure records are kept here, so backoff and parking survive a restart. */
  readonly readStore?: ReadStore;
  readonly log?: WorkerLog;
}

export interface RetryPolicy {
  /** Wait after the first failure of an item; doubled after each further one. */
  readonly baseDelayMs: number;
  /** The longest wait between two tries of an item. */
  readonly maxDelayMs: number;
  /**
   * An item that has a park step is parked after this many failures of its own in a row: a failure because
   * storage could not be reached (isStorageUnavailable) backs off and shows in health, but never parks an item.
   */
  readonly parkAfter: number;
  /** /health/ready shows the worker failing once its loop, or one item, failed this many times in a row. */
  readonly unhealthyAfter: number;
  /**
   * A record whose item was not tried again this long after its retry time is dropped: the item no longer
   * needs work (finished, cancelled, gone). Longer than any pass interval.
   */
  readonly forgetAfterMs: number;
}

/** See docs/adr/0017-background-workers.md. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 5 * 60_000,
  parkAfter: 5,
  unhealthyAfter: 3,
  forgetAfterMs: 10 * 60_000,
};

/** Longest error text kept in a failure record. */
const MAX_ERROR_LENGTH = 300;

/**
 * The failure records of every worker, in the read store. Not a projection: workers write it directly (it is not
 * built from the event log), so `projections rebuild` and `verify` never touch it and must not; losing it only
 * resets backoff. Operators read it with `npm run cli -- workers status`.
 */
export const WORKER_FAILURES_COLLECTION = 'worker_failures';
const WORKER_FAILURES_INDEXES = [{ name: 'by_worker', fields: [['worker', 1]] }] as const;

/** Every worker's failure records, most failing first within each worker (what `workers status` shows). */
export async function readWorkerFailures(readStore: ReadStore): Promise<WorkerFailureDocument[]> {
  await readStore.ensureCollection(WORKER_FAILURES_COLLECTION, WORKER_FAILURES_INDEXES);
  return readStore.collection<WorkerFailureDocument>(WORKER_FAILURES_COLLECTION).find(
    {},
    {
      sort: [
        ['worker', 1],
        ['attempts', -1],
        ['first_failed_at', 1],
      ],
      limit: 10_000,
    },
  );
}

/** The failure record of one item of one worker. */
export interface WorkerFailureDocument extends ReadDocument {
  readonly worker: string;
  readonly item: string;
  readonly attempts: number;
  /** The failures that count towards parking (storage unavailability left out); absent in older records. */
  readonly own_failures?: number;
  readonly first_failed_at: string;
  readonly last_failed_at: string;
  readonly last_error: string;
  readonly retry_at: string;
}

export type ItemOutcome<T> =
  | { readonly status: 'done'; readonly value: T }
  /** Failed (recorded); tried again after its backoff. */
  | { readonly status: 'failed'; readonly attempts: number }
  /** Failed too often: its park step recorded the failure on the item, which is done. */
  | { readonly status: 'parked' }
  /** Backing off: not tried now. */
  | { readonly status: 'waiting' };

interface Failure {
  /** Failures in a row, whatever their cause: the backoff and health follow these. */
  attempts: number;
  /** Of those, the item's own (not storage unavailability): parking follows these. */
  ownFailures: number;
  firstFailedAt: number;
  lastFailedAt: number;
  lastError: string;
  retryAt: number;
}

/**
 * How one background worker survives the items it fails on: no item can stop its loop. A failing item gets a
 * failure record (kept in the read store), is logged once with its id (its first failure, then once more when it
 * is parked or recovers), and waits with capped exponential backoff before the next try; an item with a park
 * step is parked after `parkAfter` failures of its own (the step records the failure on the item itself, e.g.
 * fails the job on its stream); storage that cannot be reached is nobody's item's fault, so an outage backs off
 * and shows, but parks nothing. The worker's loop (one look for work) is tracked the same way. /health/ready shows the worker
 * failing while its loop or one item has failed `unhealthyAfter` times in a row.
 */
export class WorkerFailures {
  readonly policy: RetryPolicy;
  private readonly failures = new Map<string, Failure>();
  private loop: { failures: number; since: number; lastError: string } | null = null;
  private loaded: Promise<void> | undefined;
  /** The store refused a failure record: said once until it takes one again. */
  private storeWarned = false;

  constructor(
    /** The worker's name in logs and in /health/ready (`export-pool`, `reservation-sweeper`…). */
    readonly worker: string,
    private readonly environment: WorkerEnvironment = {},
    policy: Partial<RetryPolicy> = {},
    /** Backoff is wall-clock time, whatever clock the domain runs on. */
    private readonly now: () => number = Date.now,
  ) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...policy };
    this.report();
  }

  /** Items waiting for their next try: a look for work leaves them out. */
  async waiting(): Promise<string[]> {
    await this.load();
    await this.forgetStale();
    const now = this.now();
    return [...this.failures].filter(([, failure]) => failure.retryAt > now).map(([item]) => item);
  }

  /** Items with a failure record (waiting or due). */
  async tracked(): Promise<string[]> {
    await this.load();
    await this.forgetStale();
    return [...this.failures.keys()];
  }

  /** Drops the records of items `stillNeeded` does not name (it gets the tracked items, answers those to keep). */
  async keepOnly(stillNeeded: (items: string[]) => Promise<Iterable<string>>): Promise<void> {
    const tracked = await this.tracked();
    if (tracked.length === 0) return;
    const keep = new Set(await stillNeeded(tracked));
    for (const item of tracked) if (!keep.has(item)) await this.forget(item);
  }

  /**
   * Runs one item's work. Never throws: a failure is recorded and the item waits; with `park`, an item that
   * failed `parkAfter` times in a row for reasons of its own (not storage unavailability) is parked instead of
   * being tried again; `park` gets the last error and that count.
   */
  async run<T>(
    item: string,
    work: () => Promise<T>,
    park?: (lastError: string, attempts: number) => Promise<void>,
  ): Promise<ItemOutcome<T>> {
    await this.load();
    const known = this.failures.get(item);
    if (known && known.retryAt > this.now()) return { status: 'waiting' };
    if (known && park && known.ownFailures >= this.policy.parkAfter) return this.park(item, known, park);
    let value: T;
    try {
      value = await work();
    } catch (error) {
      const failure = await this.failed(item, error);
      if (park && failure.ownFailures >= this.policy.parkAfter) return this.park(item, failure, park);
      return { status: 'failed', attempts: failure.attempts };
    }
    if (known) {
      this.environment.log?.('info', `${this.worker}: ${item} succeeded again`, {
        worker: this.worker,
        item,
        failedAttempts: known.attempts,
      });
      await this.forget(item);
    }
    return { status: 'done', value };
  }

  /** Drops an item's failure record (it no longer needs work: finished, cancelled, deleted). */
  async forget(item: string): Promise<void> {
    if (!this.failures.delete(item)) return;
    this.report();
    await this.persist(() => this.collection()!.delete(this.recordId(item)));
  }

  /** One look for work went through. */
  passSucceeded(): void {
    if (this.loop === null) return;
    this.environment.log?.('info', `${this.worker} works again`, {
      worker: this.worker,
      failedPasses: this.loop.failures,
    });
    this.loop = null;
    this.report();
  }

  /** One look for work failed as a whole (storage unreachable…): logged once per streak. */
  passFailed(error: unknown): void {
    const message = describe(error);
    if (this.loop === null) {
      this.loop = { failures: 0, since: this.now(), lastError: message };
      this.environment.log?.('error', `${this.worker} failed; it keeps trying`, {
        worker: this.worker,
        err: message,
      });
    }
    this.loop.failures += 1;
    this.loop.lastError = message;
    this.report();
  }

  private async forgetStale(): Promise<void> {
    const now = this.now();
    for (const [item, failure] of [...this.failures]) {
      if (failure.retryAt + this.policy.forgetAfterMs < now) await this.forget(item);
    }
  }

  private async park(
    item: string,
    failure: Failure,
    park: (lastError: string, attempts: number) => Promise<void>,
  ): Promise<ItemOutcome<never>> {
    try {
      await park(failure.lastError, failure.ownFailures);
    } catch (error) {
      // The park step itself failed: it is tried again after the backoff.
      const again = await this.failed(item, error);
      return { status: 'failed', attempts: again.attempts };
    }
    this.environment.log?.('error', `${this.worker}: ${item} parked after ${failure.ownFailures} failures`, {
      worker: this.worker,
      item,
      attempts: failure.ownFailures,
      err: failure.lastError,
    });
    await this.forget(item);
    return { status: 'parked' };
  }

  private async failed(item: string, error: unknown): Promise<Failure> {
    const now = this.now();
    const previous = this.failures.get(item);
    const attempts = (previous?.attempts ?? 0) + 1;
    const delay = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** (attempts - 1));
    const failure: Failure = {
      attempts,
      // Storage that cannot be reached is no fault of the item: it must not be parked for an outage.
      ownFailures: (previous?.ownFailures ?? 0) + (isStorageUnavailable(error) ? 0 : 1),
      firstFailedAt: previous?.firstFailedAt ?? now,
      lastFailedAt: now,
      lastError: describe(error),
      retryAt: now + delay,
    };
    this.failures.set(item, failure);
    if (attempts === 1) {
      this.environment.log?.('warn', `${this.worker}: ${item} failed; retried with backoff`, {
        worker: this.worker,
        item,
        err: failure.lastError,
      });
    }
    this.report();
    await this.persist(() =>
      this.collection()!.upsert({
        id: this.recordId(item),
        worker: this.worker,
        item,
        attempts,
        own_failures: failure.ownFailures,
        first_failed_at: iso(failure.firstFailedAt),
        last_failed_at: iso(now),
        last_error: failure.lastError,
        retry_at: iso(failure.retryAt),
      }),
    );
    return failure;
  }

  private report(): void {
    const background = this.environment.background;
    if (!background) return;
    const threshold = this.policy.unhealthyAfter;
    const items = [...this.failures]
      .sort(([, a], [, b]) => b.attempts - a.attempts || a.firstFailedAt - b.firstFailedAt)
      .map(([id, failure]): FailingItem => ({
        id,
        consecutive_failures: failure.attempts,
        last_error: failure.lastError,
        failing_since: iso(failure.firstFailedAt),
        retry_at: iso(failure.retryAt),
      }));
    const unhealthyItems = [...this.failures.values()].filter((failure) => failure.attempts >= threshold);
    const loopUnhealthy = this.loop !== null && this.loop.failures >= threshold;
    if (!loopUnhealthy && unhealthyItems.length === 0) {
      background.report(this.worker, {
        ok: true,
        ...(items.length > 0 ? { failing_items: items.slice(0, 5), failing_item_count: items.length } : {}),
      });
      return;
    }
    const latest = [...this.failures.values()].sort((a, b) => b.lastFailedAt - a.lastFailedAt)[0];
    const since = Math.min(
      ...(loopUnhealthy ? [this.loop!.since] : []),
      ...unhealthyItems.map((failure) => failure.firstFailedAt),
    );
    const worstItem = items[0];
    const consecutive = Math.max(
      loopUnhealthy ? this.loop!.failures : 0,
      worstItem?.consecutive_failures ?? 0,
    );
    const lastError =
      loopUnhealthy && (!latest || this.loop!.since >= latest.lastFailedAt)
        ? this.loop!.lastError
        : (latest?.lastError ?? this.loop?.lastError ?? '');
    background.report(this.worker, {
      ok: false,
      detail: loopUnhealthy
        ? `${this.worker} failed ${this.loop!.failures} times in a row; it keeps trying`
        : `${unhealthyItems.length} item(s) failed ${threshold} or more times in a row (worst: ${worstItem!.id}, ` +
          `${worstItem!.consecutive_failures} times); the others go on`,
      failing_since: iso(since),
      consecutive_failures: consecutive,
      last_error: lastError,
      failing_items: items.slice(0, 5),
      failing_item_count: items.length,
    });
  }

  private collection() {
    return this.environment.readStore?.collection<WorkerFailureDocument>(WORKER_FAILURES_COLLECTION);
  }

  private recordId(item: string): string {
    return `${this.worker}:${item}`;
  }

  /** Loads this worker's failure records once (a restart keeps the backoff of the items that kept failing). */
  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const store = this.environment.readStore;
      if (!store) return;
      try {
        await store.ensureCollection(WORKER_FAILURES_COLLECTION, WORKER_FAILURES_INDEXES);
        const records = await this.collection()!.find({ worker: this.worker }, { limit: 10_000 });
        for (const record of records) {
          if (this.failures.has(record.item)) continue;
          this.failures.set(record.item, {
            attempts: record.attempts,
            ownFailures: record.own_failures ?? record.attempts,
            firstFailedAt: Date.parse(record.first_failed_at),
            lastFailedAt: Date.parse(record.last_failed_at),
            lastError: record.last_error,
            retryAt: Date.parse(record.retry_at),
          });
        }
        this.report();
      } catch (error) {
        this.loaded = undefined; // loaded again on the next look
        this.storeFailed(error);
      }
    })();
    return this.loaded;
  }

  /** Failure records are a help, not a duty: a store that refuses one keeps it in memory only. */
  private async persist(write: () => Promise<unknown>): Promise<void> {
    if (!this.environment.readStore) return;
    try {
      await write();
      this.storeWarned = false;
    } catch (error) {
      this.storeFailed(error);
    }
  }

  private storeFailed(error: unknown): void {
    if (this.storeWarned) return;
    this.storeWarned = true;
    this.environment.log?.('warn', `${this.worker}: failure records are kept in memory only for now`, {
      worker: this.worker,
      err: describe(error),
    });
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A failure's error as recorded and logged: a readable line, kept short. */
function describe(error: unknown): string {
  return truncate(describeThrown(error), MAX_ERROR_LENGTH);
}
