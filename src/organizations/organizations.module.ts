import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { CreditLedger } from '../credits/commands/credit-ledger.js';
import { CreditsModule } from '../credits/credits.module.js';
import { ORGANIZATION_SERVICE_CREDITS } from '../credits/http/service-credits.interceptor.js';
import { PERSONAL_RESEARCH_GATE } from '../platform/auth/access.js';
import { SessionStore } from '../platform/auth/sessions.js';
import { ServiceContext } from '../platform/service-context.js';
import { RESEARCH_CONTEXTS } from '../search/research-context.js';
import { OrganizationResearchContexts } from './commands/organization-research-contexts.js';
import { OrganizationWorkspace } from './commands/organization-workspace.js';
import { DnsTxtResolver, type TxtResolver } from './dns-txt-resolver.js';
import { CasesController } from './http/cases.controller.js';
import { MembershipController } from './http/membership.controller.js';
import { OrganizationCreationController } from './http/organization-creation.controller.js';
import { OrganizationController } from './http/organization.controller.js';
import { ReviewQueueController } from './http/review-queue.controller.js';
import { SpacesController } from './http/spaces.controller.js';
import { OrganizationQueries } from './queries/organization-queries.js';

export const TXT_RESOLVER = Symbol('TxtResolver');

@Module({
  imports: [CreditsModule],
  // In the order their routes are documented.
  controllers: [
    OrganizationCreationController,
    OrganizationController,
    MembershipController,
    SpacesController,
    CasesController,
    ReviewQueueController,
  ],
  providers: [
    {
      provide: TXT_RESOLVER,
      inject: [ServiceContext],
      useFactory: (context: ServiceContext): TxtResolver =>
        new DnsTxtResolver({
          ...(context.config.dnsServers ? { servers: context.config.dnsServers } : {}),
          timeoutMs: context.config.dnsTimeoutMs,
        }),
    },
    {
      provide: OrganizationWorkspace,
      inject: [ServiceContext, CreditLedger, TXT_RESOLVER, SessionStore],
      useFactory: (context: ServiceContext, ledger: CreditLedger, dns: TxtResolver, sessions: SessionStore) =>
        new OrganizationWorkspace(context, ledger, dns, sessions),
    },
    {
      provide: OrganizationQueries,
      inject: [ServiceContext, OrganizationWorkspace, CreditLedger],
      useFactory: (context: ServiceContext, workspace: OrganizationWorkspace, ledger: CreditLedger) =>
        new OrganizationQueries(context, workspace, ledger),
    },
    {
      provide: RESEARCH_CONTEXTS,
      inject: [OrganizationWorkspace],
      useFactory: (workspace: OrganizationWorkspace) => new OrganizationResearchContexts(workspace),
    },
    // The guard's rule-1 check on personal data routes: the same object that resolves research contexts.
    { provide: PERSONAL_RESEARCH_GATE, useExisting: RESEARCH_CONTEXTS },
    // What a member sees in the service_credits of an organization session (rule 8).
    { provide: ORGANIZATION_SERVICE_CREDITS, useExisting: OrganizationQueries },
  ],
  exports: [OrganizationWorkspace, RESEARCH_CONTEXTS, PERSONAL_RESEARCH_GATE, ORGANIZATION_SERVICE_CREDITS],
})
export class OrganizationsModule implements OnApplicationBootstrap {
  constructor(
    @Inject(OrganizationWorkspace) private readonly workspace: OrganizationWorkspace,
    @Inject(ServiceContext) private readonly context: ServiceContext,
  ) {}

  /**
   * Finishes account transitions a crash interrupted (each step is idempotent). Failures are logged and shown
   * by /health/ready; they do not stop start-up (the rest of the service is unaffected).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.context.projectionsFollowed) return;
    await this.workspace.recoverAll();
  }
}
