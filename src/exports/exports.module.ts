import { Inject, Module } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { BackgroundWorkers } from '../platform/scheduling/background-workers.js';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { CreditLedger } from '../credits/commands/credit-ledger.js';
import { CreditsModule } from '../credits/credits.module.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { StreamWriter } from '../platform/event-sourcing/stream-writer.js';
import { BackgroundChecks } from '../platform/health/background-checks.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import {
  OBSERVATION_INDEX,
  type ObservationIndex,
} from '../search/observation-index/observation-index.port.js';
import { SearchEngine } from '../search/search-engine.js';
import { SearchModule } from '../search/search.module.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { RESEARCH_CONTEXTS, type ResearchContexts } from '../search/research-context.js';
import { ExportJobs } from './commands/export-jobs.js';
import { exportCommandHandlers } from './commands/export.handlers.js';
import { ExportFileSweeper } from './export-file-sweeper.js';
import { ExportWorkerPool } from './export-worker-pool.js';
import { EXPORT_FILES, type ExportFileStore } from './files/export-file-store.port.js';
import { BrowserExportsController, ExportsController } from './http/exports.controller.js';
import { ExportDownloads } from './queries/export-downloads.js';
import { ExportEstimates } from './queries/export-estimates.js';
import { ExportQueries } from './queries/export-queries.js';

@Module({
  imports: [AccountsModule, CreditsModule, SearchModule, OrganizationsModule],
  controllers: [ExportsController, BrowserExportsController],
  providers: [
    {
      provide: ExportQueries,
      inject: [ProjectionRunner],
      useFactory: (projections: ProjectionRunner) => new ExportQueries(projections),
    },
    {
      provide: ExportJobs,
      inject: [
        StreamWriter,
        CLOCK,
        OBSERVATION_INDEX,
        SearchEngine,
        AccountDirectory,
        ExportQueries,
        SERVICE_LOG,
        RESEARCH_CONTEXTS,
      ],
      useFactory: (
        writer: StreamWriter,
        clock: Clock,
        observations: ObservationIndex,
        engine: SearchEngine,
        accounts: AccountDirectory,
        queries: ExportQueries,
        log: LogFunction,
        research: ResearchContexts,
      ) => new ExportJobs(writer, clock, observations, engine, accounts, queries, log, research),
    },
    {
      provide: ExportEstimates,
      inject: [ExportJobs, CreditLedger],
      useFactory: (jobs: ExportJobs, ledger: CreditLedger) => new ExportEstimates(jobs, ledger),
    },
    {
      provide: ExportDownloads,
      inject: [ExportQueries, EXPORT_FILES, CLOCK],
      useFactory: (queries: ExportQueries, files: ExportFileStore, clock: Clock) =>
        new ExportDownloads(queries, files, clock),
    },
    ...exportCommandHandlers,
    {
      provide: ExportWorkerPool,
      inject: [
        CommandBus,
        ExportJobs,
        EXPORT_FILES,
        OBSERVATION_INDEX,
        CLOCK,
        BackgroundChecks,
        READ_STORE,
        APP_CONFIG,
      ],
      useFactory: (
        commands: CommandBus,
        jobs: ExportJobs,
        files: ExportFileStore,
        observations: ObservationIndex,
        clock: Clock,
        background: BackgroundChecks,
        readStore: ReadStore,
        config: AppConfig,
      ) =>
        new ExportWorkerPool(
          { commands, jobs, files, observations, clock, background, readStore },
          {
            concurrency: config.exportWorkers,
            leaseMs: config.exportLeaseMs,
            retentionMs: config.exportRetentionHours * 60 * 60 * 1000,
            batchSize: config.exportBatchSize,
            log: (level, message, fields) => {
              if (level !== 'info') process.stderr.write(`${message} ${JSON.stringify(fields ?? {})}\n`);
            },
          },
        ),
    },
    {
      provide: ExportFileSweeper,
      inject: [
        CommandBus,
        ExportQueries,
        EXPORT_FILES,
        StreamWriter,
        CLOCK,
        BackgroundChecks,
        READ_STORE,
        SERVICE_LOG,
      ],
      useFactory: (
        commands: CommandBus,
        queries: ExportQueries,
        files: ExportFileStore,
        writer: StreamWriter,
        clock: Clock,
        background: BackgroundChecks,
        readStore: ReadStore,
        log: LogFunction,
      ) =>
        new ExportFileSweeper({
          commands,
          queries,
          files,
          writer,
          clock,
          background,
          readStore,
          log,
        }),
    },
  ],
  exports: [ExportJobs, ExportQueries, ExportEstimates, ExportWorkerPool, ExportFileSweeper],
})
export class ExportsModule {
  /** The pool and the sweeper run in the HTTP service only (BackgroundWorkers); EXPORT_WORKERS=0 runs no jobs. */
  constructor(
    @Inject(BackgroundWorkers) workers: BackgroundWorkers,
    @Inject(ExportWorkerPool) pool: ExportWorkerPool,
    @Inject(ExportFileSweeper) sweeper: ExportFileSweeper,
  ) {
    workers.register(pool, sweeper);
  }
}
