import type { INestApplicationContext } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { StreamWriter } from '../platform/event-sourcing/stream-writer.js';
import { BackgroundChecks } from '../platform/health/background-checks.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import { PeriodicSweep, type SweepOptions } from '../platform/scheduling/periodic-sweep.js';
import type { WorkerLog } from '../platform/scheduling/worker-failures.js';
import { ExpireExportFile } from './commands/export.commands.js';
import { EXPORT_FILES, type ExportFileStore } from './files/export-file-store.port.js';
import { ExportQueries } from './queries/export-queries.js';

/** What the sweeper works with: the expiry command, the job reads, the files and the clock. */
export interface ExportSweeperPorts {
  readonly commands: CommandBus;
  readonly queries: ExportQueries;
  readonly files: ExportFileStore;
  readonly writer: Pick<StreamWriter, 'readYourWrites'>;
  readonly clock: Clock;
  readonly background: BackgroundChecks;
  readonly readStore: ReadStore;
  /** The service's logger, when the options name none. */
  readonly log?: WorkerLog;
}

/** The sweeper's ports as a running application provides them (tests build sweepers of their own). */
export function exportSweeperPorts(app: Pick<INestApplicationContext, 'get'>): ExportSweeperPorts {
  return {
    commands: app.get(CommandBus),
    queries: app.get(ExportQueries),
    files: app.get<symbol, ExportFileStore>(EXPORT_FILES),
    writer: app.get(StreamWriter),
    clock: app.get<symbol, Clock>(CLOCK),
    background: app.get(BackgroundChecks),
    readStore: app.get<symbol, ReadStore>(READ_STORE),
    log: app.get<symbol, LogFunction>(SERVICE_LOG),
  };
}

/** Failure records: `expire:<exportId>`, `file:<key>`, and `abandoned-uploads`. */
const EXPIRE = 'expire:';
const FILE = 'file:';

/** Pending uploads untouched this long belong to a writer that died. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/**
 * Deletes export files whose time is up: a completed export's file at expires_at (recorded on the job as
 * ExportFileExpired, so polls show it and downloads answer export_expired), files no job refers to any more
 * (an attempt that crashed after writing, a delete that crashed before removing the file) and abandoned uploads.
 * Every instance may sweep: each step is idempotent. A job or a file that cannot be handled is retried with
 * backoff and never holds back the others.
 */
export class ExportFileSweeper extends PeriodicSweep {
  constructor(
    private readonly ports: ExportSweeperPorts,
    options: SweepOptions = {},
  ) {
    super(
      60_000,
      'export-file-sweeper',
      {
        background: ports.background,
        readStore: ports.readStore,
        ...(options.log || ports.log ? { log: options.log ?? ports.log! } : {}),
      },
      options.retry,
    );
  }

  /** One pass: returns how many files it deleted. */
  protected async sweep(): Promise<number> {
    const now = this.ports.clock.now();
    const exports = this.ports.queries.collection();
    let deleted = 0;
    const waiting = (await this.failures.waiting())
      .filter((item) => item.startsWith(EXPIRE))
      .map((item) => item.slice(EXPIRE.length));
    const due = await exports.find(
      {
        status: 'completed',
        file_expired: false,
        deleted: false,
        expires_at: { $lte: now.toISOString() },
        ...(waiting.length > 0 ? { id: { $nin: waiting } } : {}),
      },
      { sort: [['expires_at', 1]], limit: 1000 },
    );
    const positions: string[] = [];
    for (const document of due) {
      const outcome = await this.item(`${EXPIRE}${document.id}`, async () => {
        const expired = await this.ports.commands.execute(
          new ExpireExportFile(document.id, document.payer, document.file_key),
        );
        if (expired.position) positions.push(expired.position);
        return expired.fileDeleted;
      });
      if (outcome.status === 'done' && outcome.value) deleted++;
    }
    await this.ports.writer.readYourWrites(['exports'], positions.at(-1) ?? null);

    // Files no live job refers to. A key is live while its job is processing (being written or just committed)
    // or completed, not expired and not deleted.
    const keys = await this.ports.files.list();
    for (let start = 0; start < keys.length; start += 500) {
      const chunk = keys.slice(start, start + 500);
      const referring = await exports.find({ file_key: { $in: chunk } });
      const live = new Set(
        referring
          .filter(
            (document) =>
              document.status === 'processing' ||
              (document.status === 'completed' && !document.file_expired && !document.deleted),
          )
          .map((document) => document.file_key),
      );
      for (const key of chunk) {
        // A file of an attempt the read model has not seen yet is left for the next pass.
        const exportId = key.replace(/-\d+$/, '');
        const job = referring.find((document) => document.id === exportId) ?? (await exports.get(exportId));
        if (!job || live.has(key)) continue;
        if (job.status === 'pending') continue;
        if (job.status === 'processing' && Number(key.slice(exportId.length + 1)) >= job.attempt) continue;
        const outcome = await this.item(`${FILE}${key}`, () => this.ports.files.delete(key));
        if (outcome.status === 'done' && outcome.value) deleted++;
      }
    }
    await this.item('abandoned-uploads', () =>
      this.ports.files.removeAbandoned(new Date(now.getTime() - ABANDONED_AFTER_MS)),
    );
    return deleted;
  }
}
