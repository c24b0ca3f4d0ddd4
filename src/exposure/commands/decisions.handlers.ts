import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CatalogueService } from '../../catalogue/catalogue-service.js';
import { VULNERABILITY_ENRICHMENT_RATE } from '../../catalogue/http/enrichment-handler.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { enforce, RATE_LIMITER, type RateLimiter } from '../../platform/rate-limit/rate-limiter.port.js';
import {
  OBSERVATION_INDEX,
  type ObservationIndex,
} from '../../search/observation-index/observation-index.port.js';
import { declarationKey, evaluateService, type CatalogueAvailability } from '../domain/coverage.js';
import { subjectDecider, subjectStreamId } from '../domain/subject.js';
import { EnrichAsset, RecordSubjectDecision, ReopenDecidedSubject } from './decisions.commands.js';
import { ExposureGate, requireActiveScope } from './exposure-access.js';
import {
  bodyVersion,
  EXPOSURE_PROJECTIONS,
  scopeSubject,
  withBodyVersion,
  withScope,
} from './exposure-write.js';

@CommandHandler(RecordSubjectDecision)
export class RecordSubjectDecisionHandler implements ICommandHandler<RecordSubjectDecision> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute(command: RecordSubjectDecision): Promise<void> {
    const { principal, organizationId, scopeId, subjectId, body, envelope } = command;
    const version = bodyVersion(body.version);
    const scope = await this.gate.scope(principal, organizationId, scopeId, { write: true });
    requireActiveScope(scope);
    const subject = await scopeSubject(this.projections, scopeId, subjectId);
    await withBodyVersion(() =>
      this.writer.decide({
        stream: subjectStreamId(scopeId, subjectId),
        decider: subjectDecider,
        command: {
          type: 'RecordDecision',
          scopeId,
          subjectId,
          subjectKind: subject.kind,
          timezone: scope.exposure.timezone,
          observedLastSeen: subject.lastSeen,
          decision: body.decision,
          conclusion: body.conclusion,
          accordingTo: body.according_to,
          note: body.note,
          announcedDate: body.announced_date,
          renewal: body.renewal,
        },
        context: { now: this.clock.now() },
        envelope: withScope(envelope, organizationId, scopeId),
        expectedVersion: version - 1,
        readYourWrites: EXPOSURE_PROJECTIONS,
      }),
    );
  }
}

/**
 * Reads the observation index and the catalogue; no request reaches the asset. Shares the enrichment rate of
 * the account (60 per minute across personal and organization enrichment).
 */
@CommandHandler(EnrichAsset)
export class EnrichAssetHandler implements ICommandHandler<EnrichAsset> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RATE_LIMITER) private readonly rateLimiter: RateLimiter,
    @Inject(OBSERVATION_INDEX) private readonly observations: ObservationIndex,
    @Inject(CatalogueService) private readonly catalogue: CatalogueService,
  ) {}

  async execute({ principal, organizationId, scopeId, assetKey, envelope }: EnrichAsset) {
    const scope = await this.gate.scope(principal, organizationId, scopeId, { write: true });
    requireActiveScope(scope);
    const subject = await scopeSubject(this.projections, scopeId, assetKey);
    if (subject.kind !== 'service') {
      throw new ServiceError('not_found', 'no stored service observation behind this asset key');
    }
    enforce(
      await this.rateLimiter.consume(VULNERABILITY_ENRICHMENT_RATE, principal.accountId),
      'vulnerability enrichment is limited to 60 requests per minute per account',
    );
    const observationId = subject.observation.observationId as string;
    const record = await this.observations.get('hosts', observationId);
    if (!record) {
      throw new ServiceError(
        'not_found',
        'the stored observation is no longer in the dataset; nothing was evaluated',
        { observation_id: observationId },
      );
    }
    let catalogue: CatalogueAvailability;
    try {
      catalogue = { available: true, matcher: await this.catalogue.matcher() };
    } catch {
      catalogue = { available: false, reason: 'catalogue_load_failed' };
    }
    const evaluation = evaluateService(record, catalogue);
    const full =
      catalogue.available && evaluation.coverage !== 'shared_edge' && Array.isArray(record.cpe)
        ? catalogue.matcher.evaluateObservation({
            vendor: (record.vendor as string | undefined) ?? null,
            product: (record.product as string | undefined) ?? null,
            version: (record.version as string | undefined) ?? null,
            cpe: (record.cpe as unknown[]).filter((c): c is string => typeof c === 'string'),
          })
        : null;
    await this.writer.decide({
      stream: subjectStreamId(scopeId, assetKey),
      decider: subjectDecider,
      command: {
        type: 'RecordEnrichment',
        scopeId,
        subjectId: assetKey,
        observationId,
        observedLastSeen: record.last_seen,
        input: declarationKey(scope.exposure.domain, scope.exposure.addresses),
        evaluation,
      },
      context: { now: this.clock.now() },
      envelope: withScope(envelope, organizationId, scopeId),
      readYourWrites: EXPOSURE_PROJECTIONS,
    });
    return {
      record,
      evaluation,
      findings: full?.findings ?? [],
      catalogueVersion: evaluation.catalogueVersion,
    };
  }
}

@CommandHandler(ReopenDecidedSubject)
export class ReopenDecidedSubjectHandler implements ICommandHandler<ReopenDecidedSubject> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ scopeId, subjectId, observedLastSeen, envelope }: ReopenDecidedSubject): Promise<void> {
    await this.writer.decide({
      stream: subjectStreamId(scopeId, subjectId),
      decider: subjectDecider,
      command: { type: 'ReopenSubject', observedLastSeen },
      context: { now: this.clock.now() },
      envelope,
    });
  }
}

export const decisionHandlers = [
  RecordSubjectDecisionHandler,
  EnrichAssetHandler,
  ReopenDecidedSubjectHandler,
];
