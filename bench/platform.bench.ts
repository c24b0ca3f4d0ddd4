import { randomUUID } from 'node:crypto';
import { allProjections } from '../projections/index.js';
import { eventStreamsProjection } from '../projections/event-streams.projection.js';
import type { SqlDatabase } from '../src/platform/database/sql-database.js';
import type { NewEvent } from '../src/platform/event-store/event-store.port.js';
import { eventIdFor } from '../src/platform/event-store/event-id.js';
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

function benchEvent(commandId: string, index: number, stream: string): NewEvent {
  return {
    id: eventIdFor(commandId, index),
    type: 'BenchRecorded',
    schemaVersion: 1,
    data: { stream, index, note: 'a small payload like most domain events carry', amount: index % 97 },
    metadata: METADATA,
  };
}

/**
 * Appends through the event store beside raw INSERTs of the same rows into a table of the same shape and
 * indexes, in the same database, in the same run; then a rebuild of the widest projection over those events.
 */
export async function benchPlatform(target: BenchTarget, events: number): Promise<Measurement[]> {
  const db = target.db;
  const store = new PostgresEventStore(db);
  await store.init();
  await db.exec(
    `DROP TABLE IF EXISTS bench_raw_events; CREATE TABLE bench_raw_events (LIKE es_events INCLUDING ALL)`,
  );
  const results: Measurement[] = [];
  const streams = Math.max(1, Math.floor(events / 10));
  const run = randomUUID().slice(0, 8);

  // Single-event appends: one command, one event, one round trip each; sequential, one client.
  const singles = Math.floor(events / 2);
  const versions = new Map<string, number>();
  let started = performance.now();
  for (let i = 0; i < singles; i++) {
    const stream = `bench-${run}-s${i % streams}`;
    const expected = versions.get(stream);
    const result = await store.append(stream, [benchEvent(`${run}-single-${i}`, 0, stream)], {
      expectedVersion: expected ?? 'no_stream',
    });
    versions.set(stream, result.nextExpectedVersion);
  }
  const singleSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  for (let i = 0; i < singles; i++) {
    const stream = `raw-${run}-s${i % streams}`;
    const event = benchEvent(`${run}-raw-single-${i}`, 0, stream);
    await db.query(
      `INSERT INTO bench_raw_events (stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8)`,
      [
        stream,
        Math.floor(i / streams),
        event.id,
        event.type,
        1,
        JSON.stringify(event.data),
        JSON.stringify(event.metadata),
        new Date().toISOString(),
      ],
    );
  }
  const rawSingleSeconds = (performance.now() - started) / 1000;
  results.push({
    target: target.name,
    name: 'single-event appends',
    value: Math.round(singles / singleSeconds),
    unit: 'events/s',
    baseline: Math.round(singles / rawSingleSeconds),
    baselineName: 'raw single-row INSERT',
    ratio: rawSingleSeconds / singleSeconds,
  });

  // Batches of 100 events per append.
  const batches = Math.floor(events / 2 / 100);
  started = performance.now();
  for (let b = 0; b < batches; b++) {
    const stream = `bench-${run}-b${b}`;
    const batch = Array.from({ length: 100 }, (_, i) => benchEvent(`${run}-batch-${b}`, i, stream));
    await store.append(stream, batch, { expectedVersion: 'no_stream' });
  }
  const batchSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  for (let b = 0; b < batches; b++) {
    const stream = `raw-${run}-b${b}`;
    const rows = Array.from({ length: 100 }, (_, i) => {
      const event = benchEvent(`${run}-raw-batch-${b}`, i, stream);
      return {
        stream_id: stream,
        stream_version: i,
        event_id: event.id,
        type: event.type,
        schema_version: 1,
        data: event.data,
        metadata: event.metadata,
        recorded_at: new Date().toISOString(),
      };
    });
    await db.query(
      `INSERT INTO bench_raw_events (stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at)
       SELECT stream_id, stream_version, event_id, type, schema_version, data, metadata, recorded_at
       FROM jsonb_to_recordset($1::jsonb) AS r(stream_id text, stream_version bigint, event_id uuid, type text,
            schema_version int, data jsonb, metadata jsonb, recorded_at text)`,
      [JSON.stringify(rows)],
    );
  }
  const rawBatchSeconds = (performance.now() - started) / 1000;
  results.push({
    target: target.name,
    name: 'appends in batches of 100',
    value: Math.round((batches * 100) / batchSeconds),
    unit: 'events/s',
    baseline: Math.round((batches * 100) / rawBatchSeconds),
    baselineName: 'raw 100-row INSERT',
    ratio: rawBatchSeconds / batchSeconds,
  });

  // Projection rebuild over everything appended above.
  const readStore = new PostgresReadStore(db);
  await readStore.init();
  const runner = new ProjectionRunner(store, readStore, allProjections);
  const maintenance = new ProjectionMaintenance(runner.engine, { dropGraceMs: 0 });
  const rebuild = await maintenance.rebuild(eventStreamsProjection);
  // Baseline: only reading the same events through readAll, in the same page size, nothing applied.
  started = performance.now();
  let read = 0;
  for (let after = null as Awaited<ReturnType<typeof store.headPosition>>; ;) {
    const page = await store.readAll({ after, limit: 2000 });
    if (page.length === 0) break;
    read += page.length;
    after = page.at(-1)!.position;
  }
  const readSeconds = (performance.now() - started) / 1000;
  results.push({
    target: target.name,
    name: `projection rebuild (${eventStreamsProjection.name}, ${rebuild.events} events)`,
    value: rebuild.eventsPerSecond,
    unit: 'events/s',
    baseline: Math.round(read / readSeconds),
    baselineName: 'readAll of the same events',
    ratio: rebuild.eventsPerSecond / (read / readSeconds),
  });
  await db.exec('DROP TABLE IF EXISTS bench_raw_events');
  await store.close();
  return results;
}

export type { SqlDatabase };
