import {
  EXPOSURE_HISTORY,
  type ExposureHistoryDocument,
} from '../../../projections/exposure-history.projection.js';
import {
  EXPOSURE_CONTROLS,
  EXPOSURE_HOSTS,
  EXPOSURE_SUBJECTS,
  EXPOSURE_SUMMARIES,
  type ExposureSubjectDocument,
  type ExposureSummaryDocument,
} from '../../../projections/exposure-inventory.projection.js';
import {
  EXPOSURE_RUNS,
  EXPOSURE_SCOPES,
  runDocumentId,
  type ExposureRunDocument,
  type ExposureScopeDocument,
} from '../../../projections/exposure-scopes.projection.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type {
  AtOnceRead,
  AtOnceResults,
  Collection,
  Filter,
  ReadDocument,
} from '../../platform/read-store/read-store.port.js';
import type { Clock } from '../../platform/clock/clock.js';
import type { EventStore } from '../../platform/event-store/event-store.port.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import type { OrganizationAccess } from '../../organizations/commands/organization-access.js';
import type { ScopeAccess } from '../commands/exposure-access.js';
import { replayScopeAsOf } from './as-of-replay.js';
import { monitoringView } from './monitoring-view.js';
import {
  EXPOSURE_WATCH,
  type ExposureWatchDocument,
} from '../../../projections/exposure-monitoring.projection.js';
import {
  COVERAGE_STATES,
  displayedResult,
  isPositive,
  processingOf,
  RESULT_STATES,
  type LatestRefresh,
  type ProcessingView,
} from '../domain/coverage.js';
import { DECISION_STATES, SUBJECT_KINDS } from '../domain/subject.js';
import {
  PageBoundaries,
  planPage,
  readPage,
  settlePage,
  type KeysetPageRequest,
  type PageMemory,
  type PagePlan,
} from './inventory-pages.js';

/** Contract, Limits. */
export const INVENTORY_PAGE = 100;
export const MAX_INVENTORY_OFFSET = 50_000;
export const HISTORY_PAGE = 50;
export const MAX_HISTORY_OFFSET = 100_000;
export const MAX_CONTROLS = 100;
export const MAX_DELETED_ENTRIES = 100;
/** Shallower pages are read by plain OFFSET on the index (cheap); deeper ones seek remembered boundaries. */
export const KEYSET_FROM_OFFSET = 1_000;
const INVENTORY_PROJECTION = 'exposure-inventory';
/** How long an inventory read waits for the subjects of a refresh the scope already shows completed. */
const INVENTORY_CATCH_UP_MS = 2_000;

/** One boundary memory per service (its projection runner), shared by every request of that service. */
const boundariesByService = new WeakMap<ProjectionRunner, PageBoundaries>();

/** The boundaries a service remembers (tests and diagnostics read `seeks`). */
export function inventoryPageBoundaries(projections: ProjectionRunner): PageBoundaries {
  let boundaries = boundariesByService.get(projections);
  if (!boundaries) {
    boundaries = new PageBoundaries();
    boundariesByService.set(projections, boundaries);
  }
  return boundaries;
}

/** Said with every inventory and refresh answer: what the data is, and what it is not. */
export const OBSERVATION_NOTICE =
  'Built from previously collected observations and the vulnerability catalogue. No asset was contacted and no ' +
  'check was run against it. A missing observation does not show that a service is secure or absent; a failed or ' +
  'partial refresh never establishes zero matches.';

export function checkedOffset(raw: unknown, max: number): number {
  if (raw === undefined || raw === '') return 0;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value > max) {
    throw new ServiceError('invalid_input', `offset must be an integer from 0 to ${max}`, {
      fields: [{ field: 'offset', problems: [`must be an integer from 0 to ${max}`] }],
    });
  }
  return value;
}

const FILTERS: Readonly<Record<string, readonly string[]>> = {
  coverage: COVERAGE_STATES,
  result: RESULT_STATES,
  decision: DECISION_STATES,
  kind: SUBJECT_KINDS,
};

/** Every evaluation filter a query takes (`coverage:catalogue_unavailable`, `result:kev`…). */
export const EVALUATION_FILTERS: readonly string[] = Object.entries(FILTERS).flatMap(([field, values]) =>
  values.map((value) => `${field}:${value}`),
);

/** `coverage:catalogue_unavailable`, `result:kev`, `decision:acknowledged`, `kind:domain_expiry`. */
export function parseEvaluationFilter(raw: unknown): { field: string; value: string } | null {
  if (raw === undefined || raw === '') return null;
  const match = typeof raw === 'string' ? /^([a-z_]+):([a-z_]+)$/.exec(raw) : null;
  const allowed = match ? FILTERS[match[1]!] : undefined;
  if (!match || !allowed?.includes(match[2]!)) {
    throw new ServiceError(
      'invalid_input',
      'filter must be one of coverage:<state>, result:<state>, decision:<state>, kind:<kind>',
      {
        fields: [{ field: 'filter', problems: ['unknown evaluation filter'] }],
        allowed: Object.fromEntries(Object.entries(FILTERS)),
      },
    );
  }
  return { field: match[1]!, value: match[2]! };
}

/**
 * Where the queries read from: the live read models by default; `as_of` passes read models replayed in memory
 * up to a past position, with that moment as `now`.
 */
export interface ExposureReadSource {
  collection<T extends ReadDocument>(projection: string, name: string): Collection<T>;
  now(): Date;
}

/** What the exposure reads use: the read models, the event log (as_of replays) and the clock. */
export interface ExposureReadPorts {
  readonly projections: ProjectionRunner;
  readonly eventStore: EventStore;
  readonly clock: Clock;
}

/** Reads of the exposure context, always within the scope the gate accepted. Reading creates no job. */
export class ExposureQueries {
  constructor(
    private readonly ports: ExposureReadPorts,
    private readonly source?: ExposureReadSource,
  ) {}

  private collection<T extends ReadDocument>(projection: string, name: string) {
    return this.source
      ? this.source.collection<T>(projection, name)
      : this.ports.projections.collection<T>(projection, name);
  }

  /** Reads of the read models as of one moment (an `as_of` source is one moment already). */
  private readAtOnce<const R extends readonly AtOnceRead<ReadDocument>[]>(
    reads: R,
  ): Promise<AtOnceResults<R>> {
    if (!this.source) return this.ports.projections.readStore.readAtOnce(reads);
    return Promise.all(
      reads.map((read) =>
        'id' in read ? read.collection.get(read.id) : read.collection.find(read.filter, read.options),
      ),
    ) as Promise<AtOnceResults<R>>;
  }

  private now(): Date {
    return this.source ? this.source.now() : this.ports.clock.now();
  }

  scopes() {
    return this.collection<ExposureScopeDocument>('exposure-scopes', EXPOSURE_SCOPES);
  }

  async scopeDocument(scopeId: string): Promise<ExposureScopeDocument> {
    const scope = await this.scopes().get(scopeId);
    if (!scope) throw new ServiceError('not_found', 'no such exposure scope');
    return scope;
  }

  async scope(scopeId: string) {
    return scopeView(await this.scopeDocument(scopeId));
  }

  /** GET /clients/deleted: managers; up to 100 recoverable entries, most recently deleted first. */
  async deleted(access: OrganizationAccess) {
    const deleted = await this.scopes().find(
      { organizationId: access.organizationId, state: 'deleted' },
      { sort: [['deletion.deletedAt', -1]], limit: MAX_DELETED_ENTRIES },
    );
    return {
      clients: deleted
        .filter((scope) => scope.deletion && !scope.deletion.erasing)
        .map((scope) => ({
          id: scope.id,
          kind: scope.kind,
          name: scope.name,
          domain: scope.exposure?.domain ?? null,
          previous_state: scope.deletion!.previousState,
          deleted_at: scope.deletion!.deletedAt,
          deleted_by: scope.deletion!.deletedBy,
          erase_after: scope.deletion!.eraseAfter,
          version: `"${scope.version}"`,
        })),
    };
  }

  async run(scopeId: string, runId: string) {
    const run = await this.collection<ExposureRunDocument>('exposure-scopes', EXPOSURE_RUNS).get(
      runDocumentId(scopeId, runId),
    );
    if (!run) throw new ServiceError('not_found', 'no such refresh');
    return runView(run);
  }

  // ---- Inventory ----

  async inventory(
    scope: ScopeAccess,
    query: { offset?: unknown; group_by?: unknown; filter?: unknown; as_of?: unknown },
  ) {
    if (query.as_of !== undefined && !this.source) {
      // For auditors: the same answer, from the event log replayed up to that moment (as-of-replay.ts).
      const { source, point } = await replayScopeAsOf(this.ports, scope.scopeId, query.as_of);
      const past = await new ExposureQueries(this.ports, source).inventoryView(scope, query);
      return { ...past, as_of: point };
    }
    return this.inventoryView(scope, query);
  }

  private async inventoryView(
    scope: ScopeAccess,
    query: { offset?: unknown; group_by?: unknown; filter?: unknown },
  ) {
    const offset = checkedOffset(query.offset, MAX_INVENTORY_OFFSET);
    if (query.group_by !== undefined && query.group_by !== 'host') {
      throw new ServiceError('invalid_input', 'group_by must be host', {
        fields: [{ field: 'group_by', problems: ['must be host'] }],
      });
    }
    const evaluationFilter = parseEvaluationFilter(query.filter);
    // The lifecycle state comes from the folded stream the gate read (the read model may lag an archive).
    const summaries = this.collection<ExposureSummaryDocument>('exposure-inventory', EXPOSURE_SUMMARIES);
    const subjects = this.collection<ExposureSubjectDocument>('exposure-inventory', EXPOSURE_SUBJECTS);
    // `$is`: scalar equality, so the PostgreSQL store seeks the index that leads with the scope (ADR 84).
    const filterOf = (failure: LatestRefresh | null): Filter => ({
      scopeId: { $is: scope.scopeId },
      ...(evaluationFilter ? this.filterFor(evaluationFilter, failure) : {}),
    });
    const subjectRequest = (pageFilter: Filter): KeysetPageRequest => ({
      filter: pageFilter,
      // The scope first: the order of the index `by_scope_order`, which the page is read from.
      sort: [
        ['scopeId', 1],
        ['order', 1],
      ],
      // `order` ends with the subject id: unique within the scope.
      keyField: 'order',
      offset,
      limit: INVENTORY_PAGE,
    });
    // Deep pages seek from remembered boundaries of the summary's revision (inventory-pages.ts).
    const memoryFor = (collection: { name: string }, pageFilter: Filter): PageMemory | null => {
      if (this.source || offset < KEYSET_FROM_OFFSET) return null;
      return {
        boundaries: inventoryPageBoundaries(this.ports.projections),
        answer: JSON.stringify([collection.name, summaries.name, pageFilter]),
      };
    };
    const revisionOf = (summary: ExposureSummaryDocument | null) =>
      typeof summary?.revision === 'number' ? summary.revision : undefined;
    /** A page read with the summary of its moment: the revision its boundaries belong to. */
    const pageWithRevision =
      <T extends ReadDocument>(collection: Collection<T>) =>
      async (plan: PagePlan) => {
        const [summary, page] = await this.readAtOnce([
          { collection: summaries, id: scope.scopeId },
          { collection, filter: plan.filter, options: plan.options },
        ]);
        return { page, revision: revisionOf(summary) };
      };
    // Unless the filter is on results (it depends on the latest refresh), the page is read with the scope,
    // summary and watch documents, as of one moment: one round trip (ADR 0134).
    const earlyRequest = subjectRequest(filterOf(null));
    const earlyMemory = memoryFor(subjects, earlyRequest.filter);
    const readTogether = async () => {
      const early = query.group_by !== 'host' && evaluationFilter?.field !== 'result';
      const plan = early ? planPage(earlyRequest, earlyMemory) : null;
      const [[stored, summary, watch, page], matching] = await Promise.all([
        this.readAtOnce([
          { collection: this.scopes(), id: scope.scopeId },
          { collection: summaries, id: scope.scopeId },
          {
            collection: this.collection<ExposureWatchDocument>('exposure-monitoring', EXPOSURE_WATCH),
            id: scope.scopeId,
          },
          // Without an early page, a find of none: no store reads it, and the answer keeps its shape.
          plan
            ? { collection: subjects, filter: plan.filter, options: plan.options }
            : { collection: subjects, filter: {}, options: { limit: 0 } },
        ]),
        early && evaluationFilter ? subjects.count(earlyRequest.filter) : null,
      ]);
      if (!stored) throw new ServiceError('not_found', 'no such exposure scope');
      const kept = plan && settlePage(earlyRequest, earlyMemory, plan, page, revisionOf(summary));
      return [stored, summary, watch, kept ? ([kept, matching] as const) : null] as const;
    };
    let [stored, summary, watch, earlyPage] = await readTogether();
    if (await this.inventoryCaughtUpWith(stored)) [stored, summary, watch, earlyPage] = await readTogether();
    const document = { ...stored, state: scope.space.state };
    const latest = document.latestRefresh;
    const archived = document.state !== 'active';
    const now = this.now();
    const counts = summary?.counts ?? {};
    const count = (key: string) => counts[key] ?? 0;
    const failure =
      latest && (latest.status === 'failed' || latest.status === 'retry_scheduled') ? latest : null;
    const filter = filterOf(failure);
    const view = (subject: ExposureSubjectDocument) => subjectView(subject, document, now);
    let page: unknown;
    let total: number;
    if (query.group_by === 'host') {
      const hostCollection = this.collection<
        ReadDocument & { host: string; hostnames: string[]; services: number }
      >('exposure-inventory', EXPOSURE_HOSTS);
      const hostFilter: Filter = { scopeId: { $is: scope.scopeId } };
      const hosts = await readPage(
        {
          filter: hostFilter,
          sort: [
            ['scopeId', 1],
            ['host', 1],
          ],
          keyField: 'host',
          offset,
          limit: INVENTORY_PAGE,
        },
        memoryFor(hostCollection, hostFilter),
        pageWithRevision(hostCollection),
      );
      total = summary?.hosts ?? 0;
      const services = hosts.length
        ? await subjects.find({ ...filter, host: { $in: hosts.map((h) => h.host) } } as Filter, {
            sort: [['order', 1]],
          })
        : [];
      const byHost = new Map<string, ExposureSubjectDocument[]>();
      for (const service of services) {
        const list = byHost.get(service.host!);
        if (list) list.push(service);
        else byHost.set(service.host!, [service]);
      }
      page = hosts.map((host) => ({
        host: host.host,
        hostnames: host.hostnames,
        services: (byHost.get(host.host) ?? []).map(view),
      }));
    } else {
      let found: ExposureSubjectDocument[];
      let matching: number | null;
      if (earlyPage) [found, matching] = earlyPage;
      else {
        const request = subjectRequest(filter);
        [found, matching] = await Promise.all([
          readPage(request, memoryFor(subjects, filter), pageWithRevision(subjects)),
          evaluationFilter ? subjects.count(filter) : null,
        ]);
      }
      total = matching ?? count('kind:service') + count('kind:domain_expiry');
      page = found.map(view);
    }

    const services = count('kind:service') - count('coverage:shared_edge');
    const scopeProcessing = processingOf(null, latest, { archived }, now).state;
    // Services whose evaluation was made for another declaration input: no current task can be associated.
    const currentInput = document.exposure?.input;
    const unknown = services - (currentInput ? count(`input:${currentInput}`) : 0);
    const byProcessing: Record<string, number> = {};
    if (services - unknown > 0) byProcessing[scopeProcessing] = services - unknown;
    if (unknown > 0) byProcessing.unknown = (byProcessing.unknown ?? 0) + unknown;
    const byResult = Object.fromEntries(RESULT_STATES.map((state) => [state, count(`result:${state}`)]));
    if (failure) {
      // After a failed refresh a previous negative reads indeterminate (contract, Result state).
      byResult.indeterminate = (byResult.indeterminate ?? 0) + (byResult.no_match ?? 0);
      byResult.no_match = 0;
    }
    const last = document.lastCompletedRefresh;
    const evaluated = count('coverage:evaluated');
    return {
      scope: {
        id: document.id,
        name: document.name,
        domain: document.exposure?.domain ?? null,
        state: document.state,
      },
      offset,
      limit: INVENTORY_PAGE,
      group_by: query.group_by === 'host' ? 'host' : null,
      filter: evaluationFilter ? `${evaluationFilter.field}:${evaluationFilter.value}` : null,
      totals: {
        subjects: count('kind:service') + count('kind:domain_expiry'),
        matching: total,
        services,
        hosts: summary?.hosts ?? 0,
        domain_registrations: count('kind:domain_expiry'),
        kev: byResult.kev ?? 0,
        matched: byResult.matched ?? 0,
        decisions: Object.fromEntries(DECISION_STATES.map((state) => [state, count(`decision:${state}`)])),
      },
      // Partial: no refresh completed yet, the latest one failed or is being retried, or its catalogue was short.
      partial: last === null || failure !== null || last.partial,
      observations: {
        first_seen: summary?.firstSeen ?? null,
        last_seen: summary?.lastSeen ?? null,
        refreshed_at: last?.completedAt ?? null,
        last_attempt_at: latest?.lastAttemptAt ?? null,
      },
      evaluation: {
        services,
        evaluated,
        eligible: services - count('coverage:no_identifiers') - count('coverage:identifier_limit'),
        complete: services > 0 && evaluated === services && failure === null,
        catalogue_version: last?.catalogueVersion ?? null,
      },
      filter_options: {
        coverage: COVERAGE_STATES.map((state) => ({ value: state, count: count(`coverage:${state}`) })),
        result: RESULT_STATES.map((state) => ({ value: state, count: byResult[state] ?? 0 })),
        decision: DECISION_STATES.map((state) => ({ value: state, count: count(`decision:${state}`) })),
        kind: SUBJECT_KINDS.map((kind) => ({ value: kind, count: count(`kind:${kind}`) })),
      },
      summary: {
        coverage: {
          services,
          excluded_shared_edge: count('coverage:shared_edge'),
          by_state: Object.fromEntries(
            COVERAGE_STATES.filter((state) => state !== 'shared_edge').map((state) => [
              state,
              count(`coverage:${state}`),
            ]),
          ),
          by_processing: byProcessing,
        },
      },
      latest_refresh: latest ? latestView(latest) : null,
      // What the latest watch run found (exposure-monitoring.projection.ts); never that a service disappeared.
      monitoring: monitoringView(document.monitoring, watch),
      subjects: query.group_by === 'host' ? undefined : page,
      hosts: query.group_by === 'host' ? page : undefined,
      notice: OBSERVATION_NOTICE,
    };
  }

  private filterFor(filter: { field: string; value: string }, failure: LatestRefresh | null): Filter {
    switch (filter.field) {
      case 'coverage':
        return { coverage: { $is: filter.value } };
      case 'decision':
        return { decisionState: { $is: filter.value } };
      case 'kind':
        return { kind: { $is: filter.value } };
      default: {
        if (failure && failure.lastAttemptAt) {
          const before = { 'evaluation.evaluatedAt': { $lt: failure.lastAttemptAt } };
          if (filter.value === 'no_match') {
            return { result: 'no_match', 'evaluation.evaluatedAt': { $gte: failure.lastAttemptAt } };
          }
          if (filter.value === 'indeterminate') {
            return { $or: [{ result: 'indeterminate' }, { result: 'no_match', ...before }] };
          }
        }
        return { result: filter.value, coverage: { $ne: 'shared_edge' } };
      }
    }
  }

  async subject(scopeId: string, subjectId: string) {
    const readTogether = () =>
      Promise.all([
        this.collection<ExposureSubjectDocument>('exposure-inventory', EXPOSURE_SUBJECTS).get(
          `${scopeId}:${subjectId}`,
        ),
        this.scopeDocument(scopeId),
      ]);
    let [subject, scope] = await readTogether();
    // Whether it was seen by the latest refresh must agree with the completion the scope shows (ADR 130).
    if (await this.inventoryCaughtUpWith(scope)) [subject, scope] = await readTogether();
    if (!subject) throw new ServiceError('not_found', 'no such subject in this scope');
    return subjectView(subject, scope, this.now());
  }

  /**
   * A refresh's subjects are projected apart from its completion, from the events before it (ADR 130): when the
   * scope shows a completion this process's inventory has not applied yet, waits for it (bounded) and answers
   * true, so that the caller reads again. A replayed (as_of) source is consistent by construction.
   */
  private async inventoryCaughtUpWith(scope: ExposureScopeDocument): Promise<boolean> {
    const completion = scope.lastCompletedRefresh?.position;
    if (
      this.source ||
      completion === undefined ||
      this.ports.projections.applied([INVENTORY_PROJECTION], completion) !== false
    )
      return false;
    await this.ports.projections.waitFor([INVENTORY_PROJECTION], completion, INVENTORY_CATCH_UP_MS);
    return true;
  }

  // ---- History and controls ----

  async history(scope: ScopeAccess, query: { offset?: unknown; subject?: unknown; as_of?: unknown }) {
    if (query.as_of !== undefined && !this.source) {
      const { source, point } = await replayScopeAsOf(this.ports, scope.scopeId, query.as_of);
      const past = await new ExposureQueries(this.ports, source).historyView(scope, query);
      return { ...past, as_of: point };
    }
    return this.historyView(scope, query);
  }

  private async historyView(scope: ScopeAccess, query: { offset?: unknown; subject?: unknown }) {
    const offset = checkedOffset(query.offset, MAX_HISTORY_OFFSET);
    const filter: Record<string, unknown> = { scopeId: scope.scopeId };
    if (query.subject !== undefined) {
      if (typeof query.subject !== 'string' || !/^[a-z]{3}-[0-9a-f]{24}$/.test(query.subject)) {
        throw new ServiceError('invalid_input', 'subject must be a subject id of this scope', {
          fields: [{ field: 'subject', problems: ['must be a subject id'] }],
        });
      }
      filter.subjectId = query.subject;
    }
    const history = this.collection<ExposureHistoryDocument>('exposure-history', EXPOSURE_HISTORY);
    const [entries, total] = await Promise.all([
      history.find(filter as Filter, { sort: [['position', -1]], offset, limit: HISTORY_PAGE }),
      history.count(filter as Filter),
    ]);
    return {
      offset,
      limit: HISTORY_PAGE,
      total,
      subject: filter.subjectId ?? null,
      entries: entries.map(historyEntryView),
    };
  }

  async controls(scope: ScopeAccess, query: { asset?: unknown }) {
    const filter: Record<string, unknown> = { scopeId: scope.scopeId };
    if (query.asset !== undefined) {
      if (typeof query.asset !== 'string' || query.asset.length === 0 || query.asset.length > 256) {
        throw new ServiceError('invalid_input', 'asset must be an asset key or address', {
          fields: [{ field: 'asset', problems: ['must be 1 to 256 characters'] }],
        });
      }
      filter.asset = query.asset;
    }
    const records = await this.collection<ReadDocument>('exposure-inventory', EXPOSURE_CONTROLS).find(
      filter as Filter,
      {
        sort: [['performedAt', -1]],
        limit: MAX_CONTROLS,
      },
    );
    return {
      // Historical evidence only: no launch endpoint exists, and none of these was run by this service.
      historical: true,
      notice:
        'Historical control records imported by an operator. Active checks are unavailable; none is launched here.',
      controls: records.map((record) => ({
        id: record.controlId,
        asset: record.asset,
        kind: record.kind,
        title: record.title,
        performed_at: record.performedAt,
        performed_by: record.performedBy,
        outcome: record.outcome,
        source: record.source,
        imported_at: record.importedAt,
      })),
    };
  }
}

/** One attributed history entry, as the history route and frozen reports show it. */
export function historyEntryView(entry: ExposureHistoryDocument) {
  return {
    id: entry.id,
    at: entry.at,
    type: entry.type,
    summary: entry.summary,
    subject_id: entry.subjectId,
    actor: entry.actor,
    payer: entry.payer,
    correlation_id: entry.correlationId,
    position: entry.position,
    details: entry.details,
  };
}

export function scopeView(scope: ExposureScopeDocument) {
  return {
    id: scope.id,
    kind: scope.kind,
    name: scope.name,
    domain: scope.exposure?.domain ?? null,
    timezone: scope.exposure?.timezone ?? null,
    addresses: scope.exposure?.addresses ?? [],
    monitoring: scope.monitoring,
    billing: scope.exposure?.billing ?? null,
    credit_limit: scope.creditLimit,
    state: scope.state,
    version: `"${scope.version}"`,
    erase_after: scope.deletion?.eraseAfter ?? null,
    created_at: scope.createdAt,
    latest_refresh: scope.latestRefresh ? latestView(scope.latestRefresh) : null,
  };
}

function latestView(latest: LatestRefresh) {
  return {
    id: latest.runId,
    status: latest.status,
    attempt: latest.attempt,
    requested_at: latest.requestedAt,
    available_at: latest.availableAt,
    started_at: latest.startedAt,
    finished_at: latest.finishedAt,
    last_attempt_at: latest.lastAttemptAt,
    error: latest.error,
  };
}

export function runView(run: ExposureRunDocument) {
  return {
    ...latestView(run),
    trigger: run.trigger,
    billing: run.billing,
    charged_credits: run.charge,
    reads: 'stored observations (hosts, whois) and the vulnerability catalogue; no asset is contacted',
  };
}

export function subjectView(subject: ExposureSubjectDocument, scope: ExposureScopeDocument, now: Date) {
  const common = {
    id: subject.subjectId,
    kind: subject.kind,
    asset_key: subject.subjectId,
    first_seen: subject.firstSeen,
    last_seen: subject.lastSeen,
    observed_in_latest_refresh:
      scope.lastCompletedRefresh !== null && subject.seenByRun === scope.lastCompletedRefresh.runId,
    decision: subject.decision,
    version: subject.version,
  };
  if (subject.kind !== 'service' || !subject.evaluation) {
    return { ...common, observation: subject.observation };
  }
  const evaluation = subject.evaluation;
  const latest = scope.latestRefresh;
  const recorded = {
    result: evaluation.result,
    resultAt: evaluation.resultAt,
    runId: evaluation.runId,
    input: evaluation.input,
    evaluatedAt: evaluation.evaluatedAt,
  };
  const shown = displayedResult(recorded, latest);
  const processing: ProcessingView = processingOf(
    recorded,
    latest,
    { archived: scope.state !== 'active' },
    now,
  );
  const lastAttemptAt =
    latest &&
    latest.input === evaluation.input &&
    latest.lastAttemptAt &&
    latest.lastAttemptAt > evaluation.evaluatedAt
      ? latest.lastAttemptAt
      : evaluation.evaluatedAt;
  const observation = subject.observation;
  return {
    ...common,
    observation_id: observation.observationId,
    host: subject.host,
    port: observation.port,
    transport: observation.transport,
    hostnames: observation.hostnames,
    product: observation.product,
    vendor: observation.vendor,
    version_observed: observation.version,
    shared_edge: observation.sharedEdge,
    coverage: {
      state: evaluation.coverage,
      reasons: [...evaluation.reasons, ...shown.reasons],
      eligible: evaluation.eligible,
    },
    result_state: shown.result_state,
    result_at: shown.result_at,
    retained_result: shown.retained_result,
    last_attempt_at: lastAttemptAt,
    processing,
    evaluation: {
      source: evaluation.source,
      catalogue_version: evaluation.catalogueVersion,
      findings: evaluation.findings,
      findings_total: evaluation.findingsTotal,
      last_attempt: {
        at: lastAttemptAt,
        reasons: [...evaluation.reasons, ...shown.reasons],
        retained_result: shown.retained_result,
      },
    },
    ...(isPositive(evaluation.result) ? { observed_products: evaluation.observedProducts } : {}),
  };
}
