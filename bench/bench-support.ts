import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PgliteDatabase } from '../src/platform/database/pglite-database.js';
import { PostgresDatabase } from '../src/platform/database/postgres-database.js';
import type { SqlDatabase } from '../src/platform/database/sql-database.js';

/** A figure, and when there is one, the baseline measured in the same run on the same database. */
export interface Measurement {
  readonly target: string;
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
  readonly baselineName?: string;
  /** value / baseline for throughputs (higher is better), as measured. */
  readonly ratio?: number;
}

export interface BenchTarget {
  readonly name: string;
  readonly db: SqlDatabase;
  /** The database's URL, for a service opened on it (server targets only). */
  readonly url?: string;
  dispose(): Promise<void>;
}

/** PGlite in a fresh temporary directory (on disk, as the service runs it). */
export async function pgliteTarget(): Promise<BenchTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-pglite-'));
  const db = await PgliteDatabase.open(dir);
  return {
    name: 'PGlite (embedded)',
    db,
    dispose: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database on the PostgreSQL server (BENCH_DATABASE_URL, default the local test server). */
export async function postgresTarget(): Promise<BenchTarget | null> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
  } catch (error) {
    process.stderr.write(
      `PostgreSQL server not reachable at ${url}: ${String(error)}; server figures skipped\n`,
    );
    return null;
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = PostgresDatabase.fromUrl(target.toString(), 60);
  return {
    name: 'PostgreSQL 15 server',
    db,
    url: target.toString(),
    dispose: async () => {
      await db.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

export function formatMeasurements(measurements: readonly Measurement[]): string {
  const rows = measurements.map((m) => [
    m.target,
    m.name,
    `${m.value.toLocaleString('en-US')} ${m.unit}`,
    m.baseline !== undefined ? `${m.baseline.toLocaleString('en-US')} ${m.unit} (${m.baselineName})` : '',
    m.ratio !== undefined ? `${(m.ratio * 100).toFixed(0)}%` : '',
  ]);
  const header = ['target', 'measurement', 'value', 'baseline (same run)', 'ratio'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
