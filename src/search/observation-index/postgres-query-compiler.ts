/**
 * The PostgreSQL layout of the observation index and the compiler from the query AST to SQL. Valid on
 * PostgreSQL 15 and on PGlite (PostgreSQL 18); needs pg_trgm.
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
import { DATASETS, fieldsOf, type Dataset, type FieldDefinition } from '../domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from '../query-language/ast.js';
import {
  aggregatableField,
  assertDataset,
  assertSelectorApplies,
  exactBoolean,
  exactInteger,
  exactKeyword,
  instantRange,
  integerRange,
  ipBlock,
  parseIp,
  searchableField,
  SelectorNotConfiguredError,
  sinceInstant,
  unsearchableNode,
  type NormalizedObservation,
  type ObservationQuery,
  type SelectorNode,
} from './observation-index.port.js';

// --- selectors -------------------------------------------------------------------------------------------

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

// --- layout ----------------------------------------------------------------------------------------------

/** A match kind an index serves for a field, or the result order (last_seen DESC, id). */
export type IndexUse = { readonly field: string; readonly kind: Match['kind'] } | { readonly kind: 'order' };

export interface IndexDefinition {
  readonly name: string;
  /** CREATE INDEX statement (without IF NOT EXISTS); stored as the index comment to detect changes. */
  readonly ddl: string;
  readonly uses: readonly IndexUse[];
}

export interface MaintainedColumn {
  readonly name: string;
  readonly field: string;
  readonly type: 'timestamptz' | 'inet';
  readonly notNull: boolean;
}

export interface ObservationTableLayout {
  readonly dataset: Dataset;
  readonly table: string;
  readonly columns: readonly MaintainedColumn[];
  readonly indexes: readonly IndexDefinition[];
}

const TABLE_PREFIX = 'obs_';
const IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;
const FIELD_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
const RESERVED_COLUMNS = new Set(['id', 'doc', 'keys']);

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`);
  return name;
}

function checkedField(field: FieldDefinition): FieldDefinition {
  if (!FIELD_NAME.test(field.name)) throw new Error(`invalid field name ${JSON.stringify(field.name)}`);
  return field;
}

/** `'name'`: a vocabulary field name as a SQL literal (validated, so it holds no quote). */
function keyLiteral(field: FieldDefinition): string {
  return `'${checkedField(field).name}'`;
}

/** `'{a,b}'`: the path of a vocabulary field as a text[] literal for `#>>`. */
function pathLiteral(field: FieldDefinition): string {
  return `'{${checkedField(field).name.split('.').join(',')}}'`;
}

function slug(field: FieldDefinition): string {
  return checkedField(field).name.replaceAll('.', '_');
}

export function tableOf(dataset: Dataset): string {
  assertDataset(dataset);
  return identifier(`${TABLE_PREFIX}${dataset}`);
}

/** Column of a date or ip field. */
function columnOf(field: FieldDefinition): string {
  const name = identifier(slug(field));
  if (RESERVED_COLUMNS.has(name)) throw new Error(`field ${field.name} would shadow column ${name}`);
  return name;
}

/** SQL expressions over the row; `row` is the alias with its dot (`o.`), or '' inside index definitions. */
const expr = {
  keyText: (field: FieldDefinition, row: string) => `(${row}keys ->> ${keyLiteral(field)})`,
  keyJson: (field: FieldDefinition, row: string) => `(${row}keys -> ${keyLiteral(field)})`,
  keyPrefix: (field: FieldDefinition, row: string) => `((${row}keys ->> ${keyLiteral(field)}) COLLATE "C")`,
  keyInteger: (field: FieldDefinition, row: string) => `((${row}keys ->> ${keyLiteral(field)})::bigint)`,
  docText: (field: FieldDefinition, row: string) => `lower(${row}doc #>> ${pathLiteral(field)})`,
  column: (field: FieldDefinition, row: string) => `${row}${columnOf(field)}`,
};

const layouts = new Map<Dataset, ObservationTableLayout>();

export function layoutOf(dataset: Dataset): ObservationTableLayout {
  assertDataset(dataset);
  let layout = layouts.get(dataset);
  if (!layout) layouts.set(dataset, (layout = buildLayout(dataset)));
  return layout;
}

function buildLayout(dataset: Dataset): ObservationTableLayout {
  const table = tableOf(dataset);
  const fields = fieldsOf(dataset).map(checkedField);
  const columns: MaintainedColumn[] = [];
  const indexes: IndexDefinition[] = [];
  const index = (suffix: string, body: string, uses: IndexUse[]): void => {
    const name = identifier(`${table}_${suffix}`);
    indexes.push({ name, ddl: `CREATE INDEX ${name} ON ${table} ${body}`, uses });
  };

  // Filled as the fields are read: last_seen ranges use the ordering index too.
  const recent: IndexUse[] = [{ kind: 'order' }];
  index('recent', '(last_seen DESC, id)', recent);
  const exact: IndexUse[] = [];
  for (const field of fields) {
    if (field.multiple && field.type !== 'keyword') {
      throw new Error(`multiple ${field.type} field ${field.name} is not supported by the PostgreSQL index`);
    }
    switch (field.type) {
      case 'keyword':
        exact.push({ field: field.name, kind: 'exact' });
        if (!field.multiple) {
          index(`prefix_${slug(field)}`, `(${expr.keyPrefix(field, '')})`, [
            { field: field.name, kind: 'prefix' },
          ]);
        }
        index(`trgm_${slug(field)}`, `USING gin (${expr.keyText(field, '')} gin_trgm_ops)`, [
          ...(field.multiple ? [{ field: field.name, kind: 'prefix' as const }] : []),
          { field: field.name, kind: 'suffix' },
          { field: field.name, kind: 'contains' },
        ]);
        break;
      case 'text':
        index(`trgm_${slug(field)}`, `USING gin (${expr.docText(field, '')} gin_trgm_ops)`, [
          { field: field.name, kind: 'exact' },
          { field: field.name, kind: 'prefix' },
          { field: field.name, kind: 'suffix' },
          { field: field.name, kind: 'contains' },
        ]);
        break;
      case 'integer':
        exact.push({ field: field.name, kind: 'exact' });
        index(`num_${slug(field)}`, `(${expr.keyInteger(field, '')})`, [
          { field: field.name, kind: 'range' },
        ]);
        break;
      case 'boolean':
        exact.push({ field: field.name, kind: 'exact' });
        break;
      case 'date': {
        const name = columnOf(field);
        const required = field.name === 'first_seen' || field.name === 'last_seen';
        columns.push({ name, field: field.name, type: 'timestamptz', notNull: required });
        const uses: IndexUse[] = [
          { field: field.name, kind: 'exact' },
          { field: field.name, kind: 'range' },
        ];
        if (field.name === 'last_seen') recent.push(...uses);
        else index(`at_${name}`, `(${name})`, uses);
        break;
      }
      case 'ip': {
        const name = columnOf(field);
        columns.push({ name, field: field.name, type: 'inet', notNull: false });
        index(`ip_${name}`, `(${name})`, [
          { field: field.name, kind: 'exact' },
          { field: field.name, kind: 'cidr' },
        ]);
        break;
      }
    }
  }
  index('keys', 'USING gin (keys jsonb_path_ops)', exact);
  if (
    !columns.some((column) => column.name === 'last_seen') ||
    !columns.some((c) => c.name === 'first_seen')
  ) {
    throw new Error(`dataset ${dataset} lacks first_seen or last_seen`);
  }
  return { dataset, table, columns, indexes };
}

/** Statements creating the table of a dataset and its columns (idempotent). */
export function tableDdl(dataset: Dataset): string[] {
  const { table, columns } = layoutOf(dataset);
  const definitions = columns.map(
    (column) => `${column.name} ${column.type}${column.notNull ? ' NOT NULL' : ''}`,
  );
  return [
    `CREATE TABLE IF NOT EXISTS ${table} (
       id text COLLATE "C" NOT NULL PRIMARY KEY,
       doc jsonb NOT NULL,
       keys jsonb NOT NULL,
       ${definitions.join(',\n       ')})`,
    // Columns of fields added to the vocabulary later (rows written before have them NULL until rewritten).
    ...columns
      .filter((column) => !column.notNull)
      .map((column) => `ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS ${column.name} ${column.type}`),
  ];
}

/** The upsert of a batch: one jsonb parameter holding the rows (see writeRows). */
export function upsertSql(dataset: Dataset): string {
  const { table, columns } = layoutOf(dataset);
  const names = columns.map((column) => column.name);
  const values = columns.map((column) => `(r ->> '${column.name}')::${column.type}`);
  return `INSERT INTO ${table} AS o (id, doc, keys, ${names.join(', ')})
          SELECT r ->> 'id', r -> 'doc', r -> 'keys', ${values.join(', ')}
            FROM jsonb_array_elements($1::jsonb) AS r
          ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc, keys = EXCLUDED.keys,
            ${names.map((name) => `${name} = EXCLUDED.${name}`).join(', ')}`;
}

/** The rows of upsertSql's parameter. */
export function writeRows(dataset: Dataset, observations: readonly NormalizedObservation[]): string {
  const { columns } = layoutOf(dataset);
  return JSON.stringify(
    observations.map((observation) => {
      const row: Record<string, unknown> = {
        id: observation.id,
        doc: observation.record,
        keys: observation.keys,
      };
      for (const column of columns) {
        row[column.name] =
          column.type === 'inet'
            ? (observation.addresses[column.field]?.text ?? null)
            : (observation.instants[column.field] ?? null);
      }
      return row;
    }),
  );
}

// --- compilation -----------------------------------------------------------------------------------------

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

// --- statements ------------------------------------------------------------------------------------------

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

/** Top values of one aggregatable field over the matching records: count descending, then value. */
export function aggregateStatement(
  dataset: Dataset,
  query: ObservationQuery,
  fieldName: string,
  limit: number,
  selectors?: SqlSelectorCompiler,
): SqlStatement {
  const field = checkedField(aggregatableField(dataset, fieldName));
  const { table, where, params } = compileQuery(dataset, query, selectors);
  const order =
    field.type === 'integer'
      ? '(value)::numeric'
      : field.type === 'boolean'
        ? '(value)::boolean'
        : field.type === 'keyword' || field.type === 'ip'
          ? `(value #>> '{}') COLLATE "C"`
          : undefined;
  if (!order) throw new Error(`${field.type} field ${field.name} cannot be aggregated`);
  const source = field.multiple
    ? `${table} AS ${ROW} CROSS JOIN LATERAL jsonb_array_elements(${expr.keyJson(field, R)}) AS v(value) WHERE ${where}`
    : `(SELECT ${expr.keyJson(field, R)} AS value FROM ${table} AS ${ROW} ` +
      `WHERE ${where} AND ${R}keys ? ${keyLiteral(field)}) AS v`;
  const text =
    `SELECT value, count(*)::text AS count FROM ${source} ` +
    `GROUP BY value ORDER BY count(*) DESC, ${order} LIMIT ${params.bind(limit, 'bigint')}`;
  return { text, params: params.values };
}

/** Every layout, for init and tests. */
export function allLayouts(): ObservationTableLayout[] {
  return DATASETS.map(layoutOf);
}
