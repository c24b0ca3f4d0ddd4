import {
  EXPOSURE_DELIVERIES,
  type ExposureDeliveryDocument,
} from '../../projections/exposure-monitoring.projection.js';
import type { ServiceContext } from '../platform/service-context.js';
import { deliveryStreamId } from './domain/notification-delivery.js';
import { notificationStreamId } from './domain/notification-preference.js';
import { MAX_REPORTS_PER_SCOPE, reportDecider, reportIdFor, reportStreamId } from './domain/report.js';
import { watchStreamId } from './domain/watch.js';

/**
 * Erasure of a scope's reports, monitoring and notification content (the scope erasure sweeper calls it before
 * it deletes the scope's streams): deletes the report documents from the file store and answers the streams to
 * delete with the others. Idempotent: a pass interrupted anywhere is finished by the next one.
 */
export async function eraseReportingContent(context: ServiceContext, scopeId: string): Promise<string[]> {
  const streams: string[] = [];
  for (let sequence = 1; sequence <= MAX_REPORTS_PER_SCOPE; sequence++) {
    const streamId = reportStreamId(reportIdFor(scopeId, sequence));
    const report = await context.repository.load(streamId, reportDecider);
    if (!report.state.exists) continue;
    if (report.state.blob) await context.storage.reportFiles.delete(report.state.blob.key);
    streams.push(streamId);
  }
  const deliveries = await context.projections
    .collection<ExposureDeliveryDocument>('exposure-monitoring', EXPOSURE_DELIVERIES)
    .find({ scopeId });
  return [
    ...streams,
    ...deliveries.map((delivery) => deliveryStreamId(scopeId, delivery.runId)),
    notificationStreamId(scopeId),
    watchStreamId(scopeId),
  ];
}
