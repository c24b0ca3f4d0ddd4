/**
 * ObservationIndex over MongoDB (official `mongodb` driver). Passes test/contract/observation-index.contract.ts.
 * Layout, indexes and the query compiler: mongodb-query-compiler.ts.
 *
 * - write: validated and normalized first (one invalid record refuses the batch), then one multi-document
 *   transaction of upserts ($set of the record's fields by _id: the catalogue's `assoc` summary is kept). Transactions need a replica set (a single-node one is enough).
 * - search: the page first (sorted on the (t.last_seen desc, _id) index); a page that is not full tells the
 *   total, otherwise countDocuments with limit countLimit + 1.
 * - stream: keyset on _id, one short query per batch.
 * - Abort: the signal is checked before each operation and given to the driver (its `signal` option), which
 *   rejects with the signal's reason and closes the connection of an operation in flight. The server-side
 *   operation ends when MongoDB notices the closed connection; `maxTimeMS` bounds it in any case.
 */
import { MongoClient, MongoServerError, type Collection, type Db, type Document, type Filter } from 'mongodb';
import { reconcileIndexes } from '../../platform/mongodb/index-reconciliation.js';
import { DATASETS, type Dataset } from '../domain/datasets.js';
import {
  aggregatableField,
  assertDataset,
  normalizeBatch,
  pageRequest,
  positiveInteger,
  raceAbort,
  throwIfAborted,
  totalFromCount,
  totalFromPage,
  type Facets,
  type FacetValue,
  type ObservationIndex,
  type ObservationQuery,
  type ObservationRecord,
  type SearchPage,
} from './observation-index.port.js';
import {
  collectionOf,
  compileQuery,
  facetPipelines,
  indexesOf,
  observationUpsert,
  toStored,
  type MongoSelectorCompiler,
  type StoredObservation,
} from './mongodb-query-compiler.js';

export interface MongoObservationIndexOptions {
  /** Compiles `cve:`/`kev:` selectors (enrichment context); without it such queries fail. */
  readonly selectors?: MongoSelectorCompiler;
  /** Server-side time limit of each read operation, in milliseconds (none by default). */
  readonly maxTimeMS?: number;
}

const NAMESPACE_EXISTS = 48;

export class MongoObservationIndex implements ObservationIndex {
  readonly kind = 'mongodb';
  private readonly db: Db;
  private readonly selectors: MongoSelectorCompiler | undefined;
  private readonly maxTimeMS: number | undefined;

  private readonly ownsClient: boolean;
  private closed = false;

  constructor(
    private readonly client: MongoClient,
    databaseName: string,
    options: MongoObservationIndexOptions & { readonly ownsClient?: boolean } = {},
  ) {
    this.db = client.db(databaseName);
    this.selectors = options.selectors;
    this.maxTimeMS =
      options.maxTimeMS === undefined ? undefined : positiveInteger(options.maxTimeMS, 'maxTimeMS');
    this.ownsClient = options.ownsClient ?? false;
  }

  /**
   * Connects to `url` (e.g. `mongodb://host:27017/exposure?replicaSet=rs0`); the database is `dbName`, else the
   * one named in the URL path, else `exposure`. The index owns the client and closes it.
   */
  static async connect(
    url: string,
    dbName?: string,
    options: MongoObservationIndexOptions = {},
  ): Promise<MongoObservationIndex> {
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      ignoreUndefined: true,
      serverSelectionTimeoutMS: 10_000,
    });
    await client.connect();
    return new MongoObservationIndex(client, dbName ?? databaseNameOf(url) ?? 'exposure', {
      ...options,
      ownsClient: true,
    });
  }

  async init(): Promise<void> {
    const hello = await this.db.admin().command({ hello: 1 });
    if (typeof hello.setName !== 'string' && hello.msg !== 'isdbgrid') {
      throw new Error(
        'the MongoDB observation index writes in transactions: run MongoDB as a replica set (a single node is ' +
          'enough, e.g. `mongod --replSet rs0` and `rs.initiate()`)',
      );
    }
    for (const dataset of DATASETS) {
      try {
        await this.db.createCollection(collectionOf(dataset));
      } catch (error) {
        if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
      }
      await reconcileIndexes(this.collection(dataset), indexesOf(dataset));
    }
  }

  async write(dataset: Dataset, records: readonly ObservationRecord[]): Promise<void> {
    const observations = normalizeBatch(dataset, records);
    if (observations.length === 0) return;
    const operations = observations.map((observation) => observationUpsert(toStored(dataset, observation)));
    const session = this.client.startSession();
    try {
      await session.withTransaction(
        async () => {
          await this.collection(dataset).bulkWrite(operations, { session, ordered: true });
        },
        { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' },
      );
    } finally {
      await session.endSession();
    }
  }

  async count(dataset: Dataset): Promise<number> {
    return this.collection(dataset).countDocuments({});
  }

  async get(dataset: Dataset, id: string): Promise<ObservationRecord | null> {
    const stored = await this.collection(dataset).findOne({ _id: id }, { projection: { record: 1 } });
    return stored ? stored.record : null;
  }

  async search(
    dataset: Dataset,
    query: ObservationQuery,
    page: { offset: number; limit: number; countLimit?: number },
    signal?: AbortSignal,
  ): Promise<SearchPage> {
    const request = pageRequest(page);
    throwIfAborted(signal);
    const filter = await this.compile(dataset, query, signal);
    const collection = this.collection(dataset);
    return raceAbort(
      (async () => {
        let records: ObservationRecord[] = [];
        if (request.limit > 0) {
          throwIfAborted(signal);
          const stored = await collection
            .find(filter, { projection: { record: 1 }, ...this.readOptions(signal) })
            .sort({ 't.last_seen': -1, _id: 1 })
            .skip(request.offset)
            .limit(request.limit)
            .toArray();
          records = stored.map((document) => document.record);
        }
        const total = totalFromPage(request, records.length);
        if (total !== undefined) return { records, total, totalIsLowerBound: false };
        throwIfAborted(signal);
        const counted = await collection.countDocuments(filter, {
          limit: request.countLimit + 1,
          ...this.readOptions(signal),
        });
        return { records, ...totalFromCount(request, records.length, counted) };
      })(),
      signal,
    );
  }

  async aggregate(
    dataset: Dataset,
    query: ObservationQuery,
    fields: readonly string[],
    limit: number,
    signal?: AbortSignal,
  ): Promise<Facets> {
    assertDataset(dataset);
    positiveInteger(limit, 'limit');
    const names = [...new Set(fields)];
    for (const name of names) aggregatableField(dataset, name);
    throwIfAborted(signal);
    const filter = await this.compile(dataset, query, signal);
    if (names.length === 0) return {};
    const pipeline: Document[] = [{ $match: filter }, { $facet: facetPipelines(dataset, names, limit) }];
    return raceAbort(
      (async () => {
        throwIfAborted(signal);
        const [result] = await this.collection(dataset)
          .aggregate(pipeline, this.readOptions(signal))
          .toArray();
        const facets: Facets = {};
        names.forEach((name, i) => {
          const buckets = (result?.[`f${i}`] ?? []) as Array<{ _id: FacetValue; count: number }>;
          facets[name] = buckets.map((bucket) => ({ value: bucket._id, count: bucket.count }));
        });
        return facets;
      })(),
      signal,
    );
  }

  async *stream(
    dataset: Dataset,
    query: ObservationQuery,
    batchSize: number,
    signal?: AbortSignal,
  ): AsyncIterable<ObservationRecord[]> {
    positiveInteger(batchSize, 'batchSize');
    throwIfAborted(signal);
    const filter = await this.compile(dataset, query, signal);
    const collection = this.collection(dataset);
    let afterId: string | undefined;
    for (;;) {
      throwIfAborted(signal);
      const batchFilter: Filter<StoredObservation> =
        afterId === undefined ? filter : { $and: [filter, { _id: { $gt: afterId } }] };
      const stored = await raceAbort(
        collection
          .find(batchFilter, { projection: { record: 1 }, ...this.readOptions(signal) })
          .sort({ _id: 1 })
          .limit(batchSize)
          .toArray(),
        signal,
      );
      if (stored.length > 0) yield stored.map((document) => document.record);
      if (stored.length < batchSize) return;
      afterId = stored[stored.length - 1]!._id;
    }
  }

  async clear(dataset: Dataset): Promise<void> {
    await this.collection(dataset).deleteMany({});
  }

  /** Closes the client when the index opened it (connect); a client passed in belongs to the caller. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  private collection(dataset: Dataset): Collection<StoredObservation> {
    return this.db.collection<StoredObservation>(collectionOf(dataset));
  }

  private compile(dataset: Dataset, query: ObservationQuery, signal: AbortSignal | undefined) {
    return compileQuery(dataset, query, {
      db: this.db,
      ...(this.selectors ? { selectors: this.selectors } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  private readOptions(signal: AbortSignal | undefined): { signal?: AbortSignal; maxTimeMS?: number } {
    return {
      ...(signal ? { signal } : {}),
      ...(this.maxTimeMS !== undefined ? { maxTimeMS: this.maxTimeMS } : {}),
    };
  }
}

function hasCode(error: unknown, ...codes: number[]): boolean {
  return error instanceof MongoServerError && typeof error.code === 'number' && codes.includes(error.code);
}

function databaseNameOf(url: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : undefined;
  return name || undefined;
}
