import { randomUUID } from 'node:crypto';
import { EXPOSURE_RUNS, type ExposureRunDocument } from '../../../projections/exposure-scopes.projection.js';
import {
  EXPOSURE_SUBJECTS,
  subjectDocumentId,
  type ExposureSubjectDocument,
} from '../../../projections/exposure-inventory.projection.js';
import { VULNERABILITY_ENRICHMENT_RATE } from '../../catalogue/http/enrichment-handler.js';
import type { CreditLedger } from '../../credits/commands/credit-ledger.js';
import type { Principal } from '../../platform/auth/access.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { WrongExpectedVersion } from '../../platform/event-store/event-store.port.js';
import { enforce, type RateLimitRule } from '../../platform/rate-limit/rate-limiter.port.js';
import type { ServiceContext } from '../../platform/service-context.js';
import { organizationDecider, organizationStreamId } from '../../organizations/domain/organization.js';
import { spaceDecider, spaceStreamId } from '../../organizations/domain/space.js';
import { declarationKey, evaluateService, type CatalogueAvailability } from '../domain/coverage.js';
import { expositionDecider, expositionStreamId } from '../domain/exposition.js';
import {
  checkedRunKey,
  INITIAL_REFRESH_KEY,
  isFinished,
  MAX_REFRESH_CHARGE,
  refreshDecider,
  refreshRunStreamId,
  runKeyHash,
  type RefreshState,
} from '../domain/refresh-run.js';
import type { BillingMode } from '../domain/scope-declaration.js';
import { subjectDecider, subjectStreamId } from '../domain/subject.js';
import { ExposureGate, requireActiveScope } from './exposure-access.js';
import type { OrganizationGate } from '../../organizations/commands/organization-access.js';

/** Projections an exposure answer is read from (read-your-writes). */
export const EXPOSURE_PROJECTIONS = [
  'organizations',
  'exposure-scopes',
  'exposure-inventory',
  'exposure-history',
];

/**
 * Refresh cadence and quota (contract: "cadence, billing and quotas apply"; numbers not shown): one manual
 * refresh per scope every 15 minutes, 48 per organization per day.
 */
export const REFRESH_CADENCE: RateLimitRule = {
  name: 'exposure-refresh-cadence',
  limit: 1,
  windowSeconds: 900,
};
export const REFRESH_QUOTA: RateLimitRule = {
  name: 'exposure-refresh-quota',
  limit: 48,
  windowSeconds: 86_400,
};
/** A queued refresh may wait for a worker: its credit hold must outlive the queue. */
export const REFRESH_RESERVATION_TTL_MS = 24 * 60 * 60 * 1000;

export interface ScopeBody {
  readonly name: unknown;
  readonly domain: unknown;
  readonly timezone: unknown;
  readonly addresses: unknown;
  readonly monitoring: unknown;
  readonly creditLimit: unknown;
}

export interface DecisionBody {
  readonly version: unknown;
  readonly decision: unknown;
  readonly conclusion?: unknown;
  readonly according_to?: unknown;
  readonly note?: unknown;
  readonly announced_date?: unknown;
  readonly renewal?: unknown;
}

function withScope(
  envelope: CommandEnvelope,
  organizationId: string,
  scopeId: string,
  step?: string,
): CommandEnvelope {
  return {
    commandId: step ? `${envelope.commandId}:${step}` : envelope.commandId,
    metadata: { ...envelope.metadata, payer: `organization:${organizationId}`, scope: scopeId },
  };
}

/** A version sent in a body: an integer, or the quoted form the scope view shows. */
export function bodyVersion(raw: unknown): number {
  const value = typeof raw === 'string' ? /^"?(\d+)"?$/.exec(raw.trim())?.[1] : raw;
  const version = typeof value === 'string' ? Number(value) : value;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    throw new ServiceError('invalid_input', 'version is required: send the version you read', {
      fields: [{ field: 'version', problems: ['must be the current version (a non-negative integer)'] }],
    });
  }
  return version;
}

/**
 * Versioning 2: a body version counts the events of its stream (0 before the first), so a stale one answers
 * 409 with that count, the version the client must send next, never the store's zero-based stream version.
 */
export async function withBodyVersion<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof WrongExpectedVersion)) throw error;
    throw new ServiceError('version_conflict', 'the resource changed since you read it: refetch and retry', {
      current_version: error.actual === null ? 0 : error.actual + 1,
    });
  }
}

/**
 * The exposure context's write side: scope lifecycle, refresh requests, decisions, timezone, asset enrichment.
 * Rules live in the deciders; this class checks access, loads, runs commands and waits for the read models.
 */
export class ExposureCommands {
  readonly gate: ExposureGate;
  /** Set by the module: wakes the refresh pool when a refresh is queued (instead of waiting for its poll). */
  onRefreshRequested: () => void = () => undefined;

  constructor(
    private readonly context: ServiceContext,
    organizations: OrganizationGate,
    private readonly ledger: CreditLedger,
  ) {
    this.gate = new ExposureGate(context, organizations);
  }

  private now(): Date {
    return this.context.clock.now();
  }

  private async run<C, E extends DomainEvent, S>(
    streamId: string,
    decider: Decider<C, E, S, { now: Date }>,
    command: C,
    envelope: CommandEnvelope,
    expectedVersion?: number,
  ) {
    const result = await this.context.repository.handle(
      streamId,
      decider,
      command,
      { now: this.now() },
      envelope,
      expectedVersion === undefined ? {} : { expectedVersion },
    );
    await this.context.readYourWrites(EXPOSURE_PROJECTIONS, result.position);
    return result;
  }

  // ---- Lifecycle ----

  async createScope(
    principal: Principal,
    organizationId: string,
    body: ScopeBody,
    envelope: CommandEnvelope,
  ) {
    const { access, exposition } = await this.gate.organization(principal, organizationId, {
      capability: 'spaces.manage',
      write: true,
    });
    const scopeId = randomUUID();
    const created = await this.run(
      spaceStreamId(scopeId),
      spaceDecider,
      {
        type: 'CreateExposureScope',
        spaceId: scopeId,
        organizationId: access.organizationId,
        name: body.name as string,
        domain: body.domain,
        timezone: body.timezone,
        addresses: body.addresses,
        monitoring: body.monitoring as boolean,
        creditLimit: body.creditLimit,
        billing: exposition.billing!,
      },
      withScope(envelope, organizationId, scopeId),
    );
    const exposure = created.state.exposure!;
    // Creation: "creating a capacity-billed scope starts an initial refresh from stored observations".
    if (exposure.billing === 'capacity') {
      await this.requestRefresh(
        organizationId,
        scopeId,
        INITIAL_REFRESH_KEY,
        'creation',
        declarationKey(exposure.domain, exposure.addresses),
        'capacity',
        null,
        withScope(envelope, organizationId, scopeId, 'initial-refresh'),
      );
    }
    return scopeId;
  }

  async deleteSpace(
    principal: Principal,
    organizationId: string,
    spaceId: string,
    confirmName: unknown,
    expectedVersion: number,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const access = await this.gate.organizationGate().require(principal, organizationId, {
      capability: 'spaces.manage',
      open: true,
    });
    const space = await this.gate.anySpace(access, spaceId);
    if (space.state.deleted) throw new ServiceError('not_found', 'no such space');
    await this.run(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'DeleteSpace', confirmName },
      withScope(envelope, organizationId, spaceId),
      expectedVersion,
    );
    // Access is removed at once; the grants are withdrawn too, so a restore does not bring them back.
    const organization = await this.context.repository.load(
      organizationStreamId(organizationId),
      organizationDecider,
    );
    for (const [accountId, member] of Object.entries(organization.state.members).sort(([a], [b]) =>
      a < b ? -1 : 1,
    )) {
      if (!member.spaces.includes(spaceId)) continue;
      await this.context.repository.handle(
        organizationStreamId(organizationId),
        organizationDecider,
        { type: 'UnassignSpace', accountId, spaceId },
        { now: this.now(), actorAccountId: principal.accountId },
        withScope(envelope, organizationId, spaceId, `unassign:${accountId}`),
      );
    }
    await this.cancelRefreshes(spaceId, 'deleted', envelope);
  }

  async restoreSpace(
    principal: Principal,
    organizationId: string,
    spaceId: string,
    expectedVersion: number,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const access = await this.gate.organizationGate().require(principal, organizationId, {
      capability: 'spaces.manage',
      open: true,
    });
    const space = await this.gate.anySpace(access, spaceId);
    if (!space.state.deleted) throw new ServiceError('not_found', 'no such deleted space');
    await this.run(
      spaceStreamId(spaceId),
      spaceDecider,
      { type: 'RestoreDeletedSpace' },
      withScope(envelope, organizationId, spaceId),
      expectedVersion,
    );
  }

  async changeTimezone(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    body: { timezone: unknown; version: unknown },
    envelope: CommandEnvelope,
  ): Promise<void> {
    const expectedVersion = bodyVersion(body.version);
    await this.gate.scope(principal, organizationId, scopeId, { capability: 'spaces.manage', write: true });
    await this.run(
      spaceStreamId(scopeId),
      spaceDecider,
      { type: 'ChangeTimezone', timezone: body.timezone },
      withScope(envelope, organizationId, scopeId),
      expectedVersion,
    );
  }

  /** Cancels a scope's queued, running and retried refreshes (archiving or deletion) and releases their holds. */
  async cancelRefreshes(
    scopeId: string,
    reason: 'archived' | 'deleted',
    envelope: CommandEnvelope,
  ): Promise<number> {
    const runs = await this.runs().find({
      scopeId,
      status: { $in: ['queued', 'running', 'retry_scheduled'] },
    });
    let cancelled = 0;
    for (const run of runs) {
      const result = await this.context.repository.handle(
        refreshRunStreamId(scopeId, run.runId),
        refreshDecider,
        { type: 'CancelRefresh', reason },
        { now: this.now() },
        withScope(envelope, run.organizationId, scopeId, `cancel:${run.runId}`),
      );
      if (result.events.length > 0) cancelled++;
      await this.releaseHold(result.state, run.organizationId, scopeId, envelope);
    }
    return cancelled;
  }

  async releaseHold(state: RefreshState, organizationId: string, scopeId: string, envelope: CommandEnvelope) {
    if (!state.reservation || !isFinished(state.status) || state.status === 'completed') return;
    await this.ledger.release(
      {
        reservationId: state.reservation.reservationId,
        payer: `organization:${organizationId}`,
        amount: state.reservation.amount,
        category: 'tools',
        channel: 'session',
      },
      state.status === 'cancelled' ? 'cancelled' : 'failed',
      withScope(envelope, organizationId, scopeId),
    );
  }

  // ---- Refresh from stored observations ----

  /**
   * POST …/exposure/run: the same key never runs twice (the earlier run answers, `replayed: true`); a new key
   * passes the cadence and quota limits (429 with Retry-After) and, under legacy credit billing, holds the
   * refresh's price in the ledger inside the scope's envelope before it is queued.
   */
  async requestManualRefresh(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    rawKey: unknown,
    envelope: CommandEnvelope,
  ): Promise<{ runId: string; replayed: boolean }> {
    const key = checkedRunKey(rawKey);
    const scope = await this.gate.scope(principal, organizationId, scopeId, {
      capability: 'work.internal',
      write: true,
    });
    const streamId = refreshRunStreamId(scopeId, runKeyHash(key));
    const existing = await this.context.repository.load(streamId, refreshDecider);
    if (existing.state.exists) return { runId: existing.state.runId!, replayed: true };
    requireActiveScope(scope);
    enforce(
      await this.context.rateLimiter.consume(REFRESH_CADENCE, scopeId),
      'a scope can be refreshed once every 15 minutes',
    );
    enforce(
      await this.context.rateLimiter.consume(REFRESH_QUOTA, organizationId),
      'the organization has used its 48 refreshes of the last 24 hours',
    );
    const billing = scope.exposure.billing;
    const reservation =
      billing === 'credit'
        ? await this.ledger.reserve(
            {
              payer: `organization:${organizationId}`,
              amount: MAX_REFRESH_CHARGE,
              category: 'tools',
              channel: 'session',
              ttlMs: REFRESH_RESERVATION_TTL_MS,
              ...(scope.space.creditLimit !== null
                ? { envelopes: [{ key: `space:${scopeId}`, limit: scope.space.creditLimit }] }
                : {}),
            },
            withScope(envelope, organizationId, scopeId),
          )
        : null;
    const created = await this.requestRefresh(
      organizationId,
      scopeId,
      key,
      'manual',
      declarationKey(scope.exposure.domain, scope.exposure.addresses),
      billing,
      reservation ? { reservationId: reservation.reservationId, amount: reservation.amount } : null,
      withScope(envelope, organizationId, scopeId),
    );
    if (!created && reservation) {
      // Another request with the same key won the race: it holds its own credits.
      await this.ledger.release(reservation, 'cancelled', withScope(envelope, organizationId, scopeId));
    }
    return { runId: runKeyHash(key), replayed: !created };
  }

  private async requestRefresh(
    organizationId: string,
    scopeId: string,
    key: string,
    trigger: 'creation' | 'manual',
    input: string,
    billing: BillingMode,
    reservation: { reservationId: string; amount: number } | null,
    envelope: CommandEnvelope,
  ): Promise<boolean> {
    const keyHash = runKeyHash(key);
    const result = await this.run(
      refreshRunStreamId(scopeId, keyHash),
      refreshDecider,
      {
        type: 'RequestRefresh',
        runId: keyHash,
        scopeId,
        organizationId,
        trigger,
        input,
        billing,
        reservation,
      },
      envelope,
    );
    if (result.events.length > 0) this.onRefreshRequested();
    return result.events.length > 0;
  }

  // ---- Decisions ----

  async recordDecision(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    subjectId: string,
    body: DecisionBody,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const version = bodyVersion(body.version);
    const scope = await this.gate.scope(principal, organizationId, scopeId, {
      capability: 'work.internal',
      write: true,
    });
    requireActiveScope(scope);
    const subject = await this.subject(scopeId, subjectId);
    await withBodyVersion(() =>
      this.run(
        subjectStreamId(scopeId, subjectId),
        subjectDecider,
        {
          type: 'RecordDecision',
          scopeId,
          subjectId,
          subjectKind: subject.kind,
          timezone: scope.exposure.timezone,
          observedLastSeen: subject.lastSeen,
          decision: body.decision,
          conclusion: body.conclusion,
          accordingTo: body.according_to,
          note: body.note,
          announcedDate: body.announced_date,
          renewal: body.renewal,
        },
        withScope(envelope, organizationId, scopeId),
        version - 1,
      ),
    );
  }

  async subject(scopeId: string, subjectId: string): Promise<ExposureSubjectDocument> {
    const found =
      typeof subjectId === 'string' && /^[a-z]{3}-[0-9a-f]{24}$/.test(subjectId)
        ? await this.subjects().get(subjectDocumentId(scopeId, subjectId))
        : null;
    if (!found) throw new ServiceError('not_found', 'no such subject in this scope');
    return found;
  }

  // ---- Asset enrichment ----

  /**
   * POST …/assets/{assetKey}/enrich: the catalogue association of the stored observation behind a service
   * subject. Reads the observation index and the catalogue; no request reaches the asset. Shares the
   * enrichment rate of the account (60 per minute across personal and organization enrichment).
   */
  async enrichAsset(
    principal: Principal,
    organizationId: string,
    scopeId: string,
    assetKey: string,
    envelope: CommandEnvelope,
  ) {
    const scope = await this.gate.scope(principal, organizationId, scopeId, {
      capability: 'work.internal',
      write: true,
    });
    requireActiveScope(scope);
    const subject = await this.subject(scopeId, assetKey);
    if (subject.kind !== 'service') {
      throw new ServiceError('not_found', 'no stored service observation behind this asset key');
    }
    enforce(
      await this.context.rateLimiter.consume(VULNERABILITY_ENRICHMENT_RATE, principal.accountId),
      'vulnerability enrichment is limited to 60 requests per minute per account',
    );
    const observationId = subject.observation.observationId as string;
    const record = await this.context.observations.get('hosts', observationId);
    if (!record) {
      throw new ServiceError(
        'not_found',
        'the stored observation is no longer in the dataset; nothing was evaluated',
        {
          observation_id: observationId,
        },
      );
    }
    let catalogue: CatalogueAvailability;
    try {
      catalogue = { available: true, matcher: await this.context.catalogue.matcher() };
    } catch {
      catalogue = { available: false, reason: 'catalogue_load_failed' };
    }
    const evaluation = evaluateService(record, catalogue);
    const full =
      catalogue.available && evaluation.coverage !== 'shared_edge' && Array.isArray(record.cpe)
        ? catalogue.matcher.evaluateObservation({
            vendor: (record.vendor as string | undefined) ?? null,
            product: (record.product as string | undefined) ?? null,
            version: (record.version as string | undefined) ?? null,
            cpe: (record.cpe as unknown[]).filter((c): c is string => typeof c === 'string'),
          })
        : null;
    await this.run(
      subjectStreamId(scopeId, assetKey),
      subjectDecider,
      {
        type: 'RecordEnrichment',
        scopeId,
        subjectId: assetKey,
        observationId,
        observedLastSeen: record.last_seen,
        input: declarationKey(scope.exposure.domain, scope.exposure.addresses),
        evaluation,
      },
      withScope(envelope, organizationId, scopeId),
    );
    return {
      record,
      evaluation,
      findings: full?.findings ?? [],
      catalogueVersion: evaluation.catalogueVersion,
    };
  }

  // ---- Operator ----

  async enableExposition(
    organizationId: string,
    billing: BillingMode,
    envelope: CommandEnvelope,
  ): Promise<void> {
    const organization = await this.context.repository.load(
      organizationStreamId(organizationId),
      organizationDecider,
    );
    if (!organization.state.exists) throw new ServiceError('not_found', 'no such organization');
    await this.context.repository.handle(
      expositionStreamId(organizationId),
      expositionDecider,
      { type: 'EnableExposition', organizationId, billing },
      { now: this.now() },
      { ...envelope, metadata: { ...envelope.metadata, payer: `organization:${organizationId}` } },
    );
  }

  async disableExposition(organizationId: string, envelope: CommandEnvelope): Promise<void> {
    await this.context.repository.handle(
      expositionStreamId(organizationId),
      expositionDecider,
      { type: 'DisableExposition' },
      { now: this.now() },
      envelope,
    );
  }

  runs() {
    return this.context.projections.collection<ExposureRunDocument>('exposure-scopes', EXPOSURE_RUNS);
  }

  subjects() {
    return this.context.projections.collection<ExposureSubjectDocument>(
      'exposure-inventory',
      EXPOSURE_SUBJECTS,
    );
  }
}
