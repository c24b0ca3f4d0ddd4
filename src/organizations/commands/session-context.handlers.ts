import { Inject, Injectable } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SessionStore } from '../../platform/auth/sessions.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { caseDecider, caseStreamId } from '../domain/case.js';
import { isStaff } from '../domain/roles.js';
import { requireSelectable } from '../domain/space.js';
import { isId, OrganizationGate, type OrganizationAccess } from './organization-access.js';
import { SelectWorkspaceContext, SwitchOrganization } from './session-context.commands.js';
import { WorkspaceSelections, type WorkspaceSelection } from './workspace-selection.js';

/** Switches a session into the organization: staff start in General research, external clients choose. */
@Injectable()
export class OrganizationEntry {
  constructor(
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(WorkspaceSelections) private readonly selections: WorkspaceSelections,
  ) {}

  async enter(sessionId: string, access: OrganizationAccess): Promise<WorkspaceSelection> {
    await this.sessions.switchOrganization(sessionId, access.organizationId);
    const spaceId = isStaff(access.member.role) ? access.state.generalSpaceId : null;
    return this.selections.set(sessionId, access.organizationId, { spaceId, caseId: null });
  }
}

@CommandHandler(SwitchOrganization)
export class SwitchOrganizationHandler implements ICommandHandler<SwitchOrganization> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationEntry) private readonly entry: OrganizationEntry,
  ) {}

  async execute({ principal, organizationId }: SwitchOrganization): Promise<WorkspaceSelection> {
    // The gate refuses a password session of staff entering an organization that enforces SSO (rule 12).
    const access = await this.gate.require(principal, organizationId);
    if (!principal.sessionId) throw new ServiceError('unauthenticated', 'a browser session is needed');
    return this.entry.enter(principal.sessionId, access);
  }
}

@CommandHandler(SelectWorkspaceContext)
export class SelectWorkspaceContextHandler implements ICommandHandler<SelectWorkspaceContext> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(WorkspaceSelections) private readonly selections: WorkspaceSelections,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute(command: SelectWorkspaceContext): Promise<WorkspaceSelection> {
    const { principal, organizationId, spaceId } = command;
    const access = await this.gate.require(principal, organizationId);
    if (!principal.sessionId || principal.organizationId !== organizationId) {
      throw new ServiceError('invalid_input', 'switch the session to this organization first', {
        fields: [{ field: 'session', problems: ['switch to the organization first'] }],
      });
    }
    const space = await this.gate.space(access, spaceId);
    requireSelectable(space.state);
    let caseId: string | null = null;
    if (command.caseId) {
      if (!isId(command.caseId)) throw new ServiceError('not_found', 'no such case');
      const found = await this.writer.load(caseStreamId(command.caseId), caseDecider);
      if (
        !found.state.exists ||
        found.state.organizationId !== organizationId ||
        found.state.spaceId !== spaceId
      ) {
        throw new ServiceError('not_found', 'no such case in this space');
      }
      caseId = command.caseId;
    }
    const current = await this.selections.get(principal.sessionId, organizationId);
    // Changing space clears the selected case (rule 4) unless the same request picks one in the new space.
    const keepCase = current?.spaceId === spaceId && caseId === null ? current.caseId : caseId;
    return this.selections.set(principal.sessionId, organizationId, { spaceId, caseId: keepCase });
  }
}

export const sessionContextHandlers = [SwitchOrganizationHandler, SelectWorkspaceContextHandler];
