import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CommandBus } from '@nestjs/cqrs';
import { IssueApiKey, PurchaseCredits, RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { loadSampleCatalogue } from '../src/catalogue/sample/sample-catalogue.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { createHttpApp } from '../src/platform/http/create-http-app.js';
import { AppModule } from '../src/app.module.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import {
  EmbeddedPostgresServer,
  socketDirectoryFor,
} from '../src/platform/database/embedded-postgres-server.js';
import { DATASETS } from '../src/search/domain/datasets.js';
import { DEMO_CORPUS_SEED, writeGenerated } from '../src/search/data/demo-corpus.js';
import {
  EVENT_LOOP_REPORT_SIGNAL,
  type EventLoopDelayReport,
} from '../src/platform/health/event-loop-delay.js';
import type { Measurement } from './bench-support.js';
import type { LegResult, LegTask } from './load-client.js';
import { MIX_WEIGHTS, summarize, type LegSummary } from './load-mix.js';

/**
 * `BENCH_ONLY=load`: the service started as its own process (dist/src/main.js) on a corpus of generated hosts,
 * driven by a client process of its own (load-client.ts) at each concurrency with the mix of load-mix.ts over 16
 * payers; then, with the service stopped, the same requests' hand-written SQL at the same concurrency on the
 * same database. See docs/adr/0092-load-benchmark.md.
 */
const PAYERS = 16;
const CREDITS_PER_PAYER = 1_000_000;
const READY_TIMEOUT_MS = 600_000;

interface LoadTarget {
  readonly name: 'server' | 'embedded';
  readonly label: string;
  readonly hosts: number;
  /** Environment of the service (DATA_DIR and, on the server, DATABASE_URL). */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** The embedded default's server on its socket, while the service (or the preparing context) runs it. */
  readonly socketUrl?: string;
  /**
   * The embedded default's database for the hand-written SQL, with the service stopped: its PostgreSQL server,
   * started from DATA_DIR by the benchmark, and how to stop it.
   */
  startEmbeddedServer?(): Promise<{ url: string; stop(): Promise<void> }>;
  /** Reads the database's transaction commits so far (pg_stat_database), or null where it cannot be read. */
  commits(): Promise<number | null>;
  dispose(): Promise<void>;
}

interface LevelFigures {
  readonly concurrency: number;
  readonly service: LegSummary & {
    readonly sent: number;
    readonly hung: number;
    readonly commitsPerRequest: number | null;
  };
  readonly eventLoop: EventLoopDelayReport | null;
  sql?: LegSummary & { readonly poolSize: number };
}

function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value.replace(/_/g, ''));
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name}: a positive number, got "${value}"`);
  return number;
}

export async function benchLoad(): Promise<Measurement[]> {
  const levels = (process.env.BENCH_LOAD_CLIENTS ?? '8,32,128').split(',').map((n) => Number(n.trim()));
  const seconds = envNumber('BENCH_LOAD_SECONDS', 20);
  const warmup = envNumber('BENCH_LOAD_WARMUP_SECONDS', 3);
  const others = envNumber('BENCH_LOAD_OTHER_RECORDS', 10_000);
  const which = (process.env.BENCH_LOAD_TARGETS ?? 'server,embedded').split(',').map((t) => t.trim());
  const measurements: Measurement[] = [];
  for (const name of which) {
    if (name !== 'server' && name !== 'embedded') throw new Error(`BENCH_LOAD_TARGETS: server or embedded`);
    const hosts = envNumber(
      name === 'server' ? 'BENCH_LOAD_SERVER_HOSTS' : 'BENCH_LOAD_EMBEDDED_HOSTS',
      envNumber('BENCH_LOAD_HOSTS', name === 'server' ? 1_000_000 : 200_000),
    );
    const target = name === 'server' ? await serverTarget(hosts) : embeddedTarget(hosts);
    if (!target) continue;
    try {
      const keys = await prepare(target, others);
      // BENCH_LOAD_PREPARE_ONLY=1 loads a kept corpus (BENCH_LOAD_KEEP, BENCH_LOAD_DATA_DIR) for later runs.
      if (process.env.BENCH_LOAD_PREPARE_ONLY === '1') continue;
      const figures = await measure(target, keys, levels, seconds, warmup);
      measurements.push(...toMeasurements(target, figures));
    } finally {
      await target.dispose();
    }
  }
  return measurements;
}

async function serverTarget(hosts: number): Promise<LoadTarget | null> {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  // BENCH_LOAD_KEEP=<name> keeps the corpus in that database and reuses it on the next run.
  const kept = process.env.BENCH_LOAD_KEEP;
  if (kept !== undefined && !/^[a-z_][a-z0-9_]*$/.test(kept))
    throw new Error('BENCH_LOAD_KEEP: a lowercase name');
  const dbName = kept ?? `bench_load_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  try {
    await admin.connect();
  } catch (error) {
    process.stderr.write(
      `PostgreSQL server not reachable at ${serverUrl}: ${String(error)}; load on the server skipped\n`,
    );
    return null;
  }
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName])).rowCount === 1;
  if (!exists) await admin.query(`CREATE DATABASE ${dbName}`);
  const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]!
    .server_version;
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-load-server-'));
  return {
    name: 'server',
    label: `PostgreSQL ${version.split(' ')[0]} server, ${hosts.toLocaleString('en-US')} hosts`,
    hosts,
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    dataDir,
    databaseUrl: url.toString(),
    commits: () => commitsAt({ connectionString: url.toString() }),
    dispose: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      if (kept !== undefined) return;
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

function embeddedTarget(hosts: number): LoadTarget {
  // BENCH_LOAD_DATA_DIR keeps the embedded corpus there and reuses it on the next run.
  const kept = process.env.BENCH_LOAD_DATA_DIR;
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), 'bench-load-embedded-'));
  mkdirSync(dataDir, { recursive: true });
  // The embedded default since ADR 94: the PostgreSQL 18 server the service starts in DATA_DIR, on its socket.
  const socketUrl = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDirectoryFor(dataDir))}`;
  return {
    name: 'embedded',
    label: `embedded default (PostgreSQL 18 server in DATA_DIR), ${hosts.toLocaleString('en-US')} hosts`,
    hosts,
    env: { DATA_DIR: dataDir },
    dataDir,
    socketUrl,
    startEmbeddedServer: async () => {
      const server = await EmbeddedPostgresServer.start(dataDir, () => undefined);
      return { url: socketUrl, stop: () => server.stop() };
    },
    commits: () => commitsAt({ connectionString: socketUrl }),
    dispose: async () => {
      if (kept === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function commitsAt(config: pg.ClientConfig): Promise<number | null> {
  const client = new pg.Client(config);
  try {
    await client.connect();
    const { rows } = await client.query<{ commits: string | null }>(
      'SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = current_database()',
    );
    const commits = Number(rows[0]?.commits ?? NaN);
    return Number.isFinite(commits) ? commits : null;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Loads the corpus (unless kept from a previous run) and makes the payers; returns their API keys. */
async function prepare(target: LoadTarget, others: number): Promise<string[]> {
  const context = await ServiceContext.open(
    loadConfig({ ...target.env, LOG_LEVEL: 'silent', SEED_DEMO: 'false' }),
    { ...serviceComposition, serveSocket: false },
  );
  const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
  try {
    await context.projections.start();
    const present = await context.observations.count('hosts');
    if (present === target.hosts) {
      process.stderr.write(`reusing ${present.toLocaleString('en-US')} hosts kept from a previous run\n`);
    } else {
      for (const dataset of DATASETS) await context.observations.clear(dataset);
      // The sample catalogue first, as at a first start: host writes are associated with it as they land.
      await loadSampleCatalogue(context.catalogue, context.observations);
      const now = new Date();
      for (const dataset of DATASETS) {
        const count = dataset === 'hosts' ? target.hosts : others;
        let shown = 0;
        const written = await writeGenerated(context.observations, dataset, {
          count,
          seed: DEMO_CORPUS_SEED,
          now,
          onProgress: (n) => {
            if (n - shown >= 100_000) {
              shown = n;
              process.stderr.write(`  ${dataset}: ${n.toLocaleString('en-US')} written\n`);
            }
          },
        });
        process.stderr.write(
          `loaded ${written.records.toLocaleString('en-US')} ${dataset} in ${written.seconds.toFixed(1)} s (${written.recordsPerSecond} records/s)\n`,
        );
      }
    }
    const analyzeUrl = target.databaseUrl ?? target.socketUrl;
    if (analyzeUrl) {
      const analyze = new pg.Client({ connectionString: analyzeUrl });
      await analyze.connect();
      await analyze.query('ANALYZE');
      await analyze.end();
    }
    const bus = app.get(CommandBus);
    const operator = () => commandEnvelope({ actor: 'operator:bench', payer: 'system' });
    const keys: string[] = [];
    const run = Date.now().toString(36);
    for (let payer = 0; payer < PAYERS; payer++) {
      const { accountId } = await bus.execute(
        new RegisterAccount(`bench-load-${run}-${payer}@example.com`, 'enterprise', undefined, operator()),
      );
      await bus.execute(new PurchaseCredits(accountId, CREDITS_PER_PAYER, operator()));
      keys.push((await bus.execute(new IssueApiKey(accountId, 'bench-load', operator()))).key);
    }
    return keys;
  } finally {
    await app.close();
    await context.close();
  }
}

/** The service as an operator starts it: its own process on the target's storage. */
async function startService(
  target: LoadTarget,
): Promise<{ process: ChildProcess; base: string; lines: string[] }> {
  // BENCH_LOAD_CPU_PROF=<dir>: the service writes a V8 CPU profile of the whole run there when it stops.
  const profileDir = process.env.BENCH_LOAD_CPU_PROF;
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...flags, 'dist/src/main.js'], {
    env: {
      ...process.env,
      ...target.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[service] ${chunk.toString('utf8')}`));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let base: string | undefined;
  while (!base) {
    if (child.exitCode !== null)
      throw new Error(`the service exited with ${child.exitCode} before listening`);
    if (Date.now() > deadline) throw new Error('the service did not start in time');
    base = lines.map((line) => /listening on (http:\/\/\S+)/.exec(line)?.[1]).find(Boolean);
    await sleep(200);
  }
  // Serving once every projection follows the log (the payers' keys are in the read model).
  for (;;) {
    const ready = await fetch(new URL('/health/ready', base)).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error('the service did not become ready in time');
    await sleep(500);
  }
  return { process: child, base, lines };
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  // A service whose requests hang may not finish closing: it is killed after a while.
  const kill = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(kill);
}

/** Asks the service for its event-loop delay since the last ask (EVENT_LOOP_REPORT_SIGNAL). */
async function eventLoopReport(service: {
  process: ChildProcess;
  lines: string[];
}): Promise<EventLoopDelayReport | null> {
  const seen = service.lines.length;
  service.process.kill(EVENT_LOOP_REPORT_SIGNAL);
  for (let attempt = 0; attempt < 50; attempt++) {
    await sleep(100);
    const line = service.lines.slice(seen).find((l) => l.startsWith('event loop delay '));
    if (line) return JSON.parse(line.slice('event loop delay '.length)) as EventLoopDelayReport;
  }
  return null;
}

function peakResidentMiB(pid: number | undefined): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function measure(
  target: LoadTarget,
  keys: readonly string[],
  levels: readonly number[],
  seconds: number,
  warmup: number,
): Promise<LevelFigures[]> {
  const client = fork(fileURLToPath(new URL('./load-client.js', import.meta.url)), {
    serialization: 'advanced',
  });
  const runLeg = (task: LegTask): Promise<LegResult> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load client exited with ${code}`));
      client.once('exit', onExit);
      client.once('message', (message: { ok: boolean; result?: LegResult; error?: string }) => {
        client.off('exit', onExit);
        if (message.ok) resolve(message.result!);
        else reject(new Error(message.error));
      });
      client.send(task);
    });
  const figures: LevelFigures[] = [];
  try {
    process.stderr.write(`${target.label}: starting the service…\n`);
    const service = await startService(target);
    try {
      for (const concurrency of levels) {
        const before = await target.commits();
        await eventLoopReport(service);
        const result = await runLeg({
          leg: 'service',
          concurrency,
          seconds,
          warmupSeconds: warmup,
          base: service.base,
          keys,
        });
        const eventLoop = await eventLoopReport(service);
        const after = await target.commits();
        const summary = summarize(result.samples, result.seconds);
        // The commit counter also counts the reading connection's own statement: one, left out.
        const commitsPerRequest =
          before !== null && after !== null && result.sent > 0
            ? Math.round(((after - before - 1) / result.sent) * 10) / 10
            : null;
        figures.push({
          concurrency,
          service: { ...summary, sent: result.sent, hung: result.hung, commitsPerRequest },
          eventLoop,
        });
        process.stderr.write(
          `  service, ${concurrency} clients: ${summary.answeredPerSecond} req/s, p50 ${summary.p50Ms} ms, p99 ${summary.p99Ms} ms, busy ${summary.busy} (${summary.busyWithoutRetryAfter} without Retry-After), partial busy ${summary.partialBusy}, 429 ${summary.rateLimited}, errors ${summary.errors}, hung ${result.hung}, ${commitsPerRequest ?? '?'} commits/request, event-loop p99 ${eventLoop?.p99_ms ?? '?'} ms\n`,
        );
      }
      const rss = peakResidentMiB(service.process.pid);
      if (rss !== null) process.stderr.write(`  service peak resident memory: ${rss} MiB\n`);
      (figures as LevelFigures[] & { peakRss?: number | null }).peakRss = rss;
    } finally {
      await stopService(service.process);
    }
    // The server's own connection limit (100 by default) caps the pool of the largest level.
    const poolCap = envNumber('BENCH_LOAD_SQL_POOL_MAX', 90);
    const embedded = await target.startEmbeddedServer?.();
    const sqlUrl = target.databaseUrl ?? embedded?.url;
    try {
      for (const level of figures) {
        const poolSize = sqlUrl ? Math.min(level.concurrency, poolCap) : 1;
        const result = await runLeg({
          leg: 'sql',
          concurrency: level.concurrency,
          seconds,
          warmupSeconds: warmup,
          ...(sqlUrl ? { databaseUrl: sqlUrl, poolSize } : { dataDir: target.dataDir }),
        });
        level.sql = { ...summarize(result.samples, result.seconds), poolSize };
        process.stderr.write(
          `  SQL, ${level.concurrency} clients (pool ${poolSize}): ${level.sql.answeredPerSecond} req/s, p50 ${level.sql.p50Ms} ms, p99 ${level.sql.p99Ms} ms\n`,
        );
      }
    } finally {
      await embedded?.stop();
    }
  } finally {
    client.send('exit');
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    `bench/results/load-${target.name}.json`,
    JSON.stringify(
      { at: new Date().toISOString(), target: target.label, mix: MIX_WEIGHTS, levels: figures },
      null,
      2,
    ),
  );
  return figures;
}

function toMeasurements(target: LoadTarget, figures: readonly LevelFigures[]): Measurement[] {
  const out: Measurement[] = [];
  for (const { concurrency, service, sql, eventLoop } of figures) {
    const at = `${concurrency} clients`;
    out.push({
      target: target.label,
      name: `load ${at}: answered requests/s`,
      value: service.answeredPerSecond,
      unit: 'req/s',
      ...(sql
        ? {
            baseline: sql.answeredPerSecond,
            baselineName: 'hand-written SQL',
            ratio: service.answeredPerSecond / sql.answeredPerSecond,
          }
        : {}),
    });
    for (const [p, value, base] of [
      [50, service.p50Ms, sql?.p50Ms],
      [99, service.p99Ms, sql?.p99Ms],
    ] as const) {
      out.push({
        target: target.label,
        name: `load ${at}: p${p}`,
        value,
        unit: 'ms',
        ...(base !== undefined
          ? { baseline: base, baselineName: 'hand-written SQL', ratio: value / base }
          : {}),
      });
    }
    out.push({
      target: target.label,
      name: `load ${at}: busy share (without Retry-After: ${service.busyWithoutRetryAfter}; unified answers with a busy dataset: ${service.partialBusy})`,
      value: Math.round(service.busyShare * 1000) / 10,
      unit: '%',
    });
    if (service.hung > 0)
      out.push({
        target: target.label,
        name: `load ${at}: requests unanswered 30 s after the window closed (abandoned)`,
        value: service.hung,
        unit: 'requests',
      });
    if (service.commitsPerRequest !== null)
      out.push({
        target: target.label,
        name: `load ${at}: database commits per request`,
        value: service.commitsPerRequest,
        unit: 'commits',
      });
    if (eventLoop)
      out.push({
        target: target.label,
        name: `load ${at}: event-loop delay p99`,
        value: eventLoop.p99_ms,
        unit: 'ms',
      });
  }
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
