import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { CreditLedger } from '../credits/commands/credit-ledger.js';
import { CreditsModule } from '../credits/credits.module.js';
import { ServiceSecrets } from '../platform/auth/secrets.js';
import { ServiceContext } from '../platform/service-context.js';
import { PersonalSearchController, BrowserSearchController } from './http/search.controllers.js';
import { SearchHandler } from './http/search-handler.js';
import { SearchEngine } from './search-engine.js';
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
      inject: [ServiceContext, CreditLedger, VulnerabilityRefs],
      useFactory: (context: ServiceContext, ledger: CreditLedger, refs: VulnerabilityRefs) =>
        new SearchEngine(context.observations, ledger, refs, context.clock, {
          datasetDeadlineMs: context.config.searchDeadlineMs,
          maxConcurrentPerDataset: context.config.searchDatasetConcurrency,
        }),
    },
    {
      provide: SearchHandler,
      inject: [SearchEngine, AccountDirectory, RESEARCH_CONTEXTS],
      useFactory: (engine: SearchEngine, accounts: AccountDirectory, research: ResearchContexts) =>
        new SearchHandler(engine, accounts, research),
    },
  ],
  exports: [SearchEngine, VulnerabilityRefs],
})
export class SearchModule {}
