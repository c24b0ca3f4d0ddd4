import {
  Inject,
  Module,
  Optional,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CreditLedger } from '../credits/commands/credit-ledger.js';
import { CreditsModule } from '../credits/credits.module.js';
import { OrganizationWorkspace } from '../organizations/commands/organization-workspace.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { ServiceContext } from '../platform/service-context.js';
import { ExposureCommands } from './commands/exposure-commands.js';
import { ExposureController } from './http/exposure.controller.js';
import { ExposureQueries } from './queries/exposure-queries.js';
import { RefreshWorkerPool } from './refresh-worker-pool.js';
import { ScopeErasureSweeper } from './scope-erasure-sweeper.js';

/** Leases of running refreshes; renewed at least every third of it. */
export const REFRESH_LEASE_MS = 60_000;

@Module({
  imports: [CreditsModule, OrganizationsModule],
  controllers: [ExposureController],
  providers: [
    {
      provide: ExposureCommands,
      inject: [ServiceContext, OrganizationWorkspace, CreditLedger],
      useFactory: (context: ServiceContext, workspace: OrganizationWorkspace, ledger: CreditLedger) =>
        new ExposureCommands(context, workspace.gate, ledger),
    },
    {
      provide: ExposureQueries,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => new ExposureQueries(context),
    },
    {
      provide: RefreshWorkerPool,
      inject: [ServiceContext, ExposureCommands, CreditLedger],
      useFactory: (context: ServiceContext, commands: ExposureCommands, ledger: CreditLedger) =>
        new RefreshWorkerPool(context, commands, ledger, {
          concurrency: 1,
          leaseMs: REFRESH_LEASE_MS,
          evaluationLimit: context.config.refreshEvaluationLimit,
          log: (level, message, fields) => {
            if (level !== 'info') process.stderr.write(`${message} ${JSON.stringify(fields ?? {})}\n`);
          },
        }),
    },
    {
      provide: ScopeErasureSweeper,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext) => new ScopeErasureSweeper(context),
    },
  ],
  exports: [ExposureCommands, ExposureQueries, RefreshWorkerPool, ScopeErasureSweeper],
})
export class ExposureModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ExposureCommands) commands: ExposureCommands,
    @Inject(RefreshWorkerPool) private readonly pool: RefreshWorkerPool,
    @Inject(ScopeErasureSweeper) private readonly sweeper: ScopeErasureSweeper,
    @Optional() @Inject(HttpAdapterHost) private readonly http?: HttpAdapterHost,
  ) {
    commands.onRefreshRequested = () => pool.nudge();
  }

  /** The refresh pool and the erasure sweeper run in the HTTP service only, never in the operator CLI. */
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
