import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { AppModule } from '../src/app.module.js';
import { SAMPLE_KEV, SAMPLE_NVD } from '../src/catalogue/sample/sample-catalogue.js';
import { parseCatalogueText } from '../src/catalogue/import/parse-catalogue-files.js';
import type { ScopeAccess } from '../src/exposure/commands/exposure-access.js';
import { ExposureQueries, inventoryPageBoundaries } from '../src/exposure/queries/exposure-queries.js';
import { RefreshWorkerPool, scopeQuery } from '../src/exposure/refresh-worker-pool.js';
import { spaceDecider, spaceStreamId } from '../src/organizations/domain/space.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { physicalCollectionName } from '../src/platform/projections/projection-definition.js';
import { buildFindStatement } from '../src/platform/read-store/postgres/filter-sql.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { validateRecord } from '../src/search/domain/records.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { refreshScopeAndWait } from './scope-refresh.js';
import type { Measurement } from './bench-support.js';

const DOMAIN = 'bench-exposure.example';
const SAMPLES = 25;
/** Deep first visits forget every remembered boundary first, so fewer of them. */
const FIRST_VISIT_SAMPLES = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Exposure scopes (issue 8): a scope of `subjects` services on the PostgreSQL server (BENCH_DATABASE_URL, the
 * local test server by default; PGlite when none is reachable). Figures: the refresh of the whole scope (request
 * to inventory read model caught up, through the service's refresh pool and projections), and the inventory page
 * at offset 0 and 50,000 (first visit, and with a remembered boundary: issue 16, ADR 84) through the service's
 * query, each beside the same page read in the same run by the hand-written SQL (containment, sort,
 * OFFSET) and by one hand-written keyset statement seeking the same index (the floor: no scope, summary or
 * watch read, no view mapping).
 */
export async function benchExposure(subjects: number): Promise<Measurement[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-exposure-'));
  const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  let databaseUrl: string | undefined;
  const name = `bench_exposure_${Date.now().toString(36)}`;
  try {
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  } catch (error) {
    process.stderr.write(`  PostgreSQL server not reachable (${String(error)}): PGlite instead\n`);
  }
  const target = databaseUrl ? 'PostgreSQL 15 server' : 'PGlite (embedded)';
  const context = await ServiceContext.open(
    loadConfig({
      DATA_DIR: dataDir,
      // The PGlite leg stays PGlite (the default would start a PostgreSQL server in DATA_DIR).
      EMBEDDED_ENGINE: 'pglite',
      LOG_LEVEL: 'silent',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    }),
    { ...serviceComposition, serveSocket: false },
  );
  const app = await NestFactory.createApplicationContext(AppModule.forContext(context), { logger: false });
  const measurements: Measurement[] = [];
  try {
    await context.projections.start();
    await context.catalogue.importParsed([
      parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD)),
      parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)),
    ]);
    const products = [
      ['apache', 'http_server', '2.4.49'],
      ['apache', 'http_server', '2.4.58'],
      ['f5', 'nginx', '1.18.0'],
      ['openbsd', 'openssh', '8.2'],
    ] as const;
    for (let start = 0; start < subjects; start += 5000) {
      const batch = [];
      for (let i = start; i < Math.min(subjects, start + 5000); i++) {
        const [vendor, product, version] = products[i % products.length]!;
        const checked = validateRecord('hosts', {
          id: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:443/tcp`,
          ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
          port: 443,
          transport: 'tcp',
          hostnames: [`h${i}.${DOMAIN}`],
          vendor,
          product,
          version,
          cpe: [`cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*`],
          first_seen: '2026-06-01T00:00:00.000Z',
          last_seen: '2026-11-18T08:00:00.000Z',
        });
        if (!checked.ok) throw new Error(checked.problems.join('; '));
        batch.push(checked.record);
      }
      await context.observations.write('hosts', batch);
    }
    process.stderr.write(`  ${subjects.toLocaleString('en-US')} stored observations written\n`);

    const scopeId = randomUUID();
    const organizationId = randomUUID();
    const envelope = commandEnvelope({
      actor: 'operator:bench',
      payer: `organization:${organizationId}`,
      scope: scopeId,
    });
    await context.repository.handle(
      spaceStreamId(scopeId),
      spaceDecider,
      {
        type: 'CreateExposureScope',
        spaceId: scopeId,
        organizationId,
        name: 'Bench scope',
        domain: DOMAIN,
        timezone: 'UTC',
        addresses: [],
        monitoring: false,
        creditLimit: null,
        billing: 'capacity',
      },
      { now: new Date() },
      envelope,
    );
    const pool = app.get(RefreshWorkerPool);
    pool.start();
    const started = performance.now();
    await refreshScopeAndWait(context, pool, {
      scopeId,
      organizationId,
      domain: DOMAIN,
      runKey: 'bench-refresh-key-0001',
      envelope,
    });
    const queries = new ExposureQueries({
      projections: context.projections,
      eventStore: context.storage.eventStore,
      clock: context.clock,
    });
    const head = await context.storage.eventStore.headPosition();
    await context.projections.waitFor(['exposure-inventory', 'exposure-history'], head!, 600_000);
    const refreshSeconds = (performance.now() - started) / 1000;
    await pool.stop();
    // The floor of a refresh: reading the same stored observations from the index, and nothing else.
    const readStarted = performance.now();
    let read = 0;
    for await (const records of context.observations.stream(
      'hosts',
      { ast: scopeQuery({ domain: DOMAIN, addresses: [] }) },
      500,
    )) {
      read += records.length;
    }
    const readSeconds = (performance.now() - readStarted) / 1000;
    if (read !== subjects) throw new Error(`read ${read} observations, expected ${subjects}`);
    measurements.push({
      target,
      name: `exposure refresh of a ${subjects.toLocaleString('en-US')}-service scope (request to inventory caught up)`,
      value: Number(refreshSeconds.toFixed(2)),
      unit: 's',
      baseline: Number(readSeconds.toFixed(2)),
      baselineName: 'reading the same observations from the index alone',
      ratio: Number((readSeconds / refreshSeconds).toFixed(3)),
    });

    // What the exposure gate hands the query: the scope's folded lifecycle state (no member checks here).
    const space = await context.repository.load(spaceStreamId(scopeId), spaceDecider);
    const access = { scopeId, space: space.state } as ScopeAccess;
    const total = (await queries.inventory(access, {})).totals.subjects;
    if (total !== subjects) throw new Error(`expected ${subjects} subjects, inventory has ${total}`);
    const generation = await context.storage.readStore.getMeta<{ live: number }>(
      'projection:exposure-inventory',
    );
    const collection = physicalCollectionName('exposure_subjects', generation!.live);
    const table = `rs_${collection}`;
    const sql = context.storage.sql!;
    const boundaries = inventoryPageBoundaries(context.projections);
    const sort = [
      ['scopeId', 1],
      ['order', 1],
    ] as const;
    // The order key that ends the page before an offset: where a hand-written keyset query seeks from.
    const keyBefore = async (offset: number) => {
      const before = (await queries.inventory(access, { offset: String(offset - 100) })).subjects as Array<{
        id: string;
      }>;
      const last = await context.projections
        .collection<{ id: string; order: string }>('exposure-inventory', 'exposure_subjects')
        .get(`${scopeId}:${before[before.length - 1]!.id}`);
      return last!.order;
    };
    const floorKeys = new Map([
      [50_000, await keyBefore(50_000)],
      [49_900, await keyBefore(49_900)],
    ]);
    const time = async (run: () => Promise<number>, expected: number): Promise<number> => {
      const t = performance.now();
      const rows = await run();
      const elapsed = performance.now() - t;
      if (rows !== expected) throw new Error(`expected ${expected} rows, got ${rows}`);
      return elapsed;
    };
    const servicePage = (offset: number) => async () =>
      ((await queries.inventory(access, { offset: String(offset) })).subjects as unknown[]).length;
    // The baseline: containment on the scope, sorted on `order`, OFFSET (no index gives that order).
    const containmentPage = (offset: number) => async () =>
      (
        await sql.query(
          `SELECT doc FROM "${table}" WHERE doc @> $1::jsonb ORDER BY (doc->>'order') COLLATE "C", id COLLATE "C" OFFSET $2 LIMIT 100`,
          [JSON.stringify({ scopeId }), offset],
        )
      ).rows.length;
    // The floor: one statement seeking the scope's index (at offset 0, or past the previous page's last key).
    const seekPage = (after: string | null) => {
      const statement = buildFindStatement(
        collection,
        after === null ? { scopeId: { $is: scopeId } } : { scopeId: { $is: scopeId }, order: { $gt: after } },
        { sort, limit: 100 },
      );
      return async () => (await sql.query(statement.text, [...statement.params])).rows.length;
    };
    const figures: Array<{
      name: string;
      service: () => Promise<number>;
      offset: number;
      warm: boolean;
      /** Before each of the service's samples, untimed. */
      prepare?: () => Promise<void>;
    }> = [
      { name: 'offset 0', service: servicePage(0), offset: 0, warm: true },
      {
        name: 'offset 50,000, first visit (no remembered boundary: OFFSET on the index)',
        service: servicePage(50_000),
        offset: 50_000,
        warm: false,
        prepare: async () => boundaries.clear(),
      },
      {
        name: 'offset 50,000 (a boundary remembered by an earlier visit or the previous page)',
        service: servicePage(50_000),
        offset: 50_000,
        warm: true,
      },
      {
        // A reader who jumps to a deep page and goes back: sought backwards from the page visited (ADR 134).
        name: 'offset 49,900 right after a first visit to 50,000 (nothing remembered before it)',
        service: servicePage(49_900),
        offset: 49_900,
        warm: false,
        prepare: async () => {
          boundaries.clear();
          await servicePage(50_000)();
        },
      },
    ];
    for (const figure of figures) {
      const expected = Math.max(0, Math.min(100, subjects - figure.offset));
      const service: number[] = [];
      const containment: number[] = [];
      const seek: number[] = [];
      const samples = figure.warm ? SAMPLES : FIRST_VISIT_SAMPLES;
      if (figure.warm) await figure.service();
      // The service and the floor take turns going first. The SQL is timed in a loop of its own after
      // them: it sorts the whole scope (spilling to disk at offset 50,000), and interleaved with the others it
      // stalled whichever ran after it, the service's several reads far more often than the floor's one
      // statement (a remembered offset 50,000: 6.7-12.8 ms interleaved, 2.3-4.3 ms apart; docs/benchmarks.md).
      const legs: Array<[number[], () => Promise<number>]> = [
        [service, figure.service],
        [seek, seekPage(figure.offset === 0 ? null : floorKeys.get(figure.offset)!)],
      ];
      for (let i = 0; i < samples; i++) {
        for (let leg = 0; leg < legs.length; leg++) {
          const [times, run] = legs[(i + leg) % legs.length]!;
          if (times === service) await figure.prepare?.();
          times.push(await time(run, expected));
        }
      }
      for (let i = 0; i < samples; i++)
        containment.push(await time(containmentPage(figure.offset), expected));
      await sleep(1_000); // the spill's writeback, before the next figure's samples
      const value = median(service);
      for (const [baseline, baselineName] of [
        [median(containment), 'the issue\u2019s hand-written SQL: containment, sort, OFFSET'],
        [median(seek), 'hand-written keyset SQL seeking the same index (the floor)'],
      ] as const) {
        measurements.push({
          target,
          name: `exposure inventory page at ${figure.name} (median of ${samples})`,
          value: Number(value.toFixed(2)),
          unit: 'ms',
          baseline: Number(baseline.toFixed(2)),
          baselineName,
          ratio: Number((baseline / value).toFixed(3)),
        });
      }
    }
    if (boundaries.seeks === 0) throw new Error('no page was sought from a remembered boundary');
  } finally {
    await app.close();
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (databaseUrl) {
      const cleanup = new pg.Client({ connectionString: server });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    }
  }
  return measurements;
}
