import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  isReportId,
  MAX_REPORT_BYTES,
  MAX_REPORT_HISTORY,
  MAX_REPORTS_PER_SCOPE,
  reportDecider,
  reportIdFor,
  reportStreamId,
  type FreezeReport,
  type ReportEvent,
  type ReportState,
} from '../../../src/exposure/domain/report.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(reportDecider);

const now = new Date('2026-03-10T12:00:00.000Z');
const SCOPE = 'scope-1';
const SHA = 'a'.repeat(64);

const freeze = (sequence = 1, overrides: Partial<FreezeReport> = {}): FreezeReport => ({
  type: 'FreezeReport',
  reportId: reportIdFor(SCOPE, sequence),
  scopeId: SCOPE,
  organizationId: 'org-1',
  sequence,
  authorId: 'owner-1',
  scopeName: 'Acme perimeter',
  timezone: 'Europe/Paris',
  referenceTime: '2026-03-10T11:59:59.000Z',
  referencePosition: '42',
  blob: { key: `report-${reportIdFor(SCOPE, sequence)}-aaaa`, sha256: SHA, bytes: 2_048, storedBytes: 512 },
  contents: {
    observations: 12,
    kev: 1,
    matched: 3,
    historyEntries: 40,
    historyTotal: 40,
    historyPartial: false,
    partial: false,
  },
  ...overrides,
});

const frozen = (command: FreezeReport): ReportEvent => ({
  type: 'ReportFrozen',
  data: {
    reportId: command.reportId,
    scopeId: command.scopeId,
    organizationId: command.organizationId,
    sequence: command.sequence,
    authorId: command.authorId,
    scopeName: command.scopeName,
    timezone: command.timezone,
    referenceTime: command.referenceTime,
    referencePosition: command.referencePosition,
    blob: command.blob,
    contents: command.contents,
    frozenAt: now.toISOString(),
  },
});

describe('frozen report decider', () => {
  it('report ids are UUID-shaped, stable per (scope, slot) and distinct across slots and scopes', () => {
    const id = reportIdFor(SCOPE, 1);
    expect(isReportId(id)).toBe(true);
    expect(reportIdFor(SCOPE, 1)).toBe(id);
    expect(reportIdFor(SCOPE, 2)).not.toBe(id);
    expect(reportIdFor('scope-2', 1)).not.toBe(id);
    expect(reportStreamId(id)).toBe(`report-${id}`);
    expect(isReportId('not-a-report')).toBe(false);
    expect(isReportId(42)).toBe(false);
  });

  it('a saved document holds the author, scope name, timezone, reference time and its SHA-256-checked blob', () => {
    const { state } = given([])
      .when(freeze(1), { now })
      .then([frozen(freeze(1))]);
    expect(state).toEqual({
      exists: true,
      reportId: reportIdFor(SCOPE, 1),
      scopeId: SCOPE,
      blob: freeze(1).blob,
    });
  });

  it('a frozen report is immutable: its slot cannot be frozen again', () => {
    given([frozen(freeze(1))])
      .when(freeze(1, { authorId: 'admin-1' }), { now })
      .then('already_exists');
  });

  describe('Limits: 100 frozen per scope', () => {
    it('report 100 is the last one a scope keeps', () => {
      given([])
        .when(freeze(MAX_REPORTS_PER_SCOPE), { now })
        .then([frozen(freeze(MAX_REPORTS_PER_SCOPE))]);
    });

    it('a 101st report is refused with report_limit_reached and its limit', () => {
      const error = given([]).when(freeze(101), { now }).then('report_limit_reached');
      expect(error.details).toMatchObject({ limit: 100 });
    });

    it('a slot that is not a whole number from 1 to 100 is no slot', () => {
      for (const sequence of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        given([]).when(freeze(1, { sequence }), { now }).then('report_limit_reached');
      }
    });
  });

  describe('Limits: 16 MiB per document', () => {
    it('a document of exactly 16 MiB is kept', () => {
      const command = freeze(1, { blob: { ...freeze(1).blob, bytes: MAX_REPORT_BYTES } });
      given([])
        .when(command, { now })
        .then([frozen(command)]);
    });

    it('a document over 16 MiB is refused with report_too_large: nothing was saved', () => {
      const error = given([])
        .when(freeze(1, { blob: { ...freeze(1).blob, bytes: MAX_REPORT_BYTES + 1 } }), { now })
        .then('report_too_large');
      expect(error.details).toMatchObject({
        limit_bytes: 16 * 1024 * 1024,
        at_least_bytes: MAX_REPORT_BYTES + 1,
      });
    });
  });

  describe('Limits: at most 500 history entries', () => {
    it('500 entries of a longer history are kept, marked history_partial', () => {
      const command = freeze(1, {
        contents: {
          ...freeze(1).contents,
          historyEntries: MAX_REPORT_HISTORY,
          historyTotal: 1_234,
          historyPartial: true,
        },
      });
      given([])
        .when(command, { now })
        .then([frozen(command)]);
    });

    it('a report holding more than 500 history entries is refused', () => {
      given([])
        .when(freeze(1, { contents: { ...freeze(1).contents, historyEntries: 501, historyTotal: 501 } }), {
          now,
        })
        .then('invalid_input');
    });
  });

  it('the content hash must be a SHA-256 digest (what GET verifies before answering)', () => {
    for (const sha256 of ['', 'abc', 'A'.repeat(64), 'g'.repeat(64), 'a'.repeat(63)]) {
      given([])
        .when(freeze(1, { blob: { ...freeze(1).blob, sha256 } }), { now })
        .then('invalid_input');
    }
  });

  it("the report id must be its scope's slot id, so no stream outside the 100 slots ever holds a report", () => {
    given([])
      .when(freeze(3, { reportId: reportIdFor(SCOPE, 4) }), { now })
      .then('invalid_input');
    given([])
      .when(freeze(1, { reportId: reportIdFor('scope-2', 1) }), { now })
      .then('invalid_input');
  });

  it('property: the number of reports of a scope never exceeds 100, whatever freezes are attempted', () => {
    const attempt = fc.record({
      sequence: fc.integer({ min: -5, max: 130 }),
      // Callers may name any report id: a slot's own, another slot's, another scope's or none of them.
      id: fc.oneof(
        fc.constant({ kind: 'own' as const }),
        fc.record({ kind: fc.constant('slot' as const), slot: fc.integer({ min: 1, max: 200 }) }),
        fc.record({ kind: fc.constant('uuid' as const), value: fc.uuid() }),
      ),
    });
    fc.assert(
      fc.property(fc.array(attempt, { minLength: 150, maxLength: 300 }), (attempts) => {
        const streams = new Map<string, ReportState>();
        for (const { sequence, id } of attempts) {
          const reportId =
            id.kind === 'own'
              ? reportIdFor(SCOPE, sequence)
              : id.kind === 'slot'
                ? reportIdFor(SCOPE, id.slot)
                : id.value;
          const streamId = reportStreamId(reportId);
          const state = streams.get(streamId) ?? reportDecider.initialState;
          let events: readonly ReportEvent[];
          try {
            events = reportDecider.decide(freeze(1, { sequence, reportId }), state, { now });
          } catch {
            continue;
          }
          streams.set(
            streamId,
            events.reduce((s, e) => reportDecider.evolve(s, e), state),
          );
        }
        const kept = [...streams.values()].filter((s) => s.exists && s.scopeId === SCOPE);
        expect(kept.length).toBeLessThanOrEqual(MAX_REPORTS_PER_SCOPE);
      }),
      // Shrinking hundreds of attempts adds nothing to the counterexample but minutes to the run.
      { numRuns: 60, endOnFailure: true },
    );
  });

  it('property: every report kept respects 16 MiB, 500 history entries and a SHA-256 digest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_REPORT_BYTES * 2 }),
        fc.integer({ min: 0, max: 1_000 }),
        fc.oneof(fc.constant(SHA), fc.string({ maxLength: 70 })),
        (bytes, historyEntries, sha256) => {
          const command = freeze(1, {
            blob: { ...freeze(1).blob, bytes, sha256 },
            contents: { ...freeze(1).contents, historyEntries, historyTotal: historyEntries },
          });
          let events: readonly ReportEvent[];
          try {
            events = reportDecider.decide(command, reportDecider.initialState, { now });
          } catch {
            return;
          }
          for (const event of events) {
            expect(event.data.blob.bytes).toBeLessThanOrEqual(MAX_REPORT_BYTES);
            expect(event.data.contents.historyEntries).toBeLessThanOrEqual(MAX_REPORT_HISTORY);
            expect(event.data.blob.sha256).toMatch(/^[0-9a-f]{64}$/);
          }
        },
      ),
    );
  });
});
