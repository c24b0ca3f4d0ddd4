import { CommandBus } from '@nestjs/cqrs';
import { Body, Controller, Inject, Param, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { Route } from '../../platform/http/route.js';
import { OrganizationGate } from '../commands/organization-access.js';
import { ArchiveCase, OpenCase, SaveEvidence } from '../commands/cases.commands.js';
import { OrganizationQueries } from '../queries/organization-queries.js';
import { OpenCaseBody, SaveEvidenceBody } from './organization.dtos.js';
import { MANAGE, OperationIdsOf, READ, requestEnvelope } from './organization-route.js';
import { CASE, CASES, EVIDENCE } from './organizations.openapi.js';

/** Cases and the evidence saved into them. */
@ApiTags('organizations')
@Controller('api/v2/organizations')
@OperationIdsOf('OrganizationsController')
export class CasesController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(OrganizationQueries) private readonly queries: OrganizationQueries,
  ) {}

  @Route({
    method: 'GET',
    path: ':orgId/cases',
    access: READ,
    summary: 'Cases of the spaces the caller reaches (historical General research ones included)',
    answer: { status: 200, schema: CASES },
    errors: [403],
  })
  async cases(@CurrentPrincipal() principal: Principal, @Param('orgId') orgId: string) {
    return this.queries.cases(await this.gate.require(principal, orgId));
  }

  @Route({
    method: 'POST',
    path: ':orgId/cases',
    access: MANAGE,
    summary: 'Open a case in a client space (never in General research)',
    answer: { status: 201, schema: CASE, description: 'Opened' },
    errors: [403, 409],
  })
  async openCase(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: OpenCaseBody,
    @Req() request: FastifyRequest,
  ) {
    const { caseId } = await this.commands.execute(
      new OpenCase(principal, orgId, body.space_id, body.title, requestEnvelope(principal, request)),
    );
    return this.caseDetail(principal, orgId, caseId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/cases/:caseId',
    access: READ,
    summary: 'A case with its evidence (external users see client-visible evidence only)',
    answer: { status: 200, schema: CASE },
    errors: [403],
  })
  async caseDetail(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('caseId') caseId: string,
  ) {
    return this.queries.caseDetail(await this.gate.require(principal, orgId), caseId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/cases/:caseId/archive',
    access: MANAGE,
    summary: 'Archive a case (it stays reviewable; evidence goes to another case)',
    answer: { status: 200, schema: CASE },
    errors: [403, 409],
  })
  async archiveCase(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('caseId') caseId: string,
    @Req() request: FastifyRequest,
  ) {
    await this.commands.execute(
      new ArchiveCase(principal, orgId, caseId, requestEnvelope(principal, request)),
    );
    return this.caseDetail(principal, orgId, caseId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/evidence',
    access: MANAGE,
    summary: 'Save up to 20 records of a completed search into the selected case; runs no search',
    answer: { status: 201, schema: EVIDENCE, description: 'Saved' },
    errors: [403, 409],
  })
  async saveEvidence(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Body() body: SaveEvidenceBody,
    @Req() request: FastifyRequest,
  ) {
    const saved = await this.commands.execute(
      new SaveEvidence(
        principal,
        orgId,
        body.search_id,
        body.records,
        body.note,
        body.visibility,
        requestEnvelope(principal, request),
      ),
    );
    return this.evidence(principal, orgId, saved.evidenceId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/evidence/:evidenceId',
    access: READ,
    summary: 'One saved evidence item',
    answer: { status: 200, schema: EVIDENCE },
    errors: [403],
  })
  async evidence(
    @CurrentPrincipal() principal: Principal,
    @Param('orgId') orgId: string,
    @Param('evidenceId') evidenceId: string,
  ) {
    return this.queries.evidence(await this.gate.require(principal, orgId), evidenceId);
  }
}
