/**
 * The RateLimiter contract, adapter-neutral: every adapter's test file calls rateLimiterContract with a
 * factory. One limiter (and one ManualClock) per suite; every test uses its own rule names and keys, so the
 * cases are independent of each other and of the order they run in.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { ServiceError } from '../../src/platform/errors/service-error.js';
import {
  enforce,
  requireSlot,
  type ConcurrencyRule,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRule,
  type SlotAttempt,
  type SlotLease,
} from '../../src/platform/rate-limit/rate-limiter.port.js';

/** The most admissions any window of `windowMs` holds (windows are half-open: (t − windowMs, t]). */
export function mostInAnyWindow(admittedAt: readonly number[], windowMs: number): number {
  const times = [...admittedAt].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while (times[first]! <= times[last]! - windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

export interface RateLimiterUnderTest {
  readonly limiter: RateLimiter;
  /**
   * Another limiter on the same database through its own connection pool / client, as a second instance of
   * the service would have; initialized, using the same clock. Disposed with the suite.
   */
  openAnother(): Promise<RateLimiter>;
  dispose(): Promise<void>;
}

export function rateLimiterContract(
  label: string,
  open: (clock: ManualClock) => Promise<RateLimiterUnderTest>,
): void {
  describe(`RateLimiter contract: ${label}`, () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));
    let underTest: RateLimiterUnderTest | undefined;
    let sequence = 0;

    beforeAll(async () => {
      underTest = await open(clock);
    });

    afterAll(async () => {
      await underTest?.dispose();
    });

    const limiter = (): RateLimiter => {
      if (!underTest) throw new Error('the rate limiter under test did not open');
      return underTest.limiter;
    };

    /** A rule name no other test uses. */
    const fresh = (name: string): string => `t${(sequence += 1)}_${name}`;

    const allowedOf = (decisions: readonly RateLimitDecision[]): RateLimitDecision[] =>
      decisions.filter((decision) => decision.allowed);

    const consumeMany = (rule: RateLimitRule, key: string, count: number, on = limiter()) =>
      Promise.all(Array.from({ length: count }, () => on.consume(rule, key)));

    const leasesOf = (attempts: readonly SlotAttempt[]): SlotLease[] =>
      attempts.filter((attempt): attempt is SlotLease => attempt.acquired);

    describe('request rates (rolling window)', () => {
      it('admits exactly `limit` of a concurrent burst of 2 × limit', async () => {
        const rule: RateLimitRule = { name: fresh('burst'), limit: 5, windowSeconds: 60 };
        const decisions = await consumeMany(rule, 'account-1', 10);
        const allowed = allowedOf(decisions);
        expect(allowed).toHaveLength(5);
        expect(allowed.map((decision) => decision.remaining).sort()).toEqual([0, 1, 2, 3, 4]);
        for (const decision of allowed) expect(decision.retryAfterSeconds).toBe(0);
        for (const decision of decisions.filter((d) => !d.allowed)) {
          expect(decision.remaining).toBe(0);
          // The burst leaves the window 60 s after it was admitted.
          expect(decision.retryAfterSeconds).toBe(60);
          expect(decision.rule).toEqual(rule);
        }
      });

      it('never more than `limit` in any window: a full burst and then a request every second admit `limit` per window', async () => {
        // The vulnerability-enrichment limit: 60 per rolling minute. A token bucket lets a full bucket plus its
        // refill (up to 2 × limit − 1) through within one window; a rolling window never does.
        const rule: RateLimitRule = { name: fresh('no-refill-burst'), limit: 60, windowSeconds: 60 };
        const start = clock.now().getTime();
        const admittedAt: number[] = [];
        expect(allowedOf(await consumeMany(rule, 'acct', 60))).toHaveLength(60);
        admittedAt.push(...Array.from({ length: 60 }, () => start));
        for (let second = 1; second <= 150; second++) {
          clock.advance(1_000);
          if ((await limiter().consume(rule, 'acct')).allowed) admittedAt.push(clock.now().getTime());
        }
        expect(mostInAnyWindow(admittedAt, 60_000)).toBe(60);
        // The first request after the burst is admitted when the burst leaves the window, exactly 60 s later.
        expect(admittedAt[60]).toBe(start + 60_000);
      });

      it('never more than `limit` in any window, whatever the arrival times (property)', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 5 }),
            fc.array(
              fc.record({
                gapMs: fc.oneof(
                  fc.integer({ min: 0, max: 2_000 }),
                  fc.constantFrom(0, 9_999, 10_000, 10_001),
                ),
                burst: fc.integer({ min: 1, max: 4 }),
              }),
              { minLength: 1, maxLength: 25 },
            ),
            async (limit, arrivals) => {
              const rule: RateLimitRule = { name: fresh('property'), limit, windowSeconds: 10 };
              const admittedAt: number[] = [];
              for (const { gapMs, burst } of arrivals) {
                clock.advance(gapMs);
                for (const decision of await consumeMany(rule, 'k', burst)) {
                  if (!decision.allowed) continue;
                  admittedAt.push(clock.now().getTime());
                  expect(decision.remaining).toBeLessThan(limit);
                }
              }
              expect(mostInAnyWindow(admittedAt, 10_000)).toBeLessThanOrEqual(limit);
            },
          ),
          { numRuns: 30 },
        );
      });

      it('answers a whole number of seconds, after which a request is admitted again', async () => {
        const rule: RateLimitRule = { name: fresh('retry'), limit: 3, windowSeconds: 10 };
        expect((await limiter().consume(rule, 'k')).allowed).toBe(true);
        clock.advance(3_500);
        expect(allowedOf(await consumeMany(rule, 'k', 2))).toHaveLength(2);

        const refused = await limiter().consume(rule, 'k');
        expect(refused.allowed).toBe(false);
        // The first admission leaves the window 6.5 s from now: rounded up.
        expect(refused.retryAfterSeconds).toBe(7);
        expect(Number.isInteger(refused.retryAfterSeconds)).toBe(true);

        clock.advance(6_000);
        const early = await limiter().consume(rule, 'k');
        expect(early).toMatchObject({ allowed: false, retryAfterSeconds: 1 });

        clock.advance(500);
        expect(await limiter().consume(rule, 'k')).toMatchObject({ allowed: true, remaining: 0 });
        // The two admitted at +3.5 s leave the window at +13.5 s, 3.5 s from now.
        expect(await limiter().consume(rule, 'k')).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
      });

      it('refused requests cost nothing, and a long idle gives back exactly `limit`', async () => {
        const rule: RateLimitRule = { name: fresh('idle'), limit: 4, windowSeconds: 2 };
        expect(allowedOf(await consumeMany(rule, 'k', 4))).toHaveLength(4);
        // Hammering while refused does not push the next admission further away.
        expect(allowedOf(await consumeMany(rule, 'k', 20))).toHaveLength(0);
        clock.advance(1_999);
        expect(allowedOf(await consumeMany(rule, 'k', 3))).toHaveLength(0);
        clock.advance(1);
        expect(allowedOf(await consumeMany(rule, 'k', 6))).toHaveLength(4);

        clock.advance(60_000); // long idle: the limit, and no more
        const decisions = await consumeMany(rule, 'k', 6);
        expect(allowedOf(decisions)).toHaveLength(4);
        expect(Math.max(...decisions.map((decision) => decision.remaining))).toBe(3);
      });

      it('honours fractional windows to the microsecond', async () => {
        const rule: RateLimitRule = { name: fresh('fraction'), limit: 7, windowSeconds: 1.5 };
        expect(allowedOf(await consumeMany(rule, 'k', 8))).toHaveLength(7);
        clock.advance(1_499);
        expect(allowedOf(await consumeMany(rule, 'k', 8))).toHaveLength(0);
        clock.advance(1);
        expect(allowedOf(await consumeMany(rule, 'k', 8))).toHaveLength(7);
      });

      it('keeps keys and rules independent', async () => {
        const rule: RateLimitRule = { name: fresh('keys'), limit: 2, windowSeconds: 60 };
        const other: RateLimitRule = { name: fresh('other'), limit: 2, windowSeconds: 60 };
        expect(allowedOf(await consumeMany(rule, 'a', 3))).toHaveLength(2);
        expect(allowedOf(await consumeMany(rule, 'b', 3))).toHaveLength(2);
        expect(allowedOf(await consumeMany(other, 'a', 3))).toHaveLength(2);
        // Keys that would collide under naive concatenation stay apart.
        const tricky: RateLimitRule = { name: fresh('x'), limit: 1, windowSeconds: 60 };
        expect((await limiter().consume(tricky, 'a:b')).allowed).toBe(true);
        expect((await limiter().consume(tricky, 'a:b ')).allowed).toBe(true);
        expect((await limiter().consume(tricky, 'a:b')).allowed).toBe(false);
      });

      it('shares the limit between two instances on the same database', async () => {
        const another = await underTest!.openAnother();
        const rule: RateLimitRule = { name: fresh('shared'), limit: 6, windowSeconds: 60 };
        const decisions = (
          await Promise.all([consumeMany(rule, 'acct', 6), consumeMany(rule, 'acct', 6, another)])
        ).flat();
        expect(allowedOf(decisions)).toHaveLength(6);
        expect((await another.consume(rule, 'acct')).allowed).toBe(false);
        expect((await limiter().consume(rule, 'acct')).allowed).toBe(false);
        clock.advance(60_000);
        expect((await another.consume(rule, 'acct')).allowed).toBe(true);
        expect(allowedOf(await consumeMany(rule, 'acct', 6))).toHaveLength(5);
      });

      it('enforce throws rate_limited with the Retry-After seconds when refused', async () => {
        const rule: RateLimitRule = { name: fresh('enforce'), limit: 1, windowSeconds: 30 };
        const allowed = await limiter().consume(rule, 'k');
        expect(() => enforce(allowed, 'slow down')).not.toThrow();
        const refused = await limiter().consume(rule, 'k');
        let thrown: unknown;
        try {
          enforce(refused, 'slow down');
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(ServiceError);
        expect(thrown).toMatchObject({
          code: 'rate_limited',
          message: 'slow down',
          retryAfterSeconds: 30,
          details: { rule: rule.name, limit: 1, window_seconds: 30, retry_after_seconds: 30 },
        });
      });

      it('rejects invalid rules and keys', async () => {
        const valid: RateLimitRule = { name: fresh('invalid'), limit: 1, windowSeconds: 1 };
        await expect(limiter().consume({ ...valid, limit: 0 }, 'k')).rejects.toThrow(/limit/);
        await expect(limiter().consume({ ...valid, limit: 1.5 }, 'k')).rejects.toThrow(/limit/);
        await expect(limiter().consume({ ...valid, windowSeconds: 0 }, 'k')).rejects.toThrow(/windowSeconds/);
        await expect(limiter().consume({ ...valid, name: '' }, 'k')).rejects.toThrow(/name/);
        await expect(limiter().consume(valid, '')).rejects.toThrow(/key/);
      });
    });

    describe('concurrency slots', () => {
      it('grants at most `max` of many concurrent acquires', async () => {
        const rule: ConcurrencyRule = { name: fresh('slots'), max: 2, leaseSeconds: 30 };
        const attempts = await Promise.all(
          Array.from({ length: 20 }, () => limiter().acquireSlot(rule, 'k')),
        );
        const leases = leasesOf(attempts);
        expect(leases).toHaveLength(2);
        expect(new Set(leases.map((lease) => lease.slotId)).size).toBe(2);
        for (const attempt of attempts) {
          if (!attempt.acquired) expect(attempt.retryAfterSeconds).toBe(30);
        }
        await Promise.all(leases.map((lease) => lease.release()));
      });

      it('frees one slot per release; release is idempotent', async () => {
        const rule: ConcurrencyRule = { name: fresh('release'), max: 2, leaseSeconds: 30 };
        const first = requireSlot(await limiter().acquireSlot(rule, 'k'), 'busy');
        const second = requireSlot(await limiter().acquireSlot(rule, 'k'), 'busy');
        expect((await limiter().acquireSlot(rule, 'k')).acquired).toBe(false);

        await first.release();
        await first.release();
        const attempts = await Promise.all(Array.from({ length: 5 }, () => limiter().acquireSlot(rule, 'k')));
        const third = leasesOf(attempts);
        expect(third).toHaveLength(1);

        await Promise.all([second.release(), ...third.map((lease) => lease.release())]);
        expect(
          leasesOf(await Promise.all([1, 2, 3].map(() => limiter().acquireSlot(rule, 'k')))),
        ).toHaveLength(2);
      });

      it('frees a slot whose lease lapsed, and says when the next one lapses', async () => {
        const rule: ConcurrencyRule = { name: fresh('lease'), max: 2, leaseSeconds: 10 };
        const crashed = requireSlot(await limiter().acquireSlot(rule, 'k'), 'busy'); // lapses at t+10
        clock.advance(5_000);
        requireSlot(await limiter().acquireSlot(rule, 'k'), 'busy'); // lapses at t+15
        const refused = await limiter().acquireSlot(rule, 'k');
        expect(refused).toMatchObject({ acquired: false, retryAfterSeconds: 5 });

        clock.advance(5_000);
        const attempts = await Promise.all([1, 2, 3].map(() => limiter().acquireSlot(rule, 'k')));
        expect(leasesOf(attempts)).toHaveLength(1);
        // The soonest lease now lapses at t+15.
        expect(attempts.find((attempt) => !attempt.acquired)).toMatchObject({ retryAfterSeconds: 5 });

        // Releasing the lapsed lease frees nobody else's slot.
        await crashed.release();
        expect((await limiter().acquireSlot(rule, 'k')).acquired).toBe(false);
      });

      it('renews a live lease, not a lapsed one', async () => {
        const rule: ConcurrencyRule = { name: fresh('renew'), max: 1, leaseSeconds: 10 };
        const lease = requireSlot(await limiter().acquireSlot(rule, 'k'), 'busy');
        clock.advance(8_000);
        expect(await lease.renew()).toBe(true); // now lapses at t+18
        clock.advance(8_000);
        expect(await limiter().acquireSlot(rule, 'k')).toMatchObject({
          acquired: false,
          retryAfterSeconds: 2,
        });
        clock.advance(2_000);
        expect(await lease.renew()).toBe(false);
        const next = await limiter().acquireSlot(rule, 'k');
        expect(next.acquired).toBe(true);
        await lease.release();
        expect((await limiter().acquireSlot(rule, 'k')).acquired).toBe(false);
      });

      it('keeps keys and rules independent', async () => {
        const rule: ConcurrencyRule = { name: fresh('slot-keys'), max: 1, leaseSeconds: 30 };
        const other: ConcurrencyRule = { name: fresh('slot-other'), max: 1, leaseSeconds: 30 };
        expect((await limiter().acquireSlot(rule, 'a')).acquired).toBe(true);
        expect((await limiter().acquireSlot(rule, 'a')).acquired).toBe(false);
        expect((await limiter().acquireSlot(rule, 'b')).acquired).toBe(true);
        expect((await limiter().acquireSlot(other, 'a')).acquired).toBe(true);
      });

      it('shares slots between two instances on the same database', async () => {
        const another = await underTest!.openAnother();
        const rule: ConcurrencyRule = { name: fresh('slot-shared'), max: 3, leaseSeconds: 30 };
        const attempts = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? limiter() : another).acquireSlot(rule, 'acct')),
        );
        const leases = leasesOf(attempts);
        expect(leases).toHaveLength(3);
        await leases[0]!.release();
        expect((await another.acquireSlot(rule, 'acct')).acquired).toBe(true);
        expect((await limiter().acquireSlot(rule, 'acct')).acquired).toBe(false);
      });

      it('requireSlot throws rate_limited with the Retry-After seconds when no slot is free', async () => {
        const rule: ConcurrencyRule = { name: fresh('require'), max: 1, leaseSeconds: 90 };
        requireSlot(await limiter().acquireSlot(rule, 'k'), 'busy');
        const refused = await limiter().acquireSlot(rule, 'k');
        expect(() => requireSlot(refused, 'two batches at most')).toThrow(ServiceError);
        try {
          requireSlot(refused, 'two batches at most');
        } catch (error) {
          expect(error).toMatchObject({
            code: 'rate_limited',
            retryAfterSeconds: 90,
            details: { rule: rule.name, max_concurrent: 1, retry_after_seconds: 90 },
          });
        }
      });

      it('rejects invalid rules', async () => {
        const valid: ConcurrencyRule = { name: fresh('invalid-slot'), max: 1, leaseSeconds: 1 };
        await expect(limiter().acquireSlot({ ...valid, max: 0 }, 'k')).rejects.toThrow(/max/);
        await expect(limiter().acquireSlot({ ...valid, leaseSeconds: -1 }, 'k')).rejects.toThrow(
          /leaseSeconds/,
        );
        await expect(limiter().acquireSlot(valid, '')).rejects.toThrow(/key/);
      });
    });

    describe('prune', () => {
      it('deletes only state that no longer affects a decision', async () => {
        const rule: RateLimitRule = { name: fresh('prune'), limit: 2, windowSeconds: 10 };
        const slots: ConcurrencyRule = { name: fresh('prune-slots'), max: 1, leaseSeconds: 10 };
        await consumeMany(rule, 'idle', 2);
        requireSlot(await limiter().acquireSlot(slots, 'idle'), 'busy');
        clock.advance(20_000);
        await consumeMany(rule, 'busy', 2);
        requireSlot(await limiter().acquireSlot(slots, 'busy'), 'busy');

        expect(await limiter().prune()).toBeGreaterThanOrEqual(2);
        expect((await limiter().consume(rule, 'busy')).allowed).toBe(false);
        expect((await limiter().acquireSlot(slots, 'busy')).acquired).toBe(false);
        expect(allowedOf(await consumeMany(rule, 'idle', 3))).toHaveLength(2);
        expect((await limiter().acquireSlot(slots, 'idle')).acquired).toBe(true);
      });
    });
  });
}
