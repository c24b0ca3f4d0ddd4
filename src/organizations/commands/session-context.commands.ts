import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { WorkspaceSelection } from './workspace-selection.js';

/** Restricts the session to the organization; staff start in General research, external clients choose. */
export class SwitchOrganization extends Command<WorkspaceSelection> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
  ) {
    super();
  }
}

/** Selects a space of the switched organization (and optionally a case of it); changing space clears the case. */
export class SelectWorkspaceContext extends Command<WorkspaceSelection> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly spaceId: string,
    readonly caseId: string | null,
  ) {
    super();
  }
}
