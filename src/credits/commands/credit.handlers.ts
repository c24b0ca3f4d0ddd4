import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { CreditLedger, type Reservation } from './credit-ledger.js';
import {
  GrantCredits,
  PurchaseCredits,
  ReleaseReservation,
  ReserveCredits,
  SettleReservation,
} from './credit.commands.js';

const MAX_PURCHASE = 100_000_000;

@CommandHandler(PurchaseCredits)
export class PurchaseCreditsHandler implements ICommandHandler<PurchaseCredits, { position: string | null }> {
  constructor(
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute(command: PurchaseCredits): Promise<{ position: string | null }> {
    if (!Number.isInteger(command.credits) || command.credits < 1 || command.credits > MAX_PURCHASE) {
      throw new ServiceError('invalid_input', 'credits must be an integer from 1 to 100,000,000');
    }
    const position = await this.ledger.purchase(
      `account:${command.accountId}`,
      command.credits,
      command.envelope,
    );
    await this.writer.readYourWrites(['credit-state'], position);
    return { position };
  }
}

@CommandHandler(GrantCredits)
export class GrantCreditsHandler implements ICommandHandler<GrantCredits, { position: string | null }> {
  constructor(
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute(command: GrantCredits): Promise<{ position: string | null }> {
    const position = await this.ledger.transferIn(
      command.payer,
      { transferId: command.grantId, credits: command.credits, from: command.from },
      command.envelope,
    );
    await this.writer.readYourWrites(['credit-state'], position);
    return { position };
  }
}

/** A search's charge, step 1: the ledger decider refuses when the payer cannot cover it. */
@CommandHandler(ReserveCredits)
export class ReserveCreditsHandler implements ICommandHandler<ReserveCredits, Reservation> {
  constructor(@Inject(CreditLedger) private readonly ledger: CreditLedger) {}

  execute({ request, envelope }: ReserveCredits): Promise<Reservation> {
    return this.ledger.reserve(request, envelope);
  }
}

@CommandHandler(SettleReservation)
export class SettleReservationHandler implements ICommandHandler<SettleReservation, string | null> {
  constructor(@Inject(CreditLedger) private readonly ledger: CreditLedger) {}

  execute({ reservation, charged, envelope, category }: SettleReservation): Promise<string | null> {
    return this.ledger.settle(reservation, charged, envelope, category);
  }
}

@CommandHandler(ReleaseReservation)
export class ReleaseReservationHandler implements ICommandHandler<ReleaseReservation, string | null> {
  constructor(@Inject(CreditLedger) private readonly ledger: CreditLedger) {}

  execute({ reservation, reason, envelope }: ReleaseReservation): Promise<string | null> {
    return this.ledger.release(reservation, reason, envelope);
  }
}

export const creditCommandHandlers = [
  PurchaseCreditsHandler,
  GrantCreditsHandler,
  ReserveCreditsHandler,
  SettleReservationHandler,
  ReleaseReservationHandler,
];
