/**
 * What the MongoDB catalogue store sends to the server, as pure functions (test/unit/mongodb holds them to real
 * inputs without a server; the contract leg runs them against one).
 *
 * Import (ADR 82): a full NVD import (~250,000 advisories) does not fit in one MongoDB transaction (60 s
 * `transactionLifetimeLimitSeconds`, and the WiredTiger cache holds a transaction's whole write set). So a commit
 * writes a new *generation* outside any transaction and switches to it with one single-document write:
 *   1. a generation number n is taken from a counter (never reused, even by an import that crashed);
 *   2. when advisories change: the current generation's advisories are copied server-side ($out) into
 *      `catalogue_advisories_g<n>`, then the change is upserted into it in bounded batches (replaceOne upsert by
 *      id, unordered: a re-sent batch writes the same documents again);
 *      when the KEV catalogue changes: its entries are upserted into `catalogue_kev_g<n>` the same way;
 *   3. the meta document is updated, filtered on the version read in step 1: it names the new generations and
 *      bumps the version in one atomic write. A reader reads the meta document first and then only the
 *      generations it names, which no one writes any more: it sees the old catalogue or the new one, never a mix;
 *   4. generations older than the one just replaced, and abandoned ones, are dropped (the one just replaced
 *      stays for readers that read the meta document before the switch).
 * A crash before step 3 leaves the old catalogue in place; the next commit (a re-run of the import) drops the
 * abandoned collections. A commit that loses the switch to a concurrent one starts again on the new catalogue.
 *
 * Associations (ADR 83): `cve:`/`kev:` compile to one indexed condition on the observation document, whose
 * `assoc` field summarizes its rows in `obs_hosts_cve` (kept in the same transaction): `assoc.cves` (multikey)
 * and `assoc.kev`. No id list crosses the wire, so no 16 MB document limit applies.
 */
import type { AnyBulkWriteOperation, Document, Filter } from 'mongodb';
import type { StoredObservation } from '../../search/observation-index/mongodb-query-compiler.js';
import type { DeclaredIndex } from '../../platform/mongodb/index-reconciliation.js';
import type { KevEntry } from '../domain/advisory.js';
import type { HostAssociation, SelectorMeaning, StoredAdvisory } from './catalogue-store.port.js';

/** Documents per bulkWrite: far below the 16 MB / 100,000-operation batch limits at NVD record sizes. */
export const IMPORT_BATCH = 1000;

// --- generations -------------------------------------------------------------------------------------------

/** Generation 0 is the layout before generations: the unsuffixed collections. */
export function advisoriesCollectionOf(generation: number): string {
  return generation === 0 ? 'catalogue_advisories' : `catalogue_advisories_g${generation}`;
}
export function kevCollectionOf(generation: number): string {
  return generation === 0 ? 'catalogue_kev' : `catalogue_kev_g${generation}`;
}

export interface AdvisoryDocument {
  _id: string;
  hash: string;
  last_modified: string | null;
  doc: StoredAdvisory['advisory'];
}
export interface KevDocument {
  _id: string;
  doc: KevEntry;
}

export interface GenerationWrite<T extends Document> {
  /** The collection the new generation is written into. */
  readonly into: string;
  /** Copied server-side into `into` before the batches, or null (a complete replacement). */
  readonly copyFrom: string | null;
  /** Idempotent bulkWrite batches (unordered replaceOne upserts by _id). */
  readonly batches: readonly (readonly AnyBulkWriteOperation<T>[])[];
}

export interface ImportPlan {
  readonly generation: number;
  readonly advisories: GenerationWrite<AdvisoryDocument> | null;
  readonly kev: GenerationWrite<KevDocument> | null;
  /** The generations the meta document names after the switch. */
  readonly switchTo: { readonly advisories_generation: number; readonly kev_generation: number };
}

export interface CurrentGenerations {
  readonly advisories_generation: number;
  readonly kev_generation: number;
}

function batchesOf<T, D extends Document>(
  items: readonly T[],
  toOperation: (item: T) => AnyBulkWriteOperation<D>,
  size: number,
): AnyBulkWriteOperation<D>[][] {
  const batches: AnyBulkWriteOperation<D>[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size).map(toOperation));
  return batches;
}

/** Unordered, idempotent upserts of advisories by id, `size` to a bulkWrite. */
export function advisoryBatches(
  upserts: readonly StoredAdvisory[],
  size = IMPORT_BATCH,
): AnyBulkWriteOperation<AdvisoryDocument>[][] {
  return batchesOf<StoredAdvisory, AdvisoryDocument>(
    upserts,
    ({ advisory, hash }) => ({
      replaceOne: {
        filter: { _id: advisory.id },
        replacement: { hash, last_modified: advisory.last_modified, doc: advisory },
        upsert: true,
      },
    }),
    size,
  );
}

/** How one catalogue change is written as a new generation `generation` over `current`. */
export function importPlan(
  change: {
    readonly upserts: readonly StoredAdvisory[];
    readonly kev: { readonly entries: readonly KevEntry[] } | null;
  },
  current: CurrentGenerations,
  generation: number,
  batchSize = IMPORT_BATCH,
): ImportPlan {
  const advisories: GenerationWrite<AdvisoryDocument> | null =
    change.upserts.length === 0
      ? null
      : {
          into: advisoriesCollectionOf(generation),
          copyFrom: advisoriesCollectionOf(current.advisories_generation),
          batches: advisoryBatches(change.upserts, batchSize),
        };
  const kev: GenerationWrite<KevDocument> | null = change.kev
    ? {
        into: kevCollectionOf(generation),
        copyFrom: null,
        batches: batchesOf<KevEntry, KevDocument>(
          change.kev.entries,
          (doc) => ({ replaceOne: { filter: { _id: doc.cve_id }, replacement: { doc }, upsert: true } }),
          batchSize,
        ),
      }
    : null;
  return {
    generation,
    advisories,
    kev,
    switchTo: {
      advisories_generation: advisories ? generation : current.advisories_generation,
      kev_generation: kev ? generation : current.kev_generation,
    },
  };
}

/**
 * The generation collections to drop after a switch from `replaced` to `current`: every other generation below
 * the newest current one (older catalogues and abandoned imports). The replaced generation stays (readers that
 * read the meta document before the switch), and so does anything newer (an import still running).
 */
export function generationsToDrop(
  collectionNames: readonly string[],
  current: CurrentGenerations,
  replaced: CurrentGenerations,
): string[] {
  const keep = new Set([
    advisoriesCollectionOf(current.advisories_generation),
    advisoriesCollectionOf(replaced.advisories_generation),
    kevCollectionOf(current.kev_generation),
    kevCollectionOf(replaced.kev_generation),
  ]);
  const newest = Math.max(current.advisories_generation, current.kev_generation);
  const drop: string[] = [];
  for (const name of collectionNames) {
    const match = /^catalogue_(?:advisories|kev)(?:_g(\d+))?$/.exec(name);
    if (!match || keep.has(name)) continue;
    const generation = match[1] === undefined ? 0 : Number(match[1]);
    if (generation < newest) drop.push(name);
  }
  return drop.sort();
}

// --- associations ------------------------------------------------------------------------------------------

/** The association summary kept on an observation document (`assoc`), absent for one without associations. */
export interface ObservationAssociations {
  /** Associated CVE ids, sorted (multikey index `assoc_cves`). */
  readonly cves: string[];
  /**
   * `listed`: at least one associated advisory is in the KEV catalogue; `unlisted`: none is, with a KEV catalogue
   * loaded for all of them; `unknown`: otherwise (some KEV state unknown). See SelectorMeaning.
   */
  readonly kev: 'listed' | 'unlisted' | 'unknown';
}

export const ASSOCIATION_FIELD = 'assoc';

/** The indexes on the observation collection (`obs_hosts`) that the selectors use. */
export const OBSERVATION_ASSOCIATION_INDEXES: readonly DeclaredIndex[] = [
  { name: 'assoc_cves', keys: { [`${ASSOCIATION_FIELD}.cves`]: 1 } },
  { name: 'assoc_kev', keys: { [`${ASSOCIATION_FIELD}.kev`]: 1 } },
];

export function associationSummary(rows: readonly HostAssociation[]): ObservationAssociations | null {
  if (rows.length === 0) return null;
  const cves = [...new Set(rows.map((row) => row.cve_id))].sort();
  const kev = rows.some((row) => row.kev === true)
    ? 'listed'
    : rows.every((row) => row.kev === false)
      ? 'unlisted'
      : 'unknown';
  return { cves, kev };
}

/**
 * The writes that replace the associations of `observationIds` with `rows`: the association documents
 * (unordered upserts: a repeated pair updates instead of aborting the batch) and each observation's summary
 * (no upsert: an association never creates an observation).
 */
export function associationWrites(
  observationIds: readonly string[],
  rows: readonly HostAssociation[],
): {
  readonly associations: AnyBulkWriteOperation<HostAssociation & { _id: string }>[];
  readonly observations: AnyBulkWriteOperation<StoredObservation>[];
} {
  const byObservation = new Map<string, HostAssociation[]>(observationIds.map((id) => [id, []]));
  for (const row of rows) {
    const list = byObservation.get(row.observation_id);
    if (list) list.push(row);
    else byObservation.set(row.observation_id, [row]);
  }
  const associations = rows.map((row) => ({
    updateOne: {
      filter: { _id: associationId(row) },
      update: {
        $set: {
          observation_id: row.observation_id,
          cve_id: row.cve_id,
          kev: row.kev,
          conditional: row.conditional,
        },
      },
      upsert: true,
    },
  }));
  const observations: AnyBulkWriteOperation<StoredObservation>[] = [];
  for (const [id, list] of byObservation) {
    const summary = associationSummary(list);
    observations.push({
      updateOne: {
        filter: { _id: id },
        update: summary
          ? ({ $set: { [ASSOCIATION_FIELD]: summary } } as Document)
          : ({ $unset: { [ASSOCIATION_FIELD]: '' } } as Document),
      },
    });
  }
  return { associations, observations };
}

export function associationId(row: Pick<HostAssociation, 'observation_id' | 'cve_id'>): string {
  return `${row.observation_id}\u0000${row.cve_id}`;
}

/** `cve:`/`kev:` as one condition on the observation document (see SelectorMeaning and ADR 83). */
export function selectorFilter(meaning: SelectorMeaning): Filter<StoredObservation> {
  const cves = `${ASSOCIATION_FIELD}.cves`;
  switch (meaning.kind) {
    case 'cve':
      return { [cves]: meaning.id };
    case 'cve-year':
      // One element within both bounds ($elemMatch), so the multikey index bounds the range.
      return { [cves]: { $elemMatch: { $gte: `CVE-${meaning.year}-`, $lt: `CVE-${meaning.year}.` } } };
    case 'cve-any':
      // Every string is >= '': any associated CVE, as an index range over the string bracket.
      return { [cves]: { $gte: '' } };
    case 'kev':
      return { [`${ASSOCIATION_FIELD}.kev`]: meaning.listed ? 'listed' : 'unlisted' };
  }
}
