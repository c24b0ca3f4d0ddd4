import type { CreditLedger } from '../../credits/commands/credit-ledger.js';
import type { Principal } from '../../platform/auth/access.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { ExportJobs, ExportRequestBody } from '../commands/export-jobs.js';
import { estimatedFileSize } from '../domain/export-formats.js';
import { creditsForRows } from '../domain/export-cost.js';
import { exportAllowance } from '../domain/export-job.js';

export interface ExportEstimate {
  readonly estimated_count: number;
  readonly quota_current: { results_used: number; results_max: number };
  readonly quota_after_export: { results_used: number; results_max: number };
  readonly will_be_partial: boolean;
  readonly partial_limit: number | null;
  readonly estimated_file_size_bytes: number;
  /** What the rows it would write cost (1 credit per 100): the price shown before starting it. */
  readonly estimated_credits: number;
}

/** The free estimate of an export: checked as its request would be, then counted; nothing is recorded. */
export class ExportEstimates {
  constructor(
    private readonly jobs: Pick<ExportJobs, 'prepare' | 'count' | 'quota'>,
    private readonly ledger: Pick<CreditLedger, 'available'>,
  ) {}

  async estimate(
    principal: Principal,
    searchTypeParam: string,
    body: ExportRequestBody,
    envelope: CommandEnvelope,
  ): Promise<ExportEstimate> {
    const prepared = await this.jobs.prepare(
      principal,
      searchTypeParam,
      { ...body, format: body.format ?? 'json' },
      envelope,
    );
    const matching = await this.jobs.count(prepared.searchType, prepared.query);
    const { used, max } = await this.jobs.quota(principal.accountId, prepared.plan);
    const available = await this.ledger.available(prepared.payer);
    const allowance = exportAllowance({ matching, availableCredits: available, quotaLeft: max - used });
    const rows = Math.min(matching, allowance.rowLimit);
    return {
      estimated_count: matching,
      quota_current: { results_used: used, results_max: max },
      quota_after_export: { results_used: used + rows, results_max: max },
      will_be_partial: allowance.cause !== null,
      partial_limit: allowance.cause !== null ? rows : null,
      estimated_file_size_bytes: estimatedFileSize(prepared.format, rows),
      estimated_credits: creditsForRows(rows),
    };
  }
}
