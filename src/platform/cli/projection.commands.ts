import type { Command } from 'commander';
import type { RebuildResult, VerifyResult } from '../projections/projection-maintenance.js';
import { projectionStatus, type ProjectionStatusRow } from '../projections/projection-status.js';
import type { ServiceContext } from '../service-context.js';
import { action, type CliRuntime } from './cli-runtime.js';
import { startProgress } from './progress.js';

/** Where `projections rebuild` records who ordered a rebuild, and why (ADR 68). */
export const PROJECTION_REBUILDS_STREAM = 'projection-rebuilds';

interface RebuildOptions {
  readonly all?: boolean;
  readonly reason?: string;
  readonly json?: boolean;
}

export function registerProjectionCommands(program: Command, runtime: CliRuntime): void {
  const projections = program.command('projections').description('read models built from the event log');

  projections
    .command('status')
    .description('position, lag (events and seconds), state and last error of each projection')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const context = await runtime.open();
        const rows = await projectionStatus(context);
        runtime.print(Boolean(options.json), { projections: rows }, () => formatStatus(rows));
        return rows.some((row) => row.state === 'stopped') ? 3 : 0;
      }),
    );

  projections
    .command('rebuild')
    .description(
      'build a new version beside the live one while it keeps serving, then switch and drop the old one',
    )
    .argument('[name]', 'projection name')
    .option('--all', 'rebuild every projection')
    .option(
      '--reason <text>',
      'why (required: a rebuild replaces what every reader sees; recorded on the event)',
    )
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (name: string | undefined, options: RebuildOptions) => {
        const envelope = await runtime.operatorEnvelope({
          command: 'projections rebuild',
          payer: 'system',
          reason: options.reason,
          reasonRequired: true,
        });
        const context = await runtime.open();
        const names = selectProjections(context, name, options.all);
        // Who ordered it and why, recorded before it runs: a rebuild that crashes was still ordered.
        await context.writer.record({
          stream: PROJECTION_REBUILDS_STREAM,
          type: 'ProjectionRebuildOrdered',
          data: { projections: names },
          eventKey: `projection-rebuild:${envelope.commandId}`,
          metadata: envelope.metadata,
        });
        const results: RebuildResult[] = [];
        if (options.all) {
          // One pass over the log for every projection (ProjectionMaintenance.rebuildAll).
          const progress = startProgress(`rebuilding ${names.length} projections`, {
            json: Boolean(options.json),
            unit: 'events',
          });
          const rebuilt = await context.maintenance.rebuildAll(
            names.map((projection) => context.projections.definition(projection)),
            (p) => progress.update(p.eventsApplied),
          );
          const first = rebuilt[0];
          progress.stop(
            first
              ? `${rebuilt.length} projections: ${first.events.toLocaleString('en-US')} events in ${first.seconds.toFixed(2)} s ` +
                  `(${first.eventsPerSecond.toLocaleString('en-US')} events/s)`
              : 'no projections',
          );
          results.push(...rebuilt);
        }
        for (const projection of options.all ? [] : names) {
          const progress = startProgress(`rebuilding ${projection}`, {
            json: Boolean(options.json),
            unit: 'events',
          });
          const result = await context.maintenance.rebuild(context.projections.definition(projection), (p) =>
            progress.update(p.eventsApplied),
          );
          progress.stop(
            `${projection}: ${result.events.toLocaleString('en-US')} events in ${result.seconds.toFixed(2)} s ` +
              `(${result.eventsPerSecond.toLocaleString('en-US')} events/s), generation ${result.previousGeneration} → ${result.generation}`,
          );
          results.push(result);
        }
        runtime.print(Boolean(options.json), { rebuilt: results }, () =>
          results
            .map(
              (r) =>
                `${r.projection}: rebuilt ${r.events} events at ${r.eventsPerSecond} events/s; now serving generation ${r.generation}`,
            )
            .join('\n'),
        );
      }),
    );

  projections
    .command('verify')
    .description(
      'rebuild to the side and compare with the live read model: "equal" or the differing documents',
    )
    .argument('<name>', 'projection name')
    .option('--json', 'machine-readable output')
    .option('--max-differences <n>', 'differences to print', '20')
    .action(
      action(runtime, async (name: string, options: { json?: boolean; maxDifferences: string }) => {
        const context = await runtime.open();
        selectProjections(context, name, false);
        const progress = startProgress(`verifying ${name}`, { json: Boolean(options.json), unit: 'events' });
        const result = await context.maintenance.verify(context.projections.definition(name), (p) =>
          progress.update(p.eventsApplied),
        );
        progress.stop();
        runtime.print(Boolean(options.json), result, () =>
          formatVerify(result, Number(options.maxDifferences)),
        );
        return result.equal ? 0 : 4;
      }),
    );
}

function selectProjections(
  context: ServiceContext,
  name: string | undefined,
  all: boolean | undefined,
): string[] {
  const known = context.projections.projectionNames;
  if (all) return known;
  if (!name) throw new Error(`name a projection or pass --all (known: ${known.join(', ')})`);
  if (!known.includes(name)) throw new Error(`unknown projection "${name}" (known: ${known.join(', ')})`);
  return [name];
}

function formatStatus(rows: readonly ProjectionStatusRow[]): string {
  const header = ['projection', 'state', 'gen', 'applied', 'lag events', 'lag s', 'last error'];
  const lines = rows.map((row) => [
    row.name,
    row.state,
    `${row.live_generation ?? '-'}${row.rebuild ? ` (building ${row.rebuild.generation}: ${row.rebuild.events_applied} applied, ${row.rebuild.lag_events_at_least ? '≥' : ''}${row.rebuild.lag_events} to go)` : ''}`,
    String(row.events_applied),
    `${row.lag_events_at_least ? '≥' : ''}${row.lag_events}`,
    String(row.lag_seconds),
    row.last_error ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const format = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [format(header), ...lines.map(format)].join('\n');
}

function formatVerify(result: VerifyResult, max: number): string {
  if (result.equal)
    return `equal (${result.documentsCompared} documents compared at position ${result.position ?? 'start'})`;
  const shown = result.differences
    .slice(0, max)
    .map(
      (d) =>
        `  ${d.collection}/${d.id}\n    live:    ${JSON.stringify(d.live)}\n    rebuilt: ${JSON.stringify(d.rebuilt)}`,
    );
  const more = result.differences.length > max ? [`  … and ${result.differences.length - max} more`] : [];
  return [`different: ${result.differences.length} document(s) differ`, ...shown, ...more].join('\n');
}
