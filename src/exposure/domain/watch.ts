/**
 * Observation watches of a monitored scope (`exposure-watch-<scopeId>`), contract rule 10 and Reports, monitoring:
 * monitoring collects only after explicit activation; a watch run is a refresh from stored observations
 * (trigger `watch`) the scheduler requests once per WATCH_INTERVAL_MS while the schedule runs; the first
 * successful (completed, not partial) watch run of a schedule establishes its baseline; later ones are compared
 * with the previous compared run. What a comparison says: services newly observed and new KEV associations.
 * What it never says: that a service disappeared. A service missing from a run is counted as "not observed in
 * this run", never as absent; a partial or failed run establishes nothing and compares nothing.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { RESERVED_RUN_KEY_PREFIX } from './refresh-run.js';

/** One watch run per day while monitoring runs (the first one at activation). */
export const WATCH_INTERVAL_MS = 24 * 60 * 60 * 1000;
/** Services listed by name in a comparison (the counts are always whole). */
export const MAX_WATCH_LISTED = 50;

export function watchStreamId(scopeId: string): string {
  return `exposure-watch-${scopeId}`;
}

/** The stable run key of slot `slot` of schedule `scheduleId` (the same key never runs twice). */
export function watchRunKey(scheduleId: string, slot: number): string {
  return `${RESERVED_RUN_KEY_PREFIX}watch:${scheduleId}:${slot}`;
}

export interface WatchedService {
  readonly subjectId: string;
  readonly host: string;
  readonly port: number | null;
  readonly product: string | null;
  readonly result: string;
}

export interface WatchFindings {
  readonly newServices: number;
  readonly newServicesListed: readonly WatchedService[];
  readonly newKev: number;
  readonly newKevListed: readonly WatchedService[];
  /** Seen in the previous compared run, not in this one: never evidence of disappearance. */
  readonly notObserved: number;
}

export interface RecordWatchRun {
  readonly type: 'RecordWatchRun';
  readonly scopeId: string;
  readonly scheduleId: string;
  readonly runId: string;
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly partial: boolean;
  readonly services: number;
  readonly finishedAt: string;
  /** Null when there is nothing to compare with (no baseline yet). */
  readonly findings: WatchFindings | null;
}
/** The scheduler asked for the watch run of this slot (recorded so the run is known to belong to the schedule). */
export interface NoteWatchRequested {
  readonly type: 'NoteWatchRequested';
  readonly scopeId: string;
  readonly scheduleId: string;
  readonly slot: number;
  readonly runId: string;
}
export type WatchCommand = RecordWatchRun | NoteWatchRequested;

export type WatchRunRequested = DomainEvent<
  'WatchRunRequested',
  { scopeId: string; scheduleId: string; slot: number; runId: string; requestedAt: string }
>;
export type WatchBaselineEstablished = DomainEvent<
  'WatchBaselineEstablished',
  { scopeId: string; scheduleId: string; runId: string; services: number; finishedAt: string }
>;
export type WatchRunCompared = DomainEvent<
  'WatchRunCompared',
  {
    scopeId: string;
    scheduleId: string;
    runId: string;
    comparedWith: string;
    services: number;
    partial: boolean;
    finishedAt: string;
  } & WatchFindings
>;
export type WatchRunInconclusive = DomainEvent<
  'WatchRunInconclusive',
  {
    scopeId: string;
    scheduleId: string;
    runId: string;
    reason: 'failed' | 'cancelled' | 'partial_before_baseline';
    finishedAt: string;
  }
>;
export type WatchEvent =
  WatchRunRequested | WatchBaselineEstablished | WatchRunCompared | WatchRunInconclusive;

export interface WatchState {
  /** Per schedule: its baseline run and the run the next comparison is made with. */
  readonly schedules: Readonly<
    Record<string, { readonly baselineRunId: string | null; readonly lastComparedRunId: string | null }>
  >;
  readonly recordedRuns: readonly string[];
  /** Watch runs requested and not recorded yet: run id → schedule id. */
  readonly requested: Readonly<Record<string, string>>;
}

export const initialWatchState: WatchState = { schedules: {}, recordedRuns: [], requested: {} };

export function comparisonBase(state: WatchState, scheduleId: string): string | null {
  const schedule = Object.hasOwn(state.schedules, scheduleId) ? state.schedules[scheduleId] : undefined;
  return schedule?.lastComparedRunId ?? null;
}

export const watchDecider: Decider<WatchCommand, WatchEvent, WatchState, { now: Date }> = {
  initialState: initialWatchState,
  decide(command, state, { now }) {
    if (state.recordedRuns.includes(command.runId)) return [];
    if (command.type === 'NoteWatchRequested') {
      if (Object.hasOwn(state.requested, command.runId)) return [];
      return [
        {
          type: 'WatchRunRequested',
          data: {
            scopeId: command.scopeId,
            scheduleId: command.scheduleId,
            slot: command.slot,
            runId: command.runId,
            requestedAt: now.toISOString(),
          },
        },
      ];
    }
    const base = { scopeId: command.scopeId, scheduleId: command.scheduleId, runId: command.runId };
    if (command.status !== 'completed') {
      return [
        {
          type: 'WatchRunInconclusive',
          data: { ...base, reason: command.status, finishedAt: command.finishedAt },
        },
      ];
    }
    const comparedWith = comparisonBase(state, command.scheduleId);
    if (comparedWith === null) {
      // Missing or partial data establishes nothing: only a complete run becomes the baseline.
      if (command.partial) {
        return [
          {
            type: 'WatchRunInconclusive',
            data: { ...base, reason: 'partial_before_baseline', finishedAt: command.finishedAt },
          },
        ];
      }
      return [
        {
          type: 'WatchBaselineEstablished',
          data: { ...base, services: command.services, finishedAt: command.finishedAt },
        },
      ];
    }
    const findings = command.findings ?? {
      newServices: 0,
      newServicesListed: [],
      newKev: 0,
      newKevListed: [],
      notObserved: 0,
    };
    return [
      {
        type: 'WatchRunCompared',
        data: {
          ...base,
          comparedWith,
          services: command.services,
          partial: command.partial,
          finishedAt: command.finishedAt,
          newServices: findings.newServices,
          newServicesListed: findings.newServicesListed.slice(0, MAX_WATCH_LISTED),
          newKev: findings.newKev,
          newKevListed: findings.newKevListed.slice(0, MAX_WATCH_LISTED),
          notObserved: findings.notObserved,
        },
      },
    ];
  },
  evolve(state, event) {
    if (event.type === 'WatchRunRequested') {
      return { ...state, requested: { ...state.requested, [event.data.runId]: event.data.scheduleId } };
    }
    const recordedRuns = [...state.recordedRuns, event.data.runId].slice(-500);
    const { [event.data.runId]: _done, ...requested } = state.requested;
    switch (event.type) {
      case 'WatchBaselineEstablished':
        return {
          requested,
          recordedRuns,
          schedules: {
            ...state.schedules,
            [event.data.scheduleId]: { baselineRunId: event.data.runId, lastComparedRunId: event.data.runId },
          },
        };
      case 'WatchRunCompared': {
        const schedule = state.schedules[event.data.scheduleId];
        // A partial run reports what it saw, but the next run is still compared with the last complete one.
        return {
          requested,
          recordedRuns,
          schedules: {
            ...state.schedules,
            [event.data.scheduleId]: {
              baselineRunId: schedule?.baselineRunId ?? null,
              lastComparedRunId: event.data.partial
                ? (schedule?.lastComparedRunId ?? null)
                : event.data.runId,
            },
          },
        };
      }
      case 'WatchRunInconclusive':
        return { ...state, requested, recordedRuns };
      default:
        return state;
    }
  },
};

/** Worth an email: a compared run that observed new services or new KEV associations. */
export function isNotable(event: WatchRunCompared['data']): boolean {
  return event.newServices > 0 || event.newKev > 0;
}
