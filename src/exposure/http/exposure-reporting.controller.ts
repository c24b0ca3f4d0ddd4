import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { optionalIfMatchVersion } from '../../platform/http/if-match.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { ExposureMonitoring } from '../commands/exposure-monitoring.js';
import { ExposureReports, reportSummary } from '../commands/exposure-reports.js';
import { ExposureMonitoringBody, NotificationPreferenceBody } from './exposure-reporting.dtos.js';
import { ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { OPTIONAL_IF_MATCH } from '../../platform/http/openapi/if-match.js';
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
 * methods). Access (Authentication 6) is decided by the exposure gate in the commands.
 */
@ApiTags('exposure')
@Controller('api/v2/organizations')
export class ExposureReportingController {
  constructor(
    @Inject(ExposureReports) private readonly reports: ExposureReports,
    @Inject(ExposureMonitoring) private readonly monitoring: ExposureMonitoring,
  ) {}

  @Get(`${SCOPE}/reports`)
  @Access(READ)
  @ApiOperation({ summary: 'Up to 100 frozen report summaries, newest first' })
  @ApiJson(200, REPORTS)
  @ApiErrors(403)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
  ) {
    return this.reports.list(principal, orgId, clientId);
  }

  @Post(`${SCOPE}/reports`)
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({
    summary:
      'Freeze the current view (at most 100 per scope, 16 MiB); runs no search, scan, guest link or email',
  })
  @ApiJson(201, REPORT_SUMMARY, 'Frozen')
  @ApiErrors(403, 409)
  async freeze(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
  ) {
    const report = await this.reports.freeze(
      principal,
      orgId,
      clientId,
      envelopeFor(principal, String(request.id)),
    );
    return reportSummary(report, orgId);
  }

  @Get(`${SCOPE}/reports/:reportId`)
  @Access(READ)
  @ApiOperation({ summary: 'The saved document, under current permissions; never today\u2019s inventory' })
  @ApiJson(200, REPORT_DOCUMENT, 'The saved document', REPORT_HEADERS)
  @ApiErrors(403)
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

  @Put(`${SCOPE}/monitoring`)
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Activate or stop scheduled observation watches (owner or administrator); optional If-Match',
  })
  @ApiHeader(OPTIONAL_IF_MATCH)
  @ApiJson(200, MONITORING)
  @ApiErrors(403, 409)
  async setMonitoring(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: ExposureMonitoringBody,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    return this.monitoring.setMonitoring(
      principal,
      orgId,
      clientId,
      body.enabled,
      optionalIfMatchVersion(ifMatch),
      envelopeFor(principal, String(request.id)),
    );
  }

  @Get(`${SCOPE}/notifications`)
  @Access(READ)
  @ApiOperation({ summary: 'The scope email preference (owner or administrator)' })
  @ApiJson(200, NOTIFICATION_PREFERENCE)
  @ApiErrors(403)
  async preference(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
  ) {
    return this.monitoring.preference(principal, orgId, clientId);
  }

  @Put(`${SCOPE}/notifications`)
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Save the email preference (owner or administrator; body version); confirms no delivery',
  })
  @ApiJson(200, NOTIFICATION_PREFERENCE)
  @ApiErrors(403, 409)
  async savePreference(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: NotificationPreferenceBody,
    @Req() request: FastifyRequest,
  ) {
    return this.monitoring.savePreference(
      principal,
      orgId,
      clientId,
      body,
      envelopeFor(principal, String(request.id)),
    );
  }
}
