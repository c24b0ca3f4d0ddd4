import { Body, Inject, Query } from '@nestjs/common';
import { AS_OF_PARAMETER } from '../../platform/http/openapi/as-of.js';
import { Route } from '../../platform/http/route.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import {
  RenameOrganization,
  RequestOrganizationPlan,
  VerifyOrganizationDomain,
} from '../commands/organization-settings.commands.js';
import { SelectWorkspaceContext, SwitchOrganization } from '../commands/session-context.commands.js';
import { WorkspaceSelections } from '../commands/workspace-selection.js';
import { OrganizationAsOf } from '../queries/organization-as-of.js';
import { BillingBody, RenameOrganizationBody, SelectContextBody } from './organization.dtos.js';
import { CurrentOrganization } from './organization-access.guard.js';
import { OrganizationHandlers } from './organization-handlers.js';
import {
  manageWith,
  OrganizationRoutes,
  readWith,
  CurrentCaller,
  type Caller,
} from './organization-route.js';
import { ORGANIZATION, ORGANIZATION_CREDITS, SESSION_CONTEXT, SWITCHED } from './organizations.openapi.js';

/** One organization: its overview, settings, trial and billing, balance, and the session's context in it. */
@OrganizationRoutes()
export class OrganizationController extends OrganizationHandlers {
  @Inject(WorkspaceSelections) private readonly selections!: WorkspaceSelections;
  @Inject(OrganizationAsOf) private readonly asOf!: OrganizationAsOf;

  @Route({
    method: 'GET',
    path: ':orgId',
    access: readWith('organization.read'),
    summary: 'Overview: status, billing action, role, spaces; starts no collection, spends nothing',
    answer: { status: 200, schema: ORGANIZATION },
  })
  async overview(@CurrentOrganization() access: OrganizationAccess) {
    return this.queries.overview(access);
  }

  @Route({
    method: 'PATCH',
    path: ':orgId',
    access: manageWith('organization.settings'),
    summary: 'Rename (never a new trial)',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [409],
  })
  async rename(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: RenameOrganizationBody,
  ) {
    await this.commands.execute(new RenameOrganization(principal, orgId, body.name, envelope));
    return this.queries.overview(await this.gate.require(principal, orgId));
  }

  @Route({
    method: 'POST',
    path: ':orgId/verification',
    access: manageWith('billing.manage'),
    summary: 'Check the DNS TXT record and start the trial (owner)',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [409],
  })
  async verify(@CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>) {
    await this.commands.execute(new VerifyOrganizationDomain(principal, orgId, envelope));
    return this.queries.overview(await this.gate.require(principal, orgId));
  }

  @Route({
    method: 'PUT',
    path: ':orgId/billing',
    access: manageWith('billing.manage'),
    summary: 'Choose the paid plan checkout completes (owner only)',
    answer: { status: 200, schema: ORGANIZATION },
    errors: [409],
  })
  async billing(@CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>, @Body() body: BillingBody) {
    await this.commands.execute(new RequestOrganizationPlan(principal, orgId, body.plan, envelope));
    return this.queries.overview(await this.gate.require(principal, orgId));
  }

  @Route({
    method: 'GET',
    path: ':orgId/credits',
    access: readWith('organization.read'),
    summary: 'Managers: the shared balance; other members: their permitted envelope',
    answer: { status: 200, schema: ORGANIZATION_CREDITS },
    errors: [422],
    query: AS_OF_PARAMETER,
  })
  async credits(
    @CurrentCaller() { principal }: Caller,
    @CurrentOrganization() access: OrganizationAccess,
    @Query('as_of') asOf?: unknown,
  ) {
    if (asOf === undefined) return this.queries.credits(access, principal);
    const past = await this.asOf.credits(access, asOf);
    return { ...(await this.queries.credits(past.access, principal, past.then)), as_of: past.point };
  }

  @Route({
    method: 'POST',
    path: ':orgId/switch',
    access: manageWith('organization.read'),
    summary: 'Restrict this session to the organization (staff start in General research)',
    answer: { status: 200, schema: SWITCHED },
  })
  async switchTo(@CurrentCaller() { principal, orgId }: Caller<'orgId'>) {
    const selection = await this.commands.execute(new SwitchOrganization(principal, orgId));
    return { organization_id: orgId, space_id: selection.spaceId, case_id: selection.caseId };
  }

  @Route({
    method: 'GET',
    path: ':orgId/context',
    access: readWith('organization.read'),
    summary: 'The selected space and case of this session',
    answer: { status: 200, schema: SESSION_CONTEXT },
  })
  async context(@CurrentCaller() { principal, orgId }: Caller<'orgId'>) {
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
    access: manageWith('organization.read'),
    summary: 'Select a space (and optionally a case of it); changing space clears the case',
    answer: { status: 200, schema: SESSION_CONTEXT },
    errors: [409],
  })
  async select(@CurrentCaller() { principal, orgId }: Caller<'orgId'>, @Body() body: SelectContextBody) {
    const selection = await this.commands.execute(
      new SelectWorkspaceContext(principal, orgId, body.space_id, body.case_id ?? null),
    );
    return { organization_id: orgId, switched: true, space_id: selection.spaceId, case_id: selection.caseId };
  }
}
