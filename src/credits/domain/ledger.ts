/**
 * The credit ledger: one stream per payer (`ledger-account-<id>`, `ledger-organization-<id>`).
 *
 * Two pools: the monthly allocation of the current billing cycle (granted afresh each cycle, never carried over)
 * and purchased credits (never expire). Work reserves credits before it runs and settles the actual charge after;
 * a reservation holds credits so concurrent work can never overspend. Pure decider: the cycle and the allowance
 * come in the context, computed by the caller from the plan and the billing anchor.
 */
import type { Decider } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  available,
  CHANNELS,
  effectiveCycle,
  envelopeAvailable,
  evolveLedger,
  initialLedgerState,
  openReservation,
  RELEASE_REASONS,
  transferable,
  USAGE_CATEGORIES,
  allowanceLeft,
  type Channel,
  type CreditEnvelope,
  type LedgerContext,
  type LedgerCycle,
  type LedgerEvent,
  type LedgerState,
  type ReleaseReason,
  type UsageCategory,
} from './ledger-state.js';

// The state side keeps its import path here: every ledger name is importable from ledger.ts.
export {
  allowanceLeft,
  available,
  CHANNELS,
  effectiveCycle,
  envelopeAvailable,
  RELEASE_REASONS,
  reservedTotal,
  transferable,
  USAGE_CATEGORIES,
} from './ledger-state.js';
export type {
  AllowanceAdjusted,
  Channel,
  CreditEnvelope,
  CreditsPurchased,
  CreditsReserved,
  CreditsTransferredIn,
  CreditsTransferredOut,
  CycleStarted,
  LedgerContext,
  LedgerCycle,
  LedgerEvent,
  LedgerState,
  OpenReservation,
  ReleaseReason,
  ReservationReleased,
  ReservationSettled,
  UsageCategory,
  UsageTotals,
} from './ledger-state.js';

/** `account:<id>` → `ledger-account-<id>`; `organization:<id>` → `ledger-organization-<id>`. */
export function ledgerStreamId(payer: string): string {
  if (payer.length === 0) throw new Error('A ledger needs a payer.');
  return `ledger-${payer.replace(':', '-')}`;
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

// ---- Decider ----

export const ledgerDecider: Decider<LedgerCommand, LedgerEvent, LedgerState, LedgerContext> = {
  initialState: initialLedgerState,

  decide(command, state, context) {
    assertContext(context);
    // Bring the ledger to the context's cycle first; the decision is made on that state.
    const bookkeeping = cycleBookkeeping(state, context);
    const current = bookkeeping.reduce(evolveLedger, state);
    const events = decideOnCurrentCycle(command, current, context);
    if (events.length === 0) {
      // Bookkeeping is never written on its own, except by the expiry sweep of a ledger already in use.
      return command.type === 'ExpireReservations' && state.cycle !== null ? bookkeeping : [];
    }
    return [...bookkeeping, ...events];
  },

  evolve: evolveLedger,
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

// ---- Helpers ----

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
