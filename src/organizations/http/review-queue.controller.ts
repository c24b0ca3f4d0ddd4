import { Body } from '@nestjs/common';
import { Route } from '../../platform/http/route.js';
import type { OrganizationAccess } from '../commands/organization-access.js';
import {
  AddReviewItem,
  PrepareComparison,
  PublishComparison,
  UpdateReviewItem,
} from '../commands/review-queue.commands.js';
import { AddReviewItemBody, PrepareComparisonBody, UpdateReviewItemBody } from './organization.dtos.js';
import { CurrentOrganization } from './organization-access.guard.js';
import { OrganizationHandlers } from './organization-handlers.js';
import {
  manageWith,
  OrganizationRoutes,
  readWith,
  CurrentCaller,
  type Caller,
} from './organization-route.js';
import { COMPARISON, CREATED_ID, REVIEW_ITEM, REVIEW_QUEUE } from './organizations.openapi.js';

/** The review queue and report comparisons (rule 11). */
@OrganizationRoutes()
export class ReviewQueueController extends OrganizationHandlers {
  @Route({
    method: 'GET',
    path: ':orgId/review-queue',
    access: readWith('work.internal'),
    summary: 'Observations queued for review across every accessible space (internal members)',
    answer: { status: 200, schema: REVIEW_QUEUE },
  })
  async reviewQueue(@CurrentOrganization() access: OrganizationAccess) {
    return this.queries.reviewQueue(access);
  }

  @Route({
    method: 'POST',
    path: ':orgId/review-queue',
    access: manageWith('work.internal'),
    summary: 'Queue an observation of a completed search for review',
    answer: { status: 201, schema: CREATED_ID, description: 'Queued' },
    errors: [409],
  })
  async addReviewItem(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: AddReviewItemBody,
  ) {
    const { itemId } = await this.commands.execute(
      new AddReviewItem(principal, orgId, body.search_id, body.record, envelope),
    );
    return { id: itemId };
  }

  @Route({
    method: 'PATCH',
    path: ':orgId/review-queue/:itemId',
    access: manageWith('work.internal'),
    summary: 'Assign, give a due date, tie to a source (evidence) in a case',
    answer: { status: 200, schema: REVIEW_ITEM },
    errors: [409],
  })
  async updateReviewItem(
    @CurrentCaller() { principal, envelope, orgId, itemId }: Caller<'orgId' | 'itemId'>,
    @Body() body: UpdateReviewItemBody,
  ) {
    await this.commands.execute(
      new UpdateReviewItem(
        principal,
        orgId,
        itemId,
        {
          ...('assignee' in body ? { assignee: body.assignee ?? null } : {}),
          ...('due_date' in body ? { dueDate: body.due_date ?? null } : {}),
          ...('source' in body
            ? {
                source: body.source
                  ? { caseId: body.source.case_id, evidenceId: body.source.evidence_id }
                  : null,
              }
            : {}),
        },
        envelope,
      ),
    );
    const queue = await this.queries.reviewQueue(
      await this.gate.require(principal, orgId, { capability: 'work.internal' }),
    );
    return queue.items.find((item) => item.id === itemId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/comparisons',
    access: manageWith('work.internal'),
    summary: 'Prepare a report comparison from selected evidence',
    answer: { status: 201, schema: COMPARISON, description: 'Prepared' },
    errors: [409],
  })
  async prepareComparison(
    @CurrentCaller() { principal, envelope, orgId }: Caller<'orgId'>,
    @Body() body: PrepareComparisonBody,
  ) {
    const { comparisonId } = await this.commands.execute(
      new PrepareComparison(principal, orgId, body.space_id, body.title, body.evidence_ids, envelope),
    );
    return this.queries.comparison(await this.gate.require(principal, orgId), comparisonId);
  }

  @Route({
    method: 'GET',
    path: ':orgId/comparisons/:comparisonId',
    access: readWith('organization.read'),
    summary: 'A report comparison (external clients: once published)',
    answer: { status: 200, schema: COMPARISON },
  })
  async comparison(
    @CurrentOrganization() access: OrganizationAccess,
    @CurrentCaller() { comparisonId }: Caller<'comparisonId'>,
  ) {
    return this.queries.comparison(access, comparisonId);
  }

  @Route({
    method: 'POST',
    path: ':orgId/comparisons/:comparisonId/publish',
    access: manageWith('work.internal'),
    summary: "Publish a comparison to the client's space view",
    answer: { status: 200, schema: COMPARISON },
    errors: [409],
  })
  async publishComparison(
    @CurrentCaller() { principal, envelope, orgId, comparisonId }: Caller<'orgId' | 'comparisonId'>,
  ) {
    await this.commands.execute(new PublishComparison(principal, orgId, comparisonId, envelope));
    return this.queries.comparison(await this.gate.require(principal, orgId), comparisonId);
  }
}
