import { Command } from '@nestjs/cqrs';
import type { ExposureReportDocument } from '../../../projections/exposure-reports.projection.js';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';

/**
 * POST …/reports: freezes the scope's current view into one immutable document (at most 100 per scope, 16 MiB),
 * stored gzip-compressed and referenced by its `ReportFrozen` event with its SHA-256.
 */
export class FreezeReport extends Command<ExposureReportDocument> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
