/**
 * ObservationIndex over MongoDB (official `mongodb` driver). Passes test/contract/observation-index.contract.ts.
 * Layout, indexes and the query compiler: mongodb-query-compiler.ts.
 *
 * - write: validated and normalized first (one invalid record refuses the batch), then one multi-document
 *   transaction of upserts ($set of the record's fields by _id: the catalogue's `assoc` summary is kept).
 *   Transactions need a replica set (a single-node one is enough).
 * - init: reconciles the declared indexes (index-reconciliation.ts), and once per collection backfills the
 *   lowercased text fields (`x`) of documents written before they existed (ADR 83), in bounded batches.
 * - search: a count capped at countLimit + 1, then the page, read filter-first when the count shows few
 *   matches, else hinted along the (t.last_seen desc, _id) index (pagePlan, as the PostgreSQL adapter).
 * - stream: keyset on _id, one short query per batch.
 * - Abort: the signal is checked before each operation and given to the driver (its `signal` option), which
 *   rejects with the signal's reason and closes the connection of an operation in flight. The server-side
 *   operation ends when MongoDB notices the closed connection; `maxTimeMS` bounds it in any case, and its
 *   expiry rejects with the same TimeoutError as the deadline's signal.
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
  type ObservationWriteOptions,
  type ObservationWriteResult,
  type SearchPage,
} from './observation-index.port.js';
import {
  collectionOf,
  compileQuery,
  facetPipelines,
  indexesOf,
  loweredTexts,
  observationMerge,
  observationUpsert,
  pagePlan,
  RECENT_ORDER,
  remainingTimeMS,
  toStored,
  type MongoSelectorCompiler,
  type StoredObservation,
} from './mongodb-query-compiler.js';
import { databaseNameOf } from '../../platform/mongodb/connect.js';

export interface MongoObservationIndexOptions {
  /** Compiles `cve:`/`kev:` selectors (enrichment context); without it such queries fail. */
  readonly selectors?: MongoSelectorCompiler;
  /**
   * Server-side time limit of each search/aggregate call, in milliseconds, shared by its operations (the
   * composition passes the dataset deadline, SEARCH_DEADLINE_MS); each stream batch gets it whole. None by
   * default. A call past it rejects with a TimeoutError, as on the deadline's signal.
   */
  readonly maxTimeMS?: number;
}

const NAMESPACE_EXISTS = 48;
/** Per dataset: which one-time layout upgrades ran. */
const LAYOUT_COLLECTION = 'obs_layout';
const BACKFILL_BATCH = 1000;

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
      await this.backfillLoweredTexts(dataset);
    }
  }

  /** Documents written before `x` existed get it (keyset batches on _id); a marker makes it once per dataset. */
  private async backfillLoweredTexts(dataset: Dataset): Promise<void> {
    const layout = this.db.collection<{ _id: string; texts_lowered: boolean }>(LAYOUT_COLLECTION);
    if ((await layout.findOne({ _id: dataset }))?.texts_lowered) return;
    const collection = this.collection(dataset);
    let afterId: string | undefined;
    for (;;) {
      const batch = await collection
        .find(afterId === undefined ? {} : { _id: { $gt: afterId } }, { projection: { record: 1, x: 1 } })
        .sort({ _id: 1 })
        .limit(BACKFILL_BATCH)
        .toArray();
      const missing = batch.filter((document) => document.x === undefined);
      if (missing.length > 0)
        await collection.bulkWrite(
          missing.map((document) => ({
            updateOne: {
              filter: { _id: document._id },
              update: { $set: { x: loweredTexts(dataset, document.record) } },
            },
          })),
          { ordered: false },
        );
      if (batch.length < BACKFILL_BATCH) break;
      afterId = batch[batch.length - 1]!._id;
    }
    await layout.updateOne({ _id: dataset }, { $set: { texts_lowered: true } }, { upsert: true });
  }

  async write(
    dataset: Dataset,
    records: readonly ObservationRecord[],
    options: ObservationWriteOptions = {},
  ): Promise<ObservationWriteResult> {
    const seen = options.seen ?? 'replace';
    const observations = normalizeBatch(dataset, records, seen);
    if (observations.length === 0) return { inserted: 0, updated: 0 };
    const upsert = seen === 'merge' ? observationMerge : observationUpsert;
    const operations = observations.map((observation) => upsert(toStored(dataset, observation)));
    const session = this.client.startSession();
    let inserted = 0;
    try {
      await session.withTransaction(
        async () => {
          // An upsert that found no document inserted one; a retried transaction counts again from zero.
          inserted = (await this.collection(dataset).bulkWrite(operations, { session, ordered: true }))
            .upsertedCount;
        },
        { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' }, readPreference: 'primary' },
      );
    } finally {
      await session.endSession();
    }
    return { inserted, updated: observations.length - inserted };
  }

  async getMany(dataset: Dataset, ids: readonly string[]): Promise<ObservationRecord[]> {
    if (ids.length === 0) return [];
    const stored = await this.collection(dataset)
      .find({ _id: { $in: [...ids] } }, { projection: { record: 1 } })
      .toArray();
    return stored.map((document) => document.record);
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
    const startedAt = Date.now();
    throwIfAborted(signal);
    const filter = await this.compile(dataset, query, signal);
    const collection = this.collection(dataset);
    return raceAbort(
      timeoutsAsDeadline(async () => {
        // The count comes first: it chooses how the page is read (pagePlan), as on PostgreSQL.
        throwIfAborted(signal);
        const counted = await collection.countDocuments(filter, {
          limit: request.countLimit + 1,
          ...this.readOptions(signal, startedAt),
        });
        const plan = pagePlan(request, counted);
        let records: ObservationRecord[] = [];
        if (plan.read) {
          throwIfAborted(signal);
          const cursor = collection
            .find(filter, { projection: { record: 1 }, ...this.readOptions(signal, startedAt) })
            .sort({ ...RECENT_ORDER })
            .skip(request.offset)
            .limit(request.limit);
          if (plan.hint) cursor.hint(plan.hint);
          records = (await cursor.toArray()).map((document) => document.record);
          // A page that is not full ends the result: it tells the total even past countLimit.
          const total = totalFromPage(request, records.length);
          if (total !== undefined) return { records, total, totalIsLowerBound: false };
        }
        return { records, ...totalFromCount(request, records.length, counted) };
      }),
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
    const startedAt = Date.now();
    return raceAbort(
      timeoutsAsDeadline(async () => {
        throwIfAborted(signal);
        const [result] = await this.collection(dataset)
          .aggregate(pipeline, this.readOptions(signal, startedAt))
          .toArray();
        const facets: Facets = {};
        names.forEach((name, i) => {
          const buckets = (result?.[`f${i}`] ?? []) as Array<{ _id: FacetValue; count: number }>;
          facets[name] = buckets.map((bucket) => ({ value: bucket._id, count: bucket.count }));
        });
        return facets;
      }),
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
      // Each batch is one short query: the time limit applies per batch (an export streams for longer).
      const stored = await raceAbort(
        timeoutsAsDeadline(() =>
          collection
            .find(batchFilter, { projection: { record: 1 }, ...this.readOptions(signal, Date.now()) })
            .sort({ _id: 1 })
            .limit(batchSize)
            .toArray(),
        ),
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

  /** The signal, and what is left of the time budget of a call that started at `startedAt`. */
  private readOptions(
    signal: AbortSignal | undefined,
    startedAt: number,
  ): { signal?: AbortSignal; maxTimeMS?: number } {
    return {
      ...(signal ? { signal } : {}),
      ...(this.maxTimeMS !== undefined
        ? { maxTimeMS: remainingTimeMS(this.maxTimeMS, startedAt, Date.now()) }
        : {}),
    };
  }
}

const MAX_TIME_MS_EXPIRED = 50;

/**
 * The server's time limit ran out: the same TimeoutError the dataset deadline's AbortSignal gives (and the
 * PostgreSQL adapter rethrows on its deadline), so the caller refuses both alike (`timeout`).
 */
async function timeoutsAsDeadline<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (hasCode(error, MAX_TIME_MS_EXPIRED)) throw deadlineExceeded();
    throw error;
  }
}

export function deadlineExceeded(): DOMException {
  return new DOMException('the operation exceeded its time limit (maxTimeMS)', 'TimeoutError');
}

function hasCode(error: unknown, ...codes: number[]): boolean {
  return error instanceof MongoServerError && typeof error.code === 'number' && codes.includes(error.code);
}
