import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  closeSync,
  readdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { openSqlDatabase } from '../../src/platform/database/open-sql-database.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import {
  NODE,
  PROJECT_ROOT,
  runCli,
  startServiceProcess,
  type ServiceProcess,
} from '../support/processes.js';
import { seedEmbeddedDatabase } from '../support/pglite-template.js';
import { newEvents, testMetadata, waitUntil } from '../support/storage.js';

interface ServiceRun {
  /** null: still running after the timeout (then killed). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const MAIN = resolve(PROJECT_ROOT, 'dist/src/main.js');

/**
 * Runs the built service until it exits, at most `timeoutMs`; `shell` (bash) may prepare the process first and
 * must end with `exec "$SERVICE"`, e.g. `ulimit -f 512; exec "$SERVICE"`.
 */
function runServiceToExit(
  env: Record<string, string>,
  shell?: string,
  timeoutMs = 30_000,
): Promise<ServiceRun> {
  const fullEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SEED_DEMO: 'false', ...env };
  const child = shell
    ? spawn('bash', ['-c', shell.replaceAll('"$SERVICE"', `"${NODE}" "${MAIN}"`)], {
        cwd: PROJECT_ROOT,
        env: fullEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(NODE, [MAIN], { cwd: PROJECT_ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/**
 * The refusal is one paragraph on stderr: one line, no stack trace, no `[object Object]`. Only damage found by a
 * projection may come after the service started listening (it runs beside the HTTP start-up).
 */
function expectOneParagraph(run: ServiceRun, options: { mayHaveListened?: boolean } = {}): string {
  if (!options.mayHaveListened) expect(run.stdout).not.toContain('listening on');
  const text = run.stderr.trim();
  expect(text.split('\n')).toHaveLength(1);
  expect(text).not.toMatch(/\n\s+at |\[object Object\]/);
  expect(run.code).toBe(1);
  return text;
}

describe('starting the service (child processes)', () => {
  const dirs: string[] = [];
  const services: ServiceProcess[] = [];
  const tempDir = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };

  afterEach(async () => {
    for (const service of services.splice(0)) await service.stop('SIGKILL');
  });

  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a second service on a DATA_DIR a live service owns refuses to start and names the owner; the CLI still works; a dead owner is taken over with a note', async () => {
    const dataDir = tempDir('owned-');
    // A migrated embedded database copied in: the test is about the lock, not about initdb.
    await seedEmbeddedDatabase(dataDir);
    const first = await startServiceProcess({ DATA_DIR: dataDir });
    services.push(first);
    const firstPid = first.child.pid!;
    await waitUntil(() => readFileSync(join(dataDir, 'owner.lock'), 'utf8').includes(first.baseUrl), 10_000);

    const second = await runServiceToExit({ DATA_DIR: dataDir });
    const refusal = expectOneParagraph(second);
    expect(refusal).toContain(`DATA_DIR ${dataDir} is in use by another service`);
    expect(refusal).toContain(`process ${firstPid}`);
    expect(refusal).toMatch(/running since \d{4}-\d\d-\d\dT/);
    expect(refusal).toContain(first.baseUrl);
    expect(refusal).toContain(join(dataDir, '.s.PGSQL.5432'));

    // The first service and the CLI (through its socket) are untouched.
    expect((await fetch(`${first.baseUrl}/health/live`)).status).toBe(200);
    expect(JSON.parse(readFileSync(join(dataDir, 'owner.lock'), 'utf8'))).toMatchObject({ pid: firstPid });
    const status = await runCli(['projections', 'status', '--json'], { DATA_DIR: dataDir });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).projections.length).toBeGreaterThan(0);

    // Killed, the first leaves its lock behind: the next service takes it over and says so.
    await first.stop('SIGKILL');
    services.splice(services.indexOf(first), 1);
    const next = await startServiceProcess({ DATA_DIR: dataDir });
    services.push(next);
    expect(next.output()).toContain(
      `took over DATA_DIR ${dataDir}: the lock of process ${firstPid} (service)`,
    );
    expect(JSON.parse(readFileSync(join(dataDir, 'owner.lock'), 'utf8'))).toMatchObject({
      pid: next.child.pid,
      process: 'service',
      http: next.baseUrl,
    });
    expect((await fetch(`${next.baseUrl}/health/live`)).status).toBe(200);
  });

  it('a DATA_DIR that is a file, or a file where its database directory belongs: one paragraph, exit 1', async () => {
    const parent = tempDir('file-');
    const file = join(parent, 'data');
    writeFileSync(file, 'not a directory');
    const onFile = expectOneParagraph(await runServiceToExit({ DATA_DIR: file }));
    expect(onFile).toContain(`DATA_DIR ${file} is a file, not a directory`);

    const dataDir = join(parent, 'with-file');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'pglite'), 'not a directory');
    const inside = expectOneParagraph(await runServiceToExit({ DATA_DIR: dataDir }));
    expect(inside).toContain(`${join(dataDir, 'pglite')} is a file`);
    expect(inside).toContain('Move that file away');
  });

  describe('on an embedded database that was written before', () => {
    let pristine: string;
    let eventsFile: string;

    beforeAll(async () => {
      pristine = tempDir('pristine-');
      await seedEmbeddedDatabase(pristine);
      const opened = await openSqlDatabase({ dataDir: pristine, serveSocket: false });
      const store = new PostgresEventStore(opened.db);
      await store.init();
      for (let s = 0; s < 20; s++) {
        const stream = `widget-damage${s}`;
        await store.append(
          stream,
          newEvents(
            `${stream}-all`,
            Array.from({ length: 25 }, (_, i) => ({
              type: 'WidgetTuned',
              data: { step: i, pad: 'x'.repeat(200) },
            })),
            testMetadata(),
          ),
          { expectedVersion: 'no_stream' },
        );
      }
      const { rows } = await opened.db.query<{ path: string }>(
        `SELECT pg_relation_filepath('es_events') AS path`,
      );
      eventsFile = rows[0]!.path;
      await store.close();
      await opened.close();
    });

    const copy = (prefix: string): string => {
      const dir = tempDir(prefix);
      cpSync(pristine, dir, { recursive: true });
      return dir;
    };

    it('corrupt database files: one paragraph naming the database directory, exit 1', async () => {
      const garbled = copy('garbled-');
      writeFileSync(join(garbled, 'pglite/global/pg_control'), Buffer.alloc(8192, 0x5a));
      const garbledText = expectOneParagraph(await runServiceToExit({ DATA_DIR: garbled }));
      expect(garbledText).toContain(
        `its embedded database in ${join(garbled, 'pglite')} could not be opened`,
      );
      expect(garbledText).toContain(`restore ${garbled} from a backup`);

      const walless = copy('walless-');
      for (const segment of readdirSync(join(walless, 'pglite/pg_wal')).filter((f) =>
        /^[0-9A-F]{24}$/.test(f),
      ))
        unlinkSync(join(walless, 'pglite/pg_wal', segment));
      const wallessText = expectOneParagraph(await runServiceToExit({ DATA_DIR: walless }));
      expect(wallessText).toContain(
        `its embedded database in ${join(walless, 'pglite')} could not be opened`,
      );
    });

    it('a damaged event page: one paragraph naming the file, exit 1 (not a service that never gets ready)', async () => {
      const damaged = copy('damaged-');
      const file = join(damaged, 'pglite', eventsFile);
      const fd = openSync(file, 'r+');
      writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, 8192 * 2);
      closeSync(fd);

      const text = expectOneParagraph(await runServiceToExit({ DATA_DIR: damaged }), {
        mayHaveListened: true,
      });
      expect(text).toContain(`the embedded database in ${join(damaged, 'pglite')} (file ${file}) is damaged`);
      expect(text).toContain('SQLSTATE XX001');
      expect(text).toContain(`restore ${damaged} from a backup`);
    });
  });

  it('a full disk (a full tmpfs in a mount namespace of its own): one paragraph, exit 1', async () => {
    const mountPoint = tempDir('full-');
    const dataDir = join(mountPoint, 'data');
    // The mount exists only in the child's namespace: nothing is left mounted on the machine.
    const run = await runServiceToExit(
      { DATA_DIR: dataDir },
      `exec unshare --mount --propagation private bash -c '` +
        `mount -t tmpfs -o size=1m tmpfs "${mountPoint}" || { echo "cannot mount a tmpfs: this test needs root" >&2; exit 90; }; ` +
        `head -c 2m /dev/zero > "${mountPoint}/filler" 2>/dev/null; exec "$SERVICE"'`,
    );
    const text = expectOneParagraph(run);
    expect(text).toContain(`failed with ENOSPC: the disk holding DATA_DIR ${dataDir} is full`);
    expect(text).toContain(`df -h ${dataDir}`);
  });

  it('a file size limit (ulimit -f) the embedded database cannot live with: one paragraph, exit 1', async () => {
    const dataDir = join(tempDir('fsize-'), 'data');
    const text = expectOneParagraph(
      await runServiceToExit({ DATA_DIR: dataDir }, 'ulimit -f 1024; exec "$SERVICE"'),
    );
    expect(text).toContain('may not write files over 1 MiB');
    expect(text).toContain('ulimit -f unlimited');
  });
});
