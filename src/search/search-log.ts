import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { describeThrown } from '../platform/errors/describe-thrown.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import { RecordSearch } from './commands/search.commands.js';

/**
 * Records answered searches (ADR 70) without holding their answers: the append starts once the outcome is known
 * and runs while the answer is written. A failed append is logged (the charge is in the ledger either way);
 * closing the application waits for appends in flight.
 */
@Injectable()
export class SearchLog implements OnApplicationShutdown {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SERVICE_LOG) private readonly log: LogFunction,
  ) {}

  record(command: RecordSearch): void {
    const appended = this.commands.execute(command).catch((error: unknown) => {
      this.log('error', 'recording a search failed', { error: describeThrown(error) });
    });
    this.pending.add(appended);
    void appended.finally(() => this.pending.delete(appended));
  }

  /** Appends still in flight (tests wait for them). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }
}
