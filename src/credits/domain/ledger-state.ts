/**
 * The credit ledger's vocabulary, events and state: how a payer's stream folds (evolve) and what the state
 * answers (available credits, what may be transferred, what an envelope still allows). The rules that decide
 * which events a command produces are in ledger.ts, which re-exports all of this.
 */
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';

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

export interface LedgerContext {
  readonly now: Date;
  /** The payer's billing cycle containing `now`. */
  readonly cycle: { readonly start: string; readonly end: string };
  /** The payer's monthly allocation for this cycle. */
  readonly allowance: number;
}

/** A limit inside the shared balance: what settled and open reservations under `key` may never exceed. */
export interface CreditEnvelope {
  readonly key: string;
  readonly limit: number;
}

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

export const initialLedgerState: LedgerState = {
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

/** Folds one ledger event into the state. */
export function evolveLedger(state: LedgerState, event: LedgerEvent): LedgerState {
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

export function openReservation(state: LedgerState, reservationId: string): OpenReservation | undefined {
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
