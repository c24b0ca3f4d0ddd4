import { PeriodicSweep } from '../platform/scheduling/periodic-sweep.js';
import { OPEN_RESERVATIONS } from '../../projections/open-reservations.projection.js';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import type { ServiceContext } from '../platform/service-context.js';
import { CreditLedger } from './commands/credit-ledger.js';

/**
 * Releases reservations whose request died before settling them (a crash, a lost connection), once their
 * time-to-live has passed. Every instance may sweep: releasing is idempotent in the ledger decider.
 */
export class ReservationSweeper extends PeriodicSweep {
  constructor(
    private readonly context: ServiceContext,
    private readonly ledger: CreditLedger = new CreditLedger(context),
  ) {
    super(15_000);
  }

  /** One pass: returns how many payers' ledgers it expired reservations on. */
  protected async sweep(): Promise<number> {
    const now = this.context.clock.now().toISOString();
    const due = await this.context.projections
      .collection(`open-reservations`, OPEN_RESERVATIONS)
      .find({ expiresAt: { $lte: now } }, { sort: [['expiresAt', 1]], limit: 1000 });
    const payers = [...new Set(due.map((reservation) => String(reservation.payer)))];
    const envelope = commandEnvelope({ actor: 'system:reservation-sweeper', payer: 'system' });
    for (const payer of payers) {
      const position = await this.ledger.expireDue(payer, envelope);
      await this.context.readYourWrites(['open-reservations', 'credit-state'], position);
    }
    return payers.length;
  }
}
