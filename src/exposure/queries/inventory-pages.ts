import type { Filter, FindOptions, ReadDocument, Sort } from '../../platform/read-store/read-store.port.js';

/**
 * Deep inventory pages by keyset (issue 16, ADR 84). The contract pages by `offset`; walking 50,000 index
 * entries (and their documents) to skip them costs more than the page. So the inventory remembers, per answer
 * (physical collections, i.e. generation, and filter with the scope) and per revision of the scope's summary
 * (which grows with every batch that writes the scope's subjects or hosts, in that batch's transaction), the
 * sort key at the start and the end of each page it served. A later request seeks the index from the nearest
 * such key, forwards from one before its page or backwards from one after it (ADR 135), and skips only the rows
 * between. The answer is the one OFFSET gives over the same data:
 *
 * - every page is read together with the summary's revision, as of one moment (ReadStore.readAtOnce, ADR 0134),
 *   so the revision read is the revision of the data the page saw;
 * - a page's boundaries are remembered under that revision;
 * - a page sought from a boundary of revision R is kept only when it was read at revision R (the same data the
 *   boundary came from); otherwise it is read again by plain OFFSET.
 */

/**
 * A position in one ordered answer: the rows from `offset` on are those whose key is after `key` (`after`:
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

  /**
   * The remembered boundaries nearest to the page at `offset` of `limit` rows: the last one at or before it
   * (offset 0 needs none) and the first one at or after its end, with the revision they belong to.
   */
  around(
    answer: string,
    offset: number,
    limit: number,
  ): { revision: number; before: PageBoundary | null; after: PageBoundary | null } | null {
    const snapshot = this.snapshots.get(answer);
    if (!snapshot) return null;
    // Reinserted: the map's order is its recency.
    this.snapshots.delete(answer);
    this.snapshots.set(answer, snapshot);
    let before: PageBoundary | null = null;
    let after: PageBoundary | null = null;
    for (const boundary of snapshot.boundaries.values()) {
      if (boundary.offset <= offset && boundary.offset > (before?.offset ?? 0)) before = boundary;
      if (boundary.offset >= offset + limit && boundary.offset < (after?.offset ?? Infinity))
        after = boundary;
    }
    return before || after ? { revision: snapshot.revision, before, after } : null;
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

/** Where boundaries are remembered, and for which answer (the revision is kept beside them). */
export interface PageMemory {
  readonly boundaries: PageBoundaries;
  /** The answer the boundaries belong to: collections and filter. */
  readonly answer: string;
}

/** The read one page needs: plain OFFSET, or a seek from a remembered boundary of a revision. */
export interface PagePlan {
  readonly filter: Filter;
  readonly options: FindOptions;
  readonly sought: { readonly revision: number; readonly boundary: PageBoundary } | null;
  /** Sought from a boundary after the page, in the reverse order: the rows come last first. */
  readonly backwards?: boolean;
}

/** The plain OFFSET read of the page. */
export function plainPage(request: KeysetPageRequest): PagePlan {
  const { filter, sort, offset, limit } = request;
  return { filter, options: { sort, offset, limit }, sought: null };
}

/**
 * The read for the page at `offset`: whichever skips fewest rows of plain OFFSET, a seek forwards from the
 * nearest remembered boundary before the page, or backwards from the nearest one after it (the previous pages
 * of a page visited first, e.g. the last one).
 */
export function planPage(request: KeysetPageRequest, memory: PageMemory | null): PagePlan {
  const known = memory?.boundaries.around(memory.answer, request.offset, request.limit);
  if (!known) return plainPage(request);
  const { filter, sort, keyField, offset, limit } = request;
  const { before, after, revision } = known;
  const forwardSkip = offset - (before?.offset ?? 0);
  const backwardSkip = after ? after.offset - offset - limit : Infinity;
  if (after && backwardSkip < forwardSkip) {
    // The exact reverse of the forward order, its id tie-break included, so the same index is read backwards.
    const reversed: Sort = [
      ...sort.map(([field, direction]) => [field, direction === 1 ? -1 : 1] as const),
      ...(sort.some(([field]) => field === 'id') ? [] : [['id', -1] as const]),
    ];
    return {
      filter: { ...filter, [keyField]: after.bound === 'at' ? { $lt: after.key } : { $lte: after.key } },
      options: { sort: reversed, offset: backwardSkip, limit },
      sought: { revision, boundary: after },
      backwards: true,
    };
  }
  if (!before) return plainPage(request);
  return {
    filter: { ...filter, [keyField]: before.bound === 'after' ? { $gt: before.key } : { $gte: before.key } },
    options: { sort, offset: forwardSkip, limit },
    sought: { revision, boundary: before },
  };
}

/**
 * A page read by `plan` as of `revision` (undefined: not known): its boundaries remembered, and the page given
 * back; null when it was sought from a boundary of another revision (the data moved: read `plainPage` instead).
 */
export function settlePage<T extends ReadDocument>(
  request: KeysetPageRequest,
  memory: PageMemory | null,
  plan: PagePlan,
  read: T[],
  revision: number | undefined,
): T[] | null {
  if (plan.sought && revision !== plan.sought.revision) return null;
  const page = plan.backwards ? read.reverse() : read;
  if (!memory) return page;
  if (plan.sought) memory.boundaries.seeks++;
  const first = page[0]?.[request.keyField];
  const last = page[page.length - 1]?.[request.keyField];
  if (revision === undefined || typeof first !== 'string' || typeof last !== 'string') return page;
  memory.boundaries.remember(memory.answer, revision, { offset: request.offset, key: first, bound: 'at' });
  memory.boundaries.remember(memory.answer, revision, {
    offset: request.offset + page.length,
    key: last,
    bound: 'after',
  });
  return page;
}

/** Reads a page (filter and options) and the revision of the data it was read from, as of one moment. */
export type PageWithRevision<T extends ReadDocument> = (
  plan: PagePlan,
) => Promise<{ page: T[]; revision: number | undefined }>;

/** The page at `offset`: planned, read with its revision, and read again by plain OFFSET if the data moved. */
export async function readPage<T extends ReadDocument>(
  request: KeysetPageRequest,
  memory: PageMemory | null,
  read: PageWithRevision<T>,
): Promise<T[]> {
  const plan = planPage(request, memory);
  const first = await read(plan);
  const page = settlePage(request, memory, plan, first.page, first.revision);
  if (page) return page;
  const plain = plainPage(request);
  const again = await read(plain);
  return settlePage(request, memory, plain, again.page, again.revision)!;
}
