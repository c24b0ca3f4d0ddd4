import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { billingCycle, isPlanId, PLAN_IDS, planById } from '../../../src/accounts/domain/plans.js';

const at = (iso: string) => new Date(iso);

describe('plan catalogue', () => {
  it('has the four plans with their allocations, labels and flags', () => {
    expect(PLAN_IDS).toEqual(['free', 'basic', 'professional', 'enterprise']);
    expect(planById('free')).toMatchObject({
      label: 'Free',
      monthlyCredits: 50,
      currentPaidSubscription: false,
      isLegacy: false,
      cpeEntitlement: false,
      exportResultsPerCycle: 1_000,
    });
    expect(planById('basic')).toMatchObject({
      label: 'Basic (legacy)',
      monthlyCredits: 1_000,
      // Paid for, but not a current paid subscription (Authentication 3: Professional or Enterprise).
      currentPaidSubscription: false,
      isLegacy: true,
      cpeEntitlement: false,
      exportResultsPerCycle: 10_000,
    });
    expect(planById('professional')).toMatchObject({
      label: 'Professional',
      monthlyCredits: 5_000,
      currentPaidSubscription: true,
      isLegacy: false,
      cpeEntitlement: false,
      exportResultsPerCycle: 100_000,
    });
    expect(planById('enterprise')).toMatchObject({
      label: 'Enterprise',
      monthlyCredits: 50_000,
      currentPaidSubscription: true,
      isLegacy: false,
      cpeEntitlement: true,
      exportResultsPerCycle: 1_000_000,
    });
    for (const id of PLAN_IDS) expect(planById(id).id).toBe(id);
  });

  it('recognizes plan ids only', () => {
    expect(isPlanId('enterprise')).toBe(true);
    expect(isPlanId('Enterprise')).toBe(false);
    expect(isPlanId('toString')).toBe(false);
    expect(isPlanId(undefined)).toBe(false);
    expect(isPlanId(3)).toBe(false);
    expect(() => planById('gold' as never)).toThrow('Unknown plan');
  });
});

describe('billing cycle', () => {
  it('starts on the anchor day at 00:00 UTC and ends a month later', () => {
    expect(billingCycle('2026-01-15T10:30:00.000Z', at('2026-03-20T12:00:00Z'))).toEqual({
      start: '2026-03-15T00:00:00.000Z',
      end: '2026-04-15T00:00:00.000Z',
    });
    expect(billingCycle('2026-01-15T10:30:00.000Z', at('2026-03-10T12:00:00Z'))).toEqual({
      start: '2026-02-15T00:00:00.000Z',
      end: '2026-03-15T00:00:00.000Z',
    });
  });

  it('includes its start and excludes its end', () => {
    const anchor = '2026-01-15T10:30:00.000Z';
    expect(billingCycle(anchor, at('2026-03-15T00:00:00.000Z')).start).toBe('2026-03-15T00:00:00.000Z');
    expect(billingCycle(anchor, at('2026-03-14T23:59:59.999Z'))).toEqual({
      start: '2026-02-15T00:00:00.000Z',
      end: '2026-03-15T00:00:00.000Z',
    });
  });

  it('the first cycle starts at 00:00 of the registration day, before the registration time', () => {
    const anchor = '2026-01-15T10:30:00.000Z';
    expect(billingCycle(anchor, at(anchor))).toEqual({
      start: '2026-01-15T00:00:00.000Z',
      end: '2026-02-15T00:00:00.000Z',
    });
    expect(billingCycle(anchor, at('2026-01-15T00:00:00.000Z')).start).toBe('2026-01-15T00:00:00.000Z');
  });

  it('works for a now before the anchor', () => {
    expect(billingCycle('2026-01-15T10:30:00.000Z', at('2026-01-14T23:59:59.999Z'))).toEqual({
      start: '2025-12-15T00:00:00.000Z',
      end: '2026-01-15T00:00:00.000Z',
    });
    expect(billingCycle('2026-05-31T08:00:00.000Z', at('2026-03-01T00:00:00.000Z'))).toEqual({
      start: '2026-02-28T00:00:00.000Z',
      end: '2026-03-31T00:00:00.000Z',
    });
  });

  it('an anchor on the 31st starts on the last day of shorter months', () => {
    const anchor = '2026-01-31T18:00:00.000Z';
    expect(billingCycle(anchor, at('2026-02-15T00:00:00Z'))).toEqual({
      start: '2026-01-31T00:00:00.000Z',
      end: '2026-02-28T00:00:00.000Z',
    });
    expect(billingCycle(anchor, at('2026-03-01T00:00:00Z'))).toEqual({
      start: '2026-02-28T00:00:00.000Z',
      end: '2026-03-31T00:00:00.000Z',
    });
    expect(billingCycle(anchor, at('2026-04-30T00:00:00Z'))).toEqual({
      start: '2026-04-30T00:00:00.000Z',
      end: '2026-05-31T00:00:00.000Z',
    });
    expect(billingCycle(anchor, at('2026-04-29T23:59:59.999Z')).start).toBe('2026-03-31T00:00:00.000Z');
  });

  it('follows leap years (29 February) for anchors on the 29th, 30th and 31st', () => {
    expect(billingCycle('2027-12-31T00:00:00.000Z', at('2028-03-01T00:00:00Z'))).toEqual({
      start: '2028-02-29T00:00:00.000Z',
      end: '2028-03-31T00:00:00.000Z',
    });
    expect(billingCycle('2028-02-29T12:00:00.000Z', at('2029-02-28T00:00:00Z'))).toEqual({
      start: '2029-02-28T00:00:00.000Z',
      end: '2029-03-29T00:00:00.000Z',
    });
    expect(billingCycle('2028-02-29T12:00:00.000Z', at('2029-02-27T23:00:00Z'))).toEqual({
      start: '2029-01-29T00:00:00.000Z',
      end: '2029-02-28T00:00:00.000Z',
    });
    expect(billingCycle('2026-01-30T00:00:00.000Z', at('2100-02-28T00:00:00Z')).start).toBe(
      '2100-02-28T00:00:00.000Z', // 2100 is not a leap year
    );
  });

  it('crosses the year boundary', () => {
    expect(billingCycle('2025-03-20T00:00:00.000Z', at('2026-01-05T00:00:00Z'))).toEqual({
      start: '2025-12-20T00:00:00.000Z',
      end: '2026-01-20T00:00:00.000Z',
    });
    expect(billingCycle('2025-03-20T00:00:00.000Z', at('2025-12-31T23:59:59Z'))).toEqual({
      start: '2025-12-20T00:00:00.000Z',
      end: '2026-01-20T00:00:00.000Z',
    });
  });

  it('anchors by the UTC day, whatever the offset the anchor was written with', () => {
    expect(billingCycle('2026-01-15T23:30:00-05:00', at('2026-03-20T00:00:00Z')).start).toBe(
      '2026-03-16T00:00:00.000Z',
    );
  });

  it('refuses an invalid anchor', () => {
    expect(() => billingCycle('yesterday', at('2026-01-01T00:00:00Z'))).toThrow('Invalid billing anchor');
  });

  it('always contains now, starts at midnight on the anchor day (or the month end) and chains', () => {
    const instant = fc.date({
      min: new Date('1990-01-01T00:00:00Z'),
      max: new Date('2200-12-31T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(instant, instant, (anchor, now) => {
        const cycle = billingCycle(anchor.toISOString(), now);
        const start = new Date(cycle.start);
        const end = new Date(cycle.end);
        expect(start.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(now.getTime()).toBeLessThan(end.getTime());
        for (const bound of [start, end]) {
          expect(
            bound.getUTCHours() + bound.getUTCMinutes() + bound.getUTCSeconds() + bound.getUTCMilliseconds(),
          ).toBe(0);
          const lastDay = new Date(Date.UTC(bound.getUTCFullYear(), bound.getUTCMonth() + 1, 0)).getUTCDate();
          expect(bound.getUTCDate()).toBe(Math.min(anchor.getUTCDate(), lastDay));
        }
        // One calendar month apart, and the next cycle starts where this one ends.
        expect(
          (end.getUTCFullYear() - start.getUTCFullYear()) * 12 + end.getUTCMonth() - start.getUTCMonth(),
        ).toBe(1);
        expect(billingCycle(anchor.toISOString(), end).start).toBe(cycle.end);
        expect(billingCycle(anchor.toISOString(), new Date(start.getTime() - 1)).end).toBe(cycle.start);
      }),
      { numRuns: 500 },
    );
  });
});
