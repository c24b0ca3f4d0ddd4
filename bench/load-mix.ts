/**
 * The load benchmark's request mix, each request beside the hand-written SQL doing the same work on the same
 * database, and the arithmetic of its figures. Pure: no I/O, so the harness itself is tested (load-mix.test.ts).
 */

export type LoadKind = 'unified' | 'dataset' | 'paging' | 'enrichment' | 'export_estimate';

/** One request of the mix: where it goes, its body, and the statements that do its work by hand. */
export interface LoadRequest {
  readonly kind: LoadKind;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly sql: readonly string[];
}

/** Shares of the mix, out of 20 (a research session: searches and their pages, some enrichment and estimates). */
export const MIX_WEIGHTS: Readonly<Record<LoadKind, number>> = {
  unified: 6,
  dataset: 6,
  paging: 3,
  enrichment: 2,
  export_estimate: 3,
};

/** Host predicates of the search benchmark (bench/search.bench.ts), as the query language and as SQL. */
const HOST_QUERIES: ReadonlyArray<{ raw: string; sql: string }> = [
  { raw: 'port:443', sql: `keys @> '{"port":443}'` },
  { raw: 'product:nginx', sql: `keys @> '{"product":"nginx"}'` },
  { raw: 'country:fr', sql: `keys @> '{"country":"fr"}'` },
  { raw: 'product:nginx AND country:us', sql: `keys @> '{"product":"nginx","country":"us"}'` },
  { raw: 'port:22 AND NOT country:cn', sql: `keys @> '{"port":22}' AND NOT keys @> '{"country":"cn"}'` },
  { raw: 'product:open*', sql: `(keys ->> 'product') COLLATE "C" LIKE 'open%'` },
  { raw: 'http.title:*login*', sql: `lower(doc #>> '{http,title}') LIKE '%login%'` },
  { raw: 'port:[8000 TO 9000]', sql: `((keys ->> 'port')::bigint) BETWEEN 8000 AND 9000` },
  { raw: 'asn:13335', sql: `keys @> '{"asn":13335}'` },
];

/**
 * Unified queries and the datasets they apply to (a field a dataset lacks leaves it out): `port` is a field of
 * hosts and vhosts, the others of hosts only.
 */
const UNIFIED_QUERIES: ReadonlyArray<{ raw: string; datasets: readonly string[]; sql: string }> = [
  { raw: 'product:nginx', datasets: ['hosts'], sql: `keys @> '{"product":"nginx"}'` },
  { raw: 'port:443', datasets: ['hosts', 'vhosts'], sql: `keys @> '{"port":443}'` },
  { raw: 'country:fr', datasets: ['hosts'], sql: `keys @> '{"country":"fr"}'` },
  {
    raw: 'product:nginx AND country:us',
    datasets: ['hosts'],
    sql: `keys @> '{"product":"nginx","country":"us"}'`,
  },
];

/** Software the sample catalogue has advisories for, as a client would send from a result's CPEs. */
const ENRICHMENT_CPES: ReadonlyArray<{ cpe: string; like: string }> = [
  { cpe: 'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*', like: 'cpe:2.3:a:apache:http_server:%' },
  { cpe: 'cpe:2.3:a:openbsd:openssh:8.9:*:*:*:*:*:*:*', like: 'cpe:2.3:a:openbsd:openssh:%' },
  { cpe: 'cpe:2.3:a:openssl:openssl:1.1.1:*:*:*:*:*:*:*', like: 'cpe:2.3:a:openssl:openssl:%' },
  { cpe: 'cpe:2.3:a:jenkins:jenkins:2.440:*:*:*:*:*:*:*', like: 'cpe:2.3:a:jenkins:jenkins:%' },
];

/** The service caps a result count at 10,000 (and tells a lower bound past it); page sizes are its defaults. */
const COUNT_CAP = 10_000;
const UNIFIED_PER_TYPE = 20;
const DATASET_PER_PAGE = 10;
const PAGING_PER_TYPE = 20;

/**
 * The host facets a unified search answers with (port, country, product: top 10 each, count descending then
 * value), by hand in one scan of the matching rows, as the service reads them (ADR 0123). Part of the same work:
 * a baseline without them compared a unified search with facets against SQL without.
 */
function hostFacetsSql(where: string): string {
  return (
    `SELECT f, value, count FROM (SELECT v.f, v.value, count(*) AS count, row_number() OVER (PARTITION BY v.f ` +
    `ORDER BY count(*) DESC, CASE WHEN v.f = 0 THEN (v.value)::numeric END, ` +
    `CASE WHEN v.f > 0 THEN (v.value #>> '{}') COLLATE "C" END) AS rank ` +
    `FROM obs_hosts CROSS JOIN LATERAL (VALUES (0, keys -> 'port'), (1, keys -> 'country'), (2, keys -> 'product')) ` +
    `AS v(f, value) WHERE ${where} AND v.value IS NOT NULL GROUP BY v.f, v.value) AS ranked ` +
    `WHERE rank <= 10 ORDER BY f, rank`
  );
}

/** Capped count and one page, ordered as the service orders results: its work for one dataset. */
function searchSql(table: string, where: string, limit: number, offset = 0): string[] {
  return [
    `SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${where} LIMIT ${COUNT_CAP + 1}) AS capped`,
    `SELECT doc FROM ${table} WHERE ${where} ORDER BY last_seen DESC, id LIMIT ${limit} OFFSET ${offset}`,
  ];
}

const CYCLE: readonly LoadKind[] = (Object.keys(MIX_WEIGHTS) as LoadKind[]).flatMap((kind) =>
  Array.from({ length: MIX_WEIGHTS[kind] }, () => kind),
);

/**
 * The n-th request of the mix: kinds interleaved by a fixed stride through the weighted cycle (so any window of 20
 * requests holds the weights exactly), queries taken in turn within each kind. Deterministic: the service leg and
 * the SQL leg run the same sequence.
 */
export function requestAt(n: number): LoadRequest {
  // 7 is coprime with 20: consecutive requests visit every slot of the cycle before repeating one.
  const kind = CYCLE[(n * 7) % CYCLE.length]!;
  const turn = Math.floor(n / CYCLE.length);
  switch (kind) {
    case 'unified': {
      const q = UNIFIED_QUERIES[turn % UNIFIED_QUERIES.length]!;
      return {
        kind,
        path: '/api/v2/common/data/search',
        body: { raw_query: q.raw, stream: false },
        sql: q.datasets.flatMap((dataset) => [
          ...searchSql(`obs_${dataset}`, q.sql, UNIFIED_PER_TYPE),
          ...(dataset === 'hosts' ? [hostFacetsSql(q.sql)] : []),
        ]),
      };
    }
    case 'dataset': {
      const q = HOST_QUERIES[turn % HOST_QUERIES.length]!;
      return {
        kind,
        path: '/api/v2/common/data/hosts',
        body: { raw_query: q.raw, results_per_page: DATASET_PER_PAGE },
        sql: searchSql('obs_hosts', q.sql, DATASET_PER_PAGE),
      };
    }
    case 'paging': {
      const q = HOST_QUERIES[turn % HOST_QUERIES.length]!;
      const page = 2 + (turn % 4);
      return {
        kind,
        path: '/api/v2/common/data/search/more',
        body: { raw_query: q.raw, dataset: 'hosts', page },
        sql: searchSql('obs_hosts', q.sql, PAGING_PER_TYPE, (page - 1) * PAGING_PER_TYPE),
      };
    }
    case 'enrichment': {
      const c = ENRICHMENT_CPES[turn % ENRICHMENT_CPES.length]!;
      return {
        kind,
        path: '/api/v2/common/data/enrich/vulnerabilities',
        body: { cpes: [c.cpe] },
        // By hand: the advisories naming the product (the service evaluates their version ranges in memory).
        sql: [`SELECT id, doc FROM catalogue_advisories WHERE doc::text LIKE '%${c.like}%'`],
      };
    }
    case 'export_estimate': {
      const q = HOST_QUERIES[turn % HOST_QUERIES.length]!;
      return {
        kind,
        path: '/api/v2/common/exports/hosts/estimate',
        body: { raw_query: q.raw, format: 'csv' },
        sql: [`SELECT count(*) FROM obs_hosts WHERE ${q.sql}`],
      };
    }
  }
}

/** The p-th percentile (nearest rank) of the values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** What one request came back as, from the client's side. */
export interface Sample {
  readonly kind: LoadKind;
  readonly ms: number;
  /**
   * ok: answered; busy: refused busy (503 `not_ready` with status busy); partial_busy: a unified answer with a
   * busy dataset inside; rate_limited: 429; error: anything else.
   */
  readonly outcome: 'ok' | 'busy' | 'partial_busy' | 'rate_limited' | 'error';
  /** Set on refusals: whether a Retry-After header came with it. */
  readonly retryAfter?: boolean;
  readonly status?: number;
}

export interface LegSummary {
  readonly requests: number;
  readonly seconds: number;
  readonly answeredPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly busy: number;
  readonly busyShare: number;
  /** Busy refusals that came without Retry-After (goal: none). */
  readonly busyWithoutRetryAfter: number;
  readonly partialBusy: number;
  readonly rateLimited: number;
  readonly errors: number;
  readonly byKind: Readonly<Record<string, { readonly answered: number; readonly p50Ms: number }>>;
}

/** Throughput counts answered requests; latencies are the answered ones' (a refusal is quick and would flatter). */
export function summarize(samples: readonly Sample[], seconds: number): LegSummary {
  const answered = samples.filter((s) => s.outcome === 'ok' || s.outcome === 'partial_busy');
  const busy = samples.filter((s) => s.outcome === 'busy');
  const byKind: Record<string, { answered: number; p50Ms: number }> = {};
  for (const kind of Object.keys(MIX_WEIGHTS)) {
    const ms = answered.filter((s) => s.kind === kind).map((s) => s.ms);
    byKind[kind] = { answered: ms.length, p50Ms: round(percentile(ms, 50)) };
  }
  const latencies = answered.map((s) => s.ms);
  return {
    requests: samples.length,
    seconds: round(seconds),
    answeredPerSecond: round(answered.length / seconds),
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    busy: busy.length,
    busyShare: samples.length === 0 ? 0 : busy.length / samples.length,
    busyWithoutRetryAfter: busy.filter((s) => !s.retryAfter).length,
    partialBusy: samples.filter((s) => s.outcome === 'partial_busy').length,
    rateLimited: samples.filter((s) => s.outcome === 'rate_limited').length,
    errors: samples.filter((s) => s.outcome === 'error').length,
    byKind,
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
