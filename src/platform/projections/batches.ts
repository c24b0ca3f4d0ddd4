/**
 * Groups a pull-based event stream into batches without giving up backpressure: it collects whatever the
 * source can hand over at once (up to `max`), and yields as soon as the source would have to wait.
 */
export interface Batch<T> {
  readonly items: T[];
  /** True when the source had nothing more ready: the consumer is caught up. */
  readonly drained: boolean;
}

const WOULD_WAIT = Symbol('would-wait');

export async function* batches<T>(source: AsyncIterable<T>, max: number): AsyncGenerator<Batch<T>> {
  const iterator = source[Symbol.asyncIterator]();
  let pending = iterator.next();
  try {
    for (;;) {
      const first = await pending;
      if (first.done) return;
      const items: T[] = [first.value];
      pending = iterator.next();
      let drained = false;
      while (items.length < max) {
        const next = await Promise.race([pending, nextTurn()]);
        if (next === WOULD_WAIT) {
          drained = true;
          break;
        }
        if (next.done) {
          yield { items, drained: true };
          return;
        }
        items.push(next.value);
        pending = iterator.next();
      }
      yield { items, drained };
    }
  } finally {
    await iterator.return?.();
  }
}

function nextTurn(): Promise<typeof WOULD_WAIT> {
  return new Promise((resolve) => setImmediate(() => resolve(WOULD_WAIT)));
}
