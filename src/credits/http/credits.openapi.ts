import { AS_OF_ANSWER } from '../../platform/http/openapi/as-of.js';
import {
  arrayOf,
  boolean,
  component,
  dateTime,
  integer,
  object,
  oneOfStrings,
  string,
} from '../../platform/http/openapi/schema.js';
import { USAGE_CATEGORIES } from '../domain/ledger.js';

/** Response documents of the personal credit routes (contract: Personal credit state, Credit usage). */

export const CREDIT_STATE = component(
  'CreditState',
  object(
    {
      monthly_credits: integer({ minimum: 0, description: 'monthly allocation' }),
      credits_used: integer({ minimum: 0, description: 'used in the current cycle' }),
      purchased_credits: integer({ minimum: 0, description: 'purchased balance' }),
      lifetime_purchased: integer({ minimum: 0 }),
      cycle_start: dateTime(),
      cycle_end: dateTime(),
      has_paid_entitlement: boolean({ description: 'not a substitute for the live API-data access check' }),
      plan_label: string(),
      is_legacy: boolean(),
    },
    { as_of: AS_OF_ANSWER },
  ),
);

const CATEGORY_CREDITS = object({
  category: oneOfStrings(USAGE_CATEGORIES),
  credits: integer({ minimum: 0 }),
});

export const CREDIT_USAGE = component(
  'CreditUsage',
  object(
    {
      cycle_start: dateTime(),
      usage: arrayOf(CATEGORY_CREDITS),
      usage_mcp: arrayOf(CATEGORY_CREDITS, { description: 'the MCP subset of usage, not an extra charge' }),
    },
    { as_of: AS_OF_ANSWER },
  ),
);
