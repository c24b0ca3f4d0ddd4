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
import { PeriodicSweep } from '../platform/scheduling/periodic-sweep.js';
import { WorkerFailures, type RetryPolicy } from '../platform/scheduling/worker-failures.js';
import { organizationDecider, organizationStreamId } from '../organizations/domain/organization.js';
import { spaceDecider, spaceStreamId } from '../organizations/domain/space.js';
import {
  AdvanceDelivery,
  monitorEnvelope,
  RecordWatchOutcome,
  RequestWatchRun,
} from './commands/monitoring.commands.js';
import {
  deliveryDecider,
  deliveryStreamId,
  pendingRecipients,
  type DeliveryCommand,
  type NotificationQueued,
} from './domain/notification-delivery.js';
import { notificationEmail } from './domain/notification-email.js';
import {
  eligibleRecipients,
  notificationPreferenceDecider,
  notificationStreamId,
} from './domain/notification-preference.js';
import { refreshRunStreamId, type RefreshedService } from './domain/refresh-run.js';
import {
  comparisonBase,
  MAX_WATCH_LISTED,
  watchDecider,
  watchStreamId,
  type WatchedService,
  type WatchFindings,
} from './domain/watch.js';
import type { ExposureWorkerPorts } from './exposure-ports.js';
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

  /** Failure records of steps 1 and 2 (scheduling and recording watch runs), and of step 3 (deliveries). */
  readonly watchFailures: WorkerFailures;
  readonly deliveryFailures: WorkerFailures;

  constructor(
    private readonly ports: ExposureWorkerPorts,
    private readonly mailer: SmtpMailer | undefined,
    private readonly log: Logger = () => undefined,
    retry?: Partial<RetryPolicy>,
  ) {
    // The pass itself never fails (each step is tracked on its own): it is only logged.
    super(30_000, 'exposure-monitor', { log }, retry);
    const environment = { background: ports.background, readStore: ports.readStore, log };
    this.watchFailures = new WorkerFailures('watch-scheduler', environment, retry);
    this.deliveryFailures = new WorkerFailures('notification-delivery', environment, retry);
  }

  private scopes() {
    return this.ports.projections.collection<ExposureScopeDocument>('exposure-scopes', EXPOSURE_SCOPES);
  }

  private runs() {
    return this.ports.projections.collection<ExposureRunDocument>('exposure-scopes', EXPOSURE_RUNS);
  }

  private now(): Date {
    return this.ports.clock.now();
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
    const outcome = await this.ports.commands.execute(new RequestWatchRun(scope.id, scope.organizationId));
    if (outcome.holdRefused) {
      this.log('info', 'watch run skipped: the credit hold was refused', { scopeId: scope.id });
    }
    return outcome.requested;
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
    const watch = await this.ports.writer.load(watchStreamId(run.scopeId), watchDecider);
    const scheduleId = watch.state.requested[run.runId];
    if (scheduleId === undefined) return false; // recorded already (or not a watch of ours)
    const current = await this.servicesOf(run);
    const baseRunId = comparisonBase(watch.state, scheduleId);
    let findings: WatchFindings | null = null;
    if (run.status === 'completed' && baseRunId !== null) {
      const previous = await this.servicesOf(
        (await this.runs().get(runDocumentId(run.scopeId, baseRunId))) ?? { ...run, runId: baseRunId },
      );
      findings = compare(previous.services, current.services);
    }
    const { recorded } = await this.ports.commands.execute(
      new RecordWatchOutcome(
        {
          scopeId: run.scopeId,
          organizationId: run.organizationId,
          runId: run.runId,
          status: run.status as 'completed' | 'failed' | 'cancelled',
          finishedAt: run.finishedAt ?? null,
        },
        scheduleId,
        current.partial,
        current.services.size,
        findings,
      ),
    );
    return recorded;
  }

  /** The services a completed run recorded (its final attempt), by subject id. */
  private async servicesOf(
    run: Pick<ExposureRunDocument, 'scopeId' | 'runId'>,
  ): Promise<{ services: Map<string, WatchedService>; partial: boolean }> {
    const events = await this.ports.eventStore.readStream(refreshRunStreamId(run.scopeId, run.runId));
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

  // ---- 3. Delivery ----

  async deliver(): Promise<number> {
    const deliveries = this.ports.projections.collection<ExposureDeliveryDocument>(
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
    return this.ports.commands.execute(
      new AdvanceDelivery(
        delivery.scopeId,
        delivery.runId,
        command,
        monitorEnvelope(
          { id: delivery.scopeId, organizationId: scope?.organizationId ?? 'unknown' },
          `delivery:${delivery.id}:${step}`,
        ),
      ),
    );
  }

  private async deliverOne(delivery: ExposureDeliveryDocument): Promise<number> {
    const events = await this.ports.eventStore.readStream(
      deliveryStreamId(delivery.scopeId, delivery.runId),
      { maxCount: 1 },
    );
    const queued = events[0] as unknown as { data: NotificationQueued['data'] } | undefined;
    if (!queued) return 0;
    const space = await this.ports.writer.load(spaceStreamId(delivery.scopeId), spaceDecider);
    const preference = await this.ports.writer.load(
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
      await this.ports.writer.load(deliveryStreamId(delivery.scopeId, delivery.runId), deliveryDecider)
    ).state;
    const organization = await this.ports.writer.load(
      organizationStreamId(queued.data.organizationId),
      organizationDecider,
    );
    const eligible = eligibleRecipients(organization.state, delivery.scopeId);
    const scope = await this.scopes().get(delivery.scopeId);
    // Freshness: the watch run is still the scope's latest completed refresh, and recent enough.
    const fresh =
      scope?.lastCompletedRefresh?.runId === queued.data.runId &&
      now.getTime() - Date.parse(queued.data.observedAt) <= NOTIFICATION_FRESHNESS_MS;
    const accounts = this.ports.projections.collection<AccountDocument>('accounts', ACCOUNTS);
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
