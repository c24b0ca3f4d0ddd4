/**
 * ADR 132: a payer's search records appended as a group, on PGlite and the server, through the real handler and
 * event store: one append (consecutive versions, one transaction), each event with its own envelope and answer
 * time, and a retried group stores nothing twice.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { StreamWriter } from '../../../src/platform/event-sourcing/stream-writer.js';
import { RecordSearch, RecordSearches } from '../../../src/search/commands/search.commands.js';
import { RecordSearchesHandler } from '../../../src/search/commands/search.handlers.js';
import { searchesStreamId } from '../../../src/search/domain/search-record.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, uniqueId, type TestStorage } from '../../support/storage.js';

const answered = (query: string, at: string, payer: `account:${string}`) =>
  new RecordSearch(
    {
      kind: 'unified',
      query,
      timeFrame: 'all',
      broad: false,
      datasets: ['hosts'],
      outcomes: [{ dataset: 'hosts', status: 'ok', rows: 1, total: 1, lowerBound: false }],
      creditsCharged: 1,
    },
    commandEnvelope({ actor: payer, payer }),
    at,
  );

describe.each(SQL_KINDS)('search records appended as a group on %s', (kind) => {
  let storage: TestStorage;
  let handler: RecordSearchesHandler;

  beforeAll(async () => {
    storage = await createTestStorage(kind);
    const writer = new StreamWriter(
      new EventSourcedRepository(storage.eventStore, storage.readStore),
      storage.eventStore,
      async () => true,
    );
    handler = new RecordSearchesHandler(writer, { now: () => new Date() });
  });

  afterAll(async () => {
    await storage?.dispose();
  });

  it('one append: an event per search, each with its own envelope and time; a retry adds nothing', async () => {
    const payer = `account:${uniqueId('payer')}` as const;
    const group = new RecordSearches([
      answered('product:nginx', '2026-11-29T12:00:00.010Z', payer),
      answered('port:22', '2026-11-29T12:00:00.040Z', payer),
      answered('country:de', '2026-11-29T12:00:00.045Z', payer),
    ]);
    await handler.execute(group);
    await handler.execute(group);

    const events = await storage.eventStore.readStream(searchesStreamId(payer));
    expect(events.map((event) => event.streamVersion)).toEqual([0, 1, 2]);
    expect(events.map((event) => (event.data as { query: string }).query)).toEqual([
      'product:nginx',
      'port:22',
      'country:de',
    ]);
    expect(events.map((event) => (event.data as { at: string }).at)).toEqual([
      '2026-11-29T12:00:00.010Z',
      '2026-11-29T12:00:00.040Z',
      '2026-11-29T12:00:00.045Z',
    ]);
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
    expect(events.map((event) => event.metadata.correlationId)).toEqual(
      group.searches.map((search) => search.envelope.metadata.correlationId),
    );
    // Appended together: one recording time.
    expect(new Set(events.map((event) => event.recordedAt)).size).toBe(1);
  });

  it('refuses a group of several payers (their records belong to different streams)', async () => {
    await expect(
      handler.execute(
        new RecordSearches([
          answered('a', '2026-11-29T12:00:00.000Z', 'account:one'),
          answered('b', '2026-11-29T12:00:00.000Z', 'account:two'),
        ]),
      ),
    ).rejects.toThrow(/one payer/);
  });
});
