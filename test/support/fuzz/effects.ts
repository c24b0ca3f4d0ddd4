/**
 * What a request changed: the events appended to the global log while it ran, and the credits of the payers
 * it could charge.
 *
 * How a refused request is proven to have changed nothing, with background workers appending at any time:
 * the fuzzer sends one request at a time, each with an X-Request-Id of its own (the service keeps a
 * well-formed one as the request id and puts it in the correlation and causation ids of the events the
 * request's commands append). After each answer the fuzzer reads the global log from where it stopped
 * reading up to everything committed so far (`lastCommittedPosition`, waiting for late commits to become
 * visible), so each event is seen once, in the window of the request during which it was committed. An event
 * of the window is the request's doing when its correlation or causation id is the request's id, or when a
 * caller acted (its actor is not `system:…`) and its correlation id is no earlier request's: background
 * workers (export and refresh pools, sweepers, monitors) act as `system:…`, and every caller action is a
 * request, and only this one was in flight. An event correlated to an earlier refused request is reported
 * too, whenever it shows up (work a refusal left running).
 *
 * Credits: each payer the caller could charge (its account, and its organization for a member) has its
 * available and purchased credits read from its ledger stream before and after (after: before the log is read,
 * so whatever moved them is in the window). A difference fails unless the ledger stream received events in the
 * window that are not the request's (a background export settling).
 */
import { CreditLedger } from '../../../src/credits/commands/credit-ledger.js';
import { ledgerStreamId } from '../../../src/credits/domain/ledger.js';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { comparePositions, type GlobalPosition } from '../../../src/platform/event-store/global-position.js';
import type { TestService } from '../service.js';

const PAGE = 500;
/** How long to wait for committed events to become visible (an older transaction may hold them back). */
const VISIBILITY_WAIT_MS = 3_000;

export interface CreditSnapshot {
  readonly payer: string;
  readonly available: number;
  readonly purchased: number;
}

export interface RequestEffects {
  /** Events the request appended (see the module comment for the attribution). */
  readonly ownEvents: readonly RecordedEvent[];
  /** Events correlated to an earlier refused request, seen in this window. */
  readonly lateEvents: ReadonlyArray<{ readonly event: RecordedEvent; readonly refusedRequest: string }>;
  /** Payers whose credits moved with no background ledger event to explain it. */
  readonly creditChanges: ReadonlyArray<{ readonly before: CreditSnapshot; readonly after: CreditSnapshot }>;
}

export class EffectTracker {
  private cursor: GlobalPosition | null = null;
  private readonly requestIds = new Set<string>();
  private readonly refused = new Map<string, string>();

  constructor(private readonly service: TestService) {}

  /** Starts the log cursor at everything committed so far (the fixtures' events are nobody's request). */
  async start(): Promise<void> {
    await this.drain();
  }

  async credits(payers: readonly string[]): Promise<CreditSnapshot[]> {
    const ledger = this.service.app.get(CreditLedger);
    return Promise.all(
      payers.map(async (payer) => {
        const state = await ledger.state(payer);
        return { payer, available: await ledger.available(payer), purchased: state.purchasedBalance };
      }),
    );
  }

  /**
   * After the answer to request `requestId`: the events of its window and its credit changes. `refused` marks
   * the request as one whose later effects are reported.
   */
  async after(
    requestId: string,
    refusedDescription: string | null,
    creditsBefore: readonly CreditSnapshot[],
  ): Promise<RequestEffects> {
    // Credits first, then the log up to everything committed by now: an event that moved the credits read here
    // is then in this window, never only in the next one.
    const creditsAfter = await this.credits(creditsBefore.map((snapshot) => snapshot.payer));
    const window = await this.drain();
    const ownEvents: RecordedEvent[] = [];
    const lateEvents: Array<{ event: RecordedEvent; refusedRequest: string }> = [];
    for (const event of window) {
      const { correlationId, causationId, actor } = event.metadata;
      const earlierRefusal = this.refused.get(correlationId) ?? this.refused.get(causationId);
      if (earlierRefusal !== undefined) lateEvents.push({ event, refusedRequest: earlierRefusal });
      else if (correlationId === requestId || causationId === requestId) ownEvents.push(event);
      else if (!actor.startsWith('system:') && !this.requestIds.has(correlationId)) ownEvents.push(event);
    }
    this.requestIds.add(requestId);
    if (refusedDescription !== null) this.refused.set(requestId, refusedDescription);

    const creditChanges = creditsBefore.flatMap((before, index) => {
      const after = creditsAfter[index]!;
      if (before.available === after.available && before.purchased === after.purchased) return [];
      const ledger = ledgerStreamId(before.payer);
      const explained = window.some((event) => event.streamId === ledger && !ownEvents.includes(event));
      return explained ? [] : [{ before, after }];
    });
    return { ownEvents, lateEvents, creditChanges };
  }

  /** Every event committed since the last drain, in log order. */
  private async drain(): Promise<RecordedEvent[]> {
    const store = this.service.context.storage.eventStore;
    const target = await store.lastCommittedPosition();
    const events: RecordedEvent[] = [];
    const deadline = Date.now() + VISIBILITY_WAIT_MS;
    while (comparePositions(this.cursor, target) < 0) {
      const page = await store.readAll({ after: this.cursor, limit: PAGE });
      if (page.length > 0) {
        events.push(...page);
        this.cursor = page.at(-1)!.position;
        continue;
      }
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return events;
  }
}
