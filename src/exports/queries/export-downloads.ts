import type { Readable } from 'node:stream';
import type { ExportDocument } from '../../../projections/exports.projection.js';
import type { Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { ExportFileStore } from '../files/export-file-store.port.js';
import type { ExportQueries } from './export-queries.js';

/** The file of one of the caller's exports: only a completed export has one, until it expires. */
export class ExportDownloads {
  constructor(
    private readonly queries: ExportQueries,
    private readonly files: Pick<ExportFileStore, 'open'>,
    private readonly clock: Clock,
  ) {}

  /** The job and its stored (gzip) bytes; 409 export_not_ready before completion, 410 export_expired after. */
  async open(
    ownerAccountId: string,
    exportId: string,
  ): Promise<{ document: ExportDocument; stored: Readable }> {
    const document = await this.queries.owned(ownerAccountId, exportId);
    const now = this.clock.now();
    if (document.status !== 'completed') {
      throw new ServiceError(
        'export_not_ready',
        `The export is ${document.status}; only a completed export has a file.`,
        { status: document.status },
      );
    }
    const expired =
      document.file_expired ||
      (document.expires_at !== null && Date.parse(document.expires_at) <= now.getTime());
    const stored = expired || !document.file_key ? null : await this.files.open(document.file_key);
    if (!stored) {
      throw new ServiceError(
        'export_expired',
        'The export file expired and was deleted; run the export again.',
        { expires_at: document.expires_at },
      );
    }
    return { document, stored };
  }
}
