import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CommandBus } from '@nestjs/cqrs';
import { IssueApiKey, RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { createHttpApp } from '../src/platform/http/create-http-app.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { writeGenerated } from '../src/search/data/demo-corpus.js';
import type { Measurement } from './bench-support.js';

/** Ten representative host queries, and the same predicates written by hand over the same table. */
const QUERIES: ReadonlyArray<{ raw: string; sql: string }> = [
  { raw: 'port:443', sql: `keys @> '{"port":443}'` },
  { raw: 'product:nginx', sql: `keys @> '{"product":"nginx"}'` },
  { raw: 'country:fr', sql: `keys @> '{"country":"fr"}'` },
  { raw: 'product:nginx AND country:us', sql: `keys @> '{"product":"nginx","country":"us"}'` },
  { raw: 'port:22 AND NOT country:cn', sql: `keys @> '{"port":22}' AND NOT keys @> '{"country":"cn"}'` },
  { raw: 'product:open*', sql: `(keys ->> 'product') COLLATE "C" LIKE 'open%'` },
  { raw: 'http.title:*login*', sql: `lower(doc #>> '{http,title}') LIKE '%login%'` },
  { raw: 'ip:10.0.0.0/8', sql: `ip <<= '10.0.0.0/8'::inet` },
  { raw: 'port:[8000 TO 9000]', sql: `((keys ->> 'port')::bigint) BETWEEN 8000 AND 9000` },
  { raw: 'asn:13335', sql: `keys @> '{"asn":13335}'` },
];
const RUNS = 20;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * p50/p95 of each query through the service (HTTP, single-dataset hosts search, 10 rows, with its count)
 * beside the hand-written SQL doing the same work (capped count + first page) on the same database, and the
 * time to the first SSE chunk of a unified search.
 */
export async function benchSearch(hosts: number): Promise<Measurement[]> {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  // BENCH_SEARCH_KEEP=<name> keeps the loaded corpus in that database and reuses it on the next run.
  const kept = process.env.BENCH_SEARCH_KEEP;
  if (kept !== undefined && !/^[a-z_][a-z0-9_]*$/.test(kept))
    throw new Error('BENCH_SEARCH_KEEP: a lowercase name');
  const dbName = kept ?? `bench_search_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName])).rowCount === 1;
  if (!exists) await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-search-'));
  const context = await ServiceContext.open(
    loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      LOG_LEVEL: 'silent',
      SEARCH_DEADLINE_MS: '60000',
    }),
    { serveSocket: false },
  );
  const app = await createHttpApp(context, { logger: false });
  const direct = new pg.Client({ connectionString: url.toString() });
  try {
    await context.projections.start();
    const present = await context.observations.count('hosts');
    if (present === hosts) {
      process.stderr.write(`reusing ${hosts.toLocaleString('en-US')} hosts kept in ${dbName}\n`);
    } else {
      process.stderr.write(`loading ${hosts.toLocaleString('en-US')} generated hosts…\n`);
      await context.observations.clear('hosts');
      const loaded = await writeGenerated(context.observations, 'hosts', {
        count: hosts,
        seed: '42',
        now: new Date(),
      });
      process.stderr.write(
        `loaded in ${loaded.seconds.toFixed(1)} s (${loaded.recordsPerSecond} records/s)\n`,
      );
    }
    await direct.connect();
    await direct.query('ANALYZE obs_hosts');
    const operator = () => commandEnvelope({ actor: 'operator:bench', payer: 'system' });
    const bus = app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount(`bench-search-${Date.now()}@example.com`, 'enterprise', undefined, operator()),
    );
    const { key } = await bus.execute(new IssueApiKey(accountId, 'bench', operator()));
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');

    const results: Measurement[] = [];
    const serviceAll: number[] = [];
    const sqlAll: number[] = [];
    for (const query of QUERIES) {
      const service: number[] = [];
      const sql: number[] = [];
      const throughService = async () => {
        const started = performance.now();
        const response = await fetch(`${base}/api/v2/common/data/hosts`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ raw_query: query.raw, results_per_page: 10 }),
        });
        await response.text();
        if (response.status !== 200) throw new Error(`${query.raw}: HTTP ${response.status}`);
        service.push(performance.now() - started);
      };
      const byHand = async () => {
        const started = performance.now();
        await direct.query(
          `SELECT count(*) FROM (SELECT 1 FROM obs_hosts WHERE ${query.sql} LIMIT 10001) AS capped`,
        );
        await direct.query(
          `SELECT doc FROM obs_hosts WHERE ${query.sql} ORDER BY last_seen DESC, id LIMIT 10`,
        );
        sql.push(performance.now() - started);
      };
      // The table is larger than shared_buffers: whichever runs second finds the pages the first one read.
      // Alternating who goes first shares that advantage evenly.
      for (let run = 0; run < RUNS; run++) {
        if (run % 2 === 0) {
          await throughService();
          await byHand();
        } else {
          await byHand();
          await throughService();
        }
      }
      serviceAll.push(...service);
      sqlAll.push(...sql);
      results.push({
        target: `PostgreSQL 15 server, ${hosts.toLocaleString('en-US')} hosts`,
        name: `search p50 ${query.raw}`,
        value: Math.round(percentile(service, 50) * 10) / 10,
        unit: 'ms',
        baseline: Math.round(percentile(sql, 50) * 10) / 10,
        baselineName: 'hand-written SQL',
        ratio: percentile(service, 50) / percentile(sql, 50),
      });
    }
    for (const p of [50, 95]) {
      results.push({
        target: `PostgreSQL 15 server, ${hosts.toLocaleString('en-US')} hosts`,
        name: `search p${p}, all ten queries`,
        value: Math.round(percentile(serviceAll, p) * 10) / 10,
        unit: 'ms',
        baseline: Math.round(percentile(sqlAll, p) * 10) / 10,
        baselineName: 'hand-written SQL',
        ratio: percentile(serviceAll, p) / percentile(sqlAll, p),
      });
    }
    const firstChunk: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      const response = await fetch(`${base}/api/v2/common/data/search`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ raw_query: 'product:nginx' }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      firstChunk.push(performance.now() - started);
      await reader.cancel();
    }
    results.push({
      target: `PostgreSQL 15 server, ${hosts.toLocaleString('en-US')} hosts`,
      name: 'time to the first SSE chunk (p50 of 5)',
      value: Math.round(percentile(firstChunk, 50) * 10) / 10,
      unit: 'ms',
    });
    return results;
  } finally {
    await direct.end().catch(() => undefined);
    await app.close();
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (kept === undefined) {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await cleanup.end();
    }
  }
}
