import { randomUUID } from 'node:crypto';
import { Body, Headers, Inject, Query } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ifMatchVersion } from '../../platform/http/if-match.js';
import { AS_OF_PARAMETER } from '../../platform/http/openapi/as-of.js';
import { IF_MATCH } from '../../platform/http/openapi/if-match.js';
import { Route } from '../../platform/http/route.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import { ChangeSpace, CreateSpace } from '../commands/spaces.commands.js';
import { OrganizationAsOf } from '../queries/organization-as-of.js';
import { CreateSpaceBody, MonitoringBody, UpdateSpaceBody } from './organization.dtos.js';
import { CurrentOrganization } from './organization-access.guard.js';
import { OrganizationHandlers } from './organization-handlers.js';
import {
  manageWith,
  OrganizationRoutes,
  readWith,
  CurrentCaller,
  type Caller,
} from './organization-route.js';
import { PUBLISHED_VIEW, SHARE, SPACE, SPACES } from './organizations.openapi.js';

/** Spaces (General research, clients, asset scopes), their monitoring, guest shares and published view. */
@OrganizationRoutes()
export class SpacesController extends OrganizationHandlers {
  @Inject(OrganizationAsOf) private readonly asOf!: OrganizationAsOf;

  @Route({
    method: 'GET',
    path: ':orgId/spaces',
    access: readWith('organization.read'),
    summary: 'Spaces the caller reaches (General research for staff, assigned clients)',
    answer: { status: 200, schema: SPACES },
  })
  async spaces(@CurrentOrganization() access: OrganizationAccess) {
    return this.queries.spaces(access);
  }

  @Route({
    method: 'POST',
    path: ':orgId/spaces',
    access: manageWith('spaces.manage'),
    summary: 'Create a client or asset scope space with an optional credit_limit',
    answer: { status: 201, schema: SPACE, description: 'Created' },
    errors: [409],
  })
  async createSpace(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: CreateSpaceBody,
  ) {
    const { spaceId } = await this.commands.execute(
      new CreateSpace(
        principal,
        orgId,
        {
          name: body.name,
          kind: body.kind ?? 'client',
          creditLimit: body.credit_limit ?? null,
          monitoring: body.monitoring ?? false,
        },
        envelope,
      ),
    );
    return this.queries.space(await this.gate.require(principal, orgId), spaceId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/clients/:clientId',
    access: readWith('organization.read'),
    summary: 'One space',
    answer: { status: 200, schema: SPACE },
    errors: [422],
    query: AS_OF_PARAMETER,
  })
  async space(
    @CurrentOrganization() access: OrganizationAccess,
    @CurrentCaller() { clientId }: Caller<'clientId'>,
    @Query('as_of') asOf?: unknown,
  ) {
    if (asOf === undefined) return this.queries.space(access, clientId);
    const past = await this.asOf.spaces(clientId, asOf);
    return { ...(await this.queries.space(access, clientId, past.spaces)), as_of: past.point };
  }

  @Route({
    method: 'PATCH',
    path: ':orgId/clients/:clientId',
    access: manageWith('spaces.manage'),
    summary: 'Rename, archive (pauses work, stops schedules, revokes shares) or restore; If-Match',
    answer: { status: 200, schema: SPACE },
    errors: [409, 428],
    also: [ApiHeader(IF_MATCH)],
  })
  async updateSpace(
    @CurrentCaller() { principal, envelope, orgId, clientId }: Caller<'orgId' | 'clientId'>,
    @Body() body: UpdateSpaceBody,
    @Headers('if-match') ifMatch: string | undefined,
  ) {
    await this.commands.execute(
      new ChangeSpace(
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
        envelope,
        ifMatchVersion(ifMatch, 'the space'),
      ),
    );
    return this.queries.space(await this.gate.require(principal, orgId), clientId);
  }

  @Route({
    method: 'PUT',
    path: ':orgId/clients/:clientId/monitoring',
    access: manageWith('spaces.manage'),
    summary: 'Activate or stop scheduled observation watches (collects only after activation)',
    answer: { status: 200, schema: SPACE },
    errors: [409],
  })
  async monitoring(
    @CurrentCaller() { principal, envelope, orgId, clientId }: Caller<'orgId' | 'clientId'>,
    @Body() body: MonitoringBody,
  ) {
    await this.commands.execute(
      new ChangeSpace(principal, orgId, clientId, { type: 'SetMonitoring', enabled: body.enabled }, envelope),
    );
    return this.queries.space(await this.gate.require(principal, orgId), clientId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/clients/:clientId/shares',
    access: manageWith('spaces.manage'),
    summary: 'Create a guest share link of the space',
    answer: { status: 201, schema: SHARE, description: 'Created' },
    errors: [409],
  })
  async share(@CurrentCaller() { principal, envelope, orgId, clientId }: Caller<'orgId' | 'clientId'>) {
    const shareId = randomUUID();
    await this.commands.execute(
      new ChangeSpace(principal, orgId, clientId, { type: 'CreateShare', shareId }, envelope),
    );
    return { id: shareId, revoked: false };
  }

  @Route({
    method: 'DELETE',
    path: ':orgId/clients/:clientId/shares/:shareId',
    access: manageWith('spaces.manage'),
    summary: 'Revoke a guest share link',
    answer: { status: 204, empty: 'Revoked' },
    errors: [409],
  })
  async revokeShare(
    @CurrentCaller()
    { principal, envelope, orgId, clientId, shareId }: Caller<'orgId' | 'clientId' | 'shareId'>,
  ) {
    await this.commands.execute(
      new ChangeSpace(principal, orgId, clientId, { type: 'RevokeShare', shareId }, envelope),
    );
  }

  @Route({
    method: 'GET',
    path: ':orgId/clients/:clientId/published',
    access: readWith('organization.read'),
    summary: "The space's explicitly published view (what external clients keep)",
    answer: { status: 200, schema: PUBLISHED_VIEW },
  })
  async published(
    @CurrentOrganization() access: OrganizationAccess,
    @CurrentCaller() { clientId }: Caller<'clientId'>,
  ) {
    return this.queries.publishedView(access, clientId);
  }
}
