import { describe, expect, it } from '@jest/globals';
import type { HttpAdapterHost } from '@nestjs/core';
import {
  BackgroundWorkers,
  type BackgroundWorker,
} from '../../src/platform/scheduling/background-workers.js';

function recorder(log: string[], name: string): BackgroundWorker {
  return {
    start: () => void log.push(`start ${name}`),
    stop: async () => void log.push(`stop ${name}`),
  };
}

const service = { httpAdapter: {} } as unknown as HttpAdapterHost;

describe('background workers: one lifecycle', () => {
  it('the service starts every registered worker once, one registered later at once, and stops them newest first', async () => {
    const log: string[] = [];
    const workers = new BackgroundWorkers(service);
    const pool = recorder(log, 'pool');
    workers.register(pool, recorder(log, 'sweeper'));
    workers.register(pool);
    expect(log).toEqual([]);

    workers.onApplicationBootstrap();
    workers.register(recorder(log, 'late'));
    await workers.onApplicationShutdown();
    expect(log).toEqual([
      'start pool',
      'start sweeper',
      'start late',
      'stop late',
      'stop sweeper',
      'stop pool',
    ]);
  });

  it('the operator CLI (no HTTP adapter) runs no background work', async () => {
    const log: string[] = [];
    const workers = new BackgroundWorkers(undefined);
    workers.register(recorder(log, 'pool'));
    workers.onApplicationBootstrap();
    workers.register(recorder(log, 'late'));
    await workers.onApplicationShutdown();
    expect(log).toEqual(['stop late', 'stop pool']);
  });
});
