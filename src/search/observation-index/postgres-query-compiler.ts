/**
 * The PostgreSQL layout of the observation index (postgres-table-layout.ts) and the compiler from the query AST
 * to SQL. Valid on PostgreSQL 15 and on PGlite (PostgreSQL 18); needs pg_trgm.
 *
 * One table per dataset, `obs_<dataset>`:
 *   id          text COLLATE "C" PRIMARY KEY
 *   doc         jsonb NOT NULL        the record as written (returned by get/search/stream)
 *   keys        jsonb NOT NULL        searchable values, normalized (normalizeObservation): keyword values
 *                                     lowercased for case-insensitive fields, multiple fields as arrays,
 *                                     integers, booleans, ip as canonical text; by field name (`"http.status"`)
 *   first_seen  timestamptz NOT NULL  ┐ date fields, maintained at write time from the normalized instants
 *   last_seen   timestamptz NOT NULL  │ (a cast from text to timestamptz is not immutable, so these cannot be
 *   <date>      timestamptz           ┘ generated columns or expression indexes)
 *   ip          inet                  hosts and vhosts
 *
 * Each match is compiled into the very expression an index is built on (the EXPLAIN tests in
 * test/contract/observation-index.postgres.test.ts run one probe per index use declared in the layout):
 *   - exact keyword, integer, boolean (single or multiple): `keys @> {"f": v}` / `{"f": [v]}`, GIN jsonb_path_ops;
 *   - keyword prefix (single): `(keys ->> 'f') COLLATE "C" LIKE 'v%'`, a btree range;
 *   - keyword suffix/contains, and prefix on multiple fields: LIKE on `keys ->> 'f'` (for an array, its JSON text,
 *     with an exact per-element recheck), GIN gin_trgm_ops;
 *   - text fields (any kind): `lower(doc #>> '{a,b}')` LIKE / = `lower($n)`, GIN gin_trgm_ops;
 *   - integer ranges: `((keys ->> 'f')::bigint)`, btree;
 *   - date exact/ranges: the timestamptz column, btree (last_seen: the ordering index);
 *   - ip exact and cidr: `ip = $n::inet`, `ip <<= $n::inet`, btree (the planner turns `<<=` into a range);
 *   - ordering and time frames: btree (last_seen DESC, id).
 * A search counts first (capped at countLimit + 1); when the count shows few matches, the page is read
 * filter-first (see PageStrategy), so that a rare value never makes the planner walk the whole order.
 * Values are always bound parameters; identifiers (tables, columns, field names inside path literals) come from
 * the vocabulary only and are checked against strict patterns before they are written into SQL.
 */
import type { Dataset, FieldDefinition } from '../domain/datasets.js';
import { type Match, type QueryNode, QuerySyntaxError } from '../query-language/ast.js';
import {
  aggregatableField,
  assertSelectorApplies,
  exactBoolean,
  exactInteger,
  exactKeyword,
  instantRange,
  integerRange,
  ipBlock,
  type ObservationQuery,
  parseIp,
  searchableField,
  type SelectorNode,
  SelectorNotConfiguredError,
  sinceInstant,
  unsearchableNode,
} from './observation-index.port.js';
import { checkedField, expr, keyLiteral, tableOf } from './postgres-table-layout.js';

export {
  allLayouts,
  type IndexDefinition,
  type IndexUse,
  layoutOf,
  mergeUpsertSql,
  type MaintainedColumn,
  type ObservationTableLayout,
  tableDdl,
  tableOf,
  upsertSql,
  writeRows,
} from './postgres-table-layout.js';

export type SqlParameterType = 'text' | 'bigint' | 'integer' | 'boolean' | 'jsonb' | 'timestamptz' | 'inet';
export type SqlValue = string | number | boolean | null;

export interface SqlSelectorContext {
  readonly dataset: Dataset;
  /** The observation table (`obs_hosts`). */
  readonly table: string;
  /** Alias of the observation row in the statement: `${row}.id`, `${row}.doc`, `${row}.keys`. */
  readonly row: string;
  /** Binds a value and returns its placeholder with a cast (`$3::text`). Never interpolate values. */
  bind(value: SqlValue, type: SqlParameterType): string;
}

/**
 * The enrichment context's extension point for `cve:` and `kev:` selectors: a boolean SQL condition on the
 * observation row, typically `EXISTS (SELECT 1 FROM <association> a WHERE a.observation_id = o.id AND ...)`.
 * It may throw QuerySyntaxError (code invalid_cve_selector) for a value it refuses.
 */
export interface SqlSelectorCompiler {
  compile(node: SelectorNode, context: SqlSelectorContext): string;
}

export interface SqlStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** Bound parameters of one statement. */
export class SqlParameters {
  readonly values: unknown[] = [];

  bind(value: SqlValue, type: SqlParameterType): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }

  json(value: unknown): string {
    this.values.push(JSON.stringify(value));
    return `$${this.values.length}::jsonb`;
  }
}

const ROW = 'o';
const R = `${ROW}.`;

/** `FROM obs_<dataset> AS o WHERE <condition>` parts of a query. */
export interface CompiledQuery {
  readonly table: string;
  readonly where: string;
  readonly params: SqlParameters;
}

export function compileQuery(
  dataset: Dataset,
  query: ObservationQuery,
  selectors?: SqlSelectorCompiler,
  params = new SqlParameters(),
): CompiledQuery {
  const table = tableOf(dataset);
  const compiler = new ConditionCompiler(dataset, table, params, selectors);
  const conditions = [compiler.condition(query.ast)];
  const since = sinceInstant(query);
  if (since !== undefined) conditions.push(`${R}last_seen >= ${params.bind(since, 'timestamptz')}`);
  return { table, where: conditions.join(' AND '), params };
}

class ConditionCompiler {
  constructor(
    private readonly dataset: Dataset,
    private readonly table: string,
    private readonly params: SqlParameters,
    private readonly selectors: SqlSelectorCompiler | undefined,
  ) {}

  condition(node: QueryNode): string {
    switch (node.kind) {
      case 'and':
        return node.children.length === 0
          ? 'TRUE'
          : `(${node.children.map((c) => this.condition(c)).join(' AND ')})`;
      case 'or':
        return node.children.length === 0
          ? 'FALSE'
          : `(${node.children.map((c) => this.condition(c)).join(' OR ')})`;
      case 'not':
        // IS NOT TRUE: a record without the field (NULL) matches the negation, as with MongoDB's $nor.
        return `((${this.condition(node.child)}) IS NOT TRUE)`;
      case 'field':
        return this.field(searchableField(this.dataset, node), node.match, node.span.start);
      case 'selector': {
        assertSelectorApplies(this.dataset, node);
        if (!this.selectors) throw new SelectorNotConfiguredError(node.selector, 'PostgreSQL');
        const context: SqlSelectorContext = {
          dataset: this.dataset,
          table: this.table,
          row: ROW,
          bind: (value, type) => this.params.bind(value, type),
        };
        return `(${this.selectors.compile(node, context)})`;
      }
      case 'none':
      case 'bare':
        throw unsearchableNode(node);
    }
  }

  private field(field: FieldDefinition, match: Match, position: number): string {
    switch (field.type) {
      case 'keyword':
        return this.keyword(field, match, position);
      case 'text':
        return this.text(field, match, position);
      case 'integer':
        return this.integer(field, match, position);
      case 'boolean':
        if (match.kind !== 'exact') throw unsupported(field, match, position);
        return this.contains(field, exactBoolean(match.value, position));
      case 'date':
        return this.date(field, match, position);
      case 'ip':
        return this.ip(field, match, position);
    }
  }

  /** `keys @> {"f": v}`, or `{"f": [v]}` for a multiple field: one GIN index for every exact match. */
  private contains(field: FieldDefinition, value: string | number | boolean): string {
    return `(${R}keys @> ${this.params.json({ [field.name]: field.multiple ? [value] : value })})`;
  }

  private keyword(field: FieldDefinition, match: Match, position: number): string {
    if (match.kind === 'exact') return this.contains(field, exactKeyword(field, match.value));
    if (match.kind !== 'prefix' && match.kind !== 'suffix' && match.kind !== 'contains') {
      throw unsupported(field, match, position);
    }
    const value = exactKeyword(field, match.value);
    const element = likePattern(match.kind, escapeLike(value));
    if (!field.multiple) {
      const target = match.kind === 'prefix' ? expr.keyPrefix(field, R) : expr.keyText(field, R);
      return `(${target} LIKE ${this.params.bind(element, 'text')})`;
    }
    // The array's JSON text narrows down through the trigram index (an element starts after `"` and ends
    // before `"`); the recheck on the elements makes the match exact.
    const json = escapeLike(JSON.stringify(value).slice(1, -1));
    const candidates =
      match.kind === 'prefix' ? `%"${json}%` : match.kind === 'suffix' ? `%${json}"%` : `%${json}%`;
    return (
      `(${expr.keyText(field, R)} LIKE ${this.params.bind(candidates, 'text')} AND EXISTS (` +
      `SELECT 1 FROM jsonb_array_elements_text(${expr.keyJson(field, R)}) AS e(v) ` +
      `WHERE e.v LIKE ${this.params.bind(element, 'text')}))`
    );
  }

  private text(field: FieldDefinition, match: Match, position: number): string {
    const target = expr.docText(field, R);
    if (match.kind === 'exact')
      return `(${target} = lower(${this.params.bind(String(match.value), 'text')}))`;
    if (match.kind !== 'prefix' && match.kind !== 'suffix' && match.kind !== 'contains') {
      throw unsupported(field, match, position);
    }
    const pattern = likePattern(match.kind, escapeLike(match.value));
    return `(${target} LIKE lower(${this.params.bind(pattern, 'text')}))`;
  }

  private integer(field: FieldDefinition, match: Match, position: number): string {
    if (match.kind === 'exact') {
      const value = exactInteger(match.value, position);
      return value === null ? 'FALSE' : this.contains(field, value);
    }
    if (match.kind !== 'range') throw unsupported(field, match, position);
    const range = integerRange(match, position);
    if (range === 'empty') return 'FALSE';
    const target = expr.keyInteger(field, R);
    const conditions: string[] = [];
    if (range.gte !== undefined)
      conditions.push(`${target} >= ${this.params.bind(String(range.gte), 'bigint')}`);
    if (range.lte !== undefined)
      conditions.push(`${target} <= ${this.params.bind(String(range.lte), 'bigint')}`);
    if (conditions.length === 0) return `(${R}keys ? ${keyLiteral(field)})`;
    return `(${conditions.join(' AND ')})`;
  }

  private date(field: FieldDefinition, match: Match, position: number): string {
    const range = instantRange(match, position);
    const target = expr.column(field, R);
    const conditions: string[] = [];
    if (range.gte !== undefined)
      conditions.push(`${target} >= ${this.params.bind(range.gte, 'timestamptz')}`);
    if (range.gt !== undefined) conditions.push(`${target} > ${this.params.bind(range.gt, 'timestamptz')}`);
    if (range.lt !== undefined) conditions.push(`${target} < ${this.params.bind(range.lt, 'timestamptz')}`);
    if (range.lte !== undefined)
      conditions.push(`${target} <= ${this.params.bind(range.lte, 'timestamptz')}`);
    if (conditions.length === 0) return `(${target} IS NOT NULL)`;
    return `(${conditions.join(' AND ')})`;
  }

  private ip(field: FieldDefinition, match: Match, position: number): string {
    const target = expr.column(field, R);
    if (match.kind === 'exact') {
      const address = parseIp(String(match.value).trim());
      if (!address) throw new QuerySyntaxError(`${String(match.value)} is not an IP address`, position);
      return `(${target} = ${this.params.bind(address.text, 'inet')})`;
    }
    if (match.kind !== 'cidr') throw unsupported(field, match, position);
    return `(${target} <<= ${this.params.bind(ipBlock(match, position).text, 'inet')})`;
  }
}

function unsupported(field: FieldDefinition, match: Match, position: number): QuerySyntaxError {
  return new QuerySyntaxError(
    `${field.name}: ${match.kind} matches do not apply to ${field.type} fields`,
    position,
  );
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

function likePattern(kind: 'prefix' | 'suffix' | 'contains', escaped: string): string {
  if (kind === 'prefix') return `${escaped}%`;
  if (kind === 'suffix') return `%${escaped}`;
  return `%${escaped}%`;
}

/**
 * How a page is read.
 * - `ordered`: walk the (last_seen DESC, id) index and keep the rows that match, until the page is full. Right
 *   when matches are dense; the planner may also pick a filter index and sort.
 * - `filter-first`: collect the matching rows through the filter indexes, then sort them (top-N) and fetch the
 *   page. The planner cannot know that a value is rare (jsonb containment and trigram estimates are coarse),
 *   and with ORDER BY ... LIMIT it may walk the ordering index through the whole table looking for matches
 *   that are not there; when the count says the matches are few, this shape rules that out.
 */
export type PageStrategy = 'ordered' | 'filter-first';

/**
 * Up to this many matching records, a page is read filter-first. Walking the order costs about
 * (offset + limit) * rows / matches row visits, filtering costs `matches`: with a million rows and pages of 20
 * they cross near 4,500 matches.
 */
export const FILTER_FIRST_MAX_MATCHES = 5_000;

/** One page, newest last_seen first, ties by id. */
export function searchStatement(
  dataset: Dataset,
  query: ObservationQuery,
  page: { readonly offset: number; readonly limit: number },
  selectors?: SqlSelectorCompiler,
  strategy: PageStrategy = 'ordered',
): SqlStatement {
  const { table, where, params } = compileQuery(dataset, query, selectors);
  const limit = params.bind(page.limit, 'bigint');
  const offset = params.bind(page.offset, 'bigint');
  const text =
    strategy === 'ordered'
      ? `SELECT ${R}doc FROM ${table} AS ${ROW} WHERE ${where} ` +
        `ORDER BY ${R}last_seen DESC, ${R}id ASC LIMIT ${limit} OFFSET ${offset}`
      : `WITH matching AS MATERIALIZED (SELECT ${R}id, ${R}last_seen FROM ${table} AS ${ROW} WHERE ${where}) ` +
        `SELECT ${R}doc FROM (SELECT id, last_seen FROM matching ` +
        `ORDER BY last_seen DESC, id ASC LIMIT ${limit} OFFSET ${offset}) AS page ` +
        `JOIN ${table} AS ${ROW} ON ${R}id = page.id ORDER BY page.last_seen DESC, page.id ASC`;
  return { text, params: params.values };
}

/** How many records match, counting at most `cap`. */
export function countStatement(
  dataset: Dataset,
  query: ObservationQuery,
  cap: number,
  selectors?: SqlSelectorCompiler,
): SqlStatement {
  const { table, where, params } = compileQuery(dataset, query, selectors);
  const text =
    `SELECT count(*)::text AS count FROM ` +
    `(SELECT 1 FROM ${table} AS ${ROW} WHERE ${where} LIMIT ${params.bind(cap, 'bigint')}) AS matching`;
  return { text, params: params.values };
}

/** The next batch of a stream: matching records with an id after `afterId`, in id order. */
export function streamStatement(
  dataset: Dataset,
  query: ObservationQuery,
  afterId: string,
  batchSize: number,
  selectors?: SqlSelectorCompiler,
): SqlStatement {
  const { table, where, params } = compileQuery(dataset, query, selectors);
  const text =
    `SELECT ${R}id, ${R}doc FROM ${table} AS ${ROW} WHERE ${where} AND ${R}id > ${params.bind(afterId, 'text')} ` +
    `ORDER BY ${R}id LIMIT ${params.bind(batchSize, 'bigint')}`;
  return { text, params: params.values };
}

/** How a field's values are ordered among values of equal count (the facet's tie-break). */
function facetValueOrder(field: FieldDefinition, value: string): string {
  switch (field.type) {
    case 'integer':
      return `(${value})::numeric`;
    case 'boolean':
      return `(${value})::boolean`;
    case 'keyword':
    case 'ip':
      return `(${value} #>> '{}') COLLATE "C"`;
    default:
      throw new Error(`${field.type} field ${field.name} cannot be aggregated`);
  }
}

/**
 * Top values of aggregatable fields over the matching records, every field in one scan (ADR 0123): each
 * matching row is unpivoted into one (field ordinal, value) row per field (per element for a multi-valued field),
 * grouped, and ranked within its field by count descending, then value. Rows: `f` (the field's index in
 * `fieldNames`), `value`, `count`, ordered by field and rank. A scan per field read the same matching rows once
 * per field: at a million hosts, three host facets of a broad query cost three times one.
 */
export function facetsStatement(
  dataset: Dataset,
  query: ObservationQuery,
  fieldNames: readonly string[],
  limit: number,
  selectors?: SqlSelectorCompiler,
): SqlStatement {
  const fields = fieldNames.map((name) => checkedField(aggregatableField(dataset, name)));
  const { table, where, params } = compileQuery(dataset, query, selectors);
  const values = fields.every((field) => !field.multiple)
    ? `(VALUES ${fields.map((field, f) => `(${f}, ${expr.keyJson(field, R)})`).join(', ')}) AS v(f, value)`
    : `(${fields
        .map((field, f) =>
          field.multiple
            ? `SELECT ${f} AS f, e.value FROM jsonb_array_elements(${expr.keyJson(field, R)}) AS e(value)`
            : `SELECT ${f} AS f, ${expr.keyJson(field, R)} AS value`,
        )
        .join(' UNION ALL ')}) AS v`;
  // Each field's tie-break applies within its own partition only (NULL, so equal, elsewhere).
  const tieBreaks = fields
    .map((field, f) => `CASE WHEN v.f = ${f} THEN ${facetValueOrder(field, 'v.value')} END`)
    .join(', ');
  const text =
    `SELECT f, value, count::text AS count FROM (` +
    `SELECT v.f, v.value, count(*) AS count, ` +
    `row_number() OVER (PARTITION BY v.f ORDER BY count(*) DESC, ${tieBreaks}) AS rank ` +
    `FROM ${table} AS ${ROW} CROSS JOIN LATERAL ${values} ` +
    `WHERE ${where} AND v.value IS NOT NULL GROUP BY v.f, v.value) AS ranked ` +
    `WHERE rank <= ${params.bind(limit, 'bigint')} ORDER BY f, rank`;
  return { text, params: params.values };
}
