import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Put,
  Req,
} from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ifMatchVersion } from '../../platform/http/if-match.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { OrganizationWorkspace } from '../commands/organization-workspace.js';
import { OrganizationQueries } from '../queries/organization-queries.js';
import {
  AddReviewItemBody,
  BillingBody,
  CreateOrganizationBody,
  CreateSpaceBody,
  InvitationBody,
  MonitoringBody,
  OpenCaseBody,
  OwnershipOfferBody,
  PrepareComparisonBody,
  RenameOrganizationBody,
  SaveEvidenceBody,
  SelectContextBody,
  UpdateMemberBody,
  UpdateReviewItemBody,
  UpdateSpaceBody,
} from './organization.dtos.js';
import { IF_MATCH } from '../../platform/http/openapi/if-match.js';
import { ApiEmpty, ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import {
  ACCEPTED_INVITATION,
  CASE,
  CASES,
  COMPARISON,
  CREATED_ID,
  CREATION_PREVIEW,
  EVIDENCE,
  INVITATION,
  MEMBERS,
  ORGANIZATION,
  ORGANIZATION_CREDITS,
  ORGANIZATIONS,
  OWNERSHIP_OFFERED,
  PUBLISHED_VIEW,
  REVIEW_ITEM,
  REVIEW_QUEUE,
  SESSION_CONTEXT,
  SHARE,
  SPACE,
  SPACES,
  SWITCHED,
} from './organizations.openapi.js';

const READ = { surface: 'session', permission: 'organization.read' } as const;
const MANAGE = { surface: 'session', permission: 'organization.manage' } as const;

/**
 * Organization workspace routes (browser session, CSRF on unsafe methods). Thin: the gate checks membership,
 * role and status; the deciders hold the rules.
 */
@ApiTags('organizations')
@Controller('api/v2/organizations')
export class OrganizationsController {
  constructor(
    @Inject(OrganizationWorkspace) private readonly workspace: OrganizationWorkspace,
    @Inject(OrganizationQueries) private readonly queries: OrganizationQueries,
  ) {}

  private envelope(principal: Principal, request: FastifyRequest) {
    return envelopeFor(principal, String(request.id));
  }

  // ---- Creation ----

  @Get('creation-preview')
  @Access(READ)
  @ApiOperation({ summary: 'Whether this account may create an organization, and the credits it would move' })
  @ApiJson(200, CREATION_PREVIEW)
  preview(@CurrentPrincipal() principal: Principal) {
    return this.workspace.creationPreview(principal.accountId, principal.organizationId ?? null);
  }

  @Post()
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Create an organization (trial with a verified domain, or subscription)' })
  @ApiJson(201, ORGANIZATION, 'Created')
  @ApiErrors(403, 409)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateOrganizationBody,
    @Req() request: FastifyRequest,
  ) {
    const organizationId = await this.workspace.create(
      principal,
      {
        name: body.name,
        start: body.start ?? 'trial',
        domain: body.domain ?? null,
        expectedTransfer: body.expected_transfer,
      },
      this.envelope(principal, request),
    );
    return this.queries.overview(await this.workspace.gate.require(principal, organizationId));
  }

  @Get()
  @Access(READ)
  @ApiOperation({ summary: "The caller's organizations (only the switched one for an organization session)" })
  @ApiJson(200, ORGANIZATIONS)
  list(@CurrentPrincipal() principal: Principal) {
    return this.queries.list(principal);
  }

  // ---- Organization ----

  @Get(':orgId')
  @Access(READ)
  @ApiOperation({
    summary: 'Overview: status, billing action, role, spaces; starts no collection, spends nothing',
  })
  @ApiJson(200, ORGANIZATION)
  @ApiErrors(403)
  async overview(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.overview(await this.workspace.gate.require(principal, orgId));
  }

  @Patch(':orgId')
  @Access(MANAGE)
  @ApiOperation({ summary: 'Rename (never a new trial)' })
  @ApiJson(200, ORGANIZATION)
  @ApiErrors(403, 409)
  async rename(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: RenameOrganizationBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.rename(principal, orgId, body.name, this.envelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Post(':orgId/verification')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Check the DNS TXT record and start the trial (owner)' })
  @ApiJson(200, ORGANIZATION)
  @ApiErrors(403, 409)
  async verify(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.verifyDomain(principal, orgId, this.envelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Put(':orgId/billing')
  @Access(MANAGE)
  @ApiOperation({ summary: 'Choose the paid plan checkout completes (owner only)' })
  @ApiJson(200, ORGANIZATION)
  @ApiErrors(403, 409)
  async billing(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: BillingBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.requestPlan(principal, orgId, body.plan, this.envelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Get(':orgId/credits')
  @Access(READ)
  @ApiOperation({ summary: 'Managers: the shared balance; other members: their permitted envelope' })
  @ApiJson(200, ORGANIZATION_CREDITS)
  @ApiErrors(403)
  async credits(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.credits(await this.workspace.gate.require(principal, orgId), principal);
  }

  // ---- Session context ----

  @Post(':orgId/switch')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Restrict this session to the organization (staff start in General research)' })
  @ApiJson(200, SWITCHED)
  @ApiErrors(403)
  async switchTo(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    const selection = await this.workspace.switchTo(principal, orgId);
    return { organization_id: orgId, space_id: selection.spaceId, case_id: selection.caseId };
  }

  @Get(':orgId/context')
  @Access(READ)
  @ApiOperation({ summary: 'The selected space and case of this session' })
  @ApiJson(200, SESSION_CONTEXT)
  @ApiErrors(403)
  async context(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    await this.workspace.gate.require(principal, orgId);
    const selection = principal.sessionId
      ? await this.workspace.selections.get(principal.sessionId, orgId)
      : null;
    return {
      organization_id: orgId,
      switched: principal.organizationId === orgId,
      space_id: selection?.spaceId ?? null,
      case_id: selection?.caseId ?? null,
    };
  }

  @Put(':orgId/context')
  @Access(MANAGE)
  @ApiOperation({ summary: 'Select a space (and optionally a case of it); changing space clears the case' })
  @ApiJson(200, SESSION_CONTEXT)
  @ApiErrors(403, 409)
  async select(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: SelectContextBody,
  ) {
    const selection = await this.workspace.select(principal, orgId, {
      spaceId: body.space_id,
      caseId: body.case_id ?? null,
    });
    return { organization_id: orgId, switched: true, space_id: selection.spaceId, case_id: selection.caseId };
  }

  // ---- Members ----

  @Get(':orgId/members')
  @Access(READ)
  @ApiOperation({ summary: 'Members (and, for managers, invitations, assignments and portions)' })
  @ApiJson(200, MEMBERS)
  @ApiErrors(403)
  async members(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.members(
      await this.workspace.gate.require(principal, orgId, { capability: 'members.read' }),
    );
  }

  @Post(':orgId/invitations')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Invite a member by email with a role, spaces and (external users) a portion' })
  @ApiJson(201, INVITATION, 'Invited')
  @ApiErrors(403, 409)
  async invite(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: InvitationBody,
    @Req() request: FastifyRequest,
  ) {
    const id = await this.workspace.invite(
      principal,
      orgId,
      { email: body.email, role: body.role, spaces: body.space_ids ?? [], portion: body.portion ?? null },
      this.envelope(principal, request),
    );
    return { id, email: body.email.trim().toLowerCase(), role: body.role };
  }

  @Post(':orgId/invitations/:invitationId/accept')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Accept an invitation sent to this account' })
  @ApiJson(200, ACCEPTED_INVITATION, 'A member now: the organization, or where staff sign in (SSO)')
  @ApiErrors(403, 409)
  async accept(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('invitationId') invitationId: string,
    @Req() request: FastifyRequest,
  ) {
    const accepted = await this.workspace.acceptInvitation(
      principal,
      orgId,
      invitationId,
      this.envelope(principal, request),
    );
    if (accepted.ssoSignInUrl) {
      // A member now, but staff of an organization enforcing SSO enter it through its provider (rule 12).
      return {
        id: orgId,
        accepted: true,
        sso_required: true,
        sign_in_url: accepted.ssoSignInUrl,
      };
    }
    return this.overview(principal, orgId);
  }

  @Patch(':orgId/members/:accountId')
  @Access(MANAGE)
  @ApiOperation({ summary: "Change a member's role or an external user's portion" })
  @ApiJson(200, MEMBERS)
  @ApiErrors(403, 409)
  async updateMember(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('accountId') accountId: string,
    @Body() body: UpdateMemberBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.updateMember(
      principal,
      orgId,
      accountId,
      {
        ...(body.role ? { role: body.role } : {}),
        ...('portion' in body ? { portion: body.portion ?? null } : {}),
      },
      this.envelope(principal, request),
    );
    return this.members(principal, orgId);
  }

  @Delete(':orgId/members/:accountId')
  @HttpCode(204)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Remove a member: their access ends at once' })
  @ApiEmpty(204, 'Removed')
  @ApiErrors(403, 409)
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('accountId') accountId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.removeMember(principal, orgId, accountId, this.envelope(principal, request));
  }

  @Put(':orgId/members/:accountId/spaces/:spaceId')
  @HttpCode(204)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Assign a space to a member' })
  @ApiEmpty(204, 'Assigned')
  @ApiErrors(403, 409)
  async assign(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('accountId') accountId: string,
    @Param('spaceId') spaceId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.assignSpace(
      principal,
      orgId,
      accountId,
      spaceId,
      true,
      this.envelope(principal, request),
    );
  }

  @Delete(':orgId/members/:accountId/spaces/:spaceId')
  @HttpCode(204)
  @Access(MANAGE)
  @ApiOperation({ summary: "Remove a space assignment: that space's access ends at once" })
  @ApiEmpty(204, 'Unassigned')
  @ApiErrors(403, 409)
  async unassign(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('accountId') accountId: string,
    @Param('spaceId') spaceId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.assignSpace(
      principal,
      orgId,
      accountId,
      spaceId,
      false,
      this.envelope(principal, request),
    );
  }

  @Post(':orgId/ownership-transfer')
  @HttpCode(202)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Offer the ownership to a staff member (owner only); the recipient must accept' })
  @ApiJson(202, OWNERSHIP_OFFERED, 'Offered: the recipient must accept')
  @ApiErrors(403, 409)
  async offerOwnership(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: OwnershipOfferBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.offerOwnership(principal, orgId, body.account_id, this.envelope(principal, request));
    return { offered_to: body.account_id };
  }

  @Post(':orgId/ownership-transfer/accept')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Accept the ownership offered to you' })
  @ApiJson(200, ORGANIZATION)
  @ApiErrors(403, 409)
  async acceptOwnership(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.answerOwnership(principal, orgId, true, this.envelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Post(':orgId/ownership-transfer/decline')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Decline the ownership offered to you' })
  @ApiJson(200, ORGANIZATION)
  @ApiErrors(403, 409)
  async declineOwnership(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.answerOwnership(principal, orgId, false, this.envelope(principal, request));
    return this.overview(principal, orgId);
  }

  // ---- Spaces ----

  @Get(':orgId/spaces')
  @Access(READ)
  @ApiOperation({ summary: 'Spaces the caller reaches (General research for staff, assigned clients)' })
  @ApiJson(200, SPACES)
  @ApiErrors(403)
  async spaces(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.spaces(await this.workspace.gate.require(principal, orgId));
  }

  @Post(':orgId/spaces')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Create a client or asset scope space with an optional credit_limit' })
  @ApiJson(201, SPACE, 'Created')
  @ApiErrors(403, 409)
  async createSpace(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: CreateSpaceBody,
    @Req() request: FastifyRequest,
  ) {
    const spaceId = await this.workspace.createSpace(
      principal,
      orgId,
      {
        name: body.name,
        kind: body.kind ?? 'client',
        creditLimit: body.credit_limit ?? null,
        monitoring: body.monitoring ?? false,
      },
      this.envelope(principal, request),
    );
    return this.queries.space(await this.workspace.gate.require(principal, orgId), spaceId);
  }

  @Get(':orgId/clients/:clientId')
  @Access(READ)
  @ApiOperation({ summary: 'One space' })
  @ApiJson(200, SPACE)
  @ApiErrors(403)
  async space(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
  ) {
    return this.queries.space(await this.workspace.gate.require(principal, orgId), clientId);
  }

  @Patch(':orgId/clients/:clientId')
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Rename, archive (pauses work, stops schedules, revokes shares) or restore; If-Match',
  })
  @ApiHeader(IF_MATCH)
  @ApiJson(200, SPACE)
  @ApiErrors(403, 409, 428)
  async updateSpace(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: UpdateSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.spaceCommand(
      principal,
      orgId,
      clientId,
      {
        type: 'UpdateSpace',
        ...(body.name !== undefined ? { name: body.name } : {}),
        // A credit_limit sent as null removes the limit; one not sent leaves it.
        ...('credit_limit' in body ? { creditLimit: body.credit_limit ?? null } : {}),
        ...(body.state !== undefined ? { state: body.state } : {}),
      },
      this.envelope(principal, request),
      ifMatchVersion(ifMatch, 'the space'),
    );
    return this.space(principal, orgId, clientId);
  }

  @Put(':orgId/clients/:clientId/monitoring')
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Activate or stop scheduled observation watches (collects only after activation)',
  })
  @ApiJson(200, SPACE)
  @ApiErrors(403, 409)
  async monitoring(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: MonitoringBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.spaceCommand(
      principal,
      orgId,
      clientId,
      { type: 'SetMonitoring', enabled: body.enabled },
      this.envelope(principal, request),
    );
    return this.space(principal, orgId, clientId);
  }

  @Post(':orgId/clients/:clientId/shares')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Create a guest share link of the space' })
  @ApiJson(201, SHARE, 'Created')
  @ApiErrors(403, 409)
  async share(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
  ) {
    const shareId = crypto.randomUUID();
    await this.workspace.spaceCommand(
      principal,
      orgId,
      clientId,
      { type: 'CreateShare', shareId },
      this.envelope(principal, request),
    );
    return { id: shareId, revoked: false };
  }

  @Delete(':orgId/clients/:clientId/shares/:shareId')
  @HttpCode(204)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Revoke a guest share link' })
  @ApiEmpty(204, 'Revoked')
  @ApiErrors(403, 409)
  async revokeShare(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Param('shareId') shareId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.spaceCommand(
      principal,
      orgId,
      clientId,
      { type: 'RevokeShare', shareId },
      this.envelope(principal, request),
    );
  }

  @Get(':orgId/clients/:clientId/published')
  @Access(READ)
  @ApiOperation({ summary: "The space's explicitly published view (what external clients keep)" })
  @ApiJson(200, PUBLISHED_VIEW)
  @ApiErrors(403)
  async published(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
  ) {
    return this.queries.publishedView(await this.workspace.gate.require(principal, orgId), clientId);
  }

  // ---- Cases and evidence ----

  @Get(':orgId/cases')
  @Access(READ)
  @ApiOperation({
    summary: 'Cases of the spaces the caller reaches (historical General research ones included)',
  })
  @ApiJson(200, CASES)
  @ApiErrors(403)
  async cases(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.cases(await this.workspace.gate.require(principal, orgId));
  }

  @Post(':orgId/cases')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Open a case in a client space (never in General research)' })
  @ApiJson(201, CASE, 'Opened')
  @ApiErrors(403, 409)
  async openCase(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: OpenCaseBody,
    @Req() request: FastifyRequest,
  ) {
    const caseId = await this.workspace.openCase(
      principal,
      orgId,
      { spaceId: body.space_id, title: body.title },
      this.envelope(principal, request),
    );
    return this.caseDetail(principal, orgId, caseId);
  }

  @Get(':orgId/cases/:caseId')
  @Access(READ)
  @ApiOperation({ summary: 'A case with its evidence (external users see client-visible evidence only)' })
  @ApiJson(200, CASE)
  @ApiErrors(403)
  async caseDetail(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('caseId') caseId: string,
  ) {
    return this.queries.caseDetail(await this.workspace.gate.require(principal, orgId), caseId);
  }

  @Post(':orgId/cases/:caseId/archive')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Archive a case (it stays reviewable; evidence goes to another case)' })
  @ApiJson(200, CASE)
  @ApiErrors(403, 409)
  async archiveCase(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('caseId') caseId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.archiveCase(principal, orgId, caseId, this.envelope(principal, request));
    return this.caseDetail(principal, orgId, caseId);
  }

  @Post(':orgId/evidence')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Save up to 20 records of a completed search into the selected case; runs no search',
  })
  @ApiJson(201, EVIDENCE, 'Saved')
  @ApiErrors(403, 409)
  async saveEvidence(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: SaveEvidenceBody,
    @Req() request: FastifyRequest,
  ) {
    const saved = await this.workspace.saveEvidence(
      principal,
      orgId,
      { searchId: body.search_id, records: body.records, note: body.note, visibility: body.visibility },
      this.envelope(principal, request),
    );
    return this.evidence(principal, orgId, saved.evidenceId);
  }

  @Get(':orgId/evidence/:evidenceId')
  @Access(READ)
  @ApiOperation({ summary: 'One saved evidence item' })
  @ApiJson(200, EVIDENCE)
  @ApiErrors(403)
  async evidence(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('evidenceId') evidenceId: string,
  ) {
    return this.queries.evidence(await this.workspace.gate.require(principal, orgId), evidenceId);
  }

  // ---- Review queue and comparisons ----

  @Get(':orgId/review-queue')
  @Access(READ)
  @ApiOperation({
    summary: 'Observations queued for review across every accessible space (internal members)',
  })
  @ApiJson(200, REVIEW_QUEUE)
  @ApiErrors(403)
  async reviewQueue(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.reviewQueue(
      await this.workspace.gate.require(principal, orgId, { capability: 'work.internal' }),
    );
  }

  @Post(':orgId/review-queue')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Queue an observation of a completed search for review' })
  @ApiJson(201, CREATED_ID, 'Queued')
  @ApiErrors(403, 409)
  async addReviewItem(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: AddReviewItemBody,
    @Req() request: FastifyRequest,
  ) {
    const id = await this.workspace.addReviewItem(
      principal,
      orgId,
      { searchId: body.search_id, record: body.record },
      this.envelope(principal, request),
    );
    return { id };
  }

  @Patch(':orgId/review-queue/:itemId')
  @Access(MANAGE)
  @ApiOperation({ summary: 'Assign, give a due date, tie to a source (evidence) in a case' })
  @ApiJson(200, REVIEW_ITEM)
  @ApiErrors(403, 409)
  async updateReviewItem(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('itemId') itemId: string,
    @Body() body: UpdateReviewItemBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.updateReviewItem(
      principal,
      orgId,
      itemId,
      {
        ...('assignee' in body ? { assignee: body.assignee ?? null } : {}),
        ...('due_date' in body ? { dueDate: body.due_date ?? null } : {}),
        ...('source' in body
          ? {
              source: body.source
                ? { caseId: body.source.case_id, evidenceId: body.source.evidence_id }
                : null,
            }
          : {}),
      },
      this.envelope(principal, request),
    );
    const queue = await this.reviewQueue(principal, orgId);
    return queue.items.find((item) => item.id === itemId);
  }

  @Post(':orgId/comparisons')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Prepare a report comparison from selected evidence' })
  @ApiJson(201, COMPARISON, 'Prepared')
  @ApiErrors(403, 409)
  async prepareComparison(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: PrepareComparisonBody,
    @Req() request: FastifyRequest,
  ) {
    const id = await this.workspace.prepareComparison(
      principal,
      orgId,
      { spaceId: body.space_id, title: body.title, evidenceIds: body.evidence_ids },
      this.envelope(principal, request),
    );
    return this.comparison(principal, orgId, id);
  }

  @Get(':orgId/comparisons/:comparisonId')
  @Access(READ)
  @ApiOperation({ summary: 'A report comparison (external clients: once published)' })
  @ApiJson(200, COMPARISON)
  @ApiErrors(403)
  async comparison(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('comparisonId') comparisonId: string,
  ) {
    return this.queries.comparison(await this.workspace.gate.require(principal, orgId), comparisonId);
  }

  @Post(':orgId/comparisons/:comparisonId/publish')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: "Publish a comparison to the client's space view" })
  @ApiJson(200, COMPARISON)
  @ApiErrors(403, 409)
  async publishComparison(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('comparisonId') comparisonId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.publishComparison(principal, orgId, comparisonId, this.envelope(principal, request));
    return this.comparison(principal, orgId, comparisonId);
  }
}
