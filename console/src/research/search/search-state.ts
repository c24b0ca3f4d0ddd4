import type { components } from '../../api/schema';

export type SearchOutcome = components['schemas']['SearchOutcome'];
export type ResultItem = components['schemas']['SearchResultItem'];
export type Facets = components['schemas']['Facets'];
export type DatasetState = components['schemas']['DatasetState'];
export type Dataset = ResultItem['dataset'];

/** One `data:` line of the search stream (the SSE writer's chunks, src/search/search-engine.ts SearchChunk). */
export type SearchChunk =
  | { type: 'partial'; dataset: Dataset; status: DatasetState; total: number | null; lower_bound: boolean }
  | { type: 'results'; dataset: Dataset; items: ResultItem[]; capped: boolean }
  | { type: 'facets'; dataset: Dataset; facets: Facets }
  | ({ type: 'final' } & SearchOutcome)
  | { type: 'error'; code: string; message: string };

/** What the page knows of one dataset: `waiting` until its partial chunk arrives. */
export interface DatasetView {
  readonly dataset: Dataset;
  readonly status: DatasetState | 'waiting';
  readonly total: number | null;
  readonly lowerBound: boolean;
  readonly items: readonly ResultItem[];
  readonly capped: boolean;
  readonly facets: Facets | null;
}

/**
 * How the stream stands: `running` until a final chunk (`complete`), an error chunk (`failed`), or the connection
 * ended without either (`incomplete`, also when the person stopped it).
 */
export type StreamPhase = 'running' | 'complete' | 'failed' | 'incomplete';

export interface SearchView {
  readonly phase: StreamPhase;
  readonly datasets: readonly DatasetView[];
  readonly outcome: SearchOutcome | null;
  readonly error: { code: string; message: string } | null;
  readonly stoppedByPerson: boolean;
}

export function startView(datasets: readonly Dataset[]): SearchView {
  return {
    phase: 'running',
    datasets: datasets.map((dataset) => ({
      dataset,
      status: 'waiting',
      total: null,
      lowerBound: false,
      items: [],
      capped: false,
      facets: null,
    })),
    outcome: null,
    error: null,
    stoppedByPerson: false,
  };
}

function withDataset(view: SearchView, dataset: Dataset, change: (current: DatasetView) => DatasetView) {
  const known = view.datasets.some((entry) => entry.dataset === dataset);
  const datasets = known ? view.datasets : [...view.datasets, startView([dataset]).datasets[0]!];
  return { ...view, datasets: datasets.map((entry) => (entry.dataset === dataset ? change(entry) : entry)) };
}

/** Applies one chunk as it arrives; the final chunk's per_type_status is the service's last word. */
export function applyChunk(view: SearchView, chunk: SearchChunk): SearchView {
  switch (chunk.type) {
    case 'partial':
      return withDataset(view, chunk.dataset, (entry) => ({
        ...entry,
        status: chunk.status,
        total: chunk.total,
        lowerBound: chunk.lower_bound,
      }));
    case 'results':
      return withDataset(view, chunk.dataset, (entry) => ({
        ...entry,
        items: chunk.items,
        capped: chunk.capped,
      }));
    case 'facets':
      return withDataset(view, chunk.dataset, (entry) => ({ ...entry, facets: chunk.facets }));
    case 'final': {
      const { type: _final, ...outcome } = chunk;
      let next: SearchView = { ...view, phase: 'complete', outcome };
      for (const [dataset, status] of Object.entries(outcome.per_type_status) as Array<
        [Dataset, DatasetState]
      >) {
        next = withDataset(next, dataset, (entry) => ({
          ...entry,
          status,
          total: outcome.totals[dataset]?.count ?? entry.total,
          lowerBound: outcome.totals[dataset]?.lower_bound ?? entry.lowerBound,
          items: outcome.results[dataset] ?? entry.items,
          facets: outcome.facets?.[dataset] ?? entry.facets,
        }));
      }
      return next;
    }
    case 'error':
      return { ...view, phase: 'failed', error: { code: chunk.code, message: chunk.message } };
  }
}

/** The connection ended: without a final or error chunk, the answer is incomplete. */
export function endOfStream(view: SearchView, stoppedByPerson: boolean): SearchView {
  if (view.phase !== 'running') return view;
  return { ...view, phase: 'incomplete', stoppedByPerson };
}

/** A dataset that did not answer is never a zero: each state says what happened instead. */
export const NO_ANSWER = 'no answer — not a zero-match result';

export function describeState(
  entry: Pick<DatasetView, 'status' | 'total' | 'lowerBound' | 'items'>,
  phase: StreamPhase,
) {
  switch (entry.status) {
    case 'ok': {
      const total =
        entry.total === null
          ? 'total unknown'
          : `${entry.lowerBound ? 'at least ' : ''}${entry.total} matching`;
      return `${entry.items.length} shown, ${total}`;
    }
    case 'waiting':
      return phase === 'running'
        ? 'waiting for its answer…'
        : `the connection ended before it answered: ${NO_ANSWER}`;
    case 'timeout':
      return `timed out: ${NO_ANSWER}`;
    case 'busy':
      return `busy, try again shortly: ${NO_ANSWER}`;
    case 'error':
      return `failed: ${NO_ANSWER}`;
    case 'invalid_query':
      return `the query does not apply to this dataset: ${NO_ANSWER}`;
    case 'cancelled':
      return `cancelled: ${NO_ANSWER}`;
  }
}

/** Whether the service says more records match than are shown (the console does not guess further). */
export function hasMore(
  entry: Pick<DatasetView, 'status' | 'total' | 'lowerBound' | 'items'>,
  shown: number,
) {
  if (entry.status !== 'ok' || entry.total === null) return false;
  return entry.lowerBound || entry.total > shown;
}
