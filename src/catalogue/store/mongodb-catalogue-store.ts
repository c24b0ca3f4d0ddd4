/**
 * CatalogueStore over MongoDB, in the observation index's database: `catalogue_meta` (one document naming the
 * current generations), `catalogue_advisories_g<n>` / `catalogue_kev_g<n>` (one collection per generation),
 * `catalogue_generations` (the generation counter), `obs_hosts_cve` (the association index) and
 * `catalogue_index_stamp` (one document: the matcher version the association index was last built with).
 * A commit writes a new generation in bounded batches outside any transaction and switches to it with one
 * single-document write; each observation carries the summary of its associations, which the `cve:`/`kev:`
 * selectors query through a multikey index. Both are described in mongodb-catalogue-plan.ts (ADRs 82, 83).
 */
import { MongoClient, MongoServerError, type AnyBulkWriteOperation, type Db, type Document } from 'mongodb';
import { reconcileIndexes } from '../../platform/mongodb/index-reconciliation.js';
import {
  collectionOf,
  type MongoSelectorCompiler,
  type StoredObservation,
} from '../../search/observation-index/mongodb-query-compiler.js';
import { EMPTY_CATALOGUE_VERSION, type CatalogueVersion, type KevSource } from '../domain/advisory.js';
import {
  selectorMeaning,
  type CatalogueChange,
  type CatalogueSnapshot,
  type CatalogueStore,
  type HostAssociation,
  type IndexStamp,
  type StoredAdvisory,
} from './catalogue-store.port.js';
import {
  advisoriesCollectionOf,
  advisoryBatches,
  ASSOCIATION_FIELD,
  associationWrites,
  importPlan,
  generationsToDrop,
  kevCollectionOf,
  OBSERVATION_ASSOCIATION_INDEXES,
  selectorFilter,
  type AdvisoryDocument,
  type CurrentGenerations,
  type GenerationWrite,
  type ImportPlan,
  type KevDocument,
} from './mongodb-catalogue-plan.js';
import { connectMongo } from '../../platform/mongodb/connect.js';

interface MetaDocument extends Partial<CurrentGenerations> {
  _id: 'catalogue';
  version: number;
  evaluated_at: Date | null;
  kev_source: KevSource | null;
  kev_hash: string | null;
  /** Counts of the named generations (absent before generations: counted then). */
  advisory_count?: number;
  kev_count?: number;
}
interface CounterDocument {
  _id: 'generation';
  last: number;
}
interface AssociationDocument extends HostAssociation {
  _id: string;
}
interface IndexStampDocument {
  _id: 'association_index';
  matcher_version: number;
  built_at: Date;
  /** ASSOCIATION_LAYOUT when the observations carry their association summary. */
  layout?: number;
}

const CHUNK = 1000;
/** 2: observations carry `assoc` (ADR 83). A stamp from before is no stamp: the index is rebuilt at start. */
const ASSOCIATION_LAYOUT = 2;
/** A commit that keeps losing the switch to concurrent ones gives up after this many attempts. */
const SWITCH_ATTEMPTS = 5;
const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;

export class MongoCatalogueStore implements CatalogueStore {
  readonly kind = 'mongodb';
  private readonly db: Db;
  readonly mongoSelectors: MongoSelectorCompiler = {
    compile: (node) => selectorFilter(selectorMeaning(node.selector, node.value)),
  };

  constructor(
    private readonly client: MongoClient,
    databaseName: string,
    private readonly ownsClient = false,
  ) {
    this.db = client.db(databaseName);
  }

  /** The database is `databaseName`, else the one named in the URL path, else `exposure` (as the index). */
  static async connect(url: string, databaseName?: string): Promise<MongoCatalogueStore> {
    const connected = await connectMongo(url, databaseName);
    return new MongoCatalogueStore(connected.client, connected.databaseName, true);
  }

  private get meta() {
    return this.db.collection<MetaDocument>('catalogue_meta');
  }
  private get counter() {
    return this.db.collection<CounterDocument>('catalogue_generations');
  }
  private advisories(generation: number) {
    return this.db.collection<AdvisoryDocument>(advisoriesCollectionOf(generation));
  }
  private kev(generation: number) {
    return this.db.collection<KevDocument>(kevCollectionOf(generation));
  }
  private get associations() {
    return this.db.collection<AssociationDocument>('obs_hosts_cve');
  }
  private get observations() {
    return this.db.collection<StoredObservation>(collectionOf('hosts'));
  }
  private get indexStamps() {
    return this.db.collection<IndexStampDocument>('catalogue_index_stamp');
  }

  async init(): Promise<void> {
    for (const name of ['obs_hosts_cve', collectionOf('hosts')]) {
      try {
        await this.db.createCollection(name);
      } catch (error) {
        if (!hasCode(error, NAMESPACE_EXISTS)) throw error;
      }
    }
    await reconcileIndexes(this.associations, [
      { name: 'by_observation', keys: { observation_id: 1, cve_id: 1 } },
      { name: 'by_cve', keys: { cve_id: 1, observation_id: 1 } },
    ]);
    await reconcileIndexes(this.observations, OBSERVATION_ASSOCIATION_INDEXES);
  }

  private async currentMeta(): Promise<MetaDocument | null> {
    return this.meta.findOne({ _id: 'catalogue' });
  }

  async version(): Promise<CatalogueVersion> {
    return this.versionOf(await this.currentMeta());
  }

  /** The version a meta document names (one read of it: a reader never mixes two catalogues). */
  private async versionOf(meta: MetaDocument | null): Promise<CatalogueVersion> {
    if (!meta) return EMPTY_CATALOGUE_VERSION;
    const current = generationsOf(meta);
    return {
      version: meta.version,
      evaluated_at: meta.evaluated_at?.toISOString() ?? null,
      kev_source: meta.kev_source,
      advisories:
        meta.advisory_count ?? (await this.advisories(current.advisories_generation).countDocuments()),
      kev_entries: meta.kev_count ?? (await this.kev(current.kev_generation).countDocuments()),
    };
  }

  async stamps(ids: readonly string[]): Promise<Map<string, { hash: string; last_modified: string | null }>> {
    const result = new Map<string, { hash: string; last_modified: string | null }>();
    const advisories = this.advisories(generationsOf(await this.currentMeta()).advisories_generation);
    for (let i = 0; i < ids.length; i += CHUNK) {
      const cursor = advisories.find(
        { _id: { $in: ids.slice(i, i + CHUNK) } },
        { projection: { hash: 1, last_modified: 1 } },
      );
      for await (const row of cursor)
        result.set(row._id, { hash: row.hash, last_modified: row.last_modified });
    }
    return result;
  }

  async kevHash(): Promise<string | null> {
    return (await this.currentMeta())?.kev_hash ?? null;
  }

  /** A new generation written in bounded batches, then one atomic switch (see mongodb-catalogue-plan.ts). */
  async commit(change: CatalogueChange): Promise<CatalogueVersion> {
    for (let attempt = 1; ; attempt++) {
      const meta = await this.currentMeta();
      const current = generationsOf(meta);
      // Advisories arrive in batches (an NVD-sized import is never held whole): the plan is made from the first
      // non-empty one, and the others are written into the same generation as they come.
      const upserts = change.upserts()[Symbol.asyncIterator]();
      let first: readonly StoredAdvisory[] = [];
      for (let next = await upserts.next(); !next.done; next = await upserts.next())
        if (next.value.length > 0) {
          first = next.value;
          break;
        }
      const plan = importPlan({ upserts: first, kev: change.kev }, current, await this.nextGeneration());
      const written: string[] = [];
      const counts: { advisory_count?: number; kev_count?: number } = {};
      if (plan.advisories) {
        written.push(plan.advisories.into);
        counts.advisory_count = await this.writeGeneration(plan.advisories, restOf(upserts));
      }
      if (plan.kev) {
        written.push(plan.kev.into);
        counts.kev_count = await this.writeGeneration(plan.kev);
      }
      if (await this.switchTo(meta, plan, change, counts)) {
        await this.dropGenerations(plan.switchTo, current);
        return this.version();
      }
      // Another commit switched first: this generation is abandoned, and the change is applied to the new one.
      for (const name of written) await this.dropCollection(name);
      if (attempt >= SWITCH_ATTEMPTS)
        throw new Error(`the catalogue changed under ${SWITCH_ATTEMPTS} attempts to commit an import`);
    }
  }

  private async nextGeneration(): Promise<number> {
    const counter = await this.counter.findOneAndUpdate(
      { _id: 'generation' },
      { $inc: { last: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    return counter!.last;
  }

  /** Copies (server-side) and upserts one generation's collection; returns its document count. */
  private async writeGeneration<T extends Document>(
    write: GenerationWrite<T>,
    more: AsyncIterable<readonly AnyBulkWriteOperation<T>[]> = noMoreBatches(),
  ): Promise<number> {
    if (write.copyFrom !== null)
      await this.db
        .collection(write.copyFrom)
        .aggregate([{ $out: write.into }])
        .toArray();
    const into = this.db.collection<T>(write.into);
    for (const batch of write.batches) await into.bulkWrite([...batch], { ordered: false });
    for await (const batch of more) await into.bulkWrite([...batch], { ordered: false });
    return into.countDocuments();
  }

  /** The one write that makes the new generation the catalogue; false when another commit switched first. */
  private async switchTo(
    meta: MetaDocument | null,
    plan: ImportPlan,
    change: CatalogueChange,
    counts: { advisory_count?: number; kev_count?: number },
  ): Promise<boolean> {
    const kev = change.kev ? { kev_source: change.kev.source, kev_hash: change.kev.hash } : {};
    if (!meta) {
      try {
        await this.meta.insertOne({
          _id: 'catalogue',
          version: 1,
          evaluated_at: change.at,
          kev_source: null,
          kev_hash: null,
          advisory_count: 0,
          kev_count: 0,
          ...plan.switchTo,
          ...counts,
          ...kev,
        });
        return true;
      } catch (error) {
        if (hasCode(error, DUPLICATE_KEY)) return false;
        throw error;
      }
    }
    const result = await this.meta.updateOne(
      { _id: 'catalogue', version: meta.version },
      { $inc: { version: 1 }, $set: { evaluated_at: change.at, ...plan.switchTo, ...counts, ...kev } },
    );
    return result.matchedCount === 1;
  }

  private async dropGenerations(current: CurrentGenerations, replaced: CurrentGenerations): Promise<void> {
    const names = (
      await this.db
        .listCollections({ name: { $regex: '^catalogue_(advisories|kev)' } }, { nameOnly: true })
        .toArray()
    ).map((collection) => collection.name);
    for (const name of generationsToDrop(names, current, replaced)) await this.dropCollection(name);
  }

  private async dropCollection(name: string): Promise<void> {
    try {
      await this.db.dropCollection(name);
    } catch (error) {
      if (!hasCode(error, NAMESPACE_NOT_FOUND)) throw error;
    }
  }

  async load(): Promise<CatalogueSnapshot> {
    const meta = await this.currentMeta();
    const version = await this.versionOf(meta);
    const current = generationsOf(meta);
    const advisories = (
      await this.advisories(current.advisories_generation).find({}).sort({ _id: 1 }).toArray()
    ).map((row) => row.doc);
    const kev =
      version.kev_source === null
        ? null
        : (await this.kev(current.kev_generation).find({}).sort({ _id: 1 }).toArray()).map((row) => row.doc);
    return { version, advisories, kev };
  }

  async replaceAssociations(
    observationIds: readonly string[],
    rows: readonly HostAssociation[],
  ): Promise<void> {
    if (observationIds.length === 0) return;
    const writes = associationWrites(observationIds, rows);
    const session = this.client.startSession();
    try {
      await session.withTransaction(async () => {
        await this.associations.deleteMany({ observation_id: { $in: [...observationIds] } }, { session });
        for (let i = 0; i < writes.associations.length; i += CHUNK)
          await this.associations.bulkWrite(writes.associations.slice(i, i + CHUNK), {
            session,
            ordered: false,
          });
        for (let i = 0; i < writes.observations.length; i += CHUNK)
          await this.observations.bulkWrite(writes.observations.slice(i, i + CHUNK), {
            session,
            ordered: false,
          });
      });
    } finally {
      await session.endSession();
    }
  }

  async clearAssociations(): Promise<void> {
    await this.associations.deleteMany({});
    await this.observations.updateMany(
      { [ASSOCIATION_FIELD]: { $exists: true } },
      { $unset: { [ASSOCIATION_FIELD]: '' } },
    );
  }

  async associationCount(): Promise<number> {
    return this.associations.countDocuments();
  }

  async associationsOf(observationIds: readonly string[]): Promise<Map<string, HostAssociation[]>> {
    const result = new Map<string, HostAssociation[]>();
    const cursor = this.associations
      .find({ observation_id: { $in: [...observationIds] } })
      .sort({ observation_id: 1, cve_id: 1 });
    for await (const { _id: _ignored, ...row } of cursor) {
      const list = result.get(row.observation_id);
      if (list) list.push(row);
      else result.set(row.observation_id, [row]);
    }
    return result;
  }

  async indexStamp(): Promise<IndexStamp | null> {
    const stamp = await this.indexStamps.findOne({ _id: 'association_index' });
    // Built before the observations carried their summary: the selectors would miss it, so it is rebuilt.
    if (!stamp || stamp.layout !== ASSOCIATION_LAYOUT) return null;
    return { matcher_version: stamp.matcher_version, built_at: stamp.built_at.toISOString() };
  }

  async stampIndex(matcherVersion: number, at: Date): Promise<void> {
    await this.indexStamps.replaceOne(
      { _id: 'association_index' },
      { matcher_version: matcherVersion, built_at: at, layout: ASSOCIATION_LAYOUT },
      { upsert: true },
    );
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}

function generationsOf(meta: MetaDocument | null): CurrentGenerations {
  return {
    advisories_generation: meta?.advisories_generation ?? 0,
    kev_generation: meta?.kev_generation ?? 0,
  };
}

function hasCode(error: unknown, code: number): boolean {
  return error instanceof MongoServerError && error.code === code;
}

/** The advisory batches an iterator still holds, as bulkWrite batches of the plan's size. */
async function* restOf(
  upserts: AsyncIterator<readonly StoredAdvisory[]>,
): AsyncIterable<readonly AnyBulkWriteOperation<AdvisoryDocument>[]> {
  for (let next = await upserts.next(); !next.done; next = await upserts.next())
    yield* advisoryBatches(next.value);
}

async function* noMoreBatches<T extends Document>(): AsyncIterable<readonly AnyBulkWriteOperation<T>[]> {}
