/**
 * The real `data import` command as an operator runs it (the built CLI, a child process), on the embedded database
 * (PGlite, DATA_DIR) and on the PostgreSQL server (DATABASE_URL): several files and a folder, standard input piped
 * in, a bad line in the middle (exit code 3, the import goes on), re-import moving last_seen, the --json summary
 * per file and in total. What was stored is read back from the database itself after the process ended.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PGLITE_DIR_NAME } from '../../src/platform/database/open-sql-database.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { MASSCAN_JSON, MASSCAN_LIST } from '../support/masscan-samples.js';
import { freshDataDir } from '../support/pglite-template.js';
import { NODE, PROJECT_ROOT, runCli, TEST_CLI_DEFAULTS, type CliResult } from '../support/processes.js';

/** Every process that owns the database opens it (seconds on a busy machine). */
const STEP_TIMEOUT_MS = 180_000;

const SEEN = { first_seen: '2025-05-01T00:00:00.000Z', last_seen: '2025-06-01T00:00:00.000Z' };
const host = (octet: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: `198.51.100.${octet}:443/tcp`,
    ip: `198.51.100.${octet}`,
    port: 443,
    transport: 'tcp',
    ...SEEN,
    ...extra,
  });

/** `cli <args>` with `input` piped to its standard input, as `masscan … | cli data import hosts -` does. */
function runCliWithInput(
  args: readonly string[],
  input: string,
  env: Record<string, string>,
): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(NODE, [resolve(PROJECT_ROOT, 'dist/src/cli.js'), ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...TEST_CLI_DEFAULTS, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

interface ImportJson extends Record<string, unknown> {
  readonly imported: number;
  readonly files: Array<{ file: string; format: string; imported: number; problems: unknown[] }>;
}

const json = (result: CliResult): ImportJson => {
  try {
    return JSON.parse(result.stdout) as ImportJson;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
};

interface Leg {
  readonly name: string;
  setUp(): Promise<{
    env: Record<string, string>;
    stored: (id: string) => Promise<unknown>;
    dispose(): Promise<void>;
  }>;
}

const LEGS: Leg[] = [
  {
    name: 'embedded (PGlite, DATA_DIR)',
    async setUp() {
      const dataDir = await freshDataDir('data-import-cli-');
      return {
        env: { DATA_DIR: dataDir },
        // Read after the CLI exited: the directory is free again.
        stored: async (id) => {
          const db = await PgliteDatabase.open(join(dataDir, PGLITE_DIR_NAME));
          try {
            const { rows } = await db.query<{ doc: unknown }>('SELECT doc FROM obs_hosts WHERE id = $1', [
              id,
            ]);
            return rows[0]?.doc ?? null;
          } finally {
            await db.close();
          }
        },
        dispose: async () => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }),
      };
    },
  },
  {
    name: 'PostgreSQL server (DATABASE_URL)',
    async setUp() {
      const database: TestDatabase = await createTestDatabase('postgres');
      const dataDir = mkdtempSync(join(tmpdir(), 'data-import-cli-server-'));
      return {
        env: { DATABASE_URL: database.url!, DATA_DIR: dataDir },
        stored: async (id) => {
          const { rows } = await database.db.query<{ doc: unknown }>(
            'SELECT doc FROM obs_hosts WHERE id = $1',
            [id],
          );
          return rows[0]?.doc ?? null;
        },
        dispose: async () => {
          await database.dispose();
          rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
        },
      };
    },
  },
];

describe.each(LEGS)('data import CLI: $name', (leg) => {
  let scratch: string;
  let env: Record<string, string>;
  let stored: (id: string) => Promise<unknown>;
  let dispose: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'data-import-files-'));
    ({ env, stored, dispose } = await leg.setUp());
  }, STEP_TIMEOUT_MS);

  afterAll(async () => {
    await dispose?.();
    rmSync(scratch, { recursive: true, force: true });
  });

  it(
    'imports files and a folder, reports the bad line with its file and goes on (exit 3), with a --json summary',
    async () => {
      const hosts = join(scratch, 'hosts.ndjson');
      writeFileSync(hosts, [host(1), '{"id": "truncated', host(2)].join('\n') + '\n');
      const folder = join(scratch, 'masscan');
      mkdirSync(folder);
      writeFileSync(join(folder, '2-list.txt'), MASSCAN_LIST.join('\n') + '\n');
      writeFileSync(join(folder, '1-scan.json'), MASSCAN_JSON.join('\n') + '\n');
      const result = await runCli(
        ['data', 'import', '--reason', 'test load', 'hosts', hosts, folder, '--json'],
        env,
        STEP_TIMEOUT_MS,
      );
      expect(result.code).toBe(3);
      const summary = json(result);
      expect(summary).toMatchObject({
        dataset: 'hosts',
        imported: 2 + 6 + 5,
        imported_by_dataset: { hosts: 13 },
        rejected: 1,
        refused: {},
        aborted: false,
        problems: [{ file: hosts, line: 2, reason: expect.stringMatching(/^invalid JSON/) }],
      });
      expect(summary.files.map((file) => [file.file, file.format, file.imported])).toEqual([
        [hosts, 'ndjson', 2],
        [join(folder, '1-scan.json'), 'masscan', 6],
        [join(folder, '2-list.txt'), 'masscan', 5],
      ]);
      expect(summary.files[0]!.problems).toHaveLength(1);
      expect(await stored('192.0.2.10:22/tcp')).toEqual({
        id: '192.0.2.10:22/tcp',
        ip: '192.0.2.10',
        port: 22,
        transport: 'tcp',
        protocol: 'ssh',
        banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6',
        first_seen: '2023-11-14T22:13:20.000Z',
        last_seen: '2023-11-14T22:13:20.000Z',
      });
      expect(await stored('198.51.100.2:443/tcp')).toMatchObject(SEEN);
      // The load is recorded on its dataset's stream, with who ran it, why, and each file's hash (ADR 110).
      expect(summary).toMatchObject({ recorded: { stream: 'data-load-hosts' } });
      // Read back in this process (runCliInProcess): the import above is the real process this test is about.
      const replayed = await runCliInProcess(
        ['events', 'replay', '--stream', 'data-load-hosts', '--json'],
        env,
      );
      expect(JSON.parse(replayed.stdout)).toMatchObject({
        type: 'ObservationDataLoaded',
        actor: 'operator:admin',
        surface: 'cli',
        reason: 'test load',
        data: {
          outcome: 'completed',
          datasets: ['hosts'],
          formats: ['ndjson', 'masscan'],
          // masscan writes a port and each of its banners apart: 5 records are parts of another one's observation.
          records: { read: summary.read, written: 13, merged: 5, rejected: 1 },
          files: [
            { name: hosts, sha256: createHash('sha256').update(readFileSync(hosts)).digest('hex') },
            { name: join(folder, '1-scan.json') },
            { name: join(folder, '2-list.txt') },
          ],
        },
      });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'reads standard input (-), and a re-import moves last_seen and keeps first_seen',
    async () => {
      const later = { first_seen: '2025-09-01T00:00:00.000Z', last_seen: '2025-10-01T00:00:00.000Z' };
      const piped = await runCliWithInput(
        ['data', 'import', '--reason', 'test load', 'hosts', '-', '--json'],
        `${host(1, { product: 'caddy', ...later })}\n`,
        env,
      );
      expect([piped.code, json(piped).imported, json(piped).files[0]!.format]).toEqual([0, 1, 'ndjson']);
      expect(await stored('198.51.100.1:443/tcp')).toEqual(
        JSON.parse(host(1, { product: 'caddy', first_seen: SEEN.first_seen, last_seen: later.last_seen })),
      );
      const text = await runCliWithInput(
        ['data', 'import', '--reason', 'test load', 'hosts', '-'],
        'not a known format\n',
        env,
      );
      expect(text.code).toBe(1);
      expect(text.stderr).toContain('standard input: no format recognizes this content');
    },
    STEP_TIMEOUT_MS,
  );
});
