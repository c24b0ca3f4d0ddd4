import { describe, expect, it } from '@jest/globals';
import {
  allowanceLeft,
  available,
  ledgerDecider,
  ledgerStreamId,
  reservedTotal,
  transferable,
  type Channel,
  type LedgerContext,
  type LedgerEvent,
  type UsageCategory,
} from '../../../src/credits/domain/ledger.js';
import { deciderSpec } from '../../support/decider-spec.js';

const { given } = deciderSpec(ledgerDecider);

const march = { start: '2026-03-05T00:00:00.000Z', end: '2026-04-05T00:00:00.000Z' };
const april = { start: '2026-04-05T00:00:00.000Z', end: '2026-05-05T00:00:00.000Z' };
const now = new Date('2026-03-10T12:00:00.000Z');
const inApril = new Date('2026-04-06T08:00:00.000Z');

const ctx = (overrides: Partial<LedgerContext> = {}): LedgerContext => ({
  now,
  cycle: march,
  allowance: 50,
  ...overrides,
});
const aprilCtx = (overrides: Partial<LedgerContext> = {}) =>
  ctx({ now: inApril, cycle: april, ...overrides });

const started = (cycle = march, allowance = 50): LedgerEvent => ({
  type: 'CycleStarted',
  data: { cycleStart: cycle.start, cycleEnd: cycle.end, allowance },
});
const purchased = (credits: number, purchaseId = 'p1'): LedgerEvent => ({
  type: 'CreditsPurchased',
  data: { purchaseId, credits, purchasedAt: '2026-03-06T00:00:00.000Z' },
});
const reserved = (
  reservationId: string,
  amount: number,
  options: { category?: UsageCategory; channel?: Channel; expiresAt?: string } = {},
): LedgerEvent => ({
  type: 'CreditsReserved',
  data: {
    reservationId,
    amount,
    category: options.category ?? 'host',
    channel: options.channel ?? 'api',
    reservedAt: '2026-03-10T11:59:00.000Z',
    expiresAt: options.expiresAt ?? '2026-03-10T12:04:00.000Z',
  },
});
const settled = (
  reservationId: string,
  split: { fromAllowance: number; fromPurchased: number; waived?: number },
  options: { category?: UsageCategory; channel?: Channel; cycleStart?: string } = {},
): LedgerEvent => ({
  type: 'ReservationSettled',
  data: {
    reservationId,
    charged: split.fromAllowance + split.fromPurchased + (split.waived ?? 0),
    fromAllowance: split.fromAllowance,
    fromPurchased: split.fromPurchased,
    waived: split.waived ?? 0,
    category: options.category ?? 'host',
    channel: options.channel ?? 'api',
    cycleStart: options.cycleStart ?? march.start,
    settledAt: '2026-03-10T11:59:30.000Z',
  },
});
const reserve = (
  reservationId: string,
  amount: number,
  extra: Partial<{ category: UsageCategory; channel: Channel; ttlMs: number }> = {},
) =>
  ({
    type: 'ReserveCredits',
    reservationId,
    amount,
    category: extra.category ?? 'host',
    channel: extra.channel ?? 'api',
    ttlMs: extra.ttlMs ?? 60_000,
  }) as const;

describe('credit ledger', () => {
  it('names one stream per payer', () => {
    expect(ledgerStreamId('account:a1')).toBe('ledger-account-a1');
    expect(ledgerStreamId('organization:o-7')).toBe('ledger-organization-o-7');
  });

  describe('PurchaseCredits', () => {
    it('starts the cycle on a new ledger, then adds to the purchased balance and lifetime total', () => {
      const { state } = given([])
        .when({ type: 'PurchaseCredits', purchaseId: 'p9', credits: 500 }, ctx())
        .then([
          started(),
          {
            type: 'CreditsPurchased',
            data: { purchaseId: 'p9', credits: 500, purchasedAt: now.toISOString() },
          },
        ]);
      expect(state).toEqual({
        cycle: { start: march.start, end: march.end, allowance: 50, allowanceUsed: 0 },
        purchasedBalance: 500,
        lifetimePurchased: 500,
        openReservations: {},
        usage: {},
        usageMcp: {},
      });
      expect(available(state, ctx())).toBe(550);
    });

    it('writes no bookkeeping event when the ledger is already in the cycle', () => {
      given([started(), purchased(100)])
        .when({ type: 'PurchaseCredits', purchaseId: 'p2', credits: 1 }, ctx())
        .then([
          {
            type: 'CreditsPurchased',
            data: { purchaseId: 'p2', credits: 1, purchasedAt: now.toISOString() },
          },
        ]);
    });

    it.each([0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('refuses %p credits', (credits) => {
      given([]).when({ type: 'PurchaseCredits', purchaseId: 'p1', credits }, ctx()).then('invalid_input');
    });

    it('refuses an empty purchase id', () => {
      given([]).when({ type: 'PurchaseCredits', purchaseId: '', credits: 5 }, ctx()).then('invalid_input');
    });
  });

  describe('ReserveCredits', () => {
    it('holds credits until the time to live runs out', () => {
      const { state } = given([started()])
        .when(reserve('r1', 30, { category: 'whois', channel: 'mcp', ttlMs: 120_000 }), ctx())
        .then([
          {
            type: 'CreditsReserved',
            data: {
              reservationId: 'r1',
              amount: 30,
              category: 'whois',
              channel: 'mcp',
              reservedAt: now.toISOString(),
              expiresAt: '2026-03-10T12:02:00.000Z',
            },
          },
        ]);
      expect(state.openReservations).toEqual({
        r1: { amount: 30, category: 'whois', channel: 'mcp', expiresAt: '2026-03-10T12:02:00.000Z' },
      });
      expect(available(state, ctx())).toBe(20);
    });

    it('may take exactly what is available, across allowance and purchased credits', () => {
      given([started(), purchased(10), reserved('r1', 20)])
        .when(reserve('r2', 40), ctx())
        .decided();
    });

    it('refuses more than is available before anything is written, with available and requested', () => {
      const error = given([started(), purchased(10), reserved('r1', 20)])
        .when(reserve('r2', 41), ctx())
        .then('insufficient_credits');
      expect(error.details).toEqual({ available: 40, requested: 41 });
    });

    it('refuses with the new cycle figures, still writing nothing', () => {
      const spec = given([started(), settled('r0', { fromAllowance: 50, fromPurchased: 0 })]);
      expect(available(spec.state, ctx())).toBe(0);
      spec.when(reserve('r1', 1), ctx()).then('insufficient_credits');
      const error = spec.when(reserve('r1', 51), aprilCtx()).then('insufficient_credits');
      expect(error.details).toEqual({ available: 50, requested: 51 });
      spec.when(reserve('r1', 50), aprilCtx()).then([
        started(april),
        {
          type: 'CreditsReserved',
          data: {
            reservationId: 'r1',
            amount: 50,
            category: 'host',
            channel: 'api',
            reservedAt: inApril.toISOString(),
            expiresAt: new Date(inApril.getTime() + 60_000).toISOString(),
          },
        },
      ]);
    });

    it('a Free allowance of zero with no purchased credits reserves nothing', () => {
      const error = given([])
        .when(reserve('r1', 1), ctx({ allowance: 0 }))
        .then('insufficient_credits');
      expect(error.details).toEqual({ available: 0, requested: 1 });
    });

    it('refuses invalid amounts, time to live, category and channel', () => {
      for (const amount of [0, -1, 2.5])
        given([started()]).when(reserve('r1', amount), ctx()).then('invalid_input');
      for (const ttlMs of [0, -1, 0.5])
        given([started()])
          .when(reserve('r1', 1, { ttlMs }), ctx())
          .then('invalid_input');
      given([started()])
        .when(reserve('r1', 1, { category: 'search' as UsageCategory }), ctx())
        .then('invalid_input');
      given([started()])
        .when(reserve('r1', 1, { channel: 'email' as Channel }), ctx())
        .then('invalid_input');
      given([started()]).when(reserve('', 1), ctx()).then('invalid_input');
    });

    it('a retried reservation is already held; the same id for other work is refused', () => {
      const spec = given([started(), reserved('r1', 5)]);
      spec.when(reserve('r1', 5), ctx()).then([]);
      spec.when(reserve('r1', 6), ctx()).then('already_exists');
    });
  });

  describe('SettleReservation', () => {
    it('spends the monthly allocation first, then purchased credits', () => {
      const { state } = given([
        started(),
        purchased(100),
        reserved('r0', 40),
        settled('r0', { fromAllowance: 40, fromPurchased: 0 }),
        reserved('r1', 30, { category: 'dns' }),
      ])
        .when({ type: 'SettleReservation', reservationId: 'r1', charged: 25 }, ctx())
        .then([
          {
            type: 'ReservationSettled',
            data: {
              reservationId: 'r1',
              charged: 25,
              fromAllowance: 10,
              fromPurchased: 15,
              waived: 0,
              category: 'dns',
              channel: 'api',
              cycleStart: march.start,
              settledAt: now.toISOString(),
            },
          },
        ]);
      expect(state.cycle?.allowanceUsed).toBe(50);
      expect(state.purchasedBalance).toBe(85);
      expect(state.lifetimePurchased).toBe(100);
      expect(state.openReservations).toEqual({});
      expect(state.usage).toEqual({ host: 40, dns: 25 });
      expect(available(state, ctx())).toBe(85);
    });

    it('charging less than reserved frees the rest; charging 0 settles without spending', () => {
      const spec = given([started(), reserved('r1', 10, { channel: 'mcp', category: 'exports' })]);
      const { state } = spec
        .when({ type: 'SettleReservation', reservationId: 'r1', charged: 3 }, ctx())
        .decided();
      expect(available(state, ctx())).toBe(47);
      expect(state.usageMcp).toEqual({ exports: 3 });
      expect(state.usage).toEqual({ exports: 3 });
      const zero = spec.when({ type: 'SettleReservation', reservationId: 'r1', charged: 0 }, ctx()).decided();
      expect(zero.events[0]?.data).toMatchObject({
        charged: 0,
        fromAllowance: 0,
        fromPurchased: 0,
        waived: 0,
      });
      expect(zero.state.usage).toEqual({});
      expect(available(zero.state, ctx())).toBe(50);
    });

    it('books the charge under the category the settlement names (a unified search learns it once done)', () => {
      const { state, events } = given([started(), reserved('r1', 3, { category: 'whois', channel: 'mcp' })])
        .when({ type: 'SettleReservation', reservationId: 'r1', charged: 1, category: 'host' }, ctx())
        .decided();
      expect(events[0]?.data).toMatchObject({ charged: 1, category: 'host', channel: 'mcp' });
      expect(state.usage).toEqual({ host: 1 });
      expect(state.usageMcp).toEqual({ host: 1 });
      given([started(), reserved('r1', 3)])
        .when(
          { type: 'SettleReservation', reservationId: 'r1', charged: 1, category: 'nope' as UsageCategory },
          ctx(),
        )
        .then('invalid_input');
    });

    it('refuses charging more than was reserved', () => {
      const error = given([started(), reserved('r1', 10)])
        .when({ type: 'SettleReservation', reservationId: 'r1', charged: 11 }, ctx())
        .then('invalid_input');
      expect(error.details).toEqual({ reservationId: 'r1', reserved: 10, charged: 11 });
    });

    it('refuses a negative or fractional charge', () => {
      for (const charged of [-1, 0.5]) {
        given([started(), reserved('r1', 10)])
          .when({ type: 'SettleReservation', reservationId: 'r1', charged }, ctx())
          .then('invalid_input');
      }
    });

    it('is idempotent: a settled, released or unknown reservation decides nothing, even across a cycle change', () => {
      const history = [
        started(),
        reserved('r1', 10),
        settled('r1', { fromAllowance: 4, fromPurchased: 0 }),
        reserved('r2', 5),
        {
          type: 'ReservationReleased',
          data: { reservationId: 'r2', reason: 'cancelled', releasedAt: now.toISOString() },
        },
      ] satisfies LedgerEvent[];
      for (const reservationId of ['r1', 'r2', 'nope', '__proto__']) {
        given(history).when({ type: 'SettleReservation', reservationId, charged: 1 }, ctx()).then([]);
        given(history).when({ type: 'SettleReservation', reservationId, charged: 1 }, aprilCtx()).then([]);
      }
    });

    it('settles a reservation from the previous cycle against the new cycle', () => {
      const { state } = given([
        started(),
        purchased(5),
        reserved('r1', 20),
        settled('r9', { fromAllowance: 45, fromPurchased: 0 }),
      ])
        .when({ type: 'SettleReservation', reservationId: 'r1', charged: 20 }, aprilCtx({ allowance: 1000 }))
        .then([
          started(april, 1000),
          {
            type: 'ReservationSettled',
            data: {
              reservationId: 'r1',
              charged: 20,
              fromAllowance: 20,
              fromPurchased: 0,
              waived: 0,
              category: 'host',
              channel: 'api',
              cycleStart: april.start,
              settledAt: inApril.toISOString(),
            },
          },
        ]);
      expect(state.cycle).toEqual({ start: april.start, end: april.end, allowance: 1000, allowanceUsed: 20 });
      expect(state.usage).toEqual({ host: 20 });
      expect(state.purchasedBalance).toBe(5);
    });

    it('waives what neither pool covers after the allowance shrank under an open reservation', () => {
      const { state } = given([started(march, 5000), purchased(7), reserved('r1', 40)])
        .when({ type: 'SettleReservation', reservationId: 'r1', charged: 40 }, ctx({ allowance: 10 }))
        .then([
          { type: 'AllowanceAdjusted', data: { allowance: 10 } },
          {
            type: 'ReservationSettled',
            data: {
              reservationId: 'r1',
              charged: 40,
              fromAllowance: 10,
              fromPurchased: 7,
              waived: 23,
              category: 'host',
              channel: 'api',
              cycleStart: march.start,
              settledAt: now.toISOString(),
            },
          },
        ]);
      expect(state.purchasedBalance).toBe(0);
      expect(state.cycle?.allowanceUsed).toBe(10);
      expect(state.usage).toEqual({ host: 17 });
    });
  });

  describe('ReleaseReservation', () => {
    it('returns the held credits', () => {
      const { state } = given([started(), reserved('r1', 30)])
        .when({ type: 'ReleaseReservation', reservationId: 'r1', reason: 'failed' }, ctx())
        .then([
          {
            type: 'ReservationReleased',
            data: { reservationId: 'r1', reason: 'failed', releasedAt: now.toISOString() },
          },
        ]);
      expect(available(state, ctx())).toBe(50);
      expect(state.usage).toEqual({});
    });

    it('brings the ledger to the new cycle first', () => {
      given([started(), reserved('r1', 30)])
        .when({ type: 'ReleaseReservation', reservationId: 'r1', reason: 'cancelled' }, aprilCtx())
        .then([
          started(april),
          {
            type: 'ReservationReleased',
            data: { reservationId: 'r1', reason: 'cancelled', releasedAt: inApril.toISOString() },
          },
        ]);
    });

    it('decides nothing for a reservation that is not open', () => {
      given([started(), reserved('r1', 3), settled('r1', { fromAllowance: 3, fromPurchased: 0 })])
        .when({ type: 'ReleaseReservation', reservationId: 'r1', reason: 'cancelled' }, aprilCtx())
        .then([]);
      given([]).when({ type: 'ReleaseReservation', reservationId: 'x', reason: 'cancelled' }, ctx()).then([]);
    });

    it('refuses an unknown reason', () => {
      given([started(), reserved('r1', 3)])
        .when({ type: 'ReleaseReservation', reservationId: 'r1', reason: 'bored' as 'failed' }, ctx())
        .then('invalid_input');
    });
  });

  describe('ExpireReservations', () => {
    const history = [
      started(),
      reserved('late', 5, { expiresAt: '2026-03-10T12:00:00.000Z' }),
      reserved('early', 5, { expiresAt: '2026-03-10T11:00:00.000Z' }),
      reserved('fresh', 5, { expiresAt: '2026-03-10T12:00:00.001Z' }),
    ];

    it('releases every open reservation whose time ran out (expiresAt <= now), oldest first', () => {
      const { state } = given(history)
        .when({ type: 'ExpireReservations' }, ctx())
        .then([
          {
            type: 'ReservationReleased',
            data: { reservationId: 'early', reason: 'expired', releasedAt: now.toISOString() },
          },
          {
            type: 'ReservationReleased',
            data: { reservationId: 'late', reason: 'expired', releasedAt: now.toISOString() },
          },
        ]);
      expect(Object.keys(state.openReservations)).toEqual(['fresh']);
    });

    it('decides nothing when nothing expired in the same cycle, or on a ledger never used', () => {
      given([started(), reserved('r1', 1, { expiresAt: '2026-03-11T00:00:00.000Z' })])
        .when({ type: 'ExpireReservations' }, ctx())
        .then([]);
      given([]).when({ type: 'ExpireReservations' }, ctx()).then([]);
    });

    it('may start the new cycle on its own', () => {
      given([started(), purchased(3)])
        .when({ type: 'ExpireReservations' }, aprilCtx())
        .then([started(april)]);
      given([started()])
        .when({ type: 'ExpireReservations' }, ctx({ allowance: 5000 }))
        .then([{ type: 'AllowanceAdjusted', data: { allowance: 5000 } }]);
    });
  });

  describe('cycles and allowance changes', () => {
    it('a new cycle resets the allowance used and the usage totals; purchased credits and open reservations carry over', () => {
      const spec = given([
        started(),
        purchased(20),
        reserved('r1', 50, { channel: 'mcp' }),
        settled('r1', { fromAllowance: 50, fromPurchased: 0 }, { channel: 'mcp' }),
        reserved('r2', 8),
      ]);
      expect(available(spec.state, ctx())).toBe(12);
      const { state } = spec
        .when({ type: 'PurchaseCredits', purchaseId: 'p2', credits: 1 }, aprilCtx({ allowance: 60 }))
        .decided();
      expect(state.cycle).toEqual({ start: april.start, end: april.end, allowance: 60, allowanceUsed: 0 });
      expect(state.usage).toEqual({});
      expect(state.usageMcp).toEqual({});
      expect(state.purchasedBalance).toBe(21);
      expect(Object.keys(state.openReservations)).toEqual(['r2']);
      expect(available(state, aprilCtx({ allowance: 60 }))).toBe(60 + 21 - 8);
    });

    it('available() already counts the next cycle before the ledger records it', () => {
      const state = given([started(), settled('r1', { fromAllowance: 50, fromPurchased: 0 })]).state;
      expect(allowanceLeft(state, ctx())).toBe(0);
      expect(allowanceLeft(state, aprilCtx())).toBe(50);
    });

    it('an upgrade inside the cycle adjusts the allowance before deciding', () => {
      const { state } = given([started(), settled('r0', { fromAllowance: 50, fromPurchased: 0 })])
        .when(reserve('r1', 4000), ctx({ allowance: 5000 }))
        .decided();
      expect(state.cycle).toMatchObject({ allowance: 5000, allowanceUsed: 50 });
      expect(available(state, ctx({ allowance: 5000 }))).toBe(950);
    });

    it('a downgrade below what was used leaves nothing, and upgrading again does not hand it out twice', () => {
      const history = [started(march, 5000), settled('r0', { fromAllowance: 60, fromPurchased: 0 })];
      const down = given(history)
        .when({ type: 'PurchaseCredits', purchaseId: 'p', credits: 1 }, ctx({ allowance: 50 }))
        .decided();
      expect(down.events[0]).toEqual({ type: 'AllowanceAdjusted', data: { allowance: 50 } });
      expect(down.state.cycle).toMatchObject({ allowance: 50, allowanceUsed: 60 });
      expect(allowanceLeft(down.state, ctx({ allowance: 50 }))).toBe(0);
      expect(available(down.state, ctx({ allowance: 50 }))).toBe(1);
      expect(allowanceLeft(down.state, ctx({ allowance: 5000 }))).toBe(4940);
    });

    it('never reopens an earlier cycle when a context lags behind the ledger', () => {
      const spec = given([
        started(april, 50),
        settled('r0', { fromAllowance: 50, fromPurchased: 0 }, { cycleStart: april.start }),
      ]);
      expect(available(spec.state, ctx())).toBe(0);
      spec.when(reserve('r1', 1), ctx()).then('insufficient_credits');
      spec
        .when({ type: 'PurchaseCredits', purchaseId: 'p', credits: 2 }, ctx({ allowance: 999 }))
        .then([
          { type: 'CreditsPurchased', data: { purchaseId: 'p', credits: 2, purchasedAt: now.toISOString() } },
        ]);
    });

    it('refuses an impossible context loudly (a caller bug, not a client error)', () => {
      expect(() =>
        ledgerDecider.decide(
          { type: 'ExpireReservations' },
          ledgerDecider.initialState,
          ctx({ allowance: -1 }),
        ),
      ).toThrow('allowance');
      expect(() =>
        ledgerDecider.decide(
          { type: 'ExpireReservations' },
          ledgerDecider.initialState,
          ctx({ cycle: { start: april.start, end: march.start } }),
        ),
      ).toThrow('cycle');
    });
  });

  describe('transfers', () => {
    it('moves out only purchased credits not held by open reservations', () => {
      // Allowance left 10, purchased 100, open 30: the reservations hold 10 of the allowance and 20 purchased.
      const spec = given([
        started(),
        purchased(100),
        settled('r0', { fromAllowance: 40, fromPurchased: 0 }),
        reserved('r1', 30),
      ]);
      expect(reservedTotal(spec.state)).toBe(30);
      expect(transferable(spec.state, ctx())).toBe(80);
      const error = spec
        .when({ type: 'TransferOut', transferId: 't1', credits: 81, to: 'organization:o1' }, ctx())
        .then('insufficient_credits');
      expect(error.details).toEqual({ available: 80, requested: 81 });
      const { state } = spec
        .when({ type: 'TransferOut', transferId: 't1', credits: 80, to: 'organization:o1' }, ctx())
        .then([
          { type: 'CreditsTransferredOut', data: { transferId: 't1', credits: 80, to: 'organization:o1' } },
        ]);
      expect(state.purchasedBalance).toBe(20);
      expect(state.lifetimePurchased).toBe(100);
      expect(available(state, ctx())).toBe(0);
    });

    it('never moves the monthly allocation', () => {
      given([started()])
        .when({ type: 'TransferOut', transferId: 't1', credits: 1, to: 'organization:o1' }, ctx())
        .then('insufficient_credits');
    });

    it('refuses invalid transfers out', () => {
      const spec = given([started(), purchased(10)]);
      spec
        .when({ type: 'TransferOut', transferId: 't1', credits: 0, to: 'organization:o1' }, ctx())
        .then('invalid_input');
      spec
        .when({ type: 'TransferOut', transferId: '', credits: 1, to: 'organization:o1' }, ctx())
        .then('invalid_input');
      spec.when({ type: 'TransferOut', transferId: 't1', credits: 1, to: '' }, ctx()).then('invalid_input');
    });

    it('moves purchased credits in; they are not counted as purchases of the receiver', () => {
      const { state } = given([])
        .when(
          { type: 'TransferIn', transferId: 't1', credits: 80, from: 'account:a1' },
          ctx({ allowance: 0 }),
        )
        .then([
          started(march, 0),
          { type: 'CreditsTransferredIn', data: { transferId: 't1', credits: 80, from: 'account:a1' } },
        ]);
      expect(state.purchasedBalance).toBe(80);
      expect(state.lifetimePurchased).toBe(0);
      expect(available(state, ctx({ allowance: 0 }))).toBe(80);
      given([])
        .when({ type: 'TransferIn', transferId: 't1', credits: -1, from: 'account:a1' }, ctx())
        .then('invalid_input');
      given([])
        .when({ type: 'TransferIn', transferId: 't1', credits: 1, from: '' }, ctx())
        .then('invalid_input');
    });
  });

  it('refuses an unknown command', () => {
    given([])
      .when({ type: 'MintCredits' } as never, ctx())
      .then('invalid_input');
  });
});
