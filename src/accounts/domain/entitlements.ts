/**
 * Personal entitlement policies (contract: Authentication 2–4, Personal credit state). Pure functions of the
 * plan and the purchased credit balance; callers read the live balance from the payer's ledger.
 */
import { planById, type Plan, type PlanId } from './plans.js';

function resolve(plan: Plan | PlanId): Plan {
  return typeof plan === 'string' ? planById(plan) : plan;
}

/**
 * "Every personal data request requires a current paid subscription (Professional or Enterprise) or a purchased
 * credit balance above zero. Free enrichment operations do not remove this requirement."
 * The legacy Basic plan is still a paid subscription (is_legacy accounts keep paying for it), so it counts as one.
 * "A Free account with a depleted purchased balance cannot spend its monthly allocation through the personal data
 * API": Free has no paid subscription, so only a purchased balance above zero opens the data API to it.
 * Field permissions and available credits still apply on top of this check.
 */
export function hasPersonalDataEntitlement(plan: Plan | PlanId, purchasedBalance: number): boolean {
  return resolve(plan).paidSubscription || purchasedBalance > 0;
}

/**
 * "A Free account holding only its monthly allocation cannot create a token" (an OAuth access token): creating one
 * needs what the data API itself needs, a paid subscription or a purchased balance above zero. Personal API keys are
 * not gated here: a key is how an account reaches anything, and every data route checks the entitlement itself.
 */
export function canCreateAccessToken(plan: Plan | PlanId, purchasedBalance: number): boolean {
  return hasPersonalDataEntitlement(plan, purchasedBalance);
}

/** "Raw CPE input on the personal enrichment surface requires the CPE field entitlement (currently Enterprise)." */
export function hasCpeEntitlement(plan: Plan | PlanId): boolean {
  return resolve(plan).cpeEntitlement;
}
