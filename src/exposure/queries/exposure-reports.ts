import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import {
  EXPOSURE_HISTORY,
  type ExposureHistoryDocument,
} from '../../../projections/exposure-history.projection.js';
import {
  EXPOSURE_SUBJECTS,
  type ExposureSubjectDocument,
} from '../../../projections/exposure-inventory.projection.js';
import {
  EXPOSURE_REPORTS,
  type ExposureReportDocument,
} from '../../../projections/exposure-reports.projection.js';
import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { ExportFileStore } from '../../exports/files/export-file-store.port.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import type { ExposureGate, ScopeAccess } from '../commands/exposure-access.js';
import {
  isReportId,
  MAX_REPORT_BYTES,
  MAX_REPORT_HISTORY,
  MAX_REPORTS_PER_SCOPE,
  REPORT_FORMAT,
  reportTooLarge,
  type ReportContents,
} from '../domain/report.js';
import {
  historyEntryView,
  OBSERVATION_NOTICE,
  scopeView,
  subjectView,
  type ExposureQueries,
} from './exposure-queries.js';

const PAGE = 1000;

export const REPORT_NOTICE =
  'A frozen report: the scope as the service showed it at reference_time, saved unchanged. It is not today\u2019s ' +
  'inventory. ' +
  OBSERVATION_NOTICE;

/** The stored document, as bytes: what GET answers, and what its SHA-256 covers. */
export interface FrozenDocument {
  readonly bytes: Buffer;
  readonly sha256: string;
  readonly contents: ReportContents;
}

export function reportSummary(report: ExposureReportDocument, organizationId: string) {
  return {
    id: report.id,
    sequence: report.sequence,
    scope_id: report.scopeId,
    scope_name: report.scopeName,
    author_id: report.authorId,
    timezone: report.timezone,
    reference_time: report.referenceTime,
    reference_position: report.referencePosition,
    frozen_at: report.frozenAt,
    observations: report.contents.observations,
    kev: report.contents.kev,
    matched: report.contents.matched,
    partial: report.contents.partial,
    history_entries: report.contents.historyEntries,
    history_total: report.contents.historyTotal,
    history_partial: report.contents.historyPartial,
    size_bytes: report.blob.bytes,
    content_sha256: report.blob.sha256,
    document: `/api/v2/organizations/${organizationId}/clients/${report.scopeId}/exposure/reports/${report.id}`,
    // What the team saw then, replayed from the event log (GET …/exposure?as_of=…).
    as_of: report.referencePosition ?? report.referenceTime,
  };
}

/**
 * Reads of frozen reports (issue 8, item 6), and the document a freeze saves, built from the read models only:
 * no search, no scan, no guest link, no email. Freezing itself is the FreezeReport command.
 */
export class ExposureReports {
  constructor(
    private readonly gate: ExposureGate,
    private readonly projections: ProjectionRunner,
    private readonly reportFiles: ExportFileStore,
    private readonly queries: ExposureQueries,
  ) {}

  reports() {
    return this.projections.collection<ExposureReportDocument>('exposure-reports', EXPOSURE_REPORTS);
  }

  async list(principal: Principal, organizationId: string, scopeId: string) {
    await this.gate.scope(principal, organizationId, scopeId, { write: false });
    const reports = await this.reports().find(
      { scopeId },
      { sort: [['sequence', -1]], limit: MAX_REPORTS_PER_SCOPE },
    );
    return {
      total: reports.length,
      limit: MAX_REPORTS_PER_SCOPE,
      reports: reports.map((report) => reportSummary(report, organizationId)),
    };
  }

  /**
   * The saved document, under the caller's current permissions (the gate reads memberships and assignments at
   * every request). Its bytes are checked against the recorded SHA-256 before they are answered.
   */
  async document(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    reportId: string,
  ): Promise<{ bytes: Buffer; summary: ExposureReportDocument }> {
    await this.gate.scope(principal, organizationId, scopeId, { write: false });
    const report = isReportId(reportId) ? await this.reports().get(reportId) : null;
    if (!report || report.scopeId !== scopeId) throw new ServiceError('not_found', 'no such report');
    const stored = await this.reportFiles.open(report.blob.key);
    if (!stored) {
      throw new ServiceError('report_integrity_failed', 'the stored report document is missing', {
        report_id: reportId,
      });
    }
    const chunks: Buffer[] = [];
    await pipeline(stored, createGunzip(), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) chunks.push(chunk);
    });
    const bytes = Buffer.concat(chunks);
    if (createHash('sha256').update(bytes).digest('hex') !== report.blob.sha256) {
      throw new ServiceError(
        'report_integrity_failed',
        'the stored report document does not match its recorded SHA-256',
        { report_id: reportId },
      );
    }
    return { bytes, summary: report };
  }

  /**
   * Everything but the report's id and sequence, as JSON text parts, built page by page: a scope too large for
   * 16 MiB is refused as soon as the parts pass it, without building the rest.
   */
  async documentBody(
    scope: ScopeAccess,
    frozen: {
      referenceTime: string;
      referencePosition: string | null;
      author: { account_id: string; email: string | null };
    },
  ): Promise<{ parts: string[]; bytes: number; contents: ReportContents }> {
    const scopeDocument = await this.queries.scopeDocument(scope.scopeId);
    const inventory = await this.queries.inventory(scope, {});
    const { subjects: _subjects, hosts: _hosts, notice: _notice, ...header } = inventory;
    const now = new Date(frozen.referenceTime);
    const parts: string[] = [];
    let bytes = 0;
    const push = (text: string) => {
      parts.push(text);
      bytes += Buffer.byteLength(text);
      if (bytes > MAX_REPORT_BYTES) throw reportTooLarge(bytes);
    };
    const history = this.projections.collection<ExposureHistoryDocument>(
      'exposure-history',
      EXPOSURE_HISTORY,
    );
    const [entries, historyTotal] = await Promise.all([
      history.find({ scopeId: scope.scopeId }, { sort: [['position', -1]], limit: MAX_REPORT_HISTORY }),
      history.count({ scopeId: scope.scopeId }),
    ]);
    push(
      [
        `"organization":${JSON.stringify({ id: scope.access.organizationId, name: scope.access.state.name })}`,
        `"scope":${JSON.stringify(scopeView(scopeDocument))}`,
        `"author":${JSON.stringify(frozen.author)}`,
        `"timezone":${JSON.stringify(scope.exposure.timezone)}`,
        `"reference_time":${JSON.stringify(frozen.referenceTime)}`,
        `"reference_position":${JSON.stringify(frozen.referencePosition)}`,
        `"inventory":${JSON.stringify(header)}`,
        `"history_partial":${JSON.stringify(historyTotal > entries.length)}`,
        `"history_total":${historyTotal}`,
        `"history":${JSON.stringify(entries.map(historyEntryView))}`,
        `"notice":${JSON.stringify(REPORT_NOTICE)}`,
        '"observations":[',
      ].join(','),
    );
    const subjects = this.projections.collection<ExposureSubjectDocument>(
      'exposure-inventory',
      EXPOSURE_SUBJECTS,
    );
    let observations = 0;
    let kev = 0;
    let matched = 0;
    for (let offset = 0; ; offset += PAGE) {
      const page = await subjects.find(
        { scopeId: scope.scopeId },
        { sort: [['order', 1]], offset, limit: PAGE },
      );
      for (const subject of page) {
        const view = subjectView(subject, scopeDocument, now) as Record<string, unknown>;
        push(`${observations > 0 ? ',' : ''}${JSON.stringify(view)}`);
        observations++;
        if (view.result_state === 'kev') kev++;
        if (view.result_state === 'matched') matched++;
      }
      if (page.length < PAGE) break;
    }
    push(']}');
    return {
      parts,
      bytes,
      contents: {
        observations,
        kev,
        matched,
        historyEntries: entries.length,
        historyTotal,
        historyPartial: historyTotal > entries.length,
        partial: Boolean(header.partial),
      },
    };
  }

  withIdentity(
    body: { parts: string[]; contents: ReportContents },
    reportId: string,
    sequence: number,
  ): FrozenDocument {
    const head = `{"format":${JSON.stringify(REPORT_FORMAT)},"id":${JSON.stringify(reportId)},"sequence":${sequence},`;
    const bytes = Buffer.from(head + body.parts.join(''));
    if (bytes.length > MAX_REPORT_BYTES) throw reportTooLarge(bytes.length);
    return { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), contents: body.contents };
  }
}
