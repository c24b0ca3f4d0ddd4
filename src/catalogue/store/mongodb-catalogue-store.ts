/**
 * CatalogueStore over MongoDB, in the observation index's database: `catalogue_meta` (one document),
 * `catalogue_advisories`, `catalogue_kev`, `obs_hosts_cve` (the association index) and `catalogue_index_stamp`
 * (one document: the matcher version the association index was last built with). A commit runs in a
 * transaction (the observation index already requires a replica set). Selectors resolve the matching observation
 * ids from `obs_hosts_cve` and filter the observations with `_id: {$in: ids}`.
 */
import { MongoClient, type ClientSession, type Db, type Filter } from 'mongodb';
import type {
  MongoSelectorCompiler,
  StoredObservation,
} from '../../search/observation-index/mongodb-query-compiler.js';
import type { SelectorNode } from '../../search/observation-index/observation-index.port.js';
import {
  EMPTY_CATALOGUE_VERSION,
  type Advisory,
  type CatalogueVersion,
  type KevEntry,
  type KevSource,
} from '../domain/advisory.js';
import {
  selectorMeaning,
  type CatalogueChange,
  type CatalogueSnapshot,
  type CatalogueStore,
  type HostAssociation,
  type IndexStamp,
} from './catalogue-store.port.js';

interface MetaDocument {
  _id: 'catalogue';
  version: number;
  evaluated_at: Date | null;
  kev_source: KevSource | null;
  kev_hash: string | null;
}
interface AdvisoryDocument {
  _id: string;
  hash: string;
  last_modified: string | null;
  doc: Advisory;
}
interface KevDocument {
  _id: string;
  doc: KevEntry;
}
interface AssociationDocument extends HostAssociation {
  _id: string;
}
interface IndexStampDocument {
  _id: 'association_index';
  matcher_version: number;
  built_at: Date;
}

const CHUNK = 1000;

export class MongoCatalogueStore implements CatalogueStore {
  readonly kind = 'mongodb';
  private readonly db: Db;
  readonly mongoSelectors: MongoSelectorCompiler = {
    compile: (node) => this.compileSelector(node),
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
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      ignoreUndefined: true,
      serverSelectionTimeoutMS: 10_000,
    });
    await client.connect();
    const fromUrl = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]+)/.exec(url)?.[1];
    return new MongoCatalogueStore(
      client,
      databaseName ?? (fromUrl ? decodeURIComponent(fromUrl) : 'exposure'),
      true,
    );
  }

  private get meta() {
    return this.db.collection<MetaDocument>('catalogue_meta');
  }
  private get advisories() {
    return this.db.collection<AdvisoryDocument>('catalogue_advisories');
  }
  private get kev() {
    return this.db.collection<KevDocument>('catalogue_kev');
  }
  private get associations() {
    return this.db.collection<AssociationDocument>('obs_hosts_cve');
  }
  private get indexStamps() {
    return this.db.collection<IndexStampDocument>('catalogue_index_stamp');
  }

  async init(): Promise<void> {
    await this.associations.createIndex({ observation_id: 1, cve_id: 1 }, { name: 'by_observation' });
    await this.associations.createIndex({ cve_id: 1, observation_id: 1 }, { name: 'by_cve' });
    await this.associations.createIndex({ kev: 1, observation_id: 1 }, { name: 'by_kev' });
  }

  async version(): Promise<CatalogueVersion> {
    const meta = await this.meta.findOne({ _id: 'catalogue' });
    if (!meta) return EMPTY_CATALOGUE_VERSION;
    return {
      version: meta.version,
      evaluated_at: meta.evaluated_at?.toISOString() ?? null,
      kev_source: meta.kev_source,
      advisories: await this.advisories.countDocuments(),
      kev_entries: await this.kev.countDocuments(),
    };
  }

  async stamps(ids: readonly string[]): Promise<Map<string, { hash: string; last_modified: string | null }>> {
    const result = new Map<string, { hash: string; last_modified: string | null }>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const cursor = this.advisories.find(
        { _id: { $in: ids.slice(i, i + CHUNK) } },
        { projection: { hash: 1, last_modified: 1 } },
      );
      for await (const row of cursor)
        result.set(row._id, { hash: row.hash, last_modified: row.last_modified });
    }
    return result;
  }

  async kevHash(): Promise<string | null> {
    return (await this.meta.findOne({ _id: 'catalogue' }))?.kev_hash ?? null;
  }

  async commit(change: CatalogueChange): Promise<CatalogueVersion> {
    const session = this.client.startSession();
    try {
      await session.withTransaction(async () => {
        await this.apply(change, session);
      });
    } finally {
      await session.endSession();
    }
    return this.version();
  }

  private async apply(change: CatalogueChange, session: ClientSession): Promise<void> {
    // The meta document is written first: concurrent commits conflict on it and one of them retries.
    const kevChanged = change.kev !== null;
    await this.meta.updateOne(
      { _id: 'catalogue' },
      {
        $inc: { version: 1 },
        $set: {
          evaluated_at: change.at,
          ...(kevChanged ? { kev_source: change.kev!.source, kev_hash: change.kev!.hash } : {}),
        },
        ...(kevChanged ? {} : { $setOnInsert: { kev_source: null, kev_hash: null } }),
      },
      { upsert: true, session },
    );
    for await (const batch of change.upserts())
      for (let i = 0; i < batch.length; i += CHUNK) {
        await this.advisories.bulkWrite(
          batch.slice(i, i + CHUNK).map(({ advisory, hash }) => ({
            replaceOne: {
              filter: { _id: advisory.id },
              replacement: { hash, last_modified: advisory.last_modified, doc: advisory },
              upsert: true,
            },
          })),
          { session },
        );
      }
    if (change.kev) {
      await this.kev.deleteMany({}, { session });
      for (let i = 0; i < change.kev.entries.length; i += CHUNK)
        await this.kev.insertMany(
          change.kev.entries.slice(i, i + CHUNK).map((doc) => ({ _id: doc.cve_id, doc })),
          { session },
        );
    }
  }

  async load(): Promise<CatalogueSnapshot> {
    const version = await this.version();
    const advisories = (await this.advisories.find({}).sort({ _id: 1 }).toArray()).map((row) => row.doc);
    const kev =
      version.kev_source === null
        ? null
        : (await this.kev.find({}).sort({ _id: 1 }).toArray()).map((row) => row.doc);
    return { version, advisories, kev };
  }

  async replaceAssociations(
    observationIds: readonly string[],
    rows: readonly HostAssociation[],
  ): Promise<void> {
    if (observationIds.length === 0) return;
    const session = this.client.startSession();
    try {
      await session.withTransaction(async () => {
        await this.associations.deleteMany({ observation_id: { $in: [...observationIds] } }, { session });
        for (let i = 0; i < rows.length; i += CHUNK)
          await this.associations.insertMany(
            rows
              .slice(i, i + CHUNK)
              .map((row) => ({ _id: `${row.observation_id}\u0000${row.cve_id}`, ...row })),
            { session },
          );
      });
    } finally {
      await session.endSession();
    }
  }

  async clearAssociations(): Promise<void> {
    await this.associations.deleteMany({});
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
    return stamp ? { matcher_version: stamp.matcher_version, built_at: stamp.built_at.toISOString() } : null;
  }

  async stampIndex(matcherVersion: number, at: Date): Promise<void> {
    await this.indexStamps.replaceOne(
      { _id: 'association_index' },
      { matcher_version: matcherVersion, built_at: at },
      { upsert: true },
    );
  }

  private async observationIds(filter: Filter<AssociationDocument>): Promise<string[]> {
    return (await this.associations.distinct('observation_id', filter)) as string[];
  }

  private async compileSelector(node: SelectorNode): Promise<Filter<StoredObservation>> {
    const meaning = selectorMeaning(node.selector, node.value);
    let ids: string[];
    switch (meaning.kind) {
      case 'cve':
        ids = await this.observationIds({ cve_id: meaning.id });
        break;
      case 'cve-year':
        ids = await this.observationIds({
          cve_id: { $gte: `CVE-${meaning.year}-`, $lt: `CVE-${meaning.year}.` },
        });
        break;
      case 'cve-any':
        ids = await this.observationIds({});
        break;
      case 'kev':
        if (meaning.listed) ids = await this.observationIds({ kev: true });
        else {
          const notFalse = new Set(await this.observationIds({ kev: { $ne: false } }));
          ids = (await this.observationIds({ kev: false })).filter((id) => !notFalse.has(id));
        }
        break;
    }
    return { _id: { $in: ids } };
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
