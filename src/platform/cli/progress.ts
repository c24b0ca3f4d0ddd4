import cliProgress from 'cli-progress';

/**
 * Progress for long CLI work, on stderr so stdout stays clean for results and `--json`.
 * A bar on a terminal; elsewhere (CI, pipes) a plain line at most every two seconds and one at the end.
 * Silent in `--json` mode.
 */
export interface Progress {
  update(value: number, extra?: { total?: number; detail?: string }): void;
  stop(summary?: string): void;
}

export function startProgress(
  label: string,
  options: { json: boolean; total?: number; unit?: string },
): Progress {
  const unit = options.unit ?? 'items';
  if (options.json) return { update: () => undefined, stop: () => undefined };
  const started = performance.now();
  const rate = (value: number): string => {
    const seconds = (performance.now() - started) / 1000;
    return seconds > 0 ? Math.round(value / seconds).toLocaleString('en-US') : '0';
  };
  if (process.stderr.isTTY) {
    const known = options.total !== undefined && options.total > 0;
    const bar = new cliProgress.SingleBar(
      {
        stream: process.stderr,
        format: known
          ? `${label} [{bar}] {percentage}% {value}/{total} ${unit} | {rate}/s {detail}`
          : `${label} {value} ${unit} | {rate}/s {detail}`,
        hideCursor: true,
        clearOnComplete: false,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(options.total ?? 0, 0, { rate: '0', detail: '' });
    return {
      update: (value, extra) => {
        if (extra?.total !== undefined) bar.setTotal(extra.total);
        bar.update(value, { rate: rate(value), detail: extra?.detail ?? '' });
      },
      stop: (summary) => {
        bar.stop();
        if (summary) process.stderr.write(`${summary}\n`);
      },
    };
  }
  let lastLine = Number.NEGATIVE_INFINITY; // the first report prints at once
  let total = options.total;
  let last: { value: number; detail?: string | undefined; printed: boolean } | undefined;
  const line = (value: number, detail: string | undefined): void => {
    const of = total ? `/${total.toLocaleString('en-US')}` : '';
    process.stderr.write(
      `${label}: ${value.toLocaleString('en-US')}${of} ${unit} (${rate(value)}/s)${detail ? ` ${detail}` : ''}\n`,
    );
  };
  return {
    update: (value, extra) => {
      if (extra?.total !== undefined) total = extra.total;
      const now = performance.now();
      last = { value, detail: extra?.detail, printed: now - lastLine >= 2000 };
      if (!last.printed) return;
      lastLine = now;
      line(value, extra?.detail);
    },
    stop: (summary) => {
      // The final count and the average rate over the whole run, unless that line was just printed.
      if (last && !last.printed) line(last.value, last.detail);
      last = undefined;
      if (summary) process.stderr.write(`${summary}\n`);
    },
  };
}
