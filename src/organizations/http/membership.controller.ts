import { Body, Inject, Query } from '@nestjs/common';
import type { Principal } from '../../platform/auth/access.js';
import { AS_OF_PARAMETER } from '../../platform/http/openapi/as-of.js';
import { Route } from '../../platform/http/route.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import {
  AcceptInvitation,
  AnswerOwnership,
  InviteMember,
  OfferOwnership,
  RemoveMember,
  SetSpaceAssignment,
  UpdateMember,
} from '../commands/membership.commands.js';
import { OrganizationAsOf } from '../queries/organization-as-of.js';
import { InvitationBody, OwnershipOfferBody, UpdateMemberBody } from './organization.dtos.js';
import { CurrentOrganization } from './organization-access.guard.js';
import { OrganizationHandlers } from './organization-handlers.js';
import {
  MANAGE,
  manageWith,
  OrganizationRoutes,
  readWith,
  CurrentCaller,
  type Caller,
} from './organization-route.js';
import {
  ACCEPTED_INVITATION,
  INVITATION,
  MEMBERS,
  ORGANIZATION,
  OWNERSHIP_OFFERED,
} from './organizations.openapi.js';

/** Members, invitations, space assignments and the ownership transfer. */
@OrganizationRoutes()
export class MembershipController extends OrganizationHandlers {
  @Inject(OrganizationAsOf) private readonly asOf!: OrganizationAsOf;

  private async overview(principal: Principal, orgId: string) {
    return this.queries.overview(await this.gate.require(principal, orgId));
  }

  @Route({
    method: 'GET',
    path: ':orgId/members',
    access: readWith('members.read'),
    summary: 'Members (and, for managers, invitations, assignments and portions)',
    answer: { status: 200, schema: MEMBERS },
    errors: [422],
    query: AS_OF_PARAMETER,
  })
  async members(@CurrentOrganization() access: OrganizationAccess, @Query('as_of') asOf?: unknown) {
    if (asOf === undefined) return this.queries.members(access);
    const past = await this.asOf.access(access, asOf);
    return { ...(await this.queries.members(past.access)), as_of: past.point };
  }

  @Route({
    method: 'POST',
    path: ':orgId/invitations',
    access: manageWith('members.manage'),
    summary: 'Invite a member by email with a role, spaces and (external users) a portion',
    answer: { status: 201, schema: INVITATION, description: 'Invited' },
    errors: [409],
  })
  async invite(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: InvitationBody,
  ) {
    const { invitationId } = await this.commands.execute(
      new InviteMember(
        principal,
        orgId,
        body.email,
        body.role,
        body.space_ids ?? [],
        body.portion ?? null,
        envelope,
      ),
    );
    return { id: invitationId, email: body.email.trim().toLowerCase(), role: body.role };
  }

  @Route({
    method: 'POST',
    path: ':orgId/invitations/:invitationId/accept',
    access: MANAGE,
    summary: 'Accept an invitation sent to this account',
    answer: {
      status: 200,
      schema: ACCEPTED_INVITATION,
      description: 'A member now: the organization, or where staff sign in (SSO)',
    },
    errors: [403, 409],
  })
  async accept(
    @CurrentCaller() { principal, envelope, orgId, invitationId }: Caller<'orgId' | 'invitationId'>,
  ) {
    const accepted = await this.commands.execute(
      new AcceptInvitation(principal, orgId, invitationId, envelope),
    );
    if (accepted.ssoSignInUrl) {
      // A member now, but staff of an organization enforcing SSO enter it through its provider (rule 12).
      return { id: orgId, accepted: true, sso_required: true, sign_in_url: accepted.ssoSignInUrl };
    }
    return this.overview(principal, orgId);
  }

  @Route({
    method: 'PATCH',
    path: ':orgId/members/:accountId',
    access: manageWith('members.manage'),
    summary: "Change a member's role or an external user's portion",
    answer: { status: 200, schema: MEMBERS },
    errors: [409],
  })
  async updateMember(
    @CurrentCaller() { principal, envelope, orgId, accountId }: Caller<'orgId' | 'accountId'>,
    @Body() body: UpdateMemberBody,
  ) {
    await this.commands.execute(
      new UpdateMember(
        principal,
        orgId,
        accountId,
        {
          ...(body.role ? { role: body.role } : {}),
          ...('portion' in body ? { portion: body.portion ?? null } : {}),
        },
        envelope,
      ),
    );
    return this.queries.members(await this.gate.require(principal, orgId, { capability: 'members.read' }));
  }

  @Route({
    method: 'DELETE',
    path: ':orgId/members/:accountId',
    access: manageWith('members.manage'),
    summary: 'Remove a member: their access ends at once',
    answer: { status: 204, empty: 'Removed' },
    errors: [409],
  })
  async removeMember(
    @CurrentCaller() { principal, envelope, orgId, accountId }: Caller<'orgId' | 'accountId'>,
  ) {
    await this.commands.execute(new RemoveMember(principal, orgId, accountId, envelope));
  }

  @Route({
    method: 'PUT',
    path: ':orgId/members/:accountId/spaces/:spaceId',
    access: manageWith('members.manage'),
    summary: 'Assign a space to a member',
    answer: { status: 204, empty: 'Assigned' },
    errors: [409],
  })
  async assign(
    @CurrentCaller()
    { principal, envelope, orgId, accountId, spaceId }: Caller<'orgId' | 'accountId' | 'spaceId'>,
  ) {
    await this.commands.execute(new SetSpaceAssignment(principal, orgId, accountId, spaceId, true, envelope));
  }

  @Route({
    method: 'DELETE',
    path: ':orgId/members/:accountId/spaces/:spaceId',
    access: manageWith('members.manage'),
    summary: "Remove a space assignment: that space's access ends at once",
    answer: { status: 204, empty: 'Unassigned' },
    errors: [409],
  })
  async unassign(
    @CurrentCaller()
    { principal, envelope, orgId, accountId, spaceId }: Caller<'orgId' | 'accountId' | 'spaceId'>,
  ) {
    await this.commands.execute(
      new SetSpaceAssignment(principal, orgId, accountId, spaceId, false, envelope),
    );
  }

  @Route({
    method: 'POST',
    path: ':orgId/ownership-transfer',
    access: manageWith('ownership.transfer'),
    summary: 'Offer the ownership to a staff member (owner only); the recipient must accept',
    answer: { status: 202, schema: OWNERSHIP_OFFERED, description: 'Offered: the recipient must accept' },
    errors: [409],
  })
  async offerOwnership(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: OwnershipOfferBody,
  ) {
    await this.commands.execute(new OfferOwnership(principal, orgId, body.account_id, envelope));
    return { offered_to: body.account_id };
  }

  @Route({
    method: 'POST',
    path: ':orgId/ownership-transfer/accept',
    access: manageWith('organization.read'),
    summary: 'Accept the ownership offered to you',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [409],
  })
  async acceptOwnership(@CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>) {
    await this.commands.execute(new AnswerOwnership(principal, orgId, true, envelope));
    return this.overview(principal, orgId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/ownership-transfer/decline',
    access: manageWith('organization.read'),
    summary: 'Decline the ownership offered to you',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [409],
  })
  async declineOwnership(@CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>) {
    await this.commands.execute(new AnswerOwnership(principal, orgId, false, envelope));
    return this.overview(principal, orgId);
  }
}
