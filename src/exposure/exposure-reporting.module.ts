import { Inject, Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module.js';
import type { ExportFileStore } from '../exports/files/export-file-store.port.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { StreamReader } from '../platform/event-sourcing/stream-reader.js';
import { BackgroundWorkers } from '../platform/scheduling/background-workers.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { ExposureGate } from './commands/exposure-access.js';
import { monitoringHandlers, SetMonitoringHandler } from './commands/monitoring.handlers.js';
import { reportHandlers } from './commands/reports.handlers.js';
import { ExposureModule } from './exposure.module.js';
import { ExposureMonitor } from './exposure-monitor.js';
import { EXPOSURE_WORKER_PORTS, REPORT_FILES, type ExposureWorkerPorts } from './exposure-ports.js';
import { ExposureReportingController } from './http/exposure-reporting.controller.js';
import { SmtpMailer } from './notifications/smtp-mailer.js';
import { ExposureMonitoringQueries } from './queries/exposure-monitoring-queries.js';
import { ExposureQueries } from './queries/exposure-queries.js';
import { ExposureReports } from './queries/exposure-reports.js';

/** Frozen reports, monitoring (watch runs) and email notifications of exposure scopes (issue 8, items 6 and 7). */
@Module({
  // OrganizationsModule: the organization access layer (its gate) that checks each route's capability.
  imports: [ExposureModule, CreditsModule, OrganizationsModule],
  controllers: [ExposureReportingController],
  providers: [
    {
      provide: ExposureReports,
      inject: [ExposureGate, ProjectionRunner, REPORT_FILES, ExposureQueries],
      useFactory: (
        gate: ExposureGate,
        projections: ProjectionRunner,
        files: ExportFileStore,
        queries: ExposureQueries,
      ) => new ExposureReports(gate, projections, files, queries),
    },
    {
      provide: ExposureMonitoringQueries,
      inject: [ExposureGate, StreamReader, ProjectionRunner, ExposureQueries],
      useFactory: (
        gate: ExposureGate,
        streams: StreamReader,
        projections: ProjectionRunner,
        queries: ExposureQueries,
      ) => new ExposureMonitoringQueries(gate, streams, projections, queries),
    },
    {
      provide: ExposureMonitor,
      inject: [EXPOSURE_WORKER_PORTS, APP_CONFIG],
      useFactory: (ports: ExposureWorkerPorts, config: AppConfig) =>
        new ExposureMonitor(
          ports,
          config.smtp ? new SmtpMailer(config.smtp) : undefined,
          (level, message, fields) => ports.log(level, message, fields),
        ),
    },
    ...reportHandlers,
    ...monitoringHandlers,
  ],
  exports: [ExposureReports, ExposureMonitoringQueries, ExposureMonitor],
})
export class ExposureReportingModule {
  /** The monitor runs in the HTTP service only (BackgroundWorkers), never in the operator CLI. */
  constructor(
    @Inject(BackgroundWorkers) workers: BackgroundWorkers,
    @Inject(ExposureMonitor) monitor: ExposureMonitor,
    @Inject(SetMonitoringHandler) monitoring: SetMonitoringHandler,
  ) {
    monitoring.onMonitoringChanged = () => void monitor.sweepOnce().catch(() => undefined);
    workers.register(monitor);
  }
}
