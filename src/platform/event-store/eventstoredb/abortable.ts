/**
 * Waiting on an iterator or a timer that an AbortSignal can cut short (the supervised subscription).
 */

export class Aborted extends Error {
  override readonly name = 'Aborted';
}

export function nextOrAbort<T>(iterator: AsyncIterator<T>, signal?: AbortSignal): Promise<IteratorResult<T>> {
  if (!signal) return iterator.next();
  if (signal.aborted) return Promise.reject(new Aborted());
  return new Promise<IteratorResult<T>>((resolve, reject) => {
    const onAbort = () => reject(new Aborted());
    signal.addEventListener('abort', onAbort, { once: true });
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort);
        resolve(result);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

export function describeFailure(failure: unknown): string {
  if (failure === null) return 'ended by the server';
  if (failure instanceof Error) return failure.message ? `${failure.name}: ${failure.message}` : failure.name;
  return String(failure);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new Aborted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
