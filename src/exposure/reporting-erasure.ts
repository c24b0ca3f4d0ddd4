import {
  EXPOSURE_DELIVERIES,
  type ExposureDeliveryDocument,
} from '../../projections/exposure-monitoring.projection.js';
import type { ExportFileStore } from '../exports/files/export-file-store.port.js';
import type { StreamWriter } from '../platform/event-sourcing/stream-writer.js';
import type { ProjectionRunner } from '../platform/projections/projection-runner.js';
import { deliveryStreamId } from './domain/notification-delivery.js';
import { notificationStreamId } from './domain/notification-preference.js';
import { MAX_REPORTS_PER_SCOPE, reportDecider, reportIdFor, reportStreamId } from './domain/report.js';
import { watchStreamId } from './domain/watch.js';

/**
 * Erasure of a scope's reports, monitoring and notification content (the scope erasure sweeper calls it before
 * it deletes the scope's streams): deletes the report documents from the file store and answers the streams to
 * delete with the others. Idempotent: a pass interrupted anywhere is finished by the next one.
 */
export async function eraseReportingContent(
  ports: {
    readonly writer: StreamWriter;
    readonly projections: ProjectionRunner;
    readonly reportFiles: ExportFileStore;
  },
  scopeId: string,
): Promise<string[]> {
  const streams: string[] = [];
  for (let sequence = 1; sequence <= MAX_REPORTS_PER_SCOPE; sequence++) {
    const streamId = reportStreamId(reportIdFor(scopeId, sequence));
    const report = await ports.writer.load(streamId, reportDecider);
    if (!report.state.exists) continue;
    if (report.state.blob) await ports.reportFiles.delete(report.state.blob.key);
    streams.push(streamId);
  }
  const deliveries = await ports.projections
    .collection<ExposureDeliveryDocument>('exposure-monitoring', EXPOSURE_DELIVERIES)
    .find({ scopeId });
  return [
    ...streams,
    ...deliveries.map((delivery) => deliveryStreamId(scopeId, delivery.runId)),
    notificationStreamId(scopeId),
    watchStreamId(scopeId),
  ];
}
