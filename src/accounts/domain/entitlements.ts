/**
 * Personal entitlement policies (contract: Authentication 2–4, Personal credit state). Pure functions of the
 * plan and the purchased credit balance; callers read the live balance from the payer's ledger.
 */
import { PLAN_IDS, PLANS, planById, type Plan, type PlanId } from './plans.js';

function resolve(plan: Plan | PlanId): Plan {
  return typeof plan === 'string' ? planById(plan) : plan;
}

/** The plans whose subscription is a "current paid subscription" in the sense of Authentication 3. */
export const QUALIFYING_PLANS = PLAN_IDS.filter((id) => PLANS[id].currentPaidSubscription);

/** Authentication 3 as the service applies it, stated in every refusal. */
export const PERSONAL_DATA_RULE =
  'Every personal data request needs a current paid subscription (Professional or Enterprise) or a purchased ' +
  'credit balance above zero; free operations such as enrichment are no exception.';

/**
 * "Every personal data request requires a current paid subscription (Professional or Enterprise) or a purchased
 * credit balance above zero. Free enrichment operations do not remove this requirement."
 * Only Professional and Enterprise are current paid subscriptions: the legacy Basic plan is not one, so a Basic
 * account, like a Free one, needs purchased credits ("a Free account with a depleted purchased balance cannot
 * spend its monthly allocation through the personal data API" holds for it too).
 * Field permissions and available credits still apply on top of this check.
 */
export function hasPersonalDataEntitlement(plan: Plan | PlanId, purchasedBalance: number): boolean {
  return resolve(plan).currentPaidSubscription || purchasedBalance > 0;
}

export type PersonalDataDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly message: string;
      readonly details: Readonly<Record<string, unknown>>;
    };

/** The entitlement decision with, when refused, the rule and why this account does not meet it. */
export function personalDataDecision(plan: Plan | PlanId, purchasedBalance: number): PersonalDataDecision {
  const resolved = resolve(plan);
  if (hasPersonalDataEntitlement(resolved, purchasedBalance)) return { allowed: true };
  const why = resolved.isLegacy
    ? `this account is on the ${resolved.label} plan, which is not a current paid subscription`
    : `this account is on the ${resolved.label} plan, which is not a paid subscription`;
  const balance = Math.max(0, purchasedBalance);
  return {
    allowed: false,
    message: `${PERSONAL_DATA_RULE} Refused: ${why}, and it holds ${balance} purchased credits.`,
    details: { plan: resolved.id, purchased_credits: balance, qualifying_plans: QUALIFYING_PLANS },
  };
}

/**
 * "A Free account holding only its monthly allocation cannot create a token" (an OAuth access token): creating one
 * needs what the data API itself needs, a current paid subscription or a purchased balance above zero. Personal API keys are
 * not gated here: a key is how an account reaches anything, and every data route checks the entitlement itself.
 */
export function canCreateAccessToken(plan: Plan | PlanId, purchasedBalance: number): boolean {
  return hasPersonalDataEntitlement(plan, purchasedBalance);
}

/** canCreateAccessToken with, when refused, the rule and why (a token is only useful for personal data). */
export function accessTokenDecision(plan: Plan | PlanId, purchasedBalance: number): PersonalDataDecision {
  return personalDataDecision(plan, purchasedBalance);
}

/** "Raw CPE input on the personal enrichment surface requires the CPE field entitlement (currently Enterprise)." */
export function hasCpeEntitlement(plan: Plan | PlanId): boolean {
  return resolve(plan).cpeEntitlement;
}
