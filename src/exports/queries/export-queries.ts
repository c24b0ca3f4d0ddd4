import { EXPORTS, type ExportDocument } from '../../../projections/exports.projection.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { Collection } from '../../platform/read-store/read-store.port.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';

/** The export job as the contract shows it (poll and list). */
export interface ExportJobView {
  readonly id: string;
  readonly status: string;
  readonly search_type: string;
  readonly raw_query: string;
  readonly time_frame: string;
  readonly format: string;
  readonly results_count: number;
  readonly credits_consumed: number;
  readonly file_size_bytes: number | null;
  readonly original_size_bytes: number | null;
  readonly estimated_count: number;
  readonly was_truncated: boolean;
  readonly truncation_reason?: string;
  readonly failure_reason?: string;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly file_available: boolean;
}

/** Reads of the exports read model. Another account's export is not found (404), never forbidden. */
export class ExportQueries {
  constructor(private readonly projections: Pick<ProjectionRunner, 'collection'>) {}

  collection(): Collection<ExportDocument> {
    return this.projections.collection<ExportDocument>('exports', EXPORTS);
  }

  async owned(ownerAccountId: string, exportId: string): Promise<ExportDocument> {
    const document = await this.collection().get(exportId);
    if (!document || document.deleted || document.owner_account_id !== ownerAccountId) {
      throw new ServiceError('not_found', 'No such export.', { export_id: exportId });
    }
    return document;
  }

  /** All of the caller's exports, newest first. */
  async list(ownerAccountId: string): Promise<ExportDocument[]> {
    return this.collection().find(
      { owner_account_id: ownerAccountId, deleted: false },
      { sort: [['created_at', -1]], limit: 1000 },
    );
  }

  /**
   * Result rows used this cycle: written rows of exports created since the cycle started (deleted ones too),
   * and the row limit a running export holds, so two exports at once cannot both spend the same quota.
   */
  async resultsUsed(ownerAccountId: string, cycleStart: string, excludeId?: string): Promise<number> {
    const documents = await this.collection().find({
      owner_account_id: ownerAccountId,
      created_at: { $gte: cycleStart },
    });
    return documents
      .filter((document) => document.id !== excludeId)
      .reduce(
        (sum, document) =>
          sum + (document.status === 'processing' ? document.row_limit : document.results_count),
        0,
      );
  }

  view(document: ExportDocument, now: Date): ExportJobView {
    const expired =
      document.file_expired ||
      (document.expires_at !== null && Date.parse(document.expires_at) <= now.getTime());
    return {
      id: document.id,
      status: document.status,
      search_type: document.search_type,
      raw_query: document.raw_query,
      time_frame: document.time_frame,
      format: document.format,
      results_count: document.results_count,
      credits_consumed: document.credits_consumed,
      file_size_bytes: document.file_size_bytes,
      original_size_bytes: document.original_size_bytes,
      estimated_count: document.estimated_count,
      was_truncated: document.was_truncated,
      ...(document.truncation_reason ? { truncation_reason: document.truncation_reason } : {}),
      ...(document.failure_reason ? { failure_reason: document.failure_reason } : {}),
      created_at: document.created_at,
      expires_at: document.expires_at,
      file_available: document.status === 'completed' && !expired,
    };
  }
}
