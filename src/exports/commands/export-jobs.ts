import { randomUUID } from 'node:crypto';
import type { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { billingCycle, type Plan } from '../../accounts/domain/plans.js';
import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import {
  causedBy,
  commandEnvelope,
  type CommandEnvelope,
} from '../../platform/event-sourcing/command-metadata.js';
import type { HandleResult } from '../../platform/event-sourcing/event-sourced-repository.js';
import type { Clock } from '../../platform/clock/clock.js';
import type { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import type { LogFunction } from '../../platform/service-context.js';
import { normalizeSearchRequest, timeFrameStart } from '../../search/domain/search-request.js';
import type {
  ObservationIndex,
  ObservationQuery,
} from '../../search/observation-index/observation-index.port.js';
import { interpret } from '../../search/query-language/interpretation.js';
import { parseQuery } from '../../search/query-language/parser.js';
import { validateFor } from '../../search/query-language/validation.js';
import { payerOf, type SearchEngine } from '../../search/search-engine.js';
import type { ResearchContexts } from '../../search/research-context.js';
import {
  EXPORT_FORMATS,
  EXPORT_SEARCH_TYPES,
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

export interface PreparedExport {
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
 * What the export command handlers decide with: the export stream (load, and one decision on it through the
 * stream writer), a request checked against the search rules, the rows it matches and the quota left. Every
 * rule is decided by the pure export decider.
 */
export class ExportJobs {
  constructor(
    private readonly writer: StreamWriter,
    private readonly clock: Clock,
    private readonly observations: Pick<ObservationIndex, 'search'>,
    private readonly engine: SearchEngine,
    private readonly accounts: AccountDirectory,
    readonly queries: ExportQueries,
    /** Problems the handlers recover from (a charge the pool settles later). */
    readonly log: LogFunction,
    /** The organization payer rules (rule 1): an organization member's personal export is unavailable. */
    private readonly research?: ResearchContexts,
  ) {}

  /** The observation query a job runs, rebuilt from what was requested (the time frame resolved then). */
  queryOf(state: ExportState): ObservationQuery {
    const request = state.request!;
    const ast = interpret(validateFor(parseQuery(request.rawQuery), request.searchType), request.searchType, {
      broad: request.broad,
    });
    return { ast, ...(request.since ? { since: request.since } : {}) };
  }

  async count(searchType: ExportSearchType, query: ObservationQuery): Promise<number> {
    const page = await this.observations.search(searchType, query, {
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
    const cycle = billingCycle(account.cycleAnchor, this.clock.now());
    const used = await this.queries.resultsUsed(accountId, cycle.start, excludeId);
    return { used, max: (plan ?? this.accounts.plan(account)).exportResultsPerCycle };
  }

  load(exportId: string) {
    return this.writer.load(exportStreamId(exportId), exportDecider);
  }

  /** One decision on an export's stream: every export handler's append goes through here. */
  run(
    exportId: string,
    command: ExportCommand,
    envelope: CommandEnvelope,
  ): Promise<HandleResult<ExportEvent, ExportState>> {
    return this.writer.decide({
      stream: exportStreamId(exportId),
      decider: exportDecider,
      command,
      context: { now: this.clock.now() },
      // Each step is its own command (event ids derive from the command id), caused by the caller's.
      envelope: command.type === 'RequestExport' ? envelope : causedBy(envelope, randomUUID()),
    });
  }

  systemEnvelope(payer: string, exportId: string): CommandEnvelope {
    return commandEnvelope({
      actor: 'system:export-worker',
      payer: payer as `account:${string}`,
      correlationId: exportId,
    });
  }

  /** The request checked as a search would be (syntax, entitlements, dataset), with who pays and the plan. */
  async prepare(
    principal: Principal,
    searchTypeParam: string,
    body: ExportRequestBody,
    envelope: CommandEnvelope,
  ): Promise<PreparedExport> {
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
      since: timeFrameStart(request.timeFrame, this.clock.now()) ?? null,
      broad: request.broad,
      format: body.format as ExportFormat,
      plan,
      payer: research?.payer ?? payerOf(principal),
      query,
    };
  }
}
