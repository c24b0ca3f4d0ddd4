import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  deliveryDecider,
  deliveryStreamId,
  MAX_DELIVERY_ATTEMPTS,
  pendingRecipients,
  type CancelReason,
  type DeliveryCommand,
  type DeliveryEvent,
  type DeliveryState,
  type QueueNotification,
  type RecordRecipientOutcome,
} from '../../../src/exposure/domain/notification-delivery.js';
import type { WatchFindings } from '../../../src/exposure/domain/watch.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(deliveryDecider);

const now = new Date('2026-03-10T12:00:00.000Z');
const at = now.toISOString();
const later = (ms: number) => new Date(now.getTime() + ms);
const LEASE_MS = 5 * 60 * 1000;
const SCOPE = 'scope-1';

const findings: WatchFindings = {
  newServices: 1,
  newServicesListed: [
    { subjectId: 'svc-1', host: '192.0.2.1', port: 443, product: 'nginx', result: 'matched' },
  ],
  newKev: 0,
  newKevListed: [],
  notObserved: 3,
};
const queue = (recipients: string[] = ['alice', 'bob']): QueueNotification => ({
  type: 'QueueNotification',
  scopeId: SCOPE,
  organizationId: 'org-1',
  runId: 'run-1',
  scheduleId: 'schedule-1',
  recipients,
  language: 'fr',
  findings,
  observedAt: '2026-03-10T11:58:00.000Z',
});
const queued = (recipients: string[] = ['alice', 'bob']): DeliveryEvent => ({
  type: 'NotificationQueued',
  data: {
    scopeId: SCOPE,
    organizationId: 'org-1',
    runId: 'run-1',
    scheduleId: 'schedule-1',
    recipients,
    language: 'fr',
    findings,
    observedAt: '2026-03-10T11:58:00.000Z',
    queuedAt: at,
  },
});
const claim = (workerId = 'worker-a', leaseMs = LEASE_MS): DeliveryCommand => ({
  type: 'ClaimDelivery',
  workerId,
  leaseMs,
});
const claimed = (workerId = 'worker-a', leaseUntil = later(LEASE_MS).toISOString()): DeliveryEvent => ({
  type: 'DeliveryClaimed',
  data: { scopeId: SCOPE, workerId, leaseUntil },
});
const outcome = (
  recipient: string,
  fields: Omit<RecordRecipientOutcome, 'type' | 'workerId' | 'recipient'>,
  workerId = 'worker-a',
): DeliveryCommand => ({ type: 'RecordRecipientOutcome', workerId, recipient, ...fields });
const sent = (
  recipient: string,
  messageId = `<run-1.${recipient}@exposure-notifications>`,
): DeliveryEvent => ({
  type: 'NotificationSent',
  data: { scopeId: SCOPE, recipient, messageId, sentAt: at },
});
const skipped = (
  recipient: string,
  reason: 'not_eligible' | 'stale_observations' | 'no_email',
): DeliveryEvent => ({
  type: 'NotificationSkipped',
  data: { scopeId: SCOPE, recipient, reason, skippedAt: at },
});
const failed = (recipient: string, attempt: number, error = 'connection refused'): DeliveryEvent => ({
  type: 'NotificationAttemptFailed',
  data: { scopeId: SCOPE, recipient, attempt, final: attempt >= MAX_DELIVERY_ATTEMPTS, error, failedAt: at },
});
const cancelled = (reason: CancelReason, recipients: string[]): DeliveryEvent => ({
  type: 'NotificationCancelled',
  data: { scopeId: SCOPE, reason, recipients, cancelledAt: at },
});

describe('notification delivery decider (Events 2)', () => {
  it('one delivery stream per scope and watch run', () => {
    expect(deliveryStreamId(SCOPE, 'run-1')).toBe('exposure-delivery-scope-1-run-1');
  });

  describe('queueing', () => {
    it('a notable watch run queues one email with the recipients and language the preference held then', () => {
      const { state } = given([]).when(queue(), { now }).then([queued()]);
      expect(state).toEqual({
        exists: true,
        scopeId: SCOPE,
        recipients: { alice: { status: 'pending', attempts: 0 }, bob: { status: 'pending', attempts: 0 } },
        lease: null,
      } satisfies DeliveryState);
      expect(pendingRecipients(state)).toEqual(['alice', 'bob']);
    });

    it('queueing the same run again queues nothing more', () => {
      given([queued()])
        .when(queue(['carol']), { now })
        .then([]);
    });

    it('nothing but queueing happens to a notification that was never queued', () => {
      for (const command of [
        claim(),
        outcome('alice', { outcome: 'sent', messageId: 'm' }),
        { type: 'CancelDelivery', reason: 'archived' } as const,
      ]) {
        given([]).when(command, { now }).then('not_found');
      }
    });
  });

  describe('one worker delivers at a time (lease)', () => {
    it('a worker claims the delivery for the lease duration', () => {
      const { state } = given([queued()])
        .when(claim('worker-a'), { now })
        .then([claimed('worker-a')]);
      expect(state.lease).toEqual({ workerId: 'worker-a', until: later(LEASE_MS).toISOString() });
    });

    it('another worker is refused while the lease runs', () => {
      given([queued(), claimed('worker-a')])
        .when(claim('worker-b'), { now: later(LEASE_MS - 1) })
        .then('capacity_conflict');
    });

    it('another worker takes over once the lease has run out', () => {
      given([queued(), claimed('worker-a')])
        .when(claim('worker-b'), { now: later(LEASE_MS) })
        .then([claimed('worker-b', later(2 * LEASE_MS).toISOString())]);
    });

    it('the holder may renew its lease', () => {
      given([queued(), claimed('worker-a')])
        .when(claim('worker-a'), { now: later(1_000) })
        .then([claimed('worker-a', later(1_000 + LEASE_MS).toISOString())]);
    });

    it('a worker without the lease records no outcome', () => {
      given([queued()])
        .when(outcome('alice', { outcome: 'sent', messageId: 'm' }), { now })
        .then('capacity_conflict');
      given([queued(), claimed('worker-a')])
        .when(outcome('alice', { outcome: 'sent', messageId: 'm' }, 'worker-b'), { now })
        .then('capacity_conflict');
    });

    it('nothing left to deliver: a claim decides nothing', () => {
      given([queued(['alice']), claimed(), sent('alice')])
        .when(claim('worker-b'), { now })
        .then([]);
      given([queued([])])
        .when(claim(), { now })
        .then([]);
    });
  });

  describe('at delivery, recipient eligibility and observation freshness are rechecked', () => {
    const ready = [queued(), claimed()];

    it('an eligible recipient is sent the email once, with its message id', () => {
      const messageId = '<run-1.alice@exposure-notifications>';
      const { state } = given(ready)
        .when(outcome('alice', { outcome: 'sent', messageId }), { now })
        .then([sent('alice', messageId)]);
      expect(pendingRecipients(state)).toEqual(['bob']);
      given([...ready, sent('alice', messageId)])
        .when(outcome('alice', { outcome: 'sent', messageId }), { now })
        .then([]);
    });

    it('a recipient no longer eligible is skipped; the others are still delivered', () => {
      const { state } = given(ready)
        .when(outcome('alice', { outcome: 'skipped', reason: 'not_eligible' }), { now })
        .then([skipped('alice', 'not_eligible')]);
      expect(state.recipients.alice).toEqual({ status: 'skipped', attempts: 0 });
      expect(pendingRecipients(state)).toEqual(['bob']);
    });

    it('a skip with no stated reason counts as not eligible', () => {
      given(ready)
        .when(outcome('alice', { outcome: 'skipped' }), { now })
        .then([skipped('alice', 'not_eligible')]);
    });

    it('stale observations skip everyone, and a skipped recipient is never sent the email afterwards', () => {
      let history = ready;
      for (const recipient of ['alice', 'bob']) {
        const { events } = given(history)
          .when(outcome(recipient, { outcome: 'skipped', reason: 'stale_observations' }), { now })
          .then([skipped(recipient, 'stale_observations')]);
        history = [...history, ...events];
      }
      expect(pendingRecipients(given(history).state)).toEqual([]);
      given(history)
        .when(outcome('alice', { outcome: 'sent', messageId: 'm' }), { now })
        .then([]);
      given(history)
        .when(claim('worker-b'), { now: later(LEASE_MS) })
        .then([]);
    });

    it('a member without an email address is skipped', () => {
      given(ready)
        .when(outcome('bob', { outcome: 'skipped', reason: 'no_email' }), { now })
        .then([skipped('bob', 'no_email')]);
    });

    it('an outcome for someone who was not a recipient when the email was queued records nothing', () => {
      given(ready)
        .when(outcome('mallory', { outcome: 'sent', messageId: 'm' }), { now })
        .then([]);
    });
  });

  describe('failed attempts', () => {
    it('a failed attempt leaves the recipient pending until the third, which is final', () => {
      let history = [queued(['alice']), claimed()];
      for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt++) {
        const { events, state } = given(history)
          .when(outcome('alice', { outcome: 'failed', error: 'connection refused' }), { now })
          .then([failed('alice', attempt)]);
        expect(state.recipients.alice).toEqual({
          status: attempt < MAX_DELIVERY_ATTEMPTS ? 'pending' : 'failed',
          attempts: attempt,
        });
        history = [...history, ...events];
      }
      given(history)
        .when(outcome('alice', { outcome: 'failed', error: 'again' }), { now })
        .then([]);
    });

    it('a recipient sent after a failed attempt keeps the attempt count', () => {
      const { state } = given([queued(['alice']), claimed(), failed('alice', 1)])
        .when(outcome('alice', { outcome: 'sent', messageId: 'm' }), { now })
        .decided();
      expect(state.recipients.alice).toEqual({ status: 'sent', attempts: 1 });
    });

    it('the error kept is at most 200 characters', () => {
      given([queued(['alice']), claimed()])
        .when(outcome('alice', { outcome: 'failed', error: 'x'.repeat(500) }), { now })
        .then([failed('alice', 1, 'x'.repeat(200))]);
    });
  });

  describe('archiving a scope cancels its pending deliveries', () => {
    it('archiving cancels every pending recipient and ends the lease', () => {
      const { state } = given([queued(), claimed()])
        .when({ type: 'CancelDelivery', reason: 'archived' }, { now })
        .then([cancelled('archived', ['alice', 'bob'])]);
      expect(state.recipients).toEqual({
        alice: { status: 'cancelled', attempts: 0 },
        bob: { status: 'cancelled', attempts: 0 },
      });
      expect(state.lease).toBeNull();
    });

    it('what was already sent stays sent; only the pending recipients are cancelled', () => {
      given([queued(['alice', 'bob', 'carol']), claimed(), sent('alice'), failed('carol', 1)])
        .when({ type: 'CancelDelivery', reason: 'archived' }, { now })
        .then([cancelled('archived', ['bob', 'carol'])]);
    });

    it('deleting the scope, stopping monitoring or disabling notifications cancel the same way', () => {
      for (const reason of ['deleted', 'monitoring_stopped', 'notifications_disabled'] as const) {
        given([queued(['alice'])])
          .when({ type: 'CancelDelivery', reason }, { now })
          .then([cancelled(reason, ['alice'])]);
      }
    });

    it('nothing is sent after cancellation: the old lease holder records nothing and no claim is made', () => {
      const history = [queued(), claimed('worker-a'), cancelled('archived', ['alice', 'bob'])];
      given(history)
        .when(outcome('alice', { outcome: 'sent', messageId: 'm' }, 'worker-a'), { now })
        .then('capacity_conflict');
      given(history).when(claim('worker-b'), { now }).then([]);
      given(history).when({ type: 'CancelDelivery', reason: 'archived' }, { now }).then([]);
    });
  });

  describe('properties', () => {
    const RECIPIENTS = ['alice', 'bob', 'carol'];
    const WORKERS = ['worker-a', 'worker-b'];
    const command: fc.Arbitrary<DeliveryCommand> = fc.oneof(
      fc.record({
        type: fc.constant('ClaimDelivery' as const),
        workerId: fc.constantFrom(...WORKERS),
        leaseMs: fc.constant(LEASE_MS),
      }),
      {
        weight: 4,
        arbitrary: fc.record({
          type: fc.constant('RecordRecipientOutcome' as const),
          workerId: fc.constantFrom(...WORKERS),
          recipient: fc.constantFrom(...RECIPIENTS, 'mallory'),
          outcome: fc.constantFrom('sent', 'skipped', 'failed') as fc.Arbitrary<
            'sent' | 'skipped' | 'failed'
          >,
          reason: fc.constantFrom('not_eligible', 'stale_observations', 'no_email') as fc.Arbitrary<
            'not_eligible' | 'stale_observations' | 'no_email'
          >,
          messageId: fc.constant('m'),
          error: fc.constant('refused'),
        }),
      },
      fc.record({
        type: fc.constant('CancelDelivery' as const),
        reason: fc.constantFrom(
          'archived',
          'deleted',
          'monitoring_stopped',
          'notifications_disabled',
        ) as fc.Arbitrary<CancelReason>,
      }),
    );

    it('whatever happens, each recipient is sent at most once, never after being skipped, failed for good or cancelled, and tried at most 3 times', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(command, fc.integer({ min: 0, max: 10 * 60 * 1000 })), { maxLength: 40 }),
          (steps) => {
            let state = deliveryDecider.evolve(deliveryDecider.initialState, queued(RECIPIENTS));
            let clock = now.getTime();
            const finished = new Map<string, string>(); // recipient → the event that settled it
            const attempts = new Map<string, number>();
            for (const [step, advance] of steps) {
              clock += advance;
              let events: readonly DeliveryEvent[];
              try {
                events = deliveryDecider.decide(step, state, { now: new Date(clock) });
              } catch (error) {
                expect(error).toBeInstanceOf(ServiceError);
                expect((error as ServiceError).code).toBe('capacity_conflict');
                continue;
              }
              for (const event of events) {
                switch (event.type) {
                  case 'NotificationSent':
                  case 'NotificationSkipped':
                    expect(finished.get(event.data.recipient)).toBeUndefined();
                    expect(RECIPIENTS).toContain(event.data.recipient);
                    finished.set(event.data.recipient, event.type);
                    break;
                  case 'NotificationAttemptFailed': {
                    expect(finished.get(event.data.recipient)).toBeUndefined();
                    const count = (attempts.get(event.data.recipient) ?? 0) + 1;
                    expect(event.data.attempt).toBe(count);
                    expect(count).toBeLessThanOrEqual(MAX_DELIVERY_ATTEMPTS);
                    attempts.set(event.data.recipient, count);
                    if (event.data.final) finished.set(event.data.recipient, event.type);
                    break;
                  }
                  case 'NotificationCancelled':
                    for (const recipient of event.data.recipients) {
                      expect(finished.get(recipient)).toBeUndefined();
                      finished.set(recipient, event.type);
                    }
                    break;
                  case 'DeliveryClaimed':
                    // A claim is only ever granted while someone is still waiting for the email.
                    expect(pendingRecipients(state).length).toBeGreaterThan(0);
                    break;
                  case 'NotificationQueued':
                    throw new Error('queued twice');
                }
                state = deliveryDecider.evolve(state, event);
              }
            }
            for (const recipient of RECIPIENTS) {
              expect(state.recipients[recipient]!.status === 'pending').toBe(!finished.has(recipient));
            }
          },
        ),
      );
    });
  });
});
