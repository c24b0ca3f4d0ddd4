import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module.js';
import { ORGANIZATION_SERVICE_CREDITS } from '../credits/http/service-credits.interceptor.js';
import { PERSONAL_RESEARCH_GATE } from '../platform/auth/access.js';
import { APP_CONFIG, type AppConfig } from '../platform/config/app-config.js';
import { SERVICE_LOG, ServiceContext } from '../platform/service-context.js';
import { RESEARCH_CONTEXTS } from '../search/research-context.js';
import { casesHandlers } from './commands/cases.handlers.js';
import { creationHandlers } from './commands/creation.handlers.js';
import { CreationProcess } from './commands/creation-process.js';
import { CreationRecovery, ORGANIZATION_LOG } from './commands/creation-recovery.js';
import { membershipHandlers } from './commands/membership.handlers.js';
import { OrganizationGate } from './commands/organization-access.js';
import { OrganizationResearchContexts } from './commands/organization-research-contexts.js';
import { organizationSettingsHandlers, TrialCredits } from './commands/organization-settings.handlers.js';
import { OrganizationWorkspace } from './commands/organization-workspace.js';
import { OrganizationStream } from './commands/organization-writes.js';
import { reviewQueueHandlers } from './commands/review-queue.handlers.js';
import { OrganizationEntry, sessionContextHandlers } from './commands/session-context.handlers.js';
import { spacesHandlers } from './commands/spaces.handlers.js';
import { StaffSeats } from './commands/staff-seats.js';
import { WorkspaceSelections } from './commands/workspace-selection.js';
import { DnsTxtResolver, TXT_RESOLVER, type TxtResolver } from './dns-txt-resolver.js';
import { AuditController } from './http/audit.controller.js';
import { CasesController } from './http/cases.controller.js';
import { MembershipController } from './http/membership.controller.js';
import { OrganizationCreationController } from './http/organization-creation.controller.js';
import { OrganizationController } from './http/organization.controller.js';
import { ReviewQueueController } from './http/review-queue.controller.js';
import { SpacesController } from './http/spaces.controller.js';
import { CreationPreviews } from './queries/creation-preview.js';
import { OrganizationAsOf } from './queries/organization-as-of.js';
import { OrganizationAuditLog } from './queries/organization-audit.js';
import { OrganizationQueries } from './queries/organization-queries.js';

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
    AuditController,
  ],
  providers: [
    {
      provide: TXT_RESOLVER,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): TxtResolver =>
        new DnsTxtResolver({
          ...(config.dnsServers ? { servers: config.dnsServers } : {}),
          timeoutMs: config.dnsTimeoutMs,
        }),
    },
    { provide: ORGANIZATION_LOG, useExisting: SERVICE_LOG },
    OrganizationGate,
    WorkspaceSelections,
    OrganizationStream,
    CreationPreviews,
    CreationProcess,
    CreationRecovery,
    TrialCredits,
    StaffSeats,
    OrganizationEntry,
    OrganizationWorkspace,
    OrganizationQueries,
    OrganizationAuditLog,
    OrganizationAsOf,
    ...creationHandlers,
    ...organizationSettingsHandlers,
    ...membershipHandlers,
    ...sessionContextHandlers,
    ...spacesHandlers,
    ...casesHandlers,
    ...reviewQueueHandlers,
    { provide: RESEARCH_CONTEXTS, useClass: OrganizationResearchContexts },
    // The guard's rule-1 check on personal data routes: the same object that resolves research contexts.
    { provide: PERSONAL_RESEARCH_GATE, useExisting: RESEARCH_CONTEXTS },
    // What a member sees in the service_credits of an organization session (rule 8).
    { provide: ORGANIZATION_SERVICE_CREDITS, useExisting: OrganizationQueries },
  ],
  exports: [
    OrganizationWorkspace,
    // Other areas' organization routes (exposure, SSO) use the same access layer: @UseGuards(OrganizationAccessGuard).
    OrganizationGate,
    RESEARCH_CONTEXTS,
    PERSONAL_RESEARCH_GATE,
    ORGANIZATION_SERVICE_CREDITS,
  ],
})
export class OrganizationsModule implements OnApplicationBootstrap {
  constructor(
    @Inject(CreationRecovery) private readonly recovery: CreationRecovery,
    @Inject(ServiceContext) private readonly context: ServiceContext,
  ) {}

  /**
   * Finishes account transitions a crash interrupted (each step is idempotent). Failures are logged and shown
   * by /health/ready; they do not stop start-up (the rest of the service is unaffected).
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.context.projectionsFollowed) return;
    await this.recovery.recoverAll();
  }
}
