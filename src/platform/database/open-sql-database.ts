import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalChangeSignals, PostgresChangeSignals, type ChangeSignals } from './change-signals.js';
import {
  EmbeddedPostgresServer,
  POSTGRES_DIR_NAME,
  socketDirectoryFor as serverSocketDirectoryFor,
  socketPathOf as serverSocketPathOf,
} from './embedded-postgres-server.js';
import type pg from 'pg';
import { PgliteDatabase } from './pglite-database.js';
import { assertSocketPathFits, PgliteSocketServer, socketPathFor } from './pglite-socket-server.js';
import { PostgresDatabase } from './postgres-database.js';
import type { SqlDatabase } from './sql-database.js';

/** What holds the database of DATA_DIR without a DATABASE_URL (ADR 94). */
export type EmbeddedEngine = 'postgres' | 'pglite';

export interface OpenSqlDatabaseOptions {
  readonly dataDir: string;
  /** A PostgreSQL server: DATA_DIR is then not used for SQL at all. */
  readonly databaseUrl?: string;
  /**
   * Without a DATABASE_URL: `postgres`, a PostgreSQL 18 server this process starts in `${dataDir}/postgres`;
   * `pglite`, PGlite in `${dataDir}/pglite`; `auto`, the server unless DATA_DIR already holds a PGlite database
   * and no server cluster (a DATA_DIR of an earlier version keeps its data). Default `pglite`: the library
   * callers (tests, tools) that open a DATA_DIR directly; the service's configuration defaults to `auto`.
   */
  readonly engine?: EmbeddedEngine | 'auto';
  /** When this process becomes the owner, serve the database to other processes on a unix socket (default true). */
  readonly serveSocket?: boolean;
  /** How long to wait for the owner's socket when another live process holds DATA_DIR (default 10 s). */
  readonly ownerWaitMs?: number;
  /** Socket connections the owner serves at once (default 16). */
  readonly maxSocketConnections?: number;
  /**
   * Own DATA_DIR or fail with DataDirInUse, never become a client of another live owner. The service: a second
   * service on the first one's socket would answer every data route with 500 once the first one stopped.
   */
  readonly exclusive?: boolean;
  /** What this process is (`service`, `cli`), recorded in the lock for whoever finds DATA_DIR taken. */
  readonly ownerName?: string;
  /** Notes for the operator, e.g. that a stale lock of a dead process was taken over. */
  readonly log?: (message: string) => void;
  /**
   * LISTEN for the other instances' changes on a PostgreSQL server (default true). Off behind a connection pooler
   * in transaction mode, where LISTEN needs a session it does not keep: the watchers then poll (ADR 88).
   */
  readonly listen?: boolean;
  /** Start-up steps of the embedded server (starting, creating its database, ready), for a progress line. */
  readonly progress?: (message: string) => void;
}

export type SqlDatabaseRole = 'server' | 'owner' | 'client';

export interface OpenedDatabase {
  readonly db: SqlDatabase;
  /** What holds the embedded database (undefined with a DATABASE_URL). */
  readonly engine?: EmbeddedEngine;
  /** `server`: DATABASE_URL; `owner`: this process opened the PGlite of DATA_DIR; `client`: through the owner's socket. */
  readonly role: SqlDatabaseRole;
  /**
   * The wake channel between the processes sharing this database (ADR 88): LISTEN/NOTIFY on a server, the socket
   * clients' commits for the owner of the embedded database, this process only for a socket client.
   */
  readonly changes: ChangeSignals;
  /** The owner records where it answers HTTP in its lock, for a second service to name it (others: no-op). */
  recordOwnerAddress(http: string): void;
  close(): Promise<void>;
}

export const OWNER_LOCK_FILE_NAME = 'owner.lock';
export const PGLITE_DIR_NAME = 'pglite';

/** The content of `owner.lock`: who owns DATA_DIR. */
export interface DataDirOwner {
  readonly pid: number;
  readonly startedAt: string;
  readonly hostname?: string;
  /** What the owner is: `service`, `cli` (absent in locks of older versions and of tests). */
  readonly process?: string;
  /** The unix socket the owner serves the database on, when it serves one. */
  readonly socket?: string;
  /** Where the owning service answers HTTP, once it listens. */
  readonly http?: string;
  /** What the owner serves on its socket (absent: `pglite`, as in locks of older versions). */
  readonly engine?: EmbeddedEngine;
}

/** DATA_DIR is owned by another live process and this one must own it (`exclusive`). */
export class DataDirInUse extends Error {
  override readonly name = 'DataDirInUse';
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner,
    readonly lockPath: string,
  ) {
    const who = owner.process === 'cli' ? 'an operator CLI command' : `another ${owner.process ?? 'process'}`;
    const where = [
      owner.http ? `answering on ${owner.http}` : undefined,
      owner.socket ? `serving its database on the socket ${owner.socket}` : undefined,
    ].filter((part) => part !== undefined);
    super(
      `DATA_DIR ${dataDir} is in use by ${who}: process ${owner.pid}` +
        `${owner.hostname ? ` on ${owner.hostname}` : ''}, running since ${owner.startedAt || 'an unknown time'}` +
        `${where.length > 0 ? `, ${where.join(' and ')}` : ''} (per ${lockPath}). ` +
        `Only one process can own a DATA_DIR: ${owner.process === 'cli' ? 'wait for that command to end (or stop it)' : 'stop that process first'}, ` +
        'or start this one with another DATA_DIR (or a DATABASE_URL). Operator commands (npm run cli) work while ' +
        'the service runs, through its socket.',
    );
  }
}

/** Socket clients' commits come in bursts (a CLI command): the owner's watchers look once per this many ms. */
const SOCKET_SIGNAL_DEBOUNCE_MS = 50;
/**
 * The engine for DATA_DIR. `auto` keeps a PGlite database an earlier version wrote (with a notice: nothing is
 * moved or lost); an explicit choice that would start empty beside the other engine's data is refused.
 */
export function chooseEmbeddedEngine(
  dataDir: string,
  requested: EmbeddedEngine | 'auto',
): { readonly engine: EmbeddedEngine; readonly notice?: string } {
  const pgliteDir = join(dataDir, PGLITE_DIR_NAME);
  const serverDir = join(dataDir, POSTGRES_DIR_NAME);
  const hasPglite = existsSync(join(pgliteDir, 'PG_VERSION'));
  const hasServer = existsSync(join(serverDir, 'PG_VERSION'));
  if (requested === 'pglite' || (requested === 'auto' && hasPglite && !hasServer)) {
    if (hasServer && !hasPglite) {
      throw new EmbeddedEngineMismatch(
        `DATA_DIR ${dataDir} holds the database of the embedded PostgreSQL server (${serverDir}), but ` +
          `EMBEDDED_ENGINE=pglite would start an empty PGlite database beside it. Start without EMBEDDED_ENGINE ` +
          '(or with EMBEDDED_ENGINE=postgres), or with another DATA_DIR.',
      );
    }
    return requested === 'auto'
      ? {
          engine: 'pglite',
          notice:
            `DATA_DIR ${dataDir} holds a PGlite database written by an earlier version (${pgliteDir}): it stays in ` +
            'use, on PGlite (slower under concurrent clients than the embedded PostgreSQL server new DATA_DIRs ' +
            'get). EMBEDDED_ENGINE=pglite keeps it and silences this note; README "Embedded database" says how ' +
            'to move to the server.',
        }
      : { engine: 'pglite' };
  }
  if (requested === 'postgres' && hasPglite && !hasServer) {
    throw new EmbeddedEngineMismatch(
      `DATA_DIR ${dataDir} holds a PGlite database (${pgliteDir}), but EMBEDDED_ENGINE=postgres would start an ` +
        'empty PostgreSQL server beside it. Start without EMBEDDED_ENGINE (or with EMBEDDED_ENGINE=pglite) to ' +
        'keep using it, or with another DATA_DIR.',
    );
  }
  return { engine: 'postgres' };
}

/** EMBEDDED_ENGINE names an engine whose database DATA_DIR does not hold, beside one it does. */
export class EmbeddedEngineMismatch extends Error {
  override readonly name = 'EmbeddedEngineMismatch';
}

/** Data directories whose PGlite this process has open (or is opening): never open one a second time. */
const ownedHere = new Map<string, { readonly serving: boolean }>();

const POLL_MS = 100;
/** A lock or takeover file that cannot be parsed this long after its last write is considered abandoned. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;

/**
 * Opens the SQL database of this service. With a DATABASE_URL, a connection pool to that server. Otherwise the
 * embedded database of DATA_DIR, which exactly one process owns: the first process takes `owner.lock` and either
 * starts the PostgreSQL server of `${dataDir}/postgres` (socket `${dataDir}/postgres/.s.PGSQL.5432`) or opens
 * `${dataDir}/pglite` and serves it on `${dataDir}/.s.PGSQL.5432`; any other process (or a second opener in the
 * owning process) connects through that socket. A lock whose process is gone is taken over.
 */
export async function openSqlDatabase(options: OpenSqlDatabaseOptions): Promise<OpenedDatabase> {
  if (options.databaseUrl) {
    const db = PostgresDatabase.fromUrl(options.databaseUrl);
    if (options.listen === false) {
      const changes = new LocalChangeSignals(false);
      return { db, role: 'server', changes, recordOwnerAddress: () => undefined, close: () => db.close() };
    }
    const changes = new PostgresChangeSignals({ connectionString: options.databaseUrl }, db);
    await changes.start();
    return {
      db,
      role: 'server',
      changes,
      recordOwnerAddress: () => undefined,
      close: async () => {
        await changes.close();
        await db.close();
      },
    };
  }
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const key = realpathSync(dataDir);
  const chosen = chooseEmbeddedEngine(dataDir, options.engine ?? 'pglite');
  const engine = chosen.engine;
  if (chosen.notice) options.log?.(chosen.notice);
  // The server always serves its socket: clients of this process and others connect alike.
  const serveSocket = engine === 'postgres' || (options.serveSocket ?? true);
  const lockPath = join(dataDir, OWNER_LOCK_FILE_NAME);
  const socketPath = engine === 'postgres' ? serverSocketPathOf(dataDir) : socketPathFor(dataDir);
  // A first start of the server runs initdb: its clients wait longer for the socket.
  const waitMs = options.ownerWaitMs ?? (engine === 'postgres' ? 120_000 : 10_000);
  const deadline = Date.now() + waitMs;
  let lastConnectError: unknown;
  let holder: DataDirOwner | undefined;
  const record: DataDirOwner = {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    hostname: hostname(),
    ...(options.ownerName ? { process: options.ownerName } : {}),
    ...(serveSocket ? { socket: socketPath } : {}),
    engine,
  };

  for (;;) {
    const here = ownedHere.get(key);
    if (here && !here.serving) {
      throw new Error(
        `${dataDir} is already open in this process without a socket; share that database instead`,
      );
    }
    if (!here) {
      const taken = await takeLock(lockPath, key, serveSocket, record);
      if ('taken' in taken) {
        if (taken.stale) options.log?.(describeTakeover(dataDir, lockPath, taken.stale));
        if (engine === 'postgres') {
          return openServerAsOwner(
            dataDir,
            key,
            lockPath,
            options.progress ?? options.log,
            options.listen !== false,
          );
        }
        return openAsOwner(dataDir, key, lockPath, serveSocket, options.maxSocketConnections);
      }
      holder = taken;
      if (options.exclusive) throw new DataDirInUse(dataDir, holder, lockPath);
    } else if (options.exclusive) {
      throw new Error(`${dataDir} is already open in this process; it cannot be owned a second time`);
    }
    // Another process (or this one) owns DATA_DIR: reach it through its socket, whichever engine it runs.
    const ownerEngine = here ? engine : (holder?.engine ?? 'pglite');
    const ownerSocket = ownerEngine === 'postgres' ? serverSocketPathOf(dataDir) : socketPathFor(dataDir);
    if (ownerEngine === 'pglite') assertSocketPathFits(dataDir);
    if (existsSync(ownerSocket)) {
      const db =
        ownerEngine === 'postgres'
          ? PostgresDatabase.fromServerSocketDirectory(serverSocketDirectoryFor(dataDir))
          : PostgresDatabase.fromSocketDirectory(dataDir);
      try {
        await db.query('SELECT 1');
        // A client of the embedded server LISTENs like any server client; the owner of a PGlite does not signal
        // its commits to its socket's clients: what they watch, they poll.
        const changes =
          ownerEngine === 'postgres' && options.listen !== false
            ? new PostgresChangeSignals(serverSocketConnection(serverSocketDirectoryFor(dataDir)), db)
            : new LocalChangeSignals(false);
        if (changes instanceof PostgresChangeSignals) await changes.start();
        return {
          db,
          engine: ownerEngine,
          role: 'client',
          changes,
          recordOwnerAddress: () => undefined,
          close: async () => {
            await changes.close();
            await db.close();
          },
        };
      } catch (error) {
        await db.close().catch(() => undefined);
        const code = (error as NodeJS.ErrnoException).code;
        // A socket file left by a dead owner, or one about to be replaced, or a server still starting (57P03).
        if (code !== 'ECONNREFUSED' && code !== 'ENOENT' && code !== 'ECONNRESET' && code !== '57P03')
          throw error;
        lastConnectError = error;
      }
    }
    if (Date.now() >= deadline) {
      const who = here ? 'this process' : `process ${holder?.pid ?? '?'} (since ${holder?.startedAt ?? '?'})`;
      const why = lastConnectError
        ? `its socket ${ownerSocket} refuses connections (${(lastConnectError as Error).message})`
        : `it serves no socket at ${ownerSocket}`;
      throw new Error(
        `${dataDir} is owned by ${who} per ${lockPath}, but after ${waitMs} ms ${why}. ` +
          'Is the owner still starting, or running with the socket disabled? ' +
          `If no process uses this DATA_DIR any more, delete ${lockPath}.`,
      );
    }
    await sleep(POLL_MS);
  }
}

async function openAsOwner(
  dataDir: string,
  key: string,
  lockPath: string,
  serveSocket: boolean,
  maxConnections: number | undefined,
): Promise<OpenedDatabase> {
  const lock = holdLock(lockPath, key);
  const releaseLock = lock.release;
  let db: PgliteDatabase | undefined;
  let server: PgliteSocketServer | undefined;
  // One process writes here, except the socket's clients: their commits are the only changes from elsewhere.
  const changes = new LocalChangeSignals(true);
  let socketSignal: NodeJS.Timeout | undefined;
  const clientCommitted = (): void => {
    socketSignal ??= setTimeout(() => {
      socketSignal = undefined;
      changes.receive(null, 'elsewhere');
    }, SOCKET_SIGNAL_DEBOUNCE_MS);
    socketSignal.unref();
  };
  try {
    if (serveSocket) assertSocketPathFits(dataDir);
    // A socket left by a dead owner would make clients knock on a dead door while PGlite opens.
    rmSync(socketPathFor(dataDir), { force: true });
    db = await PgliteDatabase.open(join(dataDir, PGLITE_DIR_NAME));
    if (serveSocket) {
      server = new PgliteSocketServer(db.pglite, dataDir, {
        ...(maxConnections ? { maxConnections } : {}),
        onClientCommitted: clientCommitted,
      });
      await server.start();
    }
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await db?.close().catch(() => undefined);
    releaseLock();
    throw error;
  }
  const opened = db;
  let closing: Promise<void> | undefined;
  return {
    db: opened,
    engine: 'pglite',
    role: 'owner',
    changes,
    recordOwnerAddress: lock.recordOwnerAddress,
    close: () =>
      (closing ??= (async () => {
        try {
          await server?.stop();
          clearTimeout(socketSignal);
          await changes.close();
          await opened.close();
        } finally {
          releaseLock();
        }
      })()),
  };
}

/**
 * Owner of a DATA_DIR on the embedded PostgreSQL server: starts the server (this process's lock is taken, so a
 * server still running there is a dead owner's orphan) and connects a pool to its socket; closing stops it.
 */
async function openServerAsOwner(
  dataDir: string,
  key: string,
  lockPath: string,
  log: ((message: string) => void) | undefined,
  listen: boolean,
): Promise<OpenedDatabase> {
  const lock = holdLock(lockPath, key);
  const releaseLock = lock.release;
  let server: EmbeddedPostgresServer | undefined;
  let db: PostgresDatabase | undefined;
  let changes: ChangeSignals | undefined;
  try {
    const startedAt = Date.now();
    log?.(`starting the embedded PostgreSQL 18 server in ${join(dataDir, POSTGRES_DIR_NAME)}`);
    server = await EmbeddedPostgresServer.start(dataDir, (message) => log?.(message));
    db = PostgresDatabase.fromServerSocketDirectory(server.socketDirectory, 10);
    await db.query('SELECT 1');
    // The CLI and other instances reach this server as clients: LISTEN/NOTIFY between them as on any server.
    if (listen) {
      const signals = new PostgresChangeSignals(serverSocketConnection(server.socketDirectory), db);
      changes = signals;
      await signals.start();
    } else {
      changes = new LocalChangeSignals(false);
    }
    log?.(`embedded PostgreSQL server ready after ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  } catch (error) {
    await changes?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    releaseLock();
    throw error;
  }
  const opened = db;
  const running = server;
  const signals = changes;
  let closing: Promise<void> | undefined;
  return {
    db: opened,
    engine: 'postgres',
    role: 'owner',
    changes: signals,
    recordOwnerAddress: lock.recordOwnerAddress,
    close: () =>
      (closing ??= (async () => {
        try {
          await signals.close().catch(() => undefined);
          await opened.close().catch(() => undefined);
          await running.stop();
        } finally {
          releaseLock();
        }
      })()),
  };
}

/** The LISTEN connection's settings for the embedded server's socket (as PostgresDatabase.fromServerSocketDirectory). */
function serverSocketConnection(directory: string): pg.ClientConfig {
  return { host: directory, port: 5432, user: 'postgres', database: 'postgres' };
}

/**
 * This process's hold on `owner.lock`, just taken: `release` removes the lock only while it is still the one this
 * process wrote; `recordOwnerAddress` adds where the owner answers HTTP (written beside and renamed: never read
 * half written).
 */
function holdLock(
  lockPath: string,
  key: string,
): { readonly release: () => void; readonly recordOwnerAddress: (http: string) => void } {
  let ownLock = readFileSync(lockPath, 'utf8');
  return {
    release: () => {
      ownedHere.delete(key);
      try {
        if (readFileSync(lockPath, 'utf8') === ownLock) rmSync(lockPath, { force: true });
      } catch {
        // Already gone.
      }
    },
    recordOwnerAddress: (http) => {
      const updated = JSON.stringify({ ...(JSON.parse(ownLock) as DataDirOwner), http });
      const next = `${lockPath}.${process.pid}.next`;
      try {
        writeFileSync(next, updated);
        renameSync(next, lockPath);
        ownLock = updated;
      } catch {
        // Only a detail for a refusal message: the lock as first written still holds DATA_DIR.
        rmSync(next, { force: true });
      }
    },
  };
}

/**
 * Takes `owner.lock` (created exclusively, JSON DataDirOwner) and marks DATA_DIR as opened here, or returns the
 * live holder. A lock of a dead process is removed and the lock taken again (`stale` says whose it was).
 */
async function takeLock(
  lockPath: string,
  key: string,
  serveSocket: boolean,
  record: DataDirOwner,
): Promise<{ taken: true; stale?: DataDirOwner | 'unreadable' } | DataDirOwner> {
  let stale: DataDirOwner | 'unreadable' | undefined;
  for (;;) {
    if (createExclusively(lockPath, JSON.stringify(record))) {
      // Same tick as the exclusive create: a concurrent opener in this process sees it and becomes a client.
      ownedHere.set(key, { serving: serveSocket });
      return stale ? { taken: true, stale } : { taken: true };
    }
    const holder = readLock(lockPath);
    if (holder === 'missing') continue;
    if (holder === 'unreadable') {
      // Being written right now, or left empty by a crash in the middle of writing.
      if (ageMs(lockPath) < UNREADABLE_LOCK_GRACE_MS) {
        await sleep(POLL_MS);
        continue;
      }
      await removeStaleLock(lockPath, 'unreadable');
      stale = 'unreadable';
      continue;
    }
    if (isHolderAlive(holder, key)) return holder;
    await removeStaleLock(lockPath, holder);
    stale = holder;
  }
}

/**
 * Creates `path` with `content` unless it exists (false). A write that fails (a full disk) removes the file
 * again: an empty lock would make every later opener wait for it to be written.
 */
function createExclusively(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, content);
    closeSync(fd);
    return true;
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // Closed already or unusable: removing the file is what matters.
    }
    rmSync(path, { force: true });
    throw error;
  }
}

function describeTakeover(dataDir: string, lockPath: string, stale: DataDirOwner | 'unreadable'): string {
  const previous =
    stale === 'unreadable'
      ? 'an unreadable lock left by a crash'
      : `the lock of process ${stale.pid}${stale.process ? ` (${stale.process})` : ''}, running since ${stale.startedAt || 'an unknown time'}, which is gone`;
  return `took over DATA_DIR ${dataDir}: ${previous} was removed from ${lockPath}`;
}

/** Whether the process of a lock still runs. The own pid counts only when this process has DATA_DIR open. */
function isHolderAlive(holder: DataDirOwner, key: string): boolean {
  // Same pid without the directory open here: a previous incarnation (a restarted container reuses pids).
  if (holder.pid === process.pid) return ownedHere.has(key);
  return isPidAlive(holder.pid);
}

function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/**
 * Removes a stale lock under `owner.lock.takeover` (also created exclusively), re-reading it there: two processes
 * that both found the lock stale must not have the second one remove the lock the first has just taken.
 */
async function removeStaleLock(lockPath: string, stale: DataDirOwner | 'unreadable'): Promise<void> {
  const takeoverPath = `${lockPath}.takeover`;
  try {
    writeFileSync(takeoverPath, JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() }), {
      flag: 'wx',
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const other = readLock(takeoverPath);
    const abandoned =
      other === 'unreadable'
        ? ageMs(takeoverPath) >= UNREADABLE_LOCK_GRACE_MS
        : other !== 'missing' && !isPidAlive(other.pid);
    if (abandoned) rmSync(takeoverPath, { force: true });
    else await sleep(POLL_MS / 10);
    return;
  }
  try {
    const current = readLock(lockPath);
    const stillStale =
      current === 'unreadable'
        ? stale === 'unreadable' && ageMs(lockPath) >= UNREADABLE_LOCK_GRACE_MS
        : current !== 'missing' &&
          stale !== 'unreadable' &&
          current.pid === stale.pid &&
          current.startedAt === stale.startedAt;
    if (stillStale) rmSync(lockPath, { force: true });
  } finally {
    rmSync(takeoverPath, { force: true });
  }
}

function readLock(path: string): DataDirOwner | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<Record<keyof DataDirOwner, unknown>>;
    if (typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      const owner: { -readonly [K in keyof DataDirOwner]: DataDirOwner[K] } = {
        pid: parsed.pid,
        startedAt: String(parsed.startedAt ?? ''),
      };
      for (const field of ['hostname', 'process', 'socket', 'http'] as const) {
        const value = parsed[field];
        if (typeof value === 'string' && value !== '') owner[field] = value;
      }
      if (parsed.engine === 'postgres' || parsed.engine === 'pglite') owner.engine = parsed.engine;
      return owner;
    }
  } catch {
    // Fall through.
  }
  return 'unreadable';
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
