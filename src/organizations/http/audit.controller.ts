import { Inject, Param, Query } from '@nestjs/common';
import { LOG_POINT_SCHEMA } from '../../platform/http/openapi/as-of.js';
import { ApiQueryParams } from '../../platform/http/openapi/responses.js';
import { integer, string } from '../../platform/http/openapi/schema.js';
import { Route } from '../../platform/http/route.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import {
  AUDIT_DEFAULT_LIMIT,
  AUDIT_MAX_LIMIT,
  OrganizationAuditLog,
  type AuditLogQuery,
} from '../queries/organization-audit.js';
import { CurrentOrganization } from './organization-access.guard.js';
import { OrganizationRoutes, readWith } from './organization-route.js';
import { AUDIT_LOG } from './organizations.openapi.js';

const AUDIT_QUERY = {
  after: { schema: string({ maxLength: 41 }), description: 'the next_cursor of the previous page' },
  limit: {
    schema: integer({ minimum: 1, maximum: AUDIT_MAX_LIMIT, default: AUDIT_DEFAULT_LIMIT }),
    description: 'entries per page',
  },
  actor: {
    schema: string({ maxLength: 210, example: 'account:3f0c…' }),
    description: 'only what this actor did: account:<id>, operator:<name> or system:<component>',
  },
  type: { schema: string({ maxLength: 100, example: 'MemberInvited' }), description: 'only this event type' },
  since: { schema: LOG_POINT_SCHEMA, description: 'from this time or global position (inclusive)' },
  until: { schema: LOG_POINT_SCHEMA, description: 'up to this time or global position (inclusive)' },
};

/** The organization's audit log (owners and administrators; external clients never). */
@OrganizationRoutes()
export class AuditController {
  constructor(@Inject(OrganizationAuditLog) private readonly audit: OrganizationAuditLog) {}

  @Route({
    method: 'GET',
    path: ':orgId/audit',
    access: readWith('organization.audit.read'),
    summary:
      "The organization's audit log, oldest first, paged by cursor: who did what, when, on whose behalf and why",
    answer: { status: 200, schema: AUDIT_LOG },
    errors: [403, 422],
  })
  @ApiQueryParams(AUDIT_QUERY)
  async log(
    @CurrentOrganization() access: OrganizationAccess,
    @Param('orgId') _orgId: string,
    @Query() query: AuditLogQuery,
  ) {
    return this.audit.page(access, query);
  }
}
