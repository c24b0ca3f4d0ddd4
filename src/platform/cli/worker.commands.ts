import type { Command } from 'commander';
import type { ReadStore } from '../read-store/read-store.port.js';
import { DEFAULT_RETRY_POLICY, readWorkerFailures } from '../scheduling/worker-failures.js';
import { action, type CliRuntime } from './cli-runtime.js';

/** One item a background worker keeps failing on, as an operator reads it. */
export interface FailingItemRow {
  readonly item: string;
  /** Failures in a row, whatever their cause. */
  readonly attempts: number;
  /** Of those, the ones that count towards parking (storage out of reach left out). */
  readonly own_failures: number;
  readonly failing_since: string;
  readonly last_failed_at: string;
  readonly last_error: string;
  readonly next_try_at: string;
}

export interface WorkerStatusRow {
  readonly worker: string;
  readonly failing_items: FailingItemRow[];
}

/**
 * What /health/ready does not tell the public: which items each background worker keeps failing on, why, and when
 * it tries them again. Read from the `worker_failures` collection, so it works with or without a running service
 * (a worker's failing look for work, e.g. storage unreachable, is in the service's log and health only).
 */
export async function workerStatus(readStore: ReadStore): Promise<WorkerStatusRow[]> {
  const byWorker = new Map<string, FailingItemRow[]>();
  for (const record of await readWorkerFailures(readStore)) {
    const items = byWorker.get(record.worker) ?? [];
    items.push({
      item: record.item,
      attempts: record.attempts,
      own_failures: record.own_failures ?? record.attempts,
      failing_since: record.first_failed_at,
      last_failed_at: record.last_failed_at,
      last_error: record.last_error,
      next_try_at: record.retry_at,
    });
    byWorker.set(record.worker, items);
  }
  return [...byWorker].map(([worker, failing_items]) => ({ worker, failing_items }));
}

export function registerWorkerCommands(program: Command, runtime: CliRuntime): void {
  const workers = program
    .command('workers')
    .description('background workers: export and refresh pools, sweepers');

  workers
    .command('status')
    .description(
      'the items each background worker keeps failing on: failures in a row, since when, last error, next try ' +
        `(exit 3 when one failed ${DEFAULT_RETRY_POLICY.unhealthyAfter} times or more in a row)`,
    )
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const context = await runtime.open();
        const rows = await workerStatus(context.storage.readStore);
        runtime.print(Boolean(options.json), { workers: rows }, () => formatStatus(rows));
        const unhealthy = rows.some((row) =>
          row.failing_items.some((item) => item.attempts >= DEFAULT_RETRY_POLICY.unhealthyAfter),
        );
        return unhealthy ? 3 : 0;
      }),
    );
}

function formatStatus(rows: readonly WorkerStatusRow[]): string {
  if (rows.length === 0) return 'no background worker is failing on any item';
  return rows
    .map((row) =>
      [
        `${row.worker}: ${row.failing_items.length} failing item${row.failing_items.length === 1 ? '' : 's'}`,
        ...row.failing_items.map(
          (item) =>
            `  ${item.item}  ${failures(item.attempts)} in a row (${item.own_failures} of its own) since ` +
            `${item.failing_since}; next try ${item.next_try_at}\n    last error: ${item.last_error}`,
        ),
      ].join('\n'),
    )
    .join('\n');
}

function failures(count: number): string {
  return `${count} failure${count === 1 ? '' : 's'}`;
}
