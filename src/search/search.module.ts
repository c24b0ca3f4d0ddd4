import { Module } from '@nestjs/common';
import { READ_TOGETHER, type ReadTogether } from '../platform/database/sql-database.js';
import { CommandBus } from '@nestjs/cqrs';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { CreditsModule } from '../credits/credits.module.js';
import { CreditLedger } from '../credits/commands/credit-ledger.js';
import { ServiceSecrets } from '../platform/auth/secrets.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { OBSERVATION_INDEX, type ObservationIndex } from './observation-index/observation-index.port.js';
import { PersonalSearchController, BrowserSearchController } from './http/search.controllers.js';
import { SearchHandler } from './http/search-handler.js';
import { SearchEngine } from './search-engine.js';
import { SearchLog } from './search-log.js';
import { searchCommandHandlers } from './commands/search.handlers.js';
import { VulnerabilityRefs } from './vulnerability-ref.js';
import { OrganizationsModule } from '../organizations/organizations.module.js';
import { RESEARCH_CONTEXTS, type ResearchContexts } from './research-context.js';

@Module({
  imports: [AccountsModule, CreditsModule, OrganizationsModule],
  controllers: [PersonalSearchController, BrowserSearchController],
  providers: [
    {
      provide: VulnerabilityRefs,
      inject: [ServiceSecrets],
      useFactory: (secrets: ServiceSecrets) => new VulnerabilityRefs(secrets.csrfSecret),
    },
    {
      provide: SearchEngine,
      inject: [OBSERVATION_INDEX, CommandBus, VulnerabilityRefs, CLOCK, APP_CONFIG],
      useFactory: (
        observations: ObservationIndex,
        commands: CommandBus,
        refs: VulnerabilityRefs,
        clock: Clock,
        config: AppConfig,
      ) =>
        new SearchEngine(observations, commands, refs, clock, {
          datasetDeadlineMs: config.searchDeadlineMs,
          maxConcurrentPerDataset: config.searchDatasetConcurrency,
        }),
    },
    {
      provide: SearchHandler,
      inject: [SearchEngine, AccountDirectory, RESEARCH_CONTEXTS, SearchLog, READ_TOGETHER, CreditLedger],
      useFactory: (
        engine: SearchEngine,
        accounts: AccountDirectory,
        research: ResearchContexts,
        searches: SearchLog,
        readTogether: ReadTogether,
        ledger: CreditLedger,
      ) => new SearchHandler(engine, accounts, research, searches, readTogether, ledger),
    },
    SearchLog,
    ...searchCommandHandlers,
  ],
  exports: [SearchEngine, VulnerabilityRefs, SearchLog, SearchHandler],
})
export class SearchModule {}
