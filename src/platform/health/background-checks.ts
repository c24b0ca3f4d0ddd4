/**
 * Background work that can fail while the service keeps serving (start-up recovery, sweepers) reports its last
 * outcome here; /health/ready shows it under `background`. It does not decide readiness: taking an instance
 * out of rotation would not finish the work, and every other request is still answered.
 */
export interface BackgroundCheck {
  readonly ok: boolean;
  readonly detail?: string;
  /** When the check last changed from ok to failing (ISO), while it fails. */
  readonly failing_since?: string;
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

  get(name: string): BackgroundCheck | undefined {
    return this.checks.get(name);
  }

  all(): Record<string, BackgroundCheck> {
    return Object.fromEntries([...this.checks].sort(([a], [b]) => a.localeCompare(b)));
  }
}
