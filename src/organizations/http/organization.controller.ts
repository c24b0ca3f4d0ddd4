import { Body, Controller, Inject, Param, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { Route } from '../../platform/http/route.js';
import { OrganizationWorkspace } from '../commands/organization-workspace.js';
import { OrganizationQueries } from '../queries/organization-queries.js';
import { BillingBody, RenameOrganizationBody, SelectContextBody } from './organization.dtos.js';
import { MANAGE, OperationIdsOf, READ, requestEnvelope } from './organization-route.js';
import { ORGANIZATION, ORGANIZATION_CREDITS, SESSION_CONTEXT, SWITCHED } from './organizations.openapi.js';

/** One organization: its overview, settings, trial and billing, balance, and the session's context in it. */
@ApiTags('organizations')
@Controller('api/v2/organizations')
@OperationIdsOf('OrganizationsController')
export class OrganizationController {
  constructor(
    @Inject(OrganizationWorkspace) private readonly workspace: OrganizationWorkspace,
    @Inject(OrganizationQueries) private readonly queries: OrganizationQueries,
  ) {}

  @Route({
    method: 'GET',
    path: ':orgId',
    access: READ,
    summary: 'Overview: status, billing action, role, spaces; starts no collection, spends nothing',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [403],
  })
  async overview(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.overview(await this.workspace.gate.require(principal, orgId));
  }

  @Route({
    method: 'PATCH',
    path: ':orgId',
    access: MANAGE,
    summary: 'Rename (never a new trial)',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [403, 409],
  })
  async rename(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: RenameOrganizationBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.rename(principal, orgId, body.name, requestEnvelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/verification',
    access: MANAGE,
    summary: 'Check the DNS TXT record and start the trial (owner)',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [403, 409],
  })
  async verify(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.verifyDomain(principal, orgId, requestEnvelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Route({
    method: 'PUT',
    path: ':orgId/billing',
    access: MANAGE,
    summary: 'Choose the paid plan checkout completes (owner only)',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [403, 409],
  })
  async billing(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: BillingBody,
    @Req() request: FastifyRequest,
  ) {
    await this.workspace.requestPlan(principal, orgId, body.plan, requestEnvelope(principal, request));
    return this.overview(principal, orgId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/credits',
    access: READ,
    summary: 'Managers: the shared balance; other members: their permitted envelope',
    answer: { status: 200, schema: ORGANIZATION_CREDITS },
    errors: [403],
  })
  async credits(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.credits(await this.workspace.gate.require(principal, orgId), principal);
  }

  @Route({
    method: 'POST',
    path: ':orgId/switch',
    access: MANAGE,
    summary: 'Restrict this session to the organization (staff start in General research)',
    answer: { status: 200, schema: SWITCHED },
    errors: [403],
  })
  async switchTo(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    const selection = await this.workspace.switchTo(principal, orgId);
    return { organization_id: orgId, space_id: selection.spaceId, case_id: selection.caseId };
  }

  @Route({
    method: 'GET',
    path: ':orgId/context',
    access: READ,
    summary: 'The selected space and case of this session',
    answer: { status: 200, schema: SESSION_CONTEXT },
    errors: [403],
  })
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

  @Route({
    method: 'PUT',
    path: ':orgId/context',
    access: MANAGE,
    summary: 'Select a space (and optionally a case of it); changing space clears the case',
    answer: { status: 200, schema: SESSION_CONTEXT },
    errors: [403, 409],
  })
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
}
