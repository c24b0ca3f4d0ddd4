import {
  Inject,
  Module,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { CreditLedger } from '../credits/commands/credit-ledger.js';
import { CreditsModule } from '../credits/credits.module.js';
import { ServiceContext } from '../platform/service-context.js';
import { SearchEngine } from '../search/search-engine.js';
import { SearchModule } from '../search/search.module.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { RESEARCH_CONTEXTS, type ResearchContexts } from '../search/research-context.js';
import { ExportJobs } from './commands/export-jobs.js';
import { ExportFileSweeper } from './export-file-sweeper.js';
import { ExportWorkerPool } from './export-worker-pool.js';
import { ExportsController } from './http/exports.controller.js';
import { ExportQueries } from './queries/export-queries.js';

@Module({
  imports: [AccountsModule, CreditsModule, SearchModule, OrganizationsModule],
  controllers: [ExportsController],
  providers: [
    {
      provide: ExportQueries,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => new ExportQueries(context),
    },
    {
      provide: ExportJobs,
      inject: [
        ServiceContext,
        CreditLedger,
        SearchEngine,
        AccountDirectory,
        ExportQueries,
        RESEARCH_CONTEXTS,
      ],
      useFactory: (
        context: ServiceContext,
        ledger: CreditLedger,
        engine: SearchEngine,
        accounts: AccountDirectory,
        queries: ExportQueries,
        research: ResearchContexts,
      ) => new ExportJobs(context, ledger, engine, accounts, queries, research),
    },
    {
      provide: ExportWorkerPool,
      inject: [ServiceContext, ExportJobs, CreditLedger],
      useFactory: (context: ServiceContext, jobs: ExportJobs, ledger: CreditLedger) =>
        new ExportWorkerPool(context, jobs, ledger, {
          concurrency: context.config.exportWorkers,
          leaseMs: context.config.exportLeaseMs,
          retentionMs: context.config.exportRetentionHours * 60 * 60 * 1000,
          batchSize: context.config.exportBatchSize,
          log: (level, message, fields) => {
            if (level !== 'info') process.stderr.write(`${message} ${JSON.stringify(fields ?? {})}\n`);
          },
        }),
    },
    {
      provide: ExportFileSweeper,
      inject: [ServiceContext, ExportJobs],
      useFactory: (context: ServiceContext, jobs: ExportJobs) => new ExportFileSweeper(context, jobs),
    },
  ],
  exports: [ExportJobs, ExportWorkerPool, ExportFileSweeper],
})
export class ExportsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ExportWorkerPool) private readonly pool: ExportWorkerPool,
    @Inject(ExportFileSweeper) private readonly sweeper: ExportFileSweeper,
    @Optional() @Inject(HttpAdapterHost) private readonly http?: HttpAdapterHost,
  ) {}

  /**
   * The pool and the sweeper run in the HTTP service only, never in the operator CLI (which builds the same
   * modules without an HTTP adapter). EXPORT_WORKERS=0 runs no jobs.
   */
  onApplicationBootstrap(): void {
    if (!this.http?.httpAdapter) return;
    this.pool.start();
    this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.stop();
    await this.sweeper.stop();
  }
}
