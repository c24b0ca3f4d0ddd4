import type { SchemaObject } from '@nestjs/swagger';
import {
  anyObject,
  arrayOf,
  boolean,
  component,
  dateTime,
  integer,
  nullable,
  number,
  object,
  oneOfStrings,
  string,
} from '../../platform/http/openapi/schema.js';
import {
  BADGE_ITEM_TYPES,
  MAX_BADGE_ITEMS,
  MAX_BADGE_KEY_BYTES,
  MAX_BADGE_VALUE_BYTES,
} from '../badges/badges.js';
import { MAX_ENRICHMENT_CPES } from './enrichment.dtos.js';

/** Request and response documents of enrichment (contract: Vulnerability enrichment, Badge enrichment). */

/**
 * A CPE 2.3 formatted string as the parser reads it (src/catalogue/domain/cpe.ts): the prefix in any case, a part
 * (a, o, h or *), then ten components, each `*`, `-` or characters without an unescaped colon or whitespace.
 */
const CPE_23_PATTERN = '^[cC][pP][eE]:2\\.3:[aohAOH*](:([^:\\s\\\\]|\\\\[\\s\\S])+){10}$';

export const VULNERABILITIES_REQUEST: SchemaObject = {
  type: 'object',
  description: 'reference or cpes, never both',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    reference: string({
      minLength: 1,
      description: 'a vulnerability_ref from search results: opaque, expires after 24 hours',
    }),
    cpes: arrayOf(
      string({ description: 'a CPE 2.3 formatted string', maxLength: 1024, pattern: CPE_23_PATTERN }),
      {
        minItems: 1,
        maxItems: MAX_ENRICHMENT_CPES,
        description: 'CPE 2.3 names (needs the CPE field entitlement, Enterprise)',
      },
    ),
  },
};

/** The types whose value is an IP address (badges.ts refuses anything else for them). */
const ADDRESS_ITEM_TYPES = ['ip', 'host'] as const;

/** One badge item; `types` and `value` differ between the address types and the others. */
function badgeItem(types: readonly string[], value: SchemaObject): SchemaObject {
  return object(
    {
      key: string({
        minLength: 1,
        maxLength: MAX_BADGE_KEY_BYTES,
        description: `unique in the request, at most ${MAX_BADGE_KEY_BYTES} UTF-8 bytes`,
      }),
      type: oneOfStrings(types),
      value,
    },
    { record: anyObject('the result record, at most 4 KiB; never trusted as evidence') },
    { additionalProperties: false },
  );
}

export const BADGES_REQUEST: SchemaObject = object(
  {
    items: arrayOf(
      {
        oneOf: [
          badgeItem(ADDRESS_ITEM_TYPES, {
            anyOf: [string({ format: 'ipv4' }), string({ format: 'ipv6' })],
            description: 'an IP address',
          }),
          badgeItem(
            BADGE_ITEM_TYPES.filter((type) => !(ADDRESS_ITEM_TYPES as readonly string[]).includes(type)),
            string({
              minLength: 1,
              maxLength: MAX_BADGE_VALUE_BYTES,
              pattern: '\\S',
              description: `not blank, at most ${MAX_BADGE_VALUE_BYTES} UTF-8 bytes`,
            }),
          ),
        ],
      },
      { minItems: 1, maxItems: MAX_BADGE_ITEMS },
    ),
  },
  {},
  { additionalProperties: false },
);

const CATALOGUE = {
  evaluated_at: nullable(dateTime({ description: 'when the catalogue in this version was established' })),
  kev_source: nullable(
    object({
      title: nullable(string()),
      catalog_version: nullable(string()),
      date_released: nullable(string()),
      count: integer({ minimum: 0 }),
    }),
  ),
  catalogue_version: integer({ minimum: 0 }),
};

const OBSERVED_PRODUCT = object({
  vendor: nullable(string()),
  product: nullable(string()),
  version: nullable(string()),
});

const KEV_ENTRY = object({
  cve_id: string(),
  vendor_project: nullable(string()),
  product: nullable(string()),
  vulnerability_name: nullable(string()),
  date_added: nullable(string()),
  due_date: nullable(string()),
  short_description: nullable(string()),
  required_action: nullable(string()),
  known_ransomware_campaign_use: nullable(string()),
  notes: nullable(string()),
});

export const FINDING = component(
  'Finding',
  object({
    id: string({ description: 'the CVE identifier' }),
    description: nullable(string()),
    published: nullable(string()),
    last_modified: nullable(string()),
    vuln_status: nullable(string()),
    cvss: nullable(
      object({ version: string(), base_score: number(), base_severity: string(), vector_string: string() }),
    ),
    severity: nullable(string()),
    cwe: arrayOf(string()),
    kev: {
      description: 'the KEV entry; false when a loaded KEV catalogue does not list it; null means unknown',
      anyOf: [KEV_ENTRY, { type: 'boolean', enum: [false] }, { type: 'null' }],
    },
    additional_conditions: arrayOf(
      object({ operator: oneOfStrings(['AND', 'OR']), criteria: arrayOf(string()), note: string() }),
    ),
    observed_products: arrayOf(OBSERVED_PRODUCT),
    matched_criteria: arrayOf(string()),
  }),
);

export const EVALUATION = component(
  'Evaluation',
  object({
    status: oneOfStrings(['matched', 'no_match', 'indeterminate']),
    complete: boolean({ description: 'only a complete no_match is a completed negative catalogue lookup' }),
    reason: string({
      description:
        'why: matched, no_applicable_advisory, product_not_in_catalogue, version_unknown, ' +
        'additional_conditions, no_cpe, invalid_cpe, catalogue_empty, or the CPE attribute the outcome depends on',
    }),
    source: oneOfStrings(['observation', 'cpe']),
    total: integer({ minimum: 0 }),
    findings: arrayOf(FINDING),
    cpe: string({ description: 'the CPE evaluated; empty for reference-based calls' }),
    undetermined: arrayOf(string(), { description: 'advisories that could not be decided' }),
  }),
);

export const VULNERABILITY_ENRICHMENT = component(
  'VulnerabilityEnrichment',
  object({
    ...CATALOGUE,
    cpes: nullable(arrayOf(string())),
    evaluations: arrayOf(EVALUATION),
    notice: string(),
  }),
);

const BADGE = object(
  {
    id: string({ description: 'known_exploited, cve_count, shared_edge, certificate_expired, …' }),
    label: string(),
    level: oneOfStrings(['critical', 'warning', 'info']),
    detail: anyObject('what the badge is based on'),
  },
  {
    search: object({
      field: string(),
      value: string(),
      match: oneOfStrings(['exact', 'prefix', 'suffix']),
      query: string({ description: 'the indexed criterion behind the badge, as a query' }),
      datasets: arrayOf(oneOfStrings(['hosts', 'dns', 'vhosts', 'whois'])),
    }),
  },
);

export const BADGE_ENRICHMENT = component(
  'BadgeEnrichment',
  object({
    ...CATALOGUE,
    items: arrayOf(
      object({
        key: string(),
        type: oneOfStrings(BADGE_ITEM_TYPES),
        value: string(),
        status: oneOfStrings(['ok', 'unavailable'], { description: 'unavailable never reads as no badges' }),
        badges: arrayOf(BADGE),
      }),
    ),
  }),
);
