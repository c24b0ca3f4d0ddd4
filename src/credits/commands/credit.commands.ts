import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { UsageCategory } from '../domain/ledger.js';
import type { CreditLedger, Reservation } from './credit-ledger.js';

/** An operator records a purchase of credits for an account (`accounts purchase`; they never expire). */
export class PurchaseCredits extends Command<{ position: string | null }> {
  constructor(
    readonly accountId: string,
    readonly credits: number,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * Credits granted to a payer from a source that is no payer (`from`: e.g. `trial`), once per grant id: a
 * retried grant never credits twice.
 */
export class GrantCredits extends Command<{ position: string | null }> {
  constructor(
    readonly payer: string,
    readonly grantId: string,
    readonly credits: number,
    readonly from: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** What a reservation asks for: who pays, how much, under which usage category and channel. */
export type ReservationRequest = Parameters<CreditLedger['reserve']>[0];

/** Holds credits before work that charges (a search): refused with 402 `insufficient_credits` before it starts. */
export class ReserveCredits extends Command<Reservation> {
  constructor(
    readonly request: ReservationRequest,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Charges what the work cost (at most the reservation) and frees the rest; the position of the settlement. */
export class SettleReservation extends Command<string | null> {
  constructor(
    readonly reservation: Reservation,
    readonly charged: number,
    readonly envelope: CommandEnvelope,
    readonly category?: UsageCategory,
  ) {
    super();
  }
}

/** Frees a reservation whose work charged nothing (failed or cancelled). */
export class ReleaseReservation extends Command<string | null> {
  constructor(
    readonly reservation: Reservation,
    readonly reason: 'cancelled' | 'failed',
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
