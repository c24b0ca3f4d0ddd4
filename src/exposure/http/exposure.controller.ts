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
  Query,
  Req,
  Res,
} from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENRICHMENT_NOTICE } from '../../catalogue/http/enrichment-handler.js';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ifMatchVersion } from '../../platform/http/if-match.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { ExposureCommands } from '../commands/exposure-commands.js';
import { ExposureQueries, OBSERVATION_NOTICE } from '../queries/exposure-queries.js';
import {
  CreateExposureScopeBody,
  DecisionBody,
  DeleteClientBody,
  RunBody,
  TimezoneBody,
} from './exposure.dtos.js';
import { ApiEmpty, ApiErrors, ApiJson, ApiQueryParams } from '../../platform/http/openapi/responses.js';
import { IF_MATCH } from '../../platform/http/openapi/if-match.js';
import {
  ASSET_ENRICHMENT,
  CONTROLS,
  CONTROLS_QUERY,
  DELETED_CLIENTS,
  HISTORY,
  HISTORY_QUERY,
  INVENTORY,
  INVENTORY_QUERY,
  RUN,
  SCOPE as EXPOSURE_SCOPE,
  SUBJECT,
} from './exposure.openapi.js';

const READ = { surface: 'session', permission: 'organization.read' } as const;
const MANAGE = { surface: 'session', permission: 'organization.manage' } as const;
const SCOPE = ':orgId/clients/:clientId/exposure';
/** Reading a scope's inventory, history and controls: internal work, no write (Authentication 6, ExposureGate). */
const READ_SCOPE_WORK = { capability: 'work.internal', write: false } as const;

/**
 * Exposure scope routes (browser session, CSRF on unsafe methods), Authentication 6 through ExposureGate.
 * There is no launch endpoint: refreshes read stored observations, control records are historical imports.
 */
@ApiTags('exposure')
@Controller('api/v2/organizations')
export class ExposureController {
  constructor(
    @Inject(ExposureCommands) private readonly commands: ExposureCommands,
    @Inject(ExposureQueries) private readonly queries: ExposureQueries,
  ) {}

  private envelope(principal: Principal, request: FastifyRequest) {
    return envelopeFor(principal, String(request.id));
  }

  // ---- Lifecycle ----

  @Post(':orgId/exposure/scopes')
  @HttpCode(201)
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Create an exposure scope (owner or administrator); capacity billing starts an initial refresh',
  })
  @ApiJson(201, EXPOSURE_SCOPE, 'Created')
  @ApiErrors(402, 403, 409)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: CreateExposureScopeBody,
    @Req() request: FastifyRequest,
  ) {
    const scopeId = await this.commands.createScope(
      principal,
      orgId,
      {
        name: body.name,
        domain: body.domain,
        timezone: body.timezone,
        addresses: body.addresses,
        monitoring: body.monitoring,
        creditLimit: body.credit_limit,
      },
      this.envelope(principal, request),
    );
    return this.queries.scope(scopeId);
  }

  @Get(':orgId/clients/deleted')
  @Access(READ)
  @ApiOperation({ summary: 'Deleted clients still recoverable (managers): up to 100, with erase_after' })
  @ApiJson(200, DELETED_CLIENTS)
  @ApiErrors(403)
  async deleted(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    const access = await this.commands.gate
      .organizationGate()
      .require(principal, orgId, { capability: 'spaces.manage' });
    return this.queries.deleted(access);
  }

  @Delete(':orgId/clients/:clientId')
  @HttpCode(204)
  @Access(MANAGE)
  @ApiOperation({
    summary: 'Delete a client (exact name as confirmation, If-Match): access ends now, erasure after 7 days',
  })
  @ApiHeader(IF_MATCH)
  @ApiEmpty(204, 'Deleted: access ends now, erasure after erase_after')
  @ApiErrors(403, 409, 428)
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: DeleteClientBody,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.commands.deleteSpace(
      principal,
      orgId,
      clientId,
      body.name,
      ifMatchVersion(ifMatch),
      this.envelope(principal, request),
    );
  }

  @Post(':orgId/clients/:clientId/restore')
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Restore a deleted client before erase_after (If-Match): it returns archived' })
  @ApiHeader(IF_MATCH)
  @ApiJson(200, EXPOSURE_SCOPE, 'Restored: the client is archived')
  @ApiErrors(403, 409, 428)
  async restore(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.restoreSpace(
      principal,
      orgId,
      clientId,
      ifMatchVersion(ifMatch),
      this.envelope(principal, request),
    );
    return this.queries.scope(clientId);
  }

  // ---- Inventory, decisions, history ----

  @Get(SCOPE)
  @Access(READ)
  @ApiOperation({
    summary:
      'Inventory from stored observations: fixed pages of 100 (offset 0 to 50,000), group_by=host, filter',
  })
  @ApiQueryParams(INVENTORY_QUERY)
  @ApiJson(200, INVENTORY)
  @ApiErrors(403)
  async inventory(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = await this.commands.gate.scope(principal, orgId, clientId, READ_SCOPE_WORK);
    return this.queries.inventory(scope, query);
  }

  @Patch(`${SCOPE}/subjects/:subjectId`)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Record an attributed decision on a subject (body version, not If-Match)' })
  @ApiJson(200, SUBJECT)
  @ApiErrors(403, 409)
  async decide(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Param('subjectId') subjectId: string,
    @Body() body: DecisionBody,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.recordDecision(
      principal,
      orgId,
      clientId,
      subjectId,
      body,
      this.envelope(principal, request),
    );
    return this.queries.subject(clientId, subjectId);
  }

  @Get(`${SCOPE}/history`)
  @Access(READ)
  @ApiOperation({ summary: 'Attributed history, 50 newest per page (offset 0 to 100,000), optional subject' })
  @ApiQueryParams(HISTORY_QUERY)
  @ApiJson(200, HISTORY)
  @ApiErrors(403)
  async history(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = await this.commands.gate.scope(principal, orgId, clientId, READ_SCOPE_WORK);
    return this.queries.history(scope, query);
  }

  @Put(`${SCOPE}/timezone`)
  @Access(MANAGE)
  @ApiOperation({ summary: "Change the scope's IANA timezone (managers; version in the body)" })
  @ApiJson(200, EXPOSURE_SCOPE)
  @ApiErrors(403, 409)
  async timezone(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: TimezoneBody,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.changeTimezone(principal, orgId, clientId, body, this.envelope(principal, request));
    return this.queries.scope(clientId);
  }

  @Post(`${SCOPE}/assets/:assetKey/enrich`)
  @HttpCode(200)
  @Access(MANAGE)
  @ApiOperation({ summary: 'Catalogue association for a stored observation (no request reaches the asset)' })
  @ApiJson(200, ASSET_ENRICHMENT)
  @ApiErrors(403, 409, 429)
  async enrich(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Param('assetKey') assetKey: string,
    @Req() request: FastifyRequest,
  ) {
    const enriched = await this.commands.enrichAsset(
      principal,
      orgId,
      clientId,
      assetKey,
      this.envelope(principal, request),
    );
    const subject = await this.queries.subject(clientId, assetKey);
    return {
      asset_key: assetKey,
      observation_id: enriched.record.id,
      observation_last_seen: enriched.record.last_seen,
      catalogue_version: enriched.catalogueVersion,
      coverage: subject.kind === 'service' && 'coverage' in subject ? subject.coverage : null,
      result_state: enriched.evaluation.result,
      findings: enriched.findings,
      subject,
      notice: ENRICHMENT_NOTICE,
    };
  }

  @Get(`${SCOPE}/controls`)
  @Access(READ)
  @ApiOperation({
    summary: 'Up to 100 historical control records (imported by operators), optional asset filter',
  })
  @ApiQueryParams(CONTROLS_QUERY)
  @ApiJson(200, CONTROLS)
  @ApiErrors(403)
  async controls(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = await this.commands.gate.scope(principal, orgId, clientId, READ_SCOPE_WORK);
    return this.queries.controls(scope, query);
  }

  @Post(`${SCOPE}/run`)
  @Access(MANAGE)
  @ApiOperation({
    summary:
      'Refresh from stored observations with a stable key (16 to 64 characters); cadence, quota, billing',
  })
  @ApiJson(202, RUN, 'Accepted: a new refresh runs in the background')
  @ApiJson(200, RUN, 'This key already ran: its earlier run')
  @ApiErrors(402, 403, 409, 429)
  async run(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: RunBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { runId, replayed } = await this.commands.requestManualRefresh(
      principal,
      orgId,
      clientId,
      body.key,
      this.envelope(principal, request),
    );
    // A new refresh is accepted (202) and runs in the background; the same key answers its earlier run (200).
    void reply.status(replayed ? 200 : 202);
    return { ...(await this.queries.run(clientId, runId)), replayed, notice: OBSERVATION_NOTICE };
  }
}
