/**
 * `as_of` at a position reads a stream only up to that position, page by page (ADR 78): on real storage (PGlite
 * and the server) the events it returns are exactly those a whole read keeps, at every page boundary, with other
 * streams' events interleaved in the log; at a time the whole stream is read and filtered as before.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RecordedEvent } from '../../../src/platform/event-store/event-store.port.js';
import { STREAM_PREFIX_PAGE } from '../../../src/platform/event-store/stream-prefix.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import {
  includesStreamPrefix,
  readStreamsUpTo,
  readStreamUpTo,
  recordedBy,
  type LogPoint,
} from '../../../src/platform/projections/as-of-replay.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, newEvents, uniqueId, type TestStorage } from '../../support/storage.js';

describe.each(SQL_KINDS)('as_of stream prefixes on %s', (kind) => {
  let storage: TestStorage;
  const long = uniqueId('ledger');
  const other = uniqueId('other');
  let whole: RecordedEvent[];
  let wholeOther: RecordedEvent[];

  beforeAll(async () => {
    storage = await createTestStorage(kind);
    // Two pages and a half, in batches of 50, with the other stream's events between them.
    const total = STREAM_PREFIX_PAGE * 2 + STREAM_PREFIX_PAGE / 2;
    for (let version = 0; version < total; version += 50) {
      await storage.eventStore.append(
        long,
        newEvents(
          uniqueId('cmd'),
          Array.from({ length: 50 }, (_, i) => ({ type: 'Counted', data: { value: version + i } })),
        ),
        { expectedVersion: version === 0 ? 'no_stream' : version - 1 },
      );
      await storage.eventStore.append(
        other,
        newEvents(uniqueId('cmd'), [{ type: 'Counted', data: { value: version } }]),
        { expectedVersion: version === 0 ? 'no_stream' : version / 50 - 1 },
      );
    }
    whole = await storage.eventStore.readStream(long);
    wholeOther = await storage.eventStore.readStream(other);
    expect(whole).toHaveLength(total);
  });

  afterAll(async () => {
    await storage?.dispose();
  });

  const points = (): LogPoint[] => {
    const at = (version: number) => ({ position: whole[version]!.position });
    const page = STREAM_PREFIX_PAGE;
    return [
      at(0),
      at(page - 1),
      at(page),
      at(page + 1),
      at(2 * page - 1),
      at(whole.length - 1),
      // Between two events of the stream: the other stream's event after version 99.
      { position: wholeOther[2]!.position },
      { time: whole[700]!.recordedAt },
      { position: '00000000000000000000-00000000000000000000' },
    ];
  };

  it('returns exactly what a whole read keeps, at every page boundary', async () => {
    for (const point of points()) {
      const expected = whole.filter((event) => recordedBy(event, point));
      expect(await readStreamUpTo(storage.eventStore, long, point)).toEqual(expected);
      const both = [...expected, ...wholeOther.filter((event) => recordedBy(event, point))].sort((a, b) =>
        a.position < b.position ? -1 : 1,
      );
      expect(await readStreamsUpTo(storage.eventStore, [long, other, long], point)).toEqual(both);
    }
  });

  it('folds the same state through loadUpTo, reading a prefix at a position', async () => {
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore);
    const sum = {
      initialState: 0,
      evolve: (state: number, event: { readonly type: string; readonly data: unknown }) =>
        state + (event.data as { value: number }).value,
    };
    for (const point of points()) {
      const include = (event: RecordedEvent) => recordedBy(event, point);
      const full = await repository.loadUpTo(long, sum, include);
      const prefix = await repository.loadUpTo(long, sum, include, { prefix: includesStreamPrefix(point) });
      expect(prefix).toEqual(full);
      expect(prefix.events).toEqual(whole.filter(include));
    }
  });
});
