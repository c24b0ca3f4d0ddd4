import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { OrganizationCommand, OrganizationState, PaidOrganizationPlan } from '../domain/organization.js';

/** The owner renames the organization (never a new trial). */
export class RenameOrganization extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly name: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Rule 5: the owner proves the domain by its DNS TXT record; the trial starts once per domain and account. */
export class VerifyOrganizationDomain extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** The owner chooses the paid plan checkout completes. */
export class RequestOrganizationPlan extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly plan: PaidOrganizationPlan,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Operator and billing-system actions (approval, checkout completed, deactivation, trial end). */
export class ApplyOperatorCommand extends Command<{ changed: boolean; state: OrganizationState }> {
  constructor(
    readonly organizationId: string,
    readonly command: OrganizationCommand,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Operators flag an account whose trial needs administrator approval (anti-abuse); false when already. */
export class RequireTrialApproval extends Command<{ flagged: boolean }> {
  constructor(
    readonly accountId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
