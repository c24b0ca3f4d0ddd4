import { z } from 'zod';
import { BADGE_ITEM_TYPES, MAX_BADGE_ITEMS } from '../catalogue/badges/badges.js';
import { MAX_ENRICHMENT_CPES } from '../catalogue/http/enrichment.dtos.js';
import { EXPORT_FORMATS, EXPORT_SEARCH_TYPES } from '../exports/domain/export-job-messages.js';
import { DATASETS } from '../search/domain/datasets.js';
import { MAX_SEARCH_OFFSET } from '../search/domain/pricing.js';
import {
  MAX_PER_TYPE_LIMIT,
  RAW_QUERY_MAX_BYTES,
  RESULTS_PER_PAGE,
  TIME_FRAMES,
} from '../search/domain/search-request.js';

/**
 * The tools' input and output schemas (zod; listed as JSON Schema by tools/list). Inputs are the HTTP bodies of the
 * routes the tools mirror, strict like them; the DTO of each route still checks them after (one set of rules).
 * Outputs are the routes' JSON answers: the fields a model acts on are named, records stay open ("not shown").
 */

const dataset = z.enum(DATASETS);
const datasetState = z
  .enum(['ok', 'timeout', 'busy', 'error', 'invalid_query', 'cancelled'])
  .describe('only ok is an answer; any other state means the dataset did not answer: never zero matches');
const rawQuery = z
  .string()
  .min(1)
  .max(RAW_QUERY_MAX_BYTES)
  .describe(
    `the query language (GET the vocabulary with search_fields): e.g. "product:nginx port:443", a bare domain, ` +
      `an IP, a CVE id; at most ${RAW_QUERY_MAX_BYTES} UTF-8 bytes`,
  );
const timeFrame = z.enum(TIME_FRAMES).optional().describe('observation age; all_time when omitted');
const broad = z
  .boolean()
  .optional()
  .describe('true disables smart interpretation of bare inputs (a bare word stays a full-text term)');
const perTypeLimit = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe(`records per dataset, default 20, capped at ${MAX_PER_TYPE_LIMIT}`);

const resultItem = z.looseObject({
  dataset,
  id: z.string(),
  raw: z
    .looseObject({})
    .describe(
      'the stored observation; host observations carry vulnerability_ref (use enrich_vulnerabilities)',
    ),
});
const facets = z.record(
  z.string(),
  z.array(z.object({ value: z.union([z.string(), z.number(), z.boolean()]), count: z.number().int() })),
);
const byDataset = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

export const searchInput = z.strictObject({
  raw_query: rawQuery,
  time_frame: timeFrame,
  per_type_limit: perTypeLimit,
  broad,
});

export const searchOutput = z.looseObject({
  query: z.looseObject({
    raw_query: z.string(),
    time_frame: z.string(),
    per_type_limit: z.number().int(),
    broad: z.boolean(),
  }),
  results: byDataset(z.array(resultItem)).describe(
    'by dataset; the list of a dataset whose per_type_status is not ok is empty because it did not answer',
  ),
  totals: byDataset(z.object({ count: z.number().int().nullable(), lower_bound: z.boolean() })).describe(
    'by dataset; count is null when the dataset did not answer; lower_bound: at least count',
  ),
  per_type_status: byDataset(datasetState),
  partial: z.boolean().describe('true when a dataset did not answer: the answer is incomplete'),
  lower_bound: z.boolean(),
  per_type_failed: z.array(dataset),
  per_type_timed_out: z.array(dataset),
  per_type_capped: z.array(dataset),
  facets: byDataset(facets).optional(),
  credits_charged: z.number().int().describe('credits this call cost'),
});

export const nextPageInput = z.strictObject({
  raw_query: rawQuery,
  dataset,
  page: z
    .number()
    .int()
    .min(2)
    .describe(
      `the page of this dataset, 2 or more, with the same per_type_limit as the search; paging stops at ` +
        `${MAX_SEARCH_OFFSET} records`,
    ),
  time_frame: timeFrame,
  per_type_limit: perTypeLimit,
  broad,
});

export const nextPageOutput = z.looseObject({
  dataset,
  page: z.number().int(),
  per_type_limit: z.number().int(),
  status: datasetState,
  results: z.array(resultItem),
  total: z.number().int().nullable(),
  lower_bound: z.boolean(),
  capped: z.boolean(),
  credits_charged: z.number().int(),
});

export const datasetSearchInput = z.strictObject({
  dataset,
  raw_query: rawQuery,
  include: z
    .string()
    .optional()
    .describe('"all" (default) or a comma-separated list of field names to keep in each record'),
  aggregate: z.boolean().optional().describe('true gives facet counts instead of rows'),
  results_per_page: z
    .literal([...RESULTS_PER_PAGE])
    .optional()
    .describe('10 (default), 30 or 50'),
  page: z.number().int().min(1).optional().describe('from 1 (default)'),
  time_frame: timeFrame,
  broad,
});

export const datasetSearchOutput = z.looseObject({
  dataset,
  page: z.number().int().optional(),
  results_per_page: z.number().int().optional(),
  total: z.number().int().nullable().optional(),
  lower_bound: z.boolean().optional(),
  data: z.array(z.looseObject({})).optional().describe('the records (rows)'),
  aggregate: z.literal(true).optional(),
  facets: facets.optional().describe('value counts by field (aggregate: true)'),
  credits_charged: z.number().int(),
});

export const fieldsOutput = z.looseObject({
  datasets: z.array(dataset),
  prices: z.record(z.string(), z.number().int()).describe('credits by dataset, and favicon_search'),
  pricing: z.looseObject({}).describe('the pricing rules, in words and depth tiers'),
  fields: z.array(
    z.looseObject({
      name: z.string(),
      type: z.string(),
      datasets: z.array(dataset),
      description: z.string(),
      multiple: z.boolean(),
      aggregatable: z.boolean(),
      entitlement: z.string().nullable().describe('a plan entitlement the field needs, or null'),
    }),
  ),
});

export const vulnerabilitiesInput = z.strictObject({
  reference: z
    .string()
    .min(1)
    .optional()
    .describe('a vulnerability_ref from a host result (opaque; expires after 24 hours)'),
  cpes: z
    .array(z.string())
    .min(1)
    .max(MAX_ENRICHMENT_CPES)
    .optional()
    .describe(`1 to ${MAX_ENRICHMENT_CPES} CPE 2.3 names; needs the CPE entitlement (Enterprise)`),
});

const catalogue = {
  evaluated_at: z.string().nullable(),
  kev_source: z.looseObject({}).nullable(),
  catalogue_version: z.number().int(),
};

export const vulnerabilitiesOutput = z.looseObject({
  ...catalogue,
  cpes: z.array(z.string()).nullable(),
  evaluations: z.array(
    z.looseObject({
      status: z
        .enum(['matched', 'no_match', 'indeterminate'])
        .describe('only a complete no_match is a completed negative lookup, and not a security assessment'),
      complete: z.boolean(),
      reason: z.string(),
      total: z.number().int(),
      findings: z.array(
        z.looseObject({
          id: z.string().describe('the CVE identifier'),
          kev: z
            .union([z.looseObject({}), z.literal(false), z.null()])
            .describe('the KEV entry; false: not listed in the loaded KEV catalogue; null: unknown'),
        }),
      ),
    }),
  ),
  notice: z.string(),
});

export const badgesInput = z.strictObject({
  items: z
    .array(
      z.strictObject({
        key: z.string().min(1).describe('unique in the request, echoed back'),
        type: z.enum(BADGE_ITEM_TYPES),
        value: z.string().min(1).describe('an IP address for ip and host; otherwise the name or fingerprint'),
        record: z
          .looseObject({})
          .optional()
          .describe('the result record, at most 4 KiB; context only, never trusted as evidence'),
      }),
    )
    .min(1)
    .max(MAX_BADGE_ITEMS),
});

export const badgesOutput = z.looseObject({
  ...catalogue,
  items: z.array(
    z.looseObject({
      key: z.string(),
      type: z.string(),
      value: z.string(),
      status: z.enum(['ok', 'unavailable']).describe('unavailable never means "no badges"'),
      badges: z.array(
        z.looseObject({
          id: z.string(),
          label: z.string(),
          level: z.string(),
          detail: z.looseObject({}),
        }),
      ),
    }),
  ),
});

const usage = z.array(z.object({ category: z.string(), credits: z.number() }));

export const noInput = z.strictObject({});

export const creditsOutput = z.object({
  state: z.looseObject({
    monthly_credits: z.number().int(),
    credits_used: z.number().int(),
    purchased_credits: z.number().int(),
    lifetime_purchased: z.number().int(),
    cycle_start: z.string(),
    cycle_end: z.string(),
    has_paid_entitlement: z.boolean(),
    plan_label: z.string(),
    is_legacy: z.boolean(),
  }),
  usage: z.looseObject({
    cycle_start: z.string(),
    usage: usage.describe('credits spent this cycle by category, every channel'),
    usage_mcp: usage.describe('the part of usage spent through MCP clients: a subset, not an extra charge'),
  }),
});

const searchType = z.enum(EXPORT_SEARCH_TYPES);

export const exportEstimateInput = z.strictObject({
  search_type: searchType,
  raw_query: rawQuery,
  time_frame: timeFrame,
  format: z.enum(EXPORT_FORMATS).optional().describe('only used to estimate the file size; json by default'),
  broad,
});

export const exportEstimateOutput = z.looseObject({
  estimated_count: z.number().int(),
  quota_current: z.object({ results_used: z.number().int(), results_max: z.number().int() }),
  quota_after_export: z.object({ results_used: z.number().int(), results_max: z.number().int() }),
  will_be_partial: z.boolean(),
  partial_limit: z.number().int().nullable(),
  estimated_file_size_bytes: z.number().int(),
});

export const exportStartInput = z.strictObject({
  search_type: searchType,
  raw_query: rawQuery,
  time_frame: timeFrame,
  format: z
    .enum(EXPORT_FORMATS)
    .describe('json: one JSON document per line; csv: header row, dotted columns; txt: one value per line'),
  broad,
});

export const exportStartOutput = z.object({ export_id: z.string() });

export const exportStatusInput = z.strictObject({
  export_id: z.string().min(1).describe('the export_id export_start returned'),
});

export const exportStatusOutput = z.looseObject({
  id: z.string(),
  status: z.enum(['pending', 'processing', 'completed', 'failed', 'cancelled']),
  search_type: z.string(),
  raw_query: z.string(),
  format: z.string(),
  results_count: z.number().int(),
  credits_consumed: z.number().int(),
  estimated_count: z.number().int(),
  was_truncated: z.boolean(),
  truncation_reason: z.string().optional(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  file_available: z.boolean(),
  download_url: z
    .string()
    .nullable()
    .describe('GET it with the same Authorization: Bearer credential; null until the file is available'),
});
