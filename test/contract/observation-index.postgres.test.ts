/**
 * The ObservationIndex contract against PostgreSQL: in-memory PGlite and a fresh database on the PostgreSQL
 * server (TEST_DATABASE_URL). Plus the selector extension point, statement cancellation, and query plans on
 * the server: every index of every dataset layout is shown in use by the very statement the index runs, over
 * ~80,000 generated rows (50,000 hosts).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PostgresCatalogueStore } from '../../src/catalogue/store/postgres-catalogue-store.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import {
  DATASETS,
  fieldNamed,
  fieldsOf,
  type Dataset,
  type FieldDefinition,
} from '../../src/search/domain/datasets.js';
import {
  valueAt,
  type ObservationQuery,
  type ObservationRecord,
  type SelectorNode,
} from '../../src/search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../../src/search/observation-index/postgres-observation-index.js';
import {
  countStatement,
  layoutOf,
  searchStatement,
  type IndexUse,
  type SqlSelectorCompiler,
  type SqlSelectorContext,
  type SqlStatement,
} from '../../src/search/observation-index/postgres-query-compiler.js';
import { QuerySyntaxError, type QueryNode } from '../../src/search/query-language/ast.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../support/databases.js';
import {
  loadFixtures,
  observationIndexContract,
  q,
  type ObservationIndexUnderTest,
} from './observation-index.contract.js';

for (const kind of SQL_KINDS) {
  observationIndexContract(kind, async (): Promise<ObservationIndexUnderTest> => {
    const database = await createTestDatabase(kind);
    const index = new PostgresObservationIndex(database.db);
    await index.init();
    const store = new PostgresCatalogueStore(database.db);
    await store.init();
    const selecting = new PostgresObservationIndex(database.db, { selectors: store.sqlSelectors });
    return { index, catalogue: { index: selecting, store }, dispose: () => database.dispose() };
  });
}

/**
 * What the enrichment context plugs in, in miniature: an association table between observations and
 * advisories, and a compiler turning `cve:`/`kev:` into EXISTS conditions on it.
 */
const LINKS_TABLE = 'test_advisory_links';

const associationSelectors: SqlSelectorCompiler = {
  compile(node: SelectorNode, context: SqlSelectorContext): string {
    const link = (condition: string): string =>
      `EXISTS (SELECT 1 FROM ${LINKS_TABLE} AS l WHERE l.observation_id = ${context.row}.id${condition})`;
    if (node.selector === 'kev') {
      if (node.value === 'true') return link(' AND l.kev');
      if (node.value === 'false') return `NOT ${link(' AND l.kev')}`;
      throw new QuerySyntaxError('kev: takes true or false', node.span.start, 'invalid_cve_selector');
    }
    if (node.value === '*') return link('');
    const prefix = /^(?:CVE-)?(\d{4})-\*$/i.exec(node.value);
    if (prefix) return link(` AND l.cve LIKE ${context.bind(`CVE-${prefix[1]}-%`, 'text')}`);
    if (/^CVE-\d{4}-\d{4,}$/i.test(node.value)) {
      return link(` AND l.cve = ${context.bind(node.value.toUpperCase(), 'text')}`);
    }
    throw new QuerySyntaxError(
      `${node.value} is not a CVE identifier`,
      node.span.start,
      'invalid_cve_selector',
    );
  },
};

/** A selector that takes `seconds` to evaluate (once per statement), to have a statement to interrupt. */
const sleepingSelectors = (seconds: number): SqlSelectorCompiler => ({
  compile: (_node, context) => `(SELECT true FROM pg_sleep(${context.bind(seconds, 'integer')}::float8))`,
});

/** Like sleepingSelectors(seconds), each evaluation also taking a number of `sequence`: it counts the statements. */
const countedSleepingSelectors = (seconds: number, sequence: string): SqlSelectorCompiler => ({
  compile: (_node, context) =>
    `(SELECT nextval('${sequence}') > 0 FROM pg_sleep(${context.bind(seconds, 'integer')}::float8))`,
});

describe.each(SQL_KINDS)('PostgresObservationIndex selectors: %s', (kind) => {
  let database: TestDatabase;
  let index: PostgresObservationIndex;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    index = new PostgresObservationIndex(database.db, { selectors: associationSelectors });
    await index.init();
    await loadFixtures(index);
    await database.db.exec(`
      CREATE TABLE ${LINKS_TABLE} (observation_id text NOT NULL, cve text NOT NULL, kev boolean NOT NULL);
      INSERT INTO ${LINKS_TABLE} VALUES
        ('h19', 'CVE-2024-23897', true),
        ('h01', 'CVE-2021-23017', false),
        ('h02', 'CVE-2021-23017', false),
        ('h03', 'CVE-2024-6387', false),
        ('h20', 'CVE-2024-21762', true),
        ('h20', 'CVE-2022-40684', true);`);
  });

  afterAll(async () => {
    await database?.dispose();
  });

  const idsOf = async (ast: QueryNode): Promise<string[]> =>
    (await index.search('hosts', { ast }, { offset: 0, limit: 50 })).records
      .map((record) => record.id)
      .sort();

  it('plugs cve: and kev: in through the association', async () => {
    expect(await idsOf(q.selector('cve', '*'))).toEqual(['h01', 'h02', 'h03', 'h19', 'h20']);
    expect(await idsOf(q.selector('cve', 'CVE-2021-23017'))).toEqual(['h01', 'h02']);
    expect(await idsOf(q.selector('cve', '2024-*'))).toEqual(['h03', 'h19', 'h20']);
    expect(await idsOf(q.selector('kev', 'true'))).toEqual(['h19', 'h20']);
    expect(await idsOf(q.and(q.selector('kev', 'false'), q.exact('port', 443)))).toEqual([
      'h02',
      'h06',
      'h12',
      'h14',
      'h23',
      'h28',
      'h29',
    ]);
  });

  it('combines selectors with host criteria through boolean expressions', async () => {
    expect(await idsOf(q.and(q.selector('cve', '*'), q.not(q.exact('product', 'nginx'))))).toEqual([
      'h03',
      'h19',
      'h20',
    ]);
    expect(await idsOf(q.or(q.selector('kev', 'true'), q.exact('product', 'redis')))).toEqual([
      'h11',
      'h19',
      'h20',
    ]);
  });

  it('lets the selector compiler refuse a value', async () => {
    const error = await index
      .search('hosts', { ast: q.selector('cve', 'log4shell') }, { offset: 0, limit: 5 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuerySyntaxError);
    expect((error as QuerySyntaxError).code).toBe('invalid_cve_selector');
  });
});

describe('PostgresObservationIndex cancellation: postgres', () => {
  let database: TestDatabase;
  let small: SqlDatabase;
  let watcher: SqlDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    await new PostgresObservationIndex(database.db).init();
    await loadFixtures(new PostgresObservationIndex(database.db));
    // Two connections, both pinned by searches at times; cancels go on connections of their own.
    small = database.openAnother(2);
    watcher = database.openAnother(1);
  });

  afterAll(async () => {
    await database?.dispose();
  });

  const sleepers = async (): Promise<number> => {
    const { rows } = await watcher.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()`,
    );
    return Number(rows[0]?.count ?? 0);
  };

  it('an abort cancels the running statement on the server, and the connections stay usable', async () => {
    await watcher.exec('CREATE SEQUENCE finished_sleeps');
    const index = new PostgresObservationIndex(small, {
      selectors: countedSleepingSelectors(30, 'finished_sleeps'),
    });
    const controller = new AbortController();
    const running = index.search(
      'hosts',
      { ast: q.selector('kev', 'true') },
      { offset: 0, limit: 5 },
      controller.signal,
    );
    await waitFor(async () => (await sleepers()) === 1, 5_000);
    controller.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    await waitFor(async () => (await sleepers()) === 0, 5_000);
    // Cancelled, not finished: the statement never got past its 30-second sleep.
    const finished = await watcher.query<{ is_called: boolean }>('SELECT is_called FROM finished_sleeps');
    expect(finished.rows).toEqual([{ is_called: false }]);

    // Both pooled connections answer normally afterwards.
    const plain = new PostgresObservationIndex(small);
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        plain.search(
          'hosts',
          { ast: q.exact('product', 'redis') },
          { offset: 0, limit: 5 },
          new AbortController().signal,
        ),
      ),
    );
    for (const page of results) expect(page.records.map((record) => record.id)).toEqual(['h11']);
  });

  it('aborts cancel their statements even when every pooled connection is pinned by one of them', async () => {
    // Two searches pin both connections of the pool: a cancel sent through the pool would wait for a
    // connection that only the cancel could free (the load benchmark's hang at 128 clients, ADR 92).
    const index = new PostgresObservationIndex(small, { selectors: sleepingSelectors(30) });
    const controllers = [new AbortController(), new AbortController()];
    const running = controllers.map((controller) =>
      index.search('hosts', { ast: q.selector('kev', 'true') }, { offset: 0, limit: 5 }, controller.signal),
    );
    await waitFor(async () => (await sleepers()) === 2, 5_000);
    for (const controller of controllers) controller.abort();
    for (const call of running) await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    await waitFor(async () => (await sleepers()) === 0, 5_000);
    const page = await new PostgresObservationIndex(small).search(
      'hosts',
      { ast: q.exact('product', 'redis') },
      { offset: 0, limit: 5 },
      new AbortController().signal,
    );
    expect(page.records.map((record) => record.id)).toEqual(['h11']);
  });

  it('a deadline signal reports its own reason', async () => {
    const index = new PostgresObservationIndex(small, { selectors: sleepingSelectors(30) });
    const running = index.aggregate(
      'hosts',
      { ast: q.selector('cve', '*') },
      ['port'],
      5,
      AbortSignal.timeout(300),
    );
    await expect(running).rejects.toMatchObject({ name: 'TimeoutError' });
    await waitFor(async () => (await sleepers()) === 0, 5_000);
  });
});

describe('PostgresObservationIndex cancellation: pglite', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    await new PostgresObservationIndex(database.db).init();
    await loadFixtures(new PostgresObservationIndex(database.db));
  });

  afterAll(async () => {
    await database?.dispose();
  });

  it('a running PGlite statement cannot be interrupted: the abort lands before the next statement', async () => {
    await database.db.exec('CREATE SEQUENCE sleeping_statements');
    const index = new PostgresObservationIndex(database.db, {
      selectors: countedSleepingSelectors(1, 'sleeping_statements'),
    });
    const controller = new AbortController();
    const started = Date.now();
    // Each of the two statements of a search (count, page) sleeps one second.
    const running = index.search(
      'hosts',
      { ast: q.selector('kev', 'true') },
      { offset: 0, limit: 5 },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 100);
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    // The running statement took its whole second; the next one never started.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    const statements = await database.db.query<{ ran: number }>(
      'SELECT last_value::int AS ran FROM sleeping_statements',
    );
    expect(statements.rows).toEqual([{ ran: 1 }]);

    const page = await new PostgresObservationIndex(database.db).search(
      'hosts',
      { ast: q.exact('product', 'redis') },
      { offset: 0, limit: 5 },
    );
    expect(page.records.map((record) => record.id)).toEqual(['h11']);
  });
});

// --- query plans ---------------------------------------------------------------------------------------------

const GENERATED_ROWS: Readonly<Record<Dataset, number>> = {
  hosts: 50_000,
  dns: 30_000,
  vhosts: 30_000,
  whois: 30_000,
};
/** The row every probe takes its values from. */
const SAMPLE_ROW = 1_200;
const BASE_TIME = Date.parse('2024-01-01T00:00:00.000Z');

/** A generated record: every searchable field filled with values of realistic selectivity for the probes. */
function generated(dataset: Dataset, i: number): ObservationRecord {
  const record: Record<string, unknown> = { id: `${dataset}-${String(i).padStart(6, '0')}` };
  for (const field of fieldsOf(dataset)) {
    const slug = field.name.replaceAll('.', '-');
    const n = (i * 7_919) % 2_000;
    let value: unknown;
    switch (field.type) {
      case 'keyword':
        value = field.multiple
          ? [`a${n}.${slug}.example`, `b${(i * 104_729) % 1_500}.${slug}.example`]
          : `K${n}.${slug}.example`;
        break;
      case 'text':
        value = `Lorem ${i % 3_000} ipsum T${(i * 7_919) % 5_000}x`;
        break;
      case 'integer':
        value = ((i * 37) % 50_000) - (field.name === 'favicon.hash' ? 25_000 : 0);
        break;
      case 'boolean':
        value = i % 200 === 0;
        break;
      case 'date':
        value =
          field.name === 'last_seen'
            ? new Date(BASE_TIME + i * 600_000).toISOString()
            : new Date(BASE_TIME - 86_400_000 * 400 + ((i * 7_919) % 50_000) * 3_600_000).toISOString();
        break;
      case 'ip':
        value =
          i % 20 === 19
            ? `2001:db8::${i.toString(16)}`
            : `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
        break;
    }
    setPath(record, field.name, value);
  }
  return record as unknown as ObservationRecord;
}

function setPath(record: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split('.');
  let target = record;
  for (const segment of segments.slice(0, -1)) target = (target[segment] ??= {}) as Record<string, unknown>;
  target[segments[segments.length - 1]!] = value;
}

/** A selective query exercising one index use, built from the sample row's values. */
function probe(use: Exclude<IndexUse, { kind: 'order' }>, sample: ObservationRecord): QueryNode {
  const field = fieldNamed(use.field) as FieldDefinition;
  const raw = valueAt(sample, field.name);
  const value = String(Array.isArray(raw) ? raw[0] : raw);
  switch (field.type) {
    case 'keyword': {
      const head = value.slice(0, value.indexOf('.') + 1);
      if (use.kind === 'exact') return q.exact(field.name, value);
      if (use.kind === 'prefix') return q.prefix(field.name, head);
      if (use.kind === 'suffix') return q.suffix(field.name, value);
      return q.contains(field.name, head);
    }
    case 'text': {
      const lastWord = value.slice(value.lastIndexOf(' ') + 1);
      if (use.kind === 'exact') return q.exact(field.name, value);
      if (use.kind === 'prefix') return q.prefix(field.name, value.slice(0, value.lastIndexOf(' ')));
      if (use.kind === 'suffix') return q.suffix(field.name, lastWord);
      return q.contains(field.name, lastWord);
    }
    case 'integer':
      return use.kind === 'exact'
        ? q.exact(field.name, Number(value))
        : q.range(field.name, [Number(value), true], [Number(value) + 10, true]);
    case 'date':
      return use.kind === 'exact'
        ? q.exact(field.name, value.slice(0, 10))
        : q.range(field.name, [value, true], [new Date(Date.parse(value) + 3_600_000).toISOString(), false]);
    case 'ip':
      return use.kind === 'exact'
        ? q.exact(field.name, value)
        : value.includes(':')
          ? q.cidr(field.name, value, 120)
          : q.cidr(field.name, value.slice(0, value.lastIndexOf('.')) + '.0', 24);
    case 'boolean':
      return q.exact(field.name, true);
  }
}

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

describe('PostgresObservationIndex query plans: postgres', () => {
  let database: TestDatabase;
  let index: PostgresObservationIndex;
  const samples = new Map<Dataset, ObservationRecord>();

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    index = new PostgresObservationIndex(database.db);
    await index.init();
    for (const dataset of DATASETS) {
      for (let start = 0; start < GENERATED_ROWS[dataset]; start += 2_500) {
        const batch = Array.from({ length: 2_500 }, (_, i) => generated(dataset, start + i));
        await index.write(dataset, batch);
      }
      samples.set(dataset, generated(dataset, SAMPLE_ROW));
    }
    await database.db.exec('ANALYZE');
  }, 600_000);

  afterAll(async () => {
    await database?.dispose();
  });

  /** The planner's choice for exactly the statement the index runs (no planner setting changed). */
  async function plan(statement: SqlStatement): Promise<PlanNode[]> {
    const { rows } = await database.db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) ${statement.text}`,
      statement.params,
    );
    const root = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!root) throw new Error('EXPLAIN returned no plan');
    return flatten(root);
  }

  const indexesIn = (nodes: readonly PlanNode[]): string[] =>
    nodes.flatMap((node) => (node['Index Name'] ? [node['Index Name']] : []));

  const cases = DATASETS.flatMap((dataset) =>
    layoutOf(dataset).indexes.flatMap((definition) =>
      definition.uses.map((use) => ({
        title: `${definition.name} serves ${'field' in use ? `${use.kind} on ${use.field}` : 'the result order'}`,
        dataset,
        indexName: definition.name,
        use,
      })),
    ),
  );

  it('keeps statistics on every partial expression index, made again when their definition changed (ADR 129)', async () => {
    const statisticsOf = async (table: string) =>
      (
        await database.db.query<{ name: string; ddl: string | null; analyzed: boolean }>(
          `SELECT s.stxname AS name, obj_description(s.oid, 'pg_statistic_ext') AS ddl,
                  EXISTS (SELECT 1 FROM pg_stats_ext_exprs e WHERE e.statistics_name = s.stxname) AS analyzed
             FROM pg_statistic_ext s WHERE s.stxrelid = to_regclass($1) ORDER BY s.stxname`,
          [table],
        )
      ).rows;
    for (const dataset of DATASETS) {
      const layout = layoutOf(dataset);
      const partialExpressions = layout.indexes.filter(
        (definition) => / WHERE \(/.test(definition.ddl) && !/ WHERE \w+ IS NOT NULL$/.test(definition.ddl),
      );
      expect(partialExpressions.length).toBeGreaterThan(0);
      // One statistics object per indexed expression (a keyword's prefix and trigram indexes share one).
      for (const definition of partialExpressions) {
        const predicate = definition.ddl.slice(definition.ddl.indexOf(' WHERE ') + 7, -' IS NOT NULL'.length);
        expect(
          layout.statistics.some((statistics) =>
            statistics.ddl.endsWith(`ON (${predicate}) FROM ${layout.table}`),
          ),
        ).toBe(true);
      }
      expect(await statisticsOf(layout.table)).toEqual(
        [...layout.statistics]
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .map((statistics) => ({ name: statistics.name, ddl: statistics.ddl, analyzed: true })),
      );
    }
    // A statistics object whose recorded definition differs is replaced at the next init.
    const [first] = layoutOf('hosts').statistics;
    await database.db.exec(`COMMENT ON STATISTICS ${first!.name} IS 'an older definition'`);
    await index.init();
    expect((await statisticsOf('obs_hosts')).find((row) => row.name === first!.name)).toEqual({
      name: first!.name,
      ddl: first!.ddl,
      analyzed: true,
    });
  });

  it('declares at least one use for every index', () => {
    for (const dataset of DATASETS) {
      for (const definition of layoutOf(dataset).indexes) expect(definition.uses.length).toBeGreaterThan(0);
    }
    expect(cases.length).toBeGreaterThan(100);
  });

  it.each(cases)('$title', async ({ dataset, indexName, use }) => {
    const sample = samples.get(dataset)!;
    if (use.kind === 'order') {
      const nodes = await plan(searchStatement(dataset, { ast: q.all() }, { offset: 0, limit: 20 }));
      expect(indexesIn(nodes)).toEqual([indexName]);
      expect(nodes.filter((node) => /Sort/.test(node['Node Type']))).toEqual([]);
      return;
    }
    const query: ObservationQuery = { ast: probe(use, sample) };
    const nodes = await plan(countStatement(dataset, query, 10_001));
    expect(indexesIn(nodes)).toContain(indexName);
    expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    // The probe finds the sample row: the index answers the same as the statement's semantics.
    const found = await index.search(dataset, query, { offset: 0, limit: 1_000 });
    expect(found.records.map((record) => record.id)).toContain(sample.id);
  });

  it('a page of few matches is read filter-first, through the filter index', async () => {
    const sample = samples.get('hosts')!;
    const query = { ast: q.exact('product', String(valueAt(sample, 'product'))) };
    const nodes = await plan(
      searchStatement('hosts', query, { offset: 0, limit: 20 }, undefined, 'filter-first'),
    );
    expect(indexesIn(nodes)).toEqual(['obs_hosts_keys', 'obs_hosts_pkey']);
    const page = await index.search('hosts', query, { offset: 0, limit: 20 });
    expect(page).toMatchObject({ total: 25, totalIsLowerBound: false });
    const lastSeen = page.records.map((record) => record.last_seen);
    expect(lastSeen).toEqual([...lastSeen].sort().reverse());
  });

  it('a page of dense matches walks the ordering index', async () => {
    const query = { ast: q.exact('shared_edge', false) };
    const nodes = await plan(searchStatement('hosts', query, { offset: 0, limit: 20 }, undefined, 'ordered'));
    expect(indexesIn(nodes)).toEqual(['obs_hosts_recent']);
    expect(nodes.filter((node) => /Sort/.test(node['Node Type']))).toEqual([]);
    const page = await index.search('hosts', query, { offset: 0, limit: 3 });
    expect(page).toMatchObject({ total: 10_000, totalIsLowerBound: true });
    expect(page.records.map((record) => record.id)).toEqual(['hosts-049999', 'hosts-049998', 'hosts-049997']);
  });

  it('a time frame is a range of the ordering index', async () => {
    const since = new Date(BASE_TIME + 49_000 * 600_000).toISOString();
    const nodes = await plan(searchStatement('hosts', { ast: q.all(), since }, { offset: 0, limit: 20 }));
    expect(indexesIn(nodes)).toEqual(['obs_hosts_recent']);
    const page = await index.search('hosts', { ast: q.all(), since }, { offset: 0, limit: 5 });
    expect(page).toMatchObject({ total: 1_000, totalIsLowerBound: false });
    expect(page.records[0]?.id).toBe('hosts-049999');
  });

  it('a count past countLimit stops early and says so', async () => {
    const page = await index.search('hosts', { ast: q.all() }, { offset: 0, limit: 5, countLimit: 10_000 });
    expect(page).toMatchObject({ total: 10_000, totalIsLowerBound: true });
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
