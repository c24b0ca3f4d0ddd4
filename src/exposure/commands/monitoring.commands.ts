import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../platform/auth/access.js';
import { commandEnvelope, type CommandEnvelope } from '../../platform/event-sourcing/command-metadata.js';
import type { HandleResult } from '../../platform/event-sourcing/event-sourced-repository.js';
import type { SpaceState } from '../../organizations/domain/space.js';
import type { NotificationPreferenceState } from '../domain/notification-preference.js';
import type { DeliveryCommand, DeliveryEvent, DeliveryState } from '../domain/notification-delivery.js';
import type { WatchFindings, WatchRunCompared } from '../domain/watch.js';

/** The monitor's commands: paid by the scope's organization, recorded under the scope. */
export function monitorEnvelope(
  scope: { id: string; organizationId: string },
  commandId: string,
): CommandEnvelope {
  return commandEnvelope({
    actor: 'system:exposure-monitor',
    payer: `organization:${scope.organizationId}`,
    scope: scope.id,
    commandId,
    correlationId: commandId,
  });
}

/** PUT …/monitoring: explicit activation (the scheduler then requests one watch run per day) or stop. */
export class SetMonitoring extends Command<SpaceState> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly enabled: boolean,
    readonly expectedVersion: number | undefined,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

export interface PreferenceBody {
  readonly enabled: unknown;
  readonly recipients: unknown;
  readonly language: unknown;
  readonly version: unknown;
}

/** PUT …/notifications: the scope's email preference (owner or administrator), at the body version read. */
export class SaveNotificationPreference extends Command<NotificationPreferenceState> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly scopeId: string,
    readonly body: PreferenceBody,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}

/**
 * The watch run of a monitored scope's current daily slot, keyed by schedule and slot so it runs once whatever
 * the number of instances; under credit billing its price is held first (`holdRefused`: the slot is skipped).
 */
export class RequestWatchRun extends Command<{ requested: boolean; holdRefused: boolean }> {
  constructor(
    readonly scopeId: string,
    readonly organizationId: string,
  ) {
    super();
  }
}

/** What a finished watch run found, on the scope's watch stream; a notable comparison queues an email. */
export class RecordWatchOutcome extends Command<{ recorded: boolean }> {
  constructor(
    readonly run: {
      readonly scopeId: string;
      readonly organizationId: string;
      readonly runId: string;
      readonly status: 'completed' | 'failed' | 'cancelled';
      readonly finishedAt: string | null;
    },
    readonly scheduleId: string,
    readonly partial: boolean,
    readonly services: number,
    readonly findings: WatchFindings | null,
  ) {
    super();
  }
}

/** An email about a notable watch run to the preference's recipients (nothing when it is disabled). */
export class QueueWatchNotification extends Command<void> {
  constructor(
    readonly run: { readonly scopeId: string; readonly organizationId: string; readonly runId: string },
    readonly scheduleId: string,
    readonly findings: WatchRunCompared['data'],
  ) {
    super();
  }
}

/** One step of an email delivery (claim, a recipient's outcome, cancellation). */
export class AdvanceDelivery extends Command<HandleResult<DeliveryEvent, DeliveryState>> {
  constructor(
    readonly scopeId: string,
    readonly runId: string,
    readonly step: DeliveryCommand,
    readonly envelope: CommandEnvelope,
  ) {
    super();
  }
}
