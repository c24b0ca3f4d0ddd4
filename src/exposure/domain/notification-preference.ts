/**
 * A scope's email preference (`exposure-notifications-<scopeId>`), contract Notification preference and Events 2:
 * enabled (starts false), 0 to 20 recipients who are members with access to the scope (at least one when
 * enabled), language fr or en, and the body `version` (the number of saves so far: 0 before the first). Saving
 * confirms nothing and sends nothing: eligibility is checked again at every delivery.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { memberOf, reachesSpace, type OrganizationState } from '../../organizations/domain/organization.js';
import { isStaff } from '../../organizations/domain/roles.js';

export const MAX_NOTIFICATION_RECIPIENTS = 20;
export const NOTIFICATION_LANGUAGES = ['fr', 'en'] as const;
export type NotificationLanguage = (typeof NOTIFICATION_LANGUAGES)[number];

export function notificationStreamId(scopeId: string): string {
  return `exposure-notifications-${scopeId}`;
}

export interface SaveNotificationPreference {
  readonly type: 'SaveNotificationPreference';
  readonly scopeId: string;
  readonly organizationId: string;
  readonly enabled: unknown;
  readonly recipients: unknown;
  readonly language: unknown;
  /** Members who may receive this scope's email now (staff with access to the scope), from the organization. */
  readonly eligible: ReadonlySet<string>;
}
export type NotificationPreferenceCommand = SaveNotificationPreference;

export type NotificationPreferenceSaved = DomainEvent<
  'NotificationPreferenceSaved',
  {
    scopeId: string;
    organizationId: string;
    enabled: boolean;
    recipients: string[];
    language: NotificationLanguage;
    savedAt: string;
  }
>;
export type NotificationPreferenceEvent = NotificationPreferenceSaved;

export interface NotificationPreferenceState {
  readonly enabled: boolean;
  readonly recipients: readonly string[];
  readonly language: NotificationLanguage;
  /** The body version: saves so far. */
  readonly version: number;
  readonly savedAt: string | null;
}

export const initialNotificationPreference: NotificationPreferenceState = {
  enabled: false,
  recipients: [],
  language: 'en',
  version: 0,
  savedAt: null,
};

function invalid(field: string, problem: string, extra: Record<string, unknown> = {}): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
    ...extra,
  });
}

export const notificationPreferenceDecider: Decider<
  NotificationPreferenceCommand,
  NotificationPreferenceEvent,
  NotificationPreferenceState,
  { now: Date }
> = {
  initialState: initialNotificationPreference,
  decide(command, _state, { now }) {
    if (typeof command.enabled !== 'boolean') throw invalid('enabled', 'must be true or false');
    if (!Array.isArray(command.recipients) || command.recipients.some((r) => typeof r !== 'string')) {
      throw invalid('recipients', 'must be a list of member user ids');
    }
    const recipients = command.recipients as string[];
    if (recipients.length > MAX_NOTIFICATION_RECIPIENTS) {
      throw invalid('recipients', `must hold at most ${MAX_NOTIFICATION_RECIPIENTS} member user ids`, {
        limit: MAX_NOTIFICATION_RECIPIENTS,
      });
    }
    if (new Set(recipients).size !== recipients.length) throw invalid('recipients', 'must not repeat an id');
    if (command.enabled && recipients.length === 0) {
      throw invalid('recipients', 'must hold at least one member user id when enabled');
    }
    const ineligible = recipients.filter((id) => !command.eligible.has(id));
    if (ineligible.length > 0) {
      throw invalid('recipients', 'must be members of the organization with access to this scope', {
        ineligible,
      });
    }
    if (!(NOTIFICATION_LANGUAGES as readonly unknown[]).includes(command.language)) {
      throw invalid('language', 'must be fr or en');
    }
    return [
      {
        type: 'NotificationPreferenceSaved',
        data: {
          scopeId: command.scopeId,
          organizationId: command.organizationId,
          enabled: command.enabled,
          recipients: [...recipients],
          language: command.language as NotificationLanguage,
          savedAt: now.toISOString(),
        },
      },
    ];
  },
  evolve(state, event) {
    switch (event.type) {
      case 'NotificationPreferenceSaved':
        return {
          enabled: event.data.enabled,
          recipients: event.data.recipients,
          language: event.data.language,
          version: state.version + 1,
          savedAt: event.data.savedAt,
        };
      default:
        return state;
    }
  },
};

/** Staff members who may receive a scope's email now: a member, not an external client, reaching the scope. */
export function eligibleRecipients(state: OrganizationState, scopeId: string): Set<string> {
  return new Set(
    Object.keys(state.members).filter((accountId) => {
      const member = memberOf(state, accountId);
      return member !== undefined && isStaff(member.role) && reachesSpace(state, accountId, scopeId);
    }),
  );
}
