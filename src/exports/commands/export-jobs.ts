import { randomUUID } from 'node:crypto';
import type { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { billingCycle, type Plan } from '../../accounts/domain/plans.js';
import type { CreditLedger } from '../../credits/commands/credit-ledger.js';
import type { Principal } from '../../platform/auth/access.js';
import { describeThrown } from '../../platform/errors/describe-thrown.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  causedBy,
  commandEnvelope,
  type CommandEnvelope,
} from '../../platform/event-sourcing/command-metadata.js';
import type { HandleResult } from '../../platform/event-sourcing/event-sourced-repository.js';
import type { ServiceContext } from '../../platform/service-context.js';
import { normalizeSearchRequest, timeFrameStart } from '../../search/domain/search-request.js';
import type { ObservationQuery } from '../../search/observation-index/observation-index.port.js';
import { interpret } from '../../search/query-language/interpretation.js';
import { parseQuery } from '../../search/query-language/parser.js';
import { validateFor } from '../../search/query-language/validation.js';
import { payerOf, type SearchEngine } from '../../search/search-engine.js';
import type { ResearchContexts } from '../../search/research-context.js';
import { estimatedFileSize } from '../domain/export-formats.js';
import {
  EXPORT_FORMATS,
  EXPORT_SEARCH_TYPES,
  exportAllowance,
  exportChannel,
  exportDecider,
  exportStreamId,
  type ExportCommand,
  type ExportEvent,
  type ExportFormat,
  type ExportSearchType,
  type ExportState,
} from '../domain/export-job.js';
import type { ExportQueries } from '../queries/export-queries.js';

/** Counting stops here: an estimate above it is reported as this many (a lower bound). */
export const ESTIMATE_COUNT_LIMIT = 10_000_000;
/** Export reservations outlive the longest export; an abandoned one is released by the reservation sweeper. */
export const EXPORT_RESERVATION_TTL_MS = 6 * 60 * 60 * 1000;

export interface ExportRequestBody {
  readonly raw_query?: unknown;
  readonly time_frame?: unknown;
  readonly format?: unknown;
  readonly broad?: unknown;
}

export interface ExportEstimate {
  readonly estimated_count: number;
  readonly quota_current: { results_used: number; results_max: number };
  readonly quota_after_export: { results_used: number; results_max: number };
  readonly will_be_partial: boolean;
  readonly partial_limit: number | null;
  readonly estimated_file_size_bytes: number;
}

interface Prepared {
  readonly searchType: ExportSearchType;
  readonly rawQuery: string;
  readonly timeFrame: string;
  readonly since: string | null;
  readonly broad: boolean;
  readonly format: ExportFormat;
  readonly plan: Plan;
  readonly payer: string;
  readonly query: ObservationQuery;
}

/**
 * The export commands: estimate, request, cancel or delete, and the job steps the worker pool runs. Every rule
 * is decided by the pure export decider; this class gathers what it decides with (counts, balance, quota).
 */
export class ExportJobs {
  constructor(
    private readonly context: ServiceContext,
    private readonly ledger: CreditLedger,
    private readonly engine: SearchEngine,
    private readonly accounts: AccountDirectory,
    readonly queries: ExportQueries,
    /** The organization payer rules (rule 1): an organization member's personal export is unavailable. */
    private readonly research?: ResearchContexts,
  ) {}

  async estimate(
    principal: Principal,
    searchTypeParam: string,
    body: ExportRequestBody,
    envelope: CommandEnvelope,
  ): Promise<ExportEstimate> {
    const prepared = await this.prepare(
      principal,
      searchTypeParam,
      { ...body, format: body.format ?? 'json' },
      envelope,
    );
    const matching = await this.count(prepared.searchType, prepared.query);
    const { used, max } = await this.quota(principal.accountId, prepared.plan);
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
    };
  }

  async request(
    principal: Principal,
    searchTypeParam: string,
    body: ExportRequestBody,
    envelope: CommandEnvelope,
  ): Promise<{ export_id: string }> {
    const prepared = await this.prepare(principal, searchTypeParam, body, envelope);
    const matching = await this.count(prepared.searchType, prepared.query);
    const { used, max } = await this.quota(principal.accountId, prepared.plan);
    if (matching > 0 && used >= max) {
      throw new ServiceError(
        'export_quota_exhausted',
        "This billing cycle's export results quota is used up.",
        {
          results_used: used,
          results_max: max,
        },
      );
    }
    if (matching > 0 && (await this.ledger.available(prepared.payer)) < 1) {
      throw new ServiceError(
        'insufficient_credits',
        'Not enough credits to export any row (1 credit per 100 rows).',
        {
          available: 0,
        },
      );
    }
    const exportId = randomUUID();
    const result = await this.run(
      exportId,
      {
        type: 'RequestExport',
        exportId,
        ownerAccountId: principal.accountId,
        channel: principal.channel,
        payer: prepared.payer,
        searchType: prepared.searchType,
        rawQuery: prepared.rawQuery,
        timeFrame: prepared.timeFrame,
        since: prepared.since,
        broad: prepared.broad,
        format: prepared.format,
        estimatedCount: matching,
      },
      envelope,
    );
    await this.context.readYourWrites(['exports'], result.position);
    return { export_id: exportId };
  }

  /**
   * DELETE on one export: a pending or processing job is cancelled (a running one is charged for the rows it
   * had recorded as written and stops at its next batch); a finished one is deleted with its file.
   */
  async cancelOrDelete(
    principal: Principal,
    exportId: string,
    envelope: CommandEnvelope,
  ): Promise<{ export_id: string; outcome: 'cancelled' | 'deleted' }> {
    await this.queries.owned(principal.accountId, exportId);
    const result = await this.run(exportId, { type: 'CancelOrDeleteExport' }, envelope);
    const decided = result.events[0];
    // A cancelled job's charge, or a charge still on its way when a finished job is deleted, goes to the ledger
    // now. It does not decide the answer: the job is cancelled or deleted either way, and the pool settles a
    // charge that could not be settled here (charge_pending).
    let position = result.position;
    if (result.state.chargePending) {
      position = (await this.trySettleCharge(exportId)) ?? position;
    }
    if (decided?.type === 'ExportDeleted' && decided.data.fileKey)
      await this.context.files.delete(decided.data.fileKey);
    await this.context.readYourWrites(['exports'], position);
    return { export_id: exportId, outcome: decided?.type === 'ExportCancelled' ? 'cancelled' : 'deleted' };
  }

  /** settleCharge for a request that must not fail because of it: the pool retries what did not get through. */
  private async trySettleCharge(exportId: string): Promise<string | null> {
    try {
      return await this.settleCharge(exportId);
    } catch (error) {
      this.context.log('warn', 'export charge not settled yet; the export pool retries it', {
        exportId,
        err: describeThrown(error),
      });
      return null;
    }
  }

  /** DELETE on the collection: every export of the caller, each as DELETE on it would. */
  async cancelOrDeleteAll(
    principal: Principal,
    envelope: CommandEnvelope,
  ): Promise<{ deleted_count: number; cancelled_count: number }> {
    let deleted = 0;
    let cancelled = 0;
    for (const document of await this.queries.list(principal.accountId)) {
      try {
        const { outcome } = await this.cancelOrDelete(principal, document.id, envelope);
        if (outcome === 'deleted') deleted++;
        else cancelled++;
      } catch (error) {
        if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
      }
    }
    return { deleted_count: deleted, cancelled_count: cancelled };
  }

  /**
   * Brings a finished job's charge to the ledger: settles the reservation with credits_consumed (or releases it
   * when nothing is owed, or when it was a lost attempt's), then records it on the job, even a job deleted
   * meanwhile. Both steps are idempotent, so a crash between them is repaired by running this again, and a credit
   * is never charged twice. Answers the position of the recorded charge (null when nothing was pending).
   */
  async settleCharge(exportId: string): Promise<string | null> {
    const { state } = await this.load(exportId);
    if (!state.chargePending || !state.request) return null;
    const envelope = this.systemEnvelope(state.request.payer, exportId);
    if (state.reservationId) {
      const reservation = {
        reservationId: state.reservationId,
        payer: state.request.payer,
        amount: state.reservedCredits,
        category: 'exports' as const,
        channel: exportChannel(state.request),
      };
      if (state.creditsConsumed > 0) await this.ledger.settle(reservation, state.creditsConsumed, envelope);
      else
        await this.ledger.release(
          reservation,
          state.status === 'failed' || state.status === 'pending' ? 'failed' : 'cancelled', // pending: a lost attempt
          envelope,
        );
    }
    return (await this.run(exportId, { type: 'RecordCharge' }, envelope)).position;
  }

  /** The observation query a job runs, rebuilt from what was requested (the time frame resolved then). */
  queryOf(state: ExportState): ObservationQuery {
    const request = state.request!;
    const ast = interpret(validateFor(parseQuery(request.rawQuery), request.searchType), request.searchType, {
      broad: request.broad,
    });
    return { ast, ...(request.since ? { since: request.since } : {}) };
  }

  async count(searchType: ExportSearchType, query: ObservationQuery): Promise<number> {
    const page = await this.context.observations.search(searchType, query, {
      offset: 0,
      limit: 0,
      countLimit: ESTIMATE_COUNT_LIMIT,
    });
    return page.total;
  }

  /** This cycle's results quota of an account: rows used and the plan's maximum. */
  async quota(accountId: string, plan?: Plan, excludeId?: string): Promise<{ used: number; max: number }> {
    const account = await this.accounts.account(accountId);
    if (!account) throw new ServiceError('not_found', 'No such account.');
    const cycle = billingCycle(account.cycleAnchor, this.context.clock.now());
    const used = await this.queries.resultsUsed(accountId, cycle.start, excludeId);
    return { used, max: (plan ?? this.accounts.plan(account)).exportResultsPerCycle };
  }

  load(exportId: string) {
    return this.context.repository.load(exportStreamId(exportId), exportDecider);
  }

  run(
    exportId: string,
    command: ExportCommand,
    envelope: CommandEnvelope,
  ): Promise<HandleResult<ExportEvent, ExportState>> {
    return this.context.repository.handle(
      exportStreamId(exportId),
      exportDecider,
      command,
      { now: this.context.clock.now() },
      // Each step is its own command (event ids derive from the command id), caused by the caller's.
      command.type === 'RequestExport' ? envelope : causedBy(envelope, randomUUID()),
    );
  }

  systemEnvelope(payer: string, exportId: string): CommandEnvelope {
    return commandEnvelope({
      actor: 'system:export-worker',
      payer: payer as `account:${string}`,
      correlationId: exportId,
    });
  }

  private async prepare(
    principal: Principal,
    searchTypeParam: string,
    body: ExportRequestBody,
    envelope: CommandEnvelope,
  ): Promise<Prepared> {
    if (!(EXPORT_SEARCH_TYPES as readonly string[]).includes(searchTypeParam)) {
      throw new ServiceError(
        'not_found',
        `No export search type ${searchTypeParam} (hosts, dns, whois, vhosts).`,
      );
    }
    const searchType = searchTypeParam as ExportSearchType;
    if (!(EXPORT_FORMATS as readonly unknown[]).includes(body.format)) {
      const problem = `format must be one of ${EXPORT_FORMATS.join(', ')}`;
      throw new ServiceError('invalid_input', problem, {
        fields: [{ field: 'format', problems: [problem] }],
      });
    }
    const request = normalizeSearchRequest({
      raw_query: body.raw_query,
      time_frame: body.time_frame,
      broad: body.broad,
      stream: false,
    });
    const account = await this.accounts.account(principal.accountId);
    if (!account) throw new ServiceError('unauthenticated', 'the credential belongs to no account');
    const plan = this.accounts.plan(account);
    const research = this.research ? await this.research.resolve(principal) : undefined;
    // The search engine's own validation: syntax, field entitlements, whether the query applies to the dataset.
    const { queries, invalid } = this.engine.plan(request, {
      principal,
      plan,
      envelope,
      ...(research ? { research } : {}),
    });
    const query = queries.get(searchType);
    if (!query) {
      throw new ServiceError(
        'invalid_query',
        invalid.get(searchType) ?? `the query does not apply to ${searchType}`,
      );
    }
    return {
      searchType,
      rawQuery: request.rawQuery,
      timeFrame: request.timeFrame,
      since: timeFrameStart(request.timeFrame, this.context.clock.now()) ?? null,
      broad: request.broad,
      format: body.format as ExportFormat,
      plan,
      payer: research?.payer ?? payerOf(principal),
      query,
    };
  }
}
