import { ServiceError } from '../../platform/errors/service-error.js';

/** Contract limits of the search request, in one place. */
export const SEARCH_BODY_LIMIT_BYTES = 4 * 1024;
export const RAW_QUERY_MAX_BYTES = 512;
export const DEFAULT_PER_TYPE_LIMIT = 20;
export const MAX_PER_TYPE_LIMIT = 25;
export const RESULTS_PER_PAGE = [10, 30, 50] as const;

export const TIME_FRAMES = ['all_time', 'last_24h', 'last_7d', 'last_30d', 'this_year'] as const;
export type TimeFrame = (typeof TIME_FRAMES)[number];

export interface SearchRequest {
  readonly rawQuery: string;
  readonly timeFrame: TimeFrame;
  readonly perTypeLimit: number;
  readonly stream: boolean;
  readonly broad: boolean;
}

/**
 * Applies the contract's rules to a search body: raw_query trimmed nonempty and at most 512 UTF-8 bytes;
 * time_frame one of five; per_type_limit default 20, positive values capped at 25, anything else refused;
 * stream omitted or true means SSE.
 */
export function normalizeSearchRequest(body: {
  raw_query?: unknown;
  time_frame?: unknown;
  per_type_limit?: unknown;
  stream?: unknown;
  broad?: unknown;
}): SearchRequest {
  const problems: Array<{ field: string; problems: string[] }> = [];
  const rawQuery = typeof body.raw_query === 'string' ? body.raw_query.trim() : '';
  if (typeof body.raw_query !== 'string')
    problems.push({ field: 'raw_query', problems: ['raw_query must be a string'] });
  else if (rawQuery === '') problems.push({ field: 'raw_query', problems: ['raw_query must not be empty'] });
  else if (Buffer.byteLength(rawQuery, 'utf8') > RAW_QUERY_MAX_BYTES) {
    problems.push({
      field: 'raw_query',
      problems: [`raw_query must be at most ${RAW_QUERY_MAX_BYTES} UTF-8 bytes`],
    });
  }
  const timeFrame = body.time_frame ?? 'all_time';
  if (!(TIME_FRAMES as readonly unknown[]).includes(timeFrame)) {
    problems.push({ field: 'time_frame', problems: [`time_frame must be one of ${TIME_FRAMES.join(', ')}`] });
  }
  let perTypeLimit = DEFAULT_PER_TYPE_LIMIT;
  if (body.per_type_limit !== undefined) {
    if (
      typeof body.per_type_limit !== 'number' ||
      !Number.isInteger(body.per_type_limit) ||
      body.per_type_limit < 1
    ) {
      problems.push({ field: 'per_type_limit', problems: ['per_type_limit must be a positive integer'] });
    } else perTypeLimit = Math.min(body.per_type_limit, MAX_PER_TYPE_LIMIT);
  }
  for (const flag of ['stream', 'broad'] as const) {
    if (body[flag] !== undefined && typeof body[flag] !== 'boolean') {
      problems.push({ field: flag, problems: [`${flag} must be a boolean`] });
    }
  }
  if (problems.length > 0)
    throw new ServiceError('invalid_input', 'the search request is not valid', { fields: problems });
  return {
    rawQuery,
    timeFrame: timeFrame as TimeFrame,
    perTypeLimit,
    stream: body.stream !== false,
    broad: body.broad === true,
  };
}

/** The earliest last_seen a time frame admits, or undefined for all_time. */
export function timeFrameStart(timeFrame: TimeFrame, now: Date): string | undefined {
  const day = 24 * 60 * 60 * 1000;
  switch (timeFrame) {
    case 'all_time':
      return undefined;
    case 'last_24h':
      return new Date(now.getTime() - day).toISOString();
    case 'last_7d':
      return new Date(now.getTime() - 7 * day).toISOString();
    case 'last_30d':
      return new Date(now.getTime() - 30 * day).toISOString();
    case 'this_year':
      return new Date(Date.UTC(now.getUTCFullYear(), 0, 1)).toISOString();
  }
}
