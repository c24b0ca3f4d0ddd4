import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountDirectory } from '../../accounts/queries/account-directory.js';
import { readGroupOf, type Principal } from '../../platform/auth/access.js';
import type { ReadTogether } from '../../platform/database/sql-database.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { toErrorResponse } from '../../platform/http/error-response.js';
import { openEventStream } from '../../platform/http/event-stream.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import type { ChargingRequest } from '../../credits/http/service-credits.interceptor.js';
import { FIELDS, fieldsOf, isDataset, type Dataset } from '../domain/datasets.js';
import { MAX_SEARCH_OFFSET, DATASET_PRICE, FAVICON_SEARCH_PRICE, PRICING_RULES } from '../domain/pricing.js';
import { normalizeSearchRequest } from '../domain/search-request.js';
import {
  BUSY_RETRY_AFTER_SECONDS,
  unifiedRetryAfterSeconds,
  FAILED_RETRY_AFTER_SECONDS,
  type Caller,
  type DatasetOutcome,
  type SearchChunk,
  type SearchEngine,
  type SearchOutcome,
  payerOf,
} from '../search-engine.js';
import type { CreditLedger, PayerTerms } from '../../credits/commands/credit-ledger.js';
import type { SearchRequest } from '../domain/search-request.js';
import type { DatasetSearchBody, SearchBody, SearchMoreBody } from './search.dtos.js';
import type { ResearchContext, ResearchContexts } from '../research-context.js';
import type { AccountDocument } from '../../../projections/accounts.projection.js';
import { RecordSearch } from '../commands/search.commands.js';
import type { DatasetSearchOutcome, SearchKind } from '../domain/search-record.js';
import type { SearchLog } from '../search-log.js';

/**
 * What the personal API routes and their browser twins do, once: the controllers only differ by surface.
 */
export class SearchHandler {
  constructor(
    private readonly engine: SearchEngine,
    private readonly accounts: AccountDirectory,
    /** Where research runs and who pays (organization rules 1, 2, 7, 8); absent: always the account itself. */
    private readonly research?: ResearchContexts,
    /** Where answered searches are recorded (ADR 70); absent: they are not. */
    private readonly searches?: SearchLog,
    /** Runs the caller's lookups in one read-only transaction where the database can (ADR 104). */
    private readonly readTogether: ReadTogether = (fn) => fn(),
    /** Reads the payer's ledger terms with the caller's lookups (ADR 120); absent: the reservation reads them. */
    private readonly ledger?: CreditLedger,
  ) {}

  /** POST /search: SSE unless `stream: false`. A disconnect cancels the remaining datasets. */
  async search(
    principal: Principal,
    body: SearchBody,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<SearchOutcome | void> {
    const searchRequest = normalizeSearchRequest(body);
    const caller = await this.caller(principal, request);
    if (!searchRequest.stream) {
      const outcome = await this.engine.unified(searchRequest, caller, () => undefined, abortOnClose(reply));
      (request as ChargingRequest).creditsCharged = outcome.credits_charged;
      const retryAfter = unifiedRetryAfterSeconds(outcome.per_type_status);
      if (retryAfter !== null) void reply.header('retry-after', String(retryAfter));
      const searchId = await this.recordCompleted(caller, searchRequest, outcome);
      this.recordUnified(caller, searchRequest, outcome, searchId);
      return searchId ? { ...outcome, search_id: searchId } : outcome;
    }
    // Refusals (invalid query, entitlement, credits) are answered as plain errors before the stream opens.
    this.engine.plan(searchRequest, caller);
    const stream = openEventStream(request, reply);
    try {
      // An organization search is recorded before its final chunk, which names it (search_id) for saving evidence.
      let finalChunk: Extract<SearchChunk, { type: 'final' }> | null = null;
      const outcome = await this.engine.unified(
        searchRequest,
        caller,
        (chunk) => {
          if (chunk.type === 'final' && caller.research?.organization)
            finalChunk = chunk as typeof finalChunk;
          else stream.send(chunk);
        },
        stream.closed,
      );
      let searchId: string | null = null;
      if (finalChunk) {
        searchId = await this.recordCompleted(caller, searchRequest, outcome);
        const final: Extract<SearchChunk, { type: 'final' }> = finalChunk;
        stream.send(searchId ? { ...final, search_id: searchId } : final);
      }
      this.recordUnified(caller, searchRequest, outcome, searchId);
    } catch (error) {
      // The same code and message an answer before the stream would carry (storage down: not_ready).
      const answer = toErrorResponse(error, String(request.id));
      stream.send({ type: 'error', code: answer.body.code, message: answer.body.message } as {
        type: string;
      });
      if (answer.unexpected) request.log.error({ err: error }, 'search stream failed');
    } finally {
      stream.end();
    }
  }

  /** POST /search/more: one dataset's next page, priced by depth. */
  async more(principal: Principal, body: SearchMoreBody, request: FastifyRequest, reply: FastifyReply) {
    const { dataset, searchRequest, offset } = furtherPage(body);
    const caller = await this.caller(principal, request);
    const outcome = await this.engine.page(
      dataset,
      searchRequest,
      { offset, limit: searchRequest.perTypeLimit },
      caller,
      abortOnClose(reply),
    );
    (request as ChargingRequest).creditsCharged = outcome.charged;
    // In an organization space a page is a completed search too: its records can become evidence (rule 4).
    const searchId = await this.recordRecords(caller, searchRequest, outcome.charged, outcome.items);
    this.recordSearch(caller, searchRequest, 'page', [datasetOutcome(outcome)], outcome.charged, {
      page: body.page,
      searchId,
    });
    return {
      ...(searchId ? { search_id: searchId } : {}),
      dataset,
      page: body.page,
      per_type_limit: searchRequest.perTypeLimit,
      status: outcome.status,
      results: outcome.items,
      total: outcome.total,
      lower_bound: outcome.lowerBound,
      capped: outcome.capped,
      credits_charged: outcome.charged,
    };
  }

  /**
   * POST /search/more/quote: what that further page would cost, free, from the rule that charges it. The console
   * shows it before the person pays (issue 19) and computes no price itself.
   */
  async quote(principal: Principal, body: SearchMoreBody, request: FastifyRequest) {
    const { dataset, searchRequest, offset } = furtherPage(body);
    const caller = await this.caller(principal, request);
    const price = this.engine.quotePage(dataset, searchRequest, offset, caller);
    return {
      dataset,
      page: body.page,
      per_type_limit: searchRequest.perTypeLimit,
      first_record: offset,
      credits: price.credits,
      base_price: price.base_price,
      depth_multiplier: price.depth_multiplier,
      charged_when: PAGE_CHARGED_WHEN,
    };
  }

  /** POST /{dataset}: rows (`data[]`) or facet counts (`aggregate: true`). */
  async dataset(
    principal: Principal,
    datasetParam: string,
    body: DatasetSearchBody,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const dataset = datasetOf(datasetParam);
    const perPage = body.results_per_page ?? 10;
    const page = body.page ?? 1;
    const offset = (page - 1) * perPage;
    if (offset >= MAX_SEARCH_OFFSET)
      throw invalid('page', `paging stops at ${MAX_SEARCH_OFFSET} records; use an export to read further`);
    const include = includedFields(dataset, body.include);
    const searchRequest = normalizeSearchRequest({
      raw_query: body.raw_query,
      time_frame: body.time_frame,
      broad: body.broad,
      stream: false,
    });
    const caller = await this.caller(principal, request);
    if (body.aggregate) {
      const fields =
        include === 'all'
          ? fieldsOf(dataset)
              .filter((f) => f.aggregatable)
              .map((f) => f.name)
          : include;
      const { facets, charged } = await this.engine.aggregate(
        dataset,
        searchRequest,
        fields,
        caller,
        abortOnClose(reply),
      );
      (request as ChargingRequest).creditsCharged = charged;
      this.recordSearch(
        caller,
        searchRequest,
        'aggregate',
        [{ dataset, status: 'ok', rows: 0, total: null, lowerBound: false }],
        charged,
        {},
      );
      return { dataset, aggregate: true, facets, credits_charged: charged };
    }
    const outcome = await this.engine.page(
      dataset,
      searchRequest,
      { offset, limit: perPage },
      caller,
      abortOnClose(reply),
    );
    if (outcome.status !== 'ok') {
      this.recordSearch(caller, searchRequest, 'dataset', [datasetOutcome(outcome)], outcome.charged, {
        page,
      });
      throw new ServiceError(
        outcome.status === 'timeout' ? 'lookup_unavailable' : 'not_ready',
        outcome.message ?? `${dataset} did not answer`,
        {
          status: outcome.status,
        },
        outcome.status === 'busy' ? BUSY_RETRY_AFTER_SECONDS : FAILED_RETRY_AFTER_SECONDS,
      );
    }
    (request as ChargingRequest).creditsCharged = outcome.charged;
    // Like unified search: an organization's single-dataset search is recorded, so its records can become evidence.
    const searchId = await this.recordRecords(caller, searchRequest, outcome.charged, outcome.items);
    this.recordSearch(caller, searchRequest, 'dataset', [datasetOutcome(outcome)], outcome.charged, {
      page,
      searchId,
    });
    return {
      ...(searchId ? { search_id: searchId } : {}),
      dataset,
      page,
      results_per_page: perPage,
      total: outcome.total,
      lower_bound: outcome.lowerBound,
      data: outcome.items.map((item) => project(item.raw, include)),
      credits_charged: outcome.charged,
    };
  }

  /** GET /search/fields: the vocabulary, free. */
  fields() {
    return {
      datasets: ['hosts', 'dns', 'vhosts', 'whois'],
      prices: { ...DATASET_PRICE, favicon_search: FAVICON_SEARCH_PRICE },
      pricing: PRICING_RULES,
      fields: FIELDS.map((field) => ({
        name: field.name,
        type: field.type,
        datasets: field.datasets,
        description: field.description,
        multiple: field.multiple ?? false,
        aggregatable: field.aggregatable ?? false,
        entitlement: field.entitlement ?? null,
      })),
    };
  }

  /**
   * A personal caller's lookups join the guard's read group when it handed one on (ADR 111: one commit for both),
   * else a group of their own; an organization's may run commands, so they run as they are.
   */
  private async lookupsOf<T>(
    principal: Principal,
    request: FastifyRequest,
    lookups: () => Promise<T>,
  ): Promise<T> {
    const handedOn = readGroupOf(request);
    if (principal.organizationId) {
      await handedOn?.end();
      return lookups();
    }
    if (!handedOn) return this.readTogether(lookups);
    try {
      return await handedOn.run(lookups);
    } finally {
      await handedOn.end();
    }
  }

  private async caller(principal: Principal, request: FastifyRequest): Promise<Caller> {
    // Both lookups at once: they sit in front of every search. A personal caller's are reads only (the account,
    // its memberships and creation intent): they commit once, together (ADR 104), and so does the read of the
    // payer's ledger terms the reservation decides with (ADR 120).
    const lookups = async (): Promise<[AccountDocument | null, ResearchContext | undefined, PayerTerms?]> => {
      const [account, research] = await Promise.all([
        this.accounts.account(principal.accountId),
        this.research ? this.research.resolve(principal) : undefined,
      ]);
      if (!account || !this.ledger) return [account, research];
      const payer = research?.payer ?? payerOf(principal);
      return [account, research, await this.ledger.payerTerms(payer, { inReadGroup: true })];
    };
    const [account, research, ledgerTerms] = await this.lookupsOf(principal, request, lookups);
    if (!account) throw new ServiceError('unauthenticated', 'the credential belongs to no account');
    const envelope = envelopeFor(principal, String(request.id));
    return {
      principal,
      plan: this.accounts.plan(account),
      envelope: research?.scope
        ? {
            ...envelope,
            metadata: {
              ...envelope.metadata,
              payer: research.payer as `organization:${string}`,
              scope: research.scope,
            },
          }
        : envelope,
      ...(research ? { research } : {}),
      ...(ledgerTerms ? { ledgerTerms } : {}),
    };
  }

  /** Every answered unified search is an event of its own (ADR 70). */
  private recordUnified(
    caller: Caller,
    searchRequest: SearchRequest,
    outcome: SearchOutcome,
    searchId: string | null,
  ): void {
    const datasets = Object.keys(outcome.per_type_status) as Dataset[];
    const outcomes = datasets.map((dataset) => ({
      dataset,
      status: outcome.per_type_status[dataset],
      rows: outcome.results[dataset]?.length ?? 0,
      total: outcome.totals[dataset]?.count ?? null,
      lowerBound: outcome.totals[dataset]?.lower_bound ?? false,
    }));
    this.recordSearch(caller, searchRequest, 'unified', outcomes, outcome.credits_charged, { searchId });
  }

  /** Starts the search's one append; the answer does not wait for it (SearchLog). */
  private recordSearch(
    caller: Caller,
    searchRequest: SearchRequest,
    kind: SearchKind,
    outcomes: DatasetSearchOutcome[],
    creditsCharged: number,
    extra: { readonly page?: number; readonly searchId?: string | null },
  ): void {
    this.searches?.record(
      new RecordSearch(
        {
          kind,
          query: searchRequest.rawQuery,
          timeFrame: searchRequest.timeFrame,
          broad: searchRequest.broad,
          datasets: outcomes.map((outcome) => outcome.dataset),
          outcomes,
          creditsCharged,
          ...(extra.page !== undefined ? { page: extra.page } : {}),
          ...(extra.searchId ? { organizationSearchId: extra.searchId } : {}),
        },
        caller.envelope,
      ),
    );
  }

  /** Organization searches are recorded (their records can be saved as evidence later); personal ones are not. */
  private async recordCompleted(
    caller: Caller,
    searchRequest: SearchRequest,
    outcome: SearchOutcome,
  ): Promise<string | null> {
    return this.recordRecords(
      caller,
      searchRequest,
      outcome.credits_charged,
      Object.values(outcome.results).flat(),
    );
  }

  private async recordRecords(
    caller: Caller,
    searchRequest: SearchRequest,
    creditsCharged: number,
    records: SearchOutcome['results'][Dataset],
  ): Promise<string | null> {
    if (!this.research || !caller.research?.organization) return null;
    return this.research.recordCompletedSearch(caller.principal, caller.research, {
      rawQuery: searchRequest.rawQuery,
      timeFrame: searchRequest.timeFrame,
      creditsCharged,
      records,
    });
  }
}

function datasetOutcome(outcome: DatasetOutcome & { charged: number }): DatasetSearchOutcome {
  return {
    dataset: outcome.dataset,
    status: outcome.status,
    rows: outcome.items.length,
    total: outcome.total,
    lowerBound: outcome.lowerBound,
  };
}

const PAGE_CHARGED_WHEN =
  'only when the dataset answers with records: a dataset that does not answer, or a page past the last record, ' +
  'is not charged';

/** A further page of search/more: its dataset, request and first record, refused past the paging limit. */
function furtherPage(body: SearchMoreBody): {
  dataset: Dataset;
  searchRequest: SearchRequest;
  offset: number;
} {
  const dataset = datasetOf(body.dataset);
  const searchRequest = normalizeSearchRequest({ ...body, stream: false });
  const offset = (body.page - 1) * searchRequest.perTypeLimit;
  if (offset >= MAX_SEARCH_OFFSET)
    throw invalid('page', `paging stops at ${MAX_SEARCH_OFFSET} records; use an export to read further`);
  return { dataset, searchRequest, offset };
}

function datasetOf(value: string): Dataset {
  if (!isDataset(value))
    throw new ServiceError('not_found', `no dataset ${value} (hosts, dns, vhosts, whois)`);
  return value;
}

function includedFields(dataset: Dataset, include: string | undefined): 'all' | string[] {
  if (include === undefined || include.trim() === '' || include.trim() === 'all') return 'all';
  const names = include
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const known = new Set(fieldsOf(dataset).map((f) => f.name));
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw invalid('include', `unknown fields for ${dataset}: ${unknown.join(', ')}`);
  return names;
}

function project(record: Record<string, unknown>, include: 'all' | string[]): Record<string, unknown> {
  if (include === 'all') return record;
  const picked: Record<string, unknown> = { id: record.id };
  if ('vulnerability_ref' in record) picked.vulnerability_ref = record.vulnerability_ref;
  for (const path of include) {
    const value = path
      .split('.')
      .reduce<unknown>(
        (node, part) =>
          node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined,
        record,
      );
    if (value !== undefined) picked[path] = value;
  }
  return picked;
}

function invalid(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', problem, { fields: [{ field, problems: [problem] }] });
}

/** Aborts when the client goes away before the answer is written (the response closes unfinished). */
function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
