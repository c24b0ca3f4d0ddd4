/**
 * The ObservationIndex contract against MongoDB. The server comes from MONGODB_URL (a replica set, e.g.
 * `mongodb://localhost:27017/exposure?replicaSet=rs0`: writes are transactions), else from a throwaway
 * `mongo:7` container started as the single-node replica set `rs0` (testcontainers). Every open() gets a fresh
 * database, dropped on dispose. Without a server, the leg is registered with describe.skip, so jest reports
 * it as skipped, with the reason on the console.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { MongoClient, type Db, type Document } from 'mongodb';
import type { HostAssociation } from '../../src/catalogue/store/catalogue-store.port.js';
import { associationSummary } from '../../src/catalogue/store/mongodb-catalogue-plan.js';
import { MongoCatalogueStore } from '../../src/catalogue/store/mongodb-catalogue-store.js';
import type { Dataset } from '../../src/search/domain/datasets.js';
import { MongoObservationIndex } from '../../src/search/observation-index/mongodb-observation-index.js';
import {
  compileQuery,
  facetPipelines,
  indexesOf,
  toStored,
  type StoredObservation,
} from '../../src/search/observation-index/mongodb-query-compiler.js';
import {
  normalizeBatch,
  SelectorNotConfiguredError,
  sinceOf,
} from '../../src/search/observation-index/observation-index.port.js';
import {
  FIXTURE_NOW,
  FIXTURES,
  HOSTS,
  MATCH_CASES,
  observationIndexContract,
  q,
  type ObservationIndexUnderTest,
} from './observation-index.contract.js';
import { resolveMongoTarget } from '../support/external-services.js';

const LABEL = 'mongodb';

const target = await resolveMongoTarget({ replicaSet: true });

if ('skipped' in target) {
  announceSkip(`MongoDB observation index leg skipped: ${target.skipped}`);
  describe.skip(`ObservationIndex contract: ${LABEL} (skipped: ${target.skipped})`, () => {
    // Registered so every contract case shows up as skipped; open() is never called.
    observationIndexContract(LABEL, () => Promise.reject(new Error('skipped')));
  });
} else {
  let shared: MongoClient | null = null;
  const client = async (): Promise<MongoClient> => {
    if (!shared) {
      shared = new MongoClient(target.url, { writeConcern: { w: 'majority' }, ignoreUndefined: true });
      await shared.connect();
    }
    return shared;
  };
  afterAll(async () => {
    await shared?.close();
    await target.stop();
  });

  observationIndexContract(LABEL, async (): Promise<ObservationIndexUnderTest> => {
    const mongo = await client();
    const dbName = `observations_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    const index = new MongoObservationIndex(mongo, dbName);
    await index.init();
    const store = new MongoCatalogueStore(mongo, dbName);
    await store.init();
    const selecting = new MongoObservationIndex(mongo, dbName, { selectors: store.mongoSelectors });
    return {
      index,
      catalogue: { index: selecting, store },
      dispose: async () => void (await mongo.db(dbName).dropDatabase()),
    };
  });

  describe('MongoDB observation index start-up (server)', () => {
    it('starts when an index kept its fields under an older name (the old name is dropped)', async () => {
      const mongo = await client();
      const dbName = `observations_rename_${randomBytes(4).toString('hex')}`;
      try {
        await mongo.db(dbName).createCollection('obs_hosts');
        await mongo
          .db(dbName)
          .collection('obs_hosts')
          .createIndex({ 't.last_seen': -1, _id: 1 }, { name: 'by_recency' });
        await mongo
          .db(dbName)
          .collection('obs_hosts')
          .createIndex({ 'k.product': -1 }, { name: 'k_product' });
        await new MongoObservationIndex(mongo, dbName).init();
        const indexes = await mongo.db(dbName).collection('obs_hosts').listIndexes().toArray();
        const names = indexes.map((index) => index.name);
        expect(names).toContain('recent');
        expect(names).not.toContain('by_recency');
        expect(indexes.find((index) => index.name === 'k_product')?.key).toEqual({ 'k.product': 1 });
      } finally {
        await mongo.db(dbName).dropDatabase();
      }
    });
  });
}

/**
 * console.info, as for every notice; jest's default (non-verbose) reporter drops the buffered console output of
 * a file whose tests are all skipped, so then the line goes to stderr as well and is never silent.
 */
function announceSkip(message: string): void {
  console.info(message);
  if (console.constructor.name === 'BufferedConsole') process.stderr.write(`${message}\n`);
}

/**
 * Without a server, the compiled filters and facet pipelines are still checked: a minimal interpreter of the
 * operators the compiler emits (MongoDB semantics: a path through arrays matches any element, ranges compare
 * values of the same type only, $nor matches documents without the field, PCRE `\A`/`\z` anchors) runs every
 * match case of the contract over the stored form of the fixture. It proves the compiler's normalization and
 * operators, not MongoDB itself: the contract leg above does that wherever a server is available.
 */
describe('MongoDB observation index compiler (in memory)', () => {
  const storedOf = (dataset: Dataset): StoredObservation[] =>
    normalizeBatch(dataset, FIXTURES[dataset]).map((observation) => toStored(dataset, observation));

  it.each(MATCH_CASES)('$name', async ({ dataset, ast, expected }) => {
    const filter = await compileQuery(dataset, { ast });
    const found = storedOf(dataset).filter((document) => matches(document, filter as Document));
    expect(found.map((document) => document._id).sort()).toEqual([...expected].sort());
  });

  it('keeps the time frame', async () => {
    const filter = await compileQuery('hosts', {
      ast: q.exact('product', 'nginx'),
      since: sinceOf('last_7d', FIXTURE_NOW),
    });
    const found = storedOf('hosts').filter((document) => matches(document, filter as Document));
    expect(found.map((document) => document._id).sort()).toEqual(['h01', 'h02', 'h06', 'h12']);
  });

  it('builds facets counting lowercased values and array elements', () => {
    const facets = facetPipelines('whois', ['status', 'registrant.country'], 2);
    const documents = storedOf('whois');
    expect(runFacet(documents, facets.f0!)).toEqual([
      { _id: 'clienttransferprohibited', count: 3 },
      { _id: 'clientdeleteprohibited', count: 2 },
    ]);
    expect(runFacet(documents, facets.f1!)).toEqual([
      { _id: 'fr', count: 2 },
      { _id: 'us', count: 2 },
    ]);
    const hosts = facetPipelines('hosts', ['shared_edge', 'port'], 3);
    expect(runFacet(storedOf('hosts'), hosts.f0!)).toEqual([
      { _id: false, count: 3 },
      { _id: true, count: 2 },
    ]);
    expect(runFacet(storedOf('hosts'), hosts.f1!)).toEqual([
      { _id: 443, count: 8 },
      { _id: 80, count: 4 },
      { _id: 22, count: 3 },
    ]);
  });

  it('stores CIDR-searchable forms of addresses', () => {
    const [v6] = normalizeBatch('hosts', [HOSTS.find((record) => record.id === 'h06')!]);
    const [v4] = normalizeBatch('hosts', [HOSTS.find((record) => record.id === 'h10')!]);
    expect(toStored('hosts', v6!).n6).toEqual({ ip: '20010db8000000000000000000000006' });
    expect(toStored('hosts', v4!).n4).toEqual({ ip: 0x0a010203 });
    expect(toStored('hosts', v4!).k.ip).toBe('10.1.2.3');
  });

  it('refuses a selector without a selector compiler, and calls the one configured', async () => {
    await expect(compileQuery('hosts', { ast: q.selector('kev', 'true') })).rejects.toThrow(
      SelectorNotConfiguredError,
    );
    const seen: string[] = [];
    const filter = await compileQuery(
      'hosts',
      { ast: q.and(q.exact('port', 443), q.selector('cve', 'CVE-2021-23017')) },
      {
        db: {} as Db,
        selectors: {
          compile: (node, context) => {
            seen.push(`${node.selector}:${node.value}@${context.collection}`);
            return { _id: { $in: ['h02'] } };
          },
        },
      },
    );
    expect(seen).toEqual(['cve:CVE-2021-23017@obs_hosts']);
    expect(
      storedOf('hosts')
        .filter((document) => matches(document, filter as Document))
        .map((d) => d._id),
    ).toEqual(['h02']);
  });

  it('compiles cve:/kev: to one condition on the association summary the catalogue keeps on the host', async () => {
    const associated = new Map([
      ['h01', associationSummary([row('h01', 'CVE-2021-42013', true), row('h01', 'CVE-2023-25690', false)])],
      ['h02', associationSummary([row('h02', 'CVE-2023-25690', false)])],
      ['h03', associationSummary([row('h03', 'CVE-2014-0160', null)])],
    ]);
    const documents = storedOf('hosts').map((document) => {
      const summary = associated.get(document._id);
      return summary ? { ...document, assoc: summary } : document;
    });
    const store = new MongoCatalogueStore(new MongoClient('mongodb://unused.invalid'), 'unused');
    const found = async (selector: 'cve' | 'kev', value: string) => {
      const filter = await compileQuery(
        'hosts',
        { ast: q.selector(selector, value) },
        { db: {} as Db, selectors: store.mongoSelectors },
      );
      return documents.filter((document) => matches(document, filter as Document)).map((d) => d._id);
    };
    expect(await found('cve', 'CVE-2023-25690')).toEqual(['h01', 'h02']);
    expect(await found('cve', 'CVE-2021-*')).toEqual(['h01']);
    expect(await found('cve', 'CVE-2014-*')).toEqual(['h03']);
    expect(await found('cve', '*')).toEqual(['h01', 'h02', 'h03']);
    expect(await found('kev', 'true')).toEqual(['h01']);
    // Not listed, with every KEV state known: h03's is unknown, so it is no answer to kev:false.
    expect(await found('kev', 'false')).toEqual(['h02']);
  });

  it('declares one index per searchable stored value, within MongoDB limits', () => {
    for (const dataset of ['hosts', 'dns', 'vhosts', 'whois'] as const) {
      const indexes = indexesOf(dataset);
      expect(indexes.length).toBeLessThan(64);
      expect(new Set(indexes.map((index) => index.name)).size).toBe(indexes.length);
    }
    expect(indexesOf('hosts').map((index) => index.name)).toEqual(
      expect.arrayContaining([
        'recent',
        'k_product',
        'k_hostnames',
        'k_http__status',
        't_first_seen',
        'n4_ip',
        'n6_ip',
      ]),
    );
  });
});

function row(observation_id: string, cve_id: string, kev: boolean | null): HostAssociation {
  return { observation_id, cve_id, kev, conditional: false };
}

// --- a minimal interpreter of the filters the compiler emits -------------------------------------------------

function valuesAt(document: unknown, path: string): unknown[] {
  let current: unknown[] = [document];
  for (const segment of path.split('.')) {
    const next: unknown[] = [];
    for (const value of current) {
      if (Array.isArray(value)) {
        for (const element of value) {
          if (element !== null && typeof element === 'object' && segment in element) {
            next.push((element as Record<string, unknown>)[segment]);
          }
        }
      } else if (value !== null && typeof value === 'object' && segment in value) {
        next.push((value as Record<string, unknown>)[segment]);
      }
    }
    current = next;
  }
  // A path ending on an array offers the array and each of its elements.
  return current.flatMap((value) => (Array.isArray(value) ? [value, ...value] : [value]));
}

const kindOf = (value: unknown): string => (value instanceof Date ? 'date' : typeof value);

function compare(a: unknown, b: unknown): number | undefined {
  if (kindOf(a) !== kindOf(b)) return undefined;
  const x = a instanceof Date ? a.getTime() : (a as number | string);
  const y = b instanceof Date ? b.getTime() : (b as number | string);
  return x < y ? -1 : x > y ? 1 : 0;
}

function pcre(pattern: string, options: string): RegExp {
  return new RegExp(pattern.replaceAll('\\A', '^').replaceAll('\\z', '$'), options.includes('i') ? 'i' : '');
}

function matches(document: unknown, filter: Document): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as Document[]).every((part) => matches(document, part));
    if (key === '$or') return (condition as Document[]).some((part) => matches(document, part));
    if (key === '$nor') return !(condition as Document[]).some((part) => matches(document, part));
    if (key.startsWith('$')) throw new Error(`operator ${key} not interpreted`);
    const values = valuesAt(document, key);
    const isOperators =
      condition !== null &&
      typeof condition === 'object' &&
      !(condition instanceof Date) &&
      Object.keys(condition).every((operator) => operator.startsWith('$'));
    if (!isOperators) return values.some((value) => compare(value, condition) === 0);
    return Object.entries(condition as Document).every(([operator, operand]) => {
      switch (operator) {
        case '$exists':
          return values.length > 0 === operand;
        case '$type':
          return values.some((value) => typeof value === 'number');
        case '$in':
          return values.some((value) =>
            (operand as unknown[]).some((candidate) => compare(value, candidate) === 0),
          );
        case '$gt':
          return values.some(
            (value) => (compare(value, operand) ?? 0) > 0 && compare(value, operand) !== undefined,
          );
        case '$gte':
          return values.some(
            (value) => compare(value, operand) !== undefined && compare(value, operand)! >= 0,
          );
        case '$lt':
          return values.some(
            (value) => compare(value, operand) !== undefined && compare(value, operand)! < 0,
          );
        case '$lte':
          return values.some(
            (value) => compare(value, operand) !== undefined && compare(value, operand)! <= 0,
          );
        case '$regex': {
          const regex = pcre(
            operand as string,
            ((condition as Document).$options as string | undefined) ?? '',
          );
          return values.some((value) => typeof value === 'string' && regex.test(value));
        }
        case '$options':
          return true;
        case '$elemMatch':
          return values.some(
            (value) =>
              Array.isArray(value) &&
              value.some((element) => matches({ element }, { element: operand as Document })),
          );
        default:
          throw new Error(`operator ${operator} not interpreted`);
      }
    });
  });
}

function runFacet(documents: readonly StoredObservation[], stages: readonly Document[]): Document[] {
  let rows: Document[] = [...documents];
  for (const stage of stages) {
    const [name, spec] = Object.entries(stage)[0] as [string, Document];
    switch (name) {
      case '$project':
        rows = rows.map((row) => {
          const values = valuesAt(row, String(spec.value).slice(1));
          return values.length > 0 ? { value: values[0] } : {};
        });
        break;
      case '$unwind':
        rows = rows.flatMap((row) =>
          Array.isArray(row.value) ? row.value.map((value) => ({ value })) : [row],
        );
        break;
      case '$match':
        rows = rows.filter((row) => row.value !== undefined && row.value !== null);
        break;
      case '$group': {
        const counts = new Map<unknown, number>();
        for (const row of rows) counts.set(row.value, (counts.get(row.value) ?? 0) + 1);
        rows = [...counts].map(([value, count]) => ({ _id: value, count }));
        break;
      }
      case '$sort':
        rows.sort((a, b) => b.count - a.count || (compare(a._id, b._id) ?? 0));
        break;
      case '$limit':
        rows = rows.slice(0, spec as unknown as number);
        break;
      default:
        throw new Error(`stage ${name} not interpreted`);
    }
  }
  return rows;
}
