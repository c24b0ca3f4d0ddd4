import { Body, Headers, Inject, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiHeader } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ENRICHMENT_NOTICE } from '../../catalogue/http/enrichment-handler.js';
import type { OrganizationAccess } from '../../organizations/commands/organization-access.js';
import { CurrentOrganization } from '../../organizations/http/organization-access.guard.js';
import { ifMatchVersion } from '../../platform/http/if-match.js';
import { Route } from '../../platform/http/route.js';
import { ApiJson } from '../../platform/http/openapi/responses.js';
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
import {
  CurrentCaller,
  ExposureRoutes,
  manageWith,
  readWith,
  SCOPE,
  type Caller,
  type ScopeCaller,
} from './exposure-route.js';

/** Reading a scope's inventory, history and controls: no write (the capability was checked before). */
const READ_ONLY = { write: false } as const;

/**
 * Exposure scope routes (browser session, CSRF on unsafe methods), Authentication 6: each route's capability
 * (roles.ts) is checked by the organization access layer, Exposition included; the ExposureGate then finds
 * the scope. There is no launch endpoint: refreshes read stored observations, control records are historical
 * imports.
 */
@ExposureRoutes()
export class ExposureController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(ExposureQueries) private readonly queries: ExposureQueries,
  ) {}

  // ---- Lifecycle ----

  @Route({
    method: 'POST',
    path: ':orgId/exposure/scopes',
    access: manageWith('exposure.scopes.manage'),
    summary: 'Create an exposure scope (owner or administrator); capacity billing starts an initial refresh',
    answer: { status: 201, schema: EXPOSURE_SCOPE, description: 'Created' },
    errors: [402, 409],
  })
  async create(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: CreateExposureScopeBody,
  ) {
    const declaration = {
      name: body.name,
      domain: body.domain,
      timezone: body.timezone,
      addresses: body.addresses,
      monitoring: body.monitoring,
      creditLimit: body.credit_limit,
    };
    const { scopeId } = await this.commands.execute(
      new CreateExposureScope(principal, orgId, declaration, envelope),
    );
    return this.queries.scope(scopeId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/clients/deleted',
    access: readWith('spaces.manage'),
    summary: 'Deleted clients still recoverable (managers): up to 100, with erase_after',
    answer: { status: 200, schema: DELETED_CLIENTS },
  })
  async deleted(@CurrentOrganization() access: OrganizationAccess) {
    return this.queries.deleted(access);
  }

  @Route({
    method: 'DELETE',
    path: ':orgId/clients/:clientId',
    access: manageWith('spaces.manage'),
    summary: 'Delete a client (exact name as confirmation, If-Match): access ends now, erasure after 7 days',
    answer: { status: 204, empty: 'Deleted: access ends now, erasure after erase_after' },
    errors: [409, 428],
    also: [ApiHeader(IF_MATCH)],
  })
  async delete(
    @CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller,
    @Body() body: DeleteClientBody,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<void> {
    const version = ifMatchVersion(ifMatch);
    await this.commands.execute(new DeleteClient(principal, orgId, clientId, body.name, version, envelope));
  }

  @Route({
    method: 'POST',
    path: ':orgId/clients/:clientId/restore',
    access: manageWith('spaces.manage'),
    summary: 'Restore a deleted client before erase_after (If-Match): it returns archived',
    answer: { status: 200, schema: EXPOSURE_SCOPE, description: 'Restored: the client is archived' },
    errors: [409, 428],
    also: [ApiHeader(IF_MATCH)],
  })
  async restore(
    @CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller,
    @Headers('if-match') ifMatch: string | undefined,
  ) {
    const version = ifMatchVersion(ifMatch);
    await this.commands.execute(new RestoreClient(principal, orgId, clientId, version, envelope));
    return this.queries.scope(clientId);
  }

  // ---- Inventory, decisions, history ----

  @Route({
    method: 'GET',
    path: SCOPE,
    access: readWith('exposure.scopes.read'),
    summary:
      'Inventory from stored observations: fixed pages of 100 (offset 0 to 50,000), group_by=host, filter',
    answer: { status: 200, schema: INVENTORY },
    query: INVENTORY_QUERY,
  })
  async inventory(
    @CurrentCaller() { principal, orgId, clientId }: ScopeCaller,
    @Query() query: Record<string, unknown>,
  ) {
    return this.queries.inventory(await this.gate.scope(principal, orgId, clientId, READ_ONLY), query);
  }

  @Route({
    method: 'PATCH',
    path: `${SCOPE}/subjects/:subjectId`,
    access: manageWith('exposure.decisions.record'),
    summary: 'Record an attributed decision on a subject (body version, not If-Match)',
    answer: { status: 200, schema: SUBJECT },
    errors: [409],
  })
  async decide(
    @CurrentCaller()
    { principal, envelope, orgId, clientId, subjectId }: ScopeCaller<'subjectId'>,
    @Body() body: DecisionBody,
  ) {
    await this.commands.execute(
      new RecordSubjectDecision(principal, orgId, clientId, subjectId, body, envelope),
    );
    return this.queries.subject(clientId, subjectId);
  }

  @Route({
    method: 'GET',
    path: `${SCOPE}/history`,
    access: readWith('exposure.scopes.read'),
    summary: 'Attributed history, 50 newest per page (offset 0 to 100,000), optional subject',
    answer: { status: 200, schema: HISTORY },
    query: HISTORY_QUERY,
  })
  async history(
    @CurrentCaller() { principal, orgId, clientId }: ScopeCaller,
    @Query() query: Record<string, unknown>,
  ) {
    return this.queries.history(await this.gate.scope(principal, orgId, clientId, READ_ONLY), query);
  }

  @Route({
    method: 'PUT',
    path: `${SCOPE}/timezone`,
    access: manageWith('exposure.scopes.manage'),
    summary: "Change the scope's IANA timezone (managers; version in the body)",
    answer: { status: 200, schema: EXPOSURE_SCOPE },
    errors: [409],
  })
  async timezone(
    @CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller,
    @Body() body: TimezoneBody,
  ) {
    await this.commands.execute(new ChangeScopeTimezone(principal, orgId, clientId, body, envelope));
    return this.queries.scope(clientId);
  }

  @Route({
    method: 'POST',
    path: `${SCOPE}/assets/:assetKey/enrich`,
    access: manageWith('exposure.decisions.record'),
    summary: 'Catalogue association for a stored observation (no request reaches the asset)',
    answer: { status: 200, schema: ASSET_ENRICHMENT },
    errors: [409, 429],
  })
  async enrich(
    @CurrentCaller()
    { principal, envelope, orgId, clientId, assetKey }: ScopeCaller<'assetKey'>,
  ) {
    const enriched = await this.commands.execute(
      new EnrichAsset(principal, orgId, clientId, assetKey, envelope),
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
    access: readWith('exposure.scopes.read'),
    summary: 'Up to 100 historical control records (imported by operators), optional asset filter',
    answer: { status: 200, schema: CONTROLS },
    query: CONTROLS_QUERY,
  })
  async controls(
    @CurrentCaller() { principal, orgId, clientId }: ScopeCaller,
    @Query() query: Record<string, unknown>,
  ) {
    return this.queries.controls(await this.gate.scope(principal, orgId, clientId, READ_ONLY), query);
  }

  @Route({
    method: 'POST',
    path: `${SCOPE}/run`,
    access: manageWith('exposure.refresh.run'),
    summary:
      'Refresh from stored observations with a stable key (16 to 64 characters); cadence, quota, billing',
    answer: { status: 202, schema: RUN, description: 'Accepted: a new refresh runs in the background' },
    errors: [402, 409, 429],
    also: [ApiJson(200, RUN, 'This key already ran: its earlier run')],
  })
  async run(
    @CurrentCaller() { principal, envelope, orgId, clientId }: ScopeCaller,
    @Body() body: RunBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { runId, replayed } = await this.commands.execute(
      new RequestManualRefresh(principal, orgId, clientId, body.key, envelope),
    );
    // A new refresh is accepted (202) and runs in the background; the same key answers its earlier run (200).
    void reply.status(replayed ? 200 : 202);
    return { ...(await this.queries.run(clientId, runId)), replayed, notice: OBSERVATION_NOTICE };
  }
}
