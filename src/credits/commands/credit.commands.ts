import { Command } from '@nestjs/cqrs';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';

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
