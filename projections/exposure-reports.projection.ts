import type { ProjectionDefinition } from '../src/platform/projections/projection-definition.js';
import type { ReportBlob, ReportContents, ReportFrozen } from '../src/exposure/domain/report.js';
import type { ScopeErased } from '../src/exposure/domain/scope-erasure.js';

/**
 * Frozen reports of exposure scopes (issue 8): one summary per `ReportFrozen`, the list GET …/reports reads
 * (newest first, up to 100). The document itself is a blob; the summary carries its key and SHA-256. Erasure
 * (`ScopeErased`) purges the scope's summaries, so a replay after an erasure gives the same list.
 */
export const EXPOSURE_REPORTS = 'exposure_reports';

export interface ExposureReportDocument {
  readonly id: string;
  readonly scopeId: string;
  readonly organizationId: string;
  readonly sequence: number;
  readonly authorId: string;
  readonly scopeName: string;
  readonly timezone: string;
  readonly referenceTime: string;
  readonly referencePosition: string | null;
  readonly frozenAt: string;
  /** Global position of the ReportFrozen event (the report's own place in the log). */
  readonly position: string;
  readonly blob: ReportBlob;
  readonly contents: ReportContents;
  readonly [field: string]: unknown;
}

export const exposureReportsProjection: ProjectionDefinition<ReportFrozen | ScopeErased> = {
  name: 'exposure-reports',
  version: 1,
  collections: {
    [EXPOSURE_REPORTS]: {
      indexes: [
        {
          name: 'by_scope_sequence',
          fields: [
            ['scopeId', 1],
            ['sequence', -1],
          ],
        },
      ],
    },
  },
  handles: ['ReportFrozen', 'ScopeErased'],
  reads: () => [],
  apply(event, view) {
    if (event.type === 'ScopeErased') {
      view.deleteWhere(EXPOSURE_REPORTS, { scopeId: event.data.scopeId });
      return;
    }
    const data = event.data;
    const document: ExposureReportDocument = {
      id: data.reportId,
      scopeId: data.scopeId,
      organizationId: data.organizationId,
      sequence: data.sequence,
      authorId: data.authorId,
      scopeName: data.scopeName,
      timezone: data.timezone,
      referenceTime: data.referenceTime,
      referencePosition: data.referencePosition ?? null,
      frozenAt: data.frozenAt,
      position: event.position,
      blob: data.blob,
      contents: data.contents,
    };
    view.put(EXPOSURE_REPORTS, document);
  },
};
