import type { CreditStateDocument } from '../../../projections/credit-state.projection.js';
import { CREDIT_STATES } from '../../../projections/credit-state.projection.js';
import {
  CREDIT_USAGE,
  creditUsageId,
  type CreditUsageDocument,
} from '../../../projections/credit-usage.projection.js';
import { hasPersonalDataEntitlement } from '../../accounts/domain/entitlements.js';
import { billingCycle } from '../../accounts/domain/plans.js';
import type { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { Clock } from '../../platform/clock/clock.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { USAGE_CATEGORIES } from '../domain/ledger.js';

/** GET /api/v2/auth/credits, as the contract names its fields. */
export interface CreditStateView {
  readonly monthly_credits: number;
  readonly credits_used: number;
  readonly purchased_credits: number;
  readonly lifetime_purchased: number;
  readonly cycle_start: string;
  readonly cycle_end: string;
  readonly has_paid_entitlement: boolean;
  readonly plan_label: string;
  readonly is_legacy: boolean;
}

export interface CreditUsageView {
  readonly cycle_start: string;
  readonly usage: ReadonlyArray<{ category: string; credits: number }>;
  readonly usage_mcp: ReadonlyArray<{ category: string; credits: number }>;
}

/** What the credit queries read (a ServiceContext has both). */
export interface CreditQueryPorts {
  readonly projections: ProjectionRunner;
  readonly clock: Clock;
}

/** Credit state and usage of a personal account, from the credit read models. */
export class CreditQueries {
  private readonly projections: ProjectionRunner;
  private readonly clock: Clock;

  constructor(
    ports: CreditQueryPorts,
    private readonly accounts: AccountDirectory,
  ) {
    this.projections = ports.projections;
    this.clock = ports.clock;
  }

  async creditState(accountId: string): Promise<CreditStateView> {
    const account = await this.accounts.account(accountId);
    if (!account) throw new ServiceError('not_found', 'no such account');
    const plan = this.accounts.plan(account);
    const cycle = billingCycle(account.cycleAnchor, this.clock.now());
    const state = await this.projections
      .collection<CreditStateDocument>('credit-state', CREDIT_STATES)
      .get(`account:${accountId}`);
    // A ledger untouched since an earlier cycle has used nothing of the current one.
    const current = state?.cycleStart === cycle.start;
    const purchased = state?.purchasedBalance ?? 0;
    return {
      monthly_credits: plan.monthlyCredits,
      credits_used: current ? (state?.creditsUsed ?? 0) : 0,
      purchased_credits: purchased,
      lifetime_purchased: state?.lifetimePurchased ?? 0,
      cycle_start: cycle.start,
      cycle_end: cycle.end,
      has_paid_entitlement: hasPersonalDataEntitlement(plan, purchased),
      plan_label: plan.label,
      is_legacy: plan.isLegacy,
    };
  }

  async usage(accountId: string): Promise<CreditUsageView> {
    const account = await this.accounts.account(accountId);
    if (!account) throw new ServiceError('not_found', 'no such account');
    const cycle = billingCycle(account.cycleAnchor, this.clock.now());
    const document = await this.projections
      .collection<CreditUsageDocument>('credit-usage', CREDIT_USAGE)
      .get(creditUsageId(`account:${accountId}`, cycle.start));
    const list = (counts: Readonly<Record<string, number>> | undefined) =>
      USAGE_CATEGORIES.map((category) => ({ category, credits: counts?.[category] ?? 0 }));
    return { cycle_start: cycle.start, usage: list(document?.usage), usage_mcp: list(document?.usageMcp) };
  }
}
