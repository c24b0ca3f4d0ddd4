import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PgliteDatabase } from './pglite-database.js';
import { assertSocketPathFits, PgliteSocketServer, socketPathFor } from './pglite-socket-server.js';
import { PostgresDatabase } from './postgres-database.js';
import type { SqlDatabase } from './sql-database.js';

export interface OpenSqlDatabaseOptions {
  readonly dataDir: string;
  /** A PostgreSQL server: DATA_DIR is then not used for SQL at all. */
  readonly databaseUrl?: string;
  /** When this process becomes the owner, serve the database to other processes on a unix socket (default true). */
  readonly serveSocket?: boolean;
  /** How long to wait for the owner's socket when another live process holds DATA_DIR (default 10 s). */
  readonly ownerWaitMs?: number;
  /** Socket connections the owner serves at once (default 16). */
  readonly maxSocketConnections?: number;
}

export type SqlDatabaseRole = 'server' | 'owner' | 'client';

export interface OpenedDatabase {
  readonly db: SqlDatabase;
  /** `server`: DATABASE_URL; `owner`: this process opened the PGlite of DATA_DIR; `client`: through the owner's socket. */
  readonly role: SqlDatabaseRole;
  close(): Promise<void>;
}

export const OWNER_LOCK_FILE_NAME = 'owner.lock';
export const PGLITE_DIR_NAME = 'pglite';

interface LockRecord {
  readonly pid: number;
  readonly startedAt: string;
  readonly hostname?: string;
}

/** Data directories whose PGlite this process has open (or is opening): never open one a second time. */
const ownedHere = new Map<string, { readonly serving: boolean }>();

const POLL_MS = 100;
/** A lock or takeover file that cannot be parsed this long after its last write is considered abandoned. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;

/**
 * Opens the SQL database of this service. With a DATABASE_URL, a connection pool to that server. Otherwise the
 * embedded PGlite of DATA_DIR, which exactly one process may open: the first process takes `owner.lock`, opens
 * `${dataDir}/pglite` and serves it on `${dataDir}/.s.PGSQL.5432`; any other process (or a second opener in the
 * owning process) connects through that socket. A lock whose process is gone is taken over.
 */
export async function openSqlDatabase(options: OpenSqlDatabaseOptions): Promise<OpenedDatabase> {
  if (options.databaseUrl) {
    const db = PostgresDatabase.fromUrl(options.databaseUrl);
    return { db, role: 'server', close: () => db.close() };
  }
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const key = realpathSync(dataDir);
  const serveSocket = options.serveSocket ?? true;
  const lockPath = join(dataDir, OWNER_LOCK_FILE_NAME);
  const socketPath = socketPathFor(dataDir);
  const waitMs = options.ownerWaitMs ?? 10_000;
  const deadline = Date.now() + waitMs;
  let lastConnectError: unknown;
  let holder: LockRecord | undefined;

  for (;;) {
    const here = ownedHere.get(key);
    if (here && !here.serving) {
      throw new Error(
        `${dataDir} is already open in this process without a socket; share that database instead`,
      );
    }
    if (!here) {
      const taken = await takeLock(lockPath, key, serveSocket);
      if (taken === 'taken') {
        return openAsOwner(dataDir, key, lockPath, serveSocket, options.maxSocketConnections);
      }
      holder = taken;
    }
    // Another process (or this one) owns DATA_DIR: reach it through its socket.
    assertSocketPathFits(dataDir);
    if (existsSync(socketPath)) {
      const db = PostgresDatabase.fromSocketDirectory(dataDir);
      try {
        await db.query('SELECT 1');
        return { db, role: 'client', close: () => db.close() };
      } catch (error) {
        await db.close().catch(() => undefined);
        const code = (error as NodeJS.ErrnoException).code;
        // A socket file left by a dead owner, or one about to be replaced: retry until the deadline.
        if (code !== 'ECONNREFUSED' && code !== 'ENOENT' && code !== 'ECONNRESET') throw error;
        lastConnectError = error;
      }
    }
    if (Date.now() >= deadline) {
      const who = here ? 'this process' : `process ${holder?.pid ?? '?'} (since ${holder?.startedAt ?? '?'})`;
      const why = lastConnectError
        ? `its socket ${socketPath} refuses connections (${(lastConnectError as Error).message})`
        : `it serves no socket at ${socketPath}`;
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
  const ownLock = readFileSync(lockPath, 'utf8');
  const releaseLock = (): void => {
    ownedHere.delete(key);
    try {
      if (readFileSync(lockPath, 'utf8') === ownLock) rmSync(lockPath, { force: true });
    } catch {
      // Already gone.
    }
  };
  let db: PgliteDatabase | undefined;
  let server: PgliteSocketServer | undefined;
  try {
    if (serveSocket) assertSocketPathFits(dataDir);
    // A socket left by a dead owner would make clients knock on a dead door while PGlite opens.
    rmSync(socketPathFor(dataDir), { force: true });
    db = await PgliteDatabase.open(join(dataDir, PGLITE_DIR_NAME));
    if (serveSocket) {
      server = new PgliteSocketServer(db.pglite, dataDir, maxConnections ? { maxConnections } : {});
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
    role: 'owner',
    close: () =>
      (closing ??= (async () => {
        try {
          await server?.stop();
          await opened.close();
        } finally {
          releaseLock();
        }
      })()),
  };
}

/**
 * Takes `owner.lock` (created exclusively, JSON {pid, startedAt}) and marks DATA_DIR as opened here, or returns
 * the live holder. A lock of a dead process is removed and the lock taken again.
 */
async function takeLock(lockPath: string, key: string, serveSocket: boolean): Promise<'taken' | LockRecord> {
  const record: LockRecord = { pid: process.pid, startedAt: new Date().toISOString(), hostname: hostname() };
  for (;;) {
    try {
      writeFileSync(lockPath, JSON.stringify(record), { flag: 'wx' });
      // Same tick as the exclusive create: a concurrent opener in this process sees it and becomes a client.
      ownedHere.set(key, { serving: serveSocket });
      return 'taken';
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
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
      continue;
    }
    if (isHolderAlive(holder, key)) return holder;
    await removeStaleLock(lockPath, holder);
  }
}

/** Whether the process of a lock still runs. The own pid counts only when this process has DATA_DIR open. */
function isHolderAlive(holder: LockRecord, key: string): boolean {
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
async function removeStaleLock(lockPath: string, stale: LockRecord | 'unreadable'): Promise<void> {
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

function readLock(path: string): LockRecord | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockRecord>;
    if (typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      return { pid: parsed.pid, startedAt: String(parsed.startedAt ?? '') };
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
