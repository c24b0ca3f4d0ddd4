/**
 * One email notification of a scope (`exposure-delivery-<scopeId>-<runId>`), contract Events 2: queued when a
 * watch run found something notable, with the recipients and language the preference held then; at delivery
 * every recipient's eligibility and the observations' freshness are checked again (a recipient no longer
 * eligible is skipped, stale observations skip everyone); archiving or deleting the scope cancels what is still
 * pending. A worker claims the delivery with a lease before sending, so two instances never send it twice.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { NotificationLanguage } from './notification-preference.js';
import type { WatchFindings } from './watch.js';

export const MAX_DELIVERY_ATTEMPTS = 3;

export function deliveryStreamId(scopeId: string, runId: string): string {
  return `exposure-delivery-${scopeId}-${runId}`;
}

export type SkipReason = 'not_eligible' | 'stale_observations' | 'no_email';
export type CancelReason = 'archived' | 'deleted' | 'monitoring_stopped' | 'notifications_disabled';

export interface QueueNotification {
  readonly type: 'QueueNotification';
  readonly scopeId: string;
  readonly organizationId: string;
  readonly runId: string;
  readonly scheduleId: string;
  readonly recipients: readonly string[];
  readonly language: NotificationLanguage;
  readonly findings: WatchFindings;
  readonly observedAt: string;
}
export interface ClaimDelivery {
  readonly type: 'ClaimDelivery';
  readonly workerId: string;
  readonly leaseMs: number;
}
export interface RecordRecipientOutcome {
  readonly type: 'RecordRecipientOutcome';
  readonly workerId: string;
  readonly recipient: string;
  readonly outcome: 'sent' | 'skipped' | 'failed';
  readonly reason?: SkipReason;
  readonly messageId?: string;
  readonly error?: string;
}
export interface CancelDelivery {
  readonly type: 'CancelDelivery';
  readonly reason: CancelReason;
}
export type DeliveryCommand = QueueNotification | ClaimDelivery | RecordRecipientOutcome | CancelDelivery;

export type NotificationQueued = DomainEvent<
  'NotificationQueued',
  {
    scopeId: string;
    organizationId: string;
    runId: string;
    scheduleId: string;
    recipients: string[];
    language: NotificationLanguage;
    findings: WatchFindings;
    observedAt: string;
    queuedAt: string;
  }
>;
export type DeliveryClaimed = DomainEvent<
  'DeliveryClaimed',
  { scopeId: string; workerId: string; leaseUntil: string }
>;
export type NotificationSent = DomainEvent<
  'NotificationSent',
  { scopeId: string; recipient: string; messageId: string; sentAt: string }
>;
export type NotificationSkipped = DomainEvent<
  'NotificationSkipped',
  { scopeId: string; recipient: string; reason: SkipReason; skippedAt: string }
>;
export type NotificationAttemptFailed = DomainEvent<
  'NotificationAttemptFailed',
  { scopeId: string; recipient: string; attempt: number; final: boolean; error: string; failedAt: string }
>;
export type NotificationCancelled = DomainEvent<
  'NotificationCancelled',
  { scopeId: string; reason: CancelReason; recipients: string[]; cancelledAt: string }
>;
export type DeliveryEvent =
  | NotificationQueued
  | DeliveryClaimed
  | NotificationSent
  | NotificationSkipped
  | NotificationAttemptFailed
  | NotificationCancelled;

export type RecipientStatus = 'pending' | 'sent' | 'skipped' | 'failed' | 'cancelled';

export interface DeliveryState {
  readonly exists: boolean;
  readonly scopeId: string | null;
  readonly recipients: Readonly<
    Record<string, { readonly status: RecipientStatus; readonly attempts: number }>
  >;
  readonly lease: { readonly workerId: string; readonly until: string } | null;
}

export const initialDeliveryState: DeliveryState = {
  exists: false,
  scopeId: null,
  recipients: {},
  lease: null,
};

export function pendingRecipients(state: DeliveryState): string[] {
  return Object.entries(state.recipients)
    .filter(([, recipient]) => recipient.status === 'pending')
    .map(([id]) => id)
    .sort();
}

export const deliveryDecider: Decider<DeliveryCommand, DeliveryEvent, DeliveryState, { now: Date }> = {
  initialState: initialDeliveryState,
  decide(command, state, { now }) {
    const at = now.toISOString();
    if (command.type === 'QueueNotification') {
      if (state.exists) return [];
      return [
        {
          type: 'NotificationQueued',
          data: {
            scopeId: command.scopeId,
            organizationId: command.organizationId,
            runId: command.runId,
            scheduleId: command.scheduleId,
            recipients: [...command.recipients],
            language: command.language,
            findings: command.findings,
            observedAt: command.observedAt,
            queuedAt: at,
          },
        },
      ];
    }
    if (!state.exists) throw new ServiceError('not_found', 'no such notification');
    const scopeId = state.scopeId!;
    const pending = pendingRecipients(state);
    switch (command.type) {
      case 'ClaimDelivery':
        if (pending.length === 0) return [];
        if (state.lease && state.lease.workerId !== command.workerId && state.lease.until > at) {
          throw new ServiceError('capacity_conflict', 'another worker is delivering this notification');
        }
        return [
          {
            type: 'DeliveryClaimed',
            data: {
              scopeId,
              workerId: command.workerId,
              leaseUntil: new Date(now.getTime() + command.leaseMs).toISOString(),
            },
          },
        ];
      case 'RecordRecipientOutcome': {
        if (!state.lease || state.lease.workerId !== command.workerId) {
          throw new ServiceError('capacity_conflict', 'this worker does not hold the delivery');
        }
        if (!pending.includes(command.recipient)) return [];
        if (command.outcome === 'sent') {
          return [
            {
              type: 'NotificationSent',
              data: { scopeId, recipient: command.recipient, messageId: command.messageId ?? '', sentAt: at },
            },
          ];
        }
        if (command.outcome === 'skipped') {
          return [
            {
              type: 'NotificationSkipped',
              data: {
                scopeId,
                recipient: command.recipient,
                reason: command.reason ?? 'not_eligible',
                skippedAt: at,
              },
            },
          ];
        }
        const attempt = (state.recipients[command.recipient]?.attempts ?? 0) + 1;
        return [
          {
            type: 'NotificationAttemptFailed',
            data: {
              scopeId,
              recipient: command.recipient,
              attempt,
              final: attempt >= MAX_DELIVERY_ATTEMPTS,
              error: (command.error ?? 'failed').slice(0, 200),
              failedAt: at,
            },
          },
        ];
      }
      case 'CancelDelivery':
        if (pending.length === 0) return [];
        return [
          {
            type: 'NotificationCancelled',
            data: { scopeId, reason: command.reason, recipients: pending, cancelledAt: at },
          },
        ];
    }
  },
  evolve(state, event) {
    const set = (recipient: string, status: RecipientStatus, attempts?: number) => ({
      ...state.recipients,
      [recipient]: { status, attempts: attempts ?? state.recipients[recipient]?.attempts ?? 0 },
    });
    switch (event.type) {
      case 'NotificationQueued':
        return {
          exists: true,
          scopeId: event.data.scopeId,
          recipients: Object.fromEntries(
            event.data.recipients.map((id) => [id, { status: 'pending' as const, attempts: 0 }]),
          ),
          lease: null,
        };
      case 'DeliveryClaimed':
        return { ...state, lease: { workerId: event.data.workerId, until: event.data.leaseUntil } };
      case 'NotificationSent':
        return { ...state, recipients: set(event.data.recipient, 'sent') };
      case 'NotificationSkipped':
        return { ...state, recipients: set(event.data.recipient, 'skipped') };
      case 'NotificationAttemptFailed':
        return {
          ...state,
          recipients: set(event.data.recipient, event.data.final ? 'failed' : 'pending', event.data.attempt),
        };
      case 'NotificationCancelled': {
        let recipients = state.recipients;
        for (const id of event.data.recipients)
          recipients = {
            ...recipients,
            [id]: { status: 'cancelled', attempts: recipients[id]?.attempts ?? 0 },
          };
        return { ...state, recipients, lease: null };
      }
      default:
        return state;
    }
  },
};
