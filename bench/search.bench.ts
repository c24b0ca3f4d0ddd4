import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CommandBus } from '@nestjs/cqrs';
import { IssueApiKey, RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { createHttpApp } from '../src/platform/http/create-http-app.js';
import { AppModule } from '../src/app.module.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { writeGenerated } from '../src/search/data/demo-corpus.js';
import type { Measurement } from './bench-support.js';
import type { ClientResult, ClientTask } from './search-client.js';

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
// Runs per query, alternating with the SQL: the machine this was measured on is shared and drifts; more runs even it out.
const RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 60);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * p50/p95 of each query through the service (HTTP, single-dataset hosts search, 10 rows, with its count)
 * beside the hand-written SQL doing the same work (capped count + first page) on the same database, and the
 * time to the first SSE chunk of a unified search; both timed from a client process of their own.
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
    { ...serviceComposition, serveSocket: false },
  );
  const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
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
    const analyze = new pg.Client({ connectionString: url.toString() });
    await analyze.connect();
    await analyze.query('ANALYZE obs_hosts');
    await analyze.end();
    const operator = () => commandEnvelope({ actor: 'operator:bench', payer: 'system' });
    const bus = app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount(`bench-search-${Date.now()}@example.com`, 'enterprise', undefined, operator()),
    );
    const { key } = await bus.execute(new IssueApiKey(accountId, 'bench', operator()));
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');

    // The client runs in a process of its own, as a real one would: its HTTP and JSON work must not share the
    // service's event loop and count as service time. It times the hand-written SQL the same way.
    const client = fork(fileURLToPath(new URL('./search-client.js', import.meta.url)), {
      serialization: 'advanced',
    });
    const task: ClientTask = {
      base,
      key,
      databaseUrl: url.toString(),
      runs: RUNS,
      queries: QUERIES,
      firstChunkRuns: 5,
    };
    const outcome = await new Promise<ClientResult>((resolve, reject) => {
      client.once('message', (message: { ok: boolean; result?: ClientResult; error?: string }) =>
        message.ok ? resolve(message.result!) : reject(new Error(message.error)),
      );
      client.once('exit', (code) => code !== 0 && reject(new Error(`search client exited with ${code}`)));
      client.send(task);
    });

    const results: Measurement[] = [];
    const serviceAll: number[] = [];
    const sqlAll: number[] = [];
    for (const { raw, service, sql } of outcome.perQuery) {
      serviceAll.push(...service);
      sqlAll.push(...sql);
      results.push({
        target: `PostgreSQL 15 server, ${hosts.toLocaleString('en-US')} hosts`,
        name: `search p50 ${raw}`,
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
    results.push({
      target: `PostgreSQL 15 server, ${hosts.toLocaleString('en-US')} hosts`,
      name: 'time to the first SSE chunk (p50 of 5)',
      value: Math.round(percentile(outcome.firstChunk, 50) * 10) / 10,
      unit: 'ms',
    });
    return results;
  } finally {
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
