import { describe, expect, it } from '@jest/globals';
import type { Dataset } from '../../../src/search/domain/datasets.js';
import {
  depthMultiplier,
  pageCharge,
  pagePrice,
  PRICING_RULES,
  unifiedSearchCharge,
  unifiedSearchReservation,
} from '../../../src/search/domain/pricing.js';

describe('pricing table', () => {
  it('most searches cost 1 credit, WHOIS 3, favicon 5', () => {
    expect(pagePrice('hosts', 0, false)).toBe(1);
    expect(pagePrice('dns', 0, false)).toBe(1);
    expect(pagePrice('vhosts', 0, false)).toBe(1);
    expect(pagePrice('whois', 0, false)).toBe(3);
    expect(pagePrice('hosts', 0, true)).toBe(5);
  });

  it('deeper pages cost more by the depth pricing', () => {
    expect([0, 99, 100, 999, 1000, 9999].map(depthMultiplier)).toEqual([1, 1, 2, 2, 3, 3]);
    expect(pagePrice('whois', 150, false)).toBe(6);
    expect(pagePrice('hosts', 2000, true)).toBe(15);
  });

  it('a unified search costs its most expensive dataset that returned rows, under that category; all failed costs nothing', () => {
    const rows = (dataset: Dataset, count = 5) => ({ dataset, rows: count });
    expect(unifiedSearchCharge([rows('hosts'), rows('dns'), rows('vhosts')], false)).toEqual({
      credits: 1,
      category: 'host',
    });
    expect(unifiedSearchCharge([rows('dns'), rows('whois')], false)).toEqual({
      credits: 3,
      category: 'whois',
    });
    expect(unifiedSearchCharge([rows('vhosts')], false)).toEqual({ credits: 1, category: 'certs' });
    expect(unifiedSearchCharge([rows('hosts')], true)).toEqual({ credits: 5, category: 'host' });
    expect(unifiedSearchCharge([], false)).toBeNull();
    expect(unifiedSearchReservation(['hosts', 'dns', 'vhosts', 'whois'], false)).toBe(3);
  });

  it('"most searches cost 1 credit": WHOIS (or favicon) pays its price only when it returned rows', () => {
    const answer = (dataset: Dataset, count: number) => ({ dataset, rows: count });
    // WHOIS answered without rows: 1 credit, booked under the dataset that returned rows.
    expect(
      unifiedSearchCharge(
        [answer('whois', 0), answer('hosts', 0), answer('dns', 4), answer('vhosts', 0)],
        false,
      ),
    ).toEqual({ credits: 1, category: 'dns' });
    // Nobody returned rows: 1 credit, booked under the first dataset that answered (hosts, dns, vhosts, whois).
    expect(unifiedSearchCharge([answer('whois', 0), answer('vhosts', 0)], false)).toEqual({
      credits: 1,
      category: 'certs',
    });
    expect(unifiedSearchCharge([answer('whois', 0)], false)).toEqual({ credits: 1, category: 'whois' });
    expect(unifiedSearchCharge([answer('hosts', 0)], true)).toEqual({ credits: 1, category: 'host' });
    expect(unifiedSearchCharge([answer('hosts', 2), answer('whois', 1)], false)).toEqual({
      credits: 3,
      category: 'whois',
    });
  });

  it('a page past the end of the results is never charged; a page inside them is', () => {
    const ok = (total: number | null, lowerBound = false) => ({ answered: true, total, lowerBound });
    expect(pageCharge('hosts', 20, false, ok(20))).toBe(0);
    expect(pageCharge('hosts', 40, false, ok(25))).toBe(0);
    expect(pageCharge('whois', 150, false, ok(151))).toBe(6);
    expect(pageCharge('hosts', 0, false, ok(0))).toBe(1); // the first page is the search itself
    expect(pageCharge('hosts', 9_980, false, ok(10_000, true))).toBe(3); // a lower bound never ends
    expect(pageCharge('hosts', 20, false, { answered: false, total: null, lowerBound: false })).toBe(0);
  });

  it('publishes the rules it applies', () => {
    expect(PRICING_RULES.depth.map((tier) => depthMultiplier(tier.from_record))).toEqual([1, 2, 3]);
    expect(PRICING_RULES.depth.map((tier) => depthMultiplier(tier.to_record))).toEqual([1, 2, 3]);
    expect(PRICING_RULES.unified_search).toContain('only when that dataset returned rows');
  });
});
