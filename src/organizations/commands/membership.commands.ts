import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { Role } from '../domain/roles.js';

/** Invite a member by email with a role, spaces and (external clients) a portion. */
export class InviteMember extends Command<{ invitationId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly email: string,
    readonly role: Role,
    readonly spaces: string[],
    readonly portion: number | null,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * The invitee (not a member yet) accepts with the account whose email was invited. `ssoSignInUrl`: where staff
 * of an organization enforcing SSO sign in (rule 12), else null.
 */
export class AcceptInvitation extends Command<{ ssoSignInUrl: string | null }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly invitationId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** A member's role and (external clients) portion; both or neither change. */
export class UpdateMember extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly accountId: string,
    readonly change: { readonly role?: Role; readonly portion?: number | null },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Removal ends the member's access at once, its sessions switched to the organization included. */
export class RemoveMember extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly accountId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Assigns a space to a member, or removes the assignment (`assigned: false`). */
export class SetSpaceAssignment extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly accountId: string,
    readonly spaceId: string,
    readonly assigned: boolean,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** The owner offers the ownership to a staff member, who must accept. */
export class OfferOwnership extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly toAccountId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** The member the ownership was offered to accepts or declines it. */
export class AnswerOwnership extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly accept: boolean,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
