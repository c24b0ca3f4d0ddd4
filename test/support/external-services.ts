/**
 * Shared by the contract legs that need a server this machine may not have (EventStoreDB, MongoDB): they use
 * the server named by an environment variable, else a testcontainers container, else they are skipped and say why.
 */

/** Rejects with "<what> timed out after <ms> ms" when the promise takes longer (runtime detection must not hang). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A failure's message, for the "skipped because …" line. */
export function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
