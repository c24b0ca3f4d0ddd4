import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { systemClock } from '../../../src/platform/clock/clock.js';
import { CheckpointSigner } from '../../../src/platform/event-store/checkpoint-signer.js';
import { type EventStore, WrongExpectedVersion } from '../../../src/platform/event-store/event-store.port.js';
import { TamperEvidence } from '../../../src/platform/event-store/tamper-evidence.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { Decider } from '../../../src/platform/event-sourcing/decider.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { decodePosition } from '../../../src/platform/event-store/global-position.js';
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

  it('a command id reused for another command on the stream is refused, not answered as a retry', async () => {
    type NoteEvent = { type: 'Noted'; data: { text: string } };
    const noter: Decider<{ text: string }, NoteEvent, CounterState, { now: Date }> = {
      initialState: { total: 0 },
      evolve: (state) => state,
      decide: (command) => [{ type: 'Noted', data: { text: command.text } }],
    };
    const stream = uniqueId('counter');
    const envelope = actor();
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    await repository.handle(
      stream,
      counter,
      { type: 'Increment', by: 1, max: 9 },
      { now: new Date() },
      envelope,
    );
    // A fresh repository (no cached state), as another request of the same process or another process.
    const other = new EventSourcedRepository(storage.eventStore, storage.readStore);
    await expect(other.handle(stream, noter, { text: 'x' }, { now: new Date() }, envelope)).rejects.toThrow(
      /command id reused on .*: event .* is stored as Incremented, this command decided Noted/,
    );
    await expect(
      other.handle(stream, noter, { text: 'x' }, { now: new Date() }, envelope, { groupCommit: true }),
    ).rejects.toThrow(/command id reused/);
    expect((await storage.eventStore.readStream(stream)).map((event) => event.type)).toEqual(['Incremented']);
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
  describe('group commit (ADR 91)', () => {
    type WalletEvent = { type: 'Deposited' | 'Withdrawn'; data: { amount: number } };
    type WalletCommand = { type: 'Deposit' | 'Withdraw'; amount: number };
    const wallet: Decider<WalletCommand, WalletEvent, { balance: number }, null> = {
      initialState: { balance: 0 },
      evolve: (state, event) => ({
        balance: state.balance + (event.type === 'Deposited' ? event.data.amount : -event.data.amount),
      }),
      decide: (command, state) => {
        if (command.type === 'Withdraw' && state.balance < command.amount)
          throw new ServiceError('insufficient_credits', 'not enough', { balance: state.balance });
        return [
          { type: command.type === 'Deposit' ? 'Deposited' : 'Withdrawn', data: { amount: command.amount } },
        ];
      },
    };
    const caller = (n: number) =>
      commandEnvelope({ actor: `account:c${n}`, payer: `account:p${n}`, correlationId: `req-${n}` });
    /** How many appends wrote a stream: one append is one transaction, the major part of its positions. */
    const appendsOf = async (stream: string, store: EventStore = storage.eventStore): Promise<number> =>
      new Set((await store.readStream(stream)).map((event) => decodePosition(event.position).major)).size;

    it('commands queued together are decided in order, each on the state the ones before it leave, and appended in one call; a refusal in the middle gets its own error', async () => {
      // A log of its own, so that its verification sees only what this test appended.
      const own = await createTestStorage(kind);
      try {
        const repository = new EventSourcedRepository(own.eventStore, own.readStore);
        const stream = uniqueId('wallet');
        await repository.handle(stream, wallet, { type: 'Deposit', amount: 10 }, null, caller(0), {
          groupCommit: true,
        });
        const commands: WalletCommand[] = [
          { type: 'Withdraw', amount: 4 },
          { type: 'Withdraw', amount: 4 },
          { type: 'Withdraw', amount: 4 }, // 2 left: refused
          { type: 'Deposit', amount: 5 },
          { type: 'Withdraw', amount: 7 }, // sees the deposit before it: 7 left
        ];
        const outcomes = await Promise.allSettled(
          commands.map((command, i) =>
            repository.handle(stream, wallet, command, null, caller(i + 1), { groupCommit: true }),
          ),
        );
        expect(outcomes.map((o) => o.status)).toEqual([
          'fulfilled',
          'fulfilled',
          'rejected',
          'fulfilled',
          'fulfilled',
        ]);
        const values = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined));
        expect(values[0]).toMatchObject({ state: { balance: 6 }, version: 1 });
        expect(values[1]).toMatchObject({ state: { balance: 2 }, version: 2 });
        expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({
          code: 'insufficient_credits',
          details: { balance: 2 },
        });
        expect(values[3]).toMatchObject({ state: { balance: 7 }, version: 3 });
        expect(values[4]).toMatchObject({ state: { balance: 0 }, version: 4 });
        // Every caller learns the position of the one append that holds its events.
        expect(new Set(values.filter(Boolean).map((v) => v!.position)).size).toBe(1);

        const history = await own.eventStore.readStream(stream);
        expect(history.map((e) => [e.type, (e.data as { amount: number }).amount])).toEqual([
          ['Deposited', 10],
          ['Withdrawn', 4],
          ['Withdrawn', 4],
          ['Deposited', 5],
          ['Withdrawn', 7],
        ]);
        expect(await appendsOf(stream, own.eventStore)).toBe(2); // the first deposit, then the group
        // Each event carries its own command's attribution, sealed as such.
        expect(history.map((e) => [e.metadata.actor, e.metadata.payer, e.metadata.correlationId])).toEqual([
          ['account:c0', 'account:p0', 'req-0'],
          ['account:c1', 'account:p1', 'req-1'],
          ['account:c2', 'account:p2', 'req-2'],
          ['account:c4', 'account:p4', 'req-4'],
          ['account:c5', 'account:p5', 'req-5'],
        ]);
        const keyDir = mkdtempSync(join(tmpdir(), 'group-commit-key-'));
        try {
          const evidence = new TamperEvidence(
            own.eventStore,
            CheckpointSigner.load({ dataDir: keyDir }),
            systemClock,
          );
          expect(await evidence.verify()).toMatchObject({ ok: true, finding: null });
        } finally {
          rmSync(keyDir, { recursive: true, force: true });
        }
        // The cached state is the group's: the next command decides on it.
        expect(await repository.load(stream, wallet)).toEqual({ state: { balance: 0 }, version: 4 });
      } finally {
        await own.dispose();
      }
    });

    it('N concurrent commands on one stream take fewer appends than N and never pass the rule', async () => {
      const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const stream = uniqueId('counter');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) =>
          repository.handle(
            stream,
            counter,
            { type: 'Increment', by: 1, max: 40 },
            { now: new Date() },
            caller(i),
            {
              groupCommit: true,
            },
          ),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(40);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(refused).toHaveLength(20);
      for (const o of refused) expect((o as PromiseRejectedResult).reason).toBeInstanceOf(ServiceError);
      expect(await storage.eventStore.streamVersion(stream)).toBe(39);
      expect(await appendsOf(stream)).toBeLessThan(40);
    });

    it('a retried command (same command id) queued with new ones stores nothing twice; the new ones append', async () => {
      const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const stream = uniqueId('counter');
      const retried = caller(1);
      const first = await repository.handle(
        stream,
        counter,
        { type: 'Increment', by: 3, max: 100 },
        { now: new Date() },
        retried,
        { groupCommit: true },
      );
      const [again, fresh] = await Promise.all([
        repository.handle(
          stream,
          counter,
          { type: 'Increment', by: 3, max: 100 },
          { now: new Date() },
          retried,
          {
            groupCommit: true,
          },
        ),
        repository.handle(
          stream,
          counter,
          { type: 'Increment', by: 2, max: 100 },
          { now: new Date() },
          caller(2),
          {
            groupCommit: true,
          },
        ),
      ]);
      expect(again).toMatchObject({ events: [], position: first.position });
      expect(fresh.events).toHaveLength(1);
      const history = await storage.eventStore.readStream(stream);
      expect(history.map((e) => (e.data as { by: number }).by)).toEqual([3, 2]);
    });

    it('two repositories (two processes) grouping on one stream: conflicts decide the group again, the rule holds', async () => {
      const a = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const b = new EventSourcedRepository(storage.eventStore, storage.readStore);
      const stream = uniqueId('counter');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) =>
          (i % 2 ? a : b).handle(
            stream,
            counter,
            { type: 'Increment', by: 1, max: 45 },
            { now: new Date() },
            caller(i),
            { conflictRetries: 50, groupCommit: true },
          ),
        ),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(45);
      const reasons = outcomes
        .filter((o) => o.status === 'rejected')
        .map((o) => ((o as PromiseRejectedResult).reason as ServiceError).code);
      expect(reasons).toEqual(Array(15).fill('insufficient_credits'));
      const history = await storage.eventStore.readStream(stream);
      expect(history.reduce((sum, e) => sum + (e.data as { by: number }).by, 0)).toBe(45);
    });

    /** A deposit appended straight to the store, as another instance's command would. */
    async function deposit(
      stream: string,
      amount: number,
      by: ReturnType<typeof caller>,
      expectedVersion: 'no_stream' | 'any',
    ): Promise<void> {
      await storage.eventStore.append(
        stream,
        [{ id: randomUUID(), type: 'Deposited', schemaVersion: 1, data: { amount }, metadata: by.metadata }],
        { expectedVersion },
      );
    }

    /** The same store, with another instance appending to `stream` just before each of the first `times` appends. */
    function racedBy(stream: string, times: number): EventStore {
      const raced = Object.create(storage.eventStore) as EventStore;
      let left = times;
      raced.append = async (streamId, events, options) => {
        if (streamId === stream && left-- > 0) await deposit(stream, 1, caller(99), 'any');
        return storage.eventStore.append(streamId, events, options);
      };
      return raced;
    }

    it("another instance's append decides the group again on the stream as it is (no client version: retried, as for one command)", async () => {
      const stream = uniqueId('wallet');
      const repository = new EventSourcedRepository(racedBy(stream, 2), storage.readStore);
      await deposit(stream, 5, caller(0), 'no_stream');
      const outcomes = await Promise.allSettled(
        [6, 1].map((amount, i) =>
          repository.handle(stream, wallet, { type: 'Withdraw', amount }, null, caller(i + 1), {
            groupCommit: true,
            conflictRetries: 3,
          }),
        ),
      );
      // On 5 the withdrawal of 6 is refused, on 6 the one of 1 after it; neither is final before an append lands.
      // Decided again on 5 + 1 + 1, both fit.
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled']);
      expect(await repository.load(stream, wallet)).toEqual({ state: { balance: 0 }, version: 4 });
    });

    it('a conflict that outlasts the retries fails every command of the group with WrongExpectedVersion', async () => {
      const stream = uniqueId('wallet');
      const repository = new EventSourcedRepository(racedBy(stream, 100), storage.readStore);
      await deposit(stream, 5, caller(0), 'no_stream');
      const outcomes = await Promise.allSettled(
        [1, 2, 100].map((amount, i) =>
          repository.handle(stream, wallet, { type: 'Withdraw', amount }, null, caller(i + 1), {
            groupCommit: true,
            conflictRetries: 2,
          }),
        ),
      );
      const reasons = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error) : undefined));
      expect(reasons[0]).toBeInstanceOf(WrongExpectedVersion);
      expect(reasons[1]).toBeInstanceOf(WrongExpectedVersion);
      // The refused one is decided again without the failed ones, on the stream as it is: still refused.
      expect(reasons[2]).toMatchObject({ code: 'insufficient_credits' });
      const history = await storage.eventStore.readStream(stream);
      expect(history.filter((e) => e.type === 'Withdrawn')).toEqual([]);
    });
  });
});
