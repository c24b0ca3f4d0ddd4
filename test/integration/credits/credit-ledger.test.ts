import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { CommandBus } from '@nestjs/cqrs';
import {
  ChangePlan,
  PurchaseCredits,
  RegisterAccount,
} from '../../../src/accounts/commands/account.commands.js';
import type { PlanId } from '../../../src/accounts/domain/plans.js';
import {
  CreditLedger,
  ledgerContextAt,
  type Reservation,
} from '../../../src/credits/commands/credit-ledger.js';
import { GrantCredits, ReserveCredits } from '../../../src/credits/commands/credit.commands.js';
import { CreditQueries } from '../../../src/credits/queries/credit-queries.js';
import { ReservationSweeper } from '../../../src/credits/reservation-sweeper.js';
import { ledgerDecider, ledgerStreamId } from '../../../src/credits/domain/ledger.js';
import { decodePosition } from '../../../src/platform/event-store/global-position.js';
import { WORKER_FAILURES_COLLECTION } from '../../../src/platform/scheduling/worker-failures.js';
import { ManualClock } from '../../../src/platform/clock/clock.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';
import { commandEnvelope, type Payer } from '../../../src/platform/event-sourcing/command-metadata.js';
import { SQL_KINDS } from '../../support/databases.js';
import { startTestService, waitForProjections, type TestService } from '../../support/service.js';

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

async function account(
  service: TestService,
  plan: PlanId,
  purchased = 0,
): Promise<{ id: string; payer: string }> {
  const bus = service.app.get(CommandBus);
  const { accountId } = await bus.execute(
    new RegisterAccount(
      `${plan}-${Math.random().toString(36).slice(2)}@example.com`,
      plan,
      undefined,
      operator(),
    ),
  );
  if (purchased > 0) await bus.execute(new PurchaseCredits(accountId, purchased, operator()));
  return { id: accountId, payer: `account:${accountId}` };
}

describe.each(SQL_KINDS)('credit ledger on %s', (kind) => {
  let service: TestService;
  // The tests on the system clock share one service, each on accounts of its own; a test with a clock of its
  // own starts its own service.
  let shared: TestService | undefined;
  const sharedService = async (): Promise<TestService> => (shared ??= await startTestService(kind));
  afterEach(async () => {
    if (service !== shared) await service?.dispose();
  });
  afterAll(async () => {
    await shared?.dispose();
  });

  it("a reservation decides with the payer's terms when the caller read them (the search's lookups), never with another payer's", async () => {
    service = await sharedService();
    const ledger = service.app.get(CreditLedger);
    const { payer } = await account(service, 'free'); // 50 monthly credits, nothing purchased
    const { payer: other } = await account(service, 'free');
    const terms = await ledger.payerTerms(payer);
    expect(terms).toEqual({
      payer,
      allowance: 50,
      cycleAnchor: expect.any(String),
      // The account version they came from: the ledger's append is conditioned on it (ADR 128).
      basis: { streamId: `account-${payer.slice('account:'.length)}`, version: 0 },
    });
    const at = new Date();
    expect(ledgerContextAt(terms, at)).toEqual(await ledger.ledgerContext(payer, at));
    expect(await ledger.payerTerms('organization:o-1')).toEqual({
      payer: 'organization:o-1',
      allowance: 0,
      cycleAnchor: null,
    });
    // Terms naming another payer are not this payer's: the reservation reads its own, and 60 > 50 is refused.
    const ask = { payer, amount: 60, category: 'host' as const, channel: 'api' as const };
    await expect(
      ledger.reserve({ ...ask, terms: { ...terms, payer: other, allowance: 100 } }, operator()),
    ).rejects.toMatchObject({ code: 'insufficient_credits' });
    // Given terms are what it decides with (here a larger allowance, as if the plan had just changed).
    const held = await ledger.reserve({ ...ask, terms: { ...terms, allowance: 100 } }, operator());
    expect(held.amount).toBe(60);
  });

  it('terms the account moved past are never decided with: the append condition fails and the command is decided again on the current terms (ADR 128)', async () => {
    service = await sharedService();
    const ledger = service.app.get(CreditLedger);
    const { id, payer } = await account(service, 'professional');
    const stale = await ledger.payerTerms(payer);
    expect(stale.allowance).toBeGreaterThan(60);
    await service.app.get(CommandBus).execute(new ChangePlan(id, 'free', operator()));
    // Given the professional terms, 60 credits would be granted; the account is on free (50) by now.
    const ask = { payer, amount: 60, category: 'host' as const, channel: 'api' as const };
    await expect(ledger.reserve({ ...ask, terms: stale }, operator())).rejects.toMatchObject({
      code: 'insufficient_credits',
    });
    const held = await ledger.reserve({ ...ask, amount: 50, terms: stale }, operator());
    expect(held.amount).toBe(50);
    const events = await service.context.storage.eventStore.readStream(ledgerStreamId(payer));
    // Its cycle started on the free plan's allowance: the stale terms never reached the ledger.
    expect(events.find((event) => event.type === 'CycleStarted')?.data).toMatchObject({ allowance: 50 });
    expect(events.filter((event) => event.type === 'CreditsReserved')).toHaveLength(1);
  });

  it('200 concurrent 1-credit reservations against 100 available: exactly 100 succeed, 100 get 402; usage agrees; a rebuild agrees', async () => {
    service = await sharedService();
    const ledger = service.app.get(CreditLedger);
    const queries = service.app.get(CreditQueries);
    // Free: 50 monthly credits, plus 50 purchased = 100 available.
    const { id, payer } = await account(service, 'free', 50);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) =>
        ledger.reserve(
          { payer, amount: 1, category: i % 2 ? 'host' : 'dns', channel: i % 5 === 0 ? 'mcp' : 'api' },
          operator(),
        ),
      ),
    );
    const granted = outcomes
      .filter((o) => o.status === 'fulfilled')
      .map((o) => (o as PromiseFulfilledResult<Awaited<ReturnType<CreditLedger['reserve']>>>).value);
    const refused = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => (o as PromiseRejectedResult).reason as ServiceError);
    expect(granted).toHaveLength(100);
    expect(refused).toHaveLength(100);
    for (const reason of refused) {
      expect(reason).toBeInstanceOf(ServiceError);
      expect(reason.code).toBe('insufficient_credits');
    }
    expect(await ledger.available(payer)).toBe(0);

    let last: string | null = null;
    for (const reservation of granted) last = await ledger.settle(reservation, 1, operator());
    await service.context.readYourWrites(['credit-state', 'credit-usage'], last);

    const state = await queries.creditState(id);
    expect(state).toMatchObject({
      monthly_credits: 50,
      credits_used: 100,
      purchased_credits: 0,
      lifetime_purchased: 50,
    });
    const usage = await queries.usage(id);
    const total = usage.usage.reduce((sum, entry) => sum + entry.credits, 0);
    expect(total).toBe(state.credits_used);
    const byCategory = Object.fromEntries(usage.usage.map((u) => [u.category, u.credits]));
    const expectedHost = granted.filter((r) => r.category === 'host').length;
    expect(byCategory).toMatchObject({ host: expectedHost, dns: 100 - expectedHost, whois: 0 });
    const mcp = usage.usage_mcp.reduce((sum, entry) => sum + entry.credits, 0);
    expect(mcp).toBe(granted.filter((r) => r.channel === 'mcp').length);
    expect(mcp).toBeLessThan(total); // a subset of usage, never an extra charge

    // Replaying the whole log gives the same credit state and usage.
    for (const name of ['credit-state', 'credit-usage', 'open-reservations']) {
      const verdict = await service.context.maintenance.verify(service.context.projections.definition(name));
      expect(verdict.equal).toBe(true);
    }
    await service.context.maintenance.rebuild(service.context.projections.definition('credit-state'));
    expect(await queries.creditState(id)).toEqual(state);
  });

  it('group commit: concurrent reservations on one payer take fewer appends than reservations, each caller gets its own outcome, every event its own attribution', async () => {
    service = await sharedService();
    const bus = service.app.get(CommandBus);
    const ledger = service.app.get(CreditLedger);
    const { payer } = await account(service, 'free', 50); // 100 available
    const caller = (i: number) =>
      commandEnvelope({ actor: `operator:client-${i}`, payer: 'system', correlationId: `req-${i}` });
    const count = 40;
    const outcomes = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        bus.execute(
          new ReserveCredits(
            // One asks for more than the payer ever had: refused wherever it lands in its group.
            { payer, amount: i === 20 ? 1000 : 1, category: 'host', channel: 'api' },
            caller(i),
          ),
        ),
      ),
    );
    outcomes.forEach((outcome, i) => {
      if (i === 20)
        expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'insufficient_credits' } });
      else expect(outcome).toMatchObject({ status: 'fulfilled', value: { payer, amount: 1 } });
    });
    expect(await ledger.available(payer)).toBe(100 - (count - 1));
    const reserved = (await service.context.storage.eventStore.readStream(ledgerStreamId(payer))).filter(
      (event) => event.type === 'CreditsReserved',
    );
    expect(reserved).toHaveLength(count - 1);
    const appends = new Set(reserved.map((event) => decodePosition(event.position).major));
    expect(appends.size).toBeLessThan(count - 1);
    // Each reservation's event names its own caller, and each granted caller holds exactly its own reservation.
    const byReservation = new Map(
      reserved.map((event) => [(event.data as { reservationId: string }).reservationId, event]),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.status !== 'fulfilled') return;
      const event = byReservation.get((outcome.value as Reservation).reservationId);
      expect(event?.metadata).toMatchObject({
        actor: `operator:client-${i}`,
        payer,
        correlationId: `req-${i}`,
      });
    });
  });

  it('group commit: commands queued together on one ledger are decided in order in one append; a reservation refused in the middle gets its own 402 and the ones after it proceed', async () => {
    service = await sharedService();
    const ledger = service.app.get(CreditLedger);
    const { id, payer } = await account(service, 'free', 50); // 100 available
    const context = await ledger.ledgerContext(payer);
    const amounts = [30, 30, 30, 20, 10, 5]; // the 20 finds 10 left: refused; the 10 fits; the 5 finds none
    const stream = ledgerStreamId(payer);
    const before = await service.context.storage.eventStore.streamVersion(stream);
    // Queued without a pause between them, as CreditLedger.reserve queues them once each has its context.
    const outcomes = await Promise.allSettled(
      amounts.map((amount, i) =>
        service.context.writer.decide({
          stream,
          decider: ledgerDecider,
          command: {
            type: 'ReserveCredits',
            reservationId: `r-${i}`,
            amount,
            category: 'dns',
            channel: 'api',
            ttlMs: 60_000,
          },
          context,
          envelope: commandEnvelope({
            actor: `operator:client-${i}`,
            payer: payer as Payer,
            correlationId: `req-${i}`,
          }),
          conflictRetries: 25,
          groupCommit: true,
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
    ]);
    expect((outcomes[3] as PromiseRejectedResult).reason).toMatchObject({
      code: 'insufficient_credits',
      details: { available: 10, requested: 20 },
    });
    expect((outcomes[5] as PromiseRejectedResult).reason).toMatchObject({
      code: 'insufficient_credits',
      details: { available: 0, requested: 5 },
    });
    const appended = await service.context.storage.eventStore.readStream(stream, {
      fromVersion: (before ?? -1) + 1,
    });
    expect(appended.map((event) => (event.data as { reservationId: string }).reservationId)).toEqual([
      'r-0',
      'r-1',
      'r-2',
      'r-4',
    ]);
    expect(new Set(appended.map((event) => event.position)).size).toBe(4);
    expect(new Set(appended.map((event) => decodePosition(event.position).major)).size).toBe(1); // one append
    expect(appended.map((event) => event.metadata.correlationId)).toEqual([
      'req-0',
      'req-1',
      'req-2',
      'req-4',
    ]);

    // Their settlements, concurrent too: each charged once, never more than was there.
    const settled = await Promise.all(
      [0, 1, 2, 4].map((i) =>
        ledger.settle(
          { reservationId: `r-${i}`, payer, amount: amounts[i]!, category: 'dns', channel: 'api' },
          amounts[i]!,
          operator(),
        ),
      ),
    );
    await service.context.readYourWrites(['credit-state'], settled.sort().at(-1) ?? null);
    expect(await service.app.get(CreditQueries).creditState(id)).toMatchObject({
      credits_used: 100,
      purchased_credits: 0,
    });
    expect(await ledger.available(payer)).toBe(0);
  });

  it('spends the monthly allocation first, then purchased credits; releasing returns the hold', async () => {
    service = await sharedService();
    const ledger = service.app.get(CreditLedger);
    const queries = service.app.get(CreditQueries);
    const { id, payer } = await account(service, 'free', 30); // 50 allowance + 30 purchased
    const big = await ledger.reserve({ payer, amount: 60, category: 'whois', channel: 'api' }, operator());
    const small = await ledger.reserve({ payer, amount: 5, category: 'host', channel: 'api' }, operator());
    expect(await ledger.available(payer)).toBe(15);
    await ledger.release(small, 'cancelled', operator());
    expect(await ledger.available(payer)).toBe(20);
    const position = await ledger.settle(big, 55, operator()); // charged less than reserved
    await service.context.readYourWrites(['credit-state'], position);
    const state = await ledger.state(payer);
    expect(state.cycle?.allowanceUsed).toBe(50);
    expect(state.purchasedBalance).toBe(25);
    expect(await queries.creditState(id)).toMatchObject({ credits_used: 55, purchased_credits: 25 });
    await expect(
      ledger.reserve({ payer, amount: 26, category: 'host', channel: 'api' }, operator()),
    ).rejects.toMatchObject({
      code: 'insufficient_credits',
    });
  });

  it('purchases and grants are commands; a grant retried with its id credits once; purchases outside 1..100,000,000 are refused', async () => {
    service = await sharedService();
    const bus = service.app.get(CommandBus);
    const queries = service.app.get(CreditQueries);
    const { id, payer } = await account(service, 'free', 7);
    await expect(bus.execute(new PurchaseCredits(id, 0, operator()))).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await expect(bus.execute(new PurchaseCredits(id, 100_000_001, operator()))).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await bus.execute(new GrantCredits(payer, 'welcome', 20, 'trial', operator()));
    await bus.execute(new GrantCredits(payer, 'welcome', 20, 'trial', operator()));
    expect(await queries.creditState(id)).toMatchObject({ purchased_credits: 27, lifetime_purchased: 7 });
    const events = await service.context.storage.eventStore.readStream(ledgerStreamId(payer));
    expect(events.filter((event) => event.type === 'CreditsTransferredIn')).toEqual([
      expect.objectContaining({
        data: { transferId: 'welcome', credits: 20, from: 'trial' },
        metadata: expect.objectContaining({ actor: 'operator:test', payer }),
      }),
    ]);
  });

  it('the sweeper releases a reservation abandoned by a crashed request once its time is up', async () => {
    const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
    service = await startTestService(kind, { clock });
    const ledger = service.app.get(CreditLedger);
    const { payer } = await account(service, 'professional');
    await ledger.reserve({ payer, amount: 40, category: 'host', channel: 'api', ttlMs: 60_000 }, operator());
    const kept = await ledger.reserve(
      { payer, amount: 10, category: 'host', channel: 'api', ttlMs: 600_000 },
      operator(),
    );
    expect(await ledger.available(payer)).toBe(5000 - 50);
    const sweeper = new ReservationSweeper(service.context, ledger);
    await waitForProjections(service, ['open-reservations']);
    expect(await sweeper.sweepOnce()).toBe(0); // nothing due yet
    clock.advance(61_000);
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(await ledger.available(payer)).toBe(5000 - 10);
    const state = await ledger.state(payer);
    expect(Object.keys(state.openReservations)).toEqual([kept.reservationId]);
    const released = (
      await service.context.storage.eventStore.readStream(`ledger-${payer.replace(':', '-')}`)
    ).filter((e) => e.type === 'ReservationReleased');
    expect(released).toHaveLength(1);
    expect(released[0]).toMatchObject({
      data: { reason: 'expired' },
      metadata: { actor: 'system:reservation-sweeper' },
    });
  });

  it('a payer whose ledger cannot be written never stops the reservation sweeper: the others are released; it is recorded, logged once, shown by /health/ready', async () => {
    const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
    service = await startTestService(kind, { clock });
    const ledger = service.app.get(CreditLedger);
    // An open reservation on the ledger of an account that no longer exists: expiring it throws, every time.
    // It is due first, so a sweep that stopped at it would never reach the others.
    const ghost = `account:${randomUUID()}`;
    await service.context.storage.eventStore.append(
      ledgerStreamId(ghost),
      [
        {
          id: randomUUID(),
          type: 'CreditsReserved',
          schemaVersion: 1,
          data: {
            reservationId: randomUUID(),
            amount: 5,
            category: 'host',
            channel: 'api',
            reservedAt: clock.now().toISOString(),
            expiresAt: new Date(clock.now().getTime() + 1_000).toISOString(),
          },
          metadata: operator().metadata,
        },
      ],
      { expectedVersion: 'no_stream' },
    );
    const { payer } = await account(service, 'professional');
    await ledger.reserve({ payer, amount: 40, category: 'host', channel: 'api', ttlMs: 60_000 }, operator());
    const logs: Array<{ level: string; fields: Record<string, unknown> }> = [];
    const sweeper = new ReservationSweeper(service.context, ledger, {
      retry: { baseDelayMs: 1, maxDelayMs: 1 },
      log: (level, _message, fields) => logs.push({ level, fields: fields ?? {} }),
    });
    await waitForProjections(service, ['open-reservations']);
    clock.advance(61_000);
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(await ledger.available(payer)).toBe(5000);
    for (let pass = 0; pass < 3; pass++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await sweeper.sweepOnce();
    }
    const health = service.context.background.get('reservation-sweeper');
    expect(health).toMatchObject({ ok: false, last_error: expect.stringMatching(/no account/) });
    expect(health?.failing_items?.[0]).toMatchObject({ id: ghost, consecutive_failures: 4 });
    expect(logs.filter((entry) => entry.fields.item === ghost)).toHaveLength(1);
    const records = await service.context.storage.readStore
      .collection(WORKER_FAILURES_COLLECTION)
      .find({ worker: 'reservation-sweeper' });
    expect(records).toEqual([expect.objectContaining({ item: ghost, attempts: 4 })]);
  });

  it('rolls the cycle over from the injected clock: a new allocation, usage counted per cycle, purchased credits kept', async () => {
    const clock = new ManualClock(new Date('2026-01-31T09:00:00.000Z'));
    service = await startTestService(kind, { clock });
    const ledger = service.app.get(CreditLedger);
    const queries = service.app.get(CreditQueries);
    const { id, payer } = await account(service, 'free', 20);
    const first = await ledger.reserve({ payer, amount: 60, category: 'host', channel: 'api' }, operator());
    await service.context.readYourWrites(['credit-state'], await ledger.settle(first, 60, operator()));
    expect(await queries.creditState(id)).toMatchObject({
      cycle_start: '2026-01-31T00:00:00.000Z',
      cycle_end: '2026-02-28T00:00:00.000Z',
      credits_used: 60,
      purchased_credits: 10,
    });

    clock.set('2026-02-28T00:00:00.000Z'); // the next cycle starts on the month's last day
    expect(await queries.creditState(id)).toMatchObject({
      cycle_start: '2026-02-28T00:00:00.000Z',
      credits_used: 0,
      purchased_credits: 10,
    });
    expect(await ledger.available(payer)).toBe(60);
    const second = await ledger.reserve({ payer, amount: 5, category: 'dns', channel: 'api' }, operator());
    await service.context.readYourWrites(
      ['credit-state', 'credit-usage'],
      await ledger.settle(second, 5, operator()),
    );
    expect(await queries.creditState(id)).toMatchObject({ credits_used: 5, purchased_credits: 10 });
    const usage = await queries.usage(id);
    expect(usage.cycle_start).toBe('2026-02-28T00:00:00.000Z');
    expect(usage.usage.find((u) => u.category === 'dns')?.credits).toBe(5);
    expect(usage.usage.find((u) => u.category === 'host')?.credits).toBe(0);
    const types = (
      await service.context.storage.eventStore.readStream(`ledger-${payer.replace(':', '-')}`)
    ).map((e) => e.type);
    expect(types.filter((t) => t === 'CycleStarted')).toHaveLength(2);
  });

  it('a plan change moves the allocation within the cycle', async () => {
    service = await sharedService();
    const ledger = service.app.get(CreditLedger);
    const { id, payer } = await account(service, 'free');
    expect(await ledger.available(payer)).toBe(50);
    await service.app.get(CommandBus).execute(new ChangePlan(id, 'professional', operator()));
    expect(await ledger.available(payer)).toBe(5000);
    const queries = service.app.get(CreditQueries);
    expect(await queries.creditState(id)).toMatchObject({
      monthly_credits: 5000,
      plan_label: 'Professional',
      has_paid_entitlement: true,
      is_legacy: false,
    });
    await service.app.get(CommandBus).execute(new ChangePlan(id, 'basic', operator()));
    expect(await queries.creditState(id)).toMatchObject({ plan_label: 'Basic (legacy)', is_legacy: true });
  });
});
