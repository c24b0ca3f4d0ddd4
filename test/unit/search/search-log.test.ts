import { describe, expect, it } from '@jest/globals';
import type { CommandBus } from '@nestjs/cqrs';
import { ForegroundActivity } from '../../../src/platform/scheduling/foreground-activity.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import { RecordSearch, RecordSearches } from '../../../src/search/commands/search.commands.js';
import { SearchLog } from '../../../src/search/search-log.js';

const settled = async (promise: Promise<unknown>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

/** A command bus whose one append ends when the test says (the log's append is what is under test here). */
function heldBus(): {
  bus: CommandBus;
  finish: (error?: Error) => void;
  executed: (RecordSearch | RecordSearches)[];
} {
  const executed: (RecordSearch | RecordSearches)[] = [];
  let finish: (error?: Error) => void = () => undefined;
  const bus = {
    execute: (command: RecordSearch | RecordSearches) => {
      executed.push(command);
      return new Promise<void>((resolve, reject) => {
        finish = (error?: Error) => (error ? reject(error) : resolve());
      });
    },
  } as unknown as CommandBus;
  return { bus, finish: (error) => finish(error), executed };
}

const search = (payer: `account:${string}` = 'account:a') =>
  new RecordSearch(
    {
      kind: 'unified',
      query: 'product:nginx',
      timeFrame: null,
      broad: false,
      datasets: ['hosts'],
      outcomes: [{ dataset: 'hosts', status: 'ok', rows: 1, total: 1, lowerBound: false }],
      creditsCharged: 1,
    } as unknown as RecordSearch['search'],
    commandEnvelope({ actor: payer, payer }),
  );

describe('SearchLog: a search record in flight holds projections back like the request it records', () => {
  it('counts as foreground work until the append ends, so the batch that follows reads it too', async () => {
    const foreground = new ForegroundActivity();
    const { bus, finish, executed } = heldBus();
    const log = new SearchLog(bus, () => undefined, foreground, undefined, { lingerMs: 0 });
    log.record(search());
    expect(executed).toHaveLength(1);
    expect(foreground.inFlight).toBe(1);
    const quiet = foreground.quiet(10_000);
    expect(await settled(quiet)).toBe(false);
    finish();
    await log.settled();
    expect(foreground.inFlight).toBe(0);
    expect(await settled(quiet)).toBe(true);
  });

  it('lets go of the foreground when the append fails, and logs the failure', async () => {
    const foreground = new ForegroundActivity();
    const { bus, finish } = heldBus();
    const logged: string[] = [];
    const log = new SearchLog(bus, (_level, message) => logged.push(message), foreground, undefined, {
      lingerMs: 0,
    });
    log.record(search());
    finish(new Error('database gone'));
    await log.settled();
    expect(foreground.inFlight).toBe(0);
    expect(logged).toEqual(['recording a search failed']);
  });
});

describe("SearchLog: a payer's searches answered together are recorded in one append (ADR 132)", () => {
  const clock = { now: () => new Date('2026-11-29T12:00:00.000Z') };

  it('groups the searches of one payer within the linger; another payer gets its own append', async () => {
    const { bus, finish, executed } = heldBus();
    const log = new SearchLog(bus, () => undefined, undefined, clock, { lingerMs: 30 });
    log.record(search('account:a'));
    log.record(search('account:b'));
    log.record(search('account:a'));
    expect(executed).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(executed).toHaveLength(2);
    const [ofA, ofB] = executed;
    expect(ofA).toBeInstanceOf(RecordSearches);
    expect((ofA as RecordSearches).searches.map((s) => s.envelope.metadata.payer)).toEqual([
      'account:a',
      'account:a',
    ]);
    // Each keeps its own envelope and the time it was answered.
    expect(new Set((ofA as RecordSearches).searches.map((s) => s.envelope.commandId)).size).toBe(2);
    expect((ofA as RecordSearches).searches.every((s) => s.at === '2026-11-29T12:00:00.000Z')).toBe(true);
    expect(ofB).toBeInstanceOf(RecordSearch);
    expect((ofB as RecordSearch).envelope.metadata.payer).toBe('account:b');
    finish();
  });

  it('settled appends what waits at once', async () => {
    const { bus, finish, executed } = heldBus();
    const log = new SearchLog(bus, () => undefined, undefined, clock, { lingerMs: 60_000 });
    log.record(search());
    const done = log.settled();
    expect(executed).toHaveLength(1);
    finish();
    await done;
  });
});
