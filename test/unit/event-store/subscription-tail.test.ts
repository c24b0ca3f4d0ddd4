import { describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { encodePosition, type GlobalPosition } from '../../../src/platform/event-store/global-position.js';
import { STALE, SubscriptionTail } from '../../../src/platform/event-store/postgres/subscription-tail.js';

const at = (n: number): GlobalPosition => encodePosition(n, n);

function event(n: number): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    type: 'Happened',
    schemaVersion: 1,
    data: { n },
    metadata: {},
    streamId: `s-${n}`,
    streamVersion: 0,
    position: at(n),
    recordedAt: '2026-11-28T00:00:00.000Z',
  } as RecordedEvent;
}

/** A log held in memory; every read is counted, as the event store's page query would be. */
function log(pageSize = 3, maxEvents = 100) {
  const events: RecordedEvent[] = [];
  const reads: Array<GlobalPosition | null> = [];
  const tail = new SubscriptionTail(
    async (after, limit) => {
      reads.push(after);
      return events.filter((e) => after === null || e.position > after).slice(0, limit);
    },
    pageSize,
    maxEvents,
  );
  const append = (...ns: number[]) => events.push(...ns.map(event));
  return { tail, reads, append };
}

const numbers = (page: { events: readonly RecordedEvent[] }) =>
  page.events.map((e) => (e.data as { n: number }).n);

describe('SubscriptionTail', () => {
  it('serves every subscriber of one wake from one read, wherever inside the tail it stands', async () => {
    const { tail, reads, append } = log();
    append(1, 2);
    expect(numbers(await tail.page(null, 1, 0))).toEqual([1, 2]);
    // Later subscribers at the start or in the middle: from memory, with the generation that saw the end.
    const fromStart = await tail.page(null, 1, 0);
    const fromMiddle = await tail.page(at(1), 1, 0);
    expect(numbers(fromStart)).toEqual([1, 2]);
    expect(numbers(fromMiddle)).toEqual([2]);
    expect(fromMiddle.generation).toBe(1);
    // At the end, nothing more while neither an append (generation) nor a poll happened since that read.
    expect(await tail.page(at(2), 1, 0)).toEqual({ events: [], generation: 1 });
    expect(reads).toEqual([null]);
  });

  it('reads again at the end after an append of this instance or a poll, and extends the tail', async () => {
    const { tail, reads, append } = log();
    append(1);
    await tail.page(null, 1, 0);
    append(2);
    // The append bumped the generation: the end is no longer known.
    expect(numbers(await tail.page(at(1), 2, 0))).toEqual([2]);
    append(3);
    // A poll (another instance's append, or one hidden behind an older transaction).
    expect(numbers(await tail.page(at(2), 2, 1))).toEqual([3]);
    expect(reads).toEqual([null, at(1), at(2)]);
    // The tail now runs from the start: a subscriber there gets all three from memory.
    expect(numbers(await tail.page(null, 2, 1))).toEqual([1, 2, 3]);
    expect(reads).toHaveLength(3);
  });

  it('tells a subscriber served from memory to ask again when an append or a poll came after the end was seen', async () => {
    const { tail, append } = log();
    append(1, 2);
    await tail.page(null, 1, 0);
    expect((await tail.page(at(1), 2, 0)).generation).toBe(1); // waits after generation 1: 2 differs, asks again
    expect((await tail.page(at(1), 2, 1)).generation).toBe(STALE); // a poll came since: asks again
  });

  it('never claims an end a full page did not see', async () => {
    const { tail, reads, append } = log(2);
    append(1, 2, 3);
    const first = await tail.page(null, 1, 0);
    expect(numbers(first)).toEqual([1, 2]);
    expect(first.generation).toBe(1); // a full page: the subscriber asks again at once anyway
    expect(numbers(await tail.page(null, 1, 0))).toEqual([1, 2]);
    expect((await tail.page(at(1), 1, 0)).generation).toBe(STALE);
    expect(numbers(await tail.page(at(2), 1, 0))).toEqual([3]);
    expect(reads).toEqual([null, at(2)]);
  });

  it('shares one read among subscribers asking at the same start, generation and poll', async () => {
    const { tail, reads, append } = log();
    append(1);
    const pages = await Promise.all([tail.page(null, 1, 0), tail.page(null, 1, 0), tail.page(null, 1, 0)]);
    expect(pages.map(numbers)).toEqual([[1], [1], [1]]);
    expect(reads).toEqual([null]);
  });

  it('lets a subscriber behind the tail read on its own without replacing the tail', async () => {
    const { tail, reads, append } = log(2, 3);
    append(1, 2, 3, 4, 5);
    await tail.page(null, 1, 0); // 1, 2
    await tail.page(at(2), 1, 0); // 3, 4
    await tail.page(at(4), 1, 0); // 5: the tail keeps 3, 4, 5 (at most three events)
    expect(numbers(await tail.page(at(2), 1, 0))).toEqual([3, 4]);
    expect(reads).toHaveLength(3);
    // Behind the tail: a read of its own, which ends before the tail's end and leaves it as it is.
    expect(numbers(await tail.page(null, 1, 0))).toEqual([1, 2]);
    expect(reads).toHaveLength(4);
    expect(await tail.page(at(5), 1, 0)).toEqual({ events: [], generation: 1 });
    expect(reads).toHaveLength(4);
  });

  it('forgets everything when cleared (an erasure)', async () => {
    const { tail, reads, append } = log();
    append(1);
    await tail.page(null, 1, 0);
    tail.clear();
    await tail.page(null, 1, 0);
    expect(reads).toEqual([null, null]);
  });
});
