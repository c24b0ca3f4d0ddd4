import { Body, Headers, Inject, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { optionalIfMatchVersion } from '../../platform/http/if-match.js';
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
import {
  CurrentCaller,
  ExposureRoutes,
  manageWith,
  readWith,
  SCOPE,
  type ScopeCaller,
} from './exposure-route.js';

const REPORT_HEADERS = {
  ETag: {
    description: '"sha256-<hex>": the SHA-256 the frozen report recorded',
    schema: { type: 'string' as const },
  },
};

/**
 * Frozen reports, monitoring and the email preference of an exposure scope (browser session, CSRF on unsafe
 * methods). Each route's capability (Authentication 6, roles.ts) is checked by the organization access layer;
 * the exposure gate in the handlers and queries then finds the scope.
 */
@ExposureRoutes()
export class ExposureReportingController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ExposureReports) private readonly reports: ExposureReports,
    @Inject(ExposureMonitoringQueries) private readonly monitoring: ExposureMonitoringQueries,
  ) {}

  @Route({
    method: 'GET',
    path: `${SCOPE}/reports`,
    access: readWith('exposure.scopes.read'),
    summary: 'Up to 100 frozen report summaries, newest first',
    answer: { status: 200, schema: REPORTS },
  })
  async list(@CurrentCaller() { principal, orgId, clientId }: ScopeCaller) {
    return this.reports.list(principal, orgId, clientId);
  }

  @Route({
    method: 'POST',
    path: `${SCOPE}/reports`,
    access: manageWith('exposure.reports.create'),
    summary:
      'Freeze the current view (at most 100 per scope, 16 MiB); runs no search, scan, guest link or email',
    answer: { status: 201, schema: REPORT_SUMMARY, description: 'Frozen' },
    errors: [409, 503],
  })
  async freeze(@CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller) {
    const report = await this.commands.execute(new FreezeReport(principal, orgId, clientId, envelope));
    return reportSummary(report, orgId);
  }

  @Route({
    method: 'GET',
    path: `${SCOPE}/reports/:reportId`,
    access: readWith('exposure.scopes.read'),
    summary: 'The saved document, under current permissions; never today\u2019s inventory',
    answer: {
      status: 200,
      schema: REPORT_DOCUMENT,
      description: 'The saved document',
      headers: REPORT_HEADERS,
    },
  })
  async document(
    @CurrentCaller() { principal, orgId, clientId, reportId }: ScopeCaller<'reportId'>,
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
    access: manageWith('exposure.scopes.manage'),
    summary: 'Activate or stop scheduled observation watches (owner or administrator); optional If-Match',
    answer: { status: 200, schema: MONITORING },
    errors: [409],
    also: [ApiHeader(OPTIONAL_IF_MATCH)],
  })
  async setMonitoring(
    @CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller,
    @Body() body: ExposureMonitoringBody,
    @Headers('if-match') ifMatch: string | undefined,
  ) {
    const version = optionalIfMatchVersion(ifMatch);
    const space = await this.commands.execute(
      new SetMonitoring(principal, orgId, clientId, body.enabled, version, envelope),
    );
    return this.monitoring.afterChange(clientId, space);
  }

  @Route({
    method: 'GET',
    path: `${SCOPE}/notifications`,
    access: readWith('exposure.scopes.manage'),
    summary: 'The scope email preference (owner or administrator)',
    answer: { status: 200, schema: NOTIFICATION_PREFERENCE },
  })
  async preference(@CurrentCaller() { principal, orgId, clientId }: ScopeCaller) {
    return this.monitoring.preference(principal, orgId, clientId);
  }

  @Route({
    method: 'PUT',
    path: `${SCOPE}/notifications`,
    access: manageWith('exposure.scopes.manage'),
    summary: 'Save the email preference (owner or administrator; body version); confirms no delivery',
    answer: { status: 200, schema: NOTIFICATION_PREFERENCE },
    errors: [409],
  })
  async savePreference(
    @CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller,
    @Body() body: NotificationPreferenceBody,
  ) {
    const saved = await this.commands.execute(
      new SaveNotificationPreference(principal, orgId, clientId, body, envelope),
    );
    return preferenceView(saved);
  }
}
