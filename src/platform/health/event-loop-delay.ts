import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The signal on which the service prints its event-loop delay since the last report (operators, benchmarks). */
export const EVENT_LOOP_REPORT_SIGNAL = 'SIGUSR2';

export interface EventLoopDelayReport {
  /** When this window began (start, or the previous report). */
  readonly since: string;
  readonly samples: number;
  readonly p50_ms: number;
  readonly p99_ms: number;
  readonly max_ms: number;
}

const NS_PER_MS = 1e6;

/**
 * How late the event loop ran timers, by window: everything the service does on its one thread (HTTP, JSON,
 * an embedded database's statements) shows here as delay for every other request.
 */
export class EventLoopDelayMonitor {
  private readonly histogram = monitorEventLoopDelay({ resolution: 10 });
  private since: Date;

  constructor(private readonly now: () => Date = () => new Date()) {
    this.histogram.enable();
    this.since = now();
  }

  /** The window's delays; the next window starts now. */
  report(): EventLoopDelayReport {
    const h = this.histogram;
    const samples = h.count;
    const ms = (ns: number): number => (samples === 0 ? 0 : Math.round((ns / NS_PER_MS) * 100) / 100);
    const report: EventLoopDelayReport = {
      since: this.since.toISOString(),
      samples,
      p50_ms: ms(h.percentile(50)),
      p99_ms: ms(h.percentile(99)),
      max_ms: ms(h.max),
    };
    h.reset();
    this.since = this.now();
    return report;
  }

  stop(): void {
    this.histogram.disable();
  }
}

/**
 * Prints one line `event loop delay {json}` on each EVENT_LOOP_REPORT_SIGNAL: only whoever may signal the process
 * and read its output sees it. Returns the unsubscribe.
 */
export function reportEventLoopDelayOnSignal(
  signals: Pick<NodeJS.Process, 'on' | 'off'>,
  monitor: Pick<EventLoopDelayMonitor, 'report'>,
  write: (line: string) => void,
): () => void {
  const onSignal = (): void => write(`event loop delay ${JSON.stringify(monitor.report())}\n`);
  signals.on(EVENT_LOOP_REPORT_SIGNAL, onSignal);
  return () => void signals.off(EVENT_LOOP_REPORT_SIGNAL, onSignal);
}
