/**
 * StreamDecision.alongside (ADR 65): a write that commits with a decision's append. On the SQL event store it
 * runs in the append's transaction (both or neither); without a shared transaction it runs first, then the append.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SqlExecutor } from '../../../src/platform/database/sql-database.js';
import { StreamDeleted } from '../../../src/platform/event-store/event-store.port.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import type { Decider, DomainEvent } from '../../../src/platform/event-sourcing/decider.js';
import { EventSourcedRepository } from '../../../src/platform/event-sourcing/event-sourced-repository.js';
import { sqlAppendAlongside } from '../../../src/platform/event-sourcing/sql-append-alongside.js';
import { StreamWriter } from '../../../src/platform/event-sourcing/stream-writer.js';
import { SQL_KINDS } from '../../support/databases.js';
import { createTestStorage, uniqueId, type TestStorage } from '../../support/storage.js';

type Counted = DomainEvent<'Counted', { by: number }>;
const counter: Decider<{ type: 'Count'; by: number }, Counted, { total: number }, null> = {
  initialState: { total: 0 },
  evolve: (state, event) => ({ total: state.total + event.data.by }),
  decide: (command) => (command.by === 0 ? [] : [{ type: 'Counted', data: { by: command.by } }]),
};

describe.each(SQL_KINDS)('writes alongside a decision on %s', (kind) => {
  let storage: TestStorage;
  let transactional: StreamWriter;
  let separate: StreamWriter;
  const envelope = () => commandEnvelope({ actor: 'system:test', payer: 'system' });

  beforeAll(async () => {
    storage = await createTestStorage(kind);
    await storage.database.db.query(`CREATE TABLE side_writes (id text PRIMARY KEY)`);
    const appendAlongside = sqlAppendAlongside(storage.eventStore, storage.database.db);
    expect(appendAlongside).toBeDefined();
    transactional = new StreamWriter(
      new EventSourcedRepository(storage.eventStore, storage.readStore, {
        appendAlongside: appendAlongside!,
      }),
      storage.eventStore,
      async () => true,
    );
    separate = new StreamWriter(
      new EventSourcedRepository(storage.eventStore, storage.readStore),
      storage.eventStore,
      async () => true,
    );
  });
  afterAll(async () => {
    await storage.dispose();
  });

  const sideWrite =
    (id: string, seen: Array<SqlExecutor | undefined>) => async (within: SqlExecutor | undefined) => {
      seen.push(within);
      await (within ?? storage.database.db).query(
        `INSERT INTO side_writes (id) VALUES ($1) ON CONFLICT DO NOTHING`,
        [id],
      );
    };
  const written = async (id: string) =>
    (await storage.database.db.query(`SELECT id FROM side_writes WHERE id = $1`, [id])).rows.length === 1;

  it('commits the write with the append, inside its transaction', async () => {
    const stream = uniqueId('alongside');
    const seen: Array<SqlExecutor | undefined> = [];
    const result = await transactional.decide({
      stream,
      decider: counter,
      command: { type: 'Count', by: 1 },
      context: null,
      envelope: envelope(),
      alongside: sideWrite(stream, seen),
    });
    expect(result.version).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeDefined();
    expect(await written(stream)).toBe(true);
    expect(await storage.eventStore.readStream(stream)).toHaveLength(1);
  });

  it('rolls the write back when the append fails, and never writes for a decision of nothing', async () => {
    const stream = uniqueId('alongside');
    await transactional.decide({
      stream,
      decider: counter,
      command: { type: 'Count', by: 1 },
      context: null,
      envelope: envelope(),
    });
    await storage.eventStore.eraseStream(stream, { by: randomUUID(), at: new Date().toISOString() });
    transactional.forget(stream);
    const failed = `${stream}-failed`;
    await expect(
      transactional.decide({
        stream,
        decider: counter,
        command: { type: 'Count', by: 2 },
        context: null,
        envelope: envelope(),
        alongside: sideWrite(failed, []),
      }),
    ).rejects.toBeInstanceOf(StreamDeleted);
    expect(await written(failed)).toBe(false);

    const nothing = uniqueId('alongside');
    const seen: Array<SqlExecutor | undefined> = [];
    await transactional.decide({
      stream: nothing,
      decider: counter,
      command: { type: 'Count', by: 0 },
      context: null,
      envelope: envelope(),
      alongside: sideWrite(nothing, seen),
    });
    expect(seen).toEqual([]);
    expect(await written(nothing)).toBe(false);
  });

  it('without a shared transaction, writes first and then appends', async () => {
    const stream = uniqueId('alongside');
    const seen: Array<SqlExecutor | undefined> = [];
    await separate.decide({
      stream,
      decider: counter,
      command: { type: 'Count', by: 3 },
      context: null,
      envelope: envelope(),
      alongside: sideWrite(stream, seen),
    });
    expect(seen).toEqual([undefined]);
    expect(await written(stream)).toBe(true);
    expect(await storage.eventStore.readStream(stream)).toHaveLength(1);
  });
});
