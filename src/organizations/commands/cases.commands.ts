import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { RecordRef, Visibility } from '../domain/case.js';

/** Opens a case in a client space (never in General research). */
export class OpenCase extends Command<{ caseId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly spaceId: string,
    readonly title: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Archives a case: it stays reviewable, new evidence goes to another case. */
export class ArchiveCase extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly caseId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Saves records of a completed search into the session's selected case; runs no search, creates no case. */
export class SaveEvidence extends Command<{ evidenceId: string; caseId: string }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly searchId: string,
    readonly records: RecordRef[],
    readonly note: string,
    readonly visibility: Visibility | undefined,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** Records a search run in the organization's context, so evidence can name its records later (rule 4). */
export class RecordCompletedSearch extends Command<{ searchId: string }> {
  constructor(
    readonly organizationId: string,
    readonly spaceId: string,
    readonly accountId: string,
    readonly search: {
      readonly rawQuery: string;
      readonly timeFrame: string;
      readonly creditsCharged: number;
      readonly records: Array<{ dataset: string; id: string; source: Record<string, unknown> }>;
    },
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
