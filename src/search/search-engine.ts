import type { Principal } from '../platform/auth/access.js';
import { hasCpeEntitlement } from '../accounts/domain/entitlements.js';
import type { Plan } from '../accounts/domain/plans.js';
import type { CommandBus } from '@nestjs/cqrs';
import type { PayerTerms, Reservation } from '../credits/commands/credit-ledger.js';
import {
  ReleaseReservation,
  ReserveCredits,
  SettleReservation,
} from '../credits/commands/credit.commands.js';
import type { UsageCategory } from '../credits/domain/ledger.js';
import { ServiceError } from '../platform/errors/service-error.js';
import type { CommandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import type { Clock } from '../platform/clock/clock.js';
import { DATASETS, fieldNamed, type Dataset } from './domain/datasets.js';
import {
  unifiedSearchCharge,
  unifiedSearchReservation,
  USAGE_CATEGORY,
  DATASET_PRICE,
  pageCharge,
  pagePrice,
  pageQuote,
} from './domain/pricing.js';
import { timeFrameStart, type SearchRequest } from './domain/search-request.js';
import type {
  Facets,
  ObservationIndex,
  ObservationQuery,
  ObservationRecord,
  SearchPage,
} from './observation-index/observation-index.port.js';
import { QuerySyntaxError, type QueryNode } from './query-language/ast.js';
import { collectFields, interpret, usesFavicon } from './query-language/interpretation.js';
import { parseQuery } from './query-language/parser.js';
import { validateFor } from './query-language/validation.js';
import type { VulnerabilityRefs } from './vulnerability-ref.js';
import type { ResearchContext } from './research-context.js';
import { redactWhoisRecord, refuseOmittedWhoisFields } from '../organizations/domain/policies.js';

/** Per-dataset outcome states of the contract. Only `ok` is a result; the others are never zero matches. */
export type DatasetState = 'ok' | 'timeout' | 'busy' | 'error' | 'invalid_query' | 'cancelled';

export interface DatasetOutcome {
  readonly dataset: Dataset;
  readonly status: DatasetState;
  readonly items: ReadonlyArray<{ dataset: Dataset; id: string; raw: Record<string, unknown> }>;
  /** Matching records (exact, or a lower bound when `lowerBound`); null when the dataset did not answer. */
  readonly total: number | null;
  readonly lowerBound: boolean;
  /** More records match than per_type_limit returned. */
  readonly capped: boolean;
  readonly message?: string;
}

export interface SearchOutcome {
  readonly query: { raw_query: string; time_frame: string; per_type_limit: number; broad: boolean };
  readonly results: Record<Dataset, DatasetOutcome['items']>;
  readonly totals: Record<Dataset, { count: number | null; lower_bound: boolean }>;
  readonly per_type_status: Record<Dataset, DatasetState>;
  readonly partial: boolean;
  readonly lower_bound: boolean;
  readonly per_type_failed: Dataset[];
  readonly per_type_timed_out: Dataset[];
  readonly per_type_capped: Dataset[];
  /** The facet counts the stream sent (its `facets` chunks), by dataset: the JSON answer carries the same. */
  readonly facets: Partial<Record<Dataset, FacetCounts>>;
  readonly credits_charged: number;
  /** An organization search's record id: what evidence is saved from (rule 4). */
  readonly search_id?: string;
}

/** Value counts per facet field. */
export type FacetCounts = Record<string, Array<{ value: string | number | boolean; count: number }>>;

/** Chunks of the streamed answer, in the contract's types. */
export type SearchChunk =
  | {
      readonly type: 'partial';
      readonly dataset: Dataset;
      readonly status: DatasetState;
      readonly total: number | null;
      readonly lower_bound: boolean;
    }
  | {
      readonly type: 'results';
      readonly dataset: Dataset;
      readonly items: DatasetOutcome['items'];
      readonly capped: boolean;
    }
  | {
      readonly type: 'facets';
      readonly dataset: Dataset;
      readonly facets: FacetCounts;
    }
  | ({ readonly type: 'final' } & SearchOutcome)
  | { readonly type: 'error'; readonly code: string; readonly message: string };

export interface SearchEngineOptions {
  /** Each dataset's own deadline (default 8 s). */
  readonly datasetDeadlineMs?: number;
  /** Queries in flight per dataset in this process; beyond it a dataset answers `busy` (default 16). */
  readonly maxConcurrentPerDataset?: number;
  /** Facet fields streamed for host results. */
  readonly hostFacets?: readonly string[];
}

export interface Caller {
  readonly principal: Principal;
  readonly plan: Plan;
  readonly envelope: CommandEnvelope;
  /** Who pays and within which envelopes (rules 1, 8); absent: the principal's own account. */
  readonly research?: ResearchContext;
  /** The payer's ledger terms, read with the caller's lookups (ADR 120); absent: the reservation reads them. */
  readonly ledgerTerms?: PayerTerms;
}

/**
 * Unified and single-dataset search over the observation index. Contract rules on request validation live in
 * domain/search-request.ts and prices in domain/pricing.ts; this class runs datasets concurrently, each with its
 * own deadline, and charges through the ledger: reserve before running, settle what answered, release if nothing did.
 */
export class SearchEngine {
  private readonly inFlight = new Map<Dataset, number>();
  private readonly deadlineMs: number;
  private readonly maxConcurrent: number;
  private readonly hostFacets: readonly string[];

  constructor(
    private readonly index: ObservationIndex,
    /** Charges go through the credit commands: reserve before running, settle or release after. */
    private readonly commands: CommandBus,
    private readonly refs: VulnerabilityRefs,
    private readonly clock: Clock,
    options: SearchEngineOptions = {},
  ) {
    this.deadlineMs = options.datasetDeadlineMs ?? 8000;
    this.maxConcurrent = options.maxConcurrentPerDataset ?? 32;
    this.hostFacets = options.hostFacets ?? ['port', 'country', 'product'];
  }

  /** Parses once and prepares each dataset's query; a syntax error is the caller's 422 before any charge. */
  plan(
    request: SearchRequest,
    caller: Caller,
  ): { queries: Map<Dataset, ObservationQuery>; invalid: Map<Dataset, string>; favicon: boolean } {
    const ast = toServiceError(() => parseQuery(request.rawQuery));
    this.checkFieldEntitlements(ast, caller.plan);
    // Rule 7: during the trial, filtering or sorting on an omitted WHOIS contact is refused before any reservation.
    if (caller.research?.whoisContactsOmitted) refuseOmittedWhoisFields(collectFields(ast));
    const since = timeFrameStart(request.timeFrame, this.clock.now());
    const queries = new Map<Dataset, ObservationQuery>();
    const invalid = new Map<Dataset, string>();
    for (const dataset of DATASETS) {
      try {
        const prepared = interpret(validateFor(ast, dataset), dataset, { broad: request.broad });
        queries.set(dataset, { ast: prepared, ...(since ? { since } : {}) });
      } catch (error) {
        if (!(error instanceof QuerySyntaxError)) throw error;
        invalid.set(dataset, error.message);
      }
    }
    if (queries.size === 0) {
      const [first] = invalid.values();
      throw new ServiceError('invalid_query', first ?? 'the query applies to no dataset', {
        per_type: Object.fromEntries(invalid),
      });
    }
    return { queries, invalid, favicon: usesFavicon(ast) };
  }

  /** POST /search: every dataset at once; `emit` receives the stream chunks (also when answering one JSON). */
  async unified(
    request: SearchRequest,
    caller: Caller,
    emit: (chunk: SearchChunk) => void,
    signal: AbortSignal,
  ): Promise<SearchOutcome> {
    const { queries, invalid, favicon } = this.plan(request, caller);
    const applicable = [...queries.keys()];
    const priciest = applicable.reduce((a, b) =>
      pagePrice(b, 0, favicon) > pagePrice(a, 0, favicon) ? b : a,
    );
    const reservation = await this.commands.execute(
      new ReserveCredits(
        {
          payer: caller.research?.payer ?? payerOf(caller.principal),
          envelopes: caller.research?.envelopes ?? [],
          amount: unifiedSearchReservation(applicable, favicon),
          category: USAGE_CATEGORY[priciest],
          channel: caller.principal.channel,
          ...(caller.ledgerTerms ? { terms: caller.ledgerTerms } : {}),
        },
        caller.envelope,
      ),
    );
    const outcomes = new Map<Dataset, DatasetOutcome>();
    const facetsOf = new Map<Dataset, FacetCounts>();
    for (const [dataset, message] of invalid) {
      const outcome = failed(dataset, 'invalid_query', message);
      outcomes.set(dataset, outcome);
      emit({ type: 'partial', dataset, status: outcome.status, total: null, lower_bound: false });
    }
    try {
      await Promise.all(
        applicable.map(async (dataset) => {
          // Host facets are read in the page's own read where the index can (ADR 0131: one commit, not two).
          const facetsAfter: FacetsAfterPage | undefined = dataset === 'hosts' ? {} : undefined;
          const outcome = this.redact(
            await this.runDataset(
              dataset,
              queries.get(dataset)!,
              request.perTypeLimit,
              signal,
              0,
              facetsAfter,
            ),
            caller,
          );
          outcomes.set(dataset, outcome);
          emit({
            type: 'partial',
            dataset,
            status: outcome.status,
            total: outcome.total,
            lower_bound: outcome.lowerBound,
          });
          if (outcome.status === 'ok') {
            emit({ type: 'results', dataset, items: outcome.items, capped: outcome.capped });
            if (dataset === 'hosts' && outcome.items.length > 0) {
              const facets = facetsAfter?.read
                ? await facetsAfter.read.catch(() => null) // a bonus: their failure never fails the search
                : await this.facets(dataset, queries.get(dataset)!, signal);
              if (facets) {
                facetsOf.set(dataset, facets);
                emit({ type: 'facets', dataset, facets });
              }
            }
          }
        }),
      );
    } catch (error) {
      await this.commands
        .execute(new ReleaseReservation(reservation, 'failed', caller.envelope))
        .catch(() => undefined);
      throw error;
    }
    const answered = DATASETS.flatMap((dataset) => {
      const outcome = outcomes.get(dataset);
      return outcome?.status === 'ok' ? [{ dataset, rows: outcome.items.length }] : [];
    });
    const charge = unifiedSearchCharge(answered, favicon);
    const charged = await this.settle(reservation, charge?.credits ?? 0, caller.envelope, charge?.category);
    const outcome = summarize(request, outcomes, facetsOf, charged);
    emit({ type: 'final', ...outcome });
    return outcome;
  }

  /** One dataset, one page (single-dataset routes and /search/more): reserve the page price, settle if it answered. */
  async page(
    dataset: Dataset,
    request: SearchRequest,
    page: { offset: number; limit: number },
    caller: Caller,
    signal: AbortSignal,
  ): Promise<DatasetOutcome & { charged: number }> {
    const { queries, invalid, favicon } = this.plan(request, caller);
    const query = queries.get(dataset);
    if (!query)
      throw new ServiceError(
        'invalid_query',
        invalid.get(dataset) ?? `the query does not apply to ${dataset}`,
      );
    // A busy dataset is refused before any reservation: nothing is booked for an answer that cannot come.
    if (this.atCapacity(dataset)) throw busyDataset(dataset);
    const price = pagePrice(dataset, page.offset, favicon);
    const reservation = await this.commands.execute(
      new ReserveCredits(
        {
          payer: caller.research?.payer ?? payerOf(caller.principal),
          envelopes: caller.research?.envelopes ?? [],
          amount: price,
          category: USAGE_CATEGORY[dataset],
          channel: caller.principal.channel,
          ...(caller.ledgerTerms ? { terms: caller.ledgerTerms } : {}),
        },
        caller.envelope,
      ),
    );
    const outcome = this.redact(
      await this.runDataset(dataset, query, page.limit, signal, page.offset),
      caller,
    );
    // A page past the end of the results is answered (no rows, the total) and never charged.
    const charged = await this.settle(
      reservation,
      pageCharge(dataset, page.offset, favicon, {
        answered: outcome.status === 'ok',
        total: outcome.total,
        lowerBound: outcome.lowerBound,
      }),
      caller.envelope,
    );
    return { ...outcome, charged };
  }

  /**
   * The free quote of one page (search/more/quote): the same checks as paying for it (query, entitlements) and the
   * same price rule, with nothing reserved and no dataset read.
   */
  quotePage(dataset: Dataset, request: SearchRequest, offset: number, caller: Caller) {
    const { queries, invalid, favicon } = this.plan(request, caller);
    if (!queries.has(dataset))
      throw new ServiceError(
        'invalid_query',
        invalid.get(dataset) ?? `the query does not apply to ${dataset}`,
      );
    return pageQuote(dataset, offset, favicon);
  }

  /** Facet counts for a single-dataset `aggregate: true` request, priced as one page. */
  async aggregate(
    dataset: Dataset,
    request: SearchRequest,
    fields: readonly string[],
    caller: Caller,
    signal: AbortSignal,
  ) {
    const { queries, invalid } = this.plan(request, caller);
    const query = queries.get(dataset);
    if (!query)
      throw new ServiceError(
        'invalid_query',
        invalid.get(dataset) ?? `the query does not apply to ${dataset}`,
      );
    if (caller.research?.whoisContactsOmitted) refuseOmittedWhoisFields(fields);
    for (const field of fields) {
      const definition = fieldNamed(field);
      if (!definition?.datasets.includes(dataset) || !definition.aggregatable) {
        throw new ServiceError('invalid_input', `${field} cannot be aggregated on ${dataset}`);
      }
    }
    const price = DATASET_PRICE[dataset];
    const reservation = await this.commands.execute(
      new ReserveCredits(
        {
          payer: caller.research?.payer ?? payerOf(caller.principal),
          envelopes: caller.research?.envelopes ?? [],
          amount: price,
          category: USAGE_CATEGORY[dataset],
          channel: caller.principal.channel,
          ...(caller.ledgerTerms ? { terms: caller.ledgerTerms } : {}),
        },
        caller.envelope,
      ),
    );
    try {
      const facets = await this.index.aggregate(
        dataset,
        query,
        fields,
        20,
        AbortSignal.any([signal, AbortSignal.timeout(this.deadlineMs)]),
      );
      return { facets, charged: await this.settle(reservation, price, caller.envelope) };
    } catch (error) {
      await this.commands
        .execute(new ReleaseReservation(reservation, 'failed', caller.envelope))
        .catch(() => undefined);
      throw classify(error, signal);
    }
  }

  /** Rule 7: the trial's WHOIS results omit natural-person contacts. */
  private redact(outcome: DatasetOutcome, caller: Caller): DatasetOutcome {
    if (outcome.dataset !== 'whois' || !caller.research?.whoisContactsOmitted) return outcome;
    return {
      ...outcome,
      items: outcome.items.map((item) => ({ ...item, raw: redactWhoisRecord(item.raw) })),
    };
  }

  private async runDataset(
    dataset: Dataset,
    query: ObservationQuery,
    limit: number,
    signal: AbortSignal,
    offset = 0,
    facetsAfter?: FacetsAfterPage,
  ): Promise<DatasetOutcome> {
    if (this.atCapacity(dataset)) return failed(dataset, 'busy', `${dataset} is busy; try again shortly`);
    this.inFlight.set(dataset, (this.inFlight.get(dataset) ?? 0) + 1);
    const deadline = AbortSignal.timeout(this.deadlineMs);
    try {
      const within = AbortSignal.any([signal, deadline]);
      let page: SearchPage;
      if (facetsAfter && this.index.searchThenAggregate) {
        const read = await this.index.searchThenAggregate(
          dataset,
          query,
          { offset, limit },
          { fields: this.hostFacets, limit: HOST_FACET_VALUES },
          within,
        );
        page = read.page;
        facetsAfter.read = read.facets;
      } else page = await this.index.search(dataset, query, { offset, limit }, within);
      const items = page.records.map((record) => ({
        dataset,
        id: record.id,
        raw: this.present(dataset, record),
      }));
      return {
        dataset,
        status: 'ok',
        items,
        total: page.total,
        lowerBound: page.totalIsLowerBound,
        capped: page.totalIsLowerBound || page.total > offset + items.length,
      };
    } catch (error) {
      if (signal.aborted) return failed(dataset, 'cancelled', 'the client went away');
      // A server-side time limit (MongoDB's maxTimeMS, set from the same deadline) may run out first.
      if (deadline.aborted || (error instanceof Error && error.name === 'TimeoutError'))
        return failed(dataset, 'timeout', `${dataset} did not answer within ${this.deadlineMs} ms`);
      return failed(dataset, 'error', `${dataset} failed to answer`);
    } finally {
      this.inFlight.set(dataset, (this.inFlight.get(dataset) ?? 1) - 1);
    }
  }

  private atCapacity(dataset: Dataset): boolean {
    return (this.inFlight.get(dataset) ?? 0) >= this.maxConcurrent;
  }

  private async facets(dataset: Dataset, query: ObservationQuery, signal: AbortSignal) {
    try {
      return await this.index.aggregate(
        dataset,
        query,
        this.hostFacets,
        HOST_FACET_VALUES,
        AbortSignal.any([signal, AbortSignal.timeout(this.deadlineMs)]),
      );
    } catch {
      return null; // facets are a bonus: their failure never fails the search
    }
  }

  /** A host observation carries an opaque vulnerability_ref sealing its software identities. */
  private present(dataset: Dataset, record: ObservationRecord): Record<string, unknown> {
    if (dataset !== 'hosts') return record;
    const cpe = Array.isArray(record.cpe) ? (record.cpe as string[]) : [];
    const identity = {
      vendor: typeof record.vendor === 'string' ? record.vendor : null,
      product: typeof record.product === 'string' ? record.product : null,
      version: typeof record.version === 'string' ? record.version : null,
      cpe,
    };
    return { ...record, vulnerability_ref: this.refs.seal([identity], this.clock.now()) };
  }

  private async settle(
    reservation: Reservation,
    credits: number,
    envelope: CommandEnvelope,
    category?: UsageCategory,
  ): Promise<number> {
    if (credits === 0) {
      await this.commands.execute(new ReleaseReservation(reservation, 'failed', envelope));
      return 0;
    }
    await this.commands.execute(new SettleReservation(reservation, credits, envelope, category));
    return credits;
  }

  private checkFieldEntitlements(ast: QueryNode, plan: Plan): void {
    for (const field of collectFields(ast)) {
      const definition = fieldNamed(field);
      if (definition?.entitlement === 'cpe' && !hasCpeEntitlement(plan)) {
        throw new ServiceError(
          'forbidden',
          `searching on ${field} needs the CPE field entitlement (Enterprise)`,
          { field },
        );
      }
    }
  }
}

export function payerOf(principal: Principal): string {
  return principal.organizationId
    ? `organization:${principal.organizationId}`
    : `account:${principal.accountId}`;
}

/** Seconds a caller waits before asking a busy dataset again (queries take well under a second). */
/** Values per host facet a unified search shows. */
const HOST_FACET_VALUES = 10;

/** Where runDataset leaves the facets it read with the page, when the index reads them together (ADR 0131). */
interface FacetsAfterPage {
  read?: Promise<Facets>;
}

export const BUSY_RETRY_AFTER_SECONDS = 1;
/** Seconds before asking again a dataset that failed or timed out. */
export const FAILED_RETRY_AFTER_SECONDS = 5;

/**
 * The Retry-After of a unified answer: when a dataset in it was busy, the answer is whole for the others and the
 * caller may ask that one again after this long, as a busy refusal says (null: nothing to ask again soon).
 */
export function unifiedRetryAfterSeconds(status: Readonly<Record<string, DatasetState>>): number | null {
  return Object.values(status).includes('busy') ? BUSY_RETRY_AFTER_SECONDS : null;
}

function busyDataset(dataset: Dataset): ServiceError {
  return new ServiceError(
    'not_ready',
    `${dataset} is busy; try again shortly`,
    { status: 'busy' },
    BUSY_RETRY_AFTER_SECONDS,
  );
}

function failed(dataset: Dataset, status: DatasetState, message: string): DatasetOutcome {
  return { dataset, status, items: [], total: null, lowerBound: false, capped: false, message };
}

function summarize(
  request: SearchRequest,
  outcomes: Map<Dataset, DatasetOutcome>,
  facets: Map<Dataset, FacetCounts>,
  charged: number,
): SearchOutcome {
  const get = (dataset: Dataset) => outcomes.get(dataset) ?? failed(dataset, 'error', 'not run');
  const status = Object.fromEntries(DATASETS.map((d) => [d, get(d).status])) as Record<Dataset, DatasetState>;
  const failedSets = DATASETS.filter((d) => !['ok', 'timeout'].includes(get(d).status));
  const timedOut = DATASETS.filter((d) => get(d).status === 'timeout');
  return {
    query: {
      raw_query: request.rawQuery,
      time_frame: request.timeFrame,
      per_type_limit: request.perTypeLimit,
      broad: request.broad,
    },
    results: Object.fromEntries(DATASETS.map((d) => [d, get(d).items])) as SearchOutcome['results'],
    totals: Object.fromEntries(
      DATASETS.map((d) => [d, { count: get(d).total, lower_bound: get(d).lowerBound }]),
    ) as SearchOutcome['totals'],
    per_type_status: status,
    partial: DATASETS.some((d) => status[d] !== 'ok' && status[d] !== 'invalid_query'),
    lower_bound: DATASETS.some((d) => get(d).lowerBound),
    per_type_failed: failedSets,
    per_type_timed_out: timedOut,
    per_type_capped: DATASETS.filter((d) => get(d).capped),
    facets: Object.fromEntries(DATASETS.flatMap((d) => (facets.has(d) ? [[d, facets.get(d)!]] : []))),
    credits_charged: charged,
  };
}

function toServiceError<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof QuerySyntaxError) {
      throw new ServiceError(error.code, error.message, { position: error.position });
    }
    throw error;
  }
}

function classify(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return new ServiceError('invalid_input', 'the request was cancelled');
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new ServiceError(
      'lookup_unavailable',
      'the dataset did not answer in time; try again',
      { status: 'timeout' },
      FAILED_RETRY_AFTER_SECONDS,
    );
  }
  return error;
}
