/**
 * The personal plan catalogue and the billing cycle. Pure: no clock, no I/O.
 */

export const PLAN_IDS = ['free', 'basic', 'professional', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export interface Plan {
  readonly id: PlanId;
  /** Shown as plan_label. */
  readonly label: string;
  /** The monthly allocation (monthly_credits), granted afresh every billing cycle. */
  readonly monthlyCredits: number;
  /**
   * A current paid subscription (contract, Authentication 3: "Professional or Enterprise"): grants personal data
   * access without a purchased balance. The legacy Basic plan is paid for but is not a current subscription.
   */
  readonly currentPaidSubscription: boolean;
  /** Kept for accounts created before the current plans (is_legacy). */
  readonly isLegacy: boolean;
  /** Raw CPE input on the personal enrichment surface ("currently Enterprise"). */
  readonly cpeEntitlement: boolean;
  /** How many export result rows the plan may export per billing cycle. */
  readonly exportResultsPerCycle: number;
}

export const PLANS: Readonly<Record<PlanId, Plan>> = {
  free: {
    id: 'free',
    label: 'Free',
    monthlyCredits: 50,
    currentPaidSubscription: false,
    isLegacy: false,
    cpeEntitlement: false,
    exportResultsPerCycle: 1_000,
  },
  basic: {
    id: 'basic',
    label: 'Basic (legacy)',
    monthlyCredits: 1_000,
    currentPaidSubscription: false,
    isLegacy: true,
    cpeEntitlement: false,
    exportResultsPerCycle: 10_000,
  },
  professional: {
    id: 'professional',
    label: 'Professional',
    monthlyCredits: 5_000,
    currentPaidSubscription: true,
    isLegacy: false,
    cpeEntitlement: false,
    exportResultsPerCycle: 100_000,
  },
  enterprise: {
    id: 'enterprise',
    label: 'Enterprise',
    monthlyCredits: 50_000,
    currentPaidSubscription: true,
    isLegacy: false,
    cpeEntitlement: true,
    exportResultsPerCycle: 1_000_000,
  },
};

export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

export function planById(id: PlanId): Plan {
  if (!isPlanId(id)) throw new Error(`Unknown plan: ${String(id)}`);
  return PLANS[id];
}

export interface BillingCycle {
  /** ISO-8601, inclusive. */
  readonly start: string;
  /** ISO-8601, exclusive: the next cycle's start. */
  readonly end: string;
}

/**
 * The monthly billing cycle containing `now` (start <= now < end), in UTC.
 * Cycles start at 00:00 UTC on the anchor's day of month (the anchor is the registration date-time); in a month
 * shorter than that day, the cycle starts on the month's last day (anchor 31 → 28/29 February, 30 April). The
 * sequence extends backwards too, so a `now` before the anchor still gets a well-formed cycle; the first cycle
 * starts at the anchor day of the anchor month.
 */
export function billingCycle(anchor: string, now: Date): BillingCycle {
  const anchorTime = Date.parse(anchor);
  if (Number.isNaN(anchorTime)) throw new Error(`Invalid billing anchor: ${anchor}`);
  const nowTime = now.getTime();
  if (Number.isNaN(nowTime)) throw new Error('Invalid date for the billing cycle');
  const anchorDay = new Date(anchorTime).getUTCDate();

  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  if (cycleStartIn(year, month, anchorDay) > nowTime) {
    month -= 1;
    if (month < 0) {
      month = 11;
      year -= 1;
    }
  }
  const start = cycleStartIn(year, month, anchorDay);
  const end = month === 11 ? cycleStartIn(year + 1, 0, anchorDay) : cycleStartIn(year, month + 1, anchorDay);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** Milliseconds of 00:00 UTC on the cycle's first day in that month (month 0–11). */
function cycleStartIn(year: number, month: number, anchorDay: number): number {
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(anchorDay, daysInMonth));
}
