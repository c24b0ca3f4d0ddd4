import { Inject, Module, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { AccountDirectory } from '../accounts/queries/account-directory.js';
import { CLOCK, type Clock } from '../platform/clock/clock.js';
import { RATE_LIMITER, type RateLimiter } from '../platform/rate-limit/rate-limiter.port.js';
import { SERVICE_LOG, type LogFunction } from '../platform/service-context.js';
import {
  OBSERVATION_INDEX,
  type ObservationIndex,
} from '../search/observation-index/observation-index.port.js';
import { CatalogueService } from './catalogue-service.js';
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
      inject: [CatalogueService, OBSERVATION_INDEX, VulnerabilityRefs, AccountDirectory, RATE_LIMITER, CLOCK],
      useFactory: (
        catalogue: CatalogueService,
        observations: ObservationIndex,
        refs: VulnerabilityRefs,
        accounts: AccountDirectory,
        rateLimiter: RateLimiter,
        clock: Clock,
      ) => new EnrichmentHandler(catalogue, observations, refs, accounts, rateLimiter, clock),
    },
  ],
  exports: [EnrichmentHandler],
})
export class CatalogueModule implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly stopping = new AbortController();
  private upkeep: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(CatalogueService) private readonly catalogue: CatalogueService,
    @Inject(OBSERVATION_INDEX) private readonly observations: ObservationIndex,
    @Inject(SERVICE_LOG) private readonly log: LogFunction,
  ) {}

  /**
   * An association index built by another matcher version is rebuilt in the background (cve:/kev: searches keep
   * answering from the old associations meanwhile); /health/ready shows it under `catalogue`.
   */
  async onApplicationBootstrap(): Promise<void> {
    const { done } = await this.catalogue.upkeepIndexAtStart(this.observations, {
      signal: this.stopping.signal,
      log: this.log,
    });
    this.upkeep = done;
  }

  /** A rebuild still running stops between batches (the index keeps its old stamp: the next start rebuilds it). */
  async onModuleDestroy(): Promise<void> {
    this.stopping.abort();
    await this.upkeep;
  }
}
