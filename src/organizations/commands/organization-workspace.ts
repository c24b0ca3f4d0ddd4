import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { OrganizationCommand, OrganizationState } from '../domain/organization.js';
import { CreationRecovery, type InterruptedCreation } from './creation-recovery.js';
import { OrganizationGate, type OrganizationAccess } from './organization-access.js';
import { ApplyOperatorCommand } from './organization-settings.commands.js';
import { SwitchOrganization } from './session-context.commands.js';
import { OrganizationEntry } from './session-context.handlers.js';
import type { WorkspaceSelection } from './workspace-selection.js';

export { RECOVERY_CHECK, type InterruptedCreation } from './creation-recovery.js';
export { approvalFlagStreamId } from './organization-writes.js';

/**
 * What other areas use of the organizations context: its access gate (exposure, SSO), entering an
 * organization (SSO), operator commands and creation recovery (the sweeper, start-up). Every state change runs
 * as a command through the CommandBus; the rules are in the deciders.
 */
@Injectable()
export class OrganizationWorkspace {
  constructor(
    @Inject(OrganizationGate) readonly gate: OrganizationGate,
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(CreationRecovery) private readonly recovery: CreationRecovery,
    @Inject(OrganizationEntry) private readonly entry: OrganizationEntry,
  ) {}

  /** Operator and billing-system actions (approval, checkout completed, deactivation, trial end). */
  operator(
    organizationId: string,
    command: OrganizationCommand,
    envelope: CommandEnvelope,
  ): Promise<{ changed: boolean; state: OrganizationState }> {
    return this.commands.execute(new ApplyOperatorCommand(organizationId, command, envelope));
  }

  /** Restricts the session to the organization; staff start in General research, external clients choose. */
  switchTo(principal: Principal, organizationId: string): Promise<WorkspaceSelection> {
    return this.commands.execute(new SwitchOrganization(principal, organizationId));
  }

  /** Switches a session the gate already admitted (an SSO sign-in) into the organization. */
  enter(sessionId: string, access: OrganizationAccess): Promise<WorkspaceSelection> {
    return this.entry.enter(sessionId, access);
  }

  /** Finishes (or abandons, when nothing moved yet) an interrupted creation of this account. */
  recoverCreation(accountId: string): Promise<void> {
    return this.recovery.recover(accountId);
  }

  /** Every interrupted creation, at start-up; the outcome is shown by /health/ready. */
  recoverAll(): Promise<{ pending: number; failed: number }> {
    return this.recovery.recoverAll();
  }

  interruptedCreations(): Promise<InterruptedCreation[]> {
    return this.recovery.interruptedCreations();
  }

  reportRecovery(pending: number, unfinished: readonly string[]): void {
    this.recovery.reportRecovery(pending, unfinished);
  }

  get recoveryFailing(): boolean {
    return this.recovery.recoveryFailing;
  }
}
