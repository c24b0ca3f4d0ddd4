import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { Evaluation } from '../../catalogue/domain/matching.js';
import type { ObservationRecord } from '../../search/observation-index/observation-index.port.js';
import type { ServiceEvaluation } from '../domain/coverage.js';

export interface DecisionBody {
  readonly version: unknown;
  readonly decision: unknown;
  readonly conclusion?: unknown;
  readonly according_to?: unknown;
  readonly note?: unknown;
  readonly announced_date?: unknown;
  readonly renewal?: unknown;
}

/** An attributed decision on a subject, at the body version the client read. */
export class RecordSubjectDecision extends Command<void> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly subjectId: string,
    readonly body: DecisionBody,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export interface AssetEnrichment {
  readonly record: ObservationRecord;
  readonly evaluation: ServiceEvaluation;
  readonly findings: Evaluation['findings'];
  readonly catalogueVersion: number | null;
}

/**
 * POST …/assets/{assetKey}/enrich: the catalogue association of the stored observation behind a service
 * subject, recorded on the subject. No request reaches the asset.
 */
export class EnrichAsset extends Command<AssetEnrichment> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly assetKey: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/** "A later observation can reopen the subject": a refresh saw a decided subject again. */
export class ReopenDecidedSubject extends Command<void> {
  constructor(
    readonly scopeId: string,
    readonly subjectId: string,
    readonly observedLastSeen: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
