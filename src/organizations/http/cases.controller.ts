import { Body } from '@nestjs/common';
import { Route } from '../../platform/http/route.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import { ArchiveCase, OpenCase, SaveEvidence } from '../commands/cases.commands.js';
import { OpenCaseBody, SaveEvidenceBody } from './organization.dtos.js';
import { CurrentOrganization } from './organization-access.guard.js';
import { OrganizationHandlers } from './organization-handlers.js';
import {
  manageWith,
  OrganizationRoutes,
  readWith,
  CurrentCaller,
  type Caller,
} from './organization-route.js';
import { CASE, CASES, EVIDENCE } from './organizations.openapi.js';

/** Cases and the evidence saved into them. */
@OrganizationRoutes()
export class CasesController extends OrganizationHandlers {
  @Route({
    method: 'GET',
    path: ':orgId/cases',
    access: readWith('organization.read'),
    summary: 'Cases of the spaces the caller reaches (historical General research ones included)',
    answer: { status: 200, schema: CASES },
  })
  async cases(@CurrentOrganization() access: OrganizationAccess) {
    return this.queries.cases(access);
  }

  @Route({
    method: 'POST',
    path: ':orgId/cases',
    access: manageWith('work.internal'),
    summary: 'Open a case in a client space (never in General research)',
    answer: { status: 201, schema: CASE, description: 'Opened' },
    errors: [409],
  })
  async openCase(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: OpenCaseBody,
  ) {
    const { caseId } = await this.commands.execute(
      new OpenCase(principal, orgId, body.space_id, body.title, envelope),
    );
    return this.queries.caseDetail(await this.gate.require(principal, orgId), caseId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/cases/:caseId',
    access: readWith('organization.read'),
    summary: 'A case with its evidence (external users see client-visible evidence only)',
    answer: { status: 200, schema: CASE },
  })
  async caseDetail(
    @CurrentOrganization() access: OrganizationAccess,
    @CurrentCaller() { caseId }: Caller<'caseId'>,
  ) {
    return this.queries.caseDetail(access, caseId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/cases/:caseId/archive',
    access: manageWith('work.internal'),
    summary: 'Archive a case (it stays reviewable; evidence goes to another case)',
    answer: { status: 200, schema: CASE },
    errors: [409],
  })
  async archiveCase(@CurrentCaller() { principal, envelope, orgId, caseId }: Caller<'orgId' | 'caseId'>) {
    await this.commands.execute(new ArchiveCase(principal, orgId, caseId, envelope));
    return this.queries.caseDetail(await this.gate.require(principal, orgId), caseId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/evidence',
    access: manageWith('organization.read'),
    summary: 'Save up to 20 records of a completed search into the selected case; runs no search',
    answer: { status: 201, schema: EVIDENCE, description: 'Saved' },
    errors: [409],
  })
  async saveEvidence(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: SaveEvidenceBody,
  ) {
    const saved = await this.commands.execute(
      new SaveEvidence(principal, orgId, body.search_id, body.records, body.note, body.visibility, envelope),
    );
    return this.queries.evidence(await this.gate.require(principal, orgId), saved.evidenceId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/evidence/:evidenceId',
    access: readWith('organization.read'),
    summary: 'One saved evidence item',
    answer: { status: 200, schema: EVIDENCE },
  })
  async evidence(
    @CurrentOrganization() access: OrganizationAccess,
    @CurrentCaller() { evidenceId }: Caller<'evidenceId'>,
  ) {
    return this.queries.evidence(access, evidenceId);
  }
}
