/**
 * The PGlite of DATA_DIR served on a unix socket to other processes: real processes, real sockets, no mocks.
 * The child processes run test/support/pglite-socket-child.mjs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { openSqlDatabase, type OpenedDatabase } from '../../src/platform/database/open-sql-database.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import { PgliteSocketServer } from '../../src/platform/database/pglite-socket-server.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import { blankDatabaseImage, seedEmbeddedDatabase } from '../support/pglite-template.js';
import { NODE, PROJECT_ROOT } from '../support/processes.js';

const CHILD_SCRIPT = join(PROJECT_ROOT, 'test/support/pglite-socket-child.mjs');
const SEQ_TABLE = 'CREATE TABLE seq (n integer PRIMARY KEY, writer text NOT NULL, step integer NOT NULL)';

/** Short: a unix socket path holds at most 107 bytes. */
function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'pgs-'));
}

interface Child {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  nextLine(timeoutMs?: number): Promise<string>;
  send(line: string): void;
}

const children: ChildProcess[] = [];

function startChild(args: readonly string[]): Child {
  const child = spawn(NODE, [CHILD_SCRIPT, ...args], { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return {
    process: child,
    exited,
    send: (line) => void child.stdin!.write(`${line}\n`),
    nextLine: (timeoutMs = 30_000) => {
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      return new Promise<string>((resolveLine, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`child printed nothing in ${timeoutMs} ms\n${stderr}`)),
          timeoutMs,
        );
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`child exited with ${code}\n${stderr}`));
        });
        waiters.push((value) => {
          clearTimeout(timer);
          resolveLine(value);
        });
      });
    },
  };
}

async function killChild(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  await child.exited;
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

function socketClient(directory: string): pg.Client {
  const client = new pg.Client({ host: directory, port: 5432, user: 'postgres', database: 'postgres' });
  client.on('error', () => undefined);
  return client;
}

/** Settles after `ms` with 'pending' unless the promise settled before. */
async function stateAfter(promise: Promise<unknown>, ms: number): Promise<'pending' | 'settled'> {
  const marker = Symbol('pending');
  const winner = await Promise.race([promise.then(() => 'settled' as const), sleep(ms, marker)]);
  return winner === marker ? 'pending' : 'settled';
}

/** The transaction every writer runs: read max(n), insert max+1, read again, insert max+1: two adjacent rows. */
async function socketWriterTransaction(client: pg.Client, label: string): Promise<void> {
  await client.query('BEGIN');
  try {
    const first = await client.query<{ m: number }>('SELECT coalesce(max(n), 0)::int AS m FROM seq');
    await client.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 0)', [first.rows[0]!.m + 1, label]);
    const second = await client.query<{ m: number }>('SELECT max(n)::int AS m FROM seq');
    await client.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 1)', [
      second.rows[0]!.m + 1,
      label,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The same through PGlite in this process. It yields to the event loop inside the transaction (as real work does
 * between statements), which is exactly where a socket client could slip in if nothing kept it out.
 */
async function ownerWriterTransaction(db: SqlDatabase, label: string): Promise<void> {
  await db.transaction(async (tx) => {
    const first = await tx.query<{ m: number }>('SELECT coalesce(max(n), 0)::int AS m FROM seq');
    await sleep(0);
    await tx.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 0)', [first.rows[0]!.m + 1, label]);
    await new Promise((done) => setImmediate(done));
    const second = await tx.query<{ m: number }>('SELECT max(n)::int AS m FROM seq');
    await tx.query('INSERT INTO seq (n, writer, step) VALUES ($1, $2, 1)', [second.rows[0]!.m + 1, label]);
  });
}

interface SeqRow {
  n: number;
  writer: string;
  step: number;
}

async function seqRows(db: SqlDatabase): Promise<SeqRow[]> {
  return (await db.query<SeqRow>('SELECT n, writer, step FROM seq ORDER BY n')).rows;
}

/** Every transaction's two rows are adjacent and in order; numbers run 1..N without a gap. */
function expectUninterleaved(rows: readonly SeqRow[]): void {
  expect(rows.map((r) => r.n)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
  expect(rows.length % 2).toBe(0);
  for (let i = 0; i < rows.length; i += 2) {
    expect([rows[i]!.writer, rows[i]!.step]).toEqual([rows[i + 1]!.writer, 0]);
    expect(rows[i + 1]!.step).toBe(1);
  }
  expect(new Set(rows.map((r) => r.writer)).size).toBe(rows.length / 2);
}

describe('PgliteSocketServer', () => {
  let dir: string;
  let db: PgliteDatabase;
  let server: PgliteSocketServer;

  beforeAll(async () => {
    db = await PgliteDatabase.open(undefined, { image: await blankDatabaseImage() });
  });

  afterAll(async () => {
    await db.close();
  });

  beforeEach(async () => {
    dir = tempDir();
    await db.exec(`DROP TABLE IF EXISTS seq; ${SEQ_TABLE}`);
    server = new PgliteSocketServer(db.pglite, dir, { maxConnections: 4 });
    await server.start();
  });

  afterEach(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves another process that reads and writes while the owner writes in-process', async () => {
    expect(server.socketPath).toBe(join(dir, '.s.PGSQL.5432'));
    const child = startChild(['writer', dir, 'child', '1', '25']);
    let ownerTransactions = 0;
    let childDone = false;
    const result = child.nextLine(40_000).finally(() => (childDone = true));
    void result.catch(() => undefined);
    const deadline = Date.now() + 40_000;
    while ((!childDone || ownerTransactions < 25) && Date.now() < deadline) {
      await ownerWriterTransaction(db, `owner-${ownerTransactions++}`);
      await new Promise((done) => setImmediate(done));
    }
    expect(JSON.parse(await result)).toEqual({ committed: 25, errors: [] });
    expect(await child.exited).toBe(0);
    const rows = await seqRows(db);
    expect(rows.filter((r) => r.writer.startsWith('child-'))).toHaveLength(50);
    expect(rows.filter((r) => r.writer.startsWith('owner-'))).toHaveLength(2 * ownerTransactions);
    expectUninterleaved(rows);
  });

  it('never interleaves the transactions of the owner and of socket clients (other process and this one)', async () => {
    const child = startChild(['writer', dir, 'child', '2', '60']);
    const local = socketClient(dir);
    await local.connect();
    const localErrors: string[] = [];
    const localWriter = (async () => {
      for (let t = 0; t < 60; t++) {
        await socketWriterTransaction(local, `local-${t}`).catch((e: Error) => localErrors.push(e.message));
      }
    })();
    let childDone = false;
    const childResult = child.nextLine(40_000).finally(() => (childDone = true));
    void childResult.catch(() => undefined);
    let localDone = false;
    void localWriter.finally(() => (localDone = true));
    const ownerErrors: string[] = [];
    let ownerTransactions = 0;
    const deadline = Date.now() + 40_000;
    while ((!childDone || !localDone || ownerTransactions < 100) && Date.now() < deadline) {
      await ownerWriterTransaction(db, `owner-${ownerTransactions++}`).catch((e: Error) =>
        ownerErrors.push(e.message),
      );
      // Let the sockets be read between transactions: a loop that never yields starves all I/O of this process.
      await new Promise((done) => setImmediate(done));
    }
    expect({ childDone, localDone }).toEqual({ childDone: true, localDone: true });
    await localWriter;
    await local.end();

    expect(JSON.parse(await childResult)).toEqual({ committed: 120, errors: [] });
    expect(localErrors).toEqual([]);
    expect(ownerErrors).toEqual([]);
    const rows = await seqRows(db);
    // No lost increment and no duplicate: 2 rows per committed transaction, numbered 1..N.
    expect(rows).toHaveLength(2 * (120 + 60 + ownerTransactions));
    expectUninterleaved(rows);
    // The writers really ran concurrently: in commit order, the kind of writer changes many times.
    const kinds = rows.filter((r) => r.step === 0).map((r) => r.writer.split('-')[0]);
    const switches = kinds.filter((kind, i) => i > 0 && kind !== kinds[i - 1]).length;
    expect(switches).toBeGreaterThan(20);
  });

  it('rolls back a client process that dies mid-transaction; the owner waits for it, then continues', async () => {
    const child = startChild(['hold', dir, 'ghost']);
    expect(await child.nextLine()).toBe('ready');
    // The client owns the session: the owner's statement waits behind its open transaction.
    const ownerWrite = db.query(`INSERT INTO seq (n, writer, step) VALUES (1, 'owner-after', 0)`);
    expect(await stateAfter(ownerWrite, 300)).toBe('pending');
    await killChild(child);
    await ownerWrite;
    expect(db.pglite.isInTransaction()).toBe(false);
    expect((await seqRows(db)).map((r) => r.writer)).toEqual(['owner-after']);
    await ownerWriterTransaction(db, 'owner-next');
    expect(await seqRows(db)).toHaveLength(3);
  });

  it('rolls back a client that leaves inside an extended-protocol cycle (before Sync)', async () => {
    const raw = await rawStartup(server.socketPath);
    // Parse/Bind/Execute an INSERT without Sync: executed, in an implicit transaction a Sync would commit.
    const sql = `INSERT INTO seq (n, writer, step) VALUES (7, 'torn', 0)`;
    raw.socket.write(
      Buffer.concat([
        message('P', Buffer.from(`\0${sql}\0`), int16(0)),
        message('B', Buffer.from('\0\0'), int16(0), int16(0), int16(0)),
        message('E', Buffer.from('\0'), int32(0)),
      ]),
    );
    await raw.waitFor('INSERT 0 1');
    const ownerRead = db.query<{ c: number }>('SELECT count(*)::int AS c FROM seq');
    expect(await stateAfter(ownerRead, 300)).toBe('pending');
    raw.socket.destroy();
    expect((await ownerRead).rows[0]!.c).toBe(0);
    expect(db.pglite.isInTransaction()).toBe(false);
    await ownerWriterTransaction(db, 'owner');
    expect((await seqRows(db)).map((r) => r.writer)).toEqual(['owner', 'owner']);
  });

  it('keeps a failed client transaction exclusive until the client rolls it back', async () => {
    const client = socketClient(dir);
    await client.connect();
    await client.query('BEGIN');
    await client.query(`INSERT INTO seq (n, writer, step) VALUES (1, 'doomed', 0)`);
    await expect(client.query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
    const ownerWrite = db.query(`INSERT INTO seq (n, writer, step) VALUES (1, 'owner', 0)`);
    expect(await stateAfter(ownerWrite, 300)).toBe('pending');
    await client.query('ROLLBACK');
    await ownerWrite;
    expect((await seqRows(db)).map((r) => r.writer)).toEqual(['owner']);
    await client.end();
  });

  it('lets idle connections hold nothing and refuses connections over the limit', async () => {
    const idle = Array.from({ length: 4 }, () => socketClient(dir));
    for (const client of idle) {
      await client.connect();
      await client.query('SELECT 1');
    }
    const started = Date.now();
    for (let i = 0; i < 50; i++) await ownerWriterTransaction(db, `owner-${i}`);
    expect(Date.now() - started).toBeLessThan(10_000);
    const extra = socketClient(dir);
    await expect(extra.connect()).rejects.toMatchObject({ code: '53300' });
    await Promise.all(idle.map((client) => client.end()));
    expect(await seqRows(db)).toHaveLength(100);
  });

  it('stop() rolls back open client transactions, closes connections and removes the socket', async () => {
    const client = socketClient(dir);
    await client.connect();
    await client.query('BEGIN');
    await client.query(`INSERT INTO seq (n, writer, step) VALUES (1, 'open', 0)`);
    const closed = new Promise<void>((done) => client.on('end', () => done()));
    await server.stop();
    await closed;
    expect(existsSync(server.socketPath)).toBe(false);
    expect(db.pglite.isInTransaction()).toBe(false);
    expect(await seqRows(db)).toEqual([]);
    // Restart over a stale socket file, left by a process killed while listening on it.
    const listener = spawn(
      NODE,
      [
        '-e',
        `require('node:net').createServer().listen(process.argv[1], () => console.log('up'))`,
        server.socketPath,
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    children.push(listener);
    await new Promise((up) => listener.stdout!.once('data', up));
    listener.kill('SIGKILL');
    await new Promise((exit) => listener.once('exit', exit));
    expect(existsSync(server.socketPath)).toBe(true);
    await expect(socketClient(dir).connect()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await server.start();
    const after = socketClient(dir);
    await after.connect();
    expect((await after.query('SELECT count(*)::int AS c FROM seq')).rows).toEqual([{ c: 0 }]);
    await after.end();
  });
});

describe('openSqlDatabase', () => {
  let dir: string;
  const opened: OpenedDatabase[] = [];

  beforeEach(async () => {
    dir = tempDir();
    // A database copied in (the migrated template): these tests are about the lock and the socket, not initdb.
    await seedEmbeddedDatabase(dir);
  });

  afterEach(async () => {
    for (const o of opened.splice(0).reverse()) await o.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(
    options: { ownerWaitMs?: number; serveSocket?: boolean } = {},
  ): Promise<OpenedDatabase> {
    const o = await openSqlDatabase({ dataDir: dir, ...options });
    opened.push(o);
    return o;
  }

  const lockPath = (): string => join(dir, 'owner.lock');
  const socketPath = (): string => join(dir, '.s.PGSQL.5432');

  it('makes the first opener the owner and a second opener in the same process a client; close cleans up', async () => {
    const owner = await open();
    expect(owner.role).toBe('owner');
    expect(owner.db.kind).toBe('pglite');
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid });
    expect(existsSync(socketPath())).toBe(true);

    const client = await open();
    expect(client.role).toBe('client');
    expect(client.db.kind).toBe('pglite-socket');
    await client.db.exec(SEQ_TABLE);
    await client.db.query(`INSERT INTO seq (n, writer, step) VALUES (1, 'client', 0)`);
    expect((await seqRows(owner.db)).map((r) => r.writer)).toEqual(['client']);
    await client.close();

    await owner.close();
    expect(existsSync(lockPath())).toBe(false);
    expect(existsSync(socketPath())).toBe(false);

    const again = await open();
    expect(again.role).toBe('owner');
    expect((await seqRows(again.db)).map((r) => r.writer)).toEqual(['client']);
  });

  it('is a client of another owning process, and takes over when that process dies', async () => {
    const child = startChild(['open', dir]);
    expect(JSON.parse(await child.nextLine())).toEqual({ role: 'owner' });
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: child.process.pid });

    const client = await open();
    expect(client.role).toBe('client');
    await client.db.exec(SEQ_TABLE);
    await client.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO seq (n, writer, step) VALUES (1, 'parent', 0)`);
    });
    child.send(JSON.stringify({ sql: `INSERT INTO seq (n, writer, step) VALUES (2, 'child', 0)` }));
    expect(JSON.parse(await child.nextLine())).toEqual({ rows: [] });
    child.send(JSON.stringify({ sql: 'SELECT writer FROM seq ORDER BY n' }));
    expect(JSON.parse(await child.nextLine())).toEqual({ rows: [{ writer: 'parent' }, { writer: 'child' }] });
    await client.close();
    opened.splice(opened.indexOf(client), 1);

    // Killed: its lock (dead pid) and its socket file stay behind.
    await killChild(child);
    expect(existsSync(lockPath())).toBe(true);
    expect(existsSync(socketPath())).toBe(true);

    const owner = await open();
    expect(owner.role).toBe('owner');
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid });
    expect((await seqRows(owner.db)).map((r) => r.writer)).toEqual(['parent', 'child']);
    await owner.close();
    expect(existsSync(lockPath())).toBe(false);
    expect(existsSync(socketPath())).toBe(false);
  });

  it('takes over a lock of a dead process, and one of its own pid it has not opened (restarted container)', async () => {
    const gone = startChild([]);
    await gone.exited;
    writeFileSync(
      lockPath(),
      JSON.stringify({ pid: gone.process.pid, startedAt: '2020-01-01T00:00:00.000Z' }),
    );
    const first = await open();
    expect(first.role).toBe('owner');
    expect(JSON.parse(readFileSync(lockPath(), 'utf8'))).toMatchObject({ pid: process.pid });
    await first.close();

    writeFileSync(lockPath(), JSON.stringify({ pid: process.pid, startedAt: '2020-01-01T00:00:00.000Z' }));
    const second = await open({ serveSocket: false });
    expect(second.role).toBe('owner');
    expect(existsSync(socketPath())).toBe(false);
    await second.close();
    expect(existsSync(lockPath())).toBe(false);
  });

  it('explains a live lock without a socket, and a socket path over the unix limit', async () => {
    const holder = spawn(NODE, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(holder);
    writeFileSync(lockPath(), JSON.stringify({ pid: holder.pid, startedAt: new Date().toISOString() }));
    await expect(open({ ownerWaitMs: 300 })).rejects.toThrow(
      new RegExp(
        `owned by process ${holder.pid} .*serves no socket at ${socketPath()}.*delete ${lockPath()}`,
      ),
    );
    expect(existsSync(lockPath())).toBe(true);

    const longDir = join(dir, 'x'.repeat(110));
    mkdirSync(longDir);
    await expect(openSqlDatabase({ dataDir: longDir })).rejects.toThrow(
      /over the 10[37]-byte limit.*shorter DATA_DIR/,
    );
    expect(existsSync(join(longDir, 'owner.lock'))).toBe(false);
  });
});

// --- raw protocol, for a client that leaves in the middle of a cycle -------------------------------------------

function int16(value: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(value);
  return b;
}

function int32(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(value);
  return b;
}

function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(type), int32(body.length + 4), body]);
}

async function rawStartup(path: string): Promise<{ socket: Socket; waitFor(text: string): Promise<void> }> {
  const socket = connect(path);
  socket.on('error', () => undefined);
  let received = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
  const waitFor = async (needle: string | Buffer): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!received.includes(needle)) {
      if (Date.now() > deadline) throw new Error(`no ${String(needle)} in ${received.toString('latin1')}`);
      await sleep(10);
    }
  };
  const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
  socket.write(Buffer.concat([int32(params.length + 8), int32(196608), params]));
  await waitFor(Buffer.from([0x5a, 0, 0, 0, 5, 0x49]));
  received = Buffer.alloc(0);
  return { socket, waitFor };
}
