import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { EmbeddedPostgresProblem, POSTGRES_DIR_NAME } from '../database/embedded-postgres-server.js';
import { DataDirInUse, EmbeddedEngineMismatch, PGLITE_DIR_NAME } from '../database/open-sql-database.js';
import { EmbeddedDatabaseOpenFailed } from '../database/pglite-database.js';
import { describeThrown } from '../errors/describe-thrown.js';
import { damagedRelationFile, isStorageDamage } from '../database/storage-damage.js';

/**
 * Start-up failures explained for the operator: one paragraph naming the path, what failed and what to do,
 * instead of a stack trace, `[object Object]`, or a service that never becomes ready.
 */
export class StartupProblem extends Error {
  override readonly name = 'StartupProblem';
}

export interface StorageLocation {
  readonly dataDir: string;
  /** The service's database is the embedded PGlite in `${dataDir}/pglite` (no DATABASE_URL, not ESDB + MongoDB). */
  readonly embedded: boolean;
  /** DATABASE_URL, for naming the server (its password is never shown). */
  readonly databaseUrl?: string | undefined;
}

/** Directories of DATA_DIR the service creates; a file in their place stops everything that uses them. */
const DATA_DIR_ENTRIES: Readonly<Record<string, string>> = {
  [PGLITE_DIR_NAME]: 'embedded database',
  [POSTGRES_DIR_NAME]: 'embedded database server',
  exports: 'export files',
  reports: 'frozen report documents',
  keys: 'signing keys',
};
/** The probe written at start-up: a disk with less room than this is as good as full. */
const PROBE_BYTES = 1024 * 1024;
/** PostgreSQL keeps tables in 1 GiB segment files: a smaller file size limit breaks it once a table grows. */
const EMBEDDED_MIN_FILE_SIZE = 1024 * 1024 * 1024;

/**
 * Checks DATA_DIR before anything opens it: a directory (created when missing) whose entries are directories,
 * that this process can read, and write a 1 MiB file into; with the embedded database, a file size limit
 * that lets PostgreSQL write its segment files. Throws StartupProblem.
 */
export function checkDataDir(location: StorageLocation): void {
  const { dataDir } = location;
  if (!exists(dataDir)) {
    try {
      mkdirSync(dataDir, { recursive: true });
    } catch (error) {
      throw new StartupProblem(explainFileError(error, dataDir, location));
    }
  }
  requireDirectory(dataDir, `DATA_DIR ${dataDir} is a file, not a directory`, location);
  for (const [entry, purpose] of Object.entries(DATA_DIR_ENTRIES)) {
    const path = join(dataDir, entry);
    if (exists(path)) {
      requireDirectory(
        path,
        `${path} is a file, where the service keeps its ${purpose} in a directory`,
        location,
      );
    }
  }
  if (location.embedded) {
    const limit = fileSizeLimit();
    if (limit !== undefined && limit < EMBEDDED_MIN_FILE_SIZE) {
      throw new StartupProblem(
        `The service cannot start: this process may not write files over ${formatBytes(limit)} ` +
          `(its file size limit, RLIMIT_FSIZE, set with \`ulimit -f\`), but its embedded database in ` +
          `${join(dataDir, PGLITE_DIR_NAME)} writes 16 MiB WAL files and table files of up to 1 GiB. ` +
          'Start it without that limit (`ulimit -f unlimited`) or with a DATABASE_URL; nothing was changed.',
      );
    }
  }
  const probe = join(dataDir, `.start-up-probe-${process.pid}`);
  try {
    writeProbe(probe);
  } catch (error) {
    throw new StartupProblem(explainFileError(error, probe, location));
  } finally {
    rmSync(probe, { force: true });
  }
}

/** The paragraph for anything that stopped the start-up. */
export function explainStartupFailure(error: unknown, location: StorageLocation): string {
  if (error instanceof StartupProblem || error instanceof DataDirInUse) return error.message;
  if (error instanceof EmbeddedEngineMismatch || error instanceof EmbeddedPostgresProblem) {
    return `The service cannot start: ${error.message}`;
  }
  if (isStorageDamage(error)) return explainStorageDamage(error, location, 'while the service started');
  if (error instanceof EmbeddedDatabaseOpenFailed) {
    // A disk that filled up, or a file size limit, makes PGlite fail in ways that look like damage: look again.
    try {
      checkDataDir(location);
    } catch (problem) {
      if (problem instanceof StartupProblem) return problem.message;
    }
    if (hasErrno(error.cause)) return explainFileError(error.cause, error.path, location);
    return (
      `The service cannot start: its embedded database in ${error.path} could not be opened ` +
      `(${describeThrown(error.cause).replace(/\.?\s*Build with -sASSERTIONS for more info\.?/, '')}). Its files are damaged or incomplete, or were written by another ` +
      'PostgreSQL/PGlite version. Stop every process that uses DATA_DIR, then restore ' +
      `${location.dataDir} from a backup; or, to start with an empty database (every event in it is then lost), ` +
      `move ${error.path} away.`
    );
  }
  if ((error as { syscall?: unknown } | null)?.syscall === 'listen') {
    const { address, port, code } = error as { address?: unknown; port?: unknown; code?: unknown };
    return (
      `The service cannot start: listening on ${String(address)}:${String(port)} failed with ${String(code)}` +
      `${code === 'EADDRINUSE' ? ' (another process uses that port)' : ''}. Stop that process or choose another ` +
      'PORT (or HOST), then start again.'
    );
  }
  if (hasErrno(error)) return explainFileError(error, pathOf(error) ?? location.dataDir, location);
  const detail = error instanceof Error ? (error.stack ?? error.message) : describeThrown(error);
  return `The service failed to start: ${detail}`;
}

/** The paragraph for damaged stored data (isStorageDamage), found at start-up or while running. */
export function explainStorageDamage(error: unknown, location: StorageLocation, during: string): string {
  const message = describeThrown(error);
  const code = (error as { code?: unknown }).code;
  const relation = damagedRelationFile(error);
  const databaseDir = embeddedDatabaseDir(location.dataDir);
  const where = location.embedded
    ? `the embedded database in ${databaseDir}` + (relation ? ` (file ${join(databaseDir, relation)})` : '')
    : `the PostgreSQL database ${serverName(location.databaseUrl)}` + (relation ? ` (file ${relation})` : '');
  const restore = location.embedded
    ? `stop every process that uses DATA_DIR and restore ${location.dataDir} from a backup`
    : 'restore that database from a backup (or have its administrator repair it)';
  return (
    `The service stops: ${where} is damaged; reading it failed with "${message}" (SQLSTATE ${String(code)}) ` +
    `${during}. Read models that cannot read the event log would never catch up, so the service does not ` +
    `serve them. To recover, ${restore}, then start the service again.`
  );
}

/** The folder of DATA_DIR's embedded database: the server's cluster when only it exists, else PGlite's. */
function embeddedDatabaseDir(dataDir: string): string {
  const server = join(dataDir, POSTGRES_DIR_NAME);
  const pglite = join(dataDir, PGLITE_DIR_NAME);
  return exists(join(server, 'PG_VERSION')) && !exists(join(pglite, 'PG_VERSION')) ? server : pglite;
}

/** `path` is a directory this process can list; `notDirectory` says what is wrong when it is a file. */
function requireDirectory(path: string, notDirectory: string, location: StorageLocation): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
    if (isDirectory) readdirSync(path);
  } catch (error) {
    throw new StartupProblem(explainFileError(error, path, location));
  }
  if (!isDirectory) {
    throw new StartupProblem(
      `The service cannot start: ${notDirectory}. Move that file away (or point DATA_DIR at another ` +
        'directory) and start again; nothing was changed.',
    );
  }
}

function writeProbe(path: string): void {
  const fd = openSync(path, 'w');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let written = 0; written < PROBE_BYTES;) written += writeSync(fd, chunk);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Node's errno codes; emscripten (PGlite's file system) numbers them as WASI does. */
const WASI_ERRNO: Readonly<Record<number, string>> = {
  2: 'EACCES',
  19: 'EDQUOT',
  20: 'EEXIST',
  22: 'EFBIG',
  29: 'EIO',
  31: 'EISDIR',
  44: 'ENOENT',
  51: 'ENOSPC',
  54: 'ENOTDIR',
  63: 'EPERM',
  69: 'EROFS',
};

function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errno, name } = error as { code?: unknown; errno?: unknown; name?: unknown };
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  if (name === 'ErrnoError' && typeof errno === 'number') return WASI_ERRNO[errno] ?? `errno ${errno}`;
  return undefined;
}

function hasErrno(error: unknown): boolean {
  return errnoCode(error) !== undefined;
}

function pathOf(error: unknown): string | undefined {
  const path = (error as { path?: unknown }).path;
  return typeof path === 'string' ? path : undefined;
}

function explainFileError(error: unknown, path: string, location: StorageLocation): string {
  const code = errnoCode(error) ?? 'unknown error';
  const target = pathOf(error) ?? path;
  const syscall = (error as { syscall?: unknown }).syscall;
  const doing = (typeof syscall === 'string' ? GERUNDS[syscall] : undefined) ?? 'using';
  const failed = `The service cannot start: ${doing} ${target} failed with ${code}`;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return (
        `${failed}: the disk holding DATA_DIR ${location.dataDir} is full${code === 'EDQUOT' ? ' (disk quota)' : ''}. ` +
        `Free space on it (see \`df -h ${location.dataDir}\`) or move DATA_DIR to a larger disk, then start again.`
      );
    case 'EFBIG':
      return (
        `${failed}: this process may not write a file that large (its file size limit, RLIMIT_FSIZE, ` +
        '`ulimit -f`). Start the service without that limit (`ulimit -f unlimited`).'
      );
    case 'EACCES':
    case 'EPERM':
      return (
        `${failed}: the user running the service (uid ${process.getuid?.() ?? '?'}) may not read or write it. ` +
        `Give that user read and write access to DATA_DIR ${location.dataDir} and everything in it ` +
        '(for example with chown -R), or point DATA_DIR at a directory it owns.'
      );
    case 'EROFS':
      return `${failed}: DATA_DIR ${location.dataDir} is on a read-only file system. Mount it read-write or point DATA_DIR at a writable directory.`;
    case 'ENOTDIR':
    case 'EEXIST':
    case 'EISDIR':
      return (
        `${failed}: a file is where a directory should be, or the other way round, in DATA_DIR ${location.dataDir}. ` +
        'Move the stray entry away (or point DATA_DIR at another directory) and start again.'
      );
    case 'EIO':
      return (
        `${failed}: the disk or file system under DATA_DIR ${location.dataDir} reports an I/O error. ` +
        'Check the disk (the kernel log, `dmesg`), then restore DATA_DIR from a backup onto a healthy disk.'
      );
    default:
      return (
        `${failed} (${describeThrown(error)}). Check that DATA_DIR ${location.dataDir} is a directory the ` +
        'service can read and write, on a disk with free space, then start again.'
      );
  }
}

const GERUNDS: Readonly<Record<string, string>> = {
  open: 'opening',
  write: 'writing',
  fsync: 'writing',
  mkdir: 'creating',
  scandir: 'reading',
  stat: 'reading',
  read: 'reading',
  rename: 'renaming',
  unlink: 'removing',
};

/** RLIMIT_FSIZE of this process in bytes, from /proc (Linux); undefined when unlimited or unknown. */
function fileSizeLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max file size'));
    const soft = line?.slice('Max file size'.length).trim().split(/\s+/)[0];
    return soft && /^\d+$/.test(soft) ? Number(soft) : undefined;
  } catch {
    return undefined;
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.floor(bytes / (1024 * 1024))} MiB`;
  if (bytes >= 1024) return `${Math.floor(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** False only when nothing is there: an entry that cannot be looked at is checked (and explained) as well. */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** host:port/database of a DATABASE_URL, without credentials. */
function serverName(databaseUrl: string | undefined): string {
  if (!databaseUrl) return '(unknown server)';
  try {
    const url = new URL(databaseUrl);
    return `${url.host}${url.pathname}`;
  } catch {
    return '(DATABASE_URL)';
  }
}
