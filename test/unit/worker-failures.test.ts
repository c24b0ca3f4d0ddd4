import { describe, expect, it } from '@jest/globals';
import { BackgroundChecks } from '../../src/platform/health/background-checks.js';
import { PollingWorkerPool } from '../../src/platform/scheduling/polling-worker-pool.js';
import { WorkerFailures, type WorkerLog } from '../../src/platform/scheduling/worker-failures.js';

function recorder() {
  const entries: Array<{ level: string; message: string; item: unknown }> = [];
  const log: WorkerLog = (level, message, fields) => entries.push({ level, message, item: fields?.item });
  return { entries, log };
}

describe('WorkerFailures: one failing item', () => {
  const policy = { baseDelayMs: 1_000, maxDelayMs: 4_000, parkAfter: 4, unhealthyAfter: 3 };

  it('waits 1 s × 2^(n-1), capped, between tries; is logged once; the others are not affected', async () => {
    let now = 0;
    const { entries, log } = recorder();
    const failures = new WorkerFailures('worker', { log }, policy, () => now);
    const fail = () => failures.run('bad', () => Promise.reject(new Error('boom')));
    expect(await fail()).toEqual({ status: 'failed', attempts: 1 });
    expect(await failures.run('good', async () => 7)).toEqual({ status: 'done', value: 7 });
    expect(await failures.waiting()).toEqual(['bad']);
    expect(await fail()).toEqual({ status: 'waiting' });
    const waits: number[] = [];
    for (let attempt = 2; attempt <= 5; attempt++) {
      const before = now;
      while ((await failures.waiting()).includes('bad')) now += 100;
      waits.push(now - before);
      await fail();
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 4_000]);
    expect(entries.filter((entry) => entry.item === 'bad')).toHaveLength(1);
  });

  it('is parked after parkAfter failures through its park step, which records the failure; a failing park step is retried', async () => {
    let now = 0;
    const { entries, log } = recorder();
    const failures = new WorkerFailures(
      'worker',
      { log },
      { ...policy, baseDelayMs: 1, maxDelayMs: 1 },
      () => now,
    );
    const parked: string[] = [];
    let parkWorks = false;
    const park = async (lastError: string, attempts: number) => {
      if (!parkWorks) throw new Error('cannot park yet');
      parked.push(`${attempts}: ${lastError}`);
    };
    for (let attempt = 1; attempt <= 4; attempt++) {
      now += 10;
      await failures.run('bad', () => Promise.reject(new Error('boom')), park);
    }
    expect(parked).toEqual([]);
    parkWorks = true;
    now += 10;
    expect(await failures.run('bad', () => Promise.reject(new Error('never run')), park)).toEqual({
      status: 'parked',
    });
    expect(parked).toEqual(['5: cannot park yet']);
    expect(await failures.tracked()).toEqual([]);
    expect(entries.filter((entry) => entry.item === 'bad').map((entry) => entry.level)).toEqual([
      'warn',
      'error',
    ]);
  });

  it('storage out of reach backs off and shows in health but never parks an item: only its own failures do', async () => {
    let now = Date.parse('2026-05-01T00:00:00.000Z');
    const checks = new BackgroundChecks();
    const failures = new WorkerFailures(
      'worker',
      { background: checks },
      { ...policy, maxDelayMs: 1 },
      () => now,
    );
    const parked: string[] = [];
    const park = async (lastError: string, attempts: number) => void parked.push(`${attempts}: ${lastError}`);
    // What node-postgres throws when the server refuses connections.
    const refused = () =>
      Promise.reject(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      );
    for (let attempt = 1; attempt <= 3 * policy.parkAfter; attempt++) {
      now += 10;
      expect(await failures.run('job', refused, park)).toEqual({ status: 'failed', attempts: attempt });
    }
    expect(parked).toEqual([]);
    expect(checks.get('worker')).toMatchObject({ ok: false, consecutive_failures: 3 * policy.parkAfter });
    // Its own failures count from zero: parked at the parkAfter-th, whatever the outage before.
    for (let own = 1; own < policy.parkAfter; own++) {
      now += 10;
      expect((await failures.run('job', () => Promise.reject(new Error('bad query')), park)).status).toBe(
        'failed',
      );
    }
    now += 10;
    await failures.run('job', refused, park);
    expect(parked).toEqual([]);
    now += 10;
    expect(await failures.run('job', () => Promise.reject(new Error('bad query')), park)).toEqual({
      status: 'parked',
    });
    expect(parked).toEqual([`${policy.parkAfter}: bad query`]);
  });

  it('shows the worker failing in health once an item or the loop failed 3 times in a row, and healthy again after', async () => {
    let now = Date.parse('2026-05-01T00:00:00.000Z');
    const checks = new BackgroundChecks();
    const failures = new WorkerFailures('worker', { background: checks }, policy, () => now);
    expect(checks.get('worker')).toEqual({ ok: true });
    for (let attempt = 1; attempt <= 3; attempt++) {
      expect(checks.get('worker')?.ok).toBe(true);
      now += 10_000;
      await failures.run('bad', () => Promise.reject(new Error(`boom ${attempt}`)));
    }
    expect(checks.get('worker')).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      last_error: 'boom 3',
      failing_since: '2026-05-01T00:00:10.000Z',
      failing_items: [{ id: 'bad', consecutive_failures: 3, last_error: 'boom 3' }],
    });
    now += 10_000;
    await failures.run('bad', async () => undefined);
    expect(checks.get('worker')).toEqual({ ok: true });
    for (let pass = 0; pass < 3; pass++) failures.passFailed(new Error('storage unreachable'));
    expect(checks.get('worker')).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      last_error: 'storage unreachable',
    });
    failures.passSucceeded();
    expect(checks.get('worker')).toEqual({ ok: true });
  });

  it('drops the records of items that need no more work', async () => {
    let now = 0;
    const failures = new WorkerFailures('worker', {}, { ...policy, forgetAfterMs: 60_000 }, () => now);
    await failures.run('gone', () => Promise.reject(new Error('boom')));
    await failures.run('kept', () => Promise.reject(new Error('boom')));
    await failures.run('stale', () => Promise.reject(new Error('boom')));
    await failures.keepOnly(async (items) => items.filter((item) => item !== 'gone'));
    expect(await failures.tracked()).toEqual(['kept', 'stale']);
    now += 30_000;
    await failures.run('kept', () => Promise.reject(new Error('boom')));
    now += 40_000;
    expect(await failures.tracked()).toEqual(['kept']);
  });
});

/** A pool whose one job always throws, beside one that works; its look fails as a whole when told to. */
class TwoJobPool extends PollingWorkerPool {
  runs: Record<string, number> = { bad: 0, good: 0 };
  looks = 0;
  lookFails = false;

  constructor(log: WorkerLog) {
    super({ concurrency: 2, pollIntervalMs: 5, log, retry: { baseDelayMs: 1, maxDelayMs: 2 } }, 'two-jobs');
  }

  protected async tick(): Promise<void> {
    this.looks += 1;
    if (this.lookFails) throw new Error('the read model is unreachable');
    const waiting = await this.failures.waiting();
    for (const id of ['bad', 'good']) {
      if (this.running.has(id) || waiting.includes(id)) continue;
      this.launch(id, async () => {
        this.runs[id]! += 1;
        if (id === 'bad') throw new Error('poisoned');
        return false;
      });
    }
  }
}

describe('PollingWorkerPool: a job or a look that throws', () => {
  it('a job that always throws does not keep the others from running, and is logged once', async () => {
    const { entries, log } = recorder();
    const pool = new TwoJobPool(log);
    pool.start();
    await until(() => pool.runs.good! > 5 && pool.runs.bad! > 2);
    await pool.stop();
    expect(entries.filter((entry) => entry.item === 'bad')).toHaveLength(1);
  });

  it('a look that keeps failing is logged once, and once more when it works again', async () => {
    const { entries, log } = recorder();
    const pool = new TwoJobPool(log);
    const lookLogs = () => entries.filter((entry) => entry.item === undefined);
    pool.lookFails = true;
    pool.start();
    await until(() => pool.looks >= 5);
    pool.lookFails = false;
    await until(() => lookLogs().length >= 2);
    const looksSinceItWorks = pool.looks;
    await until(() => pool.looks >= looksSinceItWorks + 5);
    await pool.stop();
    expect(lookLogs().map((entry) => entry.level)).toEqual(['error', 'info']);
  });
});

/** Polls `condition` until it holds (a test's own timeout ends a wait that never does). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
