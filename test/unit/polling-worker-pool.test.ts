import { describe, expect, it } from '@jest/globals';
import { PollingWorkerPool } from '../../src/platform/scheduling/polling-worker-pool.js';

/**
 * A pool whose look always finds one job, like a read model still showing a job its stream has finished. The job
 * settles in microtasks only, as a PGlite statement does: nothing in it lets a timer run.
 */
class OneJobPool extends PollingWorkerPool {
  looks = 0;

  constructor(private readonly jobWorks: boolean) {
    super({ concurrency: 1, pollIntervalMs: 60_000 }, 'one-job');
  }

  protected async tick(): Promise<void> {
    this.looks += 1;
    if (this.running.size > 0 || this.looks > 10_000) return;
    const done = Promise.resolve(this.jobWorks)
      .then((worked) => this.afterJob(worked))
      .finally(() => this.running.delete('job'));
    this.running.set('job', { abort: new AbortController(), done });
  }
}

describe('PollingWorkerPool: looking again after a job', () => {
  it('a job that found nothing to do waits for the next poll: timers (projections) keep running', async () => {
    const pool = new OneJobPool(false);
    pool.start();
    // Before the fix, look → job → look ran in microtasks alone and this timer never fired.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.looks).toBe(1);
    await pool.stop();
  });

  it('a job that worked looks again soon, once the event loop has turned', async () => {
    const pool = new OneJobPool(true);
    pool.start();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.looks).toBeGreaterThan(1);
    await pool.stop();
  });
});
