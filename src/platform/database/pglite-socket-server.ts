import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';

/** The file name PostgreSQL clients look for in a socket directory (port 5432). */
export const PG_SOCKET_FILE_NAME = '.s.PGSQL.5432';

/** Longest unix socket path the kernel accepts (sun_path holds 108 bytes on Linux, 104 elsewhere, with a NUL). */
export const MAX_UNIX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

export function socketPathFor(directory: string): string {
  return join(resolve(directory), PG_SOCKET_FILE_NAME);
}

/** Throws a readable error when the socket path of `directory` does not fit in a unix socket address. */
export function assertSocketPathFits(directory: string): void {
  const path = socketPathFor(directory);
  const bytes = Buffer.byteLength(path);
  if (bytes > MAX_UNIX_SOCKET_PATH_BYTES) {
    const dirLimit = MAX_UNIX_SOCKET_PATH_BYTES - Buffer.byteLength(`/${PG_SOCKET_FILE_NAME}`);
    throw new Error(
      `The unix socket path ${path} is ${bytes} bytes, over the ${MAX_UNIX_SOCKET_PATH_BYTES}-byte limit of unix sockets: ` +
        `use a shorter DATA_DIR (an absolute path of at most ${dirLimit} bytes).`,
    );
  }
}

export interface PgliteSocketServerOptions {
  /** Connections served at once; more are refused with SQLSTATE 53300 (default 16). */
  readonly maxConnections?: number;
  /** Called when a client's statement or transaction has ended outside a transaction: what it wrote is committed. */
  readonly onClientCommitted?: () => void;
}

/**
 * Serves the PGlite session of this process on the unix socket `${directory}/.s.PGSQL.5432`, so that other
 * processes reach the same database with node-postgres without opening its data directory a second time.
 *
 * PGlite is a single PostgreSQL session. In this process, `query()`, `exec()` and `transaction()` take PGlite's
 * transaction mutex for their whole duration and its query mutex per statement. A socket client gets the same
 * guarantee: from its first protocol message until the session is idle again (a ReadyForQuery at the end of a
 * protocol cycle, outside a transaction block) it holds the transaction mutex, so neither the in-process code
 * nor another client can slip a statement into its transaction or its extended-protocol cycle, and it cannot
 * slip into theirs. Each message then runs under the query mutex. Idle connections hold nothing; a client
 * waiting for its turn holds nothing either, and takes its turn in the mutex's order.
 *
 * Message framing, the SSL refusal and the cancel-request handling come from PGLiteSocketHandler of
 * `@electric-sql/pglite-socket`; its query queue (which only took the query mutex per message) is replaced.
 */
export class PgliteSocketServer {
  readonly socketPath: string;
  private readonly directory: string;
  private readonly maxConnections: number;
  private readonly queue: ExclusiveSessionQueue;
  private readonly handlers = new Set<PGLiteSocketHandler>();
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private stopping = false;

  constructor(
    private readonly pglite: PGlite,
    directory: string,
    options: PgliteSocketServerOptions = {},
  ) {
    this.directory = resolve(directory);
    this.socketPath = socketPathFor(directory);
    this.maxConnections = options.maxConnections ?? 16;
    this.queue = new ExclusiveSessionQueue(pglite, options.onClientCommitted);
  }

  /** Connections currently attached. */
  get connectionCount(): number {
    return this.handlers.size;
  }

  async start(): Promise<void> {
    if (this.server) throw new Error('PgliteSocketServer already started');
    assertSocketPathFits(this.directory);
    await this.pglite.waitReady;
    removeStaleSocketFile(this.socketPath);
    this.stopping = false;
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolvePromise, reject) => {
      server.once('error', reject);
      server.listen(this.socketPath, () => {
        server.off('error', reject);
        resolvePromise();
      });
    });
    // Whoever can connect can read and write everything: keep the socket to the owning user.
    chmodSync(this.socketPath, 0o600);
    server.on('error', () => undefined);
    this.server = server;
  }

  /** Closes every connection (rolling back a transaction a client left open), stops listening, unlinks the socket. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.stopping = true;
    const closed = new Promise<void>((done) => server.close(() => done()));
    await Promise.all([...this.handlers].map((handler) => handler.detach(true).catch(() => undefined)));
    this.handlers.clear();
    await this.queue.closeAll();
    for (const socket of this.sockets) socket.destroy();
    await closed;
    rmSync(this.socketPath, { force: true });
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    if (this.stopping) {
      socket.destroy();
      return;
    }
    if (this.handlers.size >= this.maxConnections) {
      socket.end(fatalErrorResponse('53300', `sorry, too many clients already (${this.maxConnections})`));
      return;
    }
    const handler = new PGLiteSocketHandler({
      queryQueue: this.queue as unknown as PGLiteSocketHandlerOptions['queryQueue'],
      closeOnDetach: true,
    });
    this.handlers.add(handler);
    const forget = (): void => void this.handlers.delete(handler);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  }
}

interface ClientSession {
  readonly id: number;
  /** The last queued message of this client settles after all earlier ones: messages run in order. */
  tail: Promise<unknown>;
  /** Set while this client owns the session (holds PGlite's transaction mutex). */
  release: (() => void) | undefined;
  /** A message ran since the last ReadyForQuery: the client is inside a protocol cycle. */
  midCycle: boolean;
  closed: boolean;
  cleanup: Promise<void> | undefined;
}

const MESSAGE = {
  query: 0x51,
  sync: 0x53,
  functionCall: 0x46,
  copyDone: 0x63,
  copyFail: 0x66,
  terminate: 0x58,
};
const READY_FOR_QUERY = 0x5a;
const PROTOCOL_3 = 196608;

/**
 * Stands in for the QueryQueueManager of `@electric-sql/pglite-socket` (same three methods PGLiteSocketHandler
 * calls), giving each client exclusive ownership of the PGlite session for whole protocol cycles and
 * transactions.
 */
class ExclusiveSessionQueue {
  private readonly sessions = new Map<number, ClientSession>();

  constructor(
    private readonly pglite: PGlite,
    private readonly onCommitted: (() => void) | undefined,
  ) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const session = this.session(handlerId);
    const run =
      message[0] === MESSAGE.terminate
        ? session.tail.then(() => this.terminate(session))
        : session.tail.then(() => this.execute(session, message, onData));
    session.tail = run.catch(() => undefined);
    return run;
  }

  /** The client is gone: its messages not yet started are dropped. */
  clearQueueForHandler(handlerId: number): void {
    const session = this.sessions.get(handlerId);
    if (session) session.closed = true;
  }

  /** The client is gone: after its running message, roll back what it left open and give the session back. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    const session = this.sessions.get(handlerId);
    if (!session) return;
    session.closed = true;
    session.cleanup ??= session.tail.then(() => this.abandon(session));
    await session.cleanup;
  }

  /** Server stop, after every handler detached: cleans up whatever session is left. */
  async closeAll(): Promise<void> {
    for (const session of [...this.sessions.values()]) await this.clearTransactionIfNeeded(session.id);
  }

  private session(id: number): ClientSession {
    let session = this.sessions.get(id);
    if (!session) {
      session = {
        id,
        tail: Promise.resolve(),
        release: undefined,
        midCycle: false,
        closed: false,
        cleanup: undefined,
      };
      this.sessions.set(id, session);
    }
    return session;
  }

  private async execute(
    session: ClientSession,
    message: Uint8Array,
    onData: (data: Uint8Array) => void,
  ): Promise<number> {
    if (session.closed) throw new Error('client disconnected');
    if (!session.release) await this.acquire(session);
    if (session.closed) throw new Error('client disconnected');
    session.midCycle = true;
    let bytes = 0;
    let last: Uint8Array = new Uint8Array(0);
    await this.pglite.runExclusive(() =>
      this.pglite.execProtocolRawStream(message, {
        onRawData: (data) => {
          bytes += data.length;
          last = lastBytes(last, data, 6);
          onData(data);
        },
      }),
    );
    if (endsProtocolCycle(message) && isReadyForQuery(last)) {
      session.midCycle = false;
      if (!this.pglite.isInTransaction()) {
        this.releaseOwnership(session);
        this.onCommitted?.();
      }
    }
    return bytes;
  }

  /** Terminate ('X'): PGlite ignores it; the client is done, so the session is given back now. */
  private async terminate(session: ClientSession): Promise<number> {
    session.closed = true;
    await this.abandon(session);
    return 0;
  }

  /** Waits for PGlite's transaction mutex (behind in-process transactions and other clients) and keeps it. */
  private acquire(session: ClientSession): Promise<void> {
    return new Promise<void>((acquired, failed) => {
      this.pglite
        ._runExclusiveTransaction(
          () =>
            new Promise<void>((release) => {
              session.release = release;
              acquired();
            }),
        )
        .catch(failed);
    });
  }

  private releaseOwnership(session: ClientSession): void {
    const release = session.release;
    session.release = undefined;
    release?.();
  }

  /**
   * Rolls back what a departed client left: an extended-protocol cycle without its Sync (a simple-query ROLLBACK
   * aborts the implicit transaction where a Sync would commit it; the Sync after it ends an error's skip mode),
   * then an open transaction block. Runs on the raw protocol: PGlite's exec() would wait for the transaction
   * mutex this client holds.
   */
  private async abandon(session: ClientSession): Promise<void> {
    try {
      if (!session.release) return;
      const run = (message: Uint8Array): Promise<void> =>
        this.pglite.runExclusive(() =>
          this.pglite.execProtocolRawStream(message, { onRawData: () => undefined }),
        );
      if (session.midCycle) {
        await run(simpleQuery('ROLLBACK'));
        await run(SYNC);
        session.midCycle = false;
      }
      if (this.pglite.isInTransaction()) await run(simpleQuery('ROLLBACK'));
    } catch {
      // PGlite closed or failed: nothing left to roll back on this session.
    } finally {
      this.releaseOwnership(session);
      this.sessions.delete(session.id);
    }
  }
}

/** Messages after which the backend may answer ReadyForQuery; the startup packet has no type byte. */
function endsProtocolCycle(message: Uint8Array): boolean {
  const type = message[0];
  if (
    type === MESSAGE.sync ||
    type === MESSAGE.query ||
    type === MESSAGE.functionCall ||
    type === MESSAGE.copyDone ||
    type === MESSAGE.copyFail
  ) {
    return true;
  }
  return type === 0 && message.length >= 8 && Buffer.from(message).readInt32BE(4) === PROTOCOL_3;
}

/** The output ended with ReadyForQuery: 'Z', length 5, status byte. */
function isReadyForQuery(tail: Uint8Array): boolean {
  return (
    tail.length === 6 &&
    tail[0] === READY_FOR_QUERY &&
    tail[1] === 0 &&
    tail[2] === 0 &&
    tail[3] === 0 &&
    tail[4] === 5
  );
}

function lastBytes(previous: Uint8Array, chunk: Uint8Array, n: number): Uint8Array {
  if (chunk.length >= n) return chunk.slice(chunk.length - n);
  const joined = new Uint8Array(previous.length + chunk.length);
  joined.set(previous);
  joined.set(chunk, previous.length);
  return joined.slice(Math.max(0, joined.length - n));
}

const SYNC = new Uint8Array([MESSAGE.sync, 0, 0, 0, 4]);

function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const message = Buffer.alloc(1 + 4 + text.length);
  message[0] = MESSAGE.query;
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return new Uint8Array(message);
}

/** An ErrorResponse with severity FATAL, as PostgreSQL sends before closing a refused connection. */
function fatalErrorResponse(code: string, text: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`, 'utf8');
  const message = Buffer.alloc(1 + 4 + fields.length);
  message[0] = 0x45;
  message.writeInt32BE(4 + fields.length, 1);
  fields.copy(message, 5);
  return message;
}

function removeStaleSocketFile(path: string): void {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!isSocket)
    throw new Error(`${path} exists and is not a unix socket; remove it or choose another DATA_DIR`);
  rmSync(path, { force: true });
}
