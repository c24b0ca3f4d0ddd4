/**
 * Whether an error says that storage could not be reached (rather than that a statement was wrong): the
 * PostgreSQL server or the owner's PGlite socket refused, dropped or timed out a connection, was shutting
 * down or out of connections; a MongoDB or EventStoreDB node was unreachable; the embedded PGlite was closed.
 * Such failures answer 503 not_ready with Retry-After (the caller can retry), never 500.
 */
export function isStorageUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, name, message, syscall, type } = error as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    syscall?: unknown;
    type?: unknown;
  };
  if (typeof code === 'string') {
    // SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, cannot connect now), class 53
    // (insufficient resources: too many connections, disk full, out of memory), 3D000 (database gone).
    if (/^(08|53)[0-9A-Z]{3}$/.test(code) || /^57P0[123]$/.test(code) || code === '3D000') return true;
    if (code === '55000' && typeof message === 'string' && message.includes('accepting connections'))
      return true;
    if (NETWORK_ERRNOS.has(code)) return true;
    if (code === 'ENOENT' && syscall === 'connect') return true; // the owner's socket file is gone
  }
  if (typeof name === 'string' && MONGODB_UNAVAILABLE.has(name)) return true;
  if (type === 'unavailable') return true; // EventStoreDB client
  if (typeof message === 'string' && CONNECTION_MESSAGES.some((text) => message.includes(text))) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isStorageUnavailable(cause);
}

const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

const MONGODB_UNAVAILABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoPoolClearedError',
]);

/** node-postgres and PGlite raise these without a code. */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
  'PGlite is closed',
  'PGlite is closing',
];
