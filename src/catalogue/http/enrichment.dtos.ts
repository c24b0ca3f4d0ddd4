import { ValidateBy } from 'class-validator';
import { Omittable } from '../../platform/http/validation.js';
import { MAX_BADGE_ITEMS } from '../badges/badges.js';

/**
 * Enrichment bodies: the pipe refuses unknown fields and checks each field's shape here, with one problem per
 * mistake. The contract's rules on the values (reference or cpes, CPE syntax, the badge items) are applied by
 * parseVulnerabilityRequest and validateBadgeItems. The documented schemas are enrichment.openapi.ts's.
 */

/** CPE names one vulnerability enrichment takes (the body's limit, so it lives with the body). */
export const MAX_ENRICHMENT_CPES = 8;

/** One validator, one problem: a field is never refused twice for one mistake. */
function Holds(name: string, test: (value: unknown) => boolean, problem: string): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: test, defaultMessage: () => problem } });
}

const isArray = (value: unknown): value is unknown[] => Array.isArray(value);

export class VulnerabilityEnrichmentBody {
  @Omittable()
  @Holds(
    'nonEmptyString',
    (value) => typeof value === 'string' && value !== '',
    'reference must be a non-empty string',
  )
  reference?: string;

  @Omittable()
  @Holds(
    'cpeCount',
    (value) => isArray(value) && value.length >= 1 && value.length <= MAX_ENRICHMENT_CPES,
    `cpes holds 1 to ${MAX_ENRICHMENT_CPES} CPE 2.3 names`,
  )
  cpes?: unknown[];
}

export class BadgeEnrichmentBody {
  @Holds('nonEmptyArray', (value) => isArray(value) && value.length > 0, 'items must be a non-empty array')
  @Holds(
    'badgeItemCount',
    (value) => !isArray(value) || value.length <= MAX_BADGE_ITEMS,
    `at most ${MAX_BADGE_ITEMS} items per request`,
  )
  items!: unknown[];
}
