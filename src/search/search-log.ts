import { Inject, Injectable, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { describeThrown } from '../platform/errors/describe-thrown.js';
import { ForegroundActivity } from '../platform/scheduling/foreground-activity.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import { RecordSearch, RecordSearches } from './commands/search.commands.js';

/** How long a payer's answered searches wait to be recorded together (ADR 132). */
export const SEARCH_LOG_LINGER_MS = 50;
/** At most this many records in one append. */
const MAX_GROUP = 100;

export interface SearchLogOptions {
  /** 0: every search is appended on its own, at once. */
  readonly lingerMs?: number;
}
export const SEARCH_LOG_OPTIONS = Symbol('SearchLogOptions');

/**
 * Records answered searches (ADR 70) without holding their answers: the append starts once the outcome is known
 * and runs while the answer is written. A failed append is logged (the charge is in the ledger either way);
 * closing the application waits for appends in flight.
 *
 * Group commit (ADR 132): a payer's searches answered within `lingerMs` of the first are appended together, one
 * event each (its own envelope and answer time), in one append instead of one each. A client searching back to
 * back paid a database commit per search for its records alone. The records wait at most `lingerMs` more than
 * they did (they were already written after the answer); `settled` and shutdown append what waits at once.
 *
 * An append in flight counts as foreground work, as the request it records did: projections defer their next
 * batch until it is in the log (ForegroundActivity, at most their usual bound).
 */
@Injectable()
export class SearchLog implements OnApplicationShutdown {
  private readonly pending = new Set<Promise<void>>();
  private readonly waiting = new Map<string, { searches: RecordSearch[]; timer?: NodeJS.Timeout }>();
  private readonly lingerMs: number;

  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(SERVICE_LOG) private readonly log: LogFunction,
    @Optional() @Inject(ForegroundActivity) private readonly foreground?: ForegroundActivity,
    @Optional() @Inject(CLOCK) private readonly clock?: Clock,
    @Optional() @Inject(SEARCH_LOG_OPTIONS) options?: SearchLogOptions,
  ) {
    this.lingerMs = options?.lingerMs ?? SEARCH_LOG_LINGER_MS;
  }

  record(command: RecordSearch): void {
    // Stamped now: the record says when the search was answered, not when its group was appended.
    const search =
      command.at !== undefined || !this.clock
        ? command
        : new RecordSearch(command.search, command.envelope, this.clock.now().toISOString());
    const payer = search.envelope.metadata.payer;
    let group = this.waiting.get(payer);
    if (!group) {
      group = { searches: [] };
      this.waiting.set(payer, group);
      if (this.lingerMs > 0) group.timer = setTimeout(() => this.append(payer), this.lingerMs);
    }
    group.searches.push(search);
    if (this.lingerMs <= 0 || group.searches.length >= MAX_GROUP) this.append(payer);
  }

  /** Appends what waits for this payer now. */
  private append(payer: string): void {
    const group = this.waiting.get(payer);
    if (!group) return;
    this.waiting.delete(payer);
    clearTimeout(group.timer);
    const leave = this.foreground?.enter();
    const [first] = group.searches;
    const appended = this.commands
      .execute(group.searches.length === 1 ? first! : new RecordSearches(group.searches))
      .catch((error: unknown) => {
        this.log('error', 'recording a search failed', {
          error: describeThrown(error),
          searches: group.searches.length,
        });
      })
      .finally(leave);
    this.pending.add(appended);
    void appended.finally(() => this.pending.delete(appended));
  }

  /** Appends what waits, and resolves once every append has ended (tests, shutdown). */
  async settled(): Promise<void> {
    for (const payer of [...this.waiting.keys()]) this.append(payer);
    await Promise.all([...this.pending]);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.settled();
  }
}
