import type { RecordedEvent } from '../event-store.port.js';
import { comparePositions, type GlobalPosition } from '../global-position.js';

/** What a subscriber gets: the next events, and the append generation the answer stands for. */
export interface TailPage {
  readonly events: readonly RecordedEvent[];
  /**
   * The append generation of the read that saw the log's end, when `events` reach it: the subscriber waits for
   * the next append after it. STALE when nothing says the log ends there: the subscriber asks again at once.
   */
  readonly generation: number;
}

/** Never an append generation (they count up from 0): a subscriber holding it asks again at once. */
export const STALE = -1;

/** What the read that reached the tail's end saw: the log ended there at that generation and poll. */
interface EndSeen {
  readonly generation: number;
  readonly poll: number;
  /** Reads are numbered as they start: a later read's claim replaces an earlier one's. */
  readonly read: number;
}

/**
 * The last events the subscriptions of one event store instance read, shared by all of them (ADR 104): every
 * projection subscription used to read the log on its own, so one append cost one page read per projection
 * that was not reading at that very moment. The tail is a contiguous run of the log (every visible event after
 * `from` up to its last one, in order), so a subscriber anywhere inside it gets its next events from memory.
 * A subscriber at the tail's end gets "nothing more" from memory only while no append of this instance and no
 * poll happened since the read that saw that end; otherwise it reads, and concurrent reads of one start share
 * one query. readAll never goes through it.
 */
export class SubscriptionTail {
  /** undefined: no tail. null: the tail starts at the log's start. */
  private from: GlobalPosition | null | undefined = undefined;
  private events: RecordedEvent[] = [];
  private endSeen: EndSeen | null = null;
  private readsStarted = 0;
  private readonly reads = new Map<string, Promise<RecordedEvent[]>>();

  constructor(
    private readonly readPage: (after: GlobalPosition | null, limit: number) => Promise<RecordedEvent[]>,
    private readonly pageSize: number,
    /** Events kept at most; the oldest go first. */
    private readonly maxEvents: number,
  ) {}

  /** The events after `after` (at most a page), from the tail when it holds them, else read. */
  async page(after: GlobalPosition | null, generation: number, poll: number): Promise<TailPage> {
    const served = this.serve(after, generation, poll);
    if (served) return served;
    const key = `${generation}|${poll}|${after ?? ''}`;
    let read = this.reads.get(key);
    if (!read) {
      const started = (this.readsStarted += 1);
      read = this.readPage(after, this.pageSize)
        .then((page) => {
          this.remember(after, page, { generation, poll, read: started });
          return page;
        })
        .finally(() => this.reads.delete(key));
      this.reads.set(key, read);
    }
    return { events: await read, generation };
  }

  /** Forgets everything (an erasure: its events' payloads are gone from the log). */
  clear(): void {
    this.from = undefined;
    this.events = [];
    this.endSeen = null;
  }

  private serve(after: GlobalPosition | null, generation: number, poll: number): TailPage | null {
    const cut = this.indexAfter(after);
    if (cut < 0) return null;
    if (cut < this.events.length) {
      const events = this.events.slice(cut, cut + this.pageSize);
      const seen = this.endSeen;
      const reachesEnd = cut + events.length === this.events.length;
      // Reaching the end: the subscriber waits after the generation that saw it, or asks again if a poll came.
      const current = reachesEnd && seen !== null && seen.poll === poll ? seen.generation : STALE;
      return { events, generation: current };
    }
    const seen = this.endSeen;
    if (seen && seen.generation === generation && seen.poll === poll) return { events: [], generation };
    return null;
  }

  /** How many tail events are at or before `after`; -1 when the tail does not reach back to it. */
  private indexAfter(after: GlobalPosition | null): number {
    if (this.from === undefined) return -1;
    if (comparePositions(after, this.from) === 0) return 0;
    if (after === null) return -1;
    let low = 0;
    let high = this.events.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const order = comparePositions(this.events[middle]!.position, after);
      if (order === 0) return middle + 1;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  private remember(after: GlobalPosition | null, page: readonly RecordedEvent[], seen: EndSeen): void {
    const complete = page.length < this.pageSize;
    const end = page.at(-1)?.position ?? after;
    const tailEnd = this.events.at(-1)?.position ?? this.from;
    const cut = this.indexAfter(after);
    if (tailEnd !== undefined) {
      const order = comparePositions(end, tailEnd);
      // A read that ends before the tail's end (a subscriber catching up) leaves the tail as it is.
      if (order < 0) return;
      if (order === 0 && cut >= 0) {
        // The same end: only a later read's claim about it replaces the one held.
        if (complete && (this.endSeen === null || this.endSeen.read < seen.read)) this.endSeen = seen;
        return;
      }
    }
    if (cut >= 0) this.events = this.events.slice(0, cut).concat(page);
    else {
      this.from = after;
      this.events = [...page];
    }
    this.endSeen = complete ? seen : null;
    const excess = this.events.length - this.maxEvents;
    if (excess > 0) {
      this.from = this.events[excess - 1]!.position;
      this.events = this.events.slice(excess);
    }
  }
}
