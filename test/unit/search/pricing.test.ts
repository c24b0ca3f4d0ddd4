import { describe, expect, it } from '@jest/globals';
import {
  depthMultiplier,
  pagePrice,
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

  it('a unified search costs its most expensive answering dataset, under that category; all failed costs nothing', () => {
    expect(unifiedSearchCharge(['hosts', 'dns', 'vhosts'], false)).toEqual({ credits: 1, category: 'host' });
    expect(unifiedSearchCharge(['dns', 'whois'], false)).toEqual({ credits: 3, category: 'whois' });
    expect(unifiedSearchCharge(['vhosts'], false)).toEqual({ credits: 1, category: 'certs' });
    expect(unifiedSearchCharge(['hosts'], true)).toEqual({ credits: 5, category: 'host' });
    expect(unifiedSearchCharge([], false)).toBeNull();
    expect(unifiedSearchReservation(['hosts', 'dns', 'vhosts', 'whois'], false)).toBe(3);
  });
});
