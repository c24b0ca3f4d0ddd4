import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  available,
  ledgerDecider,
  reservedTotal,
  transferable,
  type LedgerCommand,
  type LedgerContext,
  type LedgerEvent,
  type LedgerState,
} from '../../../src/credits/domain/ledger.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';
import { expectPlainJson } from '../../support/decider-spec.js';

const DAY = 24 * 60 * 60 * 1000;
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
const CYCLE_MS = 30 * DAY;

function cycleBounds(index: number) {
  return {
    start: new Date(BASE + index * CYCLE_MS).toISOString(),
    end: new Date(BASE + (index + 1) * CYCLE_MS).toISOString(),
  };
}

type Step =
  | { kind: 'purchase'; credits: number }
  | { kind: 'reserve'; amount: number; ttlMinutes: number }
  | { kind: 'settle'; pick: number; charge: number }
  | { kind: 'release'; pick: number }
  | { kind: 'settleClosed'; pick: number }
  | { kind: 'expire' }
  | { kind: 'advance'; minutes: number }
  | { kind: 'rollover'; allowance: number }
  | { kind: 'adjust'; allowance: number }
  | { kind: 'transferOut'; credits: number }
  | { kind: 'transferIn'; credits: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('purchase' as const), credits: fc.integer({ min: 1, max: 100 }) }),
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('reserve' as const),
      amount: fc.integer({ min: 1, max: 80 }),
      ttlMinutes: fc.integer({ min: 1, max: 30 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('settle' as const),
      pick: fc.nat(),
      charge: fc.nat({ max: 1000 }),
    }),
  },
  fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('settleClosed' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('expire' as const) }),
  fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('rollover' as const), allowance: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant('adjust' as const), allowance: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant('transferOut' as const), credits: fc.integer({ min: 1, max: 120 }) }),
  fc.record({ kind: fc.constant('transferIn' as const), credits: fc.integer({ min: 1, max: 50 }) }),
);

/** Allowance left in the ledger's own recorded cycle (0 before the first cycle). */
function recordedAllowanceLeft(state: LedgerState): number {
  return state.cycle ? Math.max(0, state.cycle.allowance - state.cycle.allowanceUsed) : 0;
}

describe('credit ledger properties', () => {
  it('keeps every balance non-negative and every settlement whole, for any sequence of commands', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.array(step, { minLength: 1, maxLength: 80, size: 'max' }),
        (firstAllowance, steps) => {
          let state = ledgerDecider.initialState;
          let cycleIndex = 0;
          let now = BASE + DAY;
          let allowance = firstAllowance;
          let nextId = 0;
          const closed: string[] = [];
          // Conservation bookkeeping, independent of the decider.
          let purchasedIn = 0;
          let purchasedOut = 0;
          let lifetime = 0;
          let allowanceSpentThisCycle = 0;
          // Whether allowance left ever dropped under open reservations (then they may exceed what is left).
          let shrank = false;
          let downgradedThisCycle = false;

          const context = (): LedgerContext => ({
            now: new Date(now),
            cycle: cycleBounds(cycleIndex),
            allowance,
          });
          const open = () => Object.keys(state.openReservations);

          for (const s of steps) {
            let command: LedgerCommand | null = null;
            switch (s.kind) {
              case 'purchase':
                command = { type: 'PurchaseCredits', purchaseId: `p${nextId++}`, credits: s.credits };
                break;
              case 'reserve':
                command = {
                  type: 'ReserveCredits',
                  reservationId: `r${nextId++}`,
                  amount: s.amount,
                  category: 'host',
                  channel: s.amount % 3 === 0 ? 'mcp' : 'api',
                  ttlMs: s.ttlMinutes * 60_000,
                };
                break;
              case 'settle': {
                const ids = open();
                const id = ids[s.pick % Math.max(1, ids.length)];
                if (id === undefined) break;
                const amount = state.openReservations[id]?.amount ?? 0;
                command = { type: 'SettleReservation', reservationId: id, charged: s.charge % (amount + 1) };
                break;
              }
              case 'release': {
                const ids = open();
                const id = ids[s.pick % Math.max(1, ids.length)];
                if (id !== undefined)
                  command = { type: 'ReleaseReservation', reservationId: id, reason: 'cancelled' };
                break;
              }
              case 'settleClosed': {
                const id = closed[s.pick % Math.max(1, closed.length)] ?? 'never-reserved';
                command = { type: 'SettleReservation', reservationId: id, charged: 0 };
                break;
              }
              case 'expire':
                command = { type: 'ExpireReservations' };
                break;
              case 'advance':
                now = Math.min(now + s.minutes * 60_000, BASE + (cycleIndex + 1) * CYCLE_MS - 1);
                break;
              case 'rollover':
                cycleIndex += 1;
                now = BASE + cycleIndex * CYCLE_MS + 1000;
                allowance = s.allowance;
                break;
              case 'adjust':
                allowance = s.allowance;
                break;
              case 'transferOut':
                command = {
                  type: 'TransferOut',
                  transferId: `t${nextId++}`,
                  credits: s.credits,
                  to: 'organization:o1',
                };
                break;
              case 'transferIn':
                command = {
                  type: 'TransferIn',
                  transferId: `t${nextId++}`,
                  credits: s.credits,
                  from: 'account:a2',
                };
                break;
            }
            if (command === null) continue;

            const ctx = context();
            const availableBefore = available(state, ctx);
            const transferableBefore = transferable(state, ctx);
            let events: readonly LedgerEvent[];
            try {
              events = ledgerDecider.decide(command, state, ctx);
            } catch (error) {
              // The only refusal a well-formed command can meet: not enough credits, decided on the true figures.
              expect(error).toBeInstanceOf(ServiceError);
              expect((error as ServiceError).code).toBe('insufficient_credits');
              if (command.type === 'ReserveCredits') expect(command.amount).toBeGreaterThan(availableBefore);
              else if (command.type === 'TransferOut')
                expect(command.credits).toBeGreaterThan(transferableBefore);
              else throw error;
              continue;
            }
            if (command.type === 'ReserveCredits')
              expect(command.amount).toBeLessThanOrEqual(availableBefore);
            if (command.type === 'TransferOut')
              expect(command.credits).toBeLessThanOrEqual(transferableBefore);
            if (command.type === 'SettleReservation' && s.kind === 'settleClosed') expect(events).toEqual([]);

            for (const event of events) {
              const leftBefore = recordedAllowanceLeft(state);
              const allowanceBefore = state.cycle?.allowance ?? 0;
              const purchasedBefore = state.purchasedBalance;
              if (event.type === 'ReservationReleased' && event.data.reason === 'expired') {
                // Only reservations whose time ran out expire.
                const expiresAt = state.openReservations[event.data.reservationId]?.expiresAt ?? '';
                expect(Date.parse(expiresAt)).toBeLessThanOrEqual(now);
              }
              state = ledgerDecider.evolve(state, event);
              switch (event.type) {
                case 'CycleStarted':
                  allowanceSpentThisCycle = 0;
                  downgradedThisCycle = false;
                  if (recordedAllowanceLeft(state) < leftBefore && reservedTotal(state) > 0) shrank = true;
                  break;
                case 'AllowanceAdjusted':
                  if (event.data.allowance < allowanceBefore) downgradedThisCycle = true;
                  if (recordedAllowanceLeft(state) < leftBefore && reservedTotal(state) > 0) shrank = true;
                  break;
                case 'CreditsPurchased':
                  purchasedIn += event.data.credits;
                  lifetime += event.data.credits;
                  break;
                case 'CreditsTransferredIn':
                  purchasedIn += event.data.credits;
                  break;
                case 'CreditsTransferredOut':
                  purchasedOut += event.data.credits;
                  break;
                case 'ReservationSettled': {
                  const { charged, fromAllowance, fromPurchased, waived } = event.data;
                  expect(charged).toBe(fromAllowance + fromPurchased + waived);
                  for (const part of [fromAllowance, fromPurchased, waived])
                    expect(part).toBeGreaterThanOrEqual(0);
                  if (!shrank) expect(waived).toBe(0);
                  // Spend order: the monthly allocation first, then purchased credits.
                  expect(fromAllowance).toBe(Math.min(charged, leftBefore));
                  expect(fromPurchased).toBe(Math.min(charged - fromAllowance, purchasedBefore));
                  allowanceSpentThisCycle += fromAllowance;
                  purchasedOut += fromPurchased;
                  closed.push(event.data.reservationId);
                  break;
                }
                case 'ReservationReleased':
                  closed.push(event.data.reservationId);
                  break;
                default:
                  break;
              }
            }
            if (reservedTotal(state) === 0) shrank = false;
            if (command.type === 'ExpireReservations') {
              for (const reservation of Object.values(state.openReservations)) {
                expect(Date.parse(reservation.expiresAt)).toBeGreaterThan(now);
              }
            }

            // Invariants.
            const after = context();
            expect(state.purchasedBalance).toBeGreaterThanOrEqual(0);
            expect(state.purchasedBalance).toBe(purchasedIn - purchasedOut);
            expect(state.lifetimePurchased).toBe(lifetime);
            if (state.cycle) {
              expect(state.cycle.allowanceUsed).toBe(allowanceSpentThisCycle);
              if (!downgradedThisCycle)
                expect(state.cycle.allowanceUsed).toBeLessThanOrEqual(state.cycle.allowance);
            }
            expect(available(state, after)).toBeGreaterThanOrEqual(0);
            if (!shrank && events.length > 0) {
              expect(reservedTotal(state)).toBeLessThanOrEqual(
                recordedAllowanceLeft(state) + state.purchasedBalance,
              );
            }
            for (const reservation of Object.values(state.openReservations)) {
              expect(Date.parse(reservation.expiresAt)).toBeGreaterThan(BASE);
            }
          }
          expectPlainJson(state);
          // Settled and released reservations leave nothing behind in the state.
          for (const id of closed) expect(Object.hasOwn(state.openReservations, id)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('with allowance that never shrinks, open reservations never exceed what is left to spend', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.nat(), fc.nat()), {
          maxLength: 60,
          size: 'max',
        }),
        (allowance, actions) => {
          let state = ledgerDecider.initialState;
          const ctx: LedgerContext = {
            now: new Date(BASE + DAY),
            cycle: cycleBounds(0),
            allowance,
          };
          state = ledgerDecider
            .decide({ type: 'PurchaseCredits', purchaseId: 'p', credits: 30 }, state, ctx)
            .reduce(ledgerDecider.evolve, state);
          let n = 0;
          for (const [amount, pick, charge] of actions) {
            const ids = Object.keys(state.openReservations);
            const command: LedgerCommand =
              pick % 2 === 0 || ids.length === 0
                ? {
                    type: 'ReserveCredits',
                    reservationId: `r${n++}`,
                    amount,
                    category: 'dns',
                    channel: 'session',
                    ttlMs: 1000,
                  }
                : {
                    type: 'SettleReservation',
                    reservationId: ids[pick % ids.length] as string,
                    charged:
                      charge % ((state.openReservations[ids[pick % ids.length] as string]?.amount ?? 0) + 1),
                  };
            try {
              state = ledgerDecider.decide(command, state, ctx).reduce(ledgerDecider.evolve, state);
            } catch (error) {
              expect((error as ServiceError).code).toBe('insufficient_credits');
            }
            const left = recordedAllowanceLeft(state);
            expect(reservedTotal(state)).toBeLessThanOrEqual(left + state.purchasedBalance);
            expect(available(state, ctx)).toBe(left + state.purchasedBalance - reservedTotal(state));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('N sequential 1-credit reservations against K available: exactly min(N, K) succeed, the first ones', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 150 }),
        (allowance, usedAlready, purchasedCredits, n) => {
          const used = Math.min(usedAlready, allowance);
          const cycle = cycleBounds(0);
          const history: LedgerEvent[] = [
            { type: 'CycleStarted', data: { cycleStart: cycle.start, cycleEnd: cycle.end, allowance } },
            {
              type: 'ReservationSettled',
              data: {
                reservationId: 'earlier',
                charged: used,
                fromAllowance: used,
                fromPurchased: 0,
                waived: 0,
                category: 'host',
                channel: 'api',
                cycleStart: cycle.start,
                settledAt: cycle.start,
              },
            },
          ];
          if (purchasedCredits > 0) {
            history.push({
              type: 'CreditsPurchased',
              data: { purchaseId: 'p', credits: purchasedCredits, purchasedAt: cycle.start },
            });
          }
          let state = history.reduce(ledgerDecider.evolve, ledgerDecider.initialState);
          const ctx: LedgerContext = { now: new Date(BASE + DAY), cycle, allowance };
          const k = allowance - used + purchasedCredits;
          expect(available(state, ctx)).toBe(k);

          const outcomes: boolean[] = [];
          for (let i = 0; i < n; i++) {
            try {
              const events = ledgerDecider.decide(
                {
                  type: 'ReserveCredits',
                  reservationId: `r${i}`,
                  amount: 1,
                  category: 'host',
                  channel: 'api',
                  ttlMs: 60_000,
                },
                state,
                ctx,
              );
              state = events.reduce(ledgerDecider.evolve, state);
              outcomes.push(true);
            } catch (error) {
              expect((error as ServiceError).code).toBe('insufficient_credits');
              expect((error as ServiceError).details).toEqual({ available: 0, requested: 1 });
              outcomes.push(false);
            }
          }
          const successes = Math.min(n, k);
          expect(outcomes).toEqual([
            ...Array<boolean>(successes).fill(true),
            ...Array<boolean>(n - successes).fill(false),
          ]);
          expect(reservedTotal(state)).toBe(successes);
          expect(available(state, ctx)).toBe(k - successes);
        },
      ),
      { numRuns: 300 },
    );
  });
});
