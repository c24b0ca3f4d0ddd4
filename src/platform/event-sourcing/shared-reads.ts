/**
 * Concurrent reads of one key share one read, and never one that started before the caller asked: a caller
 * arriving while a read runs waits for the next one, which starts when the running one ends and serves every
 * caller that arrived meanwhile. Read-your-writes holds (the read a caller gets began after its call), and a
 * busy stream costs one read per read's duration instead of one per caller (ADR 91).
 */
export class SharedReads {
  private readonly keys = new Map<string, KeyReads>();

  /** `kind` tells reads of one key apart that must not be shared (another fold of the same stream). */
  read<T>(key: string, kind: unknown, read: () => Promise<T>): Promise<T> {
    const reads = this.keys.get(key);
    if (!reads) {
      const fresh: KeyReads = { next: undefined };
      this.keys.set(key, fresh);
      return this.start(key, fresh, read);
    }
    if (reads.next && reads.next.kind !== kind) return read();
    if (!reads.next) {
      let resolve!: (value: unknown) => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<unknown>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      reads.next = { kind, read, promise, resolve, reject };
    }
    return reads.next.promise as Promise<T>;
  }

  private start<T>(key: string, reads: KeyReads, read: () => Promise<T>): Promise<T> {
    const running = read();
    const after = (): void => {
      const next = reads.next;
      reads.next = undefined;
      if (!next) {
        this.keys.delete(key);
        return;
      }
      this.start(key, reads, next.read).then(next.resolve, next.reject);
    };
    running.then(after, after);
    return running;
  }
}

interface KeyReads {
  next:
    | {
        readonly kind: unknown;
        readonly read: () => Promise<unknown>;
        readonly promise: Promise<unknown>;
        readonly resolve: (value: unknown) => void;
        readonly reject: (error: unknown) => void;
      }
    | undefined;
}
