import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { AppModule } from '../src/app.module.js';
import { PurchaseCredits, RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { ExportJobs } from '../src/exports/commands/export-jobs.js';
import { RequestExport } from '../src/exports/commands/export.commands.js';
import { EXPORT_GZIP_LEVEL, ExportWorkerPool, exportPoolPorts } from '../src/exports/export-worker-pool.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { writeGenerated } from '../src/search/data/demo-corpus.js';
import type { Measurement } from './bench-support.js';

/**
 * One export of every generated host to gzip csv through the service's own worker pool (index → rows → gzip →
 * file store, on PGlite as the service runs by default), beside the same CSV bytes piped through Node's gzip alone
 * (at the same zlib level) in the same run; and how much the process's resident memory grew while the export ran
 * (the service is this process).
 */
export async function benchExports(hosts: number): Promise<Measurement[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-exports-'));
  // BENCH_EXPORT_DATABASE_URL runs it on a PostgreSQL server database, reusing the hosts already there when their
  // count matches (e.g. the corpus the search benchmark keeps with BENCH_SEARCH_KEEP).
  const databaseUrl = process.env.BENCH_EXPORT_DATABASE_URL;
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
  try {
    await context.projections.start();
    const loadStarted = performance.now();
    const present = await context.observations.count('hosts');
    if (present !== hosts) await context.observations.clear('hosts');
    if (present !== hosts)
      await writeGenerated(context.observations, 'hosts', {
        count: hosts,
        seed: 'bench-exports',
        now: new Date(),
        batchSize: 5000,
        onProgress: (written) => {
          if (written % 100_000 === 0)
            process.stderr.write(`  loaded ${written.toLocaleString('en-US')} hosts\n`);
        },
      });
    process.stderr.write(`  loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s\n`);

    const operator = () => commandEnvelope({ actor: 'operator:bench', payer: 'system' });
    const bus = app.get(CommandBus);
    const jobs = app.get(ExportJobs);
    // BENCH_EXPORT_LEVELS (e.g. "1,6"): the export, and gzip alone, at each zlib level; default the service's.
    const levels = (process.env.BENCH_EXPORT_LEVELS ?? String(EXPORT_GZIP_LEVEL)).split(',').map(Number);
    const measurements: Measurement[] = [];
    const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
    for (const level of levels) {
      // An account per export: one export of every host uses up a plan's results quota for the cycle.
      const { accountId } = await bus.execute(
        new RegisterAccount(`bench-${randomUUID()}@example.com`, 'enterprise', undefined, operator()),
      );
      await bus.execute(new PurchaseCredits(accountId, Math.ceil(hosts / 100) + 10, operator()));
      const principal = { accountId, via: 'api_key', channel: 'api', scopes: [] } as const;
      const pool = new ExportWorkerPool(exportPoolPorts(app), {
        concurrency: 1,
        leaseMs: 30_000,
        retentionMs: 3_600_000,
        pollIntervalMs: 50,
        gzipLevel: level,
        ...(process.env.BENCH_EXPORT_BATCH ? { batchSize: Number(process.env.BENCH_EXPORT_BATCH) } : {}),
      });
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
      const started = performance.now();
      const { export_id: exportId } = await bus.execute(
        new RequestExport(
          principal,
          'hosts',
          { raw_query: 'port:>0', format: 'csv' },
          commandEnvelope({ actor: `account:${accountId}`, payer: `account:${accountId}` }),
        ),
      );
      pool.start();
      let state = (await jobs.load(exportId)).state;
      while (state.status === 'pending' || state.status === 'processing') {
        await new Promise((resolve) => setTimeout(resolve, 50));
        state = (await jobs.load(exportId)).state;
      }
      const exportSeconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      await pool.stop();
      if (state.status !== 'completed' || state.resultsCount !== hosts) {
        throw new Error(`export ended ${state.status} with ${state.resultsCount} rows`);
      }

      // Baseline: the same CSV bytes (the export's file, decompressed to disk beforehand and read once so they
      // are in the page cache) through gzip alone at the same level.
      const plainPath = join(dataDir, 'plain.csv');
      await pipeline(
        (await context.files.open(state.fileKey!))!,
        createGunzip(),
        createWriteStream(plainPath),
      );
      const discard = () => new Writable({ write: (_chunk, _encoding, done) => done() });
      await pipeline(createReadStream(plainPath), discard());
      const gzipStarted = performance.now();
      await pipeline(createReadStream(plainPath), createGzip({ level }), discard());
      const gzipSeconds = (performance.now() - gzipStarted) / 1000;
      const plainBytes = statSync(plainPath).size;
      rmSync(plainPath);

      const exportRate = Math.round(hosts / exportSeconds);
      const gzipRate = Math.round(hosts / gzipSeconds);
      process.stderr.write(
        `  level ${level}: export ${exportSeconds.toFixed(1)} s, gzip alone ${gzipSeconds.toFixed(1)} s, ` +
          `file ${mib(state.fileSizeBytes!)} MiB of ${mib(plainBytes)} MiB csv, ` +
          `resident +${mib(rssPeak - rssBefore)} MiB\n`,
      );
      measurements.push(
        {
          target,
          name: `export ${hosts.toLocaleString('en-US')} hosts to gzip csv, level ${level} (worker pool, file store)`,
          value: exportRate,
          unit: 'rows/s',
          baseline: gzipRate,
          baselineName: `the same CSV bytes through Node's gzip alone, level ${level}`,
          ratio: Math.round((exportRate / gzipRate) * 100) / 100,
        },
        {
          target,
          name: `resident memory growth of the service process during the export (level ${level})`,
          value: mib(rssPeak - rssBefore),
          unit: 'MiB',
          baseline: mib(rssBefore),
          baselineName: 'resident memory before the export started',
        },
        {
          target,
          name: `export file size (gzip csv, level ${level})`,
          value: mib(state.fileSizeBytes!),
          unit: 'MiB',
          baseline: mib(plainBytes),
          baselineName: 'uncompressed csv',
        },
      );
    }
    return measurements;
  } finally {
    await app.close();
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
