import { Global, Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { AccountsModule } from './accounts/accounts.module.js';
import { CreditsModule } from './credits/credits.module.js';
import { ExportsModule } from './exports/exports.module.js';
import { OrganizationsModule } from './organizations/organizations.module.js';
import { SearchModule } from './search/search.module.js';
import { CatalogueModule } from './catalogue/catalogue.module.js';
import { SsoModule } from './organizations/sso/sso.module.js';
import { ExposureModule } from './exposure/exposure.module.js';
import { ExposureReportingModule } from './exposure/exposure-reporting.module.js';
import { OperatorsModule } from './operators/operators.module.js';
import { DataLoadsModule } from './data-loads/data-loads.module.js';
import { AuthGuard } from './platform/auth/auth.guard.js';
import { AuthModule } from './platform/auth/auth.module.js';
import { PersonalCredentials } from './platform/auth/personal-credentials.js';
import { McpModule } from './mcp/mcp.module.js';
import { CallerIpController } from './platform/http/caller-ip.controller.js';
import { APP_CONFIG } from './platform/config/app-config.js';
import { CLOCK } from './platform/clock/clock.js';
import { EVENT_STORE } from './platform/event-store/event-store.port.js';
import { HealthController } from './platform/http/health.controller.js';
import { EventLogKeyController } from './platform/http/event-log-key.controller.js';
import { READ_STORE } from './platform/read-store/read-store.port.js';
import { SERVICE_LOG, ServiceContext } from './platform/service-context.js';
import { REPORT_FILES } from './exposure/exposure-ports.js';
import { StreamReader } from './platform/event-sourcing/stream-reader.js';
import { StreamWriter } from './platform/event-sourcing/stream-writer.js';
import { ProjectionRunner } from './platform/projections/projection-runner.js';
import { BackgroundChecks } from './platform/health/background-checks.js';
import { BackgroundWorkers } from './platform/scheduling/background-workers.js';
import { OBSERVATION_INDEX } from './search/observation-index/observation-index.port.js';
import { CatalogueService } from './catalogue/catalogue-service.js';
import { EXPORT_FILES } from './exports/files/export-file-store.port.js';
import { RATE_LIMITER } from './platform/rate-limit/rate-limiter.port.js';
import { CREDENTIAL_STORE } from './platform/auth/credentials/credential-store.port.js';
import {
  OPEN_READ_GROUP,
  openReadGroupOf,
  READ_TOGETHER,
  readTogetherOf,
} from './platform/database/sql-database.js';
import { ForegroundActivity } from './platform/scheduling/foreground-activity.js';

/** Shares the process's ServiceContext (config, clock, storage, projections) with every module. */
@Global()
@Module({})
export class PlatformModule {
  static forContext(context: ServiceContext): DynamicModule {
    return {
      module: PlatformModule,
      providers: [
        { provide: ServiceContext, useValue: context },
        { provide: APP_CONFIG, useValue: context.config },
        { provide: CLOCK, useValue: context.clock },
        { provide: EVENT_STORE, useValue: context.storage.eventStore },
        { provide: READ_STORE, useValue: context.storage.readStore },
        // Narrow ports: a feature injects what it uses instead of the whole ServiceContext.
        { provide: StreamWriter, useValue: context.writer },
        { provide: StreamReader, useValue: context.reader },
        { provide: ProjectionRunner, useValue: context.projections },
        { provide: OBSERVATION_INDEX, useValue: context.observations },
        { provide: CatalogueService, useValue: context.catalogue },
        { provide: EXPORT_FILES, useValue: context.files },
        { provide: RATE_LIMITER, useValue: context.rateLimiter },
        { provide: BackgroundChecks, useValue: context.background },
        BackgroundWorkers,
        { provide: SERVICE_LOG, useValue: context.log },
        { provide: REPORT_FILES, useValue: context.storage.reportFiles },
        { provide: CREDENTIAL_STORE, useValue: context.credentials },
        { provide: READ_TOGETHER, useValue: readTogetherOf(context.storage.sql) },
        { provide: OPEN_READ_GROUP, useValue: openReadGroupOf(context.storage.sql) },
        { provide: ForegroundActivity, useValue: context.foreground },
      ],
      exports: [
        ServiceContext,
        APP_CONFIG,
        CLOCK,
        EVENT_STORE,
        READ_STORE,
        StreamWriter,
        StreamReader,
        ProjectionRunner,
        OBSERVATION_INDEX,
        CatalogueService,
        EXPORT_FILES,
        RATE_LIMITER,
        BackgroundChecks,
        BackgroundWorkers,
        SERVICE_LOG,
        REPORT_FILES,
        CREDENTIAL_STORE,
        READ_TOGETHER,
        OPEN_READ_GROUP,
        ForegroundActivity,
      ],
    };
  }
}

@Module({})
export class AppModule {
  static forContext(context: ServiceContext, extra: ReadonlyArray<Type | DynamicModule> = []): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forContext(context),
        CqrsModule.forRoot(),
        AuthModule,
        AccountsModule,
        CreditsModule,
        SearchModule,
        CatalogueModule,
        ExportsModule,
        OrganizationsModule,
        SsoModule,
        ExposureModule,
        ExposureReportingModule,
        OperatorsModule,
        McpModule,
        DataLoadsModule,
        ...extra,
      ],
      controllers: [HealthController, CallerIpController, EventLogKeyController],
      // Every route passes the one guard; a route without an access rule is refused.
      providers: [PersonalCredentials, { provide: APP_GUARD, useClass: AuthGuard }],
    };
  }
}
