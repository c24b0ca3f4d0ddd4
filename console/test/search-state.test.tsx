import { describe, expect, it } from 'vitest';
import {
  applyChunk,
  describeState,
  endOfStream,
  hasMore,
  NO_ANSWER,
  startView,
  type SearchChunk,
  type SearchView,
} from '../src/research/search/search-state';

const DATASETS = ['hosts', 'dns', 'vhosts', 'whois'] as const;

function play(chunks: SearchChunk[]): SearchView {
  return chunks.reduce(applyChunk, startView([...DATASETS]));
}

const item = (id: string) => ({ dataset: 'hosts' as const, id, raw: { id } });

describe('search stream state', () => {
  it('shows each dataset as its chunks arrive, and a failed dataset never as zero', () => {
    const view = play([
      { type: 'partial', dataset: 'hosts', status: 'ok', total: 12, lower_bound: false },
      { type: 'results', dataset: 'hosts', items: [item('a'), item('b')], capped: true },
      { type: 'partial', dataset: 'dns', status: 'timeout', total: null, lower_bound: false },
      { type: 'partial', dataset: 'whois', status: 'invalid_query', total: null, lower_bound: false },
      { type: 'facets', dataset: 'hosts', facets: { port: [{ value: 443, count: 2 }] } },
    ]);
    expect(view.phase).toBe('running');
    const [hosts, dns, vhosts, whois] = view.datasets;
    expect(describeState(hosts!, view.phase)).toBe('2 shown, 12 matching');
    expect(hosts!.facets).toEqual({ port: [{ value: 443, count: 2 }] });
    expect(describeState(dns!, view.phase)).toBe(`timed out: ${NO_ANSWER}`);
    expect(describeState(whois!, view.phase)).toContain(NO_ANSWER);
    expect(describeState(vhosts!, view.phase)).toBe('waiting for its answer…');
    for (const entry of [dns!, whois!]) expect(describeState(entry, view.phase)).not.toMatch(/\b0\b/);
    expect(hasMore(hosts!, 2)).toBe(true);
    expect(hasMore(dns!, 0)).toBe(false);
  });

  it('a connection that ends without final is incomplete, and a dataset that never answered says so', () => {
    const view = endOfStream(
      play([{ type: 'partial', dataset: 'hosts', status: 'ok', total: 0, lower_bound: false }]),
      false,
    );
    expect(view.phase).toBe('incomplete');
    expect(view.stoppedByPerson).toBe(false);
    expect(describeState(view.datasets[1]!, view.phase)).toBe(
      `the connection ended before it answered: ${NO_ANSWER}`,
    );
    expect(describeState(view.datasets[0]!, view.phase)).toBe('0 shown, 0 matching');
  });

  it('an error chunk stops the search with its code; the final chunk is the last word', () => {
    const failed = endOfStream(
      play([{ type: 'error', code: 'not_ready', message: 'storage is down' }]),
      false,
    );
    expect(failed.phase).toBe('failed');
    expect(failed.error).toEqual({ code: 'not_ready', message: 'storage is down' });

    const final = play([
      {
        type: 'final',
        query: { raw_query: 'x', time_frame: 'all_time', per_type_limit: 5, broad: false },
        results: { hosts: [item('a')] },
        totals: { hosts: { count: 1, lower_bound: false }, dns: { count: null, lower_bound: false } },
        per_type_status: { hosts: 'ok', dns: 'busy', vhosts: 'cancelled', whois: 'error' },
        partial: true,
        lower_bound: false,
        per_type_failed: ['dns', 'vhosts', 'whois'],
        per_type_timed_out: [],
        per_type_capped: [],
        credits_charged: 1,
      },
    ]);
    expect(final.phase).toBe('complete');
    expect(final.outcome?.credits_charged).toBe(1);
    expect(final.datasets.map((entry) => entry.status)).toEqual(['ok', 'busy', 'cancelled', 'error']);
    expect(describeState(final.datasets[0]!, final.phase)).toBe('1 shown, 1 matching');
    expect(hasMore(final.datasets[0]!, 1)).toBe(false);
  });
});
