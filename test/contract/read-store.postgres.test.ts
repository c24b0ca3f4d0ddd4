/**
 * The ReadStore contract against PostgreSQL JSONB: in-memory PGlite, and a fresh database on the PostgreSQL
 * server (TEST_DATABASE_URL). Plus query plans: the expressions the store queries with are the ones its
 * indexes are built on, so the planner uses the declared indexes for ranges and ordering.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  buildFindStatement,
  PostgresReadStore,
} from '../../src/platform/read-store/postgres/postgres-read-store.js';
import {
  CheckpointMoved,
  type DocumentChange,
  type Filter,
  type FindOptions,
} from '../../src/platform/read-store/read-store.port.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../support/databases.js';
import { readStoreContract, type ReadStoreUnderTest } from './read-store.contract.js';

for (const kind of SQL_KINDS) {
  readStoreContract(kind, async (): Promise<ReadStoreUnderTest> => {
    const database = await createTestDatabase(kind);
    const store = new PostgresReadStore(database.db);
    await store.init();
    return {
      store,
      dispose: async () => {
        await store.close();
        await database.dispose();
      },
    };
  });
}

describe('PostgresReadStore identifiers', () => {
  let database: TestDatabase;
  let store: PostgresReadStore;

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    store = new PostgresReadStore(database.db);
    await store.init();
    await store.ensureCollection('safe');
  });

  afterAll(async () => {
    await database?.dispose();
  });

  it('only interpolates validated names and paths', async () => {
    expect(() => store.collection('docs"; DROP TABLE rs_meta; --')).toThrow(/invalid collection name/);
    expect(() => store.collection('Upper')).toThrow(/invalid collection name/);
    expect(() => store.collection('x'.repeat(52))).toThrow(/invalid collection name/);
    expect(() => store.collection('meta')).toThrow(/reserved/);
    await expect(store.ensureCollection('safe', [{ name: 'bad name', fields: [['a', 1]] }])).rejects.toThrow(
      /invalid index name/,
    );
    await expect(
      store.ensureCollection('safe', [{ name: 'containment', fields: [['a', 1]] }]),
    ).rejects.toThrow(/reserved/);
    const docs = store.collection('safe');
    await expect(docs.find({ "a'}') OR true; --": 1 })).rejects.toThrow(/invalid field path/);
    await expect(docs.find({}, { sort: [['a..b', 1]] })).rejects.toThrow(/invalid field path/);
    await expect(docs.find({ a: { $regex: 'x' } as never })).rejects.toThrow(/unsupported filter operator/);
    await expect(docs.find({ $where: 'x' } as never)).rejects.toThrow(/unsupported filter operator/);
  });

  it('names index relations after the collection, shortened with a hash past 63 bytes', async () => {
    const longName = `c${'x'.repeat(50)}`;
    await store.ensureCollection(longName, [{ name: 'by_a_rather_long_index_name', fields: [['a', 1]] }]);
    await store.ensureCollection(longName, [{ name: 'by_a_rather_long_index_name', fields: [['a', 1]] }]);
    const { rows } = await database.db.query<{ name: string }>(
      `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = $1::regclass ORDER BY 1`,
      [`rs_${longName}`],
    );
    expect(rows).toHaveLength(3);
    for (const { name } of rows) expect(Buffer.byteLength(name.replaceAll('"', ''))).toBeLessThanOrEqual(63);
    expect(await store.listCollections('cxxx')).toEqual([longName]);
  });
});

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly 'Index Cond'?: string;
  readonly Plans?: readonly PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

describe.each(SQL_KINDS)('PostgresReadStore query plans: %s', (kind) => {
  const collection = 'plans';
  let database: TestDatabase;
  let store: PostgresReadStore;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = new PostgresReadStore(database.db);
    await store.init();
    await store.ensureCollection(collection, [
      { name: 'by_at', fields: [['at', 1]] },
      {
        name: 'by_category_at',
        fields: [
          ['category', 1],
          ['at', -1],
        ],
      },
      { name: 'by_label', fields: [['meta.label', 1]] },
    ]);
    for (let batch = 0; batch < 5; batch += 1) {
      const changes = Array.from({ length: 1_000 }, (_, i): DocumentChange => {
        const n = batch * 1_000 + i;
        return {
          kind: 'upsert',
          collection,
          document: { id: `doc-${n}`, at: n, category: `c${n % 20}`, meta: { label: `item-${n}` } },
        };
      });
      await store.applyBatch(changes, { key: 'plans@1', position: String(batch) });
    }
    await database.db.exec('ANALYZE');
  });

  afterAll(async () => {
    await store?.close();
    await database?.dispose();
  });

  /** The plan of exactly the statement find() runs, with sequential scans priced out. */
  async function planOf(filter: Filter, options: FindOptions, of = collection): Promise<PlanNode[]> {
    const statement = buildFindStatement(of, filter, options);
    return database.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (FORMAT JSON) ${statement.text}`,
        statement.params,
      );
      const plan = rows[0]?.['QUERY PLAN'][0].Plan;
      if (!plan) throw new Error('EXPLAIN returned no plan');
      return flatten(plan);
    });
  }

  const indexScansOf = (nodes: readonly PlanNode[]): PlanNode[] =>
    nodes.filter((node) => node['Node Type'] === 'Index Scan' || node['Node Type'] === 'Index Only Scan');
  const sortsOf = (nodes: readonly PlanNode[]): PlanNode[] =>
    nodes.filter((node) => /Sort/.test(node['Node Type']));

  it('a numeric range sorted on the same field is one scan of its index, without sorting', async () => {
    const nodes = await planOf({ at: { $gte: 1_000, $lt: 2_000 } }, { sort: [['at', 1]], limit: 20 });
    const scans = indexScansOf(nodes);
    expect(scans.map((node) => node['Index Name'])).toEqual(['rs_plans__by_at']);
    expect(scans[0]?.['Index Cond']).toMatch(/numeric/);
    expect(sortsOf(nodes)).toEqual([]);

    const found = await store
      .collection(collection)
      .find({ at: { $gte: 1_000, $lt: 2_000 } }, { sort: [['at', 1]] });
    expect(found).toHaveLength(1_000);
    expect(found[0]?.id).toBe('doc-1000');
  });

  it('a multi-field sort in the declared directions is served by the compound index', async () => {
    const sort = [
      ['category', 1],
      ['at', -1],
    ] as const;
    const nodes = await planOf({}, { sort, limit: 10, offset: 30 });
    expect(indexScansOf(nodes).map((node) => node['Index Name'])).toEqual(['rs_plans__by_category_at']);
    expect(sortsOf(nodes)).toEqual([]);

    const page = await store.collection(collection).find({}, { sort, limit: 3 });
    expect(page.map((document) => document.id)).toEqual(['doc-4980', 'doc-4960', 'doc-4940']);
  });

  it('a string prefix on a dotted path is a range scan of its index, in code point order', async () => {
    const nodes = await planOf(
      { 'meta.label': { $prefix: 'item-12' } },
      { sort: [['meta.label', 1]], limit: 10 },
    );
    const scans = indexScansOf(nodes);
    expect(scans.map((node) => node['Index Name'])).toEqual(['rs_plans__by_label']);
    // The planner turned the LIKE prefix into an index range, which only happens under COLLATE "C".
    expect(scans[0]?.['Index Cond']).toMatch(/>= 'item-12'.*< 'item-13'/);
    expect(sortsOf(nodes)).toEqual([]);

    const found = await store
      .collection(collection)
      .find({ 'meta.label': { $prefix: 'item-12' } }, { sort: [['meta.label', 1]] });
    expect(found.map((document) => document.id).slice(0, 3)).toEqual(['doc-12', 'doc-120', 'doc-1200']);
    expect(found).toHaveLength(111);
  });

  it('$is on the leading field, sorted by the whole index, is one seek of it without sorting', async () => {
    const sort = [
      ['category', 1],
      ['at', -1],
    ] as const;
    const nodes = await planOf({ category: { $is: 'c7' } }, { sort, limit: 10 });
    const scans = indexScansOf(nodes);
    expect(scans.map((node) => node['Index Name'])).toEqual(['rs_plans__by_category_at']);
    // The category is a boundary of the scan (its number key `IS NULL` bound too), not a filter on it.
    expect(scans[0]?.['Index Cond']).toMatch(/IS NULL.*= 'c7'/);
    expect(sortsOf(nodes)).toEqual([]);
    // And a keyset seek past a key on the next field stays one scan of the same index.
    const seek = await planOf({ category: { $is: 'c7' }, at: { $lt: 2_007 } }, { sort, limit: 10 });
    expect(indexScansOf(seek).map((node) => node['Index Name'])).toEqual(['rs_plans__by_category_at']);
    expect(sortsOf(seek)).toEqual([]);

    const page = await store.collection(collection).find({ category: { $is: 'c7' } }, { sort, limit: 3 });
    expect(page.map((document) => document.id)).toEqual(['doc-4987', 'doc-4967', 'doc-4947']);
    const next = await store
      .collection(collection)
      .find({ category: { $is: 'c7' }, at: { $lt: 4_947 } }, { sort, limit: 2 });
    expect(next.map((document) => document.id)).toEqual(['doc-4927', 'doc-4907']);
  });

  it('equality uses the containment index', async () => {
    const nodes = await planOf({ category: 'c7' }, {});
    expect(nodes.map((node) => node['Index Name']).filter(Boolean)).toContain('rs_plans__containment');
    expect(await store.collection(collection).count({ category: 'c7' })).toBe(250);
  });

  it('a strings-only index holds one key a field and serves $string within an id range (ADR 127)', async () => {
    const entries = 'entries';
    await store.ensureCollection(entries, [{ name: 'by_type', fields: [['type', 1]], stringsOnly: true }], {
      withoutContainmentIndex: true,
    });
    const { rows } = await database.db.query<{ ddl: string }>(
      `SELECT pg_get_indexdef(to_regclass('rs_entries__by_type')) AS ddl`,
    );
    // The text key and the id, not the type rank and number key of a full index.
    expect(rows[0]?.ddl).not.toMatch(/jsonb_typeof.*jsonb_typeof.*jsonb_typeof/);
    expect(rows[0]?.ddl).toMatch(/COLLATE "C".*, id\)$/);
    const types = ['Common', 'Rare', 7, true] as const;
    const changes = Array.from({ length: 4_000 }, (_, n): DocumentChange => ({
      kind: 'upsert',
      collection: entries,
      // Keys k0..k3, each a range of ids; 'Rare' only every 100th entry; numbers and booleans never match.
      document: {
        id: `k${n % 4}@${String(n).padStart(6, '0')}`,
        type: n % 100 === 0 ? 'Rare' : types[n % 4 === 2 ? 2 : n % 4 === 3 ? 3 : 0],
      },
    }));
    await store.applyBatch(changes, { key: 'entries@1', position: '1' });
    await database.db.exec('ANALYZE rs_entries');
    const filter: Filter = { id: { $gt: 'k0@', $lt: 'k0@~' }, type: { $string: 'Rare' } };
    const nodes = await planOf(filter, { sort: [['id', 1]], limit: 5 }, entries);
    // The type and the key's id range are both bounds of one index's scan (a bitmap here: the 40 rows are few).
    const scans = nodes.filter((node) => /Index Scan/.test(node['Node Type']));
    expect(scans.map((node) => node['Index Name'])).toEqual(['rs_entries__by_type']);
    expect(scans[0]?.['Index Cond']).toMatch(/= 'Rare'.*id > 'k0@'.*id < 'k0@~'/);
    const found = await store.collection(entries).find(filter, { sort: [['id', 1]] });
    expect(found.map((document) => document.id)).toEqual(
      Array.from({ length: 40 }, (_, i) => `k0@${String(i * 100).padStart(6, '0')}`),
    );
    // The index holds strings only; numbers and booleans are still found by $is, never by $string.
    expect(await store.collection(entries).count({ type: { $is: 7 } })).toBe(1_000);
    expect(await store.collection(entries).count({ type: { $string: '7' } })).toBe(0);
    expect(await store.collection(entries).count({ type: { $string: 'true' } })).toBe(0);
  });

  it('refuses a unique strings-only index', async () => {
    await expect(
      store.ensureCollection('refused', [
        { name: 'u', fields: [['type', 1]], unique: true, stringsOnly: true },
      ]),
    ).rejects.toThrow(/cannot be unique on strings only/);
  });

  it('leaves the containment index out where a collection asks (ADR 127), and filters still hold', async () => {
    const indexesOf = async (table: string) =>
      (
        await database.db.query<{ name: string }>(
          `SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
            WHERE x.indrelid = to_regclass($1) ORDER BY 1`,
          [table],
        )
      ).rows.map((row) => row.name);
    const declared = [{ name: 'by_stream', fields: [['stream', 1]] as [string, 1][] }];
    // Created with it (as before the option), then ensured without it: the index goes.
    await store.ensureCollection('narrow', declared);
    expect(await indexesOf('rs_narrow')).toContain('rs_narrow__containment');
    await store.ensureCollection('narrow', declared, { withoutContainmentIndex: true });
    expect(await indexesOf('rs_narrow')).not.toContain('rs_narrow__containment');
    expect(await indexesOf('rs_narrow')).toContain('rs_narrow__by_stream');
    await store.applyBatch(
      [
        { kind: 'upsert', collection: 'narrow', document: { id: 'a', stream: 's1', type: 'T' } },
        { kind: 'upsert', collection: 'narrow', document: { id: 'b', stream: 's2', type: 'U' } },
        { kind: 'deleteWhere', collection: 'narrow', filter: { $or: [{ stream: { $string: 's2' } }] } },
      ],
      { key: 'narrow@1', position: '1' },
    );
    expect((await store.collection('narrow').find({ type: 'T' })).map((document) => document.id)).toEqual([
      'a',
    ]);
    expect(await store.collection('narrow').count({})).toBe(1);
  });
});

describe.each(SQL_KINDS)('PostgresReadStore.applyBatches (group commit of projections): %s', (kind) => {
  let database: TestDatabase;
  let store: PostgresReadStore;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = new PostgresReadStore(database.db);
    await store.init();
    await store.ensureCollection('group_a');
    await store.ensureCollection('group_b');
  });

  afterAll(async () => {
    await database?.dispose();
  });

  it('writes each batch with its checkpoint, and leaves out only the batches whose checkpoint moved', async () => {
    await store.applyBatch([], { key: 'group-b@1', position: 'p5' });
    const outcomes = await store.applyBatches([
      {
        changes: [{ kind: 'upsert', collection: 'group_a', document: { id: 'x', v: 1 } }],
        checkpoint: { key: 'group-a@1', position: 'p1', details: { eventsApplied: 1 } },
        guard: { expectedPosition: null },
      },
      {
        changes: [{ kind: 'upsert', collection: 'group_b', document: { id: 'stale', v: 1 } }],
        checkpoint: { key: 'group-b@1', position: 'p2' },
        guard: { expectedPosition: 'p1' },
      },
      { changes: [], checkpoint: { key: 'group-c@1', position: 'p1' } },
      // A dropped generation's checkpoint: refused, and not created by the refusal either.
      { changes: [], checkpoint: { key: 'group-d@1', position: 'p2' }, guard: { expectedPosition: 'p1' } },
    ]);

    expect(outcomes[0]).toBeNull();
    expect(outcomes[1]).toBeInstanceOf(CheckpointMoved);
    expect(outcomes[1]).toMatchObject({ key: 'group-b@1', expected: 'p1', actual: 'p5' });
    expect(outcomes[2]).toBeNull();
    expect(await store.collection('group_a').get('x')).toEqual({ id: 'x', v: 1 });
    expect(await store.collection('group_b').get('stale')).toBeNull();
    expect(await store.getCheckpoint('group-a@1')).toEqual({
      key: 'group-a@1',
      position: 'p1',
      details: { eventsApplied: 1 },
    });
    expect(await store.getCheckpoint('group-b@1')).toEqual({ key: 'group-b@1', position: 'p5' });
    expect(await store.getCheckpoint('group-c@1')).toEqual({ key: 'group-c@1', position: 'p1' });
    expect(outcomes[3]).toBeInstanceOf(CheckpointMoved);
    expect(await store.getCheckpoint('group-d@1')).toBeNull();
  });

  it('tells once, while the write is still open, that its largest statement is on its way (ADR 125)', async () => {
    const seen: string[] = [];
    const writing = store.applyBatches(
      [
        {
          changes: [{ kind: 'upsert', collection: 'group_a', document: { id: 'small', v: 1 } }],
          checkpoint: { key: 'group-a@2', position: 'p1' },
        },
        {
          changes: Array.from({ length: 50 }, (_, i) => ({
            kind: 'upsert' as const,
            collection: 'group_b',
            document: { id: `large-${i}`, v: i },
          })),
          checkpoint: { key: 'group-b@2', position: 'p1' },
        },
      ],
      { onDispatched: () => seen.push('dispatched') },
    );
    void writing.then(() => seen.push('written'));
    await writing;
    expect(seen).toEqual(['dispatched', 'written']);
    expect(await store.collection('group_b').get('large-49')).toEqual({ id: 'large-49', v: 49 });
    // A write that fails tells it too (once), so a caller waiting for it is never left waiting.
    let told = 0;
    await expect(
      store.applyBatches(
        [
          { changes: [], checkpoint: { key: 'group-a@3', position: 'p1' } },
          {
            changes: [{ kind: 'upsert', collection: 'no_such_collection', document: { id: 'x' } }],
            checkpoint: { key: 'group-b@3', position: 'p1' },
          },
        ],
        { onDispatched: () => (told += 1) },
      ),
    ).rejects.toThrow();
    expect(told).toBe(1);
  });

  it('is all or nothing across the group when a write fails', async () => {
    await store.ensureCollection('group_unique', [
      { name: 'by_email', fields: [['email', 1]], unique: true },
    ]);
    await store.applyBatch(
      [{ kind: 'upsert', collection: 'group_unique', document: { id: 'taken', email: 't' } }],
      {
        key: 'group-u@1',
        position: 'p1',
      },
    );
    await expect(
      store.applyBatches([
        {
          changes: [{ kind: 'upsert', collection: 'group_a', document: { id: 'y', v: 1 } }],
          checkpoint: { key: 'group-a@1', position: 'p2' },
          guard: { expectedPosition: 'p1' },
        },
        {
          changes: [{ kind: 'upsert', collection: 'group_unique', document: { id: 'clash', email: 't' } }],
          checkpoint: { key: 'group-u@1', position: 'p2' },
          guard: { expectedPosition: 'p1' },
        },
      ]),
    ).rejects.toThrow();
    expect(await store.collection('group_a').get('y')).toBeNull();
    expect((await store.getCheckpoint('group-a@1'))?.position).toBe('p1');
    expect((await store.getCheckpoint('group-u@1'))?.position).toBe('p1');
  });
});

describe.each(SQL_KINDS)('PostgresReadStore readAtOnce statements on %s', (kind) => {
  let database: TestDatabase;
  let store: PostgresReadStore;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = new PostgresReadStore(database.db);
    await store.init();
    await store.ensureCollection('many_shapes');
    await store.applyBatch(
      Array.from({ length: 40 }, (_, i): DocumentChange => ({
        kind: 'upsert',
        collection: 'many_shapes',
        document: { id: `d${String(i).padStart(2, '0')}`, n: i },
      })),
      { key: 'many_shapes@seed', position: null },
    );
  });

  afterAll(async () => {
    await database?.dispose();
  });

  it('past the statements it names (a $in spells each value), still answers what find answers', async () => {
    const docs = store.collection('many_shapes');
    // 300 distinct statement texts: more than the server's connections are let keep prepared.
    for (let size = 1; size <= 300; size++) {
      const values = Array.from({ length: size }, (_, i) => (i * 7) % 45);
      const [found, one] = await store.readAtOnce([
        { collection: docs, filter: { n: { $in: values } }, options: { sort: [['n', -1]] } },
        { collection: docs, id: 'd03' },
      ]);
      const expected = [...new Set(values.filter((n) => n < 40))].sort((a, b) => b - a);
      expect(found.map((document) => document.n)).toEqual(expected);
      expect(one).toEqual({ id: 'd03', n: 3 });
    }
  });
});
