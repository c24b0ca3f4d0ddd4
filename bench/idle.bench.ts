import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { AppModule } from '../src/app.module.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { RefreshWorkerPool } from '../src/exposure/refresh-worker-pool.js';
import { spaceDecider, spaceStreamId } from '../src/organizations/domain/space.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { validateRecord } from '../src/search/domain/records.js';
import { EXPOSURE_SCOPES } from '../projections/exposure-scopes.projection.js';
import type { Measurement } from './bench-support.js';
import { refreshScopeAndWait } from './scope-refresh.js';

const DOMAIN = 'bench-idle.example';
const TARGET = 'PostgreSQL 15 server';
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface IdleFigures {
  readonly commitsPerSecond: number;
  readonly cpuShare: number;
}

/**
 * An idle service (issue 16, goal 3; ADRs 86 and 88): the built service (dist/src/main.js) started on a fresh server
 * database with the demo seed and an exposure scope under monitoring, left to settle (BENCH_IDLE_SETTLE_S, default
 * 100 s: the monitor's first pass comes 30 s after start and requests the scope's first watch run, which the
 * refresh pool's backed-off look takes up to 30 s later; the slowest backoff reaches its ceiling about 60 s after), then its database's
 * pg_stat_database.xact_commit and the process's CPU (/proc/<pid>/stat) sampled over BENCH_IDLE_WINDOW_S (default
 * 60 s). Beside it, in the same run: the same build with DATABASE_LISTEN=false (no wake channel: the polls of
 * ADR 86), and the floor, an empty database that no service uses, sampled over the same window as the first.
 */
export async function benchIdle(): Promise<Measurement[]> {
  const server = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const settleSeconds = Number(process.env.BENCH_IDLE_SETTLE_S ?? 100);
  const windowSeconds = Number(process.env.BENCH_IDLE_WINDOW_S ?? 60);
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const created: string[] = [];
  const database = async (label: string): Promise<{ name: string; url: string }> => {
    const name = `bench_idle_${label}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${name}`);
    created.push(name);
    const url = new URL(server);
    url.pathname = `/${name}`;
    return { name, url: url.toString() };
  };
  const commits = async (name: string): Promise<number> =>
    Number(
      (
        await admin.query<{ commits: string }>(
          `SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = $1`,
          [name],
        )
      ).rows[0]!.commits,
    );
  try {
    const floor = await database('floor');
    const measure = async (label: string, env: Record<string, string>): Promise<IdleFigures> => {
      const { name, url } = await database(label);
      const dataDir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
      await prepareMonitoredScope(url, dataDir);
      // Diagnosis: the server logs every statement of the service (its log says what the commits were).
      if (process.env.BENCH_IDLE_LOG_STATEMENTS === 'true')
        await admin.query(`ALTER DATABASE ${name} SET log_statement = 'all'`);
      const service = await startService(url, dataDir, env);
      try {
        process.stderr.write(`  ${label}: started, settling ${settleSeconds} s\n`);
        await sleep(settleSeconds * 1000);
        // pg_stat_database is updated by the backends at most every 10 s (PGSTAT_MIN_INTERVAL, PostgreSQL 15):
        // a long window makes that granularity small.
        const before = {
          commits: await commits(name),
          floor: await commits(floor.name),
          cpu: cpuTicks(service),
        };
        const started = performance.now();
        await sleep(windowSeconds * 1000);
        const seconds = (performance.now() - started) / 1000;
        const after = {
          commits: await commits(name),
          floor: await commits(floor.name),
          cpu: cpuTicks(service),
        };
        floorCommits.push((after.floor - before.floor) / seconds);
        return {
          commitsPerSecond: (after.commits - before.commits) / seconds,
          cpuShare: (after.cpu - before.cpu) / TICKS_PER_SECOND / seconds,
        };
      } finally {
        await stopService(service);
        rmSync(dataDir, { recursive: true, force: true });
      }
    };
    const floorCommits: number[] = [];
    const woken = await measure('wake', {});
    if (process.env.BENCH_IDLE_POLLING === 'false') return [];
    const polling = await measure('poll', { DATABASE_LISTEN: 'false' });
    const floorPerSecond = Math.min(...floorCommits);
    const round = (value: number, digits: number): number => Number(value.toFixed(digits));
    return [
      {
        target: TARGET,
        name: 'idle service, database commits per second (wake channel; goal <= 1)',
        value: round(woken.commitsPerSecond, 2),
        unit: 'commits/s',
        baseline: round(polling.commitsPerSecond, 2),
        baselineName: 'the same build polling, DATABASE_LISTEN=false',
        ratio: round(woken.commitsPerSecond / polling.commitsPerSecond, 3),
      },
      {
        target: TARGET,
        name: 'idle service, CPU of the service process (wake channel; goal < 1%)',
        value: round(woken.cpuShare * 100, 2),
        unit: '% of a core',
        baseline: round(polling.cpuShare * 100, 2),
        baselineName: 'the same build polling, DATABASE_LISTEN=false',
        ratio: round(woken.cpuShare / polling.cpuShare, 3),
      },
      {
        target: TARGET,
        name: 'idle floor: commits per second of an empty database no one uses',
        value: round(floorPerSecond, 2),
        unit: 'commits/s',
      },
    ];
  } finally {
    for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** An exposure scope whose first refresh completed, with monitoring on: the monitor's passes have work to look at. */
async function prepareMonitoredScope(databaseUrl: string, dataDir: string): Promise<void> {
  const context = await ServiceContext.open(
    loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: databaseUrl }),
    { ...serviceComposition, serveSocket: false },
  );
  const app = await NestFactory.createApplicationContext(AppModule.forContext(context), { logger: false });
  try {
    await context.projections.start();
    const hosts = [];
    for (let i = 0; i < 20; i++) {
      const checked = validateRecord('hosts', {
        id: `10.9.0.${i}:443/tcp`,
        ip: `10.9.0.${i}`,
        port: 443,
        transport: 'tcp',
        hostnames: [`h${i}.${DOMAIN}`],
        vendor: 'f5',
        product: 'nginx',
        version: '1.18.0',
        cpe: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
        first_seen: '2026-06-01T00:00:00.000Z',
        last_seen: '2026-11-18T08:00:00.000Z',
      });
      if (!checked.ok) throw new Error(checked.problems.join('; '));
      hosts.push(checked.record);
    }
    await context.observations.write('hosts', hosts);
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
        name: 'Idle bench scope',
        domain: DOMAIN,
        timezone: 'UTC',
        addresses: [],
        monitoring: true,
        creditLimit: null,
        billing: 'capacity',
      },
      { now: new Date() },
      envelope,
    );
    const pool = app.get(RefreshWorkerPool);
    pool.start();
    await refreshScopeAndWait(context, pool, {
      scopeId,
      organizationId,
      domain: DOMAIN,
      runKey: 'bench-idle-refresh-0001',
      envelope,
    });
    const monitored = await context.projections
      .collection<{ id: string }>('exposure-scopes', EXPOSURE_SCOPES)
      .find({ monitoring: true, state: 'active' }, { limit: 10 });
    if (monitored.length !== 1) throw new Error('the bench scope is not under monitoring');
    await pool.stop();
  } finally {
    await app.close();
    await context.close();
  }
}

async function startService(
  databaseUrl: string,
  dataDir: string,
  env: Record<string, string>,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: {
      ...process.env,
      ...env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'true',
      DEMO_CORPUS_RECORDS: process.env.BENCH_IDLE_CORPUS_RECORDS ?? '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`  [service] ${chunk.toString()}`));
  // The banner is printed once the demo seed is written: from then on nothing happens.
  while (!output.includes('Demo account')) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}): ${output}`);
    await sleep(100);
  }
  return child;
}

async function stopService(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** User and system CPU of a process so far, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicks(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: the fields after it start past its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
