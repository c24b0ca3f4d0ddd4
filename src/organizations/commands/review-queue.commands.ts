import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { RecordRef } from '../domain/case.js';

/** Queues an observation of a completed search for review (internal members). */
export class AddReviewItem extends Command<{ itemId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly searchId: string,
    readonly record: RecordRef,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Assigns a review item, gives it a due date, or ties it to a source (evidence) in a case. */
export class UpdateReviewItem extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly itemId: string,
    readonly change: {
      readonly assignee?: string | null;
      readonly dueDate?: string | null;
      readonly source?: { readonly caseId: string; readonly evidenceId: string } | null;
    },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Prepares a report comparison from selected evidence of the organization. */
export class PrepareComparison extends Command<{ comparisonId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly spaceId: string,
    readonly title: string,
    readonly evidenceIds: string[],
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Publishes a comparison to the client's space view. */
export class PublishComparison extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly comparisonId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
