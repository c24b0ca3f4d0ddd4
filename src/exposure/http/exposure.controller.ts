import { Body, Controller, Headers, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENRICHMENT_NOTICE } from '../../catalogue/http/enrichment-handler.js';
import type { Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ifMatchVersion } from '../../platform/http/if-match.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { Route } from '../../platform/http/route.js';
import { ApiJson, ApiQueryParams } from '../../platform/http/openapi/responses.js';
import { IF_MATCH } from '../../platform/http/openapi/if-match.js';
import { ExposureGate } from '../commands/exposure-access.js';
import { EnrichAsset, RecordSubjectDecision } from '../commands/decisions.commands.js';
import { RequestManualRefresh } from '../commands/refresh.commands.js';
import {
  ChangeScopeTimezone,
  CreateExposureScope,
  DeleteClient,
  RestoreClient,
} from '../commands/scope-lifecycle.commands.js';
import { ExposureQueries, OBSERVATION_NOTICE } from '../queries/exposure-queries.js';
import {
  CreateExposureScopeBody,
  DecisionBody,
  DeleteClientBody,
  RunBody,
  TimezoneBody,
} from './exposure.dtos.js';
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
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(ExposureQueries) private readonly queries: ExposureQueries,
  ) {}

  private envelope(principal: Principal, request: FastifyRequest) {
    return envelopeFor(principal, String(request.id));
  }

  // ---- Lifecycle ----

  @Route({
    method: 'POST',
    path: ':orgId/exposure/scopes',
    access: MANAGE,
    summary: 'Create an exposure scope (owner or administrator); capacity billing starts an initial refresh',
    answer: { status: 201, schema: EXPOSURE_SCOPE, description: 'Created' },
    errors: [402, 403, 409],
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: CreateExposureScopeBody,
    @Req() request: FastifyRequest,
  ) {
    const { scopeId } = await this.commands.execute(
      new CreateExposureScope(
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
      ),
    );
    return this.queries.scope(scopeId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/clients/deleted',
    access: READ,
    summary: 'Deleted clients still recoverable (managers): up to 100, with erase_after',
    answer: { status: 200, schema: DELETED_CLIENTS },
    errors: [403],
  })
  async deleted(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    const access = await this.gate
      .organizationGate()
      .require(principal, orgId, { capability: 'spaces.manage' });
    return this.queries.deleted(access);
  }

  @Route({
    method: 'DELETE',
    path: ':orgId/clients/:clientId',
    access: MANAGE,
    summary: 'Delete a client (exact name as confirmation, If-Match): access ends now, erasure after 7 days',
    answer: { status: 204, empty: 'Deleted: access ends now, erasure after erase_after' },
    errors: [403, 409, 428],
    also: [ApiHeader(IF_MATCH)],
  })
  async delete(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: DeleteClientBody,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.commands.execute(
      new DeleteClient(
        principal,
        orgId,
        clientId,
        body.name,
        ifMatchVersion(ifMatch),
        this.envelope(principal, request),
      ),
    );
  }

  @Route({
    method: 'POST',
    path: ':orgId/clients/:clientId/restore',
    access: MANAGE,
    summary: 'Restore a deleted client before erase_after (If-Match): it returns archived',
    answer: { status: 200, schema: EXPOSURE_SCOPE, description: 'Restored: the client is archived' },
    errors: [403, 409, 428],
    also: [ApiHeader(IF_MATCH)],
  })
  async restore(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Headers('if-match') ifMatch: string | undefined,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.execute(
      new RestoreClient(
        principal,
        orgId,
        clientId,
        ifMatchVersion(ifMatch),
        this.envelope(principal, request),
      ),
    );
    return this.queries.scope(clientId);
  }

  // ---- Inventory, decisions, history ----

  @Route({
    method: 'GET',
    path: SCOPE,
    access: READ,
    summary:
      'Inventory from stored observations: fixed pages of 100 (offset 0 to 50,000), group_by=host, filter',
    answer: { status: 200, schema: INVENTORY },
    errors: [403],
  })
  @ApiQueryParams(INVENTORY_QUERY)
  async inventory(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = await this.gate.scope(principal, orgId, clientId, READ_SCOPE_WORK);
    return this.queries.inventory(scope, query);
  }

  @Route({
    method: 'PATCH',
    path: `${SCOPE}/subjects/:subjectId`,
    access: MANAGE,
    summary: 'Record an attributed decision on a subject (body version, not If-Match)',
    answer: { status: 200, schema: SUBJECT },
    errors: [403, 409],
  })
  async decide(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Param('subjectId') subjectId: string,
    @Body() body: DecisionBody,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.execute(
      new RecordSubjectDecision(
        principal,
        orgId,
        clientId,
        subjectId,
        body,
        this.envelope(principal, request),
      ),
    );
    return this.queries.subject(clientId, subjectId);
  }

  @Route({
    method: 'GET',
    path: `${SCOPE}/history`,
    access: READ,
    summary: 'Attributed history, 50 newest per page (offset 0 to 100,000), optional subject',
    answer: { status: 200, schema: HISTORY },
    errors: [403],
  })
  @ApiQueryParams(HISTORY_QUERY)
  async history(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = await this.gate.scope(principal, orgId, clientId, READ_SCOPE_WORK);
    return this.queries.history(scope, query);
  }

  @Route({
    method: 'PUT',
    path: `${SCOPE}/timezone`,
    access: MANAGE,
    summary: "Change the scope's IANA timezone (managers; version in the body)",
    answer: { status: 200, schema: EXPOSURE_SCOPE },
    errors: [403, 409],
  })
  async timezone(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: TimezoneBody,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.execute(
      new ChangeScopeTimezone(principal, orgId, clientId, body, this.envelope(principal, request)),
    );
    return this.queries.scope(clientId);
  }

  @Route({
    method: 'POST',
    path: `${SCOPE}/assets/:assetKey/enrich`,
    access: MANAGE,
    summary: 'Catalogue association for a stored observation (no request reaches the asset)',
    answer: { status: 200, schema: ASSET_ENRICHMENT },
    errors: [403, 409, 429],
  })
  async enrich(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Param('assetKey') assetKey: string,
    @Req() request: FastifyRequest,
  ) {
    const enriched = await this.commands.execute(
      new EnrichAsset(principal, orgId, clientId, assetKey, this.envelope(principal, request)),
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

  @Route({
    method: 'GET',
    path: `${SCOPE}/controls`,
    access: READ,
    summary: 'Up to 100 historical control records (imported by operators), optional asset filter',
    answer: { status: 200, schema: CONTROLS },
    errors: [403],
  })
  @ApiQueryParams(CONTROLS_QUERY)
  async controls(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Query() query: Record<string, unknown>,
  ) {
    const scope = await this.gate.scope(principal, orgId, clientId, READ_SCOPE_WORK);
    return this.queries.controls(scope, query);
  }

  @Route({
    method: 'POST',
    path: `${SCOPE}/run`,
    access: MANAGE,
    summary:
      'Refresh from stored observations with a stable key (16 to 64 characters); cadence, quota, billing',
    answer: { status: 202, schema: RUN, description: 'Accepted: a new refresh runs in the background' },
    errors: [402, 403, 409, 429],
    also: [ApiJson(200, RUN, 'This key already ran: its earlier run')],
  })
  async run(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('clientId') clientId: string,
    @Body() body: RunBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { runId, replayed } = await this.commands.execute(
      new RequestManualRefresh(principal, orgId, clientId, body.key, this.envelope(principal, request)),
    );
    // A new refresh is accepted (202) and runs in the background; the same key answers its earlier run (200).
    void reply.status(replayed ? 200 : 202);
    return { ...(await this.queries.run(clientId, runId)), replayed, notice: OBSERVATION_NOTICE };
  }
}
