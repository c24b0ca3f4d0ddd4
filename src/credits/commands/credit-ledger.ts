import { randomUUID } from 'node:crypto';
import { accountDecider, accountStreamId } from '../../accounts/domain/account.js';
import { billingCycle, planById } from '../../accounts/domain/plans.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { AppendConditionFailed, type AppendCondition } from '../../platform/event-store/event-store.port.js';
import type { Clock } from '../../platform/clock/clock.js';
import { causedBy, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import {
  available,
  ledgerDecider,
  ledgerStreamId,
  type Channel,
  type CreditEnvelope,
  type LedgerCommand,
  type LedgerContext,
  type LedgerState,
  type UsageCategory,
} from '../domain/ledger.js';

/** A hold on credits taken before work starts; settle it with the actual cost, or release it. */
export interface Reservation {
  readonly reservationId: string;
  readonly payer: string;
  readonly amount: number;
  readonly category: UsageCategory;
  readonly channel: Channel;
  readonly envelopes?: readonly CreditEnvelope[];
}

/** What a payer's ledger decides with besides its own stream (CreditLedger.payerTerms). */
export interface PayerTerms {
  readonly payer: string;
  /** Monthly allocation of the account's plan; 0 for an organization. */
  readonly allowance: number;
  /** The account's billing anchor; null for an organization, whose cycle is the calendar month. */
  readonly cycleAnchor: string | null;
  /**
   * The account stream's version these terms were read at (an organization's terms read nothing): the ledger's
   * append is conditioned on it (ADR 128), so a decision never stands on terms that changed before it landed.
   */
  readonly basis?: AppendCondition;
}

/** The ledger's context at `now` from the payer's terms (pure). */
export function ledgerContextAt(terms: PayerTerms, now: Date): LedgerContext {
  const anchor =
    terms.cycleAnchor ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
  return { now, cycle: billingCycle(anchor, now), allowance: terms.allowance };
}

/** How often a ledger command is decided again when the payer's account moved under its terms (ADR 128). */
const MAX_TERMS_RETRIES = 5;

function termsOf(
  payer: string,
  stream: string,
  account: { readonly state: ReturnType<typeof accountDecider.evolve>; readonly version: number | null },
): PayerTerms {
  if (!account.state.registered) throw new ServiceError('not_found', `no account ${payer}`);
  return {
    payer,
    allowance: planById(account.state.plan).monthlyCredits,
    cycleAnchor: account.state.cycleAnchor,
    basis: { streamId: stream, version: account.version },
  };
}

/** Reservations abandoned by a crashed request are released by the sweeper after this long. */
export const DEFAULT_RESERVATION_TTL_MS = 5 * 60 * 1000;

/** What the ledger uses (a ServiceContext has both). */
export interface CreditLedgerPorts {
  readonly writer: StreamWriter;
  readonly clock: Clock;
}

/**
 * The application side of the credit ledger: computes the payer's context (plan allowance and billing cycle)
 * and runs ledger commands through the StreamWriter. Every rule lives in the pure ledger decider. Work that
 * charges (search, exports, exposure refreshes) and the credit command handlers call it.
 */
export class CreditLedger {
  private readonly writer: StreamWriter;
  private readonly clock: Clock;
  private readonly groupCommit: boolean;

  constructor(
    ports: CreditLedgerPorts,
    options: {
      /**
       * Commands queued on one payer's ledger are decided together and appended in one call (ADR 91; default
       * on). Off: one append per command, as the benchmark's baseline.
       */
      readonly groupCommit?: boolean;
    } = {},
  ) {
    this.writer = ports.writer;
    this.clock = ports.clock;
    this.groupCommit = options.groupCommit ?? true;
  }

  /** The allowance and cycle a payer's ledger decides with, now (or at `at`, for an `as_of` read). */
  async ledgerContext(payer: string, at?: Date): Promise<LedgerContext> {
    return ledgerContextAt(await this.payerTerms(payer), at ?? this.clock.now());
  }

  /**
   * What the payer's ledger decides with besides its own stream: an account's plan allowance and billing anchor,
   * read from its stream; an organization's are fixed (no read). `inReadGroup`: the caller holds a read group
   * (the search's lookups), so the read is its own, on the group's connection, never a shared one.
   */
  async payerTerms(payer: string, options: { readonly inReadGroup?: boolean } = {}): Promise<PayerTerms> {
    if (payer.startsWith('account:')) {
      const stream = accountStreamId(payer.slice('account:'.length));
      return termsOf(
        payer,
        stream,
        await this.writer.load(stream, accountDecider, { ownRead: options.inReadGroup === true }),
      );
    }
    // Organizations have no monthly allocation: their credits are purchased, transferred or trial credits.
    return { payer, allowance: 0, cycleAnchor: null };
  }

  /**
   * The payer's terms as this process last knew them, without a read (ADR 128), or read when it knows none. Safe
   * because the ledger's append is conditioned on the version they came from (PayerTerms.basis).
   */
  private knownOrReadTerms(payer: string): Promise<PayerTerms> | PayerTerms {
    if (!payer.startsWith('account:')) return this.payerTerms(payer);
    const stream = accountStreamId(payer.slice('account:'.length));
    const known = this.writer.known(stream, accountDecider);
    return known ? termsOf(payer, stream, known) : this.payerTerms(payer);
  }

  async state(payer: string): Promise<LedgerState> {
    return (await this.writer.load(ledgerStreamId(payer), ledgerDecider)).state;
  }

  async available(payer: string): Promise<number> {
    const [state, context] = await Promise.all([this.state(payer), this.ledgerContext(payer)]);
    return available(state, context);
  }

  /** Holds `amount` credits, or refuses with 402 insufficient_credits before any work starts. */
  async reserve(
    request: {
      payer: string;
      amount: number;
      category: UsageCategory;
      channel: Channel;
      ttlMs?: number;
      envelopes?: readonly CreditEnvelope[];
      /**
       * The payer's terms when the caller read them moments before, in the request's read group (the search
       * handler's lookups, ADR 120): the same READ COMMITTED read as here, one commit fewer. Read here otherwise.
       */
      terms?: PayerTerms;
    },
    envelope: CommandEnvelope,
  ): Promise<Reservation> {
    const reservationId = randomUUID();
    await this.run(
      request.payer,
      {
        type: 'ReserveCredits',
        reservationId,
        amount: request.amount,
        category: request.category,
        channel: request.channel,
        ttlMs: request.ttlMs ?? DEFAULT_RESERVATION_TTL_MS,
        ...(request.envelopes && request.envelopes.length > 0 ? { envelopes: request.envelopes } : {}),
      },
      causedBy(envelope, `reserve:${reservationId}`),
      request.terms,
    );
    return {
      reservationId,
      payer: request.payer,
      amount: request.amount,
      category: request.category,
      channel: request.channel,
      ...(request.envelopes ? { envelopes: request.envelopes } : {}),
    };
  }

  /**
   * Charges the actual cost (at most the reserved amount), booked under `category` when given (else the
   * reservation's); returns the stream position for read-your-writes.
   */
  async settle(
    reservation: Reservation,
    charged: number,
    envelope: CommandEnvelope,
    category?: UsageCategory,
  ): Promise<string | null> {
    return this.run(
      reservation.payer,
      {
        type: 'SettleReservation',
        reservationId: reservation.reservationId,
        charged,
        ...(category ? { category } : {}),
      },
      causedBy(envelope, `settle:${reservation.reservationId}`),
    );
  }

  async release(
    reservation: Reservation,
    reason: 'cancelled' | 'failed',
    envelope: CommandEnvelope,
  ): Promise<string | null> {
    return this.run(
      reservation.payer,
      { type: 'ReleaseReservation', reservationId: reservation.reservationId, reason },
      causedBy(envelope, `release:${reservation.reservationId}`),
    );
  }

  async purchase(
    payer: string,
    credits: number,
    envelope: CommandEnvelope,
    purchaseId: string = randomUUID(),
  ): Promise<string | null> {
    return this.run(
      payer,
      { type: 'PurchaseCredits', purchaseId, credits },
      causedBy(envelope, `purchase:${purchaseId}`),
    );
  }

  /** Releases this payer's reservations whose time ran out (the sweeper calls it). */
  async expireDue(payer: string, envelope: CommandEnvelope): Promise<string | null> {
    return this.run(payer, { type: 'ExpireReservations' }, envelope);
  }

  /** Moves purchased credits out of `payer` to `to` (once per transfer id). */
  async transferOut(
    payer: string,
    transfer: { transferId: string; credits: number; to: string },
    envelope: CommandEnvelope,
  ): Promise<string | null> {
    return this.run(payer, { type: 'TransferOut', ...transfer }, envelope);
  }

  /** Credits `payer` with credits from another payer or a grant such as a trial (once per transfer id). */
  async transferIn(
    payer: string,
    transfer: { transferId: string; credits: number; from: string },
    envelope: CommandEnvelope,
  ): Promise<string | null> {
    return this.run(payer, { type: 'TransferIn', ...transfer }, envelope);
  }

  /**
   * Decides a ledger command with the payer's terms: the caller's (read moments before in its read group), else
   * the ones this process knows, else read. The append is conditioned on the account version they came from
   * (ADR 128): when the account moved meanwhile (a plan change), the terms are read again and the command decided
   * again, so the settlement no longer reads the account before every append to be sure of it.
   */
  private async run(
    payer: string,
    command: LedgerCommand,
    envelope: CommandEnvelope,
    terms?: PayerTerms,
  ): Promise<string | null> {
    for (let attempt = 0; ; attempt++) {
      const current =
        attempt > 0
          ? await this.payerTerms(payer)
          : terms?.payer === payer
            ? terms
            : await this.knownOrReadTerms(payer);
      try {
        const result = await this.writer.decide({
          stream: ledgerStreamId(payer),
          decider: ledgerDecider,
          command,
          context: ledgerContextAt(current, this.clock.now()),
          envelope: { ...envelope, metadata: { ...envelope.metadata, payer } },
          // The client sent no version: a conflict with another instance's append is ours to retry.
          conflictRetries: 25,
          groupCommit: this.groupCommit,
          ...(current.basis ? { conditions: [current.basis] } : {}),
        });
        return result.position;
      } catch (error) {
        // The account changed under the terms: read them again (a plan change is rare; more is a conflict).
        if (error instanceof AppendConditionFailed && attempt < MAX_TERMS_RETRIES) continue;
        throw error;
      }
    }
  }
}
