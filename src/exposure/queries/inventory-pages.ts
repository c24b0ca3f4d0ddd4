import type { Collection, Filter, ReadDocument, Sort } from '../../platform/read-store/read-store.port.js';

/**
 * Deep inventory pages by keyset (issue 16, ADR 84). The contract pages by `offset`; walking 50,000 index
 * entries (and their documents) to skip them costs more than the page. So the inventory remembers, per read
 * model snapshot, the sort key that ends each page it served: a later request at or beyond that offset seeks
 * the index past the key and skips only the rest. The answer is the one OFFSET gives over the same snapshot.
 *
 * A snapshot is the physical collections (their generation), the filter (scope included) and the scope
 * summary's revision, which grows with every batch that writes the scope's subjects or hosts.
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
  private readonly snapshots = new Map<string, Map<number, PageBoundary>>();
  /** Pages read from a remembered boundary (tests and diagnostics). */
  seeks = 0;

  /** The known boundary nearest before `offset` (offset 0 needs none). */
  nearest(snapshot: string, offset: number): PageBoundary | null {
    const boundaries = this.snapshots.get(snapshot);
    if (!boundaries) return null;
    // Reinserted: the map's order is its recency.
    this.snapshots.delete(snapshot);
    this.snapshots.set(snapshot, boundaries);
    let best: PageBoundary | null = null;
    for (const boundary of boundaries.values()) {
      if (boundary.offset <= offset && boundary.offset > (best?.offset ?? 0)) best = boundary;
    }
    return best;
  }

  remember(snapshot: string, boundary: PageBoundary): void {
    if (boundary.offset === 0) return;
    let boundaries = this.snapshots.get(snapshot);
    if (!boundaries) {
      if (this.snapshots.size >= MAX_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value!);
      boundaries = new Map();
      this.snapshots.set(snapshot, boundaries);
    }
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

/** Where boundaries are remembered, for which snapshot, and how to check the snapshot held during a read. */
export interface PageMemory {
  readonly boundaries: PageBoundaries;
  readonly snapshot: string;
  confirm(): Promise<boolean>;
}

/**
 * The page at `offset`, sought from the nearest remembered boundary when `snapshot` names one. `confirm` is
 * asked after the read: true when the snapshot did not move while the page was read (otherwise the boundary
 * may belong to other data, and the page is read again by plain OFFSET, which is what the contract promises).
 */
export async function readPage<T extends ReadDocument>(
  collection: Collection<T>,
  request: KeysetPageRequest,
  memory: PageMemory | null,
): Promise<T[]> {
  const { filter, sort, keyField, offset, limit } = request;
  const plain = () => collection.find(filter, { sort, offset, limit });
  if (!memory) return plain();
  const from = memory.boundaries.nearest(memory.snapshot, offset);
  if (from) memory.boundaries.seeks++;
  const page = from
    ? await collection.find(
        { ...filter, [keyField]: from.bound === 'after' ? { $gt: from.key } : { $gte: from.key } },
        { sort, offset: offset - from.offset, limit },
      )
    : await plain();
  const first = page[0]?.[keyField];
  const last = page[page.length - 1]?.[keyField];
  if (from === null && typeof last !== 'string') return page;
  if (!(await memory.confirm())) return from ? plain() : page;
  if (typeof first === 'string' && typeof last === 'string') {
    memory.boundaries.remember(memory.snapshot, { offset, key: first, bound: 'at' });
    memory.boundaries.remember(memory.snapshot, { offset: offset + page.length, key: last, bound: 'after' });
  }
  return page;
}
