import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { accountDecider, accountStreamId } from '../../accounts/domain/account.js';
import { SessionStore } from '../../platform/auth/sessions.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import type { OrganizationCommand } from '../domain/organization.js';
import { isRole, isStaff } from '../domain/roles.js';
import { ssoSignInUrl } from '../sso/domain/sso.js';
import {
  AcceptInvitation,
  AnswerOwnership,
  InviteMember,
  OfferOwnership,
  RemoveMember,
  SetSpaceAssignment,
  UpdateMember,
} from './membership.commands.js';
import { OrganizationGate } from './organization-access.js';
import { OrganizationStream, requireMemberId } from './organization-writes.js';
import { StaffSeats } from './staff-seats.js';

@CommandHandler(InviteMember)
export class InviteMemberHandler implements ICommandHandler<InviteMember> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
  ) {}

  async execute(command: InviteMember): Promise<{ invitationId: string }> {
    const { principal, organizationId } = command;
    const access = await this.gate.require(principal, organizationId, { open: true });
    for (const spaceId of command.spaces) await this.gate.space(access, spaceId);
    const invitationId = randomUUID();
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      {
        type: 'InviteMember',
        invitationId,
        email: command.email,
        role: command.role,
        spaces: command.spaces,
        portion: command.portion,
      },
      command.envelope,
    );
    return { invitationId };
  }
}

@CommandHandler(AcceptInvitation)
export class AcceptInvitationHandler implements ICommandHandler<AcceptInvitation> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
    @Inject(StaffSeats) private readonly seats: StaffSeats,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
  ) {}

  async execute({
    principal,
    organizationId,
    invitationId,
    envelope,
  }: AcceptInvitation): Promise<{ ssoSignInUrl: string | null }> {
    if (principal.via !== 'session') throw new ServiceError('not_found', 'no such invitation');
    if (principal.organizationId && principal.organizationId !== organizationId) {
      throw new ServiceError('not_found', 'no such invitation');
    }
    const { state } = await this.gate.organization(organizationId);
    const account = await this.writer.load(accountStreamId(principal.accountId), accountDecider);
    if (!state.exists || !account.state.registered || !Object.hasOwn(state.invitations, invitationId)) {
      throw new ServiceError('not_found', 'no such invitation');
    }
    if (state.invitations[invitationId]!.email !== account.state.email)
      throw new ServiceError('not_found', 'no such invitation');
    const role = state.invitations[invitationId]!.role;
    const accept: OrganizationCommand = {
      type: 'AcceptInvitation',
      invitationId,
      accountId: principal.accountId,
      email: account.state.email,
    };
    if (isStaff(role)) {
      await this.seats.becomeStaff(
        principal.accountId,
        organizationId,
        [accept],
        principal.accountId,
        envelope,
      );
    } else {
      await this.organizations.decide(organizationId, principal.accountId, accept, envelope);
    }
    // Rule 12: the membership is recorded, but staff of an organization enforcing SSO enter it through its
    // provider, not with the password session that accepted.
    const refusal =
      principal.organizationId === organizationId
        ? null
        : await this.gate.ssoEntryRefusal(organizationId, role);
    return { ssoSignInUrl: refusal ? ssoSignInUrl(organizationId) : null };
  }
}

@CommandHandler(UpdateMember)
export class UpdateMemberHandler implements ICommandHandler<UpdateMember> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
    @Inject(StaffSeats) private readonly seats: StaffSeats,
    @Inject(SessionStore) private readonly sessions: SessionStore,
  ) {}

  async execute({ principal, organizationId, accountId, change, envelope }: UpdateMember): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    requireMemberId(access.state, accountId);
    const commands: OrganizationCommand[] = [
      ...(change.role !== undefined ? [{ type: 'ChangeRole' as const, accountId, role: change.role }] : []),
      ...(change.portion !== undefined
        ? [{ type: 'SetPortion' as const, accountId, portion: change.portion }]
        : []),
    ];
    const before = access.state.members[accountId]!.role;
    const becomesStaff =
      change.role !== undefined && !isStaff(before) && isRole(change.role) && isStaff(change.role);
    if (becomesStaff) {
      await this.seats.becomeStaff(accountId, organizationId, commands, principal.accountId, envelope);
    } else {
      // All-or-nothing: a refused portion leaves no changed role behind.
      await this.organizations.decideAll(organizationId, principal.accountId, commands, envelope);
    }
    // An external client made staff under SSO enforcement signs in again, through the provider (rule 12).
    if (
      change.role !== undefined &&
      !isStaff(before) &&
      (await this.gate.ssoEntryRefusal(organizationId, change.role))
    ) {
      await this.sessions.revokeAllFor(accountId, { organizationId });
    }
  }
}

@CommandHandler(RemoveMember)
export class RemoveMemberHandler implements ICommandHandler<RemoveMember> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
    @Inject(SessionStore) private readonly sessions: SessionStore,
  ) {}

  async execute({ principal, organizationId, accountId, envelope }: RemoveMember): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    requireMemberId(access.state, accountId);
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      { type: 'RemoveMember', accountId },
      envelope,
    );
    // Removal revokes access at once: the gate folds the stream. The member's sessions switched to this
    // organization end too; sessions in another organization (an external client's access there) are untouched.
    await this.sessions.revokeAllFor(accountId, { organizationId });
  }
}

@CommandHandler(SetSpaceAssignment)
export class SetSpaceAssignmentHandler implements ICommandHandler<SetSpaceAssignment> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
  ) {}

  async execute(command: SetSpaceAssignment): Promise<void> {
    const { principal, organizationId, accountId, spaceId } = command;
    const access = await this.gate.require(principal, organizationId, { open: true });
    requireMemberId(access.state, accountId);
    await this.gate.space(access, spaceId);
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      command.assigned
        ? { type: 'AssignSpace', accountId, spaceId }
        : { type: 'UnassignSpace', accountId, spaceId },
      command.envelope,
    );
  }
}

@CommandHandler(OfferOwnership)
export class OfferOwnershipHandler implements ICommandHandler<OfferOwnership> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
  ) {}

  async execute({ principal, organizationId, toAccountId, envelope }: OfferOwnership): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    requireMemberId(access.state, toAccountId);
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      { type: 'OfferOwnership', toAccountId },
      envelope,
    );
  }
}

@CommandHandler(AnswerOwnership)
export class AnswerOwnershipHandler implements ICommandHandler<AnswerOwnership> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationStream) private readonly organizations: OrganizationStream,
  ) {}

  async execute({ principal, organizationId, accept, envelope }: AnswerOwnership): Promise<void> {
    await this.gate.require(principal, organizationId);
    await this.organizations.decide(
      organizationId,
      principal.accountId,
      accept ? { type: 'AcceptOwnership' } : { type: 'DeclineOwnership' },
      envelope,
    );
  }
}

export const membershipHandlers = [
  InviteMemberHandler,
  AcceptInvitationHandler,
  UpdateMemberHandler,
  RemoveMemberHandler,
  SetSpaceAssignmentHandler,
  OfferOwnershipHandler,
  AnswerOwnershipHandler,
];
