/**
 * A refresh from stored observations (`exposure-run-<scopeId>-<keyHash>`): one stream per (scope, stable key),
 * created with `no_stream`, so the same key never runs twice. It reads the existing datasets only: never a
 * scan, no asset is contacted. States: queued → running → completed; a failed attempt is retried
 * (retry_scheduled) up to MAX_REFRESH_ATTEMPTS, then failed; queued, running and retried tasks can be
 * cancelled (archiving or deleting the scope). A running task whose lease lapsed is taken over by a new attempt.
 */
import { createHash } from 'node:crypto';
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import type { ServiceEvaluation, ServiceObservation } from './coverage.js';
import type { BillingMode } from './scope-declaration.js';

/** Contract, Limits: "Run key: 16 to 64 characters". */
export const MIN_RUN_KEY_LENGTH = 16;
export const MAX_RUN_KEY_LENGTH = 64;
export const MAX_REFRESH_ATTEMPTS = 3;
/** Delay before a failed attempt becomes eligible again (doubles per attempt). */
export const REFRESH_RETRY_DELAY_MS = 30_000;
/** Legacy credit billing: 1 credit per 1,000 services refreshed, at least 1 and at most this much. */
export const MAX_REFRESH_CHARGE = 5;
/**
 * Keys starting with this prefix belong to the service (the initial refresh, the watch slots of scheduled
 * monitoring): a client key never starts with it, so it can never take, answer for or pre-empt one of them.
 */
export const RESERVED_RUN_KEY_PREFIX = '@';
/** The internal key of the initial refresh a capacity-billed scope starts at creation (not a valid client key). */
export const INITIAL_REFRESH_KEY = `${RESERVED_RUN_KEY_PREFIX}initial-refresh`;

export function runKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

export function refreshRunStreamId(scopeId: string, keyHash: string): string {
  return `exposure-run-${scopeId}-${keyHash}`;
}

/** A stable key of 16 to 64 printable ASCII characters without spaces. */
export function checkedRunKey(raw: unknown): string {
  if (
    typeof raw !== 'string' ||
    raw.length < MIN_RUN_KEY_LENGTH ||
    raw.length > MAX_RUN_KEY_LENGTH ||
    !/^[\x21-\x7e]+$/.test(raw)
  ) {
    throw new ServiceError(
      'invalid_input',
      `key must be ${MIN_RUN_KEY_LENGTH} to ${MAX_RUN_KEY_LENGTH} printable characters without spaces`,
      {
        fields: [
          { field: 'key', problems: [`must be ${MIN_RUN_KEY_LENGTH} to ${MAX_RUN_KEY_LENGTH} characters`] },
        ],
      },
    );
  }
  if (raw.startsWith(RESERVED_RUN_KEY_PREFIX)) {
    throw new ServiceError(
      'invalid_input',
      `key must not start with "${RESERVED_RUN_KEY_PREFIX}": that namespace belongs to the service's own refreshes (initial refresh, scheduled monitoring)`,
      {
        fields: [{ field: 'key', problems: [`must not start with "${RESERVED_RUN_KEY_PREFIX}" (reserved)`] }],
      },
    );
  }
  return raw;
}

export function refreshCharge(services: number): number {
  return Math.min(MAX_REFRESH_CHARGE, Math.max(1, Math.ceil(services / 1000)));
}

/** One service as a refresh records it: the stored observation and its evaluation. */
export interface RefreshedService extends ServiceObservation {
  readonly subjectId: string;
  readonly evaluation: ServiceEvaluation;
}

/** The scope domain's registration (whois): the domain-expiry subject, the one `renewal` applies to. */
export interface RefreshedDomain {
  readonly subjectId: string;
  readonly observationId: string;
  readonly domain: string;
  readonly registrar: string | null;
  readonly expires: string | null;
  readonly firstSeen: string;
  readonly lastSeen: string;
}

export type RefreshStatus = 'queued' | 'running' | 'retry_scheduled' | 'completed' | 'failed' | 'cancelled';

// ---- Commands ----

export interface RequestRefresh {
  readonly type: 'RequestRefresh';
  readonly runId: string;
  readonly scopeId: string;
  readonly organizationId: string;
  readonly trigger: 'creation' | 'manual' | 'watch';
  /** The evaluation input the task covers (declarationKey of the scope). */
  readonly input: string;
  readonly billing: BillingMode;
  readonly reservation: { readonly reservationId: string; readonly amount: number } | null;
}
export interface StartRefreshAttempt {
  readonly type: 'StartRefreshAttempt';
  readonly workerId: string;
  readonly leaseMs: number;
}
export interface RenewRefreshLease {
  readonly type: 'RenewRefreshLease';
  readonly attempt: number;
  readonly leaseMs: number;
}
export interface RecordRefreshedServices {
  readonly type: 'RecordRefreshedServices';
  readonly attempt: number;
  readonly services: readonly RefreshedService[];
  readonly domains: readonly RefreshedDomain[];
}
export interface CompleteRefresh {
  readonly type: 'CompleteRefresh';
  readonly attempt: number;
  readonly services: number;
  readonly excludedSharedEdge: number;
  readonly domains: number;
  readonly partial: boolean;
  readonly observedRange: { readonly first: string | null; readonly last: string | null };
  readonly catalogueVersion: number | null;
}
export interface FailRefreshAttempt {
  readonly type: 'FailRefreshAttempt';
  readonly attempt: number;
  readonly error: string;
}
export interface CancelRefresh {
  readonly type: 'CancelRefresh';
  readonly reason: 'archived' | 'deleted';
}
export type RefreshCommand =
  | RequestRefresh
  | StartRefreshAttempt
  | RenewRefreshLease
  | RecordRefreshedServices
  | CompleteRefresh
  | FailRefreshAttempt
  | CancelRefresh;

// ---- Events ----

export type RefreshRequested = DomainEvent<
  'RefreshRequested',
  {
    runId: string;
    scopeId: string;
    organizationId: string;
    trigger: 'creation' | 'manual' | 'watch';
    input: string;
    billing: BillingMode;
    reservation: { reservationId: string; amount: number } | null;
    requestedAt: string;
  }
>;
export type RefreshStarted = DomainEvent<
  'RefreshStarted',
  {
    runId: string;
    attempt: number;
    workerId: string;
    startedAt: string;
    leaseUntil: string;
    takeover: boolean;
  }
>;
export type RefreshLeaseRenewed = DomainEvent<
  'RefreshLeaseRenewed',
  { runId: string; attempt: number; leaseUntil: string }
>;
export type RefreshServicesRecorded = DomainEvent<
  'RefreshServicesRecorded',
  {
    runId: string;
    scopeId: string;
    attempt: number;
    input: string;
    services: RefreshedService[];
    domains: RefreshedDomain[];
    recordedAt: string;
  }
>;
export type RefreshCompleted = DomainEvent<
  'RefreshCompleted',
  {
    runId: string;
    scopeId: string;
    attempt: number;
    services: number;
    excludedSharedEdge: number;
    domains: number;
    partial: boolean;
    observedRange: { first: string | null; last: string | null };
    catalogueVersion: number | null;
    charge: number;
    completedAt: string;
  }
>;
export type RefreshRetryScheduled = DomainEvent<
  'RefreshRetryScheduled',
  { runId: string; attempt: number; error: string; failedAt: string; availableAt: string }
>;
export type RefreshFailed = DomainEvent<
  'RefreshFailed',
  { runId: string; attempt: number; error: string; failedAt: string }
>;
export type RefreshCancelled = DomainEvent<
  'RefreshCancelled',
  { runId: string; reason: 'archived' | 'deleted'; cancelledAt: string }
>;
export type RefreshEvent =
  | RefreshRequested
  | RefreshStarted
  | RefreshLeaseRenewed
  | RefreshServicesRecorded
  | RefreshCompleted
  | RefreshRetryScheduled
  | RefreshFailed
  | RefreshCancelled;

export interface RefreshState {
  readonly exists: boolean;
  readonly runId: string | null;
  readonly scopeId: string | null;
  readonly status: RefreshStatus;
  readonly input: string | null;
  readonly billing: BillingMode | null;
  readonly reservation: { readonly reservationId: string; readonly amount: number } | null;
  readonly attempt: number;
  readonly workerId: string | null;
  readonly availableAt: string | null;
  readonly leaseUntil: string | null;
  /** Services recorded by the current attempt (the charge counts them). */
  readonly recorded: number;
}

export const initialRefreshState: RefreshState = {
  exists: false,
  runId: null,
  scopeId: null,
  status: 'queued',
  input: null,
  billing: null,
  reservation: null,
  attempt: 0,
  workerId: null,
  availableAt: null,
  leaseUntil: null,
  recorded: 0,
};

export function isFinished(status: RefreshStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

export const refreshDecider: Decider<RefreshCommand, RefreshEvent, RefreshState, { now: Date }> = {
  initialState: initialRefreshState,
  decide(command, state, { now }) {
    const at = now.toISOString();
    if (command.type === 'RequestRefresh') {
      // The same key never runs twice: the stream exists, the earlier run answers.
      if (state.exists) return [];
      return [
        {
          type: 'RefreshRequested',
          data: {
            runId: command.runId,
            scopeId: command.scopeId,
            organizationId: command.organizationId,
            trigger: command.trigger,
            input: command.input,
            billing: command.billing,
            reservation: command.reservation,
            requestedAt: at,
          },
        },
      ];
    }
    if (!state.exists) throw new ServiceError('not_found', 'no such refresh');
    const runId = state.runId!;
    switch (command.type) {
      case 'StartRefreshAttempt': {
        const eligible =
          state.status === 'queued' ||
          (state.status === 'retry_scheduled' && (state.availableAt ?? at) <= at) ||
          (state.status === 'running' && (state.leaseUntil ?? at) <= at);
        if (!eligible) throw new ServiceError('capacity_conflict', 'the refresh is not available to start');
        return [
          {
            type: 'RefreshStarted',
            data: {
              runId,
              attempt: state.attempt + 1,
              workerId: command.workerId,
              startedAt: at,
              leaseUntil: new Date(now.getTime() + command.leaseMs).toISOString(),
              takeover: state.status === 'running',
            },
          },
        ];
      }
      case 'RenewRefreshLease':
        requireAttempt(state, command.attempt);
        return [
          {
            type: 'RefreshLeaseRenewed',
            data: {
              runId,
              attempt: command.attempt,
              leaseUntil: new Date(now.getTime() + command.leaseMs).toISOString(),
            },
          },
        ];
      case 'RecordRefreshedServices':
        requireAttempt(state, command.attempt);
        return [
          {
            type: 'RefreshServicesRecorded',
            data: {
              runId,
              scopeId: state.scopeId!,
              attempt: command.attempt,
              input: state.input!,
              services: [...command.services],
              domains: [...command.domains],
              recordedAt: at,
            },
          },
        ];
      case 'CompleteRefresh':
        requireAttempt(state, command.attempt);
        return [
          {
            type: 'RefreshCompleted',
            data: {
              runId,
              scopeId: state.scopeId!,
              attempt: command.attempt,
              services: command.services,
              excludedSharedEdge: command.excludedSharedEdge,
              domains: command.domains,
              partial: command.partial,
              observedRange: { ...command.observedRange },
              catalogueVersion: command.catalogueVersion,
              charge: state.billing === 'credit' ? refreshCharge(command.services) : 0,
              completedAt: at,
            },
          },
        ];
      case 'FailRefreshAttempt': {
        requireAttempt(state, command.attempt);
        if (state.attempt >= MAX_REFRESH_ATTEMPTS) {
          return [
            {
              type: 'RefreshFailed',
              data: { runId, attempt: state.attempt, error: command.error, failedAt: at },
            },
          ];
        }
        const delay = REFRESH_RETRY_DELAY_MS * 2 ** (state.attempt - 1);
        return [
          {
            type: 'RefreshRetryScheduled',
            data: {
              runId,
              attempt: state.attempt,
              error: command.error,
              failedAt: at,
              availableAt: new Date(now.getTime() + delay).toISOString(),
            },
          },
        ];
      }
      case 'CancelRefresh':
        if (isFinished(state.status)) return [];
        return [{ type: 'RefreshCancelled', data: { runId, reason: command.reason, cancelledAt: at } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'RefreshRequested':
        return {
          ...state,
          exists: true,
          runId: event.data.runId,
          scopeId: event.data.scopeId,
          status: 'queued',
          input: event.data.input,
          billing: event.data.billing,
          reservation: event.data.reservation,
          availableAt: event.data.requestedAt,
        };
      case 'RefreshStarted':
        return {
          ...state,
          status: 'running',
          attempt: event.data.attempt,
          workerId: event.data.workerId,
          leaseUntil: event.data.leaseUntil,
          recorded: 0,
        };
      case 'RefreshLeaseRenewed':
        return { ...state, leaseUntil: event.data.leaseUntil };
      case 'RefreshServicesRecorded':
        return { ...state, recorded: state.recorded + event.data.services.length };
      case 'RefreshCompleted':
        return { ...state, status: 'completed', leaseUntil: null };
      case 'RefreshRetryScheduled':
        return { ...state, status: 'retry_scheduled', availableAt: event.data.availableAt, leaseUntil: null };
      case 'RefreshFailed':
        return { ...state, status: 'failed', leaseUntil: null };
      case 'RefreshCancelled':
        return { ...state, status: 'cancelled', leaseUntil: null };
      default:
        return state;
    }
  },
};

function requireAttempt(state: RefreshState, attempt: number): void {
  if (state.status !== 'running' || state.attempt !== attempt) {
    throw new ServiceError('capacity_conflict', 'this attempt no longer owns the refresh', {
      status: state.status,
      attempt: state.attempt,
    });
  }
}
