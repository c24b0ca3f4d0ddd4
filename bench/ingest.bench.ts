/**
 * `BENCH_ONLY=ingest npm run bench` (issue 17): BENCH_INGEST_RECORDS zgrab2 records (default 1,000,000) built from
 * the real samples in ../shared/data/zgrab2 with varied addresses and banners, imported by `data import`'s pipeline
 * (`importCollected`, format sniffed, fingerprinting on with the Recog databases in ../shared/data/recog) into the
 * service's storage, on the PostgreSQL server (BENCH_DATABASE_URL) and on the embedded default (the PostgreSQL 18
 * server the service starts in DATA_DIR). Beside each, in the same run on the same database: the same records
 * written by plain multi-row INSERTs of (id, jsonb) into a table of their own, batches of 1,000. Also the
 * process's resident memory growth during the import, and fingerprint matches/s alone over the same evidence.
 */
import { once } from 'node:events';
import {
  chmodSync,
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { serviceComposition } from '../src/composition/service-composition.js';
import { readRecogFiles } from '../src/fingerprints/fingerprint-service.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import type { SqlDatabase } from '../src/platform/database/sql-database.js';
import { ServiceContext } from '../src/platform/service-context.js';
import { CollectedRecordRefused } from '../src/search/data/collectors/collected.js';
import {
  checkedRecord,
  importCollected,
  totalImported,
} from '../src/search/data/collectors/collector-import.js';
import { zgrab2Format } from '../src/search/data/collectors/zgrab2.js';
import type { ObservationRecord } from '../src/search/domain/records.js';
import { postgresTarget, type Measurement } from './bench-support.js';

/** The samples beside the project (`../shared/data`, as the tests find them); SHARED_DATA names another place. */
const SHARED = process.env.SHARED_DATA ?? resolve(process.cwd(), '..', 'shared', 'data');
const SAMPLES = join(SHARED, 'zgrab2');
const RECOG = join(SHARED, 'recog');

const SSH_VERSIONS = [
  'OpenSSH_7.2p2 Ubuntu-4ubuntu2.4',
  'OpenSSH_8.2p1 Ubuntu-4ubuntu0.5',
  'OpenSSH_9.6',
  'OpenSSH_6.6.1p1 Ubuntu-2ubuntu2.13',
  'OpenSSH_8.9p1 Ubuntu-3ubuntu0.6',
];
const SERVERS = [
  'Apache/2.4.49 (Unix)',
  'nginx/1.18.0 (Ubuntu)',
  'Apache/2.4.41 (Ubuntu)',
  'lighttpd/1.4.35',
  'Microsoft-IIS/10.0',
  'nginx',
];

/** One zgrab2 line per record: the samples in turn, each with a fresh address and a varied banner. */
export async function writeZgrab2Corpus(file: string, records: number): Promise<void> {
  const ssh = JSON.parse(readFileSync(join(SAMPLES, 'ssh-ssh.json'), 'utf8'));
  const http = JSON.parse(readFileSync(join(SAMPLES, 'http-http.json'), 'utf8'));
  const ftp = JSON.parse(readFileSync(join(SAMPLES, 'ftp-default.json'), 'utf8'));
  const out = createWriteStream(file);
  for (let i = 0; i < records; i++) {
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    let line: unknown;
    switch (i % 3) {
      case 0: {
        const software = SSH_VERSIONS[((i / 3) % SSH_VERSIONS.length) | 0]!;
        const sample = structuredClone(ssh);
        sample.ip = ip;
        sample.data.ssh.result.server_id = {
          ...sample.data.ssh.result.server_id,
          raw: `SSH-2.0-${software}`,
        };
        line = sample;
        break;
      }
      case 1: {
        const sample = structuredClone(http);
        sample.ip = ip;
        sample.data.http.result.response.headers.server = [SERVERS[((i / 3) % SERVERS.length) | 0]!];
        line = sample;
        break;
      }
      default: {
        const sample = structuredClone(ftp);
        sample.ip = ip;
        line = sample;
      }
    }
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** Peak resident memory while `work` runs, sampled every 50 ms. */
async function withPeakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, process.memoryUsage.rss()) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * The baseline: the same records (parsed, identified and checked beforehand, outside the timing, a batch at a
 * time) written by plain multi-row INSERTs of (id, record as jsonb) into a table of their own, 1,000 a statement.
 */
async function plainInserts(db: SqlDatabase, file: string): Promise<number> {
  await db.query('DROP TABLE IF EXISTS bench_plain_hosts');
  await db.query('CREATE TABLE bench_plain_hosts (id text PRIMARY KEY, record jsonb NOT NULL)');
  const context = { seenAt: new Date().toISOString(), source: file };
  let batch: ObservationRecord[] = [];
  let elapsed = 0;
  let rows = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const started = performance.now();
    await db.query(
      'INSERT INTO bench_plain_hosts (id, record) SELECT * FROM unnest($1::text[], $2::jsonb[]) ' +
        'ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record',
      [batch.map((record) => record.id), batch.map((record) => JSON.stringify(record))],
    );
    elapsed += performance.now() - started;
    rows += batch.length;
    batch = [];
  };
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    for (const collected of zgrab2Format.records(line, context)) {
      if (collected instanceof CollectedRecordRefused || collected.dataset !== 'hosts') continue;
      const checked = checkedRecord(collected);
      if (checked.ok) batch.push(checked.record);
    }
    if (batch.length >= 1000) await flush();
  }
  await flush();
  await db.query('DROP TABLE bench_plain_hosts');
  return rows / (elapsed / 1000);
}

interface IngestTarget {
  readonly name: string;
  readonly env: Record<string, string>;
  dispose(): Promise<void>;
}

async function ingestTargets(): Promise<IngestTarget[]> {
  const targets: IngestTarget[] = [];
  const server = await postgresTarget();
  if (server) {
    targets.push({ name: server.name, env: { DATABASE_URL: server.url! }, dispose: server.dispose });
  }
  targets.push({
    name: 'embedded default (PostgreSQL 18 server in DATA_DIR)',
    env: {},
    dispose: async () => undefined,
  });
  return targets;
}

export async function benchIngest(records: number): Promise<Measurement[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  // The embedded server runs as `postgres` when this runs as root: it must be able to enter the folder.
  chmodSync(work, 0o711);
  const measurements: Measurement[] = [];
  try {
    const corpus = join(work, 'zgrab2.ndjson');
    await writeZgrab2Corpus(corpus, records);
    process.stderr.write(
      `  wrote ${records.toLocaleString('en-US')} zgrab2 lines (${(statSync(corpus).size / 2 ** 20).toFixed(0)} MiB)\n`,
    );
    const recog = await readRecogFiles([RECOG]);
    for (const target of await ingestTargets()) {
      const dataDir = join(work, `data-${measurements.length}`);
      const context = await ServiceContext.open(
        loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'false', ...target.env }),
        { ...serviceComposition, serveSocket: false },
      );
      try {
        await context.fingerprints.import(recog);
        const identifier = await context.fingerprints.identifier();
        global.gc?.();
        const before = process.memoryUsage.rss();
        const started = performance.now();
        const { result: summary, peak } = await withPeakRss(() =>
          importCollected(context.observations, [corpus], {
            target: 'auto',
            identifier,
            batchSize: 1000,
            onProgress: (progress) => {
              if (progress.read % 100_000 === 0 && progress.read > 0)
                process.stderr.write(`  ${target.name}: ${progress.read.toLocaleString('en-US')} lines\n`);
            },
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        const imported = totalImported(summary.imported);
        const sql = context.storage.sql;
        const baseline = sql ? await plainInserts(sql, corpus) : undefined;
        const rate = Math.round(imported / seconds);
        measurements.push({
          target: target.name,
          name: `data import of ${records.toLocaleString('en-US')} zgrab2 lines with fingerprinting (${imported.toLocaleString('en-US')} records, ${summary.rejected} rejected, ${seconds.toFixed(1)} s)`,
          value: rate,
          unit: 'records/s',
          ...(baseline === undefined
            ? {}
            : {
                baseline: Math.round(baseline),
                baselineName: 'the same records by plain multi-row INSERTs',
                ratio: rate / baseline,
              }),
        });
        measurements.push({
          target: target.name,
          name: 'resident memory growth during the import (peak)',
          value: Math.round((peak - before) / 2 ** 20),
          unit: 'MiB',
        });
      } finally {
        await context.close();
        await target.dispose();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return measurements;
}
