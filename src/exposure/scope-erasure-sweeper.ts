import {
  EXPOSURE_RUNS,
  EXPOSURE_SCOPES,
  type ExposureRunDocument,
  type ExposureScopeDocument,
} from '../../projections/exposure-scopes.projection.js';
import {
  EVENT_STREAMS_COLLECTION,
  type EventStreamDocument,
} from '../../projections/event-streams.projection.js';
import {
  EXPOSURE_SUBJECTS,
  type ExposureSubjectDocument,
} from '../../projections/exposure-inventory.projection.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { commandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import { eventIdFor } from '../platform/event-store/event-id.js';
import { PeriodicSweep, type SweepOptions } from '../platform/scheduling/periodic-sweep.js';
import type { ServiceContext } from '../platform/service-context.js';
import { spaceDecider, spaceStreamId } from '../organizations/domain/space.js';
import { refreshRunStreamId } from './domain/refresh-run.js';
import { subjectStreamId } from './domain/subject.js';
import { eraseReportingContent } from './reporting-erasure.js';

/** The stream holding an organization's erasure records: ids and times only, never the erased content. */
export function exposureAuditStreamId(organizationId: string): string {
  return `exposure-audit-${organizationId}`;
}
/** Workspace streams written on behalf of a space: its cases (with evidence), reviews, comparisons, searches. */
const WORKSPACE_CATEGORIES = new Set(['case', 'review', 'comparison', 'research']);

export function controlsStreamId(scopeId: string): string {
  return `exposure-controls-${scopeId}`;
}

/**
 * After erase_after a deleted scope is erased for good: `SpaceErasureStarted` (from then on it cannot be
 * restored), its streams deleted from the event store (the space, its subjects' decisions and enrichments, its
 * refreshes, its control records), then `ScopeErased` on the organization's audit stream, on which every read
 * model purges the scope. The ledger (accounting) and the audit record stay: they hold ids only. Each step is
 * idempotent, so a pass interrupted anywhere is finished by the next one. A scope whose erasure fails is retried
 * with backoff and never holds back the erasure of the others.
 */
export class ScopeErasureSweeper extends PeriodicSweep {
  constructor(
    private readonly context: ServiceContext,
    options: SweepOptions = {},
  ) {
    super(
      60_000,
      'scope-erasure-sweeper',
      {
        background: context.background,
        readStore: context.storage.readStore,
        log: options.log ?? context.log,
      },
      options.retry,
    );
  }

  protected async sweep(): Promise<number> {
    const now = this.context.clock.now().toISOString();
    const scopes = this.context.projections.collection<ExposureScopeDocument>(
      'exposure-scopes',
      EXPOSURE_SCOPES,
    );
    // Scopes that failed before and are no longer due (restored, erased by another instance) need no retry.
    await this.failures.keepOnly(async (ids) =>
      (await scopes.find({ id: { $in: ids }, state: 'deleted' })).map((scope) => scope.id),
    );
    const waiting = await this.failures.waiting();
    const due = await scopes.find(
      {
        state: 'deleted',
        'deletion.eraseAfter': { $lte: now },
        ...(waiting.length > 0 ? { id: { $nin: waiting } } : {}),
      },
      { limit: 100 },
    );
    let erased = 0;
    for (const scope of due) {
      if ((await this.item(scope.id, () => this.erase(scope))).status === 'done') erased++;
    }
    return erased;
  }

  async erase(scope: ExposureScopeDocument): Promise<void> {
    const envelope = commandEnvelope({
      actor: 'system:scope-erasure',
      payer: `organization:${scope.organizationId}`,
      scope: scope.id,
      commandId: `erase:${scope.id}`,
    });
    const spaceStream = spaceStreamId(scope.id);
    try {
      await this.context.repository.handle(
        spaceStream,
        spaceDecider,
        { type: 'BeginErasure' },
        { now: this.context.clock.now() },
        envelope,
      );
    } catch (error) {
      // The space stream is already gone: an earlier pass got that far; finish its work.
      if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
    }
    // Every subject and refresh the read models know of, once they hold everything appended so far.
    const head = await this.context.storage.eventStore.lastCommittedPosition();
    if (head) {
      await this.context.projections.waitFor(
        ['exposure-scopes', 'exposure-inventory', 'event-streams'],
        head,
        60_000,
      );
    }
    const subjects = await this.context.projections
      .collection<ExposureSubjectDocument>('exposure-inventory', EXPOSURE_SUBJECTS)
      .find({ scopeId: scope.id, version: { $gt: 0 } });
    const runs = await this.context.projections
      .collection<ExposureRunDocument>('exposure-scopes', EXPOSURE_RUNS)
      .find({ scopeId: scope.id });
    const streams = [
      ...subjects.map((subject) => subjectStreamId(scope.id, subject.subjectId)),
      ...runs.map((run) => refreshRunStreamId(scope.id, run.runId)),
      controlsStreamId(scope.id),
      ...(await this.workspaceStreams(scope.id)),
      // Reports (their documents deleted here too), monitoring and notification streams.
      ...(await eraseReportingContent(this.context, scope.id)),
      spaceStream,
    ].sort();
    for (const streamId of streams) {
      await this.context.storage.eventStore.deleteStream(streamId);
      this.context.repository.forget(streamId);
    }
    const result = await this.context.storage.eventStore.append(
      exposureAuditStreamId(scope.organizationId),
      [
        {
          id: eventIdFor(`erase:${scope.id}`, 0),
          type: 'ScopeErased',
          schemaVersion: 1,
          data: {
            scopeId: scope.id,
            organizationId: scope.organizationId,
            kind: scope.kind,
            deletedAt: scope.deletion?.deletedAt ?? null,
            deletedBy: scope.deletion?.deletedBy ?? null,
            eraseAfter: scope.deletion?.eraseAfter ?? null,
            erasedAt: this.context.clock.now().toISOString(),
            erasedStreams: streams,
          },
          metadata: envelope.metadata,
        },
      ],
      { expectedVersion: 'any' },
    );
    await this.context.readYourWrites(
      // Every read model that purges the scope on ScopeErased: the sweep ends with none of its content readable.
      [
        'organizations',
        'exposure-scopes',
        'exposure-inventory',
        'exposure-history',
        'exposure-reports',
        'exposure-monitoring',
      ],
      result.position,
    );
  }

  /** Cases, evidence, reviews, comparisons and recorded searches of the space, found by their events' scope. */
  private async workspaceStreams(scopeId: string): Promise<string[]> {
    const streams = await this.context.projections
      .collection<EventStreamDocument>('event-streams', EVENT_STREAMS_COLLECTION)
      .find({ scope: scopeId });
    return streams.filter((stream) => WORKSPACE_CATEGORIES.has(stream.category)).map((stream) => stream.id);
  }
}
