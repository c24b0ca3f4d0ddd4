import { Module } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AccountsModule } from '../accounts/accounts.module.js';
import { CatalogueModule } from '../catalogue/catalogue.module.js';
import { EnrichmentHandler } from '../catalogue/http/enrichment-handler.js';
import { CreditsModule } from '../credits/credits.module.js';
import { CreditQueries } from '../credits/queries/credit-queries.js';
import { ExportWorkerPool } from '../exports/export-worker-pool.js';
import { ExportsModule } from '../exports/exports.module.js';
import { ExportEstimates } from '../exports/queries/export-estimates.js';
import { ExportQueries } from '../exports/queries/export-queries.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { PersonalCredentials } from '../platform/auth/personal-credentials.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { createValidationPipe } from '../platform/http/validation.js';
import { SearchHandler } from '../search/http/search-handler.js';
import { SearchModule } from '../search/search.module.js';
import { McpEndpointLoader } from './mcp-endpoint-loader.js';
import { McpChallengeFilter, McpController } from './mcp.controller.js';

/** The version tools/list's server reports: the API's major version. */
const MCP_SERVER_VERSION = '2';

/** The MCP endpoint: the personal API's search, enrichment, credits and exports as tools (ADR 108). */
@Module({
  imports: [AccountsModule, OrganizationsModule, SearchModule, CatalogueModule, CreditsModule, ExportsModule],
  controllers: [McpController],
  providers: [
    PersonalCredentials,
    McpChallengeFilter,
    {
      provide: McpEndpointLoader,
      inject: [
        SearchHandler,
        EnrichmentHandler,
        CreditQueries,
        CommandBus,
        ExportEstimates,
        ExportQueries,
        ExportWorkerPool,
        CLOCK,
        PersonalCredentials,
      ],
      useFactory: (
        search: SearchHandler,
        enrichment: EnrichmentHandler,
        credits: CreditQueries,
        commands: CommandBus,
        exportEstimates: ExportEstimates,
        exportQueries: ExportQueries,
        exportPool: ExportWorkerPool,
        clock: Clock,
        credentials: PersonalCredentials,
      ) =>
        new McpEndpointLoader(
          { search, enrichment, credits, commands, exportEstimates, exportQueries, exportPool, clock },
          credentials,
          createValidationPipe(),
          MCP_SERVER_VERSION,
        ),
    },
  ],
})
export class McpModule {}
