import { Inject, Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { describeThrown } from '../platform/errors/describe-thrown.js';
import { ForegroundActivity } from '../platform/scheduling/foreground-activity.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import { RecordSearch } from './commands/search.commands.js';

/**
 * Records answered searches (ADR 70) without holding their answers: the append starts once the outcome is known
 * and runs while the answer is written. A failed append is logged (the charge is in the ledger either way);
 * closing the application waits for appends in flight.
 *
 * An append in flight counts as foreground work, as the request it records did: projections defer their next
 * batch until it is in the log (ForegroundActivity, at most their usual bound), so the search's reservation,
 * settlement and record are read and applied together, one page read and one projection write instead of two
 * each (issue 16, goal 2).
 */
@Injectable()
export class SearchLog implements OnApplicationShutdown {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SERVICE_LOG) private readonly log: LogFunction,
    @Optional() @Inject(ForegroundActivity) private readonly foreground?: ForegroundActivity,
  ) {}

  record(command: RecordSearch): void {
    const leave = this.foreground?.enter();
    const appended = this.commands
      .execute(command)
      .catch((error: unknown) => {
        this.log('error', 'recording a search failed', { error: describeThrown(error) });
      })
      .finally(leave);
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
