import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CreditLedger } from '../../credits/commands/credit-ledger.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { StreamWriter } from '../../platform/event-sourcing/stream-writer.js';
import { EVENT_STORE, type EventStore } from '../../platform/event-store/event-store.port.js';
import { spaceDecider, spaceStreamId } from '../../organizations/domain/space.js';
import { declarationKey } from '../domain/coverage.js';
import { deliveryDecider, deliveryStreamId } from '../domain/notification-delivery.js';
import {
  eligibleRecipients,
  notificationPreferenceDecider,
  notificationStreamId,
} from '../domain/notification-preference.js';
import { MAX_REFRESH_CHARGE, refreshRunStreamId, runKeyHash } from '../domain/refresh-run.js';
import {
  isNotable,
  WATCH_INTERVAL_MS,
  watchDecider,
  watchRunKey,
  watchStreamId,
  type WatchRunCompared,
} from '../domain/watch.js';
import { ExposureGate } from './exposure-access.js';
import {
  bodyVersion,
  EXPOSURE_PROJECTIONS,
  REFRESH_RESERVATION_TTL_MS,
  withBodyVersion,
  withScope,
} from './exposure-write.js';
import {
  AdvanceDelivery,
  monitorEnvelope,
  QueueWatchNotification,
  RecordWatchOutcome,
  RequestWatchRun,
  SaveNotificationPreference,
  SetMonitoring,
} from './monitoring.commands.js';
import { QueueRefreshRun } from './refresh.commands.js';

export const MONITORING_PROJECTIONS = [...EXPOSURE_PROJECTIONS, 'exposure-monitoring'];

@CommandHandler(SetMonitoring)
export class SetMonitoringHandler implements ICommandHandler<SetMonitoring> {
  /** Set by the module: wakes the monitor when monitoring is activated. */
  onMonitoringChanged: () => void = () => undefined;

  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, scopeId, enabled, expectedVersion, envelope }: SetMonitoring) {
    await this.gate.scope(principal, organizationId, scopeId, { write: true });
    const result = await this.writer.decide({
      stream: spaceStreamId(scopeId),
      decider: spaceDecider,
      command: { type: 'SetMonitoring', enabled },
      context: { now: this.clock.now() },
      envelope: withScope(envelope, organizationId, scopeId),
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
      readYourWrites: MONITORING_PROJECTIONS,
    });
    if (enabled) this.onMonitoringChanged();
    return result.state;
  }
}

@CommandHandler(SaveNotificationPreference)
export class SaveNotificationPreferenceHandler implements ICommandHandler<SaveNotificationPreference> {
  constructor(
    @Inject(ExposureGate) private readonly gate: ExposureGate,
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ principal, organizationId, scopeId, body, envelope }: SaveNotificationPreference) {
    const version = bodyVersion(body.version);
    const scope = await this.gate.scope(principal, organizationId, scopeId, { write: true });
    const result = await withBodyVersion(() =>
      this.writer.decide({
        stream: notificationStreamId(scopeId),
        decider: notificationPreferenceDecider,
        command: {
          type: 'SaveNotificationPreference',
          scopeId,
          organizationId,
          enabled: body.enabled,
          recipients: body.recipients,
          language: body.language,
          eligible: eligibleRecipients(scope.access.state, scopeId),
        },
        context: { now: this.clock.now() },
        envelope: withScope(envelope, organizationId, scopeId),
        expectedVersion: version - 1,
        readYourWrites: ['exposure-history'],
      }),
    );
    return result.state;
  }
}

@CommandHandler(RequestWatchRun)
export class RequestWatchRunHandler implements ICommandHandler<RequestWatchRun> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CreditLedger) private readonly ledger: CreditLedger,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ scopeId, organizationId }: RequestWatchRun) {
    const skipped = { requested: false, holdRefused: false };
    const scope = { id: scopeId, organizationId };
    const space = await this.writer.load(spaceStreamId(scopeId), spaceDecider);
    const schedule = space.state.schedule;
    const declaration = space.state.exposure;
    if (!schedule || !declaration || space.state.state !== 'active' || space.state.deleted) return skipped;
    const now = this.clock.now();
    const slot = Math.max(
      0,
      Math.floor((now.getTime() - Date.parse(schedule.activatedAt)) / WATCH_INTERVAL_MS),
    );
    const runId = runKeyHash(watchRunKey(schedule.scheduleId, slot));
    if ((await this.eventStore.streamVersion(refreshRunStreamId(scopeId, runId))) !== null) return skipped;
    const step = `watch:${scopeId}:${schedule.scheduleId}:${slot}`;
    let reservation: { reservationId: string; amount: number } | null = null;
    if (declaration.billing === 'credit') {
      try {
        const held = await this.ledger.reserve(
          {
            payer: `organization:${organizationId}`,
            amount: MAX_REFRESH_CHARGE,
            category: 'tools',
            channel: 'session',
            ttlMs: REFRESH_RESERVATION_TTL_MS,
            ...(space.state.creditLimit !== null
              ? { envelopes: [{ key: `space:${scopeId}`, limit: space.state.creditLimit }] }
              : {}),
          },
          monitorEnvelope(scope, `${step}:reserve`),
        );
        reservation = { reservationId: held.reservationId, amount: held.amount };
      } catch (error) {
        // A refused hold skips the slot; the next slot tries again.
        if (error instanceof ServiceError && error.code !== 'internal_error') {
          return { requested: false, holdRefused: true };
        }
        throw error;
      }
    }
    await this.writer.decide({
      stream: watchStreamId(scopeId),
      decider: watchDecider,
      command: { type: 'NoteWatchRequested', scopeId, scheduleId: schedule.scheduleId, slot, runId },
      context: { now },
      envelope: monitorEnvelope(scope, `${step}:note`),
    });
    const { requested } = await this.commands.execute(
      new QueueRefreshRun(
        organizationId,
        scopeId,
        runId,
        'watch',
        declarationKey(declaration.domain, declaration.addresses),
        declaration.billing,
        reservation,
        monitorEnvelope(scope, step),
        false,
      ),
    );
    if (!requested && reservation) {
      await this.ledger.release(
        {
          reservationId: reservation.reservationId,
          payer: `organization:${organizationId}`,
          amount: reservation.amount,
          category: 'tools',
          channel: 'session',
        },
        'cancelled',
        monitorEnvelope(scope, `${step}:release`),
      );
    }
    return { requested, holdRefused: false };
  }
}

@CommandHandler(RecordWatchOutcome)
export class RecordWatchOutcomeHandler implements ICommandHandler<RecordWatchOutcome> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(CommandBus) private readonly commands: CommandBus,
  ) {}

  async execute({ run, scheduleId, partial, services, findings }: RecordWatchOutcome) {
    const result = await this.writer.decide({
      stream: watchStreamId(run.scopeId),
      decider: watchDecider,
      command: {
        type: 'RecordWatchRun',
        scopeId: run.scopeId,
        scheduleId,
        runId: run.runId,
        status: run.status,
        partial,
        services,
        finishedAt: run.finishedAt ?? this.clock.now().toISOString(),
        findings,
      },
      context: { now: this.clock.now() },
      envelope: monitorEnvelope(
        { id: run.scopeId, organizationId: run.organizationId },
        `watch-record:${run.scopeId}:${run.runId}`,
      ),
    });
    const compared = result.events.find((event) => event.type === 'WatchRunCompared') as
      WatchRunCompared | undefined;
    if (compared && isNotable(compared.data)) {
      await this.commands.execute(new QueueWatchNotification(run, scheduleId, compared.data));
    }
    return { recorded: result.events.length > 0 };
  }
}

@CommandHandler(QueueWatchNotification)
export class QueueWatchNotificationHandler implements ICommandHandler<QueueWatchNotification> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ run, scheduleId, findings }: QueueWatchNotification): Promise<void> {
    const preference = await this.writer.load(
      notificationStreamId(run.scopeId),
      notificationPreferenceDecider,
    );
    if (!preference.state.enabled || preference.state.recipients.length === 0) return;
    await this.writer.decide({
      stream: deliveryStreamId(run.scopeId, run.runId),
      decider: deliveryDecider,
      command: {
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
      context: { now: this.clock.now() },
      envelope: monitorEnvelope(
        { id: run.scopeId, organizationId: run.organizationId },
        `notify:${run.scopeId}:${run.runId}`,
      ),
    });
  }
}

@CommandHandler(AdvanceDelivery)
export class AdvanceDeliveryHandler implements ICommandHandler<AdvanceDelivery> {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  execute({ scopeId, runId, step, envelope }: AdvanceDelivery) {
    return this.writer.decide({
      stream: deliveryStreamId(scopeId, runId),
      decider: deliveryDecider,
      command: step,
      context: { now: this.clock.now() },
      envelope,
    });
  }
}

export const monitoringHandlers = [
  SetMonitoringHandler,
  SaveNotificationPreferenceHandler,
  RequestWatchRunHandler,
  RecordWatchOutcomeHandler,
  QueueWatchNotificationHandler,
  AdvanceDeliveryHandler,
];
