/**
 * The credit ledger: one stream per payer (`ledger-account-<id>`, `ledger-organization-<id>`).
 *
 * Two pools: the monthly allocation of the current billing cycle (granted afresh each cycle, never carried over)
 * and purchased credits (never expire). Work reserves credits before it runs and settles the actual charge after;
 * a reservation holds credits so concurrent work can never overspend. Pure decider: the cycle and the allowance
 * come in the context, computed by the caller from the plan and the billing anchor.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

export const USAGE_CATEGORIES = [
  'host',
  'dns',
  'whois',
  'certs',
  'alerting',
  'subdomains',
  'exports',
  'tools',
] as const;
export type UsageCategory = (typeof USAGE_CATEGORIES)[number];

export const CHANNELS = ['api', 'session', 'mcp'] as const;
export type Channel = (typeof CHANNELS)[number];

export const RELEASE_REASONS = ['cancelled', 'failed', 'expired'] as const;
export type ReleaseReason = (typeof RELEASE_REASONS)[number];

/** `account:<id>` → `ledger-account-<id>`; `organization:<id>` → `ledger-organization-<id>`. */
export function ledgerStreamId(payer: string): string {
  if (payer.length === 0) throw new Error('A ledger needs a payer.');
  return `ledger-${payer.replace(':', '-')}`;
}

export interface LedgerContext {
  readonly now: Date;
  /** The payer's billing cycle containing `now`. */
  readonly cycle: { readonly start: string; readonly end: string };
  /** The payer's monthly allocation for this cycle. */
  readonly allowance: number;
}

// ---- Commands ----

export interface PurchaseCredits {
  readonly type: 'PurchaseCredits';
  readonly purchaseId: string;
  readonly credits: number;
}
export interface ReserveCredits {
  readonly type: 'ReserveCredits';
  readonly reservationId: string;
  readonly amount: number;
  readonly category: UsageCategory;
  readonly channel: Channel;
  /** How long the reservation holds before ExpireReservations may release it. */
  readonly ttlMs: number;
  /**
   * Limits inside this payer's balance the reservation also counts against (an organization space's
   * credit_limit, an external user's portion): enforced here, together with the balance, in one decision.
   */
  readonly envelopes?: readonly CreditEnvelope[];
}

/** A limit inside the shared balance: what settled and open reservations under `key` may never exceed. */
export interface CreditEnvelope {
  readonly key: string;
  readonly limit: number;
}
export interface SettleReservation {
  readonly type: 'SettleReservation';
  readonly reservationId: string;
  /** The actual cost, 0..reserved amount. */
  readonly charged: number;
  /**
   * The usage category the charge is booked under, when the work learns it only once done (a unified search
   * books the dataset that set its price). Default: the reservation's category.
   */
  readonly category?: UsageCategory;
}
export interface ReleaseReservation {
  readonly type: 'ReleaseReservation';
  readonly reservationId: string;
  readonly reason: ReleaseReason;
}
export interface ExpireReservations {
  readonly type: 'ExpireReservations';
}
export interface TransferOut {
  readonly type: 'TransferOut';
  readonly transferId: string;
  readonly credits: number;
  /** The receiving payer (e.g. `organization:<id>`). */
  readonly to: string;
}
export interface TransferIn {
  readonly type: 'TransferIn';
  readonly transferId: string;
  readonly credits: number;
  /** The sending payer (e.g. `account:<id>`). */
  readonly from: string;
}
export type LedgerCommand =
  | PurchaseCredits
  | ReserveCredits
  | SettleReservation
  | ReleaseReservation
  | ExpireReservations
  | TransferOut
  | TransferIn;

// ---- Events ----

export type CreditsPurchased = DomainEvent<
  'CreditsPurchased',
  { purchaseId: string; credits: number; purchasedAt: string }
>;
export type CycleStarted = DomainEvent<
  'CycleStarted',
  { cycleStart: string; cycleEnd: string; allowance: number }
>;
export type AllowanceAdjusted = DomainEvent<'AllowanceAdjusted', { allowance: number }>;
export type CreditsReserved = DomainEvent<
  'CreditsReserved',
  {
    reservationId: string;
    amount: number;
    category: UsageCategory;
    channel: Channel;
    reservedAt: string;
    expiresAt: string;
    /** Envelope keys the reservation counts against (absent when none). */
    envelopes?: string[];
  }
>;
export type ReservationSettled = DomainEvent<
  'ReservationSettled',
  {
    reservationId: string;
    /** charged = fromAllowance + fromPurchased + waived. */
    charged: number;
    fromAllowance: number;
    fromPurchased: number;
    /** The part neither pool could cover (only after the allowance shrank under an open reservation). */
    waived: number;
    category: UsageCategory;
    channel: Channel;
    cycleStart: string;
    settledAt: string;
  }
>;
export type ReservationReleased = DomainEvent<
  'ReservationReleased',
  { reservationId: string; reason: ReleaseReason; releasedAt: string }
>;
export type CreditsTransferredOut = DomainEvent<
  'CreditsTransferredOut',
  { transferId: string; credits: number; to: string }
>;
export type CreditsTransferredIn = DomainEvent<
  'CreditsTransferredIn',
  { transferId: string; credits: number; from: string }
>;
export type LedgerEvent =
  | CreditsPurchased
  | CycleStarted
  | AllowanceAdjusted
  | CreditsReserved
  | ReservationSettled
  | ReservationReleased
  | CreditsTransferredOut
  | CreditsTransferredIn;

// ---- State (plain JSON, bounded: settled reservations leave no trace in it) ----

export interface LedgerCycle {
  readonly start: string;
  readonly end: string;
  readonly allowance: number;
  /**
   * Monthly allocation spent in this cycle. It can exceed `allowance` only after a mid-cycle downgrade
   * (AllowanceAdjusted to less than was already used); it is never capped, so downgrading and upgrading again
   * cannot hand out the same allocation twice.
   */
  readonly allowanceUsed: number;
}

export interface OpenReservation {
  readonly amount: number;
  readonly category: UsageCategory;
  readonly channel: Channel;
  readonly expiresAt: string;
  readonly envelopes?: readonly string[];
}

export type UsageTotals = Readonly<Partial<Record<UsageCategory, number>>>;

export interface LedgerState {
  readonly cycle: LedgerCycle | null;
  readonly purchasedBalance: number;
  /** Credits ever bought by this payer (CreditsPurchased only; transfers in are not purchases). */
  readonly lifetimePurchased: number;
  readonly openReservations: Readonly<Record<string, OpenReservation>>;
  /** Credits spent in the current cycle per category (fromAllowance + fromPurchased; waived not counted). */
  readonly usage: UsageTotals;
  /** The MCP-channel part of `usage` (a subset, not an extra charge). */
  readonly usageMcp: UsageTotals;
  /** Credits settled under each envelope key, ever (an envelope is an allotment, not a monthly budget). */
  readonly envelopeSpent?: Readonly<Record<string, number>>;
  /** Transfer ids already applied here, so a resumed transfer process never moves credits twice. */
  readonly transfers?: Readonly<Record<string, number>>;
}

const initialState: LedgerState = {
  cycle: null,
  purchasedBalance: 0,
  lifetimePurchased: 0,
  openReservations: {},
  usage: {},
  usageMcp: {},
};

// ---- Queries on the state ----

/** Sum of the credits held by open reservations. */
export function reservedTotal(state: LedgerState): number {
  let total = 0;
  for (const reservation of Object.values(state.openReservations)) total += reservation.amount;
  return total;
}

/**
 * The cycle the ledger is in for this context. Cycles only move forward: a context whose cycle starts before the
 * ledger's (a lagging clock) keeps the ledger's cycle and allowance, so an old cycle is never reopened.
 */
export function effectiveCycle(state: LedgerState, context: LedgerContext): LedgerCycle {
  const current = state.cycle;
  if (current !== null && current.start === context.cycle.start) {
    return { ...current, allowance: context.allowance };
  }
  if (current !== null && Date.parse(current.start) > Date.parse(context.cycle.start)) return current;
  return {
    start: context.cycle.start,
    end: context.cycle.end,
    allowance: context.allowance,
    allowanceUsed: 0,
  };
}

/** Monthly allocation left in the context's cycle (before open reservations). */
export function allowanceLeft(state: LedgerState, context: LedgerContext): number {
  const cycle = effectiveCycle(state, context);
  return Math.max(0, cycle.allowance - cycle.allowanceUsed);
}

/** What a new reservation may take: allowance left + purchased balance − open reservations, never below 0. */
export function available(state: LedgerState, context: LedgerContext): number {
  return Math.max(0, allowanceLeft(state, context) + state.purchasedBalance - reservedTotal(state));
}

/**
 * Purchased credits not held by open reservations. Reservations are counted against the monthly allocation
 * first (the same order settlements spend in), so only the part beyond it holds purchased credits.
 */
export function transferable(state: LedgerState, context: LedgerContext): number {
  const heldFromPurchased = Math.max(0, reservedTotal(state) - allowanceLeft(state, context));
  return Math.max(0, state.purchasedBalance - heldFromPurchased);
}

/** What an envelope still allows: its limit − settled − open reservations under it, never below 0. */
export function envelopeAvailable(state: LedgerState, envelope: CreditEnvelope): number {
  let used = state.envelopeSpent?.[envelope.key] ?? 0;
  for (const reservation of Object.values(state.openReservations)) {
    if (reservation.envelopes?.includes(envelope.key)) used += reservation.amount;
  }
  return Math.max(0, envelope.limit - used);
}

// ---- Decider ----

export const ledgerDecider: Decider<LedgerCommand, LedgerEvent, LedgerState, LedgerContext> = {
  initialState,

  decide(command, state, context) {
    assertContext(context);
    // Bring the ledger to the context's cycle first; the decision is made on that state.
    const bookkeeping = cycleBookkeeping(state, context);
    const current = bookkeeping.reduce(evolve, state);
    const events = decideOnCurrentCycle(command, current, context);
    if (events.length === 0) {
      // Bookkeeping is never written on its own, except by the expiry sweep of a ledger already in use.
      return command.type === 'ExpireReservations' && state.cycle !== null ? bookkeeping : [];
    }
    return [...bookkeeping, ...events];
  },

  evolve,
};

function cycleBookkeeping(state: LedgerState, context: LedgerContext): LedgerEvent[] {
  const target = effectiveCycle(state, context);
  const current = state.cycle;
  if (current === null || current.start !== target.start) {
    return [
      {
        type: 'CycleStarted',
        data: { cycleStart: target.start, cycleEnd: target.end, allowance: target.allowance },
      },
    ];
  }
  if (current.allowance !== target.allowance) {
    return [{ type: 'AllowanceAdjusted', data: { allowance: target.allowance } }];
  }
  return [];
}

function decideOnCurrentCycle(
  command: LedgerCommand,
  state: LedgerState,
  context: LedgerContext,
): LedgerEvent[] {
  const now = context.now.toISOString();
  switch (command.type) {
    case 'PurchaseCredits': {
      requireId(command.purchaseId, 'purchaseId');
      requirePositiveInteger(command.credits, 'credits');
      return [
        {
          type: 'CreditsPurchased',
          data: { purchaseId: command.purchaseId, credits: command.credits, purchasedAt: now },
        },
      ];
    }

    case 'ReserveCredits': {
      const { reservationId, amount, category, channel, ttlMs } = command;
      requireId(reservationId, 'reservationId');
      requirePositiveInteger(amount, 'amount');
      requirePositiveInteger(ttlMs, 'ttlMs');
      if (!(USAGE_CATEGORIES as readonly string[]).includes(category)) {
        throw new ServiceError('invalid_input', 'Unknown usage category.', { field: 'category', category });
      }
      if (!(CHANNELS as readonly string[]).includes(channel)) {
        throw new ServiceError('invalid_input', 'Unknown channel.', { field: 'channel', channel });
      }
      const existing = openReservation(state, reservationId);
      if (existing) {
        // A retried reservation is already held; the same id for different work is a caller bug.
        if (existing.amount === amount && existing.category === category && existing.channel === channel)
          return [];
        throw new ServiceError('already_exists', 'A different reservation with this id is open.', {
          reservationId,
        });
      }
      const free = available(state, context);
      if (amount > free) {
        throw new ServiceError('insufficient_credits', 'Not enough credits for this request.', {
          available: free,
          requested: amount,
        });
      }
      const envelopes = command.envelopes ?? [];
      for (const envelope of envelopes) {
        requireId(envelope.key, 'envelope.key');
        requireNonNegativeInteger(envelope.limit, 'envelope.limit');
        const left = envelopeAvailable(state, envelope);
        if (amount > left) {
          throw new ServiceError('envelope_exhausted', `Not enough credits left in ${envelope.key}.`, {
            envelope: envelope.key,
            limit: envelope.limit,
            available: left,
            requested: amount,
          });
        }
      }
      const expiresAt = new Date(context.now.getTime() + ttlMs).toISOString();
      return [
        {
          type: 'CreditsReserved',
          data: {
            reservationId,
            amount,
            category,
            channel,
            reservedAt: now,
            expiresAt,
            ...(envelopes.length > 0 ? { envelopes: envelopes.map((e) => e.key) } : {}),
          },
        },
      ];
    }

    case 'SettleReservation': {
      const { reservationId, charged } = command;
      requireNonNegativeInteger(charged, 'charged');
      if (
        command.category !== undefined &&
        !(USAGE_CATEGORIES as readonly string[]).includes(command.category)
      ) {
        throw new ServiceError('invalid_input', 'Unknown usage category.', {
          field: 'category',
          category: command.category,
        });
      }
      const reservation = openReservation(state, reservationId);
      if (!reservation) return []; // settled, released or unknown: idempotent, the caller logs it
      if (charged > reservation.amount) {
        throw new ServiceError('invalid_input', 'A settlement cannot charge more than was reserved.', {
          reservationId,
          reserved: reservation.amount,
          charged,
        });
      }
      // Spend order: the monthly allocation of the current cycle first (it lapses at the cycle's end), then
      // purchased credits (they never expire). What neither covers is waived, so no balance goes negative;
      // that happens only when the allowance shrank after the reservation was made.
      const fromAllowance = Math.min(charged, allowanceLeft(state, context));
      const fromPurchased = Math.min(charged - fromAllowance, state.purchasedBalance);
      const waived = charged - fromAllowance - fromPurchased;
      return [
        {
          type: 'ReservationSettled',
          data: {
            reservationId,
            charged,
            fromAllowance,
            fromPurchased,
            waived,
            category: command.category ?? reservation.category,
            channel: reservation.channel,
            cycleStart: (state.cycle as LedgerCycle).start,
            settledAt: now,
          },
        },
      ];
    }

    case 'ReleaseReservation': {
      if (!(RELEASE_REASONS as readonly string[]).includes(command.reason)) {
        throw new ServiceError('invalid_input', 'Unknown release reason.', {
          field: 'reason',
          reason: command.reason,
        });
      }
      if (!openReservation(state, command.reservationId)) return [];
      return [
        {
          type: 'ReservationReleased',
          data: { reservationId: command.reservationId, reason: command.reason, releasedAt: now },
        },
      ];
    }

    case 'ExpireReservations': {
      const nowMs = context.now.getTime();
      return Object.entries(state.openReservations)
        .filter(([, reservation]) => Date.parse(reservation.expiresAt) <= nowMs)
        .sort(([idA, a], [idB, b]) => compareText(a.expiresAt, b.expiresAt) || compareText(idA, idB))
        .map(([reservationId]) => ({
          type: 'ReservationReleased' as const,
          data: { reservationId, reason: 'expired' as const, releasedAt: now },
        }));
    }

    case 'TransferOut': {
      requireId(command.transferId, 'transferId');
      if (state.transfers && Object.hasOwn(state.transfers, command.transferId)) return [];
      requireId(command.to, 'to');
      requirePositiveInteger(command.credits, 'credits');
      const movable = transferable(state, context);
      if (command.credits > movable) {
        throw new ServiceError('insufficient_credits', 'Not enough purchased credits to transfer.', {
          available: movable,
          requested: command.credits,
        });
      }
      return [
        {
          type: 'CreditsTransferredOut',
          data: { transferId: command.transferId, credits: command.credits, to: command.to },
        },
      ];
    }

    case 'TransferIn': {
      requireId(command.transferId, 'transferId');
      if (state.transfers && Object.hasOwn(state.transfers, command.transferId)) return [];
      requireId(command.from, 'from');
      requirePositiveInteger(command.credits, 'credits');
      return [
        {
          type: 'CreditsTransferredIn',
          data: { transferId: command.transferId, credits: command.credits, from: command.from },
        },
      ];
    }

    default:
      throw new ServiceError('invalid_input', 'Unknown ledger command.');
  }
}

function evolve(state: LedgerState, event: LedgerEvent): LedgerState {
  switch (event.type) {
    case 'CycleStarted':
      return {
        ...state,
        cycle: {
          start: event.data.cycleStart,
          end: event.data.cycleEnd,
          allowance: event.data.allowance,
          allowanceUsed: 0,
        },
        usage: {},
        usageMcp: {},
      };
    case 'AllowanceAdjusted':
      return state.cycle === null
        ? state
        : { ...state, cycle: { ...state.cycle, allowance: event.data.allowance } };
    case 'CreditsPurchased':
      return {
        ...state,
        purchasedBalance: state.purchasedBalance + event.data.credits,
        lifetimePurchased: state.lifetimePurchased + event.data.credits,
      };
    case 'CreditsReserved': {
      const { reservationId, amount, category, channel, expiresAt, envelopes } = event.data;
      return {
        ...state,
        openReservations: {
          ...state.openReservations,
          [reservationId]: { amount, category, channel, expiresAt, ...(envelopes ? { envelopes } : {}) },
        },
      };
    }
    case 'ReservationSettled': {
      const { reservationId, fromAllowance, fromPurchased, category, channel, cycleStart } = event.data;
      const spent = fromAllowance + fromPurchased;
      const sameCycle = state.cycle !== null && state.cycle.start === cycleStart;
      const held = openReservation(state, reservationId);
      let envelopeSpent = state.envelopeSpent;
      if (held?.envelopes && event.data.charged > 0) {
        const next = { ...(envelopeSpent ?? {}) };
        for (const key of held.envelopes) next[key] = (next[key] ?? 0) + event.data.charged;
        envelopeSpent = next;
      }
      return {
        ...state,
        ...(envelopeSpent ? { envelopeSpent } : {}),
        openReservations: without(state.openReservations, reservationId),
        purchasedBalance: state.purchasedBalance - fromPurchased,
        cycle:
          state.cycle !== null && sameCycle
            ? { ...state.cycle, allowanceUsed: state.cycle.allowanceUsed + fromAllowance }
            : state.cycle,
        usage: sameCycle && spent > 0 ? addUsage(state.usage, category, spent) : state.usage,
        usageMcp:
          sameCycle && spent > 0 && channel === 'mcp'
            ? addUsage(state.usageMcp, category, spent)
            : state.usageMcp,
      };
    }
    case 'ReservationReleased':
      return { ...state, openReservations: without(state.openReservations, event.data.reservationId) };
    case 'CreditsTransferredOut':
      return {
        ...state,
        purchasedBalance: state.purchasedBalance - event.data.credits,
        transfers: { ...state.transfers, [event.data.transferId]: -event.data.credits },
      };
    case 'CreditsTransferredIn':
      return {
        ...state,
        purchasedBalance: state.purchasedBalance + event.data.credits,
        transfers: { ...state.transfers, [event.data.transferId]: event.data.credits },
      };
    default:
      return state;
  }
}

// ---- Helpers ----

function openReservation(state: LedgerState, reservationId: string): OpenReservation | undefined {
  return Object.hasOwn(state.openReservations, reservationId)
    ? state.openReservations[reservationId]
    : undefined;
}

function without<T>(record: Readonly<Record<string, T>>, key: string): Readonly<Record<string, T>> {
  if (!Object.hasOwn(record, key)) return record;
  const copy = { ...record };
  delete copy[key];
  return copy;
}

function addUsage(totals: UsageTotals, category: UsageCategory, credits: number): UsageTotals {
  return { ...totals, [category]: (totals[category] ?? 0) + credits };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function assertContext(context: LedgerContext): void {
  if (!Number.isSafeInteger(context.allowance) || context.allowance < 0) {
    throw new Error(
      `Ledger context: the allowance must be a non-negative integer (got ${context.allowance}).`,
    );
  }
  if (!(Date.parse(context.cycle.start) < Date.parse(context.cycle.end))) {
    throw new Error('Ledger context: the cycle must start before it ends.');
  }
  if (Number.isNaN(context.now.getTime())) throw new Error('Ledger context: invalid now.');
}

function requireId(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ServiceError('invalid_input', `${field} must be a non-empty string.`, { field });
  }
}

function requirePositiveInteger(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ServiceError('invalid_input', `${field} must be a positive integer.`, { field });
  }
}

function requireNonNegativeInteger(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ServiceError('invalid_input', `${field} must be a non-negative integer.`, { field });
  }
}
