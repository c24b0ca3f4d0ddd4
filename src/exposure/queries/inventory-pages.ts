import type { Collection, Filter, ReadDocument, Sort } from '../../platform/read-store/read-store.port.js';

/**
 * Deep inventory pages by keyset (issue 16, ADR 84). The contract pages by `offset`; walking 50,000 index
 * entries (and their documents) to skip them costs more than the page. So the inventory remembers, per answer
 * (physical collections, i.e. generation, and filter with the scope) and per revision of the scope's summary
 * (which grows with every batch that writes the scope's subjects or hosts), the sort key at the start and the
 * end of each page it served. A later request at or beyond such an offset seeks the index from that key and
 * skips only the rest. The answer is the one OFFSET gives over the same data:
 *
 * - a boundary is remembered only from a page read between two reads of the same revision (so the page saw
 *   that revision's data);
 * - a page sought from a boundary of revision R is kept only when the revision read after it is still R: R held
 *   when the boundary was remembered, before this request, and still holds after the read, and revisions only
 *   grow, so the read saw R's data. Otherwise the page is read again by plain OFFSET.
 */

/**
 * A position in one ordered answer: the rows from `offset` on are those whose key is after `key` (`from`:
 * the key of the row just before, known from a page that ended there) or at or after it (`at`: the key of the
 * row at `offset`, known from a page that started there).
 */
export interface PageBoundary {
  readonly offset: number;
  readonly key: string;
  readonly bound: 'after' | 'at';
}

const MAX_SNAPSHOTS = 200;
/** 501 pages of 100 reach the contract's deepest offset (50,000). */
const MAX_BOUNDARIES_PER_SNAPSHOT = 1_000;

/** Page boundaries of recently read snapshots, least recently used dropped first. One per service process. */
export class PageBoundaries {
  /** Per answer, the boundaries of the latest revision remembered (an older revision's are dropped). */
  private readonly snapshots = new Map<string, { revision: number; boundaries: Map<number, PageBoundary> }>();
  /** Pages read from a remembered boundary (tests and diagnostics). */
  seeks = 0;

  /** The remembered boundary nearest before `offset` (offset 0 needs none), with the revision it belongs to. */
  nearest(answer: string, offset: number): { revision: number; boundary: PageBoundary } | null {
    const snapshot = this.snapshots.get(answer);
    if (!snapshot) return null;
    // Reinserted: the map's order is its recency.
    this.snapshots.delete(answer);
    this.snapshots.set(answer, snapshot);
    let best: PageBoundary | null = null;
    for (const boundary of snapshot.boundaries.values()) {
      if (boundary.offset <= offset && boundary.offset > (best?.offset ?? 0)) best = boundary;
    }
    return best ? { revision: snapshot.revision, boundary: best } : null;
  }

  remember(answer: string, revision: number, boundary: PageBoundary): void {
    if (boundary.offset === 0) return;
    let snapshot = this.snapshots.get(answer);
    if (snapshot && snapshot.revision > revision) return;
    if (!snapshot || snapshot.revision < revision) {
      if (!snapshot && this.snapshots.size >= MAX_SNAPSHOTS) {
        this.snapshots.delete(this.snapshots.keys().next().value!);
      }
      snapshot = { revision, boundaries: new Map() };
      this.snapshots.set(answer, snapshot);
    }
    const { boundaries } = snapshot;
    if (boundaries.size >= MAX_BOUNDARIES_PER_SNAPSHOT && !boundaries.has(boundary.offset)) return;
    boundaries.set(boundary.offset, boundary);
  }

  /** Forgets every boundary (the benchmark's first-visit figure). */
  clear(): void {
    this.snapshots.clear();
  }

  /** Snapshots held (tests and diagnostics). */
  get size(): number {
    return this.snapshots.size;
  }
}

/** How one ordered page is read: the filter, the sort, and the sort field that is unique within the filter. */
export interface KeysetPageRequest {
  readonly filter: Filter;
  /** Must end with `keyField`, whose string values are unique among the documents the filter selects. */
  readonly sort: Sort;
  readonly keyField: string;
  readonly offset: number;
  readonly limit: number;
}

/** Where boundaries are remembered, for which answer, and how to read the revision of the data. */
export interface PageMemory {
  readonly boundaries: PageBoundaries;
  /** The answer the boundaries belong to: collections and filter (the revision is kept beside them). */
  readonly answer: string;
  /** The current revision of the data the answer reads (undefined: not known, nothing is remembered). */
  revision(): Promise<number | undefined>;
}

/**
 * The page at `offset`: sought from the nearest remembered boundary when there is one (two reads: the page, then
 * the revision), else by plain OFFSET bracketed by two revision reads so its boundaries can be remembered.
 */
export async function readPage<T extends ReadDocument>(
  collection: Collection<T>,
  request: KeysetPageRequest,
  memory: PageMemory | null,
): Promise<T[]> {
  const { filter, sort, keyField, offset, limit } = request;
  const plain = () => collection.find(filter, { sort, offset, limit });
  if (!memory) return plain();
  const remember = (revision: number, page: readonly T[]) => {
    const first = page[0]?.[keyField];
    const last = page[page.length - 1]?.[keyField];
    if (typeof first !== 'string' || typeof last !== 'string') return;
    memory.boundaries.remember(memory.answer, revision, { offset, key: first, bound: 'at' });
    memory.boundaries.remember(memory.answer, revision, {
      offset: offset + page.length,
      key: last,
      bound: 'after',
    });
  };
  const readAndRemember = async (before: number | undefined) => {
    const page = await plain();
    if (before !== undefined && page.length > 0 && (await memory.revision()) === before) {
      remember(before, page);
    }
    return page;
  };
  const known = memory.boundaries.nearest(memory.answer, offset);
  if (!known) return readAndRemember(await memory.revision());
  memory.boundaries.seeks++;
  const { boundary } = known;
  const page = await collection.find(
    { ...filter, [keyField]: boundary.bound === 'after' ? { $gt: boundary.key } : { $gte: boundary.key } },
    { sort, offset: offset - boundary.offset, limit },
  );
  const after = await memory.revision();
  if (after === known.revision) {
    remember(after, page);
    return page;
  }
  // The data moved since the boundary was remembered: plain OFFSET, which is what the contract promises.
  return readAndRemember(after);
}
