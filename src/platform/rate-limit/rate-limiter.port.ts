/**
 * Rate limiting shared by every instance of the service that uses the same database: the state lives in the
 * database (PostgreSQL/PGlite or MongoDB), never in process memory, and every decision is one atomic write.
 *
 * Two capabilities:
 * - request rates (`consume`): a rolling window. A request is admitted when fewer than `limit` requests were
 *   admitted in the `windowSeconds` before it, so no window of that length, wherever it starts, ever holds more
 *   than `limit` admissions ("60 requests per minute" means at most 60 in any 60 seconds). A token bucket (GCRA)
 *   does not hold that: a full bucket plus its refill lets up to 2 × limit − 1 through within one window.
 *   Refused requests cost nothing. State per (rule, key) is the admission times still inside the window (at most
 *   `limit` of them).
 * - concurrency (`acquireSlot`): at most `max` holders per (rule, key) at any time; a holder that neither
 *   releases nor renews within `leaseSeconds` loses its slot (a crashed instance cannot leak slots).
 *
 * Time: adapters take "now" from the injected Clock and pass it to the database as a parameter; they never use
 * the database server's clock. Tests move time with a ManualClock; in production every instance uses the
 * system clock, so instances must keep their clocks synchronised (NTP): an instance whose clock runs δ ahead
 * can admit up to δ worth of refill early, never more.
 *
 * The HTTP layer turns the ServiceError thrown by `enforce` / `requireSlot` into 429 with an integer
 * `Retry-After` (seconds).
 */
import { ServiceError } from '../errors/service-error.js';

/**
 * "`limit` requests per `windowSeconds`", over any window of that length. `name` identifies the rule's state: keep
 * it stable, unique per rule.
 */
export interface RateLimitRule {
  readonly name: string;
  /** Positive integer: the most requests admitted within any window. */
  readonly limit: number;
  /** Positive number of seconds (fractions allowed, microsecond resolution). */
  readonly windowSeconds: number;
}

export interface RateLimitDecision {
  readonly rule: RateLimitRule;
  readonly allowed: boolean;
  /** Requests still admitted right now (after this one when allowed). */
  readonly remaining: number;
  /** Integer ≥ 1 when refused (until the oldest admission leaves the window: waiting that long admits one), 0 when allowed. */
  readonly retryAfterSeconds: number;
}

/** "At most `max` concurrent holders per key"; a slot not released or renewed within `leaseSeconds` lapses. */
export interface ConcurrencyRule {
  readonly name: string;
  /** Positive integer. */
  readonly max: number;
  /** Positive number of seconds. */
  readonly leaseSeconds: number;
}

export interface SlotLease {
  readonly acquired: true;
  readonly rule: ConcurrencyRule;
  readonly slotId: string;
  /** Frees the slot. Idempotent; harmless after the lease lapsed (never frees another holder's slot). */
  release(): Promise<void>;
  /** Extends the lease by `leaseSeconds` from now; false when the lease already lapsed or was released. */
  renew(): Promise<boolean>;
}

export interface SlotRefusal {
  readonly acquired: false;
  readonly rule: ConcurrencyRule;
  /**
   * Integer ≥ 1: until the soonest lease of the current holders lapses, so a slot is free by then unless its
   * holder renews. Holders usually release sooner.
   */
  readonly retryAfterSeconds: number;
}

export type SlotAttempt = SlotLease | SlotRefusal;

export interface RateLimiter {
  /**
   * Counts one request for `key` under `rule`, atomically across instances: admitted when fewer than `limit` were
   * admitted in the `windowSeconds` before it (never more than `limit` in any window).
   */
  consume(rule: RateLimitRule, key: string): Promise<RateLimitDecision>;
  /** Takes one of `rule.max` slots for `key`, atomically across instances, or says when to retry. */
  acquireSlot(rule: ConcurrencyRule, key: string): Promise<SlotAttempt>;
  /** Creates the tables/collections (idempotent; safe when instances start together). */
  init(): Promise<void>;
  /**
   * Deletes state that no longer affects any decision (buckets that refilled, lapsed slots); returns how many
   * rows/documents went. Optional housekeeping: stale state never changes a decision.
   */
  prune(): Promise<number>;
}

export const RATE_LIMITER = Symbol('RateLimiter');

/** Throws `rate_limited` (429, Retry-After) when the decision refused the request. */
export function enforce(decision: RateLimitDecision, message: string): void {
  if (decision.allowed) return;
  throw new ServiceError(
    'rate_limited',
    message,
    {
      rule: decision.rule.name,
      limit: decision.rule.limit,
      window_seconds: decision.rule.windowSeconds,
      retry_after_seconds: decision.retryAfterSeconds,
    },
    decision.retryAfterSeconds,
  );
}

/** Returns the lease, or throws `rate_limited` (429, Retry-After) when no slot was free. */
export function requireSlot(attempt: SlotAttempt, message: string): SlotLease {
  if (attempt.acquired) return attempt;
  throw new ServiceError(
    'rate_limited',
    message,
    {
      rule: attempt.rule.name,
      max_concurrent: attempt.rule.max,
      retry_after_seconds: attempt.retryAfterSeconds,
    },
    attempt.retryAfterSeconds,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Shared by the adapters: validation and the rolling-window arithmetic, in integer microseconds.

const MICROS_PER_SECOND = 1_000_000;

/** A rule's window in integer microseconds. */
export interface WindowParameters {
  readonly windowMicros: number;
}

export function windowParameters(rule: RateLimitRule): WindowParameters {
  assertName(rule.name);
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new RangeError(`rate limit rule ${rule.name}: limit must be a positive integer`);
  }
  const windowMicros = Math.round(rule.windowSeconds * MICROS_PER_SECOND);
  if (!Number.isFinite(rule.windowSeconds) || windowMicros < 1) {
    throw new RangeError(`rate limit rule ${rule.name}: windowSeconds must be positive`);
  }
  return { windowMicros };
}

/**
 * The decision, from the outcome of the atomic update: whether it admitted the request, how many admissions are
 * now inside the window (this one included when admitted) and the oldest of them. An admission at `a` counts
 * while `now − window < a`: windows are half-open, so one that leaves at `a + window` frees its place then.
 */
export function windowDecision(
  rule: RateLimitRule,
  parameters: WindowParameters,
  nowMicros: number,
  admitted: boolean,
  liveAdmissions: number,
  oldestMicros: number | null,
): RateLimitDecision {
  if (admitted) {
    return {
      rule,
      allowed: true,
      remaining: clamp(rule.limit - liveAdmissions, 0, rule.limit - 1),
      retryAfterSeconds: 0,
    };
  }
  const waitMicros = (oldestMicros ?? nowMicros) + parameters.windowMicros - nowMicros;
  return { rule, allowed: false, remaining: 0, retryAfterSeconds: ceilSeconds(waitMicros) };
}

export function assertConcurrencyRule(rule: ConcurrencyRule): void {
  assertName(rule.name);
  if (!Number.isSafeInteger(rule.max) || rule.max < 1) {
    throw new RangeError(`concurrency rule ${rule.name}: max must be a positive integer`);
  }
  if (!Number.isFinite(rule.leaseSeconds) || Math.round(rule.leaseSeconds * MICROS_PER_SECOND) < 1) {
    throw new RangeError(`concurrency rule ${rule.name}: leaseSeconds must be positive`);
  }
}

export function assertKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0)
    throw new RangeError('a rate limit key must be a non-empty string');
}

export function leaseMicros(rule: ConcurrencyRule): number {
  return Math.round(rule.leaseSeconds * MICROS_PER_SECOND);
}

export function micros(date: Date): number {
  return date.getTime() * 1_000;
}

/** Whole seconds, rounded up, at least 1: the Retry-After of a refusal. */
export function ceilSeconds(waitMicros: number): number {
  return Math.max(1, Math.ceil(waitMicros / MICROS_PER_SECOND));
}

function assertName(name: string): void {
  if (typeof name !== 'string' || name.length === 0) throw new RangeError('a rate limit rule needs a name');
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
