/**
 * The scope lifecycle (space decider), the subject decisions and the refresh task, as given/when/then
 * specifications, with fast-check properties for the rules that must hold whatever the sequence.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { displayedResult, processingOf, type LatestRefresh } from '../../../src/exposure/domain/coverage.js';
import { refreshDecider, MAX_REFRESH_ATTEMPTS } from '../../../src/exposure/domain/refresh-run.js';
import { subjectDecider, type RecordDecision } from '../../../src/exposure/domain/subject.js';
import { spaceDecider, type SpaceEvent } from '../../../src/organizations/domain/space.js';
import { deciderSpec } from '../../support/decider-spec.js';

const now = new Date('2026-11-20T10:00:00.000Z');
const scope = deciderSpec(spaceDecider);
const subjects = deciderSpec(subjectDecider);
const refreshes = deciderSpec(refreshDecider);

const created: SpaceEvent[] = spaceDecider.decide(
  {
    type: 'CreateExposureScope',
    spaceId: 's1',
    organizationId: 'o1',
    name: 'Acme',
    domain: 'Example.COM.',
    timezone: 'Europe/Paris',
    addresses: ['192.0.2.1'],
    monitoring: true,
    creditLimit: 3,
    billing: 'capacity',
  },
  spaceDecider.initialState,
  { now },
) as SpaceEvent[];

describe('scope lifecycle (space decider)', () => {
  it('creation declares the scope; capacity billing ignores credit_limit; monitoring only when asked', () => {
    expect(created.map((e) => e.type)).toEqual([
      'SpaceCreated',
      'ExposureScopeDeclared',
      'MonitoringActivated',
    ]);
    expect(created[0]!.data).toMatchObject({ kind: 'asset_scope', creditLimit: null });
    expect(created[1]!.data).toMatchObject({ domain: 'example.com', addresses: ['192.0.2.1'] });
  });

  it('DELETE needs the exact name; it stops monitoring and opens a seven-day window', () => {
    scope.given(created).when({ type: 'DeleteSpace', confirmName: 'acme' }, { now }).then('invalid_input');
    const { events, state } = scope
      .given(created)
      .when({ type: 'DeleteSpace', confirmName: 'Acme' }, { now })
      .decided();
    expect(events.map((e) => e.type)).toEqual(['SpaceDeleted', 'MonitoringStopped']);
    expect(state.deleted?.eraseAfter).toBe('2026-11-27T10:00:00.000Z');
  });

  it('a deleted scope refuses everything but restoration (before erase_after) and erasure (after)', () => {
    const deleted = scope
      .given(created)
      .when({ type: 'DeleteSpace', confirmName: 'Acme' }, { now })
      .decided().events;
    const history = [...created, ...deleted];
    scope.given(history).when({ type: 'RenameSpace', name: 'X' }, { now }).then('not_found');
    scope.given(history).when({ type: 'BeginErasure' }, { now }).then('forbidden');
    const restored = scope.given(history).when({ type: 'RestoreDeletedSpace' }, { now }).decided();
    expect(restored.state).toMatchObject({ state: 'archived', deleted: null, schedule: null });
    const late = new Date('2026-11-27T10:00:00.000Z');
    scope.given(history).when({ type: 'RestoreDeletedSpace' }, { now: late }).then('restore_window_closed');
    const erasing = scope.given(history).when({ type: 'BeginErasure' }, { now: late }).decided();
    expect(erasing.events.map((e) => e.type)).toEqual(['SpaceErasureStarted']);
    scope
      .given([...history, ...erasing.events])
      .when({ type: 'RestoreDeletedSpace' }, { now })
      .then('restore_window_closed');
  });

  it('property: whatever the commands, a deleted scope never becomes active except through restoration', () => {
    const command = fc.constantFrom(
      { type: 'ArchiveSpace' } as const,
      { type: 'RestoreSpace' } as const,
      { type: 'DeleteSpace', confirmName: 'Acme' } as const,
      { type: 'RestoreDeletedSpace' } as const,
      { type: 'SetMonitoring', enabled: true } as const,
      { type: 'RenameSpace', name: 'Acme' } as const,
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 12 }), (commands) => {
        let state = created.reduce(spaceDecider.evolve, spaceDecider.initialState);
        for (const next of commands) {
          const wasDeleted = Boolean(state.deleted);
          let events: readonly SpaceEvent[];
          try {
            events = spaceDecider.decide(next, state, { now });
          } catch {
            continue;
          }
          state = events.reduce(spaceDecider.evolve, state);
          if (wasDeleted) {
            expect(events.every((e) => e.type === 'SpaceDeletionCancelled')).toBe(true);
            if (events.length > 0) expect(state.state).toBe('archived');
          }
        }
      }),
    );
  });
});

const decision = (fields: Partial<RecordDecision>): RecordDecision => ({
  type: 'RecordDecision',
  scopeId: 's1',
  subjectId: 'svc-1',
  subjectKind: 'service',
  timezone: 'UTC',
  observedLastSeen: '2026-11-01T00:00:00.000Z',
  decision: 'acknowledged',
  conclusion: 'kept',
  accordingTo: null,
  note: null,
  announcedDate: null,
  renewal: null,
  ...fields,
});

describe('subject decisions', () => {
  it('a later observation reopens a decided subject; the same or an older one does not', () => {
    const decided = subjects.given([]).when(decision({}), { now }).decided().events;
    subjects
      .given(decided)
      .when({ type: 'ReopenSubject', observedLastSeen: '2026-11-01T00:00:00.000Z' }, { now })
      .then([]);
    const reopened = subjects
      .given(decided)
      .when({ type: 'ReopenSubject', observedLastSeen: '2026-11-02T00:00:00.000Z' }, { now })
      .decided();
    expect(reopened.state.decision).toBe('new');
  });

  it('property: closed and updated need according_to; not_concerned and other need a note', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('kept', 'closed', 'updated', 'not_concerned', 'other'),
        fc.option(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0)),
        fc.option(fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0)),
        (conclusion, accordingTo, note) => {
          let accepted = true;
          try {
            subjectDecider.decide(decision({ conclusion, accordingTo, note }), subjectDecider.initialState, {
              now,
            });
          } catch {
            accepted = false;
          }
          const needsSource = conclusion === 'closed' || conclusion === 'updated';
          const needsNote = conclusion === 'not_concerned' || conclusion === 'other';
          expect(accepted).toBe((!needsSource || accordingTo !== null) && (!needsNote || note !== null));
        },
      ),
    );
  });
});

describe('refresh task', () => {
  const requested = refreshDecider.decide(
    {
      type: 'RequestRefresh',
      runId: 'r1',
      scopeId: 's1',
      organizationId: 'o1',
      trigger: 'manual',
      input: 'i',
      billing: 'capacity',
      reservation: null,
    },
    refreshDecider.initialState,
    { now },
  );

  it('the same key never runs twice: a second request decides nothing', () => {
    refreshes
      .given(requested)
      .when(
        {
          type: 'RequestRefresh',
          runId: 'r1',
          scopeId: 's1',
          organizationId: 'o1',
          trigger: 'manual',
          input: 'i',
          billing: 'capacity',
          reservation: null,
        },
        { now },
      )
      .then([]);
  });

  it(`a failed attempt is retried, and after ${MAX_REFRESH_ATTEMPTS} attempts it fails for good`, () => {
    let history = [...requested];
    let clock = now;
    for (let attempt = 1; attempt <= MAX_REFRESH_ATTEMPTS; attempt++) {
      history = [
        ...history,
        ...refreshes
          .given(history)
          .when({ type: 'StartRefreshAttempt', workerId: 'w', leaseMs: 1000 }, { now: clock })
          .decided().events,
      ];
      const failed = refreshes
        .given(history)
        .when({ type: 'FailRefreshAttempt', attempt, error: 'boom' }, { now: clock })
        .decided();
      history = [...history, ...failed.events];
      expect(failed.state.status).toBe(attempt === MAX_REFRESH_ATTEMPTS ? 'failed' : 'retry_scheduled');
      clock = new Date(clock.getTime() + 10 * 60 * 1000);
    }
  });

  it('a negative reads indeterminate after a failed refresh; a positive is retained with its own result_at', () => {
    const failed: LatestRefresh = {
      runId: 'r2',
      status: 'failed',
      input: 'i',
      attempt: 3,
      requestedAt: '2026-11-20T09:00:00.000Z',
      availableAt: null,
      startedAt: '2026-11-20T09:00:00.000Z',
      leaseUntil: null,
      finishedAt: '2026-11-20T09:05:00.000Z',
      lastAttemptAt: '2026-11-20T09:05:00.000Z',
      error: 'boom',
    };
    const recorded = {
      resultAt: '2026-11-19T00:00:00.000Z',
      runId: 'r1',
      input: 'i',
      evaluatedAt: '2026-11-19T00:00:00.000Z',
    };
    expect(displayedResult({ ...recorded, result: 'no_match' }, failed)).toMatchObject({
      result_state: 'indeterminate',
      retained_result: false,
    });
    expect(displayedResult({ ...recorded, result: 'kev' }, failed)).toMatchObject({
      result_state: 'kev',
      retained_result: true,
      result_at: recorded.resultAt,
    });
    expect(
      processingOf({ ...recorded, result: 'kev', input: 'other' }, failed, { archived: false }, now).state,
    ).toBe('unknown');
    expect(processingOf({ ...recorded, result: 'kev' }, failed, { archived: true }, now).state).toBe(
      'paused',
    );
  });
});
