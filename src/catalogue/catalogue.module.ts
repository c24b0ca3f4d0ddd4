import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { ServiceContext } from '../platform/service-context.js';
import { SearchModule } from '../search/search.module.js';
import { VulnerabilityRefs } from '../search/vulnerability-ref.js';
import { BrowserEnrichmentController, PersonalEnrichmentController } from './http/enrichment.controllers.js';
import { EnrichmentHandler } from './http/enrichment-handler.js';

@Module({
  imports: [AccountsModule, SearchModule],
  controllers: [PersonalEnrichmentController, BrowserEnrichmentController],
  providers: [
    {
      provide: EnrichmentHandler,
      inject: [ServiceContext, VulnerabilityRefs, AccountDirectory],
      useFactory: (context: ServiceContext, refs: VulnerabilityRefs, accounts: AccountDirectory) =>
        new EnrichmentHandler(
          context.catalogue,
          context.observations,
          refs,
          accounts,
          context.rateLimiter,
          context.clock,
        ),
    },
  ],
})
export class CatalogueModule {}
