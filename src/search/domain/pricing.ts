import type { UsageCategory } from '../../credits/domain/ledger.js';
import { DATASETS, type Dataset } from './datasets.js';

/**
 * The one pricing table (contract: "Most searches cost 1 credit, a WHOIS search costs 3, and a favicon search
 * costs 5. Paging deeper into a dataset is priced by the dataset's depth pricing.").
 */
export const DATASET_PRICE: Readonly<Record<Dataset, number>> = { hosts: 1, dns: 1, vhosts: 1, whois: 3 };
export const FAVICON_SEARCH_PRICE = 5;
/** What a unified search costs when the datasets that answered returned no rows. */
export const MIN_SEARCH_PRICE = 1;

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

export const DEPTH_TIERS: ReadonlyArray<{
  readonly from_record: number;
  readonly to_record: number;
  readonly multiplier: number;
}> = [
  { from_record: 0, to_record: 99, multiplier: 1 },
  { from_record: 100, to_record: 999, multiplier: 2 },
  { from_record: 1_000, to_record: MAX_SEARCH_OFFSET - 1, multiplier: 3 },
];

export function depthMultiplier(offset: number): number {
  const tier = DEPTH_TIERS.find((candidate) => offset <= candidate.to_record) ?? DEPTH_TIERS.at(-1)!;
  return tier.multiplier;
}

/** Price of one page of one dataset. */
export function pagePrice(dataset: Dataset, offset: number, favicon: boolean): number {
  return pageQuote(dataset, offset, favicon).credits;
}

/**
 * What one page of one dataset costs and why (its base price and depth multiplier): what search/more reserves
 * and charges, and what its free quote tells before paying. One rule, so the quote cannot differ from the charge.
 */
export function pageQuote(
  dataset: Dataset,
  offset: number,
  favicon: boolean,
): { credits: number; base_price: number; depth_multiplier: number } {
  const base = favicon && dataset === 'hosts' ? FAVICON_SEARCH_PRICE : DATASET_PRICE[dataset];
  const multiplier = depthMultiplier(offset);
  return { credits: base * multiplier, base_price: base, depth_multiplier: multiplier };
}

/** What a dataset answered, as far as pricing cares. */
export interface DatasetAnswer {
  readonly dataset: Dataset;
  /** Rows returned in this answer (0 when it answered with none). */
  readonly rows: number;
}

/**
 * "Most searches cost 1 credit": a unified search is one search. It costs the highest page price among the
 * datasets that returned rows (hosts, dns, vhosts 1; whois 3; a favicon search 5), so WHOIS's price (or the
 * favicon price) is paid only when that dataset returned rows; when the datasets that answered returned none, it
 * costs 1. The charge is booked under the category of the dataset that set the price: the priciest one that
 * returned rows, the first in hosts, dns, vhosts, whois order on a tie, or, when none returned rows, the first
 * that answered in that order. Datasets that failed (timeout, busy, error, invalid_query, cancelled) are not
 * charged; if every dataset failed, nothing is (null).
 */
export function unifiedSearchCharge(
  answered: readonly DatasetAnswer[],
  favicon: boolean,
): { credits: number; category: UsageCategory } | null {
  const ordered = DATASETS.flatMap((dataset) => answered.filter((answer) => answer.dataset === dataset));
  const first = ordered[0];
  if (!first) return null;
  let best: { credits: number; category: UsageCategory } | null = null;
  for (const { dataset, rows } of ordered) {
    if (rows <= 0) continue;
    const credits = pagePrice(dataset, 0, favicon);
    if (!best || credits > best.credits) best = { credits, category: USAGE_CATEGORY[dataset] };
  }
  return best ?? { credits: MIN_SEARCH_PRICE, category: USAGE_CATEGORY[first.dataset] };
}

/** What a unified search reserves before running: the most it can cost. */
export function unifiedSearchReservation(datasets: readonly Dataset[], favicon: boolean): number {
  return Math.max(0, ...datasets.map((dataset) => pagePrice(dataset, 0, favicon)));
}

/**
 * The charge of one page of one dataset (single-dataset routes, search/more): its depth price when it answered,
 * nothing when it did not, and nothing for a page past the end of the results (a page after the first that
 * starts at or beyond an exact total): such a page is answered with no rows and the total, free.
 */
export function pageCharge(
  dataset: Dataset,
  offset: number,
  favicon: boolean,
  answer: { readonly answered: boolean; readonly total: number | null; readonly lowerBound: boolean },
): number {
  if (!answer.answered) return 0;
  if (isPastTheEnd(offset, answer.total, answer.lowerBound)) return 0;
  return pagePrice(dataset, offset, favicon);
}

/** A page after the first that starts at or beyond the last matching record (an exact total). */
export function isPastTheEnd(offset: number, total: number | null, lowerBound: boolean): boolean {
  return offset > 0 && total !== null && !lowerBound && offset >= total;
}

/** The pricing rules as the fields vocabulary publishes them (GET /search/fields), from this one table. */
export const PRICING_RULES = {
  unified_search:
    'A unified search is one search: it costs the highest page price among the datasets that returned rows ' +
    `(hosts, dns, vhosts ${DATASET_PRICE.hosts}; whois ${DATASET_PRICE.whois}; a favicon search ` +
    `${FAVICON_SEARCH_PRICE}), so the WHOIS or favicon price is paid only when that dataset returned rows. When ` +
    `the datasets that answered returned no rows it costs ${MIN_SEARCH_PRICE} credit. A dataset that did not ` +
    'answer (timeout, busy, error, invalid_query, cancelled) is never charged; when none answered the search is ' +
    'free. The price is reserved before the search runs (the most it can cost) and the rest released.',
  unified_search_category:
    'The charge is booked under the usage category of the dataset that set the price (hosts: host, dns: dns, ' +
    'vhosts: certs, whois: whois): the priciest dataset that returned rows, the first in the order hosts, dns, ' +
    'vhosts, whois on a tie, or the first that answered in that order when none returned rows.',
  single_dataset_page:
    "One page of one dataset (single-dataset search, search/more) costs that dataset's price times the depth " +
    'multiplier of its first record; a dataset that did not answer is not charged.',
  depth: DEPTH_TIERS,
  max_offset: MAX_SEARCH_OFFSET,
  page_past_end:
    'A page after the first that starts at or beyond the last matching record is answered with no rows and ' +
    'the total, at no charge.',
  aggregate: "An aggregation (aggregate: true) costs one first page of that dataset's price.",
} as const;
