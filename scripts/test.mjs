#!/usr/bin/env node
/**
 * `npm test`: jest on real storage. The suites run one at a time within a jest process (many share the
 * PostgreSQL server, whose snapshot xmin is cluster-wide, so a transaction one suite holds open would stall the
 * event-log readers of another). When a second, independent PostgreSQL server is reachable
 * (TEST_DATABASE_URL_2, default postgres://postgres@127.0.0.1:5433/test), the suites are split into two shards
 * that run side by side, each against its own server. Arguments are passed to jest; with arguments (a file,
 * -t …) a single jest process runs.
 */
import { spawn, execFileSync } from 'node:child_process';
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

function run(extra, shardEnv, label) {
  return new Promise((resolve) => {
    const child = spawn(jest, ['--runInBand', ...extra], {
      env: { ...env, ...shardEnv },
      stdio: label ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
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
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const sharded = args.length === 0 && process.env.TEST_SHARDS !== '1' && (await reachable(second));
if (!sharded) {
  process.exit(await run(args, {}, null));
}
// Build once: both shards' global setups would otherwise write dist/ at the same time.
execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
process.stdout.write(`two shards: ${new URL(first).host} and ${new URL(second).host}\n`);
const codes = await Promise.all([
  run(['--shard=1/2'], { TEST_DATABASE_URL: first, TEST_SKIP_BUILD: '1' }, 'shard 1'),
  run(['--shard=2/2'], { TEST_DATABASE_URL: second, TEST_SKIP_BUILD: '1' }, 'shard 2'),
]);
process.exit(codes.some((code) => code !== 0) ? 1 : 0);
