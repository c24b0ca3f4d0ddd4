import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import {
  EVENT_LOOP_REPORT_SIGNAL,
  EventLoopDelayMonitor,
  reportEventLoopDelayOnSignal,
} from '../../src/platform/health/event-loop-delay.js';

describe('event-loop delay report', () => {
  it('prints one line per signal with the window since the last report, then starts a new window', async () => {
    let clock = Date.parse('2026-11-28T10:00:00Z');
    const monitor = new EventLoopDelayMonitor(() => new Date(clock));
    const signals = new EventEmitter();
    const lines: string[] = [];
    const unsubscribe = reportEventLoopDelayOnSignal(
      signals as unknown as Pick<NodeJS.Process, 'on' | 'off'>,
      monitor,
      (line) => lines.push(line),
    );
    await new Promise((resolve) => setTimeout(resolve, 60));
    clock += 60_000;
    signals.emit(EVENT_LOOP_REPORT_SIGNAL);
    signals.emit(EVENT_LOOP_REPORT_SIGNAL);
    unsubscribe();
    signals.emit(EVENT_LOOP_REPORT_SIGNAL);
    monitor.stop();

    expect(lines).toHaveLength(2);
    const [first, second] = lines.map((line) => {
      expect(line.startsWith('event loop delay {')).toBe(true);
      return JSON.parse(line.slice('event loop delay '.length)) as Record<string, number | string>;
    });
    expect(first).toMatchObject({ since: '2026-11-28T10:00:00.000Z' });
    expect(first!.samples).toBeGreaterThan(0);
    expect(first!.p99_ms).toBeGreaterThanOrEqual(first!.p50_ms as number);
    expect(first!.max_ms).toBeGreaterThanOrEqual(first!.p99_ms as number);
    // The second window began at the first report and had no time to sample.
    expect(second).toEqual({
      since: '2026-11-28T10:01:00.000Z',
      samples: 0,
      p50_ms: 0,
      p99_ms: 0,
      max_ms: 0,
    });
  });
});
