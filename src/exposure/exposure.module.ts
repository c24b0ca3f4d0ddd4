import { Inject, Module } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { BackgroundWorkers } from '../platform/scheduling/background-workers.js';
import { CatalogueService } from '../catalogue/catalogue-service.js';
import { CreditsModule } from '../credits/credits.module.js';
import { ORGANIZATION_PRODUCTS } from '../organizations/commands/organization-products.js';
import { OrganizationWorkspace } from '../organizations/commands/organization-workspace.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { StreamWriter } from '../platform/event-sourcing/stream-writer.js';
import { EVENT_STORE, type EventStore } from '../platform/event-store/event-store.port.js';
import { BackgroundChecks } from '../platform/health/background-checks.js';
import { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { READ_STORE, type ReadStore } from '../platform/read-store/read-store.port.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import {
  OBSERVATION_INDEX,
  type ObservationIndex,
} from '../search/observation-index/observation-index.port.js';
import { decisionHandlers } from './commands/decisions.handlers.js';
import { EraseScopeHandler } from './commands/erasure.handlers.js';
import { ExposureGate } from './commands/exposure-access.js';
import { refreshHandlers } from './commands/refresh.handlers.js';
import { scopeLifecycleHandlers } from './commands/scope-lifecycle.handlers.js';
import { EXPOSURE_LOG, EXPOSURE_WORKER_PORTS, type ExposureWorkerPorts } from './exposure-ports.js';
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
      provide: ExposureGate,
      inject: [StreamWriter, OrganizationWorkspace],
      useFactory: (writer: StreamWriter, workspace: OrganizationWorkspace) =>
        new ExposureGate(writer, workspace.gate),
    },
    // The organization access layer asks it whether Exposition is on before an exposure route's role check.
    { provide: ORGANIZATION_PRODUCTS, useExisting: ExposureGate },
    {
      provide: ExposureQueries,
      inject: [ProjectionRunner, EVENT_STORE, CLOCK],
      useFactory: (projections: ProjectionRunner, eventStore: EventStore, clock: Clock) =>
        new ExposureQueries({ projections, eventStore, clock }),
    },
    { provide: EXPOSURE_LOG, useExisting: SERVICE_LOG },
    {
      provide: EXPOSURE_WORKER_PORTS,
      inject: [
        CommandBus,
        StreamWriter,
        ProjectionRunner,
        EVENT_STORE,
        CLOCK,
        BackgroundChecks,
        READ_STORE,
        EXPOSURE_LOG,
      ],
      useFactory: (
        commands: CommandBus,
        writer: StreamWriter,
        projections: ProjectionRunner,
        eventStore: EventStore,
        clock: Clock,
        background: BackgroundChecks,
        readStore: ReadStore,
        log: LogFunction,
      ): ExposureWorkerPorts => ({
        commands,
        writer,
        projections,
        eventStore,
        clock,
        background,
        readStore,
        log,
      }),
    },
    {
      provide: RefreshWorkerPool,
      inject: [EXPOSURE_WORKER_PORTS, OBSERVATION_INDEX, CatalogueService, APP_CONFIG],
      useFactory: (
        ports: ExposureWorkerPorts,
        observations: ObservationIndex,
        catalogue: CatalogueService,
        config: AppConfig,
      ) =>
        new RefreshWorkerPool(
          ports,
          { observations, catalogue },
          {
            concurrency: 1,
            leaseMs: REFRESH_LEASE_MS,
            evaluationLimit: config.refreshEvaluationLimit,
            log: (level, message, fields) => {
              if (level !== 'info') process.stderr.write(`${message} ${JSON.stringify(fields ?? {})}\n`);
            },
          },
        ),
    },
    {
      provide: ScopeErasureSweeper,
      inject: [EXPOSURE_WORKER_PORTS],
      useFactory: (ports: ExposureWorkerPorts) => new ScopeErasureSweeper(ports),
    },
    ...scopeLifecycleHandlers,
    ...refreshHandlers,
    ...decisionHandlers,
    EraseScopeHandler,
  ],
  exports: [
    ExposureGate,
    ORGANIZATION_PRODUCTS,
    ExposureQueries,
    RefreshWorkerPool,
    ScopeErasureSweeper,
    EXPOSURE_LOG,
    EXPOSURE_WORKER_PORTS,
  ],
})
export class ExposureModule {
  /** The refresh pool and the erasure sweeper run in the HTTP service only (BackgroundWorkers). */
  constructor(
    @Inject(BackgroundWorkers) workers: BackgroundWorkers,
    @Inject(RefreshWorkerPool) pool: RefreshWorkerPool,
    @Inject(ScopeErasureSweeper) sweeper: ScopeErasureSweeper,
  ) {
    workers.register(pool, sweeper);
  }
}
