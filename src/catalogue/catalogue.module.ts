import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
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
export class CatalogueModule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly stopping = new AbortController();
  private upkeep: Promise<unknown> = Promise.resolve();

  constructor(@Inject(ServiceContext) private readonly context: ServiceContext) {}

  /**
   * An association index built by another matcher version is rebuilt in the background (cve:/kev: searches keep
   * answering from the old associations meanwhile); /health/ready shows it under `catalogue`.
   */
  async onApplicationBootstrap(): Promise<void> {
    const { done } = await this.context.catalogue.upkeepIndexAtStart(this.context.observations, {
      signal: this.stopping.signal,
      log: this.context.log,
    });
    this.upkeep = done;
  }

  /** A rebuild still running stops between batches (the index keeps its old stamp: the next start rebuilds it). */
  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await this.upkeep;
  }
}
