import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ORGANIZATION_EVIDENCE } from '../../../projections/organizations.projection.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { memberOf, reachesSpace } from '../domain/organization.js';
import {
  comparisonDecider,
  comparisonStreamId,
  reviewItemDecider,
  reviewItemStreamId,
  type EvidenceFacts,
} from '../domain/review.js';
import { isStaff } from '../domain/roles.js';
import { isId, OrganizationGate } from './organization-access.js';
import { ORGANIZATIONS_READ_MODEL, withPayer } from './organization-writes.js';
import {
  AddReviewItem,
  PrepareComparison,
  PublishComparison,
  UpdateReviewItem,
} from './review-queue.commands.js';

type EvidenceDocument = EvidenceFacts & {
  id: string;
  caseId: string;
  spaceId: string;
  organizationId: string;
  [field: string]: unknown;
};

@CommandHandler(AddReviewItem)
export class AddReviewItemHandler implements ICommandHandler<AddReviewItem> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: AddReviewItem): Promise<{ itemId: string }> {
    const { principal, organizationId } = command;
    const access = await this.gate.require(principal, organizationId, { open: true });
    const search = await this.gate.completedSearch(access, command.searchId);
    const record = search.records.find(
      (r) => r.dataset === command.record?.dataset && r.id === command.record?.id,
    );
    if (!record) throw new ServiceError('invalid_input', 'record is not a record of this search');
    const itemId = randomUUID();
    await this.writer.decide({
      stream: reviewItemStreamId(itemId),
      decider: reviewItemDecider,
      command: {
        type: 'AddReviewItem',
        itemId,
        organizationId,
        spaceId: search.spaceId,
        searchId: command.searchId,
        record,
        addedBy: principal.accountId,
      },
      context: { now: this.clock.now() },
      envelope: withPayer(command.envelope, organizationId, search.spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
    return { itemId };
  }
}

@CommandHandler(UpdateReviewItem)
export class UpdateReviewItemHandler implements ICommandHandler<UpdateReviewItem> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, itemId, change, envelope }: UpdateReviewItem): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    if (!isId(itemId)) throw new ServiceError('not_found', 'no such review item');
    const item = await this.writer.load(reviewItemStreamId(itemId), reviewItemDecider);
    if (
      !item.state.exists ||
      item.state.organizationId !== organizationId ||
      !reachesSpace(access.state, access.accountId, item.state.spaceId!)
    ) {
      throw new ServiceError('not_found', 'no such review item');
    }
    const spaceId = item.state.spaceId!;
    const assigneeMember =
      typeof change.assignee === 'string' ? memberOf(access.state, change.assignee) : undefined;
    const assigneeReachesSpace =
      assigneeMember !== undefined &&
      isStaff(assigneeMember.role) &&
      reachesSpace(access.state, change.assignee!, spaceId);
    let sourceInSpace = false;
    if (change.source) {
      const evidence = await this.projections
        .collection<EvidenceDocument>('organizations', ORGANIZATION_EVIDENCE)
        .get(String(change.source.evidenceId));
      sourceInSpace =
        evidence !== null &&
        evidence.organizationId === organizationId &&
        evidence.caseId === change.source.caseId &&
        evidence.spaceId === spaceId;
    }
    await this.writer.decide({
      stream: reviewItemStreamId(itemId),
      decider: reviewItemDecider,
      command: { type: 'UpdateReviewItem', ...change, assigneeReachesSpace, sourceInSpace },
      context: { now: this.clock.now() },
      envelope: withPayer(envelope, organizationId, spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
  }
}

@CommandHandler(PrepareComparison)
export class PrepareComparisonHandler implements ICommandHandler<PrepareComparison> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: PrepareComparison): Promise<{ comparisonId: string }> {
    const { principal, organizationId, spaceId } = command;
    const access = await this.gate.require(principal, organizationId, { open: true });
    await this.gate.space(access, spaceId);
    const ids = [...new Set(command.evidenceIds)];
    const found = await this.projections
      .collection<EvidenceDocument>('organizations', ORGANIZATION_EVIDENCE)
      .getMany(ids.filter(isId));
    const byId = new Map(found.filter((e) => e.organizationId === organizationId).map((e) => [e.id, e]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length > 0)
      throw new ServiceError('invalid_input', `unknown evidence: ${missing.join(', ')}`);
    const comparisonId = randomUUID();
    await this.writer.decide({
      stream: comparisonStreamId(comparisonId),
      decider: comparisonDecider,
      command: {
        type: 'PrepareComparison',
        comparisonId,
        organizationId,
        spaceId,
        title: command.title,
        evidence: ids.map((id) => byId.get(id)!),
        preparedBy: principal.accountId,
      },
      context: { now: this.clock.now() },
      envelope: withPayer(command.envelope, organizationId, spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
    return { comparisonId };
  }
}

@CommandHandler(PublishComparison)
export class PublishComparisonHandler implements ICommandHandler<PublishComparison> {
  constructor(
    @Inject(OrganizationGate) private readonly gate: OrganizationGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, comparisonId, envelope }: PublishComparison): Promise<void> {
    const access = await this.gate.require(principal, organizationId, { open: true });
    const spaceId = await this.gate.comparisonSpace(access, comparisonId);
    await this.writer.decide({
      stream: comparisonStreamId(comparisonId),
      decider: comparisonDecider,
      command: { type: 'PublishComparison' },
      context: { now: this.clock.now() },
      envelope: withPayer(envelope, organizationId, spaceId),
      readYourWrites: ORGANIZATIONS_READ_MODEL,
    });
  }
}

export const reviewQueueHandlers = [
  AddReviewItemHandler,
  UpdateReviewItemHandler,
  PrepareComparisonHandler,
  PublishComparisonHandler,
];
