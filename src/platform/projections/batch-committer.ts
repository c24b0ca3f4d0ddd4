import type { BatchWrite, ReadStore } from '../read-store/read-store.port.js';

interface Pending {
  readonly write: BatchWrite;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit of the live projections' batches. The projections of one runner read the same pages: the writes
 * they submit while a commit is in flight, while other runs still prepare theirs, or within `lingerMs` of each
 * other go in one transaction (ReadStore.applyBatches), each with its own checkpoint guard, so exactly-once
 * holds per projection as before. A store without applyBatches gets them one by one.
 */
export class BatchCommitter {
  private queue: Pending[] = [];
  private inFlight = false;
  private preparing = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private waitTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly readStore: ReadStore,
    private readonly options: {
      /** How long a first write waits for others (default 2 ms). */
      readonly lingerMs?: number;
      /** How long it waits at most for runs still preparing theirs (default 20 ms). */
      readonly maxWaitMs?: number;
    } = {},
  ) {}

  /** A run starts preparing a batch: the next commit waits for its write (within maxWaitMs). Call the result when done. */
  preparingBatch(): () => void {
    this.preparing += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.preparing -= 1;
      this.schedule();
    };
  }

  /** Resolves once the write committed; rejects with its CheckpointMoved, or with the group's storage error. */
  submit(write: BatchWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.inFlight || this.queue.length === 0) return;
    if (this.preparing > 0) {
      this.waitTimer ??= setTimeout(() => {
        this.waitTimer = undefined;
        this.flushSoon();
      }, this.options.maxWaitMs ?? 20);
      return;
    }
    this.flushSoon();
  }

  private flushSoon(): void {
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, this.options.lingerMs ?? 2);
  }

  private async flush(): Promise<void> {
    if (this.inFlight || this.queue.length === 0) return;
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    const group = this.queue;
    this.queue = [];
    this.inFlight = true;
    try {
      if (group.length > 1 && this.readStore.applyBatches) {
        try {
          const outcomes = await this.readStore.applyBatches(group.map((pending) => pending.write));
          group.forEach((pending, index) => {
            const moved = outcomes[index];
            if (moved) pending.reject(moved);
            else pending.resolve();
          });
        } catch (error) {
          for (const pending of group) pending.reject(error);
        }
      } else {
        for (const pending of group) {
          const { changes, checkpoint, guard } = pending.write;
          await this.readStore.applyBatch(changes, checkpoint, guard).then(pending.resolve, pending.reject);
        }
      }
    } finally {
      this.inFlight = false;
      this.schedule();
    }
  }
}
