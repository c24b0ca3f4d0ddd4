/**
 * How the MongoDB observation index reads and writes (no server needed): the page strategy chosen from the
 * capped count (as the PostgreSQL adapter's), the time budget its operations share, the lowercased text fields
 * and their indexes, and the write that keeps the catalogue's association summary.
 */
import { describe, expect, it } from '@jest/globals';
import { deadlineExceeded } from '../../../src/search/observation-index/mongodb-observation-index.js';
import {
  indexesOf,
  loweredTexts,
  observationUpsert,
  pagePlan,
  remainingTimeMS,
  toStored,
} from '../../../src/search/observation-index/mongodb-query-compiler.js';
import { normalizeBatch, pageRequest } from '../../../src/search/observation-index/observation-index.port.js';
import { FILTER_FIRST_MAX_MATCHES } from '../../../src/search/observation-index/postgres-query-compiler.js';

const host = {
  id: 'h1',
  first_seen: '2026-02-01T00:00:00.000Z',
  last_seen: '2026-02-20T00:00:00.000Z',
  ip: '198.51.100.7',
  port: 443,
  transport: 'tcp',
  banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3',
  http: { title: 'Welcome to NGINX' },
};

describe('MongoDB page plan', () => {
  const request = pageRequest({ offset: 0, limit: 20, countLimit: 10_000 });

  it('reads few matches filter-first (no hint: the planner takes a filter index and sorts in memory)', () => {
    expect(pagePlan(request, 3)).toEqual({ read: true, strategy: 'filter-first' });
    expect(pagePlan(request, FILTER_FIRST_MAX_MATCHES)).toEqual({ read: true, strategy: 'filter-first' });
  });

  it('walks the recent index (hinted) when matches are many or past the count cap', () => {
    const ordered = { read: true, strategy: 'ordered', hint: { 't.last_seen': -1, _id: 1 } };
    expect(pagePlan(request, FILTER_FIRST_MAX_MATCHES + 1)).toEqual(ordered);
    expect(pagePlan(request, 10_001)).toEqual(ordered);
  });

  it('reads no page when the count answers alone', () => {
    expect(pagePlan(request, 0)).toEqual({ read: false });
    expect(pagePlan(pageRequest({ offset: 40, limit: 20, countLimit: 10_000 }), 40)).toEqual({ read: false });
    expect(pagePlan(pageRequest({ offset: 0, limit: 0, countLimit: 10_000 }), 500)).toEqual({ read: false });
  });

  it('shares the deadline between the operations of one call, never below 1 ms', () => {
    expect(remainingTimeMS(8000, 1_000, 1_000)).toBe(8000);
    expect(remainingTimeMS(8000, 1_000, 3_500)).toBe(5500);
    expect(remainingTimeMS(8000, 1_000, 20_000)).toBe(1);
  });

  it('maps the server time limit to the TimeoutError the deadline signal gives', () => {
    const error = deadlineExceeded();
    // What AbortSignal.timeout() aborts with: a DOMException named TimeoutError (search-engine.ts refuses
    // both as `timeout`).
    expect(error).toBeInstanceOf(DOMException);
    expect(error.name).toBe('TimeoutError');
  });
});

describe('MongoDB text fields and writes', () => {
  it('stores text fields lowercased under x, by storage key, and indexes them', () => {
    expect(loweredTexts('hosts', host)).toEqual({
      banner: 'ssh-2.0-openssh_8.9p1 ubuntu-3',
      http__title: 'welcome to nginx',
    });
    const [normalized] = normalizeBatch('hosts', [host]);
    expect(toStored('hosts', normalized!).x).toEqual(loweredTexts('hosts', host));
    expect(indexesOf('hosts')).toEqual(
      expect.arrayContaining([
        { name: 'x_banner', keys: { 'x.banner': 1 } },
        { name: 'x_http__title', keys: { 'x.http__title': 1 } },
      ]),
    );
  });

  it('writes an observation with $set of its own fields, so the association summary (assoc) is kept', () => {
    const [normalized] = normalizeBatch('hosts', [host]);
    const stored = toStored('hosts', normalized!);
    const operation = observationUpsert(stored) as {
      updateOne: { filter: unknown; update: { $set: Record<string, unknown> }; upsert: boolean };
    };
    expect(operation.updateOne.filter).toEqual({ _id: 'h1' });
    expect(operation.updateOne.upsert).toBe(true);
    expect(Object.keys(operation.updateOne.update.$set).sort()).toEqual([
      'k',
      'n4',
      'n6',
      'record',
      't',
      'x',
    ]);
  });
});
