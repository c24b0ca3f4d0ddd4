import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  EVENT_STREAMS_COLLECTION,
  type EventStreamDocument,
} from '../../../projections/event-streams.projection.js';
import type { ExportFileStore } from '../../exports/files/export-file-store.port.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { commandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { eventIdFor } from '../../platform/event-store/event-id.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import { spaceDecider, spaceStreamId } from '../../organizations/domain/space.js';
import { refreshRunStreamId } from '../domain/refresh-run.js';
import { subjectStreamId } from '../domain/subject.js';
import { REPORT_FILES } from '../exposure-ports.js';
import { eraseReportingContent } from '../reporting-erasure.js';
import { controlsStreamId, exposureAuditStreamId } from '../scope-erasure-sweeper.js';
import { EraseScope } from './erasure.commands.js';
import { exposureRuns, exposureSubjects } from './exposure-write.js';

/** Workspace streams written on behalf of a space: its cases (with evidence), reviews, comparisons, searches. */
const WORKSPACE_CATEGORIES = new Set(['case', 'review', 'comparison', 'research']);

/**
 * The space's erasure: from `SpaceErasureStarted` on it cannot be restored; its streams are deleted from the
 * event store (the space, its subjects' decisions and enrichments, its refreshes, its control records), then
 * `ScopeErased`, on which every read model purges the scope. The ledger and the audit record hold ids only.
 */
@CommandHandler(EraseScope)
export class EraseScopeHandler implements ICommandHandler<EraseScope> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(REPORT_FILES) private readonly reportFiles: ExportFileStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ scope }: EraseScope): Promise<void> {
    const envelope = commandEnvelope({
      actor: 'system:scope-erasure',
      payer: `organization:${scope.organizationId}`,
      scope: scope.id,
      commandId: `erase:${scope.id}`,
    });
    const spaceStream = spaceStreamId(scope.id);
    try {
      await this.writer.decide({
        stream: spaceStream,
        decider: spaceDecider,
        command: { type: 'BeginErasure' },
        context: { now: this.clock.now() },
        envelope,
      });
    } catch (error) {
      // The space stream is already gone: an earlier pass got that far; finish its work.
      if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
    }
    // Every subject and refresh the read models know of, once they hold everything appended so far.
    const head = await this.eventStore.lastCommittedPosition();
    if (head) {
      await this.projections.waitFor(
        ['exposure-scopes', 'exposure-inventory', 'event-streams'],
        head,
        60_000,
      );
    }
    const subjects = await exposureSubjects(this.projections).find({
      scopeId: scope.id,
      version: { $gt: 0 },
    });
    const runs = await exposureRuns(this.projections).find({ scopeId: scope.id });
    const streams = [
      ...subjects.map((subject) => subjectStreamId(scope.id, subject.subjectId)),
      ...runs.map((run) => refreshRunStreamId(scope.id, run.runId)),
      controlsStreamId(scope.id),
      ...(await this.workspaceStreams(scope.id)),
      // Reports (their documents deleted here too), monitoring and notification streams.
      ...(await eraseReportingContent(
        { writer: this.writer, projections: this.projections, reportFiles: this.reportFiles },
        scope.id,
      )),
      spaceStream,
    ].sort();
    // Each erased event names the audit record below as its erasure (the record's id is deterministic).
    const erasure = { by: eventIdFor(`erase:${scope.id}`, 0), at: this.clock.now().toISOString() };
    for (const streamId of streams) {
      await this.eventStore.eraseStream(streamId, erasure);
      this.writer.forget(streamId);
    }
    // An audit record, not a decision: no decider; its id is deterministic, so a repeated pass adds nothing.
    const result = await this.writer.record({
      stream: exposureAuditStreamId(scope.organizationId),
      type: 'ScopeErased',
      data: {
        scopeId: scope.id,
        organizationId: scope.organizationId,
        kind: scope.kind,
        deletedAt: scope.deletion?.deletedAt ?? null,
        deletedBy: scope.deletion?.deletedBy ?? null,
        eraseAfter: scope.deletion?.eraseAfter ?? null,
        erasedAt: this.clock.now().toISOString(),
        erasedStreams: streams,
      },
      eventKey: `erase:${scope.id}`,
      metadata: envelope.metadata,
    });
    await this.writer.readYourWrites(
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
    const streams = await this.projections
      .collection<EventStreamDocument>('event-streams', EVENT_STREAMS_COLLECTION)
      .find({ scope: scopeId });
    return streams.filter((stream) => WORKSPACE_CATEGORIES.has(stream.category)).map((stream) => stream.id);
  }
}
