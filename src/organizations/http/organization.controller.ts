import { CommandBus } from '@nestjs/cqrs';
import { Body, Controller, Inject, Param, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { Route } from '../../platform/http/route.js';
import { OrganizationGate } from '../commands/organization-access.js';
import {
  RenameOrganization,
  RequestOrganizationPlan,
  VerifyOrganizationDomain,
} from '../commands/organization-settings.commands.js';
import { SelectWorkspaceContext, SwitchOrganization } from '../commands/session-context.commands.js';
import { WorkspaceSelections } from '../commands/workspace-selection.js';
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
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationQueries) private readonly queries: OrganizationQueries,
    @Inject(WorkspaceSelections) private readonly selections: WorkspaceSelections,
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
    return this.queries.overview(await this.gate.require(principal, orgId));
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
    await this.commands.execute(
      new RenameOrganization(principal, orgId, body.name, requestEnvelope(principal, request)),
    );
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
    await this.commands.execute(
      new VerifyOrganizationDomain(principal, orgId, requestEnvelope(principal, request)),
    );
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
    await this.commands.execute(
      new RequestOrganizationPlan(principal, orgId, body.plan, requestEnvelope(principal, request)),
    );
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
    return this.queries.credits(await this.gate.require(principal, orgId), principal);
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
    const selection = await this.commands.execute(new SwitchOrganization(principal, orgId));
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
    await this.gate.require(principal, orgId);
    const selection = principal.sessionId ? await this.selections.get(principal.sessionId, orgId) : null;
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
    const selection = await this.commands.execute(
      new SelectWorkspaceContext(principal, orgId, body.space_id, body.case_id ?? null),
    );
    return { organization_id: orgId, switched: true, space_id: selection.spaceId, case_id: selection.caseId };
  }
}
