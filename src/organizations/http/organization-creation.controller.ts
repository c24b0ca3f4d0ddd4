import { Body, Inject } from '@nestjs/common';
import type { Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { Route } from '../../platform/http/route.js';
import { CreateOrganization } from '../commands/creation.commands.js';
import { CreationPreviews } from '../queries/creation-preview.js';
import { CreateOrganizationBody } from './organization.dtos.js';
import { MANAGE, OrganizationRoutes, READ, CurrentCaller, type Caller } from './organization-route.js';
import { OrganizationHandlers } from './organization-handlers.js';
import { CREATION_PREVIEW, ORGANIZATION, ORGANIZATIONS } from './organizations.openapi.js';

/** Creating an organization (rule 6) and listing the caller's organizations. */
@OrganizationRoutes()
export class OrganizationCreationController extends OrganizationHandlers {
  @Inject(CreationPreviews) private readonly previews!: CreationPreviews;

  @Route({
    method: 'GET',
    path: 'creation-preview',
    access: READ,
    summary: 'Whether this account may create an organization, and the credits it would move',
    answer: { status: 200, schema: CREATION_PREVIEW },
  })
  preview(@CurrentPrincipal() principal: Principal) {
    return this.previews.preview(principal.accountId, principal.organizationId ?? null);
  }

  @Route({
    method: 'POST',
    path: '',
    access: MANAGE,
    summary: 'Create an organization (trial with a verified domain, or subscription)',
    answer: { status: 201, schema: ORGANIZATION, description: 'Created' },
    errors: [403, 409],
  })
  async create(@CurrentCaller() { principal, envelope }: Caller, @Body() body: CreateOrganizationBody) {
    const { organizationId } = await this.commands.execute(
      new CreateOrganization(
        principal,
        body.name,
        body.start ?? 'trial',
        body.domain ?? null,
        body.expected_transfer,
        envelope,
      ),
    );
    return this.queries.overview(await this.gate.require(principal, organizationId));
  }

  @Route({
    method: 'GET',
    path: '',
    access: READ,
    summary: "The caller's organizations (only the switched one for an organization session)",
    answer: { status: 200, schema: ORGANIZATIONS },
  })
  list(@CurrentPrincipal() principal: Principal) {
    return this.queries.list(principal);
  }
}
