import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { eventIdFor } from '../../../src/platform/event-store/event-id.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { Decider, DomainEvent } from '../../../src/platform/event-sourcing/decider.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { Upcasters, type Upcaster } from '../../../src/platform/event-sourcing/upcasters.js';
import type { ProjectionDefinition } from '../../../src/platform/projections/projection-definition.js';
import { ProjectionMaintenance } from '../../../src/platform/projections/projection-maintenance.js';
import { ProjectionRunner } from '../../../src/platform/projections/projection-runner.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, testMetadata, uniqueId, type TestStorage } from '../../support/storage.js';

// No stored event has changed shape yet, so this test owns the only upcaster: `Deposited` stored as
// `{ cents }` at schema version 1 is `{ amount: { value, currency } }` at version 2.
type Deposited = DomainEvent<'Deposited', { amount: { value: number; currency: string } }>;

const depositedFromCents: Upcaster = {
  type: 'Deposited',
  fromVersion: 1,
  upcast: (data) => ({ amount: { value: (data as { cents: number }).cents / 100, currency: 'EUR' } }),
};

const wallet: Decider<{ type: 'Deposit'; value: number }, Deposited, { balance: number }, null> = {
  initialState: { balance: 0 },
  evolve: (state, event) => ({ balance: state.balance + event.data.amount.value }),
  decide: (command) => [{ type: 'Deposited', data: { amount: { value: command.value, currency: 'EUR' } } }],
};

const balances: ProjectionDefinition<Deposited> = {
  name: 'test-balances',
  version: 1,
  collections: { test_balances: {} },
  handles: ['Deposited'],
  reads: (event) => [{ collection: 'test_balances', id: event.streamId }],
  apply(event, view) {
    const current = view.get<{ id: string; balance: number }>('test_balances', event.streamId);
    view.put('test_balances', {
      id: event.streamId,
      balance: (current?.balance ?? 0) + event.data.amount.value,
    });
  },
};

const storedAtVersion1 = (stream: string, cents: number[]) =>
  cents.map((value, index) => ({
    id: eventIdFor(`old:${stream}`, index),
    type: 'Deposited',
    schemaVersion: 1,
    data: { cents: value },
    metadata: testMetadata(),
  }));

describe('the upcaster registry', () => {
  const recorded = (schemaVersion: number, data: unknown): RecordedEvent => ({
    id: 'e1',
    type: 'Deposited',
    schemaVersion,
    data,
    metadata: testMetadata(),
    streamId: 'wallet-1',
    streamVersion: 0,
    position: '1',
    recordedAt: '2026-01-01T00:00:00.000Z',
  });

  it('depositedFromCents: a version 1 Deposited reads as the current shape, version 2', () => {
    const upcasters = new Upcasters([depositedFromCents]);
    expect(upcasters.currentVersion('Deposited')).toBe(2);
    expect(upcasters.currentVersion('Withdrawn')).toBe(1);
    expect(upcasters.upcast(recorded(1, { cents: 1250 }))).toMatchObject({
      schemaVersion: 2,
      data: { amount: { value: 12.5, currency: 'EUR' } },
    });
    const current = recorded(2, { amount: { value: 1, currency: 'EUR' } });
    expect(upcasters.upcast(current)).toBe(current);
  });

  it('chains upcasters up to the current version, and refuses a gap or a duplicate', () => {
    const renamed: Upcaster = {
      type: 'Deposited',
      fromVersion: 2,
      upcast: (data) => ({ ...(data as object), note: null }),
    };
    const upcasters = new Upcasters([renamed, depositedFromCents]);
    expect(upcasters.currentVersion('Deposited')).toBe(3);
    expect(upcasters.upcast(recorded(1, { cents: 100 }))).toMatchObject({
      schemaVersion: 3,
      data: { amount: { value: 1 }, note: null },
    });
    expect(() => new Upcasters([renamed])).toThrow(/no upcaster of Deposited from version 1/);
    expect(() => new Upcasters([depositedFromCents, depositedFromCents])).toThrow(/two upcasters/);
  });
});

describe.each(SQL_KINDS)('upcasting on %s', (kind) => {
  let storage: TestStorage;
  beforeAll(async () => {
    storage = await createTestStorage(kind);
  });
  afterAll(async () => {
    await storage.dispose();
  });

  it('a decider folds older events in their current shape, and new ones are stored at the current version', async () => {
    const stream = uniqueId('wallet');
    await storage.eventStore.append(stream, storedAtVersion1(stream, [1000, 250]), {
      expectedVersion: 'no_stream',
    });
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore, {
      upcasters: new Upcasters([depositedFromCents]),
    });
    expect(await repository.load(stream, wallet)).toEqual({ state: { balance: 12.5 }, version: 1 });
    const result = await repository.handle(
      stream,
      wallet,
      { type: 'Deposit', value: 5 },
      null,
      commandEnvelope({ actor: 'account:a1', payer: 'account:a1' }),
    );
    expect(result.state).toEqual({ balance: 17.5 });
    const [, , appended] = await storage.eventStore.readStream(stream);
    expect(appended).toMatchObject({ schemaVersion: 2, data: { amount: { value: 5, currency: 'EUR' } } });
  });

  it('a projection applies older events in their current shape, live and when rebuilt', async () => {
    const stream = uniqueId('wallet');
    const upcasters = new Upcasters([depositedFromCents]);
    const runner = new ProjectionRunner(storage.eventStore, storage.readStore, [balances], {
      upcasters,
      generationCheckMs: 50,
      retryDelayMs: [10, 100],
    });
    try {
      await runner.start();
      await storage.eventStore.append(stream, storedAtVersion1(stream, [700, 50]), {
        expectedVersion: 'no_stream',
      });
      const head = await storage.eventStore.headPosition();
      expect(await runner.waitFor([balances.name], head!, 10_000)).toBe(true);
      expect(await runner.collection('test-balances', 'test_balances').get(stream)).toMatchObject({
        balance: 7.5,
      });
      // A rebuild and verification read the log through the same engine, so through the same upcasters.
      const maintenance = new ProjectionMaintenance(runner.engine, { dropGraceMs: 0 });
      expect((await maintenance.verify(balances)).equal).toBe(true);
    } finally {
      await runner.stop();
    }
  });
});
