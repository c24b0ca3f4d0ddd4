import { randomUUID } from 'node:crypto';
import { ACCOUNTS, type AccountDocument } from '../../projections/accounts.projection.js';
import {
  EXPOSURE_DELIVERIES,
  type ExposureDeliveryDocument,
} from '../../projections/exposure-monitoring.projection.js';
import {
  EXPOSURE_RUNS,
  EXPOSURE_SCOPES,
  runDocumentId,
  type ExposureRunDocument,
  type ExposureScopeDocument,
} from '../../projections/exposure-scopes.projection.js';
import type { CreditLedger } from '../credits/commands/credit-ledger.js';
import { commandEnvelope, type CommandEnvelope } from '../platform/event-sourcing/command-metadata.js';
import { ServiceError } from '../platform/errors/service-error.js';
import { PeriodicSweep } from '../platform/scheduling/periodic-sweep.js';
import { WorkerFailures, type RetryPolicy } from '../platform/scheduling/worker-failures.js';
import type { ServiceContext } from '../platform/service-context.js';
import { organizationDecider, organizationStreamId } from '../organizations/domain/organization.js';
import { spaceDecider, spaceStreamId } from '../organizations/domain/space.js';
import { REFRESH_RESERVATION_TTL_MS } from './commands/exposure-commands.js';
import { eligibleRecipients } from './commands/exposure-monitoring.js';
import { declarationKey } from './domain/coverage.js';
import {
  deliveryDecider,
  deliveryStreamId,
  pendingRecipients,
  type DeliveryCommand,
  type NotificationQueued,
} from './domain/notification-delivery.js';
import { notificationEmail } from './domain/notification-email.js';
import { notificationPreferenceDecider, notificationStreamId } from './domain/notification-preference.js';
import {
  MAX_REFRESH_CHARGE,
  refreshDecider,
  refreshRunStreamId,
  runKeyHash,
  type RefreshedService,
} from './domain/refresh-run.js';
import {
  comparisonBase,
  isNotable,
  MAX_WATCH_LISTED,
  WATCH_INTERVAL_MS,
  watchDecider,
  watchRunKey,
  watchStreamId,
  type WatchedService,
  type WatchFindings,
  type WatchRunCompared,
} from './domain/watch.js';
import type { SmtpMailer } from './notifications/smtp-mailer.js';

/** Observations older than this at delivery are stale: the email is skipped rather than sent late. */
export const NOTIFICATION_FRESHNESS_MS = 72 * 60 * 60 * 1000;
const DELIVERY_LEASE_MS = 5 * 60 * 1000;

type Logger = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;

/**
 * The monitoring loop of exposure scopes (contract rule 10, Events 2), one idempotent pass per tick:
 * 1. schedules: each active scope whose monitoring runs gets the watch run of its current daily slot, a refresh
 *    from stored observations (trigger `watch`) keyed by schedule and slot, so it runs once whatever the number
 *    of instances; under legacy credit billing its price is held in the ledger first (a refused hold skips the
 *    slot; the next slot tries again);
 * 2. watches: every finished watch run is recorded on the scope's watch stream: the first complete one is the
 *    baseline, later ones are compared with the previous one (newly observed services, new KEV associations,
 *    and a count of services not observed this time, never called absent);
 * 3. notifications: a notable comparison queues an email to the preference's recipients; pending emails are
 *    claimed with a lease, each recipient's eligibility and the observations' freshness checked again, then
 *    sent through SMTP. Archived or deleted scopes, stopped monitoring and disabled preferences cancel them.
 * No scope, run or delivery stops a pass: one that throws is recorded, logged once and retried with backoff while
 * the others go on; /health/ready shows `watch-scheduler` (steps 1 and 2) and `notification-delivery` (step 3).
 */
export class ExposureMonitor extends PeriodicSweep {
  readonly workerId = `monitor-${randomUUID()}`;
  /** Set by the module: wakes the refresh pool when a watch run is queued. */
  onRefreshRequested: () => void = () => undefined;

  /** Failure records of steps 1 and 2 (scheduling and recording watch runs), and of step 3 (deliveries). */
  readonly watchFailures: WorkerFailures;
  readonly deliveryFailures: WorkerFailures;

  constructor(
    private readonly context: ServiceContext,
    private readonly ledger: CreditLedger,
    private readonly mailer: SmtpMailer | undefined,
    private readonly log: Logger = () => undefined,
    retry?: Partial<RetryPolicy>,
  ) {
    // The pass itself never fails (each step is tracked on its own): it is only logged.
    super(30_000, 'exposure-monitor', { log }, retry);
    const environment = { background: context.background, readStore: context.storage.readStore, log };
    this.watchFailures = new WorkerFailures('watch-scheduler', environment, retry);
    this.deliveryFailures = new WorkerFailures('notification-delivery', environment, retry);
  }

  private scopes() {
    return this.context.projections.collection<ExposureScopeDocument>('exposure-scopes', EXPOSURE_SCOPES);
  }

  private runs() {
    return this.context.projections.collection<ExposureRunDocument>('exposure-scopes', EXPOSURE_RUNS);
  }

  private now(): Date {
    return this.context.clock.now();
  }

  private envelope(scope: { id: string; organizationId: string }, commandId: string): CommandEnvelope {
    return commandEnvelope({
      actor: 'system:exposure-monitor',
      payer: `organization:${scope.organizationId}`,
      scope: scope.id,
      commandId,
      correlationId: commandId,
    });
  }

  protected async sweep(): Promise<number> {
    // Each step on its own: one that fails as a whole (its read model unreachable) does not keep the next from
    // running.
    let done = 0;
    let watchError: unknown = null;
    for (const step of [() => this.scheduleWatches(), () => this.recordWatches()]) {
      try {
        done += await step();
      } catch (error) {
        watchError ??= error;
      }
    }
    if (watchError === null) this.watchFailures.passSucceeded();
    else this.watchFailures.passFailed(watchError);
    try {
      done += await this.deliver();
      this.deliveryFailures.passSucceeded();
    } catch (error) {
      this.deliveryFailures.passFailed(error);
    }
    return done;
  }

  // ---- 1. Watch runs on schedule ----

  async scheduleWatches(): Promise<number> {
    const monitored = await this.scopes().find({ monitoring: true, state: 'active' }, { limit: 10_000 });
    let requested = 0;
    for (const scope of monitored) {
      if (!scope.exposure) continue;
      const outcome = await this.watchFailures.run(`schedule:${scope.id}`, () => this.requestWatch(scope));
      if (outcome.status === 'done' && outcome.value) requested++;
    }
    return requested;
  }

  private async requestWatch(scope: ExposureScopeDocument): Promise<boolean> {
    const space = await this.context.repository.load(spaceStreamId(scope.id), spaceDecider);
    const schedule = space.state.schedule;
    const declaration = space.state.exposure;
    if (!schedule || !declaration || space.state.state !== 'active' || space.state.deleted) return false;
    const now = this.now();
    const slot = Math.max(
      0,
      Math.floor((now.getTime() - Date.parse(schedule.activatedAt)) / WATCH_INTERVAL_MS),
    );
    const runId = runKeyHash(watchRunKey(schedule.scheduleId, slot));
    const streamId = refreshRunStreamId(scope.id, runId);
    if ((await this.context.storage.eventStore.streamVersion(streamId)) !== null) return false;
    const step = `watch:${scope.id}:${schedule.scheduleId}:${slot}`;
    let reservation: { reservationId: string; amount: number } | null = null;
    if (declaration.billing === 'credit') {
      try {
        const held = await this.ledger.reserve(
          {
            payer: `organization:${scope.organizationId}`,
            amount: MAX_REFRESH_CHARGE,
            category: 'tools',
            channel: 'session',
            ttlMs: REFRESH_RESERVATION_TTL_MS,
            ...(space.state.creditLimit !== null
              ? { envelopes: [{ key: `space:${scope.id}`, limit: space.state.creditLimit }] }
              : {}),
          },
          this.envelope(scope, `${step}:reserve`),
        );
        reservation = { reservationId: held.reservationId, amount: held.amount };
      } catch (error) {
        if (error instanceof ServiceError && error.code !== 'internal_error') {
          this.log('info', 'watch run skipped: the credit hold was refused', { scopeId: scope.id });
          return false;
        }
        throw error;
      }
    }
    await this.context.repository.handle(
      watchStreamId(scope.id),
      watchDecider,
      { type: 'NoteWatchRequested', scopeId: scope.id, scheduleId: schedule.scheduleId, slot, runId },
      { now },
      this.envelope(scope, `${step}:note`),
    );
    const result = await this.context.repository.handle(
      streamId,
      refreshDecider,
      {
        type: 'RequestRefresh',
        runId,
        scopeId: scope.id,
        organizationId: scope.organizationId,
        trigger: 'watch',
        input: declarationKey(declaration.domain, declaration.addresses),
        billing: declaration.billing,
        reservation,
      },
      { now },
      this.envelope(scope, step),
    );
    if (result.events.length === 0 && reservation) {
      await this.ledger.release(
        {
          reservationId: reservation.reservationId,
          payer: `organization:${scope.organizationId}`,
          amount: reservation.amount,
          category: 'tools',
          channel: 'session',
        },
        'cancelled',
        this.envelope(scope, `${step}:release`),
      );
    }
    if (result.events.length > 0) this.onRefreshRequested();
    return result.events.length > 0;
  }

  // ---- 2. What each watch run found ----

  async recordWatches(): Promise<number> {
    const finished = await this.runs().find(
      { trigger: 'watch', status: { $in: ['completed', 'failed', 'cancelled'] } },
      { sort: [['requestedAt', 1]], limit: 10_000 },
    );
    let recorded = 0;
    for (const run of finished) {
      const outcome = await this.watchFailures.run(`record:${run.scopeId}:${run.runId}`, () =>
        this.recordWatch(run),
      );
      if (outcome.status === 'done' && outcome.value) recorded++;
    }
    return recorded;
  }

  private async recordWatch(run: ExposureRunDocument): Promise<boolean> {
    const watch = await this.context.repository.load(watchStreamId(run.scopeId), watchDecider);
    const scheduleId = watch.state.requested[run.runId];
    if (scheduleId === undefined) return false; // recorded already (or not a watch of ours)
    const scope = { id: run.scopeId, organizationId: run.organizationId };
    const current = await this.servicesOf(run);
    const baseRunId = comparisonBase(watch.state, scheduleId);
    let findings: WatchFindings | null = null;
    if (run.status === 'completed' && baseRunId !== null) {
      const previous = await this.servicesOf(
        (await this.runs().get(runDocumentId(run.scopeId, baseRunId))) ?? { ...run, runId: baseRunId },
      );
      findings = compare(previous.services, current.services);
    }
    const result = await this.context.repository.handle(
      watchStreamId(run.scopeId),
      watchDecider,
      {
        type: 'RecordWatchRun',
        scopeId: run.scopeId,
        scheduleId,
        runId: run.runId,
        status: run.status as 'completed' | 'failed' | 'cancelled',
        partial: current.partial,
        services: current.services.size,
        finishedAt: run.finishedAt ?? this.now().toISOString(),
        findings,
      },
      { now: this.now() },
      this.envelope(scope, `watch-record:${run.scopeId}:${run.runId}`),
    );
    const compared = result.events.find((event) => event.type === 'WatchRunCompared') as
      WatchRunCompared | undefined;
    if (compared && isNotable(compared.data)) await this.queue(run, scheduleId, compared.data);
    return result.events.length > 0;
  }

  /** The services a completed run recorded (its final attempt), by subject id. */
  private async servicesOf(
    run: Pick<ExposureRunDocument, 'scopeId' | 'runId'>,
  ): Promise<{ services: Map<string, WatchedService>; partial: boolean }> {
    const events = await this.context.storage.eventStore.readStream(
      refreshRunStreamId(run.scopeId, run.runId),
    );
    const completed = events.find((event) => event.type === 'RefreshCompleted');
    const attempt = (completed?.data as { attempt?: number } | undefined)?.attempt;
    const services = new Map<string, WatchedService>();
    for (const event of events) {
      if (event.type !== 'RefreshServicesRecorded') continue;
      const data = event.data as { attempt: number; services: RefreshedService[] };
      if (data.attempt !== attempt) continue;
      for (const service of data.services) {
        if (service.sharedEdge) continue;
        services.set(service.subjectId, {
          subjectId: service.subjectId,
          host: service.host,
          port: service.port,
          product: service.product,
          result: service.evaluation.result,
        });
      }
    }
    return { services, partial: Boolean((completed?.data as { partial?: boolean } | undefined)?.partial) };
  }

  private async queue(
    run: ExposureRunDocument,
    scheduleId: string,
    findings: WatchRunCompared['data'],
  ): Promise<void> {
    const preference = await this.context.repository.load(
      notificationStreamId(run.scopeId),
      notificationPreferenceDecider,
    );
    if (!preference.state.enabled || preference.state.recipients.length === 0) return;
    const scope = { id: run.scopeId, organizationId: run.organizationId };
    await this.context.repository.handle(
      deliveryStreamId(run.scopeId, run.runId),
      deliveryDecider,
      {
        type: 'QueueNotification',
        scopeId: run.scopeId,
        organizationId: run.organizationId,
        runId: run.runId,
        scheduleId,
        recipients: preference.state.recipients,
        language: preference.state.language,
        findings: {
          newServices: findings.newServices,
          newServicesListed: findings.newServicesListed,
          newKev: findings.newKev,
          newKevListed: findings.newKevListed,
          notObserved: findings.notObserved,
        },
        observedAt: findings.finishedAt,
      },
      { now: this.now() },
      this.envelope(scope, `notify:${run.scopeId}:${run.runId}`),
    );
  }

  // ---- 3. Delivery ----

  async deliver(): Promise<number> {
    const deliveries = this.context.projections.collection<ExposureDeliveryDocument>(
      'exposure-monitoring',
      EXPOSURE_DELIVERIES,
    );
    // Deliveries that failed before and are finished or cancelled since need no retry.
    await this.deliveryFailures.keepOnly(async (ids) =>
      (await deliveries.find({ id: { $in: ids }, status: 'pending' })).map((delivery) => delivery.id),
    );
    const waiting = await this.deliveryFailures.waiting();
    const pending = await deliveries.find(
      { status: 'pending', ...(waiting.length > 0 ? { id: { $nin: waiting } } : {}) },
      { sort: [['queuedAt', 1]], limit: 1000 },
    );
    let sent = 0;
    for (const delivery of pending) {
      const outcome = await this.deliveryFailures.run(delivery.id, () => this.deliverOne(delivery));
      if (outcome.status === 'done') sent += outcome.value;
    }
    return sent;
  }

  private async handleDelivery(delivery: ExposureDeliveryDocument, command: DeliveryCommand, step: string) {
    const scope = await this.scopes().get(delivery.scopeId);
    return this.context.repository.handle(
      deliveryStreamId(delivery.scopeId, delivery.runId),
      deliveryDecider,
      command,
      { now: this.now() },
      this.envelope(
        { id: delivery.scopeId, organizationId: scope?.organizationId ?? 'unknown' },
        `delivery:${delivery.id}:${step}`,
      ),
    );
  }

  private async deliverOne(delivery: ExposureDeliveryDocument): Promise<number> {
    const events = await this.context.storage.eventStore.readStream(
      deliveryStreamId(delivery.scopeId, delivery.runId),
      { maxCount: 1 },
    );
    const queued = events[0] as unknown as { data: NotificationQueued['data'] } | undefined;
    if (!queued) return 0;
    const space = await this.context.repository.load(spaceStreamId(delivery.scopeId), spaceDecider);
    const preference = await this.context.repository.load(
      notificationStreamId(delivery.scopeId),
      notificationPreferenceDecider,
    );
    const now = this.now();
    const stamp = now.toISOString();
    // Archiving or deleting the scope cancels pending deliveries (scope state table, Events 2).
    const cancel = !space.state.exists
      ? 'deleted'
      : space.state.deleted
        ? 'deleted'
        : space.state.state !== 'active'
          ? 'archived'
          : space.state.schedule?.scheduleId !== queued.data.scheduleId
            ? 'monitoring_stopped'
            : !preference.state.enabled
              ? 'notifications_disabled'
              : null;
    if (cancel) {
      await this.handleDelivery(delivery, { type: 'CancelDelivery', reason: cancel }, `cancel:${stamp}`);
      return 0;
    }
    if (!this.mailer) return 0; // no SMTP relay configured: the email waits
    try {
      await this.handleDelivery(
        delivery,
        { type: 'ClaimDelivery', workerId: this.workerId, leaseMs: DELIVERY_LEASE_MS },
        `claim:${this.workerId}:${stamp}`,
      );
    } catch {
      return 0; // another instance holds it
    }
    const state = (
      await this.context.repository.load(deliveryStreamId(delivery.scopeId, delivery.runId), deliveryDecider)
    ).state;
    const organization = await this.context.repository.load(
      organizationStreamId(queued.data.organizationId),
      organizationDecider,
    );
    const eligible = eligibleRecipients(organization.state, delivery.scopeId);
    const scope = await this.scopes().get(delivery.scopeId);
    // Freshness: the watch run is still the scope's latest completed refresh, and recent enough.
    const fresh =
      scope?.lastCompletedRefresh?.runId === queued.data.runId &&
      now.getTime() - Date.parse(queued.data.observedAt) <= NOTIFICATION_FRESHNESS_MS;
    const accounts = this.context.projections.collection<AccountDocument>('accounts', ACCOUNTS);
    let sent = 0;
    for (const recipient of pendingRecipients(state)) {
      const outcome = async (
        fields: Omit<
          Extract<DeliveryCommand, { type: 'RecordRecipientOutcome' }>,
          'type' | 'workerId' | 'recipient'
        >,
        step: string,
      ) =>
        this.handleDelivery(
          delivery,
          { type: 'RecordRecipientOutcome', workerId: this.workerId, recipient, ...fields },
          `${recipient}:${step}`,
        );
      if (!fresh) {
        await outcome({ outcome: 'skipped', reason: 'stale_observations' }, 'stale');
        continue;
      }
      if (!eligible.has(recipient) || !preference.state.recipients.includes(recipient)) {
        await outcome({ outcome: 'skipped', reason: 'not_eligible' }, 'ineligible');
        continue;
      }
      const account = await accounts.get(recipient);
      if (!account?.email) {
        await outcome({ outcome: 'skipped', reason: 'no_email' }, 'no-email');
        continue;
      }
      const email = notificationEmail({
        language: queued.data.language,
        scopeName: space.state.name,
        findings: queued.data.findings,
        observedAt: queued.data.observedAt,
        link: `/api/v2/organizations/${queued.data.organizationId}/clients/${delivery.scopeId}/exposure`,
      });
      const attempt = state.recipients[recipient]?.attempts ?? 0;
      try {
        const messageId = await this.mailer.send({
          to: account.email,
          subject: email.subject,
          text: email.text,
          messageId: `<${delivery.runId}.${recipient}@exposure-notifications>`,
        });
        await outcome({ outcome: 'sent', messageId }, 'sent');
        sent++;
      } catch (error) {
        await outcome(
          { outcome: 'failed', error: error instanceof Error ? error.message : String(error) },
          `failed:${attempt + 1}`,
        );
      }
    }
    return sent;
  }
}

/** New services and new KEV associations of `current` against `previous`; what is missing is only counted. */
export function compare(
  previous: ReadonlyMap<string, WatchedService>,
  current: ReadonlyMap<string, WatchedService>,
): WatchFindings {
  const sorted = [...current.values()].sort((a, b) => (a.subjectId < b.subjectId ? -1 : 1));
  const fresh = sorted.filter((service) => !previous.has(service.subjectId));
  const kev = sorted.filter(
    (service) => service.result === 'kev' && previous.get(service.subjectId)?.result !== 'kev',
  );
  let notObserved = 0;
  for (const id of previous.keys()) if (!current.has(id)) notObserved++;
  return {
    newServices: fresh.length,
    newServicesListed: fresh.slice(0, MAX_WATCH_LISTED),
    newKev: kev.length,
    newKevListed: kev.slice(0, MAX_WATCH_LISTED),
    notObserved,
  };
}
