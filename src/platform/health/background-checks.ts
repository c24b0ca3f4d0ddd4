/**
 * Background work that can fail while the service keeps serving (start-up recovery, worker pools, sweepers)
 * reports its state here; /health/ready shows it under `background`, as `publicView()` (it is public: no ids,
 * no error text; operators read the items with `workers status`). It does not decide readiness: taking an
 * instance out of rotation would not finish the work, and every other request is still answered.
 */
export interface BackgroundCheck {
  readonly ok: boolean;
  readonly detail?: string;
  /** When the check last changed from ok to failing (ISO), while it fails. */
  readonly failing_since?: string;
  /** Failures in a row of the worker's loop, or of its most failing item. */
  readonly consecutive_failures?: number;
  readonly last_error?: string;
  /** The items a worker keeps failing on (at most a few, most failing first). */
  readonly failing_items?: readonly FailingItem[];
  /** How many items have a failure record (all of them, not only the few above). */
  readonly failing_item_count?: number;
}

/** What /health/ready shows anyone of a check: whether it fails, since when, how often, how many items. */
export interface PublicBackgroundCheck {
  readonly ok: boolean;
  readonly failing_since?: string;
  readonly consecutive_failures?: number;
  readonly failing_item_count?: number;
}

export interface FailingItem {
  readonly id: string;
  readonly consecutive_failures: number;
  readonly last_error: string;
  readonly failing_since: string;
  /** When it is tried again. */
  readonly retry_at: string;
}

export class BackgroundChecks {
  private readonly checks = new Map<string, BackgroundCheck>();

  pass(name: string): void {
    this.checks.set(name, { ok: true });
  }

  fail(name: string, detail: string, at: Date): void {
    const since = this.checks.get(name)?.failing_since ?? at.toISOString();
    this.checks.set(name, { ok: false, detail, failing_since: since });
  }

  /** Sets a check as computed by its worker (see WorkerFailures). */
  report(name: string, check: BackgroundCheck): void {
    this.checks.set(name, check);
  }

  get(name: string): BackgroundCheck | undefined {
    return this.checks.get(name);
  }

  all(): Record<string, BackgroundCheck> {
    return Object.fromEntries([...this.checks].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Every check as the public /health/ready shows it: no item ids, no error text, no detail. */
  publicView(): Record<string, PublicBackgroundCheck> {
    return Object.fromEntries(
      Object.entries(this.all()).map(([name, check]) => [
        name,
        {
          ok: check.ok,
          ...(check.failing_since !== undefined ? { failing_since: check.failing_since } : {}),
          ...(check.consecutive_failures !== undefined
            ? { consecutive_failures: check.consecutive_failures }
            : {}),
          ...(check.failing_item_count !== undefined ? { failing_item_count: check.failing_item_count } : {}),
        },
      ]),
    );
  }
}
