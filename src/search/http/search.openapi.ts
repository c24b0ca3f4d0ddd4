import type { SchemaObject } from '@nestjs/swagger';
import {
  anyObject,
  arrayOf,
  boolean,
  component,
  integer,
  mapOf,
  nullable,
  object,
  oneOfStrings,
  string,
  uuid,
} from '../../platform/http/openapi/schema.js';
import { DATASETS } from '../domain/datasets.js';
import { TIME_FRAMES } from '../domain/search-request.js';

/** Response documents of search (contract: Search response signals, Events 1). */

const DATASET = oneOfStrings(DATASETS);
const DATASET_STATE = component(
  'DatasetState',
  oneOfStrings(['ok', 'timeout', 'busy', 'error', 'invalid_query', 'cancelled'], {
    description: 'only ok is a result; the others are never zero matches',
  }),
);

const RESULT_ITEM = component(
  'SearchResultItem',
  object({
    dataset: DATASET,
    id: string(),
    raw: anyObject(
      'the stored observation; host observations carry an opaque vulnerability_ref. Other fields: not shown',
    ),
  }),
);

const FACETS = component(
  'Facets',
  mapOf(
    arrayOf(
      object({
        value: { type: ['string', 'number', 'boolean'] },
        count: integer({ minimum: 0 }),
      }),
    ),
    { description: 'counts of the most frequent values, by field' },
  ),
);

const DATASET_LIST = arrayOf(DATASET);

export const SEARCH_OUTCOME = component(
  'SearchOutcome',
  object(
    {
      query: object({
        raw_query: string(),
        time_frame: oneOfStrings(TIME_FRAMES),
        per_type_limit: integer({ minimum: 1, maximum: 25 }),
        broad: boolean(),
      }),
      results: mapOf(arrayOf(RESULT_ITEM), { description: 'by dataset' }),
      totals: mapOf(object({ count: nullable(integer({ minimum: 0 })), lower_bound: boolean() }), {
        description: 'by dataset; count is null when the dataset did not answer',
      }),
      per_type_status: mapOf(DATASET_STATE, { description: 'by dataset' }),
      partial: boolean(),
      lower_bound: boolean(),
      per_type_failed: DATASET_LIST,
      per_type_timed_out: DATASET_LIST,
      per_type_capped: DATASET_LIST,
      credits_charged: integer({ minimum: 0 }),
    },
    {
      facets: mapOf(FACETS, { description: 'by dataset, as the stream sends them' }),
      search_id: uuid({ description: 'organization searches: the completed search evidence is saved from' }),
    },
  ),
);

/** One chunk of the stream (the `x-data-schema` of its text/event-stream answer). */
export const SEARCH_CHUNK: SchemaObject = {
  description:
    'One `data:` line of the stream. A stream ends with a final chunk, or an error chunk; one that ends ' +
    'without either is incomplete.',
  oneOf: [
    object({
      type: oneOfStrings(['partial']),
      dataset: DATASET,
      status: DATASET_STATE,
      total: nullable(integer({ minimum: 0 })),
      lower_bound: boolean(),
    }),
    object({
      type: oneOfStrings(['results']),
      dataset: DATASET,
      items: arrayOf(RESULT_ITEM),
      capped: boolean(),
    }),
    object({ type: oneOfStrings(['facets']), dataset: DATASET, facets: FACETS }),
    { allOf: [object({ type: oneOfStrings(['final']) }), SEARCH_OUTCOME] },
    object({ type: oneOfStrings(['error']), code: string(), message: string() }),
  ],
};

export const SEARCH_PAGE = component(
  'SearchMorePage',
  object({
    dataset: DATASET,
    page: integer({ minimum: 2 }),
    per_type_limit: integer({ minimum: 1, maximum: 25 }),
    status: DATASET_STATE,
    results: arrayOf(RESULT_ITEM),
    total: nullable(integer({ minimum: 0 })),
    lower_bound: boolean(),
    capped: boolean(),
    credits_charged: integer({ minimum: 0 }),
  }),
);

export const SEARCH_PAGE_QUOTE = component(
  'SearchMoreQuote',
  object({
    dataset: DATASET,
    page: integer({ minimum: 2 }),
    per_type_limit: integer({ minimum: 1, maximum: 25 }),
    first_record: integer({ minimum: 0, description: "offset of the page's first record" }),
    credits: integer({
      minimum: 0,
      description: 'what search/more charges for this page when it is charged',
    }),
    base_price: integer({ minimum: 0, description: "the dataset's price (or the favicon search price)" }),
    depth_multiplier: integer({ minimum: 1, description: 'from the depth tier of first_record' }),
    charged_when: string({ description: 'when the price is charged' }),
  }),
);

export const SEARCH_FIELDS = component(
  'SearchFields',
  object({
    datasets: DATASET_LIST,
    prices: mapOf(integer({ minimum: 0 }), { description: 'credits by dataset, and favicon_search' }),
    fields: arrayOf(
      object({
        name: string(),
        type: oneOfStrings(['keyword', 'text', 'integer', 'date', 'ip', 'boolean']),
        datasets: DATASET_LIST,
        description: string(),
        multiple: boolean(),
        aggregatable: boolean(),
        entitlement: nullable(oneOfStrings(['cpe', 'whois_contacts'])),
      }),
    ),
  }),
);

const DATASET_ROWS = object(
  {
    dataset: DATASET,
    page: integer({ minimum: 1 }),
    results_per_page: integer({ enum: [10, 30, 50] }),
    total: nullable(integer({ minimum: 0 })),
    lower_bound: boolean(),
    data: arrayOf(anyObject('a record, with the included fields')),
    credits_charged: integer({ minimum: 0 }),
  },
  { search_id: uuid({ description: 'organization searches: the completed search evidence is saved from' }) },
);

const DATASET_FACETS = object({
  dataset: DATASET,
  aggregate: { type: 'boolean', enum: [true] },
  facets: FACETS,
  credits_charged: integer({ minimum: 0 }),
});

export const DATASET_ANSWER = component('DatasetSearchAnswer', {
  description: 'rows, or facet counts when aggregate is true',
  oneOf: [DATASET_ROWS, DATASET_FACETS],
});

export const DATASET_PARAM = {
  dataset: { schema: oneOfStrings(DATASETS), description: 'the dataset searched' },
};
