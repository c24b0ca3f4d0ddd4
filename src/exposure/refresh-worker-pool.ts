import { randomUUID } from 'node:crypto';
import type { ExposureRunDocument } from '../../projections/exposure-scopes.projection.js';
import type { CatalogueService } from '../catalogue/catalogue-service.js';
import { SettleReservation } from '../credits/commands/credit.commands.js';
import { commandEnvelope, type CommandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import type {
  ObservationIndex,
  ObservationRecord,
} from '../search/observation-index/observation-index.port.js';
import type { QueryNode } from '../search/query-language/ast.js';
import { parseQuery } from '../search/query-language/parser.js';
import { validateFor } from '../search/query-language/validation.js';
import { spaceDecider, spaceStreamId } from '../organizations/domain/space.js';
import { ReopenDecidedSubject } from './commands/decisions.commands.js';
import { exposureRuns, exposureSubjects } from './commands/exposure-write.js';
import { AdvanceRefreshRun, CancelScopeRefreshes, ReleaseRefreshHold } from './commands/refresh.commands.js';
import type { ExposureWorkerPorts } from './exposure-ports.js';
import {
  domainExpirySubjectId,
  evaluateService,
  needsCatalogue,
  unevaluatedService,
  serviceObservationOf,
  serviceSubjectId,
  type CatalogueAvailability,
} from './domain/coverage.js';
import {
  refreshCharge,
  type RefreshCommand,
  type RefreshedDomain,
  type RefreshedService,
} from './domain/refresh-run.js';
import type { ExposureDeclaration } from './domain/scope-declaration.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { WrongExpectedVersion } from '../platform/event-store/event-store.port.js';
import { PollingWorkerPool } from '../platform/scheduling/polling-worker-pool.js';
import type { RetryPolicy } from '../platform/scheduling/worker-failures.js';

/** What a refresh reads: observations and the catalogue (its charge is settled through the credit commands). */
export interface RefreshSources {
  readonly observations: ObservationIndex;
  readonly catalogue: CatalogueService;
}

export interface RefreshWorkerPoolOptions {
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly pollIntervalMs?: number;
  /** Services per recorded batch (one event each). */
  readonly batchSize?: number;
  /** Catalogue evaluations per refresh; services past it are recorded `not_evaluated` (default 100,000). */
  readonly evaluationLimit?: number;
  readonly log?: (
    level: 'info' | 'warn' | 'error',
    message: string,
    fields?: Record<string, unknown>,
  ) => void;
  /** Backoff of runs that keep failing outside their refresh (default: DEFAULT_RETRY_POLICY). */
  readonly retry?: Partial<RetryPolicy>;
}

const ACTOR = 'system:exposure-refresh' as const;
/** Failure records: a run's id, `scope:<scopeId>` (its state could not be read), `stop:<scopeId>` (cancelling). */
const SCOPE = 'scope:';
const STOP = 'stop:';

class ScopeNotActive extends Error {
  override readonly name = 'ScopeNotActive';
  constructor() {
    super('the scope is no longer active');
  }
}

/** The stored observations a scope declares: hosts named by the domain or its subdomains, and its addresses. */
export function scopeQuery(declaration: Pick<ExposureDeclaration, 'domain' | 'addresses'>): QueryNode {
  const terms = [
    `hostnames:${declaration.domain}`,
    `hostnames:*.${declaration.domain}`,
    ...declaration.addresses.map((address) => `ip:${address.includes(':') ? `"${address}"` : address}`),
  ];
  const children = terms.map((term) => validateFor(parseQuery(term), 'hosts'));
  return { kind: 'or', children, span: { start: 0, end: 0 } };
}

/**
 * Runs refreshes from stored observations inside the service, fed from the event log through the runs read
 * model (as the export pool does): queued tasks, retries whose time came, and running tasks whose lease lapsed
 * (their worker died: a new attempt takes over). Claiming is an append with an expected version, so two
 * instances never run the same attempt. A refresh reads the observation index and the catalogue only: it never
 * scans and contacts no asset. Tasks of archived or deleted scopes are cancelled here. A run or a scope that
 * throws never stops the pool: it is recorded, logged once and retried with backoff while the others go on.
 */
export class RefreshWorkerPool extends PollingWorkerPool {
  readonly workerId = `refresh-${randomUUID()}`;

  constructor(
    private readonly ports: ExposureWorkerPorts,
    private readonly sources: RefreshSources,
    private readonly options: RefreshWorkerPoolOptions,
  ) {
    super(
      {
        ...options,
        log: options.log ?? ports.log,
        environment: { background: ports.background, readStore: ports.readStore },
      },
      'refresh-pool',
    );
  }

  private envelope(run: ExposureRunDocument, step: string): CommandEnvelope {
    return commandEnvelope({
      actor: ACTOR,
      payer: `organization:${run.organizationId}`,
      scope: run.scopeId,
      commandId: `refresh:${run.scopeId}:${run.runId}:${step}`,
      correlationId: `refresh:${run.scopeId}:${run.runId}`,
    });
  }

  protected async tick(): Promise<void> {
    const runs = exposureRuns(this.ports.projections);
    const active = ['queued', 'running', 'retry_scheduled'];
    // Runs that failed before and need no more work (finished, cancelled) need no retry.
    await this.failures.keepOnly(async (items) => {
      const ids = items.filter((item) => !item.startsWith(SCOPE) && !item.startsWith(STOP));
      const still = await runs.find({ id: { $in: ids }, status: { $in: active } });
      return [...items.filter((item) => !ids.includes(item)), ...still.map((run) => run.id)];
    });
    const waiting = await this.failures.waiting();
    const waitingRuns = waiting.filter((item) => !item.startsWith(SCOPE) && !item.startsWith(STOP));
    const pending = await runs.find(
      { status: { $in: active }, ...(waitingRuns.length > 0 ? { id: { $nin: waitingRuns } } : {}) },
      { sort: [['requestedAt', 1]], limit: 200 },
    );
    const now = this.ports.clock.now().toISOString();
    // The scope's lifecycle state from its stream, not the read model: an archive must stop work at once. A scope
    // whose state cannot be read is skipped (and retried with backoff); the others go on.
    const scopeStates = new Map<string, string>();
    for (const scopeId of new Set(pending.map((run) => run.scopeId))) {
      const outcome = await this.failures.run(`${SCOPE}${scopeId}`, async () => {
        const space = await this.ports.writer.load(spaceStreamId(scopeId), spaceDecider);
        return !space.state.exists || space.state.deleted ? 'deleted' : space.state.state;
      });
      if (outcome.status === 'done') scopeStates.set(scopeId, outcome.value);
    }
    const busyScopes = new Set([...this.running.keys()].map((id) => id.split(':')[0]));
    const stopped = new Set<string>();
    for (const run of pending) {
      const state = scopeStates.get(run.scopeId);
      if (state === undefined) continue;
      if (state !== 'active') {
        // Archiving stops queued and running work (scope state table); deletion too.
        this.running.get(run.id)?.abort.abort();
        if (stopped.has(run.scopeId)) continue;
        stopped.add(run.scopeId);
        await this.failures.run(`${STOP}${run.scopeId}`, () =>
          this.ports.commands.execute(
            new CancelScopeRefreshes(
              run.scopeId,
              state === 'archived' ? 'archived' : 'deleted',
              this.envelope(run, 'stop'),
            ),
          ),
        );
        continue;
      }
      if (this.stopped || this.running.size >= this.options.concurrency) continue;
      if (this.running.has(run.id) || busyScopes.has(run.scopeId)) continue;
      const eligible =
        run.status === 'queued' ||
        (run.status === 'retry_scheduled' && (run.availableAt ?? now) <= now) ||
        (run.status === 'running' && (run.leaseUntil ?? now) <= now);
      if (!eligible) continue;
      busyScopes.add(run.scopeId);
      this.launch(run.id, (signal) => this.runTask(run, signal));
    }
  }

  private async handle(run: ExposureRunDocument, command: RefreshCommand, step: string) {
    return this.ports.commands.execute(
      new AdvanceRefreshRun(run.scopeId, run.runId, command, this.envelope(run, step)),
    );
  }

  /** Runs one attempt; false when the task could not be claimed (taken elsewhere, or no longer eligible). */
  private async runTask(run: ExposureRunDocument, signal: AbortSignal): Promise<boolean> {
    const leaseMs = this.options.leaseMs;
    let attempt: number;
    try {
      const started = await this.handle(
        run,
        { type: 'StartRefreshAttempt', workerId: this.workerId, leaseMs },
        `start:${run.attempt + 1}`,
      );
      attempt = started.state.attempt;
    } catch (error) {
      // Another worker took it, or it is no longer eligible; anything else is a failure of this run.
      if (error instanceof ServiceError || error instanceof WrongExpectedVersion) return false;
      throw error;
    }
    try {
      await this.refresh(run, attempt, signal);
    } catch (error) {
      if (signal.aborted) return true; // stopped: the lease lapses and a later attempt takes over
      // Archived or deleted: the next tick cancels the task and releases its hold.
      if (error instanceof ScopeNotActive) return true;
      // Recorded on the run: retried by the refresh decider (retry_scheduled), then failed.
      let failed;
      try {
        failed = await this.handle(
          run,
          {
            type: 'FailRefreshAttempt',
            attempt,
            error: error instanceof Error ? error.message.slice(0, 200) : 'failed',
          },
          `fail:${attempt}`,
        );
      } catch (refusal) {
        if (refusal instanceof ServiceError) return true; // the attempt lost the run meanwhile (cancelled)
        throw refusal;
      }
      await this.ports.commands.execute(
        new ReleaseRefreshHold(failed.state, run.organizationId, run.scopeId, this.envelope(run, 'release')),
      );
    }
    return true;
  }

  private async refresh(run: ExposureRunDocument, attempt: number, signal: AbortSignal): Promise<void> {
    const space = await this.ports.writer.load(spaceStreamId(run.scopeId), spaceDecider);
    const declaration = space.state.exposure;
    if (!declaration || space.state.deleted || space.state.state !== 'active') {
      throw new ScopeNotActive();
    }
    let catalogue: CatalogueAvailability;
    try {
      catalogue = { available: true, matcher: await this.sources.catalogue.matcher() };
    } catch {
      catalogue = { available: false, reason: 'catalogue_load_failed' };
    }
    const batchSize = this.options.batchSize ?? 500;
    const evaluationLimit = this.options.evaluationLimit ?? 100_000;
    const catalogueVersion = catalogue.available ? catalogue.matcher.version.version : null;
    let evaluations = 0;
    let unevaluated = 0;
    let services = 0;
    let sharedEdge = 0;
    let first: string | null = null;
    let last: string | null = null;
    const lastSeenBySubject = new Map<string, string>();
    let batch: RefreshedService[] = [];
    let renewedAt = Date.now();
    const flush = async (domains: RefreshedDomain[] = []) => {
      if (batch.length === 0 && domains.length === 0) return;
      signal.throwIfAborted();
      await this.handle(
        run,
        { type: 'RecordRefreshedServices', attempt, services: batch, domains },
        `batch:${attempt}:${services}:${domains.length}`,
      );
      batch = [];
      if (Date.now() - renewedAt > this.options.leaseMs / 3) {
        await this.handle(
          run,
          { type: 'RenewRefreshLease', attempt, leaseMs: this.options.leaseMs },
          `renew:${attempt}:${services}`,
        );
        renewedAt = Date.now();
      }
    };
    for await (const records of this.sources.observations.stream(
      'hosts',
      { ast: scopeQuery(declaration) },
      batchSize,
      signal,
    )) {
      for (const record of records) {
        const observation = serviceObservationOf(record);
        let evaluation;
        if (needsCatalogue(record) && evaluations >= evaluationLimit) {
          evaluation = unevaluatedService('evaluation_limit', catalogueVersion);
          unevaluated++;
        } else {
          if (needsCatalogue(record)) evaluations++;
          evaluation = evaluateService(record, catalogue);
        }
        const subjectId = serviceSubjectId(observation.observationId);
        batch.push({ ...observation, subjectId, evaluation });
        lastSeenBySubject.set(subjectId, observation.lastSeen);
        if (observation.sharedEdge) sharedEdge++;
        else services++;
        if (first === null || observation.firstSeen < first) first = observation.firstSeen;
        if (last === null || observation.lastSeen > last) last = observation.lastSeen;
        if (batch.length >= batchSize) await flush();
      }
    }
    const domains = await this.registration(declaration.domain, signal);
    for (const domain of domains) lastSeenBySubject.set(domain.subjectId, domain.lastSeen);
    await flush(domains);
    await this.reopenDecided(run, lastSeenBySubject);
    signal.throwIfAborted();
    // Archived or deleted meanwhile: the work stops here, nothing is charged.
    const current = await this.ports.writer.load(spaceStreamId(run.scopeId), spaceDecider);
    if (current.state.deleted || current.state.state !== 'active') throw new ScopeNotActive();
    if (run.reservation) {
      // Charged before the completion is recorded: a crash in between repeats the same settlement (idempotent).
      await this.ports.commands.execute(
        new SettleReservation(
          {
            reservationId: run.reservation.reservationId,
            payer: `organization:${run.organizationId}`,
            amount: run.reservation.amount,
            category: 'tools',
            channel: 'session',
          },
          refreshCharge(services),
          this.envelope(run, 'settle'),
        ),
      );
    }
    await this.handle(
      run,
      {
        type: 'CompleteRefresh',
        attempt,
        services,
        excludedSharedEdge: sharedEdge,
        domains: domains.length,
        // A catalogue that could not support every evaluation, or services left unevaluated, make it partial.
        partial:
          !catalogue.available ||
          catalogue.matcher.advisoryCount === 0 ||
          !catalogue.matcher.kevLoaded ||
          unevaluated > 0,
        observedRange: { first, last },
        catalogueVersion,
      },
      `complete:${attempt}`,
    );
  }

  /** The newest stored registration of the scope's domain (whois), the domain-expiry subject. */
  private async registration(domain: string, signal: AbortSignal): Promise<RefreshedDomain[]> {
    const page = await this.sources.observations.search(
      'whois',
      { ast: validateFor(parseQuery(`domain:${domain}`), 'whois') },
      { offset: 0, limit: 1, countLimit: 1 },
      signal,
    );
    return page.records.map((record: ObservationRecord) => ({
      subjectId: domainExpirySubjectId(domain),
      observationId: record.id,
      domain,
      registrar: typeof record.registrar === 'string' ? record.registrar : null,
      expires: typeof record.expires === 'string' ? record.expires : null,
      firstSeen: record.first_seen,
      lastSeen: record.last_seen,
    }));
  }

  /** "A later observation can reopen the subject": decided subjects seen again with a newer observation. */
  private async reopenDecided(
    run: ExposureRunDocument,
    lastSeen: ReadonlyMap<string, string>,
  ): Promise<void> {
    const decided = await exposureSubjects(this.ports.projections).find(
      { scopeId: run.scopeId, decisionState: { $in: ['investigating', 'acknowledged'] } },
      { limit: 10_000 },
    );
    for (const subject of decided) {
      const seen = lastSeen.get(subject.subjectId);
      if (!seen) continue;
      await this.ports.commands.execute(
        new ReopenDecidedSubject(
          run.scopeId,
          subject.subjectId,
          seen,
          this.envelope(run, `reopen:${subject.subjectId}:${seen}`),
        ),
      );
    }
  }
}
