import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  MAX_NOTIFICATION_RECIPIENTS,
  notificationPreferenceDecider,
  notificationStreamId,
  type NotificationPreferenceEvent,
  type NotificationPreferenceState,
  type SaveNotificationPreference,
} from '../../../src/exposure/domain/notification-preference.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(notificationPreferenceDecider);

const now = new Date('2026-03-10T12:00:00.000Z');
const SCOPE = 'scope-1';
const members = Array.from({ length: 25 }, (_, i) => `member-${i + 1}`);
const eligible = new Set(members);

const save = (
  fields: Partial<Pick<SaveNotificationPreference, 'enabled' | 'recipients' | 'language' | 'eligible'>> = {},
) =>
  ({
    type: 'SaveNotificationPreference',
    scopeId: SCOPE,
    organizationId: 'org-1',
    enabled: true,
    recipients: ['member-1'],
    language: 'fr',
    eligible,
    ...fields,
  }) as SaveNotificationPreference;

const saved = (
  enabled: boolean,
  recipients: string[],
  language: 'fr' | 'en',
  savedAt = now.toISOString(),
): NotificationPreferenceEvent => ({
  type: 'NotificationPreferenceSaved',
  data: { scopeId: SCOPE, organizationId: 'org-1', enabled, recipients, language, savedAt },
});

const problem = (error: ServiceError) => error.details?.fields;

describe('notification preference decider', () => {
  it('one preference stream per scope', () => {
    expect(notificationStreamId(SCOPE)).toBe('exposure-notifications-scope-1');
  });

  it('enabled starts disabled, with no recipients, in English, at version 0', () => {
    expect(given([]).state).toEqual({
      enabled: false,
      recipients: [],
      language: 'en',
      version: 0,
      savedAt: null,
    } satisfies NotificationPreferenceState);
  });

  it('saving records enabled, recipients and language, and the version becomes the number of saves', () => {
    const first = given([])
      .when(save({ recipients: ['member-2', 'member-1'] }), { now })
      .then([saved(true, ['member-2', 'member-1'], 'fr')]);
    expect(first.state).toEqual({
      enabled: true,
      recipients: ['member-2', 'member-1'],
      language: 'fr',
      version: 1,
      savedAt: now.toISOString(),
    });
    const second = given([saved(true, ['member-2', 'member-1'], 'fr')])
      .when(save({ enabled: false, recipients: [], language: 'en' }), { now })
      .then([saved(false, [], 'en')]);
    expect(second.state.version).toBe(2);
  });

  it('the body version is the stream version plus one, so a stale version is caught at the append (409)', () => {
    // The handler appends with expectedVersion = body version - 1: that holds only while version counts saves.
    const history = [
      saved(true, ['member-1'], 'fr'),
      saved(false, [], 'en'),
      saved(true, ['member-3'], 'en'),
    ];
    expect(given(history).state.version).toBe(history.length);
  });

  describe('recipients: 0 to 20 member user IDs', () => {
    it('0 recipients are allowed while disabled', () => {
      given([])
        .when(save({ enabled: false, recipients: [] }), { now })
        .then([saved(false, [], 'fr')]);
    });

    it('recipients may be kept while disabled', () => {
      given([])
        .when(save({ enabled: false, recipients: ['member-4'] }), { now })
        .then([saved(false, ['member-4'], 'fr')]);
    });

    it('20 recipients are allowed', () => {
      const twenty = members.slice(0, MAX_NOTIFICATION_RECIPIENTS);
      given([])
        .when(save({ recipients: twenty }), { now })
        .then([saved(true, twenty, 'fr')]);
    });

    it('21 recipients are refused as invalid input naming the field and the limit', () => {
      const error = given([])
        .when(save({ recipients: members.slice(0, 21) }), { now })
        .then('invalid_input');
      expect(problem(error)).toEqual([
        { field: 'recipients', problems: [expect.stringContaining('at most 20')] },
      ]);
      expect(error.details).toMatchObject({ limit: 20 });
      // Even disabled: the limit holds for the list itself.
      given([])
        .when(save({ enabled: false, recipients: members.slice(0, 21) }), { now })
        .then('invalid_input');
    });

    it('at least one required when enabled', () => {
      const error = given([saved(true, ['member-1'], 'fr')])
        .when(save({ enabled: true, recipients: [] }), { now })
        .then('invalid_input');
      expect(problem(error)).toEqual([
        { field: 'recipients', problems: ['must hold at least one member user id when enabled'] },
      ]);
    });

    it('an id may not be repeated', () => {
      given([])
        .when(save({ recipients: ['member-1', 'member-1'] }), { now })
        .then('invalid_input');
    });

    it('recipients must be a list of user ids', () => {
      for (const recipients of [
        'member-1',
        null,
        undefined,
        42,
        [42],
        ['member-1', null],
        { 0: 'member-1' },
      ]) {
        const error = given([]).when(save({ recipients }), { now }).then('invalid_input');
        expect(problem(error)).toEqual([
          { field: 'recipients', problems: ['must be a list of member user ids'] },
        ]);
      }
    });

    it('recipients must be members of the organization with access to the scope, and the refusal names them', () => {
      const error = given([])
        .when(save({ recipients: ['member-1', 'outsider', 'external-client'] }), { now })
        .then('invalid_input');
      expect(error.details).toMatchObject({ ineligible: ['outsider', 'external-client'] });
      // Disabling does not let an ineligible id in either.
      given([])
        .when(save({ enabled: false, recipients: ['outsider'] }), { now })
        .then('invalid_input');
    });
  });

  describe('enabled: boolean', () => {
    it('anything but true or false is refused', () => {
      for (const enabled of ['true', 1, 0, null, undefined, {}]) {
        const error = given([]).when(save({ enabled }), { now }).then('invalid_input');
        expect(problem(error)).toEqual([{ field: 'enabled', problems: ['must be true or false'] }]);
      }
    });
  });

  describe('language: fr or en', () => {
    it('fr and en are accepted', () => {
      given([])
        .when(save({ language: 'fr' }), { now })
        .then([saved(true, ['member-1'], 'fr')]);
      given([])
        .when(save({ language: 'en' }), { now })
        .then([saved(true, ['member-1'], 'en')]);
    });

    it('any other language is refused', () => {
      for (const language of ['de', 'FR', 'en-GB', '', null, undefined, 1]) {
        const error = given([]).when(save({ language }), { now }).then('invalid_input');
        expect(problem(error)).toEqual([{ field: 'language', problems: ['must be fr or en'] }]);
      }
    });
  });

  it('a refused save changes nothing: the previous preference and version stand', () => {
    const history = [saved(true, ['member-1'], 'fr')];
    given(history)
      .when(save({ language: 'de' }), { now })
      .then('invalid_input');
    expect(given(history).state).toMatchObject({ enabled: true, recipients: ['member-1'], version: 1 });
  });

  it('saving confirms nothing and sends nothing: the only event is the saved preference', () => {
    const { events } = given([]).when(save(), { now }).decided();
    expect(events.map((event) => event.type)).toEqual(['NotificationPreferenceSaved']);
  });

  it('property: whatever sequence of saves, the preference never holds more than 20 recipients, is never enabled with none, and its version counts the saves', () => {
    const id = fc.oneof(fc.constantFrom(...members), fc.constantFrom('outsider', ''));
    const command = fc.record({
      enabled: fc.oneof({ weight: 5, arbitrary: fc.boolean() }, fc.constantFrom<unknown>('yes', null, 1)),
      recipients: fc.oneof(
        { weight: 5, arbitrary: fc.array(id, { maxLength: 24 }) },
        fc.uniqueArray(fc.constantFrom(...members), { minLength: 18, maxLength: 25 }),
        fc.constantFrom<unknown>(null, 'member-1', [1]),
      ),
      language: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom('fr', 'en') },
        fc.constantFrom<unknown>('de', null),
      ),
    });
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        let state = notificationPreferenceDecider.initialState;
        let saves = 0;
        for (const fields of commands) {
          let events: readonly NotificationPreferenceEvent[];
          try {
            events = notificationPreferenceDecider.decide(save(fields), state, { now });
          } catch (error) {
            expect(error).toBeInstanceOf(ServiceError);
            expect((error as ServiceError).code).toBe('invalid_input');
            continue;
          }
          for (const event of events) state = notificationPreferenceDecider.evolve(state, event);
          saves += events.length;
          expect(state.recipients.length).toBeLessThanOrEqual(MAX_NOTIFICATION_RECIPIENTS);
          expect(state.enabled && state.recipients.length === 0).toBe(false);
          expect(new Set(state.recipients).size).toBe(state.recipients.length);
          expect(state.recipients.every((r) => eligible.has(r))).toBe(true);
          expect(['fr', 'en']).toContain(state.language);
          expect(state.version).toBe(saves);
        }
      }),
    );
  });
});
