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
import { UNCHAINED_APPEND_FUNCTION, UNCHAINED_APPEND_SQL } from './unchained-append.js';
import { CheckpointSigner } from '../src/platform/event-store/checkpoint-signer.js';
import { systemClock } from '../src/platform/clock/clock.js';
import { TamperEvidence } from '../src/platform/event-store/tamper-evidence.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

  // The append of before the hash chain, on the same tables: what the chain costs, measured in the same run.
  await db.exec(UNCHAINED_APPEND_SQL);
  const unchained = new PostgresEventStore(db, { unchainedAppendFunction: UNCHAINED_APPEND_FUNCTION });

  // Single-event appends: one command, one event, one round trip each; sequential, one client. Chained and
  // unchained appends alternate in chunks of 500, so drift of a noisy machine falls on both alike.
  const singles = Math.floor(events / 2);
  const versions = new Map<string, number>();
  let singleSeconds = 0;
  let unchainedSingleSeconds = 0;
  const CHUNK = 500;
  for (let chunk = 0; chunk < singles; chunk += CHUNK) {
    // Which leg goes first alternates too: measured, the first of a pair ran some percent slower.
    const legs = [
      ['bench', store],
      ['plain', unchained],
    ] as const;
    for (const [prefix, appender] of (chunk / CHUNK) % 2 === 0 ? legs : [...legs].reverse()) {
      const chunkStarted = performance.now();
      for (let i = chunk; i < Math.min(singles, chunk + CHUNK); i++) {
        const stream = `${prefix}-${run}-s${i % streams}`;
        const expected = versions.get(stream);
        const result = await appender.append(
          stream,
          [benchEvent(`${run}-${prefix}-single-${i}`, 0, stream)],
          {
            expectedVersion: expected ?? 'no_stream',
          },
        );
        versions.set(stream, result.nextExpectedVersion);
      }
      const seconds = (performance.now() - chunkStarted) / 1000;
      if (prefix === 'bench') singleSeconds += seconds;
      else unchainedSingleSeconds += seconds;
    }
  }
  let started: number;
  results.push({
    target: target.name,
    name: 'single-event appends with the hash chain',
    value: Math.round(singles / singleSeconds),
    unit: 'events/s',
    baseline: Math.round(singles / unchainedSingleSeconds),
    baselineName: 'the same appends without hashing',
    ratio: unchainedSingleSeconds / singleSeconds,
  });

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

  // Batches of 100 events per append, chained and unchained alternating.
  const batches = Math.floor(events / 2 / 100);
  let batchSeconds = 0;
  let unchainedBatchSeconds = 0;
  for (let b = 0; b < batches; b++) {
    const legs = [
      ['bench', store],
      ['plain', unchained],
    ] as const;
    for (const [prefix, appender] of b % 2 === 0 ? legs : [...legs].reverse()) {
      const stream = `${prefix}-${run}-b${b}`;
      const batch = Array.from({ length: 100 }, (_, i) =>
        benchEvent(`${run}-${prefix}-batch-${b}`, i, stream),
      );
      const batchStarted = performance.now();
      await appender.append(stream, batch, { expectedVersion: 'no_stream' });
      const seconds = (performance.now() - batchStarted) / 1000;
      if (prefix === 'bench') batchSeconds += seconds;
      else unchainedBatchSeconds += seconds;
    }
  }
  results.push({
    target: target.name,
    name: 'appends in batches of 100 with the hash chain',
    value: Math.round((batches * 100) / batchSeconds),
    unit: 'events/s',
    baseline: Math.round((batches * 100) / unchainedBatchSeconds),
    baselineName: 'the same appends without hashing',
    ratio: unchainedBatchSeconds / batchSeconds,
  });
  // The unchained events carry no hashes: they leave before the log is sealed and verified.
  await db.query(`DELETE FROM es_events WHERE stream_id LIKE $1`, [`plain-${run}-%`]);
  await db.query(`DELETE FROM es_streams WHERE stream_id LIKE $1`, [`plain-${run}-%`]);

  // Sealing and verifying everything appended above (the chained events), beside reading them through readAll.
  const keyDir = mkdtempSync(join(tmpdir(), 'bench-key-'));
  const evidence = new TamperEvidence(store, CheckpointSigner.load({ dataDir: keyDir }), systemClock);
  started = performance.now();
  const sealed = await evidence.seal();
  const sealSeconds = (performance.now() - started) / 1000;
  await evidence.checkpoint();
  started = performance.now();
  const report = await evidence.verify();
  const verifySeconds = (performance.now() - started) / 1000;
  rmSync(keyDir, { recursive: true, force: true });
  if (!report.ok) throw new Error(`the benchmark log does not verify: ${JSON.stringify(report.finding)}`);
  started = performance.now();
  let readForVerify = 0;
  for (let after = null as Awaited<ReturnType<typeof store.headPosition>>; ;) {
    const page = await store.readAll({ after, limit: 10_000 });
    if (page.length === 0) break;
    readForVerify += page.length;
    after = page.at(-1)!.position;
  }
  const readForVerifySeconds = (performance.now() - started) / 1000;
  results.push({
    target: target.name,
    name: `sealing the global chain (${(sealed?.chainIndex ?? -1) + 1} events)`,
    value: Math.round(((sealed?.chainIndex ?? -1) + 1) / sealSeconds),
    unit: 'events/s',
  });
  results.push({
    target: target.name,
    name: `events verify (${report.eventsChecked} events)`,
    value: Math.round(report.eventsChecked / verifySeconds),
    unit: 'events/s',
    baseline: Math.round(readForVerify / readForVerifySeconds),
    baselineName: 'readAll of the same events, pages of 10,000',
    ratio: readForVerifySeconds / readForVerify / (verifySeconds / report.eventsChecked),
  });

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
