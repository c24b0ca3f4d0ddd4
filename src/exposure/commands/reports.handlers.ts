import { gzipSync } from 'node:zlib';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ACCOUNTS, type AccountDocument } from '../../../projections/accounts.projection.js';
import type { ExportFileStore } from '../../exports/files/export-file-store.port.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import {
  MAX_REPORTS_PER_SCOPE,
  reportDecider,
  reportIdFor,
  reportLimitReached,
  reportStreamId,
} from '../domain/report.js';
import { REPORT_FILES } from '../exposure-ports.js';
import { ExposureReports } from '../queries/exposure-reports.js';
import { ExposureGate } from './exposure-access.js';
import { EXPOSURE_PROJECTIONS, withScope } from './exposure-write.js';
import { FreezeReport } from './reports.commands.js';

/** Projections a report is read from and written to (read-your-writes). */
export const REPORT_PROJECTIONS = [...EXPOSURE_PROJECTIONS, 'exposure-reports'];

@CommandHandler(FreezeReport)
export class FreezeReportHandler implements ICommandHandler<FreezeReport> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(ExposureReports) private readonly reports: ExposureReports,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(REPORT_FILES) private readonly files: ExportFileStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, scopeId, envelope }: FreezeReport) {
    // Access first, before anything is read; the scope itself is read once the view below has caught up.
    await this.gate.scope(principal, organizationId, scopeId, { write: true });
    let sequence = (await this.reports.reports().count({ scopeId })) + 1;
    if (sequence > MAX_REPORTS_PER_SCOPE) throw reportLimitReached();
    // The view as of everything committed so far: the read models first catch up with the last committed event.
    // A report is kept for good: when they do not get there in time, nothing is frozen (the caller asks again).
    const head = await this.eventStore.lastCommittedPosition();
    if (!(await this.writer.readYourWrites(REPORT_PROJECTIONS, head))) throw viewNotCaughtUp();
    // The scope's name and timezone as of that view too (a change may have landed while the models caught up).
    const scope = await this.gate.scope(principal, organizationId, scopeId, { write: true });
    const referenceTime = this.clock.now().toISOString();
    const author = await this.projections
      .collection<AccountDocument>('accounts', ACCOUNTS)
      .get(principal.accountId);
    const body = await this.reports.documentBody(scope, {
      referenceTime,
      referencePosition: head,
      author: { account_id: principal.accountId, email: author?.email ?? null },
    });
    for (; sequence <= MAX_REPORTS_PER_SCOPE; sequence++) {
      const reportId = reportIdFor(scopeId, sequence);
      const streamId = reportStreamId(reportId);
      if ((await this.eventStore.streamVersion(streamId)) !== null) continue;
      const document = this.reports.withIdentity(body, reportId, sequence);
      const key = `report-${reportId}-${document.sha256.slice(0, 16)}`;
      const compressed = gzipSync(document.bytes);
      const pending = await this.files.create(key);
      try {
        pending.sink.end(compressed);
        await pending.commit();
      } catch (error) {
        await pending.abort();
        throw error;
      }
      try {
        await this.writer.decide({
          stream: streamId,
          decider: reportDecider,
          command: {
            type: 'FreezeReport',
            reportId,
            scopeId,
            organizationId,
            sequence,
            authorId: principal.accountId,
            scopeName: scope.space.name,
            timezone: scope.exposure.timezone,
            referenceTime,
            referencePosition: head,
            blob: {
              key,
              sha256: document.sha256,
              bytes: document.bytes.length,
              storedBytes: compressed.length,
            },
            contents: document.contents,
          },
          context: { now: this.clock.now() },
          envelope: withScope(envelope, organizationId, scopeId),
          readYourWrites: REPORT_PROJECTIONS,
        });
        const saved = await this.reports.reports().get(reportId);
        if (!saved) throw new ServiceError('not_ready', 'the report was saved; list the reports to see it');
        return saved;
      } catch (error) {
        // Another freeze took this slot between the check and the append: its document stays, ours goes.
        if (error instanceof ServiceError && error.code === 'already_exists') {
          await this.files.delete(key);
          continue;
        }
        throw error;
      }
    }
    throw reportLimitReached();
  }
}

export const reportHandlers = [FreezeReportHandler];

/** Seconds a caller waits before asking again for a freeze the read models were not ready for. */
const NOT_CAUGHT_UP_RETRY_AFTER_SECONDS = 2;

function viewNotCaughtUp(): ServiceError {
  return new ServiceError(
    'not_ready',
    'the read models have not yet caught up with everything committed before this report; nothing was frozen, ask again shortly',
    undefined,
    NOT_CAUGHT_UP_RETRY_AFTER_SECONDS,
  );
}
