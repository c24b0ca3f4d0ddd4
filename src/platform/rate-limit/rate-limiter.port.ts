/**
 * Rate limiting shared by every instance of the service that uses the same database: the state lives in the
 * database (PostgreSQL/PGlite or MongoDB), never in process memory, and every decision is one atomic write.
 *
 * Two capabilities:
 * - request rates (`consume`): the Generic Cell Rate Algorithm. A rule admits `limit` requests per
 *   `windowSeconds`, smoothly: a burst of up to `limit` requests is admitted at once, after which one more is
 *   admitted every `windowSeconds / limit`. Refused requests cost nothing. State per (rule, key) is one
 *   timestamp, the theoretical arrival time (TAT).
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

/** "`limit` requests per `windowSeconds`". `name` identifies the rule's state: keep it stable, unique per rule. */
export interface RateLimitRule {
  readonly name: string;
  /** Positive integer: the burst size and the number of requests per window. */
  readonly limit: number;
  /** Positive number of seconds (fractions allowed, microsecond resolution). */
  readonly windowSeconds: number;
}

export interface RateLimitDecision {
  readonly rule: RateLimitRule;
  readonly allowed: boolean;
  /** Requests still admitted right now (after this one when allowed). */
  readonly remaining: number;
  /** Integer ≥ 1 when refused (waiting that long admits one request), 0 when allowed. */
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
  /** Counts one request for `key` under `rule` (GCRA: smooth, burst up to `limit`), atomically across instances. */
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
// Shared by the adapters: validation and the GCRA arithmetic, in integer microseconds.

const MICROS_PER_SECOND = 1_000_000;

/**
 * GCRA parameters of a rule, in integer microseconds. The emission interval is rounded *up* to a whole
 * microsecond and the burst tolerance is exactly `limit` intervals, so a burst admits exactly `limit` requests
 * whatever the rounding; the effective window is longer than the declared one by less than `limit` µs (never
 * admits more than declared).
 */
export interface GcraParameters {
  /** Microseconds between two requests at the sustained rate. */
  readonly intervalMicros: number;
  /** `limit × intervalMicros`: a request is admitted when the TAT after it is at most now + this. */
  readonly burstMicros: number;
}

export function gcraParameters(rule: RateLimitRule): GcraParameters {
  assertName(rule.name);
  if (!Number.isSafeInteger(rule.limit) || rule.limit < 1) {
    throw new RangeError(`rate limit rule ${rule.name}: limit must be a positive integer`);
  }
  const windowMicros = Math.round(rule.windowSeconds * MICROS_PER_SECOND);
  if (!Number.isFinite(rule.windowSeconds) || windowMicros < 1) {
    throw new RangeError(`rate limit rule ${rule.name}: windowSeconds must be positive`);
  }
  const intervalMicros = Math.ceil(windowMicros / rule.limit);
  return { intervalMicros, burstMicros: intervalMicros * rule.limit };
}

/**
 * The decision, from the outcome of the atomic update: whether it admitted the request and the TAT it left.
 * Allowed: the TAT is the new one. Refused: the TAT is the unchanged stored one.
 */
export function gcraDecision(
  rule: RateLimitRule,
  parameters: GcraParameters,
  nowMicros: number,
  admitted: boolean,
  tatMicros: number,
): RateLimitDecision {
  const { intervalMicros, burstMicros } = parameters;
  if (admitted) {
    const remaining = Math.floor((nowMicros + burstMicros - tatMicros) / intervalMicros);
    return { rule, allowed: true, remaining: clamp(remaining, 0, rule.limit - 1), retryAfterSeconds: 0 };
  }
  const waitMicros = tatMicros + intervalMicros - burstMicros - nowMicros;
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
