import { ACCOUNTS, type AccountDocument } from '../../../projections/accounts.projection.js';
import type { CreditStateDocument } from '../../../projections/credit-state.projection.js';
import { CREDIT_STATES } from '../../../projections/credit-state.projection.js';
import {
  CREDIT_USAGE,
  creditUsageId,
  type CreditUsageDocument,
} from '../../../projections/credit-usage.projection.js';
import { allProjections } from '../../../projections/index.js';
import { accountStreamId } from '../../accounts/domain/account.js';
import { hasPersonalDataEntitlement } from '../../accounts/domain/entitlements.js';
import { billingCycle } from '../../accounts/domain/plans.js';
import type { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { Clock } from '../../platform/clock/clock.js';
import type { EventStore } from '../../platform/event-store/event-store.port.js';
import {
  asOfPoint,
  parseLogPoint,
  readStreamsUpTo,
  replayProjections,
  type AsOfPoint,
  type ReadSource,
} from '../../platform/projections/as-of-replay.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { ledgerStreamId, USAGE_CATEGORIES } from '../domain/ledger.js';

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
  /** Present when `as_of` was asked. */
  readonly as_of?: AsOfPoint;
}

export interface CreditUsageView {
  readonly cycle_start: string;
  readonly usage: ReadonlyArray<{ category: string; credits: number }>;
  readonly usage_mcp: ReadonlyArray<{ category: string; credits: number }>;
  readonly as_of?: AsOfPoint;
}

/** What the credit queries read (a ServiceContext has them all): the event log serves `as_of` replays. */
export interface CreditQueryPorts {
  readonly projections: ProjectionRunner;
  readonly clock: Clock;
  readonly eventStore: Pick<EventStore, 'readStream'>;
}

/** The read models a personal credit answer is made of, replayed for `as_of`. */
export const CREDIT_AS_OF_PROJECTIONS = ['accounts', 'credit-state', 'credit-usage'];

type CreditRead = { readonly source: ReadSource; readonly point?: AsOfPoint };

/** Credit state and usage of a personal account, from the credit read models. */
export class CreditQueries {
  private readonly projections: ProjectionRunner;
  private readonly clock: Clock;
  private readonly eventStore: Pick<EventStore, 'readStream'>;

  constructor(
    ports: CreditQueryPorts,
    private readonly accounts: AccountDirectory,
  ) {
    this.projections = ports.projections;
    this.clock = ports.clock;
    this.eventStore = ports.eventStore;
  }

  /**
   * The live read models, or (`as_of`) the account's own streams (registration and plan, its ledger) replayed
   * up to that moment through the same projections, with that moment as "now" (ADR 73).
   */
  private async read(accountId: string, asOf: unknown): Promise<CreditRead> {
    if (asOf === undefined) {
      return {
        source: {
          collection: (projection, name) => this.projections.collection(projection, name),
          now: () => this.clock.now(),
        },
      };
    }
    const target = parseLogPoint(asOf, 'as_of');
    const events = await readStreamsUpTo(
      this.eventStore,
      [accountStreamId(accountId), ledgerStreamId(`account:${accountId}`)],
      target,
    );
    const point = asOfPoint(asOf, target, events);
    const definitions = allProjections.filter((definition) =>
      CREDIT_AS_OF_PROJECTIONS.includes(definition.name),
    );
    return { source: replayProjections(definitions, events, new Date(point.time)), point };
  }

  private async account({ source, point }: CreditRead, accountId: string): Promise<AccountDocument> {
    const account = await source.collection<AccountDocument>('accounts', ACCOUNTS).get(accountId);
    if (!account && point) throw new ServiceError('not_found', 'the account did not exist at that moment');
    if (!account) throw new ServiceError('not_found', 'no such account');
    return account;
  }

  async creditState(accountId: string, asOf?: unknown): Promise<CreditStateView> {
    const read = await this.read(accountId, asOf);
    const account = await this.account(read, accountId);
    const plan = this.accounts.plan(account);
    const cycle = billingCycle(account.cycleAnchor, read.source.now());
    const state = await read.source
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
      ...(read.point ? { as_of: read.point } : {}),
    };
  }

  async usage(accountId: string, asOf?: unknown): Promise<CreditUsageView> {
    const read = await this.read(accountId, asOf);
    const account = await this.account(read, accountId);
    const cycle = billingCycle(account.cycleAnchor, read.source.now());
    const document = await read.source
      .collection<CreditUsageDocument>('credit-usage', CREDIT_USAGE)
      .get(creditUsageId(`account:${accountId}`, cycle.start));
    const list = (counts: Readonly<Record<string, number>> | undefined) =>
      USAGE_CATEGORIES.map((category) => ({ category, credits: counts?.[category] ?? 0 }));
    return {
      cycle_start: cycle.start,
      usage: list(document?.usage),
      usage_mcp: list(document?.usageMcp),
      ...(read.point ? { as_of: read.point } : {}),
    };
  }
}
