import { describe, expect, it } from '@jest/globals';
import { MIX_WEIGHTS, percentile, requestAt, summarize, type Sample } from '../../../bench/load-mix.js';

describe('load benchmark mix', () => {
  it('holds the weights exactly in every window of 20 consecutive requests', () => {
    const total = Object.values(MIX_WEIGHTS).reduce((a, b) => a + b, 0);
    expect(total).toBe(20);
    for (const start of [0, 7, 20, 133]) {
      const counts: Record<string, number> = {};
      for (let n = start; n < start + total; n++) {
        const kind = requestAt(n).kind;
        counts[kind] = (counts[kind] ?? 0) + 1;
      }
      expect(counts).toEqual(MIX_WEIGHTS);
    }
  });

  it('is deterministic and gives every request hand-written SQL over the dataset tables or the catalogue', () => {
    for (let n = 0; n < 200; n++) {
      const request = requestAt(n);
      expect(requestAt(n)).toEqual(request);
      expect(request.sql.length).toBeGreaterThan(0);
      for (const statement of request.sql)
        expect(statement).toMatch(/FROM (obs_(hosts|vhosts)|catalogue_advisories)\b/);
      expect(request.path).toMatch(/^\/api\/v2\/common\//);
    }
    // Paging asks pages 2 to 5 and its SQL reads the same offset.
    const pages = Array.from({ length: 200 }, (_, n) => requestAt(n)).filter((r) => r.kind === 'paging');
    expect(new Set(pages.map((r) => r.body.page))).toEqual(new Set([2, 3, 4, 5]));
    for (const page of pages)
      expect(page.sql[1]).toContain(`LIMIT 20 OFFSET ${((page.body.page as number) - 1) * 20}`);
    // A unified query on a field of hosts and vhosts is done by hand on both tables.
    const port = Array.from({ length: 200 }, (_, n) => requestAt(n)).find(
      (r) => r.kind === 'unified' && r.body.raw_query === 'port:443',
    );
    expect(port?.sql.filter((s) => s.includes('obs_vhosts'))).toHaveLength(2);
    // Its hosts part answers with the host facets, as the service's unified search does: count, page, facets.
    const hosts = port?.sql.filter((s) => s.includes('obs_hosts')) ?? [];
    expect(hosts).toHaveLength(3);
    expect(hosts[2]).toMatch(/GROUP BY v\.f, v\.value/);
    expect(hosts[2]).toContain(`keys @> '{"port":443}'`);
  });
});

describe('load benchmark figures', () => {
  it('percentile is the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });

  it('counts answered requests for throughput and latency, refusals apart, busy without Retry-After apart', () => {
    const samples: Sample[] = [
      { kind: 'dataset', ms: 10, outcome: 'ok' },
      { kind: 'dataset', ms: 30, outcome: 'ok' },
      { kind: 'unified', ms: 50, outcome: 'partial_busy', retryAfter: false },
      { kind: 'dataset', ms: 1, outcome: 'busy', retryAfter: true },
      { kind: 'paging', ms: 1, outcome: 'busy', retryAfter: false },
      { kind: 'enrichment', ms: 2, outcome: 'rate_limited', retryAfter: true },
      { kind: 'export_estimate', ms: 0, outcome: 'error', status: 500 },
    ];
    const summary = summarize(samples, 2);
    expect(summary).toMatchObject({
      requests: 7,
      answeredPerSecond: 1.5,
      p50Ms: 30,
      p99Ms: 50,
      busy: 2,
      busyWithoutRetryAfter: 1,
      partialBusy: 1,
      rateLimited: 1,
      errors: 1,
    });
    expect(summary.busyShare).toBeCloseTo(2 / 7);
    expect(summary.byKind.dataset).toEqual({ answered: 2, p50Ms: 10 });
  });
});
