import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CommandBus } from '@nestjs/cqrs';
import { IssueApiKey, RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { createHttpApp } from '../src/platform/http/create-http-app.js';
import { AppModule } from '../src/app.module.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { loadDemoCorpus } from '../src/search/data/demo-corpus.js';
import type { Measurement } from './bench-support.js';

/**
 * Database commits per request: N sequential unified searches, then N single-dataset searches, through the
 * service over HTTP on the PostgreSQL server, counting `pg_stat_database.xact_commit` of the service's own
 * database before and after each burst (projections included: the count is read once they have settled). The
 * idle service's commits over the same time are measured first and subtracted. The baseline is the hand-written
 * SQL of the same query: one transaction.
 */
export async function benchCommits(searches: number): Promise<Measurement[]> {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const dbName = `bench_commits_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  // BENCH_COMMITS_LOG=1 logs every statement of the service's database, to attribute the commits.
  if (process.env.BENCH_COMMITS_LOG === '1') {
    await admin.query(`ALTER DATABASE ${dbName} SET log_statement = 'all'`);
  }
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-commits-'));
  const context = await ServiceContext.open(
    loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      SEARCH_DEADLINE_MS: '60000',
    }),
    { ...serviceComposition, serveSocket: false },
  );
  const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
  const stats = new pg.Client({ connectionString: url.toString() });
  try {
    await context.projections.start();
    await loadDemoCorpus(context.observations, new Date(), { count: 2000 });
    const bus = app.get(CommandBus);
    const operator = () => commandEnvelope({ actor: 'operator:bench', payer: 'system' });
    const { accountId } = await bus.execute(
      new RegisterAccount(`bench-commits-${Date.now()}@example.com`, 'enterprise', undefined, operator()),
    );
    const { key } = await bus.execute(new IssueApiKey(accountId, 'bench', operator()));
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    await stats.connect();

    const target = 'PostgreSQL 15 server, 2,000 records per dataset';
    // A backend reports its counters when it goes idle, at most once a second (and within 10 s when idle):
    // every reading waits for that.
    const commits = async (): Promise<number> => {
      await settle(context);
      await new Promise((resolve) => setTimeout(resolve, 11_000));
      await stats.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await stats.query<{ commits: string }>(
        'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()',
      );
      return Number(rows[0]!.commits);
    };
    const burst = async (path: string, body: unknown): Promise<{ perRequest: number; seconds: number }> => {
      const before = await commits();
      await stats.query(`SELECT 'burst start: ${path}'`);
      const started = performance.now();
      for (let i = 0; i < searches; i++) {
        const response = await fetch(new URL(path, base), {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await response.text();
        if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
      }
      const seconds = (performance.now() - started) / 1000;
      const after = await commits();
      await stats.query(`SELECT 'burst end: ${path}'`);
      return { perRequest: (after - before) / searches, seconds };
    };
    // The idle service's own commits (timers, polls) over one reading's wait, per second.
    const idleBefore = await commits();
    const idleStarted = performance.now();
    const idleAfter = await commits();
    const idlePerSecond = (idleAfter - idleBefore - 1) / ((performance.now() - idleStarted) / 1000);

    const results: Measurement[] = [];
    for (const [name, path, body] of [
      ['unified search', '/api/v2/common/data/search', { raw_query: 'product:nginx' }],
      ['single-dataset search (hosts)', '/api/v2/common/data/hosts', { raw_query: 'product:nginx' }],
    ] as const) {
      const measured = await burst(path, body);
      // Subtract what the idle service committed over the burst and its two readings' waits.
      const idle = (idlePerSecond * (measured.seconds + 2 * 11)) / searches;
      const perRequest = Math.max(0, measured.perRequest - idle);
      process.stderr.write(
        `${name}: ${measured.perRequest.toFixed(2)} commits per request measured, ${idle.toFixed(2)} of them idle\n`,
      );
      results.push({
        target,
        name: `database commits per ${name} (${searches} sequential, projections included)`,
        value: Math.round(perRequest * 100) / 100,
        unit: 'commits',
        baseline: 1,
        baselineName: 'hand-written SQL (one transaction)',
        ratio: perRequest,
      });
    }
    results.push({
      target,
      name: 'database commits per second, idle service (subtracted above)',
      value: Math.round(idlePerSecond * 100) / 100,
      unit: 'commits/s',
    });
    return results;
  } finally {
    await stats.end().catch(() => undefined);
    await app.close();
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await cleanup.end();
  }
}

/** Waits until every projection has applied the log's head. */
async function settle(context: ServiceContext): Promise<void> {
  const head = await context.storage.eventStore.headPosition();
  if (head === null) return;
  await context.projections.waitFor(context.projections.projectionNames, head, 60_000);
}
