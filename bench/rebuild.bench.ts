import { allProjections } from '../projections/index.js';
import type { NewEvent } from '../src/platform/event-store/event-store.port.js';
import { eventIdFor } from '../src/platform/event-store/event-id.js';
import type { GlobalPosition } from '../src/platform/event-store/global-position.js';
import { PostgresEventStore } from '../src/platform/event-store/postgres/postgres-event-store.js';
import { ProjectionMaintenance } from '../src/platform/projections/projection-maintenance.js';
import { ProjectionRunner } from '../src/platform/projections/projection-runner.js';
import { PostgresReadStore } from '../src/platform/read-store/postgres/postgres-read-store.js';
import type { BenchTarget, Measurement } from './bench-support.js';

const METADATA = {
  actor: 'account:bench',
  payer: 'account:bench',
  scope: null,
  correlationId: 'bench',
  causationId: 'bench',
};

/**
 * `projections rebuild --all` end to end (every projection of the service, blue/green: build, switch, the
 * default 2 s grace period, drops) over N events appended in batches of 100, in one pass
 * (ProjectionMaintenance.rebuildAll) and as before (one rebuild per projection, each reading the whole log),
 * beside reading the same events once with readAll in pages of 2,000 (before and after the rebuild, averaged).
 */
export async function benchRebuild(target: BenchTarget, events: number): Promise<Measurement[]> {
  const store = new PostgresEventStore(target.db);
  await store.init();
  const readStore = new PostgresReadStore(target.db);
  await readStore.init();
  const streams = Math.ceil(events / 100);
  for (let s = 0; s < streams; s++) {
    const stream = `rebuild-bench-${s}`;
    const batch: NewEvent[] = Array.from({ length: Math.min(100, events - s * 100) }, (_, i) => ({
      id: eventIdFor(`rebuild-bench-${s}`, i),
      type: 'BenchRecorded',
      schemaVersion: 1,
      data: { stream, index: i, note: 'a small payload like most domain events carry', amount: i % 97 },
      metadata: METADATA,
    }));
    await store.append(stream, batch, { expectedVersion: 'no_stream' });
  }
  const runner = new ProjectionRunner(store, readStore, allProjections);
  const maintenance = new ProjectionMaintenance(runner.engine, { dropGraceMs: 2000 });

  const readAllRate = async (): Promise<number> => {
    const started = performance.now();
    let read = 0;
    for (let after: GlobalPosition | null = null; ;) {
      const page = await store.readAll({ after, limit: 2000 });
      if (page.length === 0) break;
      read += page.length;
      after = page.at(-1)!.position;
    }
    return read / ((performance.now() - started) / 1000);
  };

  // The baseline is read before and after the rebuild and averaged: the machine's load drifts within a run.
  const readBefore = await readAllRate();
  let started = performance.now();
  await maintenance.rebuildAll(allProjections);
  const onePass = events / ((performance.now() - started) / 1000);
  const readRate = (readBefore + (await readAllRate())) / 2;

  // One projection after another (as `--all` did before ADR 90): slow, so only with BENCH_REBUILD_ONE_BY_ONE=1.
  let oneByOne: number | null = null;
  if (process.env.BENCH_REBUILD_ONE_BY_ONE === '1') {
    started = performance.now();
    for (const definition of allProjections) {
      const result = await maintenance.rebuild(definition);
      // Where the time goes: each projection's own rebuild, its 2 s grace included.
      process.stderr.write(`  ${definition.name}: ${result.seconds.toFixed(2)} s\n`);
    }
    oneByOne = events / ((performance.now() - started) / 1000);
  }
  await store.close();

  const name = `${target.name}`;
  const label = `${allProjections.length} projections, ${events.toLocaleString('en-US')} events`;
  return [
    {
      target: name,
      name: `projections rebuild --all, one pass (${label}, end to end)`,
      value: Math.round(onePass),
      unit: 'events/s',
      baseline: Math.round(readRate),
      baselineName: 'readAll of the same events once',
      ratio: onePass / readRate,
    },
    ...(oneByOne === null
      ? []
      : [
          {
            target: name,
            name: `projections rebuild --all, one projection after another (before)`,
            value: Math.round(oneByOne),
            unit: 'events/s',
            baseline: Math.round(readRate),
            baselineName: 'readAll of the same events once',
            ratio: oneByOne / readRate,
          },
        ]),
  ];
}
