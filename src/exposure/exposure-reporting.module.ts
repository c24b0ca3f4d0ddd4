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
import { ServiceContext } from '../platform/service-context.js';
import { ExposureCommands } from './commands/exposure-commands.js';
import { ExposureMonitoring } from './commands/exposure-monitoring.js';
import { ExposureReports } from './commands/exposure-reports.js';
import { ExposureModule } from './exposure.module.js';
import { ExposureMonitor } from './exposure-monitor.js';
import { ExposureReportingController } from './http/exposure-reporting.controller.js';
import { SmtpMailer } from './notifications/smtp-mailer.js';
import { RefreshWorkerPool } from './refresh-worker-pool.js';

/** Frozen reports, monitoring (watch runs) and email notifications of exposure scopes (issue 8, items 6 and 7). */
@Module({
  imports: [ExposureModule, CreditsModule],
  controllers: [ExposureReportingController],
  providers: [
    {
      provide: ExposureReports,
      inject: [ServiceContext, ExposureCommands],
      useFactory: (context: ServiceContext, commands: ExposureCommands) =>
        new ExposureReports(context, commands.gate),
    },
    {
      provide: ExposureMonitoring,
      inject: [ServiceContext, ExposureCommands],
      useFactory: (context: ServiceContext, commands: ExposureCommands) =>
        new ExposureMonitoring(context, commands.gate),
    },
    {
      provide: ExposureMonitor,
      inject: [ServiceContext, CreditLedger],
      useFactory: (context: ServiceContext, ledger: CreditLedger) =>
        new ExposureMonitor(
          context,
          ledger,
          context.config.smtp ? new SmtpMailer(context.config.smtp) : undefined,
          (level, message, fields) => context.log(level, message, fields),
        ),
    },
  ],
  exports: [ExposureReports, ExposureMonitoring, ExposureMonitor],
})
export class ExposureReportingModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(ExposureMonitor) private readonly monitor: ExposureMonitor,
    @Inject(ExposureMonitoring) monitoring: ExposureMonitoring,
    @Inject(RefreshWorkerPool) pool: RefreshWorkerPool,
    @Optional() @Inject(HttpAdapterHost) private readonly http?: HttpAdapterHost,
  ) {
    monitor.onRefreshRequested = () => pool.nudge();
    monitoring.onMonitoringChanged = () => void monitor.sweepOnce().catch(() => undefined);
  }

  /** The monitor runs in the HTTP service only, never in the operator CLI. */
  onApplicationBootstrap(): void {
    if (!this.http?.httpAdapter) return;
    this.monitor.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.monitor.stop();
  }
}
