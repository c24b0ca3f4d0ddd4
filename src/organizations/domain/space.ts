/**
 * A space (`client-<id>`): General research (the shared internal context), a client, or an asset scope. Holds
 * its credit envelope, its monitoring schedule and its guest shares. Rule 13: archiving pauses its work, stops
 * its schedule and revokes its shares; restoring keeps history, restarts no schedule and recreates no link.
 */
import { allOrNothing, type Decider, type DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { invalidField } from './organization.js';
import {
  checkedAddresses,
  checkedDomain,
  checkedTimezone,
  DELETION_WINDOW_MS,
  type BillingMode,
  type ExposureDeclaration,
} from '../../exposure/domain/scope-declaration.js';

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
/**
 * An update of a space's settings (PATCH): its name, credit limit and state, decided whole (all-or-nothing). An
 * absent field is left as it is; `creditLimit: null` removes the limit.
 */
export interface UpdateSpace {
  readonly type: 'UpdateSpace';
  readonly name?: string;
  readonly creditLimit?: number | null;
  readonly state?: 'active' | 'archived';
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
/** An exposure scope (contract, Scope): an asset scope space that declares a domain, timezone and addresses. */
export interface CreateExposureScope {
  readonly type: 'CreateExposureScope';
  readonly spaceId: string;
  readonly organizationId: string;
  readonly name: string;
  readonly domain: unknown;
  readonly timezone: unknown;
  readonly addresses: unknown;
  readonly monitoring: boolean;
  /** Ignored under capacity billing; 6 to 1,000,000 under legacy credit billing. */
  readonly creditLimit: unknown;
  readonly billing: BillingMode;
}
/** DELETE with the exact name as confirmation: access ends at once, erasure after the seven-day window. */
export interface DeleteSpace {
  readonly type: 'DeleteSpace';
  readonly confirmName: unknown;
}
/** Cancels a deletion before erase_after: back to archived; grants, links and schedules stay gone. */
export interface RestoreDeletedSpace {
  readonly type: 'RestoreDeletedSpace';
}
/** The sweeper, once erase_after passed: from here the scope can no longer be restored. */
export interface BeginErasure {
  readonly type: 'BeginErasure';
}
export interface ChangeTimezone {
  readonly type: 'ChangeTimezone';
  readonly timezone: unknown;
}
export type SpaceCommand =
  | CreateSpace
  | CreateExposureScope
  | DeleteSpace
  | RestoreDeletedSpace
  | BeginErasure
  | ChangeTimezone
  | RenameSpace
  | ArchiveSpace
  | RestoreSpace
  | SetCreditLimit
  | UpdateSpace
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
  { scheduleId: string; reason: 'deactivated' | 'archived' | 'deleted'; stoppedAt: string }
>;
export type ShareCreated = DomainEvent<'ShareCreated', { shareId: string; createdAt: string }>;
export type ShareRevoked = DomainEvent<
  'ShareRevoked',
  { shareId: string; reason: 'revoked' | 'archived' | 'deleted'; revokedAt: string }
>;
export type ExposureScopeDeclared = DomainEvent<
  'ExposureScopeDeclared',
  ExposureDeclaration & { declaredAt: string }
>;
export type SpaceDeleted = DomainEvent<
  'SpaceDeleted',
  { name: string; previousState: 'active' | 'archived'; deletedAt: string; eraseAfter: string }
>;
export type SpaceDeletionCancelled = DomainEvent<
  'SpaceDeletionCancelled',
  { restoredAt: string; state: 'archived' }
>;
export type SpaceErasureStarted = DomainEvent<'SpaceErasureStarted', { startedAt: string }>;
export type ExposureTimezoneChanged = DomainEvent<
  'ExposureTimezoneChanged',
  { from: string; to: string; changedAt: string }
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
  | ShareRevoked
  | ExposureScopeDeclared
  | SpaceDeleted
  | SpaceDeletionCancelled
  | SpaceErasureStarted
  | ExposureTimezoneChanged;

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
  /** Set for an exposure scope: what it declares (absent on older states: read with `?? null`). */
  readonly exposure?: ExposureDeclaration | null;
  /** Deleted and inside its cancellation window (absent on older states). */
  readonly deleted?: {
    readonly deletedAt: string;
    readonly eraseAfter: string;
    readonly erasing: boolean;
  } | null;
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
  exposure: null,
  deleted: null,
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
    if (command.type === 'CreateExposureScope') return createExposureScope(command, state, at);
    if (!state.exists) throw new ServiceError('not_found', 'no such space');
    if (state.deleted) return decideDeleted(command, state, now);
    switch (command.type) {
      case 'DeleteSpace':
        return deleteSpace(command, state, now);
      case 'RestoreDeletedSpace':
        // Only a deleted space can be restored this way; PATCH state=active reactivates an archived one.
        throw new ServiceError('not_found', 'no such deleted space');
      case 'BeginErasure':
        return [];
      case 'ChangeTimezone': {
        if (!state.exposure) throw new ServiceError('not_found', 'no such exposure scope');
        requireActive(state);
        const timezone = checkedTimezone(command.timezone);
        return timezone === state.exposure.timezone
          ? []
          : [
              {
                type: 'ExposureTimezoneChanged',
                data: { from: state.exposure.timezone, to: timezone, changedAt: at },
              },
            ];
      }
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
        // Contract, Limits: credit_limit is ignored under capacity billing.
        if (state.exposure?.billing === 'capacity') return [];
        const creditLimit = checkedLimit(command.creditLimit);
        return creditLimit === state.creditLimit ? [] : [{ type: 'CreditLimitSet', data: { creditLimit } }];
      }
      case 'UpdateSpace':
        return updateSpace(command, state, now);
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
      case 'ExposureScopeDeclared': {
        const { domain, timezone, addresses, billing } = event.data;
        return { ...state, exposure: { domain, timezone, addresses, billing } };
      }
      case 'ExposureTimezoneChanged':
        return state.exposure
          ? { ...state, exposure: { ...state.exposure, timezone: event.data.to } }
          : state;
      case 'SpaceDeleted':
        return {
          ...state,
          deleted: { deletedAt: event.data.deletedAt, eraseAfter: event.data.eraseAfter, erasing: false },
        };
      case 'SpaceDeletionCancelled':
        return { ...state, state: 'archived', deleted: null };
      case 'SpaceErasureStarted':
        return state.deleted ? { ...state, deleted: { ...state.deleted, erasing: true } } : state;
      default:
        return state;
    }
  },
};

function createExposureScope(command: CreateExposureScope, state: SpaceState, at: string): SpaceEvent[] {
  if (state.exists) throw new ServiceError('already_exists', 'the space exists');
  const name = checkedName(command.name);
  const domain = checkedDomain(command.domain);
  const timezone = checkedTimezone(command.timezone);
  const addresses = checkedAddresses(command.addresses);
  if (typeof command.monitoring !== 'boolean') throw invalidField('monitoring', 'must be true or false');
  let creditLimit: number | null;
  if (command.billing === 'capacity') {
    // Ignored under capacity billing (contract, Limits): accepted when well formed, never stored.
    if (
      command.creditLimit !== undefined &&
      command.creditLimit !== null &&
      !Number.isSafeInteger(command.creditLimit)
    ) {
      throw invalidField('credit_limit', 'must be an integer');
    }
    creditLimit = null;
  } else {
    creditLimit = checkedLimit(command.creditLimit);
  }
  const events: SpaceEvent[] = [
    {
      type: 'SpaceCreated',
      data: {
        spaceId: command.spaceId,
        organizationId: command.organizationId,
        kind: 'asset_scope',
        name,
        creditLimit,
        createdAt: at,
      },
    },
    {
      type: 'ExposureScopeDeclared',
      data: { domain, timezone, addresses, billing: command.billing, declaredAt: at },
    },
  ];
  if (command.monitoring) {
    events.push({
      type: 'MonitoringActivated',
      data: { scheduleId: `${command.spaceId}:1`, activatedAt: at },
    });
  }
  return events;
}

function deleteSpace(command: DeleteSpace, state: SpaceState, now: Date): SpaceEvent[] {
  if (state.kind === 'general') throw new ServiceError('forbidden', 'General research cannot be deleted');
  if (command.confirmName !== state.name) {
    throw invalidField('name', 'must repeat the exact current name of the space to confirm the deletion');
  }
  const at = now.toISOString();
  const events: SpaceEvent[] = [
    {
      type: 'SpaceDeleted',
      data: {
        name: state.name,
        previousState: state.state,
        deletedAt: at,
        eraseAfter: new Date(now.getTime() + DELETION_WINDOW_MS).toISOString(),
      },
    },
  ];
  if (state.schedule) {
    events.push({
      type: 'MonitoringStopped',
      data: { scheduleId: state.schedule.scheduleId, reason: 'deleted', stoppedAt: at },
    });
  }
  for (const [shareId, share] of Object.entries(state.shares).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (!share.revoked)
      events.push({ type: 'ShareRevoked', data: { shareId, reason: 'deleted', revokedAt: at } });
  }
  return events;
}

/** A deleted space answers only to restoration (inside the window) and to the sweeper. */
/**
 * Rule 13: one update, one decision. A restore is decided first and an archive last, so the name and limit sent
 * with either apply to an active space; one refused part refuses the whole, and nothing is appended.
 */
function updateSpace(command: UpdateSpace, state: SpaceState, now: Date): SpaceEvent[] {
  if (command.state !== undefined && command.state !== 'active' && command.state !== 'archived') {
    throw invalidField('state', 'must be active or archived');
  }
  const steps: SpaceCommand[] = [];
  if (command.state === 'active') steps.push({ type: 'RestoreSpace' });
  if (command.name !== undefined) steps.push({ type: 'RenameSpace', name: command.name });
  if (command.creditLimit !== undefined) {
    steps.push({ type: 'SetCreditLimit', creditLimit: command.creditLimit });
  }
  if (command.state === 'archived') steps.push({ type: 'ArchiveSpace' });
  return [...allOrNothing(spaceDecider).decide(steps, state, { now })];
}

function decideDeleted(command: SpaceCommand, state: SpaceState, now: Date): SpaceEvent[] {
  const deleted = state.deleted!;
  switch (command.type) {
    case 'RestoreDeletedSpace':
      if (deleted.erasing || now.getTime() >= Date.parse(deleted.eraseAfter)) {
        throw new ServiceError(
          'restore_window_closed',
          'the cancellation window of this deletion has ended',
          {
            erase_after: deleted.eraseAfter,
          },
        );
      }
      // Back to archived; grants, links and scheduled spending are not restored.
      return [{ type: 'SpaceDeletionCancelled', data: { restoredAt: now.toISOString(), state: 'archived' } }];
    case 'BeginErasure':
      if (deleted.erasing) return [];
      if (now.getTime() < Date.parse(deleted.eraseAfter)) {
        throw new ServiceError('forbidden', 'the cancellation window is still open', {
          erase_after: deleted.eraseAfter,
        });
      }
      return [{ type: 'SpaceErasureStarted', data: { startedAt: now.toISOString() } }];
    default:
      // Deletion removes access at once: the space is gone for every other command.
      throw new ServiceError('not_found', 'no such space');
  }
}

/** Rule 2: a session selects an active space only; an archived one is restored first. */
export function requireSelectable(state: SpaceState): void {
  if (state.state !== 'active')
    throw new ServiceError('forbidden', 'the space is archived: restore it first');
}

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
