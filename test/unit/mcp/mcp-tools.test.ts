import { describe, expect, it } from '@jest/globals';
import { MCP_TOOLS } from '../../../src/mcp/mcp-tools.js';

/** What a model reads ahead of a search's JSON: a dataset that did not answer is never shown as zero matches. */
describe('MCP search summaries', () => {
  const search = MCP_TOOLS.find((tool) => tool.name === 'search')!;

  it('names each dataset with its state; a failed one as not answered, never as zero', () => {
    const outcome = search.output.parse({
      query: { raw_query: 'port:443', time_frame: 'all_time', per_type_limit: 20, broad: false },
      results: { hosts: [{ dataset: 'hosts', id: 'h1', raw: {} }], dns: [], vhosts: [], whois: [] },
      totals: {
        hosts: { count: 40, lower_bound: true },
        dns: { count: 0, lower_bound: false },
        vhosts: { count: null, lower_bound: false },
        whois: { count: null, lower_bound: false },
      },
      per_type_status: { hosts: 'ok', dns: 'ok', vhosts: 'busy', whois: 'timeout' },
      partial: true,
      lower_bound: true,
      per_type_failed: ['vhosts'],
      per_type_timed_out: ['whois'],
      per_type_capped: [],
      credits_charged: 1,
    });
    expect(search.summarize!(outcome).split('\n')).toEqual([
      '1 credit(s) charged. PARTIAL: not every dataset answered.',
      'hosts: ok, 1 returned of 40 or more',
      'dns: ok, 0 returned of 0',
      'vhosts: busy, did not answer (not zero matches)',
      'whois: timeout, did not answer (not zero matches)',
    ]);
  });

  it('every tool declares an object input and output schema and an access rule on the mcp surface', () => {
    for (const tool of MCP_TOOLS) {
      expect(tool.access.surface).toBe('mcp');
      expect(tool.input.safeParse({ unexpected: 1 }).success).toBe(false);
    }
  });
});
