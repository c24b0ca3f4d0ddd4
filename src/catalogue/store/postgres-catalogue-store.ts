/**
 * CatalogueStore over PostgreSQL (PGlite or a server). Tables:
 *   catalogue_meta        one row: version, evaluated_at, kev_source, kev_hash
 *   catalogue_advisories  id, hash, last_modified, doc (the reduced advisory)
 *   catalogue_kev         cve_id, doc
 *   obs_hosts_cve         observation_id, cve_id, kev (null: no KEV catalogue), conditional; beside obs_hosts so
 *                         that `cve:`/`kev:` compile to EXISTS conditions on the observation row.
 *   catalogue_index_stamp one row: the matcher version the association index was last built with, and when.
 */
import type { SqlDatabase } from '../../platform/database/sql-database.js';
import type {
  SqlSelectorCompiler,
  SqlSelectorContext,
} from '../../search/observation-index/postgres-query-compiler.js';
import type { SelectorNode } from '../../search/observation-index/observation-index.port.js';
import {
  EMPTY_CATALOGUE_VERSION,
  type Advisory,
  type CatalogueVersion,
  type KevEntry,
  type KevSource,
} from '../domain/advisory.js';
import {
  selectorMeaning,
  type CatalogueChange,
  type CatalogueSnapshot,
  type CatalogueStore,
  type HostAssociation,
  type IndexStamp,
} from './catalogue-store.port.js';

const LOCK = 0x63_61_74_6c; // 'catl'
export const ASSOCIATION_TABLE = 'obs_hosts_cve';
const CHUNK = 1000;

const DDL = [
  `CREATE TABLE IF NOT EXISTS catalogue_meta (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     version integer NOT NULL,
     evaluated_at timestamptz,
     kev_source jsonb,
     kev_hash text)`,
  `CREATE TABLE IF NOT EXISTS catalogue_advisories (
     id text COLLATE "C" PRIMARY KEY,
     hash text NOT NULL,
     last_modified text,
     doc jsonb NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS catalogue_kev (
     cve_id text COLLATE "C" PRIMARY KEY,
     doc jsonb NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS ${ASSOCIATION_TABLE} (
     observation_id text COLLATE "C" NOT NULL,
     cve_id text COLLATE "C" NOT NULL,
     kev boolean,
     conditional boolean NOT NULL,
     PRIMARY KEY (observation_id, cve_id))`,
  `CREATE INDEX IF NOT EXISTS obs_hosts_cve_by_cve ON ${ASSOCIATION_TABLE} (cve_id, observation_id)`,
  `CREATE INDEX IF NOT EXISTS obs_hosts_cve_kev ON ${ASSOCIATION_TABLE} (observation_id) WHERE kev`,
  `CREATE TABLE IF NOT EXISTS catalogue_index_stamp (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     matcher_version integer NOT NULL,
     built_at timestamptz NOT NULL)`,
];

export class PostgresCatalogueStore implements CatalogueStore {
  readonly kind: string;
  readonly sqlSelectors: SqlSelectorCompiler = { compile: (node, context) => compileSelector(node, context) };

  constructor(private readonly db: SqlDatabase) {
    this.kind = db.kind;
  }

  async init(): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
      for (const statement of DDL) await tx.query(statement);
    });
  }

  async version(): Promise<CatalogueVersion> {
    const { rows } = await this.db.query<{
      version: number;
      evaluated_at: Date | string | null;
      kev_source: KevSource | null;
      advisories: string;
      kev_entries: string;
    }>(
      `SELECT m.version, m.evaluated_at, m.kev_source,
              (SELECT count(*) FROM catalogue_advisories)::text AS advisories,
              (SELECT count(*) FROM catalogue_kev)::text AS kev_entries
         FROM catalogue_meta m`,
    );
    const row = rows[0];
    if (!row) return EMPTY_CATALOGUE_VERSION;
    return {
      version: row.version,
      evaluated_at: row.evaluated_at === null ? null : new Date(row.evaluated_at).toISOString(),
      kev_source: row.kev_source,
      advisories: Number(row.advisories),
      kev_entries: Number(row.kev_entries),
    };
  }

  async stamps(ids: readonly string[]): Promise<Map<string, { hash: string; last_modified: string | null }>> {
    const result = new Map<string, { hash: string; last_modified: string | null }>();
    for (let i = 0; i < ids.length; i += CHUNK) {
      const { rows } = await this.db.query<{ id: string; hash: string; last_modified: string | null }>(
        `SELECT id, hash, last_modified FROM catalogue_advisories WHERE id = ANY($1::text[])`,
        [ids.slice(i, i + CHUNK)],
      );
      for (const row of rows) result.set(row.id, { hash: row.hash, last_modified: row.last_modified });
    }
    return result;
  }

  async kevHash(): Promise<string | null> {
    const { rows } = await this.db.query<{ kev_hash: string | null }>('SELECT kev_hash FROM catalogue_meta');
    return rows[0]?.kev_hash ?? null;
  }

  async commit(change: CatalogueChange): Promise<CatalogueVersion> {
    await this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${LOCK})`);
      for await (const batch of change.upserts())
        for (let i = 0; i < batch.length; i += CHUNK) {
          const chunk = batch.slice(i, i + CHUNK);
          await tx.query(
            `INSERT INTO catalogue_advisories (id, hash, last_modified, doc)
           SELECT r.id, r.hash, r.last_modified, r.doc
             FROM jsonb_to_recordset($1::jsonb) AS r(id text, hash text, last_modified text, doc jsonb)
           ON CONFLICT (id) DO UPDATE SET hash = EXCLUDED.hash, last_modified = EXCLUDED.last_modified, doc = EXCLUDED.doc`,
            [
              JSON.stringify(
                chunk.map(({ advisory, hash }) => ({
                  id: advisory.id,
                  hash,
                  last_modified: advisory.last_modified,
                  doc: advisory,
                })),
              ),
            ],
          );
        }
      if (change.kev) {
        await tx.query('DELETE FROM catalogue_kev');
        for (let i = 0; i < change.kev.entries.length; i += CHUNK) {
          await tx.query(
            `INSERT INTO catalogue_kev (cve_id, doc)
             SELECT r.cve_id, r.doc FROM jsonb_to_recordset($1::jsonb) AS r(cve_id text, doc jsonb)
             ON CONFLICT (cve_id) DO UPDATE SET doc = EXCLUDED.doc`,
            [
              JSON.stringify(
                change.kev.entries.slice(i, i + CHUNK).map((doc) => ({ cve_id: doc.cve_id, doc })),
              ),
            ],
          );
        }
      }
      await tx.query(
        `INSERT INTO catalogue_meta (singleton, version, evaluated_at, kev_source, kev_hash)
         VALUES (true, 1, $1::timestamptz, $2::jsonb, $3::text)
         ON CONFLICT (singleton) DO UPDATE SET
           version = catalogue_meta.version + 1,
           evaluated_at = EXCLUDED.evaluated_at,
           kev_source = CASE WHEN $4::boolean THEN EXCLUDED.kev_source ELSE catalogue_meta.kev_source END,
           kev_hash = CASE WHEN $4::boolean THEN EXCLUDED.kev_hash ELSE catalogue_meta.kev_hash END`,
        [
          change.at.toISOString(),
          change.kev ? JSON.stringify(change.kev.source) : null,
          change.kev?.hash ?? null,
          change.kev !== null,
        ],
      );
    });
    return this.version();
  }

  async load(): Promise<CatalogueSnapshot> {
    const version = await this.version();
    const advisories = (
      await this.db.query<{ doc: Advisory }>('SELECT doc FROM catalogue_advisories ORDER BY id')
    ).rows.map((row) => row.doc);
    const kev =
      version.kev_source === null
        ? null
        : (await this.db.query<{ doc: KevEntry }>('SELECT doc FROM catalogue_kev ORDER BY cve_id')).rows.map(
            (row) => row.doc,
          );
    return { version, advisories, kev };
  }

  async replaceAssociations(
    observationIds: readonly string[],
    rows: readonly HostAssociation[],
  ): Promise<void> {
    if (observationIds.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < observationIds.length; i += CHUNK)
        await tx.query(`DELETE FROM ${ASSOCIATION_TABLE} WHERE observation_id = ANY($1::text[])`, [
          observationIds.slice(i, i + CHUNK),
        ]);
      for (let i = 0; i < rows.length; i += CHUNK)
        await tx.query(
          `INSERT INTO ${ASSOCIATION_TABLE} (observation_id, cve_id, kev, conditional)
           SELECT r.observation_id, r.cve_id, r.kev, r.conditional
             FROM jsonb_to_recordset($1::jsonb) AS r(observation_id text, cve_id text, kev boolean, conditional boolean)
           ON CONFLICT (observation_id, cve_id) DO UPDATE SET kev = EXCLUDED.kev, conditional = EXCLUDED.conditional`,
          [JSON.stringify(rows.slice(i, i + CHUNK))],
        );
    });
  }

  async clearAssociations(): Promise<void> {
    await this.db.query(`TRUNCATE ${ASSOCIATION_TABLE}`);
  }

  async associationCount(): Promise<number> {
    const { rows } = await this.db.query<{ count: string }>(
      `SELECT count(*)::text AS count FROM ${ASSOCIATION_TABLE}`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  async associationsOf(observationIds: readonly string[]): Promise<Map<string, HostAssociation[]>> {
    const result = new Map<string, HostAssociation[]>();
    if (observationIds.length === 0) return result;
    const { rows } = await this.db.query<HostAssociation>(
      `SELECT observation_id, cve_id, kev, conditional FROM ${ASSOCIATION_TABLE}
        WHERE observation_id = ANY($1::text[]) ORDER BY observation_id, cve_id`,
      [[...observationIds]],
    );
    for (const row of rows) {
      const list = result.get(row.observation_id);
      if (list) list.push(row);
      else result.set(row.observation_id, [row]);
    }
    return result;
  }

  async indexStamp(): Promise<IndexStamp | null> {
    const { rows } = await this.db.query<{ matcher_version: number; built_at: Date | string }>(
      'SELECT matcher_version, built_at FROM catalogue_index_stamp',
    );
    const row = rows[0];
    return row
      ? { matcher_version: row.matcher_version, built_at: new Date(row.built_at).toISOString() }
      : null;
  }

  async stampIndex(matcherVersion: number, at: Date): Promise<void> {
    await this.db.query(
      `INSERT INTO catalogue_index_stamp (singleton, matcher_version, built_at) VALUES (true, $1::integer, $2::timestamptz)
       ON CONFLICT (singleton) DO UPDATE SET matcher_version = EXCLUDED.matcher_version, built_at = EXCLUDED.built_at`,
      [matcherVersion, at.toISOString()],
    );
  }

  async close(): Promise<void> {
    // The database belongs to the storage that opened it.
  }
}

/** `cve:`/`kev:` as EXISTS conditions on the observation row (see SelectorMeaning). */
export function compileSelector(node: SelectorNode, context: SqlSelectorContext): string {
  const linked = (condition = ''): string =>
    `EXISTS (SELECT 1 FROM ${ASSOCIATION_TABLE} AS a WHERE a.observation_id = ${context.row}.id${condition})`;
  const meaning = selectorMeaning(node.selector, node.value);
  switch (meaning.kind) {
    case 'cve':
      return linked(` AND a.cve_id = ${context.bind(meaning.id, 'text')}`);
    case 'cve-year':
      // A range on the C-collated key: `CVE-2021-` up to (not including) `CVE-2021.` ('.' follows '-').
      return linked(
        ` AND a.cve_id >= ${context.bind(`CVE-${meaning.year}-`, 'text')} AND a.cve_id < ${context.bind(`CVE-${meaning.year}.`, 'text')}`,
      );
    case 'cve-any':
      return linked();
    case 'kev':
      return meaning.listed
        ? linked(' AND a.kev')
        : `(${linked()} AND NOT ${linked(' AND a.kev IS NOT FALSE')})`;
  }
}
