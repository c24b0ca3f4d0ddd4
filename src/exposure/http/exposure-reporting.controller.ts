import { Body, Controller, Headers, Inject, Param, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { optionalIfMatchVersion } from '../../platform/http/if-match.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { Route } from '../../platform/http/route.js';
import { OPTIONAL_IF_MATCH } from '../../platform/http/openapi/if-match.js';
import { SaveNotificationPreference, SetMonitoring } from '../commands/monitoring.commands.js';
import { FreezeReport } from '../commands/reports.commands.js';
import { ExposureMonitoringQueries, preferenceView } from '../queries/exposure-monitoring-queries.js';
import { ExposureReports, reportSummary } from '../queries/exposure-reports.js';
import { ExposureMonitoringBody, NotificationPreferenceBody } from './exposure-reporting.dtos.js';
import {
  MONITORING,
  NOTIFICATION_PREFERENCE,
  REPORT_DOCUMENT,
  REPORT_SUMMARY,
  REPORTS,
} from './exposure.openapi.js';

const REPORT_HEADERS = {
  ETag: {
    description: '"sha256-<hex>": the SHA-256 the frozen report recorded',
    schema: { type: 'string' as const },
  },
};

const READ = { surface: 'session', permission: 'organization.read' } as const;
const MANAGE = { surface: 'session', permission: 'organization.manage' } as const;
const SCOPE = ':orgId/clients/:clientId/exposure';

/**
 * Frozen reports, monitoring and the email preference of an exposure scope (browser session, CSRF on unsafe
 * methods). Access (Authentication 6) is decided by the exposure gate in the handlers and queries.
 */
@ApiTags('exposure')
@Controller('api/v2/organizations')
export class ExposureReportingController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ExposureReports) private readonly reports: ExposureReports,
    @Inject(ExposureMonitoringQueries) private readonly monitoring: ExposureMonitoringQueries,
  ) {}

  @Route({
    method: 'GET',
    path: `${SCOPE}/reports`,
    access: READ,
    summary: 'Up to 100 frozen report summaries, newest first',
    answer: { status: 200, schema: REPORTS },
    errors: [403],
  })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
  ) {
    return this.reports.list(principal, orgId, clientId);
  }

  @Route({
    method: 'POST',
    path: `${SCOPE}/reports`,
    access: MANAGE,
    summary:
      'Freeze the current view (at most 100 per scope, 16 MiB); runs no search, scan, guest link or email',
    answer: { status: 201, schema: REPORT_SUMMARY, description: 'Frozen' },
    errors: [403, 409],
  })
  async freeze(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
  ) {
    const report = await this.commands.execute(
      new FreezeReport(principal, orgId, clientId, envelopeFor(principal, String(request.id))),
    );
    return reportSummary(report, orgId);
  }

  @Route({
    method: 'GET',
    path: `${SCOPE}/reports/:reportId`,
    access: READ,
    summary: 'The saved document, under current permissions; never today\u2019s inventory',
    answer: {
      status: 200,
      schema: REPORT_DOCUMENT,
      description: 'The saved document',
      headers: REPORT_HEADERS,
    },
    errors: [403],
  })
  async document(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Param('reportId') reportId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { bytes, summary } = await this.reports.document(principal, orgId, clientId, reportId);
    await reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('etag', `"sha256-${summary.blob.sha256}"`)
      .header('cache-control', 'private, no-store')
      .send(bytes);
  }

  @Route({
    method: 'PUT',
    path: `${SCOPE}/monitoring`,
    access: MANAGE,
    summary: 'Activate or stop scheduled observation watches (owner or administrator); optional If-Match',
    answer: { status: 200, schema: MONITORING },
    errors: [403, 409],
    also: [ApiHeader(OPTIONAL_IF_MATCH)],
  })
  async setMonitoring(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: ExposureMonitoringBody,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    const space = await this.commands.execute(
      new SetMonitoring(
        principal,
        orgId,
        clientId,
        body.enabled,
        optionalIfMatchVersion(ifMatch),
        envelopeFor(principal, String(request.id)),
      ),
    );
    return this.monitoring.afterChange(clientId, space);
  }

  @Route({
    method: 'GET',
    path: `${SCOPE}/notifications`,
    access: READ,
    summary: 'The scope email preference (owner or administrator)',
    answer: { status: 200, schema: NOTIFICATION_PREFERENCE },
    errors: [403],
  })
  async preference(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
  ) {
    return this.monitoring.preference(principal, orgId, clientId);
  }

  @Route({
    method: 'PUT',
    path: `${SCOPE}/notifications`,
    access: MANAGE,
    summary: 'Save the email preference (owner or administrator; body version); confirms no delivery',
    answer: { status: 200, schema: NOTIFICATION_PREFERENCE },
    errors: [403, 409],
  })
  async savePreference(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: NotificationPreferenceBody,
    @Req() request: FastifyRequest,
  ) {
    const saved = await this.commands.execute(
      new SaveNotificationPreference(
        principal,
        orgId,
        clientId,
        body,
        envelopeFor(principal, String(request.id)),
      ),
    );
    return preferenceView(saved);
  }
}
