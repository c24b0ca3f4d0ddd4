import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  comparisonBase,
  isNotable,
  MAX_WATCH_LISTED,
  watchDecider,
  watchRunKey,
  watchStreamId,
  type RecordWatchRun,
  type WatchedService,
  type WatchEvent,
  type WatchFindings,
  type WatchState,
} from '../../../src/exposure/domain/watch.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(watchDecider);

const now = new Date('2026-03-10T12:00:00.000Z');
const SCOPE = 'scope-1';
const SCHEDULE = 'schedule-1';
const FINISHED = '2026-03-10T11:58:00.000Z';

const service = (n: number, result = 'matched'): WatchedService => ({
  subjectId: `svc-${String(n).padStart(4, '0')}`,
  host: `192.0.2.${n % 250}`,
  port: 443,
  product: 'nginx',
  result,
});
const noFindings: WatchFindings = {
  newServices: 0,
  newServicesListed: [],
  newKev: 0,
  newKevListed: [],
  notObserved: 0,
};

const record = (runId: string, overrides: Partial<RecordWatchRun> = {}): RecordWatchRun => ({
  type: 'RecordWatchRun',
  scopeId: SCOPE,
  scheduleId: SCHEDULE,
  runId,
  status: 'completed',
  partial: false,
  services: 10,
  finishedAt: FINISHED,
  findings: null,
  ...overrides,
});
const requested = (runId: string, slot = 0, scheduleId = SCHEDULE): WatchEvent => ({
  type: 'WatchRunRequested',
  data: { scopeId: SCOPE, scheduleId, slot, runId, requestedAt: now.toISOString() },
});
const baseline = (runId: string, services = 10, scheduleId = SCHEDULE): WatchEvent => ({
  type: 'WatchBaselineEstablished',
  data: { scopeId: SCOPE, scheduleId, runId, services, finishedAt: FINISHED },
});
const compared = (
  runId: string,
  comparedWith: string,
  findings: WatchFindings = noFindings,
  extra: { partial?: boolean; services?: number } = {},
): WatchEvent => ({
  type: 'WatchRunCompared',
  data: {
    scopeId: SCOPE,
    scheduleId: SCHEDULE,
    runId,
    comparedWith,
    services: extra.services ?? 10,
    partial: extra.partial ?? false,
    finishedAt: FINISHED,
    ...findings,
  },
});
const inconclusive = (
  runId: string,
  reason: 'failed' | 'cancelled' | 'partial_before_baseline',
): WatchEvent => ({
  type: 'WatchRunInconclusive',
  data: { scopeId: SCOPE, scheduleId: SCHEDULE, runId, reason, finishedAt: FINISHED },
});

describe('watch decider (rule 10: monitoring, baseline, comparisons)', () => {
  it('one watch stream per scope and one stable run key per schedule slot', () => {
    expect(watchStreamId(SCOPE)).toBe('exposure-watch-scope-1');
    expect(watchRunKey(SCHEDULE, 3)).toBe('@watch:schedule-1:3');
    expect(watchRunKey(SCHEDULE, 3)).not.toBe(watchRunKey(SCHEDULE, 4));
  });

  describe('watch run requests', () => {
    it('the scheduler notes the run it requested for a slot, once', () => {
      const { state } = given([])
        .when(
          { type: 'NoteWatchRequested', scopeId: SCOPE, scheduleId: SCHEDULE, slot: 0, runId: 'r0' },
          { now },
        )
        .then([requested('r0')]);
      expect(state.requested).toEqual({ r0: SCHEDULE });
      given([requested('r0')])
        .when(
          { type: 'NoteWatchRequested', scopeId: SCOPE, scheduleId: SCHEDULE, slot: 0, runId: 'r0' },
          { now },
        )
        .then([]);
    });

    it('a run already recorded is not requested again', () => {
      given([requested('r0'), baseline('r0')])
        .when(
          { type: 'NoteWatchRequested', scopeId: SCOPE, scheduleId: SCHEDULE, slot: 0, runId: 'r0' },
          { now },
        )
        .then([]);
    });
  });

  describe('the first successful watch run establishes a baseline', () => {
    it('a completed, complete run with no baseline becomes the baseline (and compares nothing)', () => {
      const { state } = given([requested('r0')])
        .when(record('r0', { services: 12 }), { now })
        .then([baseline('r0', 12)]);
      expect(state.schedules[SCHEDULE]).toEqual({ baselineRunId: 'r0', lastComparedRunId: 'r0' });
      expect(state.requested).toEqual({});
      expect(comparisonBase(state, SCHEDULE)).toBe('r0');
    });

    it('findings handed in before a baseline are ignored: the baseline is not a comparison', () => {
      const findings = {
        ...noFindings,
        newServices: 3,
        newServicesListed: [service(1), service(2), service(3)],
      };
      given([])
        .when(record('r0', { findings }), { now })
        .then([baseline('r0')]);
    });

    it('missing data or partial collection establishes nothing: a partial run before the baseline is inconclusive', () => {
      const { state } = given([requested('r0')])
        .when(record('r0', { partial: true }), { now })
        .then([inconclusive('r0', 'partial_before_baseline')]);
      expect(comparisonBase(state, SCHEDULE)).toBeNull();
    });

    it('a failed or cancelled run establishes nothing', () => {
      for (const status of ['failed', 'cancelled'] as const) {
        const { state } = given([])
          .when(record('r0', { status }), { now })
          .then([inconclusive('r0', status)]);
        expect(comparisonBase(state, SCHEDULE)).toBeNull();
      }
    });

    it('after inconclusive runs, the first complete run is the baseline', () => {
      given([inconclusive('r0', 'partial_before_baseline'), inconclusive('r1', 'failed')])
        .when(record('r2'), { now })
        .then([baseline('r2')]);
    });

    it('a new schedule (monitoring stopped, then activated again) establishes its own baseline', () => {
      given([baseline('r0')])
        .when(record('n0', { scheduleId: 'schedule-2' }), { now })
        .then([baseline('n0', 10, 'schedule-2')]);
    });
  });

  describe('later runs are compared with the previous compared run', () => {
    it('a complete run is compared with the baseline and reports newly observed services and new KEV associations', () => {
      const findings: WatchFindings = {
        newServices: 2,
        newServicesListed: [service(1), service(2, 'kev')],
        newKev: 1,
        newKevListed: [service(2, 'kev')],
        notObserved: 0,
      };
      const { state } = given([requested('r0'), baseline('r0'), requested('r1', 1)])
        .when(record('r1', { findings, services: 12 }), { now })
        .then([compared('r1', 'r0', findings, { services: 12 })]);
      expect(state.schedules[SCHEDULE]).toEqual({ baselineRunId: 'r0', lastComparedRunId: 'r1' });
      expect(state.requested).toEqual({});
    });

    it('the next run is compared with the last complete compared run', () => {
      given([baseline('r0'), compared('r1', 'r0')])
        .when(record('r2'), { now })
        .then([compared('r2', 'r1')]);
    });

    it('a partial run reports what it saw but does not become the next comparison base', () => {
      const findings = { ...noFindings, newServices: 1, newServicesListed: [service(7)], notObserved: 5 };
      const { state } = given([baseline('r0')])
        .when(record('r1', { partial: true, findings }), { now })
        .then([compared('r1', 'r0', findings, { partial: true })]);
      expect(comparisonBase(state, SCHEDULE)).toBe('r0');
      given([baseline('r0'), compared('r1', 'r0', findings, { partial: true })])
        .when(record('r2'), { now })
        .then([compared('r2', 'r0')]);
    });

    it('a failed or cancelled run after the baseline compares nothing and moves nothing', () => {
      for (const status of ['failed', 'cancelled'] as const) {
        const { state } = given([baseline('r0'), compared('r1', 'r0')])
          .when(record('r2', { status, findings: { ...noFindings, notObserved: 10 } }), { now })
          .then([inconclusive('r2', status)]);
        expect(comparisonBase(state, SCHEDULE)).toBe('r1');
      }
    });

    it('a comparison handed no findings claims nothing: zero new services, zero new KEV, zero not observed', () => {
      given([baseline('r0')])
        .when(record('r1', { findings: null }), { now })
        .then([compared('r1', 'r0')]);
    });

    it('at most 50 services are listed by name; the counts stay whole', () => {
      const many = Array.from({ length: 80 }, (_, i) => service(i, 'kev'));
      const findings: WatchFindings = {
        newServices: 80,
        newServicesListed: many,
        newKev: 80,
        newKevListed: many,
        notObserved: 0,
      };
      const { events } = given([baseline('r0')])
        .when(record('r1', { findings }), { now })
        .decided();
      const data = (events[0] as Extract<WatchEvent, { type: 'WatchRunCompared' }>).data;
      expect(data.newServices).toBe(80);
      expect(data.newKev).toBe(80);
      expect(data.newServicesListed).toEqual(many.slice(0, MAX_WATCH_LISTED));
      expect(data.newKevListed).toEqual(many.slice(0, MAX_WATCH_LISTED));
    });

    it('recording the same run twice records nothing more', () => {
      given([baseline('r0'), compared('r1', 'r0')])
        .when(record('r1'), { now })
        .then([]);
      given([baseline('r0')])
        .when(record('r0'), { now })
        .then([]);
      given([inconclusive('r0', 'failed')])
        .when(record('r0'), { now })
        .then([]);
    });
  });

  describe('missing data never proves that a service disappeared', () => {
    it('services missing from a run are only counted as not observed in this run', () => {
      const findings = { ...noFindings, notObserved: 9 };
      const { events } = given([baseline('r0')])
        .when(record('r1', { findings, services: 1 }), { now })
        .then([compared('r1', 'r0', findings, { services: 1 })]);
      expect(Object.keys(events[0]!.data).sort()).toEqual(
        [
          'comparedWith',
          'finishedAt',
          'newKev',
          'newKevListed',
          'newServices',
          'newServicesListed',
          'notObserved',
          'partial',
          'runId',
          'scheduleId',
          'scopeId',
          'services',
        ].sort(),
      );
    });

    it('only newly observed services or new KEV associations are notable; not-observed counts never are', () => {
      const data = (findings: WatchFindings) =>
        (compared('r1', 'r0', findings) as Extract<WatchEvent, { type: 'WatchRunCompared' }>).data;
      expect(isNotable(data({ ...noFindings, notObserved: 40 }))).toBe(false);
      expect(isNotable(data(noFindings))).toBe(false);
      expect(isNotable(data({ ...noFindings, newServices: 1, newServicesListed: [service(1)] }))).toBe(true);
      expect(isNotable(data({ ...noFindings, newKev: 1, newKevListed: [service(1, 'kev')] }))).toBe(true);
    });
  });

  describe('properties', () => {
    const SCHEDULES = ['schedule-1', 'schedule-2'];
    const arbitraryFindings = fc.option(
      fc.record({
        newServices: fc.nat({ max: 120 }),
        newServicesListed: fc.array(
          fc.nat({ max: 300 }).map((n) => service(n)),
          { maxLength: 60 },
        ),
        newKev: fc.nat({ max: 120 }),
        newKevListed: fc.array(
          fc.nat({ max: 300 }).map((n) => service(n, 'kev')),
          { maxLength: 60 },
        ),
        notObserved: fc.nat({ max: 500 }),
      }),
    );
    const step = fc.record({
      run: fc.nat({ max: 25 }),
      schedule: fc.constantFrom(...SCHEDULES),
      status: fc.constantFrom('completed', 'completed', 'completed', 'failed', 'cancelled') as fc.Arbitrary<
        RecordWatchRun['status']
      >,
      partial: fc.boolean(),
      note: fc.boolean(),
      findings: arbitraryFindings,
    });

    it('a baseline only ever comes from a complete run, comparisons only follow a baseline and are made with a complete run, and no event ever says a service is gone', () => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
          let state: WatchState = watchDecider.initialState;
          const complete = new Map<string, string>(); // run → schedule, of runs completed and not partial
          const baselines = new Map<string, string>();
          const recorded = new Set<string>();
          for (const s of steps) {
            const runId = `r${s.run}`;
            const command = s.note
              ? ({
                  type: 'NoteWatchRequested',
                  scopeId: SCOPE,
                  scheduleId: s.schedule,
                  slot: s.run,
                  runId,
                } as const)
              : record(runId, {
                  scheduleId: s.schedule,
                  status: s.status,
                  partial: s.partial,
                  findings: s.findings,
                });
            const events = watchDecider.decide(command, state, { now });
            if (command.type === 'RecordWatchRun' && recorded.has(runId)) expect(events).toEqual([]);
            for (const event of events) {
              const text = JSON.stringify(event).toLowerCase();
              expect(text).not.toMatch(/disappear|absent|gone|removed|vanish/);
              switch (event.type) {
                case 'WatchBaselineEstablished':
                  expect(command).toMatchObject({ status: 'completed', partial: false });
                  expect(baselines.has(event.data.scheduleId)).toBe(false);
                  baselines.set(event.data.scheduleId, event.data.runId);
                  break;
                case 'WatchRunCompared':
                  expect(baselines.has(event.data.scheduleId)).toBe(true);
                  expect(command).toMatchObject({ status: 'completed' });
                  expect(complete.get(event.data.comparedWith)).toBe(event.data.scheduleId);
                  expect(event.data.newServicesListed.length).toBeLessThanOrEqual(MAX_WATCH_LISTED);
                  expect(event.data.newKevListed.length).toBeLessThanOrEqual(MAX_WATCH_LISTED);
                  break;
                case 'WatchRunInconclusive':
                  expect(
                    command.type === 'RecordWatchRun' && (command.status !== 'completed' || command.partial),
                  ).toBe(true);
                  break;
                case 'WatchRunRequested':
                  expect(command.type).toBe('NoteWatchRequested');
                  break;
              }
              if (event.type !== 'WatchRunRequested') recorded.add(event.data.runId);
              state = watchDecider.evolve(state, event);
            }
            if (
              command.type === 'RecordWatchRun' &&
              command.status === 'completed' &&
              !command.partial &&
              events.length
            ) {
              complete.set(runId, command.scheduleId);
            }
          }
          // The baseline of a schedule never moves once established.
          for (const [scheduleId, runId] of baselines)
            expect(state.schedules[scheduleId]?.baselineRunId).toBe(runId);
        }),
      );
    });
  });
});
