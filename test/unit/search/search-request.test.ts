import { describe, expect, it } from '@jest/globals';
import { ServiceError } from '../../../src/platform/errors/service-error.js';
import { normalizeSearchRequest, timeFrameStart } from '../../../src/search/domain/search-request.js';

function refusal(body: Record<string, unknown>): { field: string; problems: string[] }[] {
  try {
    normalizeSearchRequest(body);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe('invalid_input');
    return (error as ServiceError).details!.fields as { field: string; problems: string[] }[];
  }
  throw new Error('expected a refusal');
}

describe('search request rules', () => {
  it('trims raw_query and applies defaults: all_time, 20 per type, SSE, smart interpretation', () => {
    expect(normalizeSearchRequest({ raw_query: '  port:443  ' })).toEqual({
      rawQuery: 'port:443',
      timeFrame: 'all_time',
      perTypeLimit: 20,
      stream: true,
      broad: false,
    });
  });

  it('caps positive per_type_limit values at 25 and refuses the others', () => {
    expect(normalizeSearchRequest({ raw_query: 'x', per_type_limit: 25 }).perTypeLimit).toBe(25);
    expect(normalizeSearchRequest({ raw_query: 'x', per_type_limit: 1000 }).perTypeLimit).toBe(25);
    expect(normalizeSearchRequest({ raw_query: 'x', per_type_limit: 1 }).perTypeLimit).toBe(1);
    for (const bad of [0, -1, 2.5, '10', null]) {
      expect(refusal({ raw_query: 'x', per_type_limit: bad }).map((p) => p.field)).toEqual([
        'per_type_limit',
      ]);
    }
  });

  it('raw_query must be a nonempty string of at most 512 UTF-8 bytes after trimming', () => {
    expect(refusal({ raw_query: '   ' })[0]!.problems).toEqual(['raw_query must not be empty']);
    expect(refusal({})[0]!.field).toBe('raw_query');
    expect(normalizeSearchRequest({ raw_query: `  ${'a'.repeat(512)}  ` }).rawQuery).toHaveLength(512);
    expect(refusal({ raw_query: 'a'.repeat(513) })[0]!.problems[0]).toContain('at most 512 UTF-8 bytes');
    // 171 three-byte characters are 513 bytes though only 171 characters.
    expect(refusal({ raw_query: '€'.repeat(171) })[0]!.field).toBe('raw_query');
    expect(normalizeSearchRequest({ raw_query: '€'.repeat(170) }).rawQuery).toHaveLength(170);
  });

  it('time_frame is one of five; stream false gives one JSON; broad disables interpretation', () => {
    for (const frame of ['all_time', 'last_24h', 'last_7d', 'last_30d', 'this_year']) {
      expect(normalizeSearchRequest({ raw_query: 'x', time_frame: frame }).timeFrame).toBe(frame);
    }
    expect(refusal({ raw_query: 'x', time_frame: 'last_year' })[0]!.field).toBe('time_frame');
    expect(normalizeSearchRequest({ raw_query: 'x', stream: false, broad: true })).toMatchObject({
      stream: false,
      broad: true,
    });
    expect(refusal({ raw_query: 'x', stream: 'no', broad: 1 }).map((p) => p.field)).toEqual([
      'stream',
      'broad',
    ]);
  });

  it('time frames start where they say', () => {
    const now = new Date('2026-11-22T10:00:00.000Z');
    expect(timeFrameStart('all_time', now)).toBeUndefined();
    expect(timeFrameStart('last_24h', now)).toBe('2026-11-21T10:00:00.000Z');
    expect(timeFrameStart('last_7d', now)).toBe('2026-11-15T10:00:00.000Z');
    expect(timeFrameStart('last_30d', now)).toBe('2026-10-23T10:00:00.000Z');
    expect(timeFrameStart('this_year', now)).toBe('2026-01-01T00:00:00.000Z');
  });
});
