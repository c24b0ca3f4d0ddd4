import { PeriodicSweep, type SweepOptions } from '../platform/scheduling/periodic-sweep.js';
import { OPEN_RESERVATIONS } from '../../projections/open-reservations.projection.js';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import type { BackgroundChecks } from '../platform/health/background-checks.js';
import type { ProjectionRunner } from '../platform/projections/projection-runner.js';
import type { ReadStore } from '../platform/read-store/read-store.port.js';
import type { LogFunction } from '../platform/service-context.js';
import { CreditLedger, type CreditLedgerPorts } from './commands/credit-ledger.js';

/** What the sweeper reads and writes through (a ServiceContext has all of it). */
export interface ReservationSweeperPorts extends CreditLedgerPorts {
  readonly background: BackgroundChecks;
  readonly projections: ProjectionRunner;
  readonly storage: { readonly readStore: ReadStore };
  readonly log: LogFunction;
}

/**
 * Releases reservations whose request died before settling them (a crash, a lost connection), once their
 * time-to-live has passed. Every instance may sweep: releasing is idempotent in the ledger decider. A payer whose
 * ledger cannot be written is retried with backoff and never holds back the other payers.
 */
export class ReservationSweeper extends PeriodicSweep {
  constructor(
    private readonly context: ReservationSweeperPorts,
    private readonly ledger: CreditLedger = new CreditLedger(context),
    options: SweepOptions = {},
  ) {
    super(
      15_000,
      'reservation-sweeper',
      {
        background: context.background,
        readStore: context.storage.readStore,
        log: options.log ?? context.log,
      },
      options.retry,
    );
  }

  /** One pass: returns how many payers' ledgers it expired reservations on. */
  protected async sweep(): Promise<number> {
    const now = this.context.clock.now().toISOString();
    const reservations = this.context.projections.collection(`open-reservations`, OPEN_RESERVATIONS);
    // Payers that failed before and have nothing due any more need no retry.
    await this.failures.keepOnly(async (payers) =>
      (await reservations.find({ payer: { $in: payers }, expiresAt: { $lte: now } })).map((r) =>
        String(r.payer),
      ),
    );
    const waiting = await this.failures.waiting();
    const due = await reservations.find(
      { expiresAt: { $lte: now }, ...(waiting.length > 0 ? { payer: { $nin: waiting } } : {}) },
      { sort: [['expiresAt', 1]], limit: 1000 },
    );
    const payers = [...new Set(due.map((reservation) => String(reservation.payer)))];
    const envelope = commandEnvelope({ actor: 'system:reservation-sweeper', payer: 'system' });
    let expired = 0;
    for (const payer of payers) {
      const outcome = await this.item(payer, async () => {
        const position = await this.ledger.expireDue(payer, envelope);
        await this.context.writer.readYourWrites(['open-reservations', 'credit-state'], position);
      });
      if (outcome.status === 'done') expired++;
    }
    return expired;
  }
}
