/**
 * The ReadStore contract, adapter-neutral: every adapter's test file calls readStoreContract with a factory.
 * One store is opened per suite; every test works on its own collections (unique prefixes), so the cases are
 * independent of each other and of the order they run in.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  CheckpointMoved,
  type DocumentChange,
  type Filter,
  type ReadDocument,
  type ReadStore,
  type Sort,
} from '../../src/platform/read-store/read-store.port.js';

export interface ReadStoreUnderTest {
  store: ReadStore;
  dispose(): Promise<void>;
}

/** Filter fixtures: mixed types, nested objects, arrays, null and missing fields. */
const FILTER_FIXTURES: readonly ReadDocument[] = [
  {
    id: 'a',
    n: 2,
    s: 'B',
    tags: ['x', 'y'],
    nested: { k: 'v1', depth: { level: 3 } },
    flag: true,
    maybe: null,
  },
  { id: 'b', n: 10, s: 'a', tags: ['y'], nested: { k: 'v2' }, flag: false },
  { id: 'c', n: -1.5, s: 'a-b', tags: [], nested: { k: 'v1', depth: { level: 7 } }, maybe: 'set' },
  { id: 'd', n: '7', s: 'ab', tags: ['z'] },
  { id: 'e', s: 'a_c', nested: { k: 'v3', depth: { level: 3 } } },
  { id: 'f', n: 100, s: 'a%c', flag: true },
];

/**
 * `{ $or: alternatives, ...conditions }`. The port's Filter intersects `$or` with the field-condition index
 * signature, which no array satisfies, so an `$or` filter literal needs this one cast.
 */
function anyOf(alternatives: readonly Filter[], conditions: Filter = {}): Filter {
  return { ...conditions, $or: alternatives } as unknown as Filter;
}

export function readStoreContract(label: string, open: () => Promise<ReadStoreUnderTest>): void {
  describe(`ReadStore contract: ${label}`, () => {
    let underTest: ReadStoreUnderTest | undefined;
    let sequence = 0;

    beforeAll(async () => {
      underTest = await open();
    });

    afterAll(async () => {
      await underTest?.dispose();
    });

    const store = (): ReadStore => {
      if (!underTest) throw new Error('the store under test did not open');
      return underTest.store;
    };

    /** A collection name no other test uses. */
    const fresh = (name: string): string => `k${(sequence += 1)}_${name}`;

    const idsOf = (documents: readonly ReadDocument[]): string[] => documents.map((document) => document.id);

    async function collectionWith(name: string, documents: readonly ReadDocument[]): Promise<string> {
      const collection = fresh(name);
      await store().ensureCollection(collection);
      const changes = documents.map((document): DocumentChange => ({ kind: 'upsert', collection, document }));
      await store().applyBatch(changes, { key: `${collection}@seed`, position: null });
      return collection;
    }

    describe('documents', () => {
      it('upserts, gets, patches and deletes single documents', async () => {
        const name = fresh('docs');
        await store().ensureCollection(name);
        const docs = store().collection<ReadDocument & { title?: string; count?: number; extra?: string }>(
          name,
        );

        expect(await docs.get('missing')).toBeNull();
        await docs.upsert({ id: 'one', title: 'first', count: 1, extra: 'x' });
        await docs.upsert({ id: 'two', title: 'second', count: 2 });
        expect(await docs.get('one')).toEqual({ id: 'one', title: 'first', count: 1, extra: 'x' });

        await docs.upsert({ id: 'two', title: 'replaced' });
        expect(await docs.get('two')).toEqual({ id: 'two', title: 'replaced' });

        expect(await docs.patch('one', { count: 5, extra: undefined, added: { deep: [1, 2] } })).toBe(true);
        expect(await docs.get('one')).toEqual({
          id: 'one',
          title: 'first',
          count: 5,
          added: { deep: [1, 2] },
        });
        expect(await docs.patch('absent', { count: 1 })).toBe(false);
        expect(await docs.get('absent')).toBeNull();

        expect(await docs.count()).toBe(2);
        expect(await docs.delete('two')).toBe(true);
        expect(await docs.delete('two')).toBe(false);
        expect(await docs.get('two')).toBeNull();
        expect(await docs.count()).toBe(1);
      });

      it('getMany returns the documents found, in the order of the ids asked for', async () => {
        const name = await collectionWith('many', [{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
        const docs = store().collection(name);
        expect(idsOf(await docs.getMany(['c', 'missing', 'a', 'c']))).toEqual(['c', 'a']);
        expect(await docs.getMany([])).toEqual([]);
      });

      it('reads a collection that does not exist as empty', async () => {
        const docs = store().collection(fresh('never_created'));
        expect(await docs.get('x')).toBeNull();
        expect(await docs.getMany(['x'])).toEqual([]);
        expect(await docs.find({ a: 1 }, { sort: [['a', 1]] })).toEqual([]);
        expect(await docs.count()).toBe(0);
      });
    });

    describe('filters', () => {
      let name: string;
      const matching = async (filter: Filter): Promise<string[]> => {
        const docs = store().collection(name);
        const found = idsOf(await docs.find(filter));
        expect(await docs.count(filter)).toBe(found.length);
        return found;
      };

      beforeAll(async () => {
        name = await collectionWith('filters', FILTER_FIXTURES);
      });

      it('an empty filter matches everything', async () => {
        expect(await matching({})).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
      });

      it('equality compares value and type, on top-level and dotted paths', async () => {
        expect(await matching({ n: 2 })).toEqual(['a']);
        expect(await matching({ n: 7 })).toEqual([]);
        expect(await matching({ n: '7' })).toEqual(['d']);
        expect(await matching({ s: 'a' })).toEqual(['b']);
        expect(await matching({ flag: true })).toEqual(['a', 'f']);
        expect(await matching({ flag: false })).toEqual(['b']);
        expect(await matching({ 'nested.k': 'v1' })).toEqual(['a', 'c']);
        expect(await matching({ 'nested.depth.level': 3 })).toEqual(['a', 'e']);
        expect(await matching({ 'nested.k': 'v1', 'nested.depth.level': 7 })).toEqual(['c']);
        expect(await matching({ id: 'c' })).toEqual(['c']);
      });

      it('equality on an array field matches when the array contains the value', async () => {
        expect(await matching({ tags: 'y' })).toEqual(['a', 'b']);
        expect(await matching({ tags: 'x', s: 'B' })).toEqual(['a']);
        expect(await matching({ tags: 'w' })).toEqual([]);
      });

      it('$is is equality on a scalar only: an array holding the value does not match', async () => {
        expect(await matching({ s: { $is: 'a' } })).toEqual(['b']);
        expect(await matching({ n: { $is: 2 } })).toEqual(['a']);
        expect(await matching({ n: { $is: '7' } })).toEqual(['d']);
        expect(await matching({ n: { $is: 7 } })).toEqual([]);
        expect(await matching({ flag: { $is: true } })).toEqual(['a', 'f']);
        expect(await matching({ flag: { $is: false } })).toEqual(['b']);
        expect(await matching({ 'nested.k': { $is: 'v1' } })).toEqual(['a', 'c']);
        expect(await matching({ 'nested.depth.level': { $is: 3 } })).toEqual(['a', 'e']);
        expect(await matching({ tags: 'y' })).toEqual(['a', 'b']);
        expect(await matching({ tags: { $is: 'y' } })).toEqual([]);
        expect(await matching({ id: { $is: 'c' } })).toEqual(['c']);
      });

      it('$string is exactly that string: never a number, boolean or array that reads the same', async () => {
        expect(await matching({ s: { $string: 'a' } })).toEqual(['b']);
        expect(await matching({ n: { $string: '7' } })).toEqual(['d']);
        expect(await matching({ n: { $string: '2' } })).toEqual([]);
        expect(await matching({ flag: { $string: 'true' } })).toEqual([]);
        expect(await matching({ 'nested.k': { $string: 'v1' } })).toEqual(['a', 'c']);
        expect(await matching({ tags: { $string: 'y' } })).toEqual([]);
        expect(await matching({ id: { $string: 'c' } })).toEqual(['c']);
        expect(await matching({ $or: [{ s: { $string: 'a' } }, { n: { $string: '7' } }] })).toEqual([
          'b',
          'd',
        ]);
      });

      it('null matches null and missing fields', async () => {
        expect(await matching({ maybe: null })).toEqual(['a', 'b', 'd', 'e', 'f']);
        expect(await matching({ 'nested.depth': null })).toEqual(['b', 'd', 'f']);
      });

      it('$in and $nin, with arrays and null', async () => {
        expect(await matching({ n: { $in: [2, 100, 'nothing'] } })).toEqual(['a', 'f']);
        expect(await matching({ n: { $in: [null, 10] } })).toEqual(['b', 'e']);
        expect(await matching({ tags: { $in: ['x', 'z'] } })).toEqual(['a', 'd']);
        expect(await matching({ n: { $in: [] } })).toEqual([]);
        expect(await matching({ id: { $in: ['b', 'e', 'zz'] } })).toEqual(['b', 'e']);
        expect(await matching({ n: { $nin: [2, 10] } })).toEqual(['c', 'd', 'e', 'f']);
        expect(await matching({ tags: { $nin: ['y'] } })).toEqual(['c', 'd', 'e', 'f']);
        expect(await matching({ maybe: { $nin: [null] } })).toEqual(['c']);
        expect(await matching({ n: { $nin: [] } })).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
      });

      it('$ne, with arrays and null', async () => {
        expect(await matching({ s: { $ne: 'a' } })).toEqual(['a', 'c', 'd', 'e', 'f']);
        expect(await matching({ tags: { $ne: 'y' } })).toEqual(['c', 'd', 'e', 'f']);
        expect(await matching({ maybe: { $ne: null } })).toEqual(['c']);
        expect(await matching({ 'nested.k': { $ne: 'v1' } })).toEqual(['b', 'd', 'e', 'f']);
      });

      it('range operators compare numbers numerically and only with numbers', async () => {
        expect(await matching({ n: { $gt: 2 } })).toEqual(['b', 'f']);
        expect(await matching({ n: { $gte: 2 } })).toEqual(['a', 'b', 'f']);
        expect(await matching({ n: { $lt: 10 } })).toEqual(['a', 'c']);
        expect(await matching({ n: { $lte: 10 } })).toEqual(['a', 'b', 'c']);
        expect(await matching({ n: { $gte: 2, $lt: 100 } })).toEqual(['a', 'b']);
        expect(await matching({ n: { $gt: -2, $lt: 0 } })).toEqual(['c']);
        expect(await matching({ 'nested.depth.level': { $gt: 3 } })).toEqual(['c']);
      });

      it('range operators compare strings by code point and only with strings', async () => {
        // Code points: '%' < '-' < 'B' < '_' < 'a' < 'b'.
        expect(await matching({ s: { $lt: 'a' } })).toEqual(['a']);
        expect(await matching({ s: { $gte: 'a' } })).toEqual(['b', 'c', 'd', 'e', 'f']);
        expect(await matching({ s: { $gt: 'a-b', $lt: 'ab' } })).toEqual(['e']);
        expect(await matching({ s: { $gt: 'a', $lt: 'a-b' } })).toEqual(['f']);
        expect(await matching({ n: { $gte: '0' } })).toEqual(['d']);
        expect(await matching({ id: { $gt: 'd' } })).toEqual(['e', 'f']);
      });

      it('$exists, including missing intermediate objects and explicit null', async () => {
        expect(await matching({ n: { $exists: true } })).toEqual(['a', 'b', 'c', 'd', 'f']);
        expect(await matching({ n: { $exists: false } })).toEqual(['e']);
        expect(await matching({ maybe: { $exists: true } })).toEqual(['a', 'c']);
        expect(await matching({ 'nested.depth.level': { $exists: true } })).toEqual(['a', 'c', 'e']);
        expect(await matching({ 'nested.depth.level': { $exists: false } })).toEqual(['b', 'd', 'f']);
      });

      it('$prefix is case-sensitive, literal and only matches strings', async () => {
        expect(await matching({ s: { $prefix: 'a' } })).toEqual(['b', 'c', 'd', 'e', 'f']);
        expect(await matching({ s: { $prefix: 'A' } })).toEqual([]);
        expect(await matching({ s: { $prefix: 'a_' } })).toEqual(['e']);
        expect(await matching({ s: { $prefix: 'a%' } })).toEqual(['f']);
        expect(await matching({ s: { $prefix: '' } })).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
        expect(await matching({ n: { $prefix: '7' } })).toEqual(['d']);
        expect(await matching({ n: { $prefix: '1' } })).toEqual([]);
        expect(await matching({ id: { $prefix: 'c' } })).toEqual(['c']);
      });

      it('$or combines alternatives, and ANDs with the other conditions', async () => {
        expect(await matching(anyOf([{ n: 2 }, { s: 'ab' }]))).toEqual(['a', 'd']);
        expect(await matching(anyOf([{ n: { $gt: 50 } }, { tags: 'x' }], { flag: true }))).toEqual([
          'a',
          'f',
        ]);
        expect(
          await matching(anyOf([{ 'nested.k': 'v1', n: { $lt: 0 } }, { n: { $exists: false } }])),
        ).toEqual(['c', 'e']);
        expect(await matching(anyOf([anyOf([{ n: 10 }]), { s: 'B' }]))).toEqual(['a', 'b']);
        expect(await matching(anyOf([]))).toEqual([]);
      });
    });

    describe('sorting and paging', () => {
      const sortedIds = async (documents: readonly ReadDocument[], sort: Sort): Promise<string[]> => {
        const name = await collectionWith('sort', documents);
        return idsOf(await store().collection(name).find({}, { sort }));
      };

      it('sorts numbers numerically', async () => {
        const documents = [
          { id: 'ten', n: 10 },
          { id: 'two', n: 2 },
          { id: 'hundred', n: 100 },
          { id: 'minus', n: -3.5 },
          { id: 'half', n: 2.5 },
        ];
        expect(await sortedIds(documents, [['n', 1]])).toEqual(['minus', 'two', 'half', 'ten', 'hundred']);
        expect(await sortedIds(documents, [['n', -1]])).toEqual(['hundred', 'ten', 'half', 'two', 'minus']);
      });

      it('sorts strings by code point', async () => {
        const documents = [
          { id: '1', s: 'ab' },
          { id: '2', s: 'a' },
          { id: '3', s: 'B' },
          { id: '4', s: 'a-b' },
          { id: '5', s: 'é' },
          { id: '6', s: 'Z' },
        ];
        // 'B' (0x42) < 'Z' < 'a' (0x61) < 'a-b' ('-' is 0x2d) < 'ab' < 'é' (0xe9).
        expect(await sortedIds(documents, [['s', 1]])).toEqual(['3', '6', '2', '4', '1', '5']);
        expect(await sortedIds(documents, [['s', -1]])).toEqual(['5', '1', '4', '2', '6', '3']);
      });

      it('sorts null and missing first ascending, then numbers, strings and booleans', async () => {
        const documents = [
          { id: 'bool', v: true },
          { id: 'str', v: 'x' },
          { id: 'missing' },
          { id: 'num', v: 5 },
          { id: 'null', v: null },
        ];
        expect(await sortedIds(documents, [['v', 1]])).toEqual(['missing', 'null', 'num', 'str', 'bool']);
        expect(await sortedIds(documents, [['v', -1]])).toEqual(['bool', 'str', 'num', 'missing', 'null']);
      });

      it('sorts by several fields and dotted paths, ties broken by id ascending', async () => {
        const documents = [
          { id: 'd', g: 'x', meta: { rank: 1 } },
          { id: 'a', g: 'y', meta: { rank: 2 } },
          { id: 'c', g: 'x', meta: { rank: 2 } },
          { id: 'b', g: 'x', meta: { rank: 2 } },
          { id: 'e', g: 'y', meta: { rank: 2 } },
        ];
        expect(
          await sortedIds(documents, [
            ['g', 1],
            ['meta.rank', -1],
          ]),
        ).toEqual(['b', 'c', 'd', 'a', 'e']);
        expect(
          await sortedIds(documents, [
            ['g', -1],
            ['meta.rank', 1],
          ]),
        ).toEqual(['a', 'e', 'd', 'b', 'c']);
        expect(await sortedIds(documents, [['meta.rank', -1]])).toEqual(['a', 'b', 'c', 'e', 'd']);
        expect(await sortedIds(documents, [])).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(await sortedIds(documents, [['id', -1]])).toEqual(['e', 'd', 'c', 'b', 'a']);
      });

      it('pages with offset and limit over 250 documents, stable and complete', async () => {
        const documents = Array.from({ length: 250 }, (_, i) => ({
          id: `doc-${String(i).padStart(3, '0')}`,
          bucket: i % 7,
          score: (i * 37) % 50,
        }));
        const name = await collectionWith('paging', documents);
        const docs = store().collection(name);
        const sort: Sort = [
          ['bucket', 1],
          ['score', -1],
        ];
        const expected = [...documents]
          .sort(
            (x, y) => x.bucket - y.bucket || y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
          )
          .map((document) => document.id);

        const pages: string[] = [];
        for (let offset = 0; offset < 250; offset += 40) {
          const page = idsOf(await docs.find({}, { sort, offset, limit: 40 }));
          expect(page.length).toBe(Math.min(40, 250 - offset));
          pages.push(...page);
        }
        expect(pages).toEqual(expected);
        expect(new Set(pages).size).toBe(250);
        expect(idsOf(await docs.find({}, { sort, offset: 240 }))).toEqual(expected.slice(240));
        expect(await docs.find({}, { sort, offset: 250, limit: 10 })).toEqual([]);
        expect(await docs.find({}, { sort, limit: 0 })).toEqual([]);
        expect(idsOf(await docs.find({ bucket: 3 }, { sort, limit: 5 }))).toEqual(
          expected.filter((id) => Number(id.slice(4)) % 7 === 3).slice(0, 5),
        );
        expect(await docs.count()).toBe(250);
        expect(await docs.count({ bucket: { $lte: 1 } })).toBe(72);
      });
    });

    describe('readAtOnce', () => {
      it('answers what get and find answer, read by read, in the order asked', async () => {
        const documents = Array.from({ length: 60 }, (_, i) => ({
          id: `doc-${String(i).padStart(2, '0')}`,
          bucket: i % 4,
          score: (i * 17) % 23,
          label: i % 5 === 0 ? null : `l${i % 9}`,
        }));
        const pages = await collectionWith('at_once_pages', documents);
        const singles = await collectionWith('at_once_singles', [
          { id: 'one', n: 1 },
          { id: 'two', n: 2 },
        ]);
        const never = fresh('at_once_never_created');
        const [pageDocs, singleDocs, neverDocs] = [pages, singles, never].map((name) =>
          store().collection(name),
        );
        const bySort: Sort = [
          ['bucket', -1],
          ['label', 1],
          ['score', 1],
        ];
        const answers = await store().readAtOnce([
          { collection: singleDocs!, id: 'two' },
          {
            collection: pageDocs!,
            filter: { bucket: { $gte: 1 } },
            options: { sort: bySort, offset: 5, limit: 20 },
          },
          { collection: singleDocs!, id: 'missing' },
          { collection: neverDocs!, id: 'x' },
          { collection: pageDocs!, filter: {}, options: { sort: [['score', 1]] } },
          { collection: neverDocs!, filter: { a: 1 }, options: { sort: [['a', 1]] } },
          { collection: pageDocs!, filter: {}, options: { limit: 0 } },
          { collection: singleDocs!, id: 'one' },
        ]);
        expect(answers).toEqual([
          await singleDocs!.get('two'),
          await pageDocs!.find({ bucket: { $gte: 1 } }, { sort: bySort, offset: 5, limit: 20 }),
          null,
          null,
          await pageDocs!.find({}, { sort: [['score', 1]] }),
          [],
          [],
          { id: 'one', n: 1 },
        ]);
        expect((answers[1] as ReadDocument[]).length).toBe(20);
        expect((answers[4] as ReadDocument[]).length).toBe(60);
        expect(await store().readAtOnce([])).toEqual([]);
        expect(await store().readAtOnce([{ collection: neverDocs!, id: 'x' }])).toEqual([null]);
      });

      it('asked again after a collection was dropped and created anew, answers from what is there now', async () => {
        const kept = await collectionWith('at_once_kept', [{ id: 'k', n: 1 }]);
        const name = await collectionWith('at_once_dropped', [
          { id: 'a', rank: 2 },
          { id: 'b', rank: 1 },
        ]);
        const reads = () =>
          store().readAtOnce([
            { collection: store().collection(kept), id: 'k' },
            { collection: store().collection(name), filter: {}, options: { sort: [['rank', 1]], limit: 10 } },
          ]);
        // Several times each: a statement the store keeps prepared must follow the collection.
        for (let i = 0; i < 6; i++) expect(idsOf((await reads())[1])).toEqual(['b', 'a']);
        await store().dropCollection(name);
        for (let i = 0; i < 3; i++) expect(await reads()).toEqual([{ id: 'k', n: 1 }, []]);
        await store().ensureCollection(name);
        await store().collection(name).upsert({ id: 'c', rank: 0 });
        for (let i = 0; i < 3; i++)
          expect(await reads()).toEqual([{ id: 'k', n: 1 }, [{ id: 'c', rank: 0 }]]);
      });

      it('reads every collection as of one moment: never half of a batch written to two of them', async () => {
        const counters = await collectionWith('at_once_counters', [{ id: 'c', n: 0 }]);
        const marks = await collectionWith('at_once_marks', [{ id: 'm', n: 0 }]);
        let writing = true;
        const writer = (async () => {
          for (let n = 1; writing; n++) {
            await store().applyBatch(
              [
                { kind: 'upsert', collection: counters, document: { id: 'c', n } },
                { kind: 'upsert', collection: marks, document: { id: 'm', n } },
              ],
              { key: `${counters}@writer`, position: String(n) },
            );
          }
        })();
        const seen = new Set<number>();
        try {
          for (let i = 0; i < 60; i++) {
            const [counter, mark] = await store().readAtOnce([
              { collection: store().collection(counters), id: 'c' },
              { collection: store().collection(marks), filter: {}, options: {} },
            ]);
            expect(mark).toEqual([{ id: 'm', n: counter!.n }]);
            seen.add(counter!.n as number);
          }
        } finally {
          writing = false;
          await writer;
        }
        // The writer moved while the reads ran: the moments read were not all the same one.
        expect(seen.size).toBeGreaterThan(1);
      });
    });

    describe('indexes', () => {
      it('declaring the same indexes twice is idempotent', async () => {
        const name = fresh('indexed');
        const indexes = [
          {
            name: 'by_group_rank',
            fields: [
              ['group', 1],
              ['meta.rank', -1],
            ] as const,
          },
          { name: 'by_code', fields: [['code', 1]] as const, unique: true },
        ];
        await store().ensureCollection(name, indexes);
        await store()
          .collection(name)
          .upsert({ id: 'a', group: 'g', meta: { rank: 1 }, code: 'A' });
        await store().ensureCollection(name, indexes);
        await store().ensureCollection(name);
        expect(await store().collection(name).get('a')).toEqual({
          id: 'a',
          group: 'g',
          meta: { rank: 1 },
          code: 'A',
        });
        expect(
          idsOf(
            await store()
              .collection(name)
              .find({ group: 'g' }, { sort: [['meta.rank', -1]] }),
          ),
        ).toEqual(['a']);
      });

      it('a changed declaration under the same name replaces the index', async () => {
        const name = fresh('redeclared');
        await store().ensureCollection(name, [{ name: 'by_code', fields: [['code', 1]], unique: true }]);
        const docs = store().collection(name);
        await docs.upsert({ id: 'a', code: 'same' });
        await expect(docs.upsert({ id: 'b', code: 'same' })).rejects.toThrow();

        await store().ensureCollection(name, [{ name: 'by_code', fields: [['code', 1]] }]);
        await docs.upsert({ id: 'b', code: 'same' });
        expect(await docs.count({ code: 'same' })).toBe(2);
      });

      it('a unique index rejects a second document with the same value, not documents without it', async () => {
        const name = fresh('unique');
        await store().ensureCollection(name, [{ name: 'by_email', fields: [['email', 1]], unique: true }]);
        const docs = store().collection(name);
        await docs.upsert({ id: 'a', email: 'a@example.com' });
        await expect(docs.upsert({ id: 'b', email: 'a@example.com' })).rejects.toThrow();
        expect(await docs.get('b')).toBeNull();

        await docs.upsert({ id: 'a', email: 'a@example.com', name: 'same id, same value' });
        await docs.upsert({ id: 'c', email: 'c@example.com' });
        await docs.upsert({ id: 'no-email-1' });
        await docs.upsert({ id: 'no-email-2' });
        expect(await docs.count()).toBe(4);
      });
    });

    describe('applyBatch', () => {
      it('applies upserts, patches and deletes in order, across collections, with the checkpoint', async () => {
        const first = fresh('batch_a');
        const second = fresh('batch_b');
        await store().ensureCollection(first);
        await store().ensureCollection(second);
        await store().collection(first).upsert({ id: 'existing', a: 1, b: 1 });

        await store().applyBatch(
          [
            { kind: 'upsert', collection: first, document: { id: 'x', v: 1, keep: true } },
            { kind: 'upsert', collection: second, document: { id: 'x', other: true } },
            { kind: 'upsert', collection: first, document: { id: 'x', v: 2, keep: true } },
            { kind: 'patch', collection: first, id: 'x', fields: { keep: undefined, added: 'yes' } },
            { kind: 'patch', collection: first, id: 'x', fields: { added: 'twice' } },
            { kind: 'patch', collection: first, id: 'existing', fields: { a: 2, b: undefined } },
            { kind: 'patch', collection: first, id: 'existing', fields: { b: 3, c: undefined } },
            { kind: 'upsert', collection: first, document: { id: 'gone', v: 0 } },
            { kind: 'delete', collection: first, id: 'gone' },
            { kind: 'patch', collection: first, id: 'gone', fields: { v: 1 } },
            { kind: 'delete', collection: second, id: 'never-existed' },
            { kind: 'patch', collection: second, id: 'never-existed', fields: { v: 1 } },
          ],
          { key: `${first}@1`, position: 'p1', details: { events: 12 } },
        );

        expect(await store().collection(first).get('x')).toEqual({ id: 'x', v: 2, added: 'twice' });
        expect(await store().collection(first).get('existing')).toEqual({ id: 'existing', a: 2, b: 3 });
        expect(await store().collection(first).get('gone')).toBeNull();
        expect(await store().collection(second).get('x')).toEqual({ id: 'x', other: true });
        expect(await store().collection(second).get('never-existed')).toBeNull();
        expect(await store().getCheckpoint(`${first}@1`)).toEqual({
          key: `${first}@1`,
          position: 'p1',
          details: { events: 12 },
        });
      });

      it('a deleteWhere between upserts of the same id leaves the later upsert', async () => {
        const name = await collectionWith('reorder', [
          { id: 'old', v: 1 },
          { id: 'kept', v: 2 },
        ]);
        await store().applyBatch(
          [
            { kind: 'upsert', collection: name, document: { id: 'same', v: 1 } },
            { kind: 'deleteWhere', collection: name, filter: { v: 1 } },
            { kind: 'upsert', collection: name, document: { id: 'same', v: 1, again: true } },
            { kind: 'patch', collection: name, id: 'kept', fields: { v: 3 } },
            { kind: 'deleteWhere', collection: name, filter: { v: { $gte: 3 } } },
          ],
          { key: `${name}@1`, position: 'p1' },
        );
        expect(await store().collection(name).get('same')).toEqual({ id: 'same', v: 1, again: true });
        expect(await store().collection(name).get('old')).toBeNull();
        expect(await store().collection(name).get('kept')).toBeNull();
        expect(await store().collection(name).count()).toBe(1);
      });

      it('writes a thousand changes in one batch', async () => {
        const name = fresh('bulk');
        await store().ensureCollection(name, [{ name: 'by_score', fields: [['score', 1]] }]);
        const changes: DocumentChange[] = Array.from({ length: 1_000 }, (_, i) => ({
          kind: 'upsert',
          collection: name,
          document: { id: `d${i}`, score: i % 100, text: `value ${i}` },
        }));
        await store().applyBatch(changes, { key: `${name}@1`, position: 'p1' });
        const docs = store().collection(name);
        expect(await docs.count()).toBe(1_000);
        expect(await docs.count({ score: { $lt: 10 } })).toBe(100);
        expect(await docs.get('d999')).toEqual({ id: 'd999', score: 99, text: 'value 999' });
      });

      it('is all or nothing: a failing last change leaves documents and checkpoint unchanged', async () => {
        const name = fresh('atomic');
        const key = `${name}@1`;
        await store().ensureCollection(name, [{ name: 'by_email', fields: [['email', 1]], unique: true }]);
        await store().applyBatch(
          [{ kind: 'upsert', collection: name, document: { id: 'taken', email: 't' } }],
          {
            key,
            position: 'p1',
          },
        );

        await expect(
          store().applyBatch(
            [
              { kind: 'upsert', collection: name, document: { id: 'new', email: 'n' } },
              { kind: 'patch', collection: name, id: 'taken', fields: { touched: true } },
              { kind: 'delete', collection: name, id: 'taken' },
              { kind: 'upsert', collection: name, document: { id: 'clash', email: 'n' } },
            ],
            { key, position: 'p2' },
          ),
        ).rejects.toThrow();

        const docs = store().collection(name);
        expect(await docs.get('new')).toBeNull();
        expect(await docs.get('clash')).toBeNull();
        expect(await docs.get('taken')).toEqual({ id: 'taken', email: 't' });
        expect((await store().getCheckpoint(key))?.position).toBe('p1');
      });

      it('with a guard, refuses to write when the checkpoint moved', async () => {
        const name = fresh('guarded');
        const key = `${name}@1`;
        await store().ensureCollection(name);
        await store().applyBatch(
          [{ kind: 'upsert', collection: name, document: { id: 'first' } }],
          { key, position: 'p1' },
          { expectedPosition: null },
        );
        await store().applyBatch(
          [{ kind: 'upsert', collection: name, document: { id: 'second' } }],
          { key, position: 'p2' },
          { expectedPosition: 'p1' },
        );

        const stale = store().applyBatch(
          [{ kind: 'upsert', collection: name, document: { id: 'stale' } }],
          { key, position: 'p9' },
          { expectedPosition: 'p1' },
        );
        await expect(stale).rejects.toBeInstanceOf(CheckpointMoved);
        await expect(stale).rejects.toMatchObject({ key, expected: 'p1', actual: 'p2' });
        expect(await store().collection(name).get('stale')).toBeNull();
        expect((await store().getCheckpoint(key))?.position).toBe('p2');

        const fromStart = store().applyBatch([], { key, position: 'p3' }, { expectedPosition: null });
        await expect(fromStart).rejects.toBeInstanceOf(CheckpointMoved);
      });

      it('with a guard, exactly one of two concurrent batches from the same position wins', async () => {
        const name = fresh('race');
        const key = `${name}@1`;
        await store().ensureCollection(name);
        await store().applyBatch([], { key, position: 'p1' });

        const attempt = (runner: string): Promise<void> =>
          store().applyBatch(
            [{ kind: 'upsert', collection: name, document: { id: `from-${runner}`, runner } }],
            { key, position: `p2-${runner}` },
            { expectedPosition: 'p1' },
          );
        const outcomes = await Promise.allSettled([attempt('one'), attempt('two')]);

        const winners = outcomes.flatMap((outcome, i) => (outcome.status === 'fulfilled' ? [i] : []));
        const losers = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(1);
        expect(losers[0]).toBeInstanceOf(CheckpointMoved);
        const winner = winners[0] === 0 ? 'one' : 'two';
        expect((await store().getCheckpoint(key))?.position).toBe(`p2-${winner}`);
        expect(idsOf(await store().collection(name).find())).toEqual([`from-${winner}`]);
      });

      it('a guard on a checkpoint that does not exist yet admits only one first batch', async () => {
        const name = fresh('first_race');
        const key = `${name}@1`;
        await store().ensureCollection(name);
        const outcomes = await Promise.allSettled(
          ['a', 'b', 'c'].map((runner) =>
            store().applyBatch(
              [{ kind: 'upsert', collection: name, document: { id: runner } }],
              { key, position: `p-${runner}` },
              { expectedPosition: null },
            ),
          ),
        );
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        for (const outcome of outcomes) {
          if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(CheckpointMoved);
        }
        expect(await store().collection(name).count()).toBe(1);
      });
    });

    describe('checkpoints', () => {
      it('are stored by applyBatch, listed by prefix in key order, and deleted', async () => {
        const prefix = `${fresh('cp')}-`;
        await store().applyBatch([], { key: `${prefix}b@1`, position: 'p2' });
        await store().applyBatch([], { key: `${prefix}a@2`, position: null, details: { note: 'started' } });
        await store().applyBatch([], {
          key: `${prefix}a@1`,
          position: 'p1',
          details: { events: 3, ok: true },
        });
        await store().applyBatch([], { key: `other-${prefix}`, position: 'p1' });

        expect(await store().getCheckpoint(`${prefix}a@1`)).toEqual({
          key: `${prefix}a@1`,
          position: 'p1',
          details: { events: 3, ok: true },
        });
        expect(await store().getCheckpoint(`${prefix}missing`)).toBeNull();
        const listed = await store().listCheckpoints(prefix);
        expect(listed.map((checkpoint) => [checkpoint.key, checkpoint.position])).toEqual([
          [`${prefix}a@1`, 'p1'],
          [`${prefix}a@2`, null],
          [`${prefix}b@1`, 'p2'],
        ]);
        expect((await store().listCheckpoints()).map((checkpoint) => checkpoint.key)).toEqual(
          expect.arrayContaining([`${prefix}a@1`, `other-${prefix}`]),
        );

        await store().applyBatch([], { key: `${prefix}a@1`, position: 'p5' });
        expect(await store().getCheckpoint(`${prefix}a@1`)).toEqual({ key: `${prefix}a@1`, position: 'p5' });

        await store().deleteCheckpoint(`${prefix}a@1`);
        await store().deleteCheckpoint(`${prefix}never`);
        expect(await store().getCheckpoint(`${prefix}a@1`)).toBeNull();
        expect((await store().listCheckpoints(prefix)).map((checkpoint) => checkpoint.key)).toEqual([
          `${prefix}a@2`,
          `${prefix}b@1`,
        ]);
      });
    });

    describe('meta', () => {
      it('reads several entries in one call, leaving out keys without a value', async () => {
        const [a, b, missing] = [
          `meta:${fresh('many-a')}`,
          `meta:${fresh('many-b')}`,
          `meta:${fresh('none')}`,
        ];
        expect(await store().compareAndSetMeta(a, null, { live: 1 })).toBe(true);
        expect(await store().compareAndSetMeta(b, null, { live: 2, version: 4 })).toBe(true);
        const read = await store().getMetas<{ live: number }>([a, b, missing]);
        expect(Object.fromEntries(read)).toEqual({ [a]: { live: 1 }, [b]: { live: 2, version: 4 } });
        expect((await store().getMetas([])).size).toBe(0);
      });

      it('compare-and-set writes only over the expected value, compared as JSON', async () => {
        const key = `meta:${fresh('registry')}`;
        expect(await store().getMeta(key)).toBeNull();
        expect(await store().compareAndSetMeta(key, { live: 1 }, { live: 2 })).toBe(false);
        expect(await store().getMeta(key)).toBeNull();

        expect(await store().compareAndSetMeta(key, null, { live: 1, version: 3, tags: ['a'] })).toBe(true);
        expect(await store().getMeta(key)).toEqual({ live: 1, version: 3, tags: ['a'] });
        expect(await store().compareAndSetMeta(key, null, { live: 9 })).toBe(false);

        // Deep equality, independent of key order.
        expect(
          await store().compareAndSetMeta(key, { tags: ['a'], version: 3, live: 1 }, { live: 2, version: 3 }),
        ).toBe(true);
        expect(await store().compareAndSetMeta(key, { live: 1, version: 3, tags: ['a'] }, { live: 3 })).toBe(
          false,
        );
        expect(await store().compareAndSetMeta(key, { live: 2 }, { live: 3 })).toBe(false);
        expect(await store().getMeta(key)).toEqual({ live: 2, version: 3 });
      });

      it('of concurrent compare-and-sets from the same value, exactly one wins', async () => {
        const key = `meta:${fresh('contended')}`;
        expect(await store().compareAndSetMeta(key, null, { owner: 'nobody' })).toBe(true);
        const contenders = Array.from({ length: 8 }, (_, i) => `runner-${i}`);
        const results = await Promise.all(
          contenders.map((owner) => store().compareAndSetMeta(key, { owner: 'nobody' }, { owner })),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store().getMeta(key)).toEqual({ owner: contenders[results.indexOf(true)] });

        const fresher = `meta:${fresh('created')}`;
        const creations = await Promise.all(
          contenders.map((owner) => store().compareAndSetMeta(fresher, null, owner)),
        );
        expect(creations.filter(Boolean)).toHaveLength(1);
        expect(await store().getMeta(fresher)).toBe(contenders[creations.indexOf(true)]);
      });
    });

    describe('collections', () => {
      it('are listed by prefix in name order and dropped', async () => {
        const prefix = fresh('list');
        await store().ensureCollection(`${prefix}_b`);
        await store().ensureCollection(`${prefix}_a`, [{ name: 'by_v', fields: [['v', 1]] }]);
        await store().collection(`${prefix}_a`).upsert({ id: 'x', v: 1 });
        await store().ensureCollection(`other_${prefix}`);

        expect(await store().listCollections(`${prefix}_`)).toEqual([`${prefix}_a`, `${prefix}_b`]);
        expect(await store().listCollections()).toEqual(
          expect.arrayContaining([`${prefix}_a`, `${prefix}_b`, `other_${prefix}`]),
        );

        await store().dropCollection(`${prefix}_a`);
        await store().dropCollection(`${prefix}_never_created`);
        expect(await store().listCollections(`${prefix}_`)).toEqual([`${prefix}_b`]);
        expect(await store().collection(`${prefix}_a`).get('x')).toBeNull();

        // A dropped collection can be created again, empty, with its indexes.
        await store().ensureCollection(`${prefix}_a`, [{ name: 'by_v', fields: [['v', 1]] }]);
        expect(await store().collection(`${prefix}_a`).count()).toBe(0);
      });
    });
  });
}
