import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WrongExpectedVersion } from '../../../src/platform/event-store/event-store.port.js';
import { eventIdFor } from '../../../src/platform/event-store/event-id.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { Decider, DomainEvent } from '../../../src/platform/event-sourcing/decider.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { StreamReader } from '../../../src/platform/event-sourcing/stream-reader.js';
import { StreamWriter } from '../../../src/platform/event-sourcing/stream-writer.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, testMetadata, uniqueId, type TestStorage } from '../../support/storage.js';

type Counted = DomainEvent<'Counted', { by: number }>;
const counter: Decider<{ type: 'Count'; by: number }, Counted, { total: number }, null> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command) => (command.by === 0 ? [] : [{ type: 'Counted', data: { by: command.by } }]),
};

describe.each(SQL_KINDS)('the write path (StreamWriter) on %s', (kind) => {
  let storage: TestStorage;
  let writer: StreamWriter;
  let reader: StreamReader;
  const waited: Array<{ projections: readonly string[]; position: string | null }> = [];

  beforeAll(async () => {
    storage = await createTestStorage(kind);
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    writer = new StreamWriter(repository, storage.eventStore, async (projections, position) => {
      waited.push({ projections, position });
      return true;
    });
    reader = new StreamReader(repository);
  });
  afterAll(async () => {
    await storage.dispose();
  });

  it('decides on the stream, appends at the expected version and waits for the projections named', async () => {
    const stream = uniqueId('counter');
    const envelope = commandEnvelope({ actor: 'system:test', payer: 'system' });
    const first = await writer.decide({
      stream,
      decider: counter,
      command: { type: 'Count', by: 2 },
      context: null,
      envelope,
      readYourWrites: ['counters'],
    });
    expect(first).toMatchObject({ version: 0, state: { total: 2 } });
    expect(waited.at(-1)).toEqual({ projections: ['counters'], position: first.position });

    // A stale client version is refused, never retried; nothing is appended.
    await expect(
      writer.decide({
        stream,
        decider: counter,
        command: { type: 'Count', by: 5 },
        context: null,
        envelope: commandEnvelope({ actor: 'system:test', payer: 'system' }),
        expectedVersion: 7,
      }),
    ).rejects.toBeInstanceOf(WrongExpectedVersion);
    expect(await reader.load(stream, counter)).toEqual({ state: { total: 2 }, version: 0 });

    // The same command again (its id) stores nothing twice.
    const retried = await writer.decide({
      stream,
      decider: counter,
      command: { type: 'Count', by: 2 },
      context: null,
      envelope,
    });
    expect(retried.events).toEqual([]);
    expect(await storage.eventStore.readStream(stream)).toHaveLength(1);
  });

  it('a once-only claim is appended once; another command finds who holds it, a retry finds its own', async () => {
    const stream = uniqueId('claim');
    const claim = (holder: string, eventKey: string) =>
      writer.onceOnly({ stream, type: 'Claimed', data: { holder }, eventKey, metadata: testMetadata() });
    expect(await claim('a', 'command-a')).toMatchObject({ appended: true });
    expect(await claim('a', 'command-a')).toMatchObject({ appended: true });
    const refused = await claim('b', 'command-b');
    expect(refused).toMatchObject({ appended: false, holder: { data: { holder: 'a' } } });
    const stored = await storage.eventStore.readStream(stream);
    expect(stored.map((event) => event.id)).toEqual([eventIdFor('command-a', 0)]);
  });

  it('`next` appends after the events already there (an intent after an abandoned one)', async () => {
    const stream = uniqueId('intent');
    const intent = (eventKey: string) =>
      writer.onceOnly({ stream, type: 'Intended', data: {}, eventKey, metadata: testMetadata(), at: 'next' });
    expect((await intent('first')).appended).toBe(true);
    expect((await intent('second')).appended).toBe(true);
    const stored = await storage.eventStore.readStream(stream);
    expect(stored.map((event) => [event.id, event.streamVersion])).toEqual([
      [eventIdFor('first', 0), 0],
      [eventIdFor('second', 0), 1],
    ]);
  });

  it('a record of evidence goes in at any version, and the same record again adds nothing', async () => {
    const stream = uniqueId('audit');
    const record = (eventKey: string) =>
      writer.record({ stream, type: 'Recorded', data: { eventKey }, eventKey, metadata: testMetadata() });
    await record('file-1');
    await record('file-2');
    await record('file-1');
    const stored = await storage.eventStore.readStream(stream);
    expect(stored.map((event) => event.data)).toEqual([{ eventKey: 'file-1' }, { eventKey: 'file-2' }]);
  });
});
