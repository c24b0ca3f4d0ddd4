import type { UsageCategory } from '../../credits/domain/ledger.js';
import type { Dataset } from './datasets.js';

/**
 * The one pricing table (contract: "Most searches cost 1 credit, a WHOIS search costs 3, and a favicon search
 * costs 5. Paging deeper into a dataset is priced by the dataset's depth pricing.").
 */
export const DATASET_PRICE: Readonly<Record<Dataset, number>> = { hosts: 1, dns: 1, vhosts: 1, whois: 3 };
export const FAVICON_SEARCH_PRICE = 5;

export const USAGE_CATEGORY: Readonly<Record<Dataset, UsageCategory>> = {
  hosts: 'host',
  dns: 'dns',
  vhosts: 'certs',
  whois: 'whois',
};

/**
 * Depth pricing, by the offset of the first record asked for: the first 100 records of a dataset cost its
 * price per page, records 100–999 twice that, 1,000–9,999 three times. Deeper paging is refused: an export
 * is the way to read that far.
 */
export const MAX_SEARCH_OFFSET = 10_000;

export function depthMultiplier(offset: number): number {
  if (offset < 100) return 1;
  if (offset < 1_000) return 2;
  return 3;
}

/** Price of one page of one dataset. */
export function pagePrice(dataset: Dataset, offset: number, favicon: boolean): number {
  const base = favicon && dataset === 'hosts' ? FAVICON_SEARCH_PRICE : DATASET_PRICE[dataset];
  return base * depthMultiplier(offset);
}

/**
 * A unified search is one search: it costs the price of the most expensive dataset that answered (1 credit, 3
 * when WHOIS answered, 5 for a favicon search), charged under that dataset's usage category. Datasets that
 * failed (timeout, busy, error, invalid_query, cancelled) are not charged; if every dataset failed, nothing is.
 */
export function unifiedSearchCharge(
  answered: readonly Dataset[],
  favicon: boolean,
): { credits: number; category: UsageCategory } | null {
  let best: { credits: number; category: UsageCategory } | null = null;
  for (const dataset of answered) {
    const credits = pagePrice(dataset, 0, favicon);
    if (!best || credits > best.credits) best = { credits, category: USAGE_CATEGORY[dataset] };
  }
  return best;
}

/** What a unified search reserves before running: the most it can cost. */
export function unifiedSearchReservation(datasets: readonly Dataset[], favicon: boolean): number {
  return Math.max(0, ...datasets.map((dataset) => pagePrice(dataset, 0, favicon)));
}
