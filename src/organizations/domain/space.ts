/**
 * A space (`client-<id>`): General research (the shared internal context), a client, or an asset scope. Holds
 * its credit envelope, its monitoring schedule and its guest shares. Rule 13: archiving pauses its work, stops
 * its schedule and revokes its shares; restoring keeps history, restarts no schedule and recreates no link.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { invalidField } from './organization.js';

export const SPACE_KINDS = ['general', 'client', 'asset_scope'] as const;
export type SpaceKind = (typeof SPACE_KINDS)[number];
export const MAX_SPACE_NAME_LENGTH = 120;
/** Contract Limits: credit_limit 6 to 1,000,000 under credit billing. */
export const MIN_CREDIT_LIMIT = 6;
export const MAX_CREDIT_LIMIT = 1_000_000;

export function spaceStreamId(spaceId: string): string {
  return `client-${spaceId}`;
}

export interface CreateSpace {
  readonly type: 'CreateSpace';
  readonly spaceId: string;
  readonly organizationId: string;
  readonly kind: SpaceKind;
  readonly name: string;
  readonly creditLimit: number | null;
  readonly monitoring: boolean;
}
export interface RenameSpace {
  readonly type: 'RenameSpace';
  readonly name: string;
}
export interface ArchiveSpace {
  readonly type: 'ArchiveSpace';
}
export interface RestoreSpace {
  readonly type: 'RestoreSpace';
}
export interface SetCreditLimit {
  readonly type: 'SetCreditLimit';
  readonly creditLimit: number | null;
}
export interface SetMonitoring {
  readonly type: 'SetMonitoring';
  readonly enabled: boolean;
}
export interface CreateShare {
  readonly type: 'CreateShare';
  readonly shareId: string;
}
export interface RevokeShare {
  readonly type: 'RevokeShare';
  readonly shareId: string;
}
export type SpaceCommand =
  | CreateSpace
  | RenameSpace
  | ArchiveSpace
  | RestoreSpace
  | SetCreditLimit
  | SetMonitoring
  | CreateShare
  | RevokeShare;

export type SpaceCreated = DomainEvent<
  'SpaceCreated',
  {
    spaceId: string;
    organizationId: string;
    kind: SpaceKind;
    name: string;
    creditLimit: number | null;
    createdAt: string;
  }
>;
export type SpaceRenamed = DomainEvent<'SpaceRenamed', { from: string; to: string }>;
export type SpaceArchived = DomainEvent<'SpaceArchived', { archivedAt: string }>;
export type SpaceRestored = DomainEvent<'SpaceRestored', { restoredAt: string }>;
export type CreditLimitSet = DomainEvent<'CreditLimitSet', { creditLimit: number | null }>;
export type MonitoringActivated = DomainEvent<
  'MonitoringActivated',
  { scheduleId: string; activatedAt: string }
>;
export type MonitoringStopped = DomainEvent<
  'MonitoringStopped',
  { scheduleId: string; reason: 'deactivated' | 'archived'; stoppedAt: string }
>;
export type ShareCreated = DomainEvent<'ShareCreated', { shareId: string; createdAt: string }>;
export type ShareRevoked = DomainEvent<
  'ShareRevoked',
  { shareId: string; reason: 'revoked' | 'archived'; revokedAt: string }
>;
export type SpaceEvent =
  | SpaceCreated
  | SpaceRenamed
  | SpaceArchived
  | SpaceRestored
  | CreditLimitSet
  | MonitoringActivated
  | MonitoringStopped
  | ShareCreated
  | ShareRevoked;

export interface SpaceState {
  readonly exists: boolean;
  readonly spaceId: string | null;
  readonly organizationId: string | null;
  readonly kind: SpaceKind;
  readonly name: string;
  readonly state: 'active' | 'archived';
  readonly creditLimit: number | null;
  /** The running monitoring schedule, if any (monitoring collects only after explicit activation). */
  readonly schedule: { readonly scheduleId: string; readonly activatedAt: string } | null;
  readonly shares: Readonly<Record<string, { readonly createdAt: string; readonly revoked: boolean }>>;
  /** How many schedules this space ever had: a new activation gets a new id, never the stopped one back. */
  readonly schedulesEver: number;
}

export const initialSpaceState: SpaceState = {
  exists: false,
  spaceId: null,
  organizationId: null,
  kind: 'client',
  name: '',
  state: 'active',
  creditLimit: null,
  schedule: null,
  shares: {},
  schedulesEver: 0,
};

export interface SpaceContext {
  readonly now: Date;
}

export const spaceDecider: Decider<SpaceCommand, SpaceEvent, SpaceState, SpaceContext> = {
  initialState: initialSpaceState,
  decide(command, state, { now }) {
    const at = now.toISOString();
    if (command.type === 'CreateSpace') {
      if (state.exists) throw new ServiceError('already_exists', 'the space exists');
      if (!(SPACE_KINDS as readonly string[]).includes(command.kind)) {
        throw invalidField('kind', 'must be client or asset_scope');
      }
      const events: SpaceEvent[] = [
        {
          type: 'SpaceCreated',
          data: {
            spaceId: command.spaceId,
            organizationId: command.organizationId,
            kind: command.kind,
            name: checkedName(command.name),
            creditLimit: checkedLimit(command.creditLimit),
            createdAt: at,
          },
        },
      ];
      if (command.monitoring === true) {
        events.push({
          type: 'MonitoringActivated',
          data: { scheduleId: `${command.spaceId}:1`, activatedAt: at },
        });
      }
      return events;
    }
    if (!state.exists) throw new ServiceError('not_found', 'no such space');
    switch (command.type) {
      case 'RenameSpace': {
        const name = checkedName(command.name);
        return name === state.name ? [] : [{ type: 'SpaceRenamed', data: { from: state.name, to: name } }];
      }
      case 'ArchiveSpace': {
        if (state.kind === 'general')
          throw new ServiceError('forbidden', 'General research cannot be archived');
        if (state.state === 'archived') return [];
        const events: SpaceEvent[] = [{ type: 'SpaceArchived', data: { archivedAt: at } }];
        if (state.schedule) {
          events.push({
            type: 'MonitoringStopped',
            data: { scheduleId: state.schedule.scheduleId, reason: 'archived', stoppedAt: at },
          });
        }
        for (const [shareId, share] of Object.entries(state.shares).sort(([a], [b]) => (a < b ? -1 : 1))) {
          if (!share.revoked) {
            events.push({ type: 'ShareRevoked', data: { shareId, reason: 'archived', revokedAt: at } });
          }
        }
        return events;
      }
      case 'RestoreSpace':
        // Restoring preserves history; it restarts no schedule and recreates no revoked link (rule 13).
        return state.state === 'active' ? [] : [{ type: 'SpaceRestored', data: { restoredAt: at } }];
      case 'SetCreditLimit': {
        requireActive(state);
        const creditLimit = checkedLimit(command.creditLimit);
        return creditLimit === state.creditLimit ? [] : [{ type: 'CreditLimitSet', data: { creditLimit } }];
      }
      case 'SetMonitoring': {
        requireActive(state);
        if (command.enabled) {
          if (state.schedule) return [];
          return [
            {
              type: 'MonitoringActivated',
              data: { scheduleId: `${state.spaceId}:${state.schedulesEver + 1}`, activatedAt: at },
            },
          ];
        }
        if (!state.schedule) return [];
        return [
          {
            type: 'MonitoringStopped',
            data: { scheduleId: state.schedule.scheduleId, reason: 'deactivated', stoppedAt: at },
          },
        ];
      }
      case 'CreateShare': {
        requireActive(state);
        if (Object.hasOwn(state.shares, command.shareId))
          throw new ServiceError('already_exists', 'share exists');
        return [{ type: 'ShareCreated', data: { shareId: command.shareId, createdAt: at } }];
      }
      case 'RevokeShare': {
        const share = Object.hasOwn(state.shares, command.shareId)
          ? state.shares[command.shareId]
          : undefined;
        if (!share) throw new ServiceError('not_found', 'no such share');
        if (share.revoked) return [];
        return [
          { type: 'ShareRevoked', data: { shareId: command.shareId, reason: 'revoked', revokedAt: at } },
        ];
      }
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SpaceCreated':
        return {
          ...state,
          exists: true,
          spaceId: event.data.spaceId,
          organizationId: event.data.organizationId,
          kind: event.data.kind,
          name: event.data.name,
          creditLimit: event.data.creditLimit,
        };
      case 'SpaceRenamed':
        return { ...state, name: event.data.to };
      case 'SpaceArchived':
        return { ...state, state: 'archived' };
      case 'SpaceRestored':
        return { ...state, state: 'active' };
      case 'CreditLimitSet':
        return { ...state, creditLimit: event.data.creditLimit };
      case 'MonitoringActivated':
        return {
          ...state,
          schedule: { scheduleId: event.data.scheduleId, activatedAt: event.data.activatedAt },
          schedulesEver: state.schedulesEver + 1,
        };
      case 'MonitoringStopped':
        return { ...state, schedule: null };
      case 'ShareCreated':
        return {
          ...state,
          shares: {
            ...state.shares,
            [event.data.shareId]: { createdAt: event.data.createdAt, revoked: false },
          },
        };
      case 'ShareRevoked': {
        const share = state.shares[event.data.shareId];
        return share
          ? { ...state, shares: { ...state.shares, [event.data.shareId]: { ...share, revoked: true } } }
          : state;
      }
      default:
        return state;
    }
  },
};

function requireActive(state: SpaceState): void {
  if (state.state !== 'active') {
    throw new ServiceError('forbidden', 'the space is archived: restore it first', { state: state.state });
  }
}

function checkedName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length === 0 || [...name].length > MAX_SPACE_NAME_LENGTH) {
    throw invalidField('name', `must be 1 to ${MAX_SPACE_NAME_LENGTH} characters`);
  }
  return name;
}

function checkedLimit(raw: unknown): number | null {
  if (raw === null || raw === undefined) return null;
  if (
    typeof raw !== 'number' ||
    !Number.isSafeInteger(raw) ||
    raw < MIN_CREDIT_LIMIT ||
    raw > MAX_CREDIT_LIMIT
  ) {
    throw invalidField('credit_limit', `must be an integer from ${MIN_CREDIT_LIMIT} to ${MAX_CREDIT_LIMIT}`);
  }
  return raw;
}
