/** Members, invitations, roles, space assignments, external portions and the ownership transfer. */
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  actorRole,
  checkedPortion,
  invalidField,
  requireCapability,
  requireId,
  requireMember,
  requireOpen,
} from './organization-guards.js';
import {
  MAX_MEMBERS,
  type InviteMember,
  type OrganizationCommand,
  type OrganizationEvent,
} from './organization-messages.js';
import { memberOf, type OrganizationContext, type OrganizationState } from './organization-state.js';
import { isRole, isStaff } from './roles.js';

export type MembershipCommand = Extract<
  OrganizationCommand,
  {
    type:
      | 'InviteMember'
      | 'AcceptInvitation'
      | 'RevokeInvitation'
      | 'RemoveMember'
      | 'ChangeRole'
      | 'AssignSpace'
      | 'UnassignSpace'
      | 'SetPortion'
      | 'OfferOwnership'
      | 'AcceptOwnership'
      | 'DeclineOwnership';
  }
>;

/** Decides a membership command on an existing organization. */
export function decideMembership(
  command: MembershipCommand,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  const now = context.now.toISOString();
  switch (command.type) {
    case 'InviteMember':
      return invite(command, state, context);
    case 'AcceptInvitation': {
      requireOpen(state);
      const invitation = Object.hasOwn(state.invitations, command.invitationId)
        ? state.invitations[command.invitationId]
        : undefined;
      if (!invitation || invitation.email !== command.email.trim().toLowerCase()) {
        throw new ServiceError('not_found', 'no such invitation for this account');
      }
      if (memberOf(state, command.accountId)) {
        throw new ServiceError('already_exists', 'this account is already a member');
      }
      return [
        {
          type: 'MemberAdded',
          data: {
            accountId: command.accountId,
            role: invitation.role,
            spaces: [...invitation.spaces],
            portion: invitation.portion,
            invitationId: command.invitationId,
            addedAt: now,
          },
        },
      ];
    }
    case 'RevokeInvitation': {
      requireCapability(state, context, 'members.manage');
      if (!Object.hasOwn(state.invitations, command.invitationId)) {
        throw new ServiceError('not_found', 'no such invitation');
      }
      return [{ type: 'InvitationRevoked', data: { invitationId: command.invitationId } }];
    }
    case 'RemoveMember': {
      requireCapability(state, context, 'members.manage');
      requireOpen(state);
      const member = requireMember(state, command.accountId);
      if (member.role === 'owner') {
        throw new ServiceError('forbidden', 'the owner cannot be removed; transfer the ownership first');
      }
      if (member.role === 'administrator' && actorRole(state, context) !== 'owner') {
        throw new ServiceError('forbidden', 'only the owner removes an administrator');
      }
      return [{ type: 'MemberRemoved', data: { accountId: command.accountId, removedAt: now } }];
    }
    case 'ChangeRole': {
      requireCapability(state, context, 'members.manage');
      requireOpen(state);
      const member = requireMember(state, command.accountId);
      if (!isRole(command.role))
        throw invalidField('role', 'must be administrator, analyst or external_client');
      if (command.role === 'owner' || member.role === 'owner') {
        throw new ServiceError('forbidden', 'the ownership changes only by a transfer the recipient accepts');
      }
      if (
        (command.role === 'administrator' || member.role === 'administrator') &&
        actorRole(state, context) !== 'owner'
      ) {
        throw new ServiceError('forbidden', 'only the owner grants or withdraws the administrator role');
      }
      if (member.role === command.role) return [];
      return [
        {
          type: 'MemberRoleChanged',
          data: { accountId: command.accountId, from: member.role, to: command.role },
        },
      ];
    }
    case 'AssignSpace': {
      requireCapability(state, context, 'members.manage');
      requireOpen(state);
      const member = requireMember(state, command.accountId);
      requireId(command.spaceId, 'space_id');
      if (member.spaces.includes(command.spaceId)) return [];
      return [{ type: 'SpaceAssigned', data: { accountId: command.accountId, spaceId: command.spaceId } }];
    }
    case 'UnassignSpace': {
      requireCapability(state, context, 'members.manage');
      requireOpen(state);
      const member = requireMember(state, command.accountId);
      if (!member.spaces.includes(command.spaceId)) return [];
      return [{ type: 'SpaceUnassigned', data: { accountId: command.accountId, spaceId: command.spaceId } }];
    }
    case 'SetPortion': {
      requireCapability(state, context, 'members.manage');
      requireOpen(state);
      const member = requireMember(state, command.accountId);
      const portion = checkedPortion(command.portion);
      if (member.role !== 'external_client' && portion !== null) {
        throw invalidField('portion', 'a portion applies to external users only');
      }
      if (member.portion === portion) return [];
      return [{ type: 'PortionSet', data: { accountId: command.accountId, portion } }];
    }
    case 'OfferOwnership': {
      requireCapability(state, context, 'ownership.transfer');
      requireOpen(state);
      const recipient = requireMember(state, command.toAccountId);
      if (!isStaff(recipient.role) || command.toAccountId === state.ownerAccountId) {
        throw invalidField('account_id', 'the ownership goes to another staff member');
      }
      return [
        {
          type: 'OwnershipTransferOffered',
          data: { from: state.ownerAccountId!, to: command.toAccountId, offeredAt: now },
        },
      ];
    }
    case 'AcceptOwnership': {
      // Explicit acceptance by the recipient (rule 12): nobody else can accept for them.
      if (!state.ownershipOffer || state.ownershipOffer.to !== context.actorAccountId) {
        throw new ServiceError('not_found', 'no ownership transfer is offered to you');
      }
      requireOpen(state);
      if (!memberOf(state, context.actorAccountId)) throw new ServiceError('not_found', 'no such member');
      return [
        {
          type: 'OwnershipTransferAccepted',
          data: { from: state.ownerAccountId!, to: context.actorAccountId, acceptedAt: now },
        },
      ];
    }
    case 'DeclineOwnership': {
      if (!state.ownershipOffer || state.ownershipOffer.to !== context.actorAccountId) {
        throw new ServiceError('not_found', 'no ownership transfer is offered to you');
      }
      return [{ type: 'OwnershipTransferDeclined', data: { to: context.actorAccountId } }];
    }
  }
}

function invite(
  command: InviteMember,
  state: OrganizationState,
  context: OrganizationContext,
): OrganizationEvent[] {
  requireCapability(state, context, 'members.manage');
  requireOpen(state);
  requireId(command.invitationId, 'invitationId');
  const email = typeof command.email === 'string' ? command.email.trim().toLowerCase() : '';
  if (!/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(email) || email.length > 254) {
    throw invalidField('email', 'must look like name@domain.tld');
  }
  if (!isRole(command.role) || command.role === 'owner') {
    throw invalidField('role', 'must be administrator, analyst or external_client');
  }
  if (command.role === 'administrator' && actorRole(state, context) !== 'owner') {
    throw new ServiceError('forbidden', 'only the owner invites an administrator');
  }
  const portion = checkedPortion(command.portion);
  if (portion !== null && command.role !== 'external_client') {
    throw invalidField('portion', 'a portion applies to external users only');
  }
  if (Object.keys(state.members).length + Object.keys(state.invitations).length >= MAX_MEMBERS) {
    throw new ServiceError(
      'capacity_conflict',
      `an organization holds at most ${MAX_MEMBERS} members and invitations`,
    );
  }
  return [
    {
      type: 'MemberInvited',
      data: {
        invitationId: command.invitationId,
        email,
        role: command.role,
        spaces: [...new Set(command.spaces)],
        portion,
        invitedBy: context.actorAccountId ?? 'operator',
        invitedAt: context.now.toISOString(),
      },
    },
  ];
}
