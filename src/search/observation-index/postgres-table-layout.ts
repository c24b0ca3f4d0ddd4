/**
 * The table of a dataset in PostgreSQL: its columns, indexes and maintained keys, the DDL that creates them,
 * and the rows an upsert writes.
 */
import { type Dataset, DATASETS, type FieldDefinition, fieldsOf } from '../domain/datasets.js';
import type { Match } from '../query-language/ast.js';
import { assertDataset, type NormalizedObservation } from './observation-index.port.js';

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

/**
 * Statistics on an indexed expression. ANALYZE keeps statistics for the expression of a full index but not of a
 * partial one, so each partial expression index has these beside it to keep the planner's estimates.
 */
export interface ExpressionStatistics {
  readonly name: string;
  /** CREATE STATISTICS statement (without IF NOT EXISTS). */
  readonly ddl: string;
}

export interface ObservationTableLayout {
  readonly dataset: Dataset;
  readonly table: string;
  readonly columns: readonly MaintainedColumn[];
  readonly indexes: readonly IndexDefinition[];
  readonly statistics: readonly ExpressionStatistics[];
}

export const TABLE_PREFIX = 'obs_';
export const IDENTIFIER = /^[a-z][a-z0-9_]{0,62}$/;
export const FIELD_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
export const RESERVED_COLUMNS = new Set(['id', 'doc', 'keys']);

export function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`invalid SQL identifier ${JSON.stringify(name)}`);
  return name;
}

export function checkedField(field: FieldDefinition): FieldDefinition {
  if (!FIELD_NAME.test(field.name)) throw new Error(`invalid field name ${JSON.stringify(field.name)}`);
  return field;
}

/** `'name'`: a vocabulary field name as a SQL literal (validated, so it holds no quote). */
export function keyLiteral(field: FieldDefinition): string {
  return `'${checkedField(field).name}'`;
}

/** `'{a,b}'`: the path of a vocabulary field as a text[] literal for `#>>`. */
export function pathLiteral(field: FieldDefinition): string {
  return `'{${checkedField(field).name.split('.').join(',')}}'`;
}

export function slug(field: FieldDefinition): string {
  return checkedField(field).name.replaceAll('.', '_');
}

export function tableOf(dataset: Dataset): string {
  assertDataset(dataset);
  return identifier(`${TABLE_PREFIX}${dataset}`);
}

/** Column of a date or ip field. */
export function columnOf(field: FieldDefinition): string {
  const name = identifier(slug(field));
  if (RESERVED_COLUMNS.has(name)) throw new Error(`field ${field.name} would shadow column ${name}`);
  return name;
}

/** SQL expressions over the row; `row` is the alias with its dot (`o.`), or '' inside index definitions. */
export const expr = {
  keyText: (field: FieldDefinition, row: string) => `(${row}keys ->> ${keyLiteral(field)})`,
  keyJson: (field: FieldDefinition, row: string) => `(${row}keys -> ${keyLiteral(field)})`,
  keyPrefix: (field: FieldDefinition, row: string) => `((${row}keys ->> ${keyLiteral(field)}) COLLATE "C")`,
  keyInteger: (field: FieldDefinition, row: string) => `((${row}keys ->> ${keyLiteral(field)})::bigint)`,
  docText: (field: FieldDefinition, row: string) => `lower(${row}doc #>> ${pathLiteral(field)})`,
  column: (field: FieldDefinition, row: string) => `${row}${columnOf(field)}`,
};

export const layouts = new Map<Dataset, ObservationTableLayout>();

export function layoutOf(dataset: Dataset): ObservationTableLayout {
  assertDataset(dataset);
  let layout = layouts.get(dataset);
  if (!layout) layouts.set(dataset, (layout = buildLayout(dataset)));
  return layout;
}

export function buildLayout(dataset: Dataset): ObservationTableLayout {
  const table = tableOf(dataset);
  const fields = fieldsOf(dataset).map(checkedField);
  const columns: MaintainedColumn[] = [];
  const indexes: IndexDefinition[] = [];
  const statistics = new Map<string, ExpressionStatistics>();
  // An index over one field's value holds only the rows that have it (ADR 129): most records fill a few of a
  // dataset's fields, so a write skips the other indexes. Every match on the field is a strict operator over the
  // indexed expression, which the planner proves implies the predicate.
  const index = (suffix: string, body: string, uses: IndexUse[], present?: string): void => {
    const name = identifier(`${table}_${suffix}`);
    const where = present ? ` WHERE ${present} IS NOT NULL` : '';
    indexes.push({ name, ddl: `CREATE INDEX ${name} ON ${table} ${body}${where}`, uses });
    // A plain column has statistics of its own; an expression needs them declared, once per expression.
    if (present && !columns.some((column) => column.name === present) && !statistics.has(present)) {
      const statisticsName = identifier(`${table}_stat_${suffix.slice(suffix.indexOf('_') + 1)}`);
      statistics.set(present, {
        name: statisticsName,
        ddl: `CREATE STATISTICS ${statisticsName} ON (${present}) FROM ${table}`,
      });
    }
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
          index(
            `prefix_${slug(field)}`,
            `(${expr.keyPrefix(field, '')})`,
            [{ field: field.name, kind: 'prefix' }],
            expr.keyText(field, ''),
          );
        }
        index(
          `trgm_${slug(field)}`,
          `USING gin (${expr.keyText(field, '')} gin_trgm_ops)`,
          [
            ...(field.multiple ? [{ field: field.name, kind: 'prefix' as const }] : []),
            { field: field.name, kind: 'suffix' },
            { field: field.name, kind: 'contains' },
          ],
          expr.keyText(field, ''),
        );
        break;
      case 'text':
        index(
          `trgm_${slug(field)}`,
          `USING gin (${expr.docText(field, '')} gin_trgm_ops)`,
          [
            { field: field.name, kind: 'exact' },
            { field: field.name, kind: 'prefix' },
            { field: field.name, kind: 'suffix' },
            { field: field.name, kind: 'contains' },
          ],
          expr.docText(field, ''),
        );
        break;
      case 'integer':
        exact.push({ field: field.name, kind: 'exact' });
        index(
          `num_${slug(field)}`,
          `(${expr.keyInteger(field, '')})`,
          [{ field: field.name, kind: 'range' }],
          expr.keyInteger(field, ''),
        );
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
        else index(`at_${name}`, `(${name})`, uses, required ? undefined : name);
        break;
      }
      case 'ip': {
        const name = columnOf(field);
        columns.push({ name, field: field.name, type: 'inet', notNull: false });
        index(
          `ip_${name}`,
          `(${name})`,
          [
            { field: field.name, kind: 'exact' },
            { field: field.name, kind: 'cidr' },
          ],
          name,
        );
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
  return { dataset, table, columns, indexes, statistics: [...statistics.values()] };
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

/**
 * The upsert of a `merge` write (ObservationWriteOptions, ADR 97), same parameter as upsertSql: first_seen keeps
 * the least, last_seen the greatest, and the document, keys and other columns come from the newest observation;
 * on equal last_seen both are parts of one observation: their fields add up (top-level keys, the incoming one's
 * where both have one). Every SET expression reads the stored row as it was.
 */
export function mergeUpsertSql(dataset: Dataset): string {
  const { table, columns } = layoutOf(dataset);
  const names = columns.map((column) => column.name);
  const values = columns.map((column) => `(r ->> '${column.name}')::${column.type}`);
  const newest = (incoming: string, stored: string, same: string) =>
    `CASE WHEN EXCLUDED.last_seen > o.last_seen THEN ${incoming} ` +
    `WHEN EXCLUDED.last_seen = o.last_seen THEN ${same} ELSE ${stored} END`;
  const assignments = names.map((name) => {
    if (name === 'first_seen') return 'first_seen = least(o.first_seen, EXCLUDED.first_seen)';
    if (name === 'last_seen') return 'last_seen = greatest(o.last_seen, EXCLUDED.last_seen)';
    return `${name} = ${newest(`EXCLUDED.${name}`, `o.${name}`, `coalesce(EXCLUDED.${name}, o.${name})`)}`;
  });
  return `INSERT INTO ${table} AS o (id, doc, keys, ${names.join(', ')})
          SELECT r ->> 'id', r -> 'doc', r -> 'keys', ${values.join(', ')}
            FROM jsonb_array_elements($1::jsonb) AS r
          ON CONFLICT (id) DO UPDATE SET
            doc = (${newest('EXCLUDED.doc', 'o.doc', addedUpDoc(dataset))}) || jsonb_build_object(
              'first_seen', CASE WHEN EXCLUDED.first_seen < o.first_seen
                                 THEN EXCLUDED.doc -> 'first_seen' ELSE o.doc -> 'first_seen' END,
              'last_seen', CASE WHEN EXCLUDED.last_seen >= o.last_seen
                                THEN EXCLUDED.doc -> 'last_seen' ELSE o.doc -> 'last_seen' END),
            keys = ${newest('EXCLUDED.keys', 'o.keys', 'o.keys || EXCLUDED.keys')},
            ${assignments.join(',\n            ')}`;
}

/**
 * The stored and incoming documents of one observation added up (observation-records.ts addedUp): incoming fields
 * over stored ones, and each object of the vocabulary (`http`, `tls`, …) both have merged one level down.
 */
function addedUpDoc(dataset: Dataset): string {
  const objects = [
    ...new Set(
      fieldsOf(dataset)
        .map(checkedField)
        .filter((field) => field.name.includes('.'))
        .map((field) => field.name.split('.')[0]!),
    ),
  ];
  const parts = objects.map(
    (key) =>
      `CASE WHEN jsonb_typeof(o.doc -> '${key}') = 'object' AND jsonb_typeof(EXCLUDED.doc -> '${key}') = 'object' ` +
      `THEN jsonb_build_object('${key}', (o.doc -> '${key}') || (EXCLUDED.doc -> '${key}')) ELSE '{}'::jsonb END`,
  );
  return ['o.doc || EXCLUDED.doc', ...parts].map((part) => `(${part})`).join(' || ');
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

/** Every layout, for init and tests. */
export function allLayouts(): ObservationTableLayout[] {
  return DATASETS.map(layoutOf);
}
