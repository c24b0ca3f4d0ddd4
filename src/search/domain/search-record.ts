/**
 * A search as an auditor reads it (ADR 70): what was searched, in which datasets, what each answered and what
 * it cost, on behalf of the payer. One event per answered search, in the payer's `searches-<payer>` stream.
 */
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';
import type { Dataset } from './datasets.js';

export type SearchKind = 'unified' | 'page' | 'dataset' | 'aggregate';

export interface DatasetSearchOutcome {
  readonly dataset: Dataset;
  /** `ok`, `timeout`, `busy`, `error`, `invalid_query` or `cancelled` (the contract's per-dataset states). */
  readonly status: string;
  /** Records returned (facet requests: 0). */
  readonly rows: number;
  /** Records matching, when the dataset answered (a lower bound when `lowerBound`). */
  readonly total: number | null;
  readonly lowerBound: boolean;
}

export type SearchPerformed = DomainEvent<
  'SearchPerformed',
  {
    readonly kind: SearchKind;
    readonly query: string;
    readonly timeFrame: string;
    readonly broad: boolean;
    readonly datasets: readonly Dataset[];
    readonly outcomes: readonly DatasetSearchOutcome[];
    readonly creditsCharged: number;
    /** `/search/more` and single-dataset pages: the page asked. */
    readonly page?: number;
    /** An organization search's record (what evidence is saved from), when there is one. */
    readonly organizationSearchId?: string;
    readonly at: string;
  }
>;

/** `searches-account-<id>` or `searches-organization-<id>`: one stream per payer. */
export function searchesStreamId(payer: string): string {
  return `searches-${payer.replace(':', '-')}`;
}
