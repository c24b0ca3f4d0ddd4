import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  creditsForRows,
  exportAllowance,
  exportDecider,
  MAX_EXPORT_ATTEMPTS,
  type ExportCommand,
  type ExportEvent,
  type ExportState,
} from '../../../src/exports/domain/export-job.js';
import {
  available,
  ledgerDecider,
  type LedgerContext,
  type LedgerState,
} from '../../../src/credits/domain/ledger.js';
import { deciderSpec } from '../../support/decider-spec.js';

const LEDGER_CONTEXT: LedgerContext = {
  now: ledgerNow(),
  cycle: { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
  allowance: 0,
};
function ledgerNow(): Date {
  return new Date('2026-03-01T10:00:00.000Z');
}

/** The ledger side of one export: a balance, the reservation, and the settlement of the job's charge. */
function ledgerAfter(balance: number, reserve: number, charged: number): LedgerState {
  let ledger = ledgerDecider.initialState;
  const run = (command: Parameters<typeof ledgerDecider.decide>[0]) => {
    for (const event of ledgerDecider.decide(command, ledger, LEDGER_CONTEXT))
      ledger = ledgerDecider.evolve(ledger, event);
  };
  if (balance > 0) run({ type: 'PurchaseCredits', purchaseId: 'p1', credits: balance });
  if (reserve > 0) {
    run({
      type: 'ReserveCredits',
      reservationId: 'r1',
      amount: reserve,
      category: 'exports',
      channel: 'api',
      ttlMs: 60_000,
    });
    run({ type: 'SettleReservation', reservationId: 'r1', charged });
    // A retried settlement charges nothing more.
    run({ type: 'SettleReservation', reservationId: 'r1', charged });
  }
  return ledger;
}

const { given } = deciderSpec(exportDecider);
const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => ({ now: new Date(T0.getTime() + ms) });

const request: ExportEvent = {
  type: 'ExportRequested',
  data: {
    exportId: 'e1',
    ownerAccountId: 'a1',
    payer: 'account:a1',
    searchType: 'hosts',
    rawQuery: 'port:443',
    timeFrame: 'all_time',
    since: null,
    broad: false,
    format: 'csv',
    estimatedCount: 250,
    requestedAt: T0.toISOString(),
  },
};
const start = (
  attempt = 1,
  overrides: Partial<Extract<ExportEvent, { type: 'ExportStarted' }>['data']> = {},
): ExportEvent => ({
  type: 'ExportStarted',
  data: {
    attempt,
    workerId: 'w1',
    reservationId: 'r1',
    reservedCredits: 3,
    rowLimit: 300,
    matching: 250,
    truncationCause: null,
    fileKey: `e1-${attempt}`,
    startedAt: T0.toISOString(),
    leaseUntil: new Date(T0.getTime() + 1000).toISOString(),
    ...overrides,
  },
});
const startCommand: ExportCommand = {
  type: 'StartExport',
  workerId: 'w1',
  reservationId: 'r1',
  reservedCredits: 3,
  rowLimit: 300,
  matching: 250,
  truncationCause: null,
  fileKey: 'e1-1',
  leaseMs: 1000,
};

describe('export job decider', () => {
  it('starts a pending job with its reservation and lease', () => {
    given([request]).when(startCommand, at(0)).then([start()]);
  });

  it('refuses a row limit the reservation cannot pay for', () => {
    given([request])
      .when({ ...startCommand, rowLimit: 301 }, at(0))
      .then('invalid_input');
  });

  it('takes over an expired lease in two steps: the lost attempt is abandoned and released, then a new one starts', () => {
    given([request, start()])
      .when({ ...startCommand, workerId: 'w2', fileKey: 'e1-2' }, at(1000))
      .then('version_conflict');
    given([request, start()]).when({ type: 'AbandonAttempt' }, at(500)).then('version_conflict');
    const abandoned = given([request, start()])
      .when({ type: 'AbandonAttempt' }, at(1000))
      .then([
        {
          type: 'ExportAttemptAbandoned',
          data: { attempt: 1, reservationId: 'r1', rowsWritten: 0, abandonedAt: at(1000).now.toISOString() },
        },
      ]);
    expect(abandoned.state).toMatchObject({ status: 'pending', chargePending: true, reservationId: 'r1' });
    // The lost attempt's reservation is released (recorded) before another attempt may start.
    given([request, start(), ...abandoned.events])
      .when({ ...startCommand, workerId: 'w2', fileKey: 'e1-2' }, at(1000))
      .then('version_conflict');
    const charged = given([request, start(), ...abandoned.events])
      .when({ type: 'RecordCharge' }, at(1001))
      .then([{ type: 'ExportCharged', data: { reservationId: 'r1', creditsConsumed: 0 } }]);
    expect(charged.state).toMatchObject({ status: 'pending', chargePending: false, reservationId: null });
    const { events } = given([request, start(), ...abandoned.events, ...charged.events])
      .when({ ...startCommand, workerId: 'w2', reservationId: 'r2', fileKey: 'e1-2' }, at(1002))
      .decided();
    expect(events[0]).toMatchObject({ type: 'ExportStarted', data: { attempt: 2, workerId: 'w2' } });
  });

  it('the worker of an abandoned attempt decides nothing any more', () => {
    const abandoned: ExportEvent = {
      type: 'ExportAttemptAbandoned',
      data: { attempt: 1, reservationId: 'r1', rowsWritten: 0, abandonedAt: T0.toISOString() },
    };
    given([request, start(), abandoned])
      .when({ type: 'RecordProgress', workerId: 'w1', attempt: 1, rowsWritten: 10, leaseMs: 1000 }, at(1))
      .then([]);
    given([request, start(), abandoned])
      .when(
        {
          type: 'CompleteExport',
          workerId: 'w1',
          attempt: 1,
          resultsCount: 10,
          fileSizeBytes: 1,
          originalSizeBytes: 1,
          truncated: false,
          retentionMs: 1,
        },
        at(1),
      )
      .then([]);
  });

  it('gives up after the last attempt', () => {
    const history = [request, ...Array.from({ length: MAX_EXPORT_ATTEMPTS }, (_, i) => start(i + 1))];
    given(history)
      .when({ ...startCommand, fileKey: 'e1-9' }, at(5000))
      .then('version_conflict');
    const gaveUp = given(history).when({ type: 'AbandonAttempt' }, at(5000)).decided();
    expect(gaveUp.events.map((event) => event.type)).toEqual(['ExportAttemptAbandoned', 'ExportFailed']);
    expect(gaveUp.state).toMatchObject({ status: 'failed', chargePending: true, creditsConsumed: 0 });
    given(history)
      .when({ type: 'FailExport', reason: 'interrupted' }, at(5000))
      .then([
        {
          type: 'ExportFailed',
          data: {
            reason: 'interrupted',
            resultsCount: 0,
            creditsConsumed: 0,
            failedAt: at(5000).now.toISOString(),
          },
        },
      ]);
  });

  it('completes with ceil(rows / 100) credits and the retention', () => {
    const { state } = given([request, start()])
      .when(
        {
          type: 'CompleteExport',
          workerId: 'w1',
          attempt: 1,
          resultsCount: 250,
          fileSizeBytes: 900,
          originalSizeBytes: 4000,
          truncated: false,
          retentionMs: 3_600_000,
        },
        at(200),
      )
      .decided();
    expect(state).toMatchObject({
      status: 'completed',
      resultsCount: 250,
      creditsConsumed: 3,
      wasTruncated: false,
      chargePending: true,
      expiresAt: new Date(T0.getTime() + 200 + 3_600_000).toISOString(),
    });
  });

  it('truncates with a reason sentence and still completes', () => {
    const { events, state } = given([
      request,
      start(1, { rowLimit: 200, reservedCredits: 2, truncationCause: 'credits' }),
    ])
      .when(
        {
          type: 'CompleteExport',
          workerId: 'w1',
          attempt: 1,
          resultsCount: 200,
          fileSizeBytes: 1,
          originalSizeBytes: 1,
          truncated: true,
          retentionMs: 1,
        },
        at(1),
      )
      .decided();
    expect(events.map((e) => e.type)).toEqual(['ExportTruncated', 'ExportCompleted']);
    expect(state.wasTruncated).toBe(true);
    expect(state.truncationReason).toMatch(/credit balance covered 200 of 250/);
  });

  it('ignores progress and completion from a worker that lost the job', () => {
    const cancelled: ExportEvent = {
      type: 'ExportCancelled',
      data: { wasRunning: true, resultsCount: 0, creditsConsumed: 0, cancelledAt: T0.toISOString() },
    };
    given([request, start(), cancelled])
      .when({ type: 'RecordProgress', workerId: 'w1', attempt: 1, rowsWritten: 10, leaseMs: 1000 }, at(1))
      .then([]);
    given([request, start()])
      .when({ type: 'RecordProgress', workerId: 'w2', attempt: 1, rowsWritten: 10, leaseMs: 1000 }, at(1))
      .then([]);
  });

  it('cancels a running job, charging the rows it recorded as written', () => {
    const progressed: ExportEvent = {
      type: 'ExportProgressed',
      data: { attempt: 1, rowsWritten: 120, leaseUntil: T0.toISOString() },
    };
    given([request, start(), progressed])
      .when({ type: 'CancelOrDeleteExport' }, at(5))
      .then([
        {
          type: 'ExportCancelled',
          data: {
            wasRunning: true,
            resultsCount: 120,
            creditsConsumed: 2,
            cancelledAt: at(5).now.toISOString(),
          },
        },
      ]);
  });

  it('cancels a pending job for nothing, then deletes it; a deleted job is not found', () => {
    const { events, state } = given([request]).when({ type: 'CancelOrDeleteExport' }, at(1)).decided();
    expect(events[0]).toMatchObject({
      type: 'ExportCancelled',
      data: { creditsConsumed: 0, wasRunning: false },
    });
    expect(state.chargePending).toBe(false);
    const deleted = given([request, ...events])
      .when({ type: 'CancelOrDeleteExport' }, at(2))
      .decided();
    expect(deleted.events[0]).toMatchObject({ type: 'ExportDeleted', data: { fileKey: null } });
    given([request, ...events, ...deleted.events])
      .when({ type: 'CancelOrDeleteExport' }, at(3))
      .then('not_found');
  });

  it('a charge decided before the job was deleted is still recorded, once', () => {
    const progressed: ExportEvent = {
      type: 'ExportProgressed',
      data: { attempt: 1, rowsWritten: 120, leaseUntil: T0.toISOString() },
    };
    const cancelled = given([request, start(), progressed])
      .when({ type: 'CancelOrDeleteExport' }, at(1))
      .decided();
    const deleted = given([request, start(), progressed, ...cancelled.events])
      .when({ type: 'CancelOrDeleteExport' }, at(2))
      .decided();
    expect(deleted.state).toMatchObject({ status: 'deleted', chargePending: true, creditsConsumed: 2 });
    const history = [request, start(), progressed, ...cancelled.events, ...deleted.events];
    const charged = given(history)
      .when({ type: 'RecordCharge' }, at(3))
      .then([{ type: 'ExportCharged', data: { reservationId: 'r1', creditsConsumed: 2 } }]);
    expect(charged.state).toMatchObject({ status: 'deleted', chargePending: false });
    given([...history, ...charged.events])
      .when({ type: 'RecordCharge' }, at(4))
      .then([]);
    // The deleted job stays deleted for its owner and for its lost worker.
    given(history).when({ type: 'CancelOrDeleteExport' }, at(3)).then('not_found');
    given(history)
      .when({ type: 'RecordProgress', workerId: 'w1', attempt: 1, rowsWritten: 130, leaseMs: 1000 }, at(3))
      .then([]);
    given(history).when({ type: 'FailExport', reason: 'x' }, at(3)).then([]);
    given(history).when({ type: 'ExpireExportFile' }, at(3)).then([]);
  });

  it('records a charge once', () => {
    const history: ExportEvent[] = [
      request,
      start(),
      {
        type: 'ExportFailed',
        data: { reason: 'x', resultsCount: 0, creditsConsumed: 0, failedAt: T0.toISOString() },
      },
    ];
    const { events } = given(history).when({ type: 'RecordCharge' }, at(1)).decided();
    expect(events).toEqual([{ type: 'ExportCharged', data: { reservationId: 'r1', creditsConsumed: 0 } }]);
    given([...history, ...events])
      .when({ type: 'RecordCharge' }, at(2))
      .then([]);
  });
});

describe('export cost property', () => {
  it('for any row count and balance: rows written, credits, was_truncated and the ledger agree, never overdrawn', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 0, max: 800 }),
        fc.integer({ min: 0, max: 60_000 }),
        (matching, balance, quotaLeft) => {
          const allowance = exportAllowance({ matching, availableCredits: balance, quotaLeft });
          // The ledger reserves what the allowance asks for, and never more than the balance.
          expect(allowance.reserveCredits).toBeLessThanOrEqual(balance);
          const written = Math.min(matching, allowance.rowLimit);
          const truncated = written < matching;
          let state: ExportState = [
            request,
            start(1, {
              reservationId: allowance.reserveCredits > 0 ? 'r1' : null,
              reservedCredits: allowance.reserveCredits,
              rowLimit: allowance.rowLimit,
              matching,
              truncationCause: allowance.cause,
            }),
          ].reduce(exportDecider.evolve, exportDecider.initialState);
          const events = exportDecider.decide(
            {
              type: 'CompleteExport',
              workerId: 'w1',
              attempt: 1,
              resultsCount: written,
              fileSizeBytes: 1,
              originalSizeBytes: 1,
              truncated,
              retentionMs: 1,
            },
            state,
            at(1),
          );
          state = events.reduce(exportDecider.evolve, state);
          expect(state.status).toBe('completed');
          expect(state.resultsCount).toBe(written);
          expect(state.creditsConsumed).toBe(creditsForRows(written));
          // The charge fits in the reservation, so the settlement never overdraws the balance.
          expect(state.creditsConsumed).toBeLessThanOrEqual(state.reservedCredits);
          expect(state.creditsConsumed).toBeLessThanOrEqual(balance);
          expect(state.wasTruncated).toBe(truncated);
          expect(state.wasTruncated).toBe(allowance.cause !== null && written < matching);
          expect(state.truncationReason !== null).toBe(truncated);
          const ledger = ledgerAfter(balance, allowance.reserveCredits, state.creditsConsumed);
          expect(available(ledger, LEDGER_CONTEXT)).toBe(balance - state.creditsConsumed);
          expect(available(ledger, LEDGER_CONTEXT)).toBeGreaterThanOrEqual(0);
          // Whatever the balance paid for was exported: truncation only when the next row was unaffordable.
          if (truncated) expect(written === quotaLeft || creditsForRows(written + 1) > balance).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
