import type { HeadersObject } from '@nestjs/swagger';
import {
  arrayOf,
  boolean,
  component,
  dateTime,
  integer,
  nullable,
  object,
  oneOfStrings,
  string,
  uuid,
} from '../../platform/http/openapi/schema.js';
import { TIME_FRAMES } from '../../search/domain/search-request.js';
import { CONTENT_TYPE } from '../domain/export-formats.js';
import { EXPORT_FORMATS, EXPORT_SEARCH_TYPES, EXPORT_STATUSES } from '../domain/export-job.js';

/** Response documents of exports (contract: Export job, Exports). */

export const EXPORT_JOB = component(
  'ExportJob',
  object(
    {
      id: uuid(),
      status: oneOfStrings(EXPORT_STATUSES),
      search_type: oneOfStrings(EXPORT_SEARCH_TYPES),
      raw_query: string(),
      time_frame: oneOfStrings(TIME_FRAMES),
      format: oneOfStrings(EXPORT_FORMATS),
      results_count: integer({ minimum: 0, description: 'rows exported' }),
      credits_consumed: integer({ minimum: 0, description: 'ceil(results_count / 100)' }),
      file_size_bytes: nullable(integer({ minimum: 0, description: 'the stored (gzip) file' })),
      original_size_bytes: nullable(integer({ minimum: 0, description: 'the file decompressed' })),
      estimated_count: integer({ minimum: 0 }),
      was_truncated: boolean({ description: 'cut to what the balance and quota covered' }),
      created_at: dateTime(),
      expires_at: nullable(dateTime()),
      file_available: boolean(),
    },
    { truncation_reason: string(), failure_reason: string() },
  ),
);

const QUOTA = object({ results_used: integer({ minimum: 0 }), results_max: integer({ minimum: 0 }) });

export const EXPORT_ESTIMATE = component(
  'ExportEstimate',
  object({
    estimated_count: integer({ minimum: 0, description: 'matching rows' }),
    quota_current: QUOTA,
    quota_after_export: QUOTA,
    will_be_partial: boolean(),
    partial_limit: nullable(integer({ minimum: 0 })),
    estimated_file_size_bytes: integer({ minimum: 0 }),
    estimated_credits: integer({
      minimum: 0,
      description: 'ceil(rows / 100) for the rows the export would write (partial_limit when partial)',
    }),
  }),
);

export const EXPORT_CREATED = component('ExportCreated', object({ export_id: uuid() }));

export const EXPORT_LIST = component(
  'ExportList',
  object({ exports: arrayOf(EXPORT_JOB, { description: 'newest first' }) }),
);

export const EXPORT_REMOVED = component(
  'ExportRemoved',
  object({ export_id: uuid(), outcome: oneOfStrings(['cancelled', 'deleted']) }, { export: EXPORT_JOB }),
);

export const EXPORTS_REMOVED = component(
  'ExportsRemoved',
  object({ deleted_count: integer({ minimum: 0 }), cancelled_count: integer({ minimum: 0 }) }),
);

/** The media types of the three formats, without parameters. */
export const EXPORT_MEDIA_TYPES = EXPORT_FORMATS.map((format) => CONTENT_TYPE[format].split(';')[0]!);

export const DOWNLOAD_HEADERS: HeadersObject = {
  'Content-Disposition': { description: 'attachment; filename="export-<id>.<ext>"', schema: string() },
  'Content-Encoding': {
    description: 'gzip when the request accepted it: the stored file is sent as is',
    schema: string({ enum: ['gzip'] }),
  },
};

export const SEARCH_TYPE_PARAM = {
  searchType: { schema: oneOfStrings(EXPORT_SEARCH_TYPES), description: 'the dataset exported' },
};
