/**
 * The query language's syntax tree. One parser produces it; each observation index adapter compiles it.
 * Positions are 0-based character offsets into the trimmed raw_query, `end` exclusive.
 */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type Comparison = 'gt' | 'gte' | 'lt' | 'lte';

/** What a field is compared with. Values are already normalized for the field's type. */
export type Match =
  | { readonly kind: 'exact'; readonly value: string | number | boolean }
  /** `product:nginx*` */
  | { readonly kind: 'prefix'; readonly value: string }
  /** `domain:*.example.com` */
  | { readonly kind: 'suffix'; readonly value: string }
  /** text fields: case-insensitive substring (`http.title:"sign in"`, `http.title:*admin*`) */
  | { readonly kind: 'contains'; readonly value: string }
  /** `port:[80 TO 443]`, `port:>=1024`, `last_seen:>2026-01-01`; open ends are absent */
  | {
      readonly kind: 'range';
      readonly lower?: { readonly value: number | string; readonly inclusive: boolean };
      readonly upper?: { readonly value: number | string; readonly inclusive: boolean };
    }
  /** `ip:10.0.0.0/8` */
  | {
      readonly kind: 'cidr';
      readonly network: string;
      readonly prefixLength: number;
      readonly family: 4 | 6;
    };

export type QueryNode =
  | { readonly kind: 'and'; readonly children: readonly QueryNode[]; readonly span: Span }
  | { readonly kind: 'or'; readonly children: readonly QueryNode[]; readonly span: Span }
  | { readonly kind: 'not'; readonly child: QueryNode; readonly span: Span }
  /** `field:value` after validation against the vocabulary. */
  | { readonly kind: 'field'; readonly field: string; readonly match: Match; readonly span: Span }
  /** A word or phrase without a field, before smart interpretation (see interpretation.ts). */
  | { readonly kind: 'bare'; readonly text: string; readonly quoted: boolean; readonly span: Span }
  /**
   * Catalogue selectors on host observations (`cve:CVE-2021-44228`, `cve:2021-*`, `cve:*`, `kev:true`,
   * `kev:false`), plugged in by the enrichment context. Never sortable or aggregatable.
   */
  | {
      readonly kind: 'selector';
      readonly selector: 'cve' | 'kev';
      readonly value: string;
      readonly span: Span;
    }
  /** A dataset the query cannot apply to (field of another dataset): that dataset answers invalid_query. */
  | { readonly kind: 'none'; readonly reason: string; readonly span: Span };

/** A refusal with the position the caller can point at: 422 invalid_query (or invalid_cve_selector). */
export class QuerySyntaxError extends Error {
  override readonly name = 'QuerySyntaxError';
  constructor(
    message: string,
    readonly position: number,
    readonly code: 'invalid_query' | 'invalid_cve_selector' = 'invalid_query',
  ) {
    super(message);
  }
}
