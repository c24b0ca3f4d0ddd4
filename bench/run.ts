import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { benchCredits } from './credits.bench.js';
import { benchSearch } from './search.bench.js';
import { benchCatalogue, benchCatalogueAtScale } from './catalogue.bench.js';
import { benchEnrichment } from './enrichment.bench.js';
import { benchPlatform } from './platform.bench.js';
import { benchExports } from './exports.bench.js';
import { benchExposure } from './exposure.bench.js';
import { benchAudit } from './audit.bench.js';
import { benchLoad } from './load.bench.js';
import { benchIdle } from './idle.bench.js';
import { benchCommits } from './commits.bench.js';
import { benchRebuild } from './rebuild.bench.js';
import { benchEmbeddedDefault } from './embedded-default.bench.js';
import { benchIngest } from './ingest.bench.js';
import { benchWhoisAgreement } from './whois-agreement.js';
import { benchCollectorFormats } from './collector-formats.bench.js';
import { benchFingerprints } from './fingerprints.bench.js';
import {
  formatMeasurements,
  pgliteTarget,
  postgresTarget,
  type BenchTarget,
  type Measurement,
} from './bench-support.js';

/**
 * `npm run bench`: every figure beside a baseline measured in the same run on the same database.
 * BENCH_EVENTS sets the event count (default 100,000). Results go to stdout and bench/results/latest.json.
 */
const events = Number(process.env.BENCH_EVENTS ?? 100_000);
const measurements: Measurement[] = [];

const only = process.env.BENCH_ONLY; // e.g. BENCH_ONLY=credits to run one part
const targets: Array<() => Promise<BenchTarget | null>> =
  only && only !== 'platform' ? [] : [pgliteTarget, postgresTarget];
for (const open of targets) {
  const target = await open();
  if (!target) continue;
  process.stderr.write(`benchmarking ${target.name} with ${events.toLocaleString('en-US')} events…\n`);
  try {
    measurements.push(...(await benchPlatform(target, events)));
  } finally {
    await target.dispose();
  }
}

const ledgerPairs = Number(process.env.BENCH_LEDGER_PAIRS ?? 5000);
for (const target of only && only !== 'credits' ? [] : (['pglite', 'postgres'] as const)) {
  process.stderr.write(
    `benchmarking the credit ledger on ${target} (${ledgerPairs} reservation+settlement pairs)…\n`,
  );
  measurements.push(...(await benchCredits(target, ledgerPairs)));
}

if (!only || only === 'search') {
  const hosts = Number(process.env.BENCH_SEARCH_HOSTS ?? 1_000_000);
  process.stderr.write(`benchmarking search over ${hosts.toLocaleString('en-US')} hosts…\n`);
  measurements.push(...(await benchSearch(hosts)));
}

if (!only || only === 'catalogue') {
  process.stderr.write('benchmarking CPE evaluations against the imported catalogue…\n');
  measurements.push(...(await benchCatalogue()));
  process.stderr.write('benchmarking the catalogue at NVD scale (import, enrichment, reindex)…\n');
  measurements.push(...(await benchCatalogueAtScale()));
}

if (!only || only === 'enrichment') {
  process.stderr.write('benchmarking computed enrichment at NVD scale (in memory, no memo)…\n');
  measurements.push(...(await benchEnrichment()));
}

if (!only || only === 'exports') {
  const hosts = Number(process.env.BENCH_EXPORT_HOSTS ?? 1_000_000);
  process.stderr.write(`benchmarking an export of ${hosts.toLocaleString('en-US')} hosts to gzip csv…\n`);
  measurements.push(...(await benchExports(hosts)));
}

if (!only || only === 'exposure') {
  const subjects = Number(process.env.BENCH_EXPOSURE_SUBJECTS ?? 60_000);
  process.stderr.write(`benchmarking an exposure scope of ${subjects.toLocaleString('en-US')} services…\n`);
  measurements.push(...(await benchExposure(subjects)));
}

if (!only || only === 'audit') {
  const auditEvents = Number(process.env.BENCH_AUDIT_EVENTS ?? 200_000);
  process.stderr.write(
    `benchmarking the audit index and as_of over ${auditEvents.toLocaleString('en-US')} events…\n`,
  );
  measurements.push(...(await benchAudit(auditEvents)));
}

if (!only || only === 'load') {
  process.stderr.write('benchmarking the service under concurrent load beside hand-written SQL…\n');
  measurements.push(...(await benchLoad()));
}

if (!only || only === 'idle') {
  process.stderr.write(
    'benchmarking an idle service on the server (commits/s and CPU, with and without LISTEN)…\n',
  );
  measurements.push(...(await benchIdle()));
}

if (!only || only === 'commits') {
  const searches = Number(process.env.BENCH_COMMITS_SEARCHES ?? 100);
  process.stderr.write(`benchmarking database commits per search (${searches} sequential searches)…\n`);
  measurements.push(...(await benchCommits(searches)));
}

if (!only || only === 'rebuild') {
  const rebuildEvents = Number(process.env.BENCH_REBUILD_EVENTS ?? 50_000);
  const target = await postgresTarget();
  if (target) {
    process.stderr.write(
      `benchmarking projections rebuild --all over ${rebuildEvents.toLocaleString('en-US')} events…\n`,
    );
    try {
      measurements.push(...(await benchRebuild(target, rebuildEvents)));
    } finally {
      await target.dispose();
    }
  }
}

if (!only || only === 'embedded') {
  process.stderr.write('benchmarking the embedded default: PGlite against the embedded PostgreSQL server…\n');
  measurements.push(...(await benchEmbeddedDefault()));
}

if (!only || only === 'whois') {
  process.stderr.write('measuring WHOIS parsing agreement with python-whois on the shared samples…\n');
  measurements.push(...benchWhoisAgreement());
}

if (!only || only === 'collector-formats') {
  const lines = Number(process.env.BENCH_COLLECTOR_LINES ?? 50_000);
  process.stderr.write(
    `benchmarking zgrab2 lines → records (${lines.toLocaleString('en-US')} lines a sample)…\n`,
  );
  measurements.push(...benchCollectorFormats(lines));
}

if (!only || only === 'fingerprints') {
  process.stderr.write('benchmarking Recog fingerprint matches beside one plain RegExp…\n');
  measurements.push(...benchFingerprints());
}

if (!only || only === 'ingest') {
  const records = Number(process.env.BENCH_INGEST_RECORDS ?? 1_000_000);
  process.stderr.write(
    `benchmarking data import of ${records.toLocaleString('en-US')} zgrab2 records with fingerprinting…\n`,
  );
  measurements.push(...(await benchIngest(records)));
}

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
process.stdout.write(`\nMachine: ${machine}\n\n${formatMeasurements(measurements)}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  'bench/results/latest.json',
  JSON.stringify({ at: new Date().toISOString(), machine, events, measurements }, null, 2),
);
