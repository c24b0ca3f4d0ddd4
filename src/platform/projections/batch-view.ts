import { matchesFilter } from '../read-store/filter-matcher.js';
import type { DocumentChange, Filter, ReadDocument } from '../read-store/read-store.port.js';
import { physicalCollectionName, type DocumentRef, type ProjectionView } from './projection-definition.js';

/** Documents a view knows, by logical collection: `null` for an id known to be absent. */
export type KnownDocuments = Map<string, Map<string, ReadDocument | null>>;

/**
 * What the only writer of a generation (a rebuild) carries from one batch to the next: the documents earlier
 * batches read and wrote, so they need no prefetch, and a wait for a write still in flight before reading from
 * the store what it changes.
 */
export interface CarriedDocuments {
  readonly known: KnownDocuments;
  /** Awaited before the batch reads these ids of this physical collection from the store. */
  beforeRead(collection: string, ids: ReadonlySet<string>): Promise<void>;
}

/**
 * Forgets the longest-known documents of each collection beyond `limit`: a later batch reads them from the store
 * again (where the batch that last changed them has been committed by then).
 */
export function forgetOldest(known: KnownDocuments, limit: number): void {
  for (const documents of known.values()) {
    let excess = documents.size - limit;
    if (excess <= 0) continue;
    for (const id of documents.keys()) {
      if (excess-- <= 0) break;
      documents.delete(id);
    }
  }
}

/** Documents a live run keeps known per collection between its batches (ADR 111): bounded memory. */
const LIVE_KNOWN_DOCUMENTS_PER_COLLECTION = 2000;

/**
 * What a live run's batches carry from one to the next (ADR 111): the documents of the collections its handlers
 * read, at most LIVE_KNOWN_DOCUMENTS_PER_COLLECTION each. Collections only written (an audit trail) are dropped
 * after each batch: nothing would read them. Each batch's write commits before the next prepares, so no read
 * waits.
 */
export function liveCarriedDocuments(generation: number): CarriedDocuments & { forget(): void } {
  const read = new Set<string>();
  const known: KnownDocuments = new Map();
  return {
    known,
    beforeRead: async (collection) => void read.add(collection),
    forget() {
      for (const collection of known.keys()) {
        if (!read.has(physicalCollectionName(collection, generation))) known.delete(collection);
      }
      forgetOldest(known, LIVE_KNOWN_DOCUMENTS_PER_COLLECTION);
    },
  };
}

/**
 * The view handlers write to during one batch. It holds the prefetched documents (by logical collection),
 * applies every change to them so later events in the batch read their own writes, and records the changes
 * in order, translated to physical collection names, for one atomic applyBatch.
 */
export class BatchView implements ProjectionView {
  private readonly recorded: DocumentChange[] = [];

  constructor(
    private readonly projection: string,
    private readonly physicalName: (collection: string) => string,
    /**
     * What earlier batches left known, carried on by the only writer of a generation (a rebuild): those documents
     * need no prefetch. The view updates it in place.
     */
    private readonly documents: KnownDocuments = new Map(),
  ) {}

  /** Registers prefetched documents; ids that were asked for but not found are remembered as absent. */
  load(collection: string, ids: Iterable<string>, found: readonly ReadDocument[]): void {
    const known = this.collection(collection);
    for (const id of ids) if (!known.has(id)) known.set(id, null);
    for (const document of found) if (known.get(document.id) === null) known.set(document.id, document);
  }

  /** Which of these references are not known yet (to prefetch them). */
  missing(refs: readonly DocumentRef[]): DocumentRef[] {
    return refs.filter((ref) => !this.collection(ref.collection).has(ref.id));
  }

  get<T extends ReadDocument>(collection: string, id: string): T | null {
    const known = this.collection(collection);
    if (!known.has(id)) {
      throw new Error(
        `projection ${this.projection} read ${collection}/${id} without declaring it in reads(); declare it so the batch prefetches it`,
      );
    }
    return (known.get(id) ?? null) as T | null;
  }

  put(collection: string, document: ReadDocument): void {
    const copy = structuredClone(document);
    this.collection(collection).set(copy.id, copy);
    this.recorded.push({ kind: 'upsert', collection: this.physicalName(collection), document: copy });
  }

  patch(collection: string, id: string, fields: Readonly<Record<string, unknown>>): void {
    const known = this.collection(collection);
    const current = known.get(id);
    if (current) {
      const next: Record<string, unknown> = { ...current };
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) delete next[key];
        else next[key] = structuredClone(value);
      }
      known.set(id, next as ReadDocument);
    }
    this.recorded.push({ kind: 'patch', collection: this.physicalName(collection), id, fields });
  }

  delete(collection: string, id: string): void {
    this.collection(collection).set(id, null);
    this.recorded.push({ kind: 'delete', collection: this.physicalName(collection), id });
  }

  deleteWhere(collection: string, filter: Filter): void {
    for (const [id, document] of this.collection(collection)) {
      if (document && matchesFilter(document, filter)) this.collection(collection).set(id, null);
    }
    this.recorded.push({ kind: 'deleteWhere', collection: this.physicalName(collection), filter });
  }

  get changes(): readonly DocumentChange[] {
    return this.recorded;
  }

  private collection(name: string): Map<string, ReadDocument | null> {
    let known = this.documents.get(name);
    if (!known) {
      known = new Map();
      this.documents.set(name, known);
    }
    return known;
  }
}
