import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WrongExpectedVersion } from '../../../src/platform/event-store/event-store.port.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { Decider } from '../../../src/platform/event-sourcing/decider.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { ServiceError } from '../../../src/platform/errors/service-error.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, uniqueId, type TestStorage } from '../../support/storage.js';

type CounterEvent = { type: 'Incremented'; data: { by: number } };
type CounterCommand = { type: 'Increment'; by: number; max: number };
interface CounterState {
  readonly total: number;
}

/** A counter that refuses to pass its maximum: enough to see lost updates and retries. */
const counter: Decider<CounterCommand, CounterEvent, CounterState, { now: Date }> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command, state) => {
    if (state.total + command.by > command.max)
      throw new ServiceError('insufficient_credits', 'over the maximum');
    return [{ type: 'Incremented', data: { by: command.by } }];
  },
};

const actor = () => commandEnvelope({ actor: 'account:a1', payer: 'account:a1', correlationId: 'req-1' });

describe.each(SQL_KINDS)('event-sourced repository on %s', (kind) => {
  // One store per database kind: every test works on streams of its own (uniqueId), so they cannot meet.
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await createTestStorage(kind);
  });
  afterAll(async () => {
    await storage.dispose();
  });

  it('appends what the decider decides, attributed, and folds the new state', async () => {
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const stream = uniqueId('counter');
    const result = await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 2, max: 10 },
      { now: new Date() },
      actor(),
    );
    expect(result).toMatchObject({ state: { total: 2 }, version: 0 });
    const [event] = await storage.eventStore.readStream(stream);
    expect(event).toMatchObject({
      type: 'Incremented',
      data: { by: 2 },
      metadata: { actor: 'account:a1', correlationId: 'req-1' },
    });
  });

  it('serializes concurrent commands on one stream: no lost update, refusals decided on the true state', async () => {
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const stream = uniqueId('counter');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, () =>
        repository.handle(
          stream,
          counter,
          { type: 'Increment', by: 1, max: 25 },
          { now: new Date() },
          actor(),
        ),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(25);
    expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof ServiceError)).toHaveLength(
      15,
    );
    expect(await storage.eventStore.streamVersion(stream)).toBe(24);
  });

  it('two repositories (two processes) on one stream retry internal conflicts but never exceed the rule', async () => {
    const a = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const b = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const stream = uniqueId('counter');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? a : b).handle(
          stream,
          counter,
          { type: 'Increment', by: 1, max: 20 },
          { now: new Date() },
          actor(),
          { conflictRetries: 50 },
        ),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(20);
    const history = await storage.eventStore.readStream(stream);
    expect(history.reduce((sum, e) => sum + (e.data as { by: number }).by, 0)).toBe(20);
  });

  it('a client-supplied stale version is a WrongExpectedVersion, never retried', async () => {
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const stream = uniqueId('counter');
    await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 1, max: 9 },
      { now: new Date() },
      actor(),
    );
    await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 1, max: 9 },
      { now: new Date() },
      actor(),
    );
    await expect(
      repository.handle(stream, counter, { type: 'Increment', by: 1, max: 9 }, { now: new Date() }, actor(), {
        expectedVersion: 0,
      }),
    ).rejects.toBeInstanceOf(WrongExpectedVersion);
    const ok = await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 1, max: 9 },
      { now: new Date() },
      actor(),
      {
        expectedVersion: 1,
      },
    );
    expect(ok.version).toBe(2);
  });

  it('a retried command (same command id) stores nothing twice and reports nothing new', async () => {
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const stream = uniqueId('counter');
    const envelope = actor();
    const first = await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 3, max: 9 },
      { now: new Date() },
      envelope,
    );
    const retry = await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 3, max: 9 },
      { now: new Date() },
      envelope,
    );
    expect(first.events).toHaveLength(1);
    expect(retry).toMatchObject({ events: [], state: { total: 3 }, version: 0, position: first.position });
    expect(await storage.eventStore.readStream(stream)).toHaveLength(1);
  });

  it('loads from a snapshot plus the newer events, and ignores a snapshot of an erased stream', async () => {
    const writer = new EventSourcedRepository(storage.eventStore, storage.readStore, { snapshotEvery: 10 });
    const stream = uniqueId('counter');
    for (let i = 0; i < 25; i++) {
      await writer.handle(
        stream,
        counter,
        { type: 'Increment', by: 1, max: 1000 },
        { now: new Date() },
        actor(),
      );
    }
    const snapshot = await storage.readStore.collection('stream_snapshots').get(stream);
    expect(snapshot).toMatchObject({ version: 19, state: { total: 20 } });
    const reader = new EventSourcedRepository(storage.eventStore, storage.readStore, { snapshotEvery: 10 });
    expect(await reader.load(stream, counter)).toEqual({ state: { total: 25 }, version: 24 });

    await storage.eventStore.eraseStream(stream, { by: randomUUID(), at: new Date().toISOString() });
    const afterErasure = new EventSourcedRepository(storage.eventStore, storage.readStore, {
      snapshotEvery: 10,
    });
    expect(await afterErasure.load(stream, counter)).toEqual({ state: { total: 0 }, version: null });
  });

  it('ignores a snapshot and a cached state of another state shape (Decider.stateVersion), folding the stream again', async () => {
    // The same stream, its state reshaped: { total } became { sum, count } (state version 2).
    const reshaped: Decider<CounterCommand, CounterEvent, { sum: number; count: number }, { now: Date }> = {
      initialState: { sum: 0, count: 0 },
      stateVersion: 2,
      evolve: (state, event) => ({ sum: state.sum + event.data.by, count: state.count + 1 }),
      decide: (command) => [{ type: 'Incremented', data: { by: command.by } }],
    };
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore, {
      snapshotEvery: 10,
    });
    const stream = uniqueId('counter');
    for (let i = 0; i < 12; i++) {
      await repository.handle(
        stream,
        counter,
        { type: 'Increment', by: 2, max: 1000 },
        { now: new Date() },
        actor(),
      );
    }
    expect(await storage.readStore.collection('stream_snapshots').get(stream)).toMatchObject({
      version: 9,
      stateVersion: 1,
      state: { total: 20 },
    });
    // The cache of this process holds shape 1: shape 2 folds the stream instead of reading it.
    expect(await repository.load(stream, reshaped)).toEqual({ state: { sum: 24, count: 12 }, version: 11 });
    // Another process: the shape 1 snapshot is ignored.
    const restarted = new EventSourcedRepository(storage.eventStore, storage.readStore, {
      snapshotEvery: 10,
    });
    expect(await restarted.load(stream, reshaped)).toEqual({ state: { sum: 24, count: 12 }, version: 11 });
    // Deciding in shape 2 from a snapshot of shape 1 never mixes them; its own snapshot then carries shape 2.
    for (let i = 0; i < 8; i++) {
      await restarted.handle(
        stream,
        reshaped,
        { type: 'Increment', by: 1, max: 0 },
        { now: new Date() },
        actor(),
      );
    }
    expect(await storage.readStore.collection('stream_snapshots').get(stream)).toMatchObject({
      version: 19,
      stateVersion: 2,
      state: { sum: 32, count: 20 },
    });
    const third = new EventSourcedRepository(storage.eventStore, storage.readStore, { snapshotEvery: 10 });
    expect(await third.load(stream, reshaped)).toEqual({ state: { sum: 32, count: 20 }, version: 19 });
    expect(await third.load(stream, counter)).toEqual({ state: { total: 32 }, version: 19 });
  });

  describe('deciding on the cached state of this process', () => {
    type WalletEvent = { type: 'Deposited' | 'Withdrawn'; data: { amount: number } };
    type WalletCommand = { type: 'Deposit' | 'Withdraw'; amount: number };
    const wallet: Decider<WalletCommand, WalletEvent, { balance: number }, null> = {
      initialState: { balance: 0 },
      evolve: (state, event) => ({
        balance: state.balance + (event.type === 'Deposited' ? event.data.amount : -event.data.amount),
      }),
      decide: (command, state) => {
        if (command.type === 'Withdraw' && state.balance < command.amount)
          throw new ServiceError('insufficient_credits', 'not enough');
        return [
          { type: command.type === 'Deposit' ? 'Deposited' : 'Withdrawn', data: { amount: command.amount } },
        ];
      },
    };

    it('a refusal on a stale cache is decided again on the stream as it is', async () => {
      const a = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const b = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const stream = uniqueId('wallet');
      await a.handle(stream, wallet, { type: 'Deposit', amount: 1 }, null, actor());
      // Another process deposits: a's cache (balance 1) is now stale.
      await b.handle(stream, wallet, { type: 'Deposit', amount: 10 }, null, actor());
      const result = await a.handle(stream, wallet, { type: 'Withdraw', amount: 5 }, null, actor());
      expect(result).toMatchObject({ state: { balance: 6 }, version: 2 });
    });

    it('a stale cache never turns into a lost update: the append conflicts and the command is decided again', async () => {
      const a = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const b = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const stream = uniqueId('wallet');
      await a.handle(stream, wallet, { type: 'Deposit', amount: 10 }, null, actor());
      await b.handle(stream, wallet, { type: 'Withdraw', amount: 8 }, null, actor());
      // a still believes the balance is 10; the stream says 2.
      await expect(a.handle(stream, wallet, { type: 'Withdraw', amount: 5 }, null, actor())).rejects.toThrow(
        'not enough',
      );
      expect(await storage.eventStore.streamVersion(stream)).toBe(1);
    });

    it("a client's version newer than the cache is checked against the stream, not the cache", async () => {
      const a = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const b = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const stream = uniqueId('wallet');
      await a.handle(stream, wallet, { type: 'Deposit', amount: 1 }, null, actor());
      await b.handle(stream, wallet, { type: 'Deposit', amount: 1 }, null, actor());
      const result = await a.handle(stream, wallet, { type: 'Deposit', amount: 1 }, null, actor(), {
        expectedVersion: 1,
      });
      expect(result.version).toBe(2);
      await expect(
        a.handle(stream, wallet, { type: 'Deposit', amount: 1 }, null, actor(), { expectedVersion: 1 }),
      ).rejects.toBeInstanceOf(WrongExpectedVersion);
    });
  });
});
