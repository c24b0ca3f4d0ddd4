import {
  Inject,
  Injectable,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** A loop that runs beside the requests: a worker pool, a sweeper, a scheduler. */
export interface BackgroundWorker {
  start(): void;
  /** Resolves once the work in flight finished; never rejects. */
  stop(): Promise<void>;
}

/**
 * Every background loop of a process, with one lifecycle: features register their workers when their module is
 * built; the HTTP service starts them all once it is up and stops them, newest first, when it shuts down. The
 * operator CLI builds the same modules without an HTTP adapter, so it runs no background work.
 */
@Injectable()
export class BackgroundWorkers implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly workers: BackgroundWorker[] = [];
  private running = false;

  constructor(@Optional() @Inject(HttpAdapterHost) private readonly http?: HttpAdapterHost) {}

  /** Adds workers; when the service already runs (a worker built after start-up), they start at once. */
  register(...workers: readonly BackgroundWorker[]): void {
    for (const worker of workers) {
      if (this.workers.includes(worker)) continue;
      this.workers.push(worker);
      if (this.running) worker.start();
    }
  }

  onApplicationBootstrap(): void {
    if (!this.http?.httpAdapter) return;
    this.running = true;
    for (const worker of this.workers) worker.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    for (const worker of [...this.workers].reverse()) await worker.stop();
  }
}
