/**
 * CPE evaluations per second against the full imported catalogue (../shared/data: NVD records and the CISA KEV
 * catalogue), beside a naive baseline measured in the same run: scanning every configuration of every advisory
 * for each CPE instead of the matcher's vendor:product index. The CPEs are the software identities the demo
 * generator produces (a realistic mix of matching, non-matching and unknown products).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CatalogueService } from '../src/catalogue/catalogue-service.js';
import { PostgresCatalogueStore } from '../src/catalogue/store/postgres-catalogue-store.js';
import { PostgresDatabase } from '../src/platform/database/postgres-database.js';
import { writeGenerated } from '../src/search/data/demo-corpus.js';
import { PostgresObservationIndex } from '../src/search/observation-index/postgres-observation-index.js';
import { generateNvdCatalogue } from './nvd-catalogue-generator.js';
import { CatalogueMatcher } from '../src/catalogue/domain/matching.js';
import { parseCpe } from '../src/catalogue/domain/cpe.js';
import { collectCatalogueFiles, readCatalogueFile } from '../src/catalogue/import/parse-catalogue-files.js';
import type { Advisory, KevEntry } from '../src/catalogue/domain/advisory.js';
import { generateRecords } from '../src/search/data/generator.js';
import type { Measurement } from './bench-support.js';

const DATA = join(process.cwd(), '..', 'shared', 'data');

export async function benchCatalogue(durationMs = 2000): Promise<Measurement[]> {
  const files = await collectCatalogueFiles([join(DATA, 'nvd'), join(DATA, 'kev')]);
  const advisories = new Map<string, Advisory>();
  let kev: KevEntry[] | null = null;
  for (const file of files) {
    const parsed = await readCatalogueFile(file);
    for (const advisory of parsed.advisories) {
      const previous = advisories.get(advisory.id);
      if (!previous || (advisory.last_modified ?? '') > (previous.last_modified ?? ''))
        advisories.set(advisory.id, advisory);
    }
    if (parsed.kev) kev = [...parsed.kev.entries];
  }
  // Without the memo: these figures compare the product index with the scan, every evaluation computed.
  const matcher = new CatalogueMatcher(
    advisories.values(),
    kev,
    {
      version: 1,
      evaluated_at: null,
      kev_source: null,
      advisories: advisories.size,
      kev_entries: kev?.length ?? 0,
    },
    { memoEntries: 0 },
  );
  const cpes: string[] = [];
  for (const record of generateRecords('hosts', { count: 5000, seed: 'catalogue-bench', now: new Date() }))
    for (const cpe of (record as { cpe?: string[] }).cpe ?? []) cpes.push(cpe);
  const parsed = cpes.map((cpe) => parseCpe(cpe));

  const rate = (work: (i: number) => void): number => {
    for (let i = 0; i < 2000; i++) work(i); // warm-up
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < durationMs) {
      for (let k = 0; k < 200; k++) work(done++);
    }
    return done / ((performance.now() - started) / 1000);
  };
  const indexed = rate((i) => {
    const cpe = parsed[i % parsed.length]!;
    matcher.evaluateTarget(cpe, [cpe]);
  });
  const scan = rate((i) => {
    matcher.evaluateByScan(parsed[i % parsed.length]!);
  });
  const full = rate((i) => {
    matcher.evaluateCpes([cpes[i % cpes.length]!]);
  });
  const target = `catalogue (${advisories.size} NVD advisories, ${kev?.length ?? 0} KEV entries)`;
  return [
    {
      target,
      name: 'CPE evaluations/s, product-indexed matcher vs scanning every configuration',
      value: Math.round(indexed),
      unit: 'evaluations/s',
      baseline: Math.round(scan),
      baselineName: 'naive scan over every configuration of every advisory',
      ratio: Math.round((indexed / scan) * 10) / 10,
    },
    {
      target,
      name: 'CPE enrichment evaluations/s (parse + match + findings with KEV) vs naive scan',
      value: Math.round(full),
      unit: 'evaluations/s',
      baseline: Math.round(scan),
      baselineName: 'naive scan over every configuration of every advisory',
      ratio: Math.round((full / scan) * 10) / 10,
    },
  ];
}

/**
 * The catalogue at NVD scale (issue 16, goal 8), on the PostgreSQL server (BENCH_DATABASE_URL), each figure beside a
 * same-run baseline:
 * - `catalogue import` of a synthetic NVD-shaped catalogue (BENCH_NVD_ADVISORIES, default 250,000, as API 2.0
 *   pages of 2,000; BENCH_NVD_DIR reuses pages already generated) in advisories/s, beside reading and parsing the
 *   same files alone; the resident memory growth of each;
 * - enrichment of 5,000 generated hosts' CPEs against the imported catalogue (parse + match + findings with KEV),
 *   beside the matcher alone on the same CPEs;
 * - `catalogue reindex` of BENCH_NVD_HOSTS generated hosts (default 1,000,000) in hosts/s, beside the matcher
 *   alone computing the same associations in memory.
 */
export async function benchCatalogueAtScale(): Promise<Measurement[]> {
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const count = Number(process.env.BENCH_NVD_ADVISORIES ?? 250_000);
  const hostCount = Number(process.env.BENCH_NVD_HOSTS ?? 1_000_000);
  const given = process.env.BENCH_NVD_DIR;
  const pages = given ?? mkdtempSync(join(tmpdir(), 'bench-nvd-'));
  const measurements: Measurement[] = [];
  if (!given || !existsSync(join(pages, 'nvdcve-2.0-00000.json'))) {
    process.stderr.write(
      `generating ${count.toLocaleString('en-US')} synthetic NVD advisories in ${pages}…\n`,
    );
    const started = performance.now();
    const report = generateNvdCatalogue(pages, { count, seed: 'nvd', templates: join(DATA, 'nvd') });
    process.stderr.write(
      `  ${report.files} files, ${(report.bytes / 2 ** 20).toFixed(0)} MiB, ${report.cpeMatches.toLocaleString('en-US')} criteria, ` +
        `${report.distinctProducts.toLocaleString('en-US')} products in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
  const dbName = `bench_nvd_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const db = PostgresDatabase.fromUrl(url.toString(), 10);
  try {
    const target = `catalogue at NVD scale (${count.toLocaleString('en-US')} synthetic advisories, PostgreSQL server)`;

    // Baseline: reading and parsing the same files, nothing kept.
    const parsing = await withPeakMemory(async () => {
      let advisories = 0;
      for (const file of await collectCatalogueFiles([pages]))
        advisories += (await readCatalogueFile(file)).advisories.length;
      return advisories;
    });
    const parseRate = parsing.result / parsing.seconds;

    const store = new PostgresCatalogueStore(db);
    const observations = new PostgresObservationIndex(db, { selectors: store.sqlSelectors });
    await observations.init();
    await store.init();
    const service = new CatalogueService(store, { now: () => new Date() });
    const importing = await withPeakMemory(() => service.importPaths([pages, join(DATA, 'kev')]));
    const importRate = importing.result.advisories_read / importing.seconds;
    process.stderr.write(
      `  import: ${importing.result.advisories_added.toLocaleString('en-US')} added in ${importing.seconds.toFixed(1)} s; parse alone ${parsing.seconds.toFixed(1)} s\n`,
    );
    measurements.push(
      {
        target,
        name: '`catalogue import` advisories/s (survey + streamed commit) vs reading and parsing the files alone',
        value: Math.round(importRate),
        unit: 'advisories/s',
        baseline: Math.round(parseRate),
        baselineName: 'read + parse the same files',
        ratio: Math.round((importRate / parseRate) * 100) / 100,
      },
      {
        target,
        name: '`catalogue import` resident memory growth (peak) vs parsing the files alone',
        value: mebibytes(importing.peakGrowth),
        unit: 'MiB',
        baseline: mebibytes(parsing.peakGrowth),
        baselineName: 'read + parse the same files',
      },
    );

    const cpes: string[] = [];
    for (const record of generateRecords('hosts', { count: 5000, seed: 'catalogue-bench', now: new Date() }))
      for (const cpe of (record as { cpe?: string[] }).cpe ?? []) cpes.push(cpe);
    const parsedCpes = cpes.map((cpe) => parseCpe(cpe));

    // The same catalogue without the matcher's memo, first (then dropped: two NVD-sized matchers do not fit the
    // default heap): every evaluation computed, through the version-indexed criteria.
    const { coldAlone, coldEnrichment } = await (async () => {
      const snapshot = await store.load();
      const cold = new CatalogueMatcher(snapshot.advisories, snapshot.kev, snapshot.version, {
        memoEntries: 0,
      });
      return {
        coldAlone: rateOf((i) => {
          const cpe = parsedCpes[i % parsedCpes.length]!;
          cold.evaluateTarget(cpe, [cpe]);
        }),
        coldEnrichment: rateOf((i) => {
          cold.evaluateCpes([cpes[i % cpes.length]!]);
        }),
      };
    })();
    (globalThis as { gc?: () => void }).gc?.();

    // Enrichment: the matcher of the imported catalogue (loaded once, as the service caches it).
    const loadStarted = performance.now();
    const matcher = await service.matcher();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    process.stderr.write(
      `  matcher of ${matcher.advisoryCount} advisories loaded in ${loadSeconds.toFixed(1)} s\n`,
    );
    const alone = rateOf((i) => {
      const cpe = parsedCpes[i % parsedCpes.length]!;
      matcher.evaluateTarget(cpe, [cpe]);
    });
    const enrichment = rateOf((i) => {
      matcher.evaluateCpes([cpes[i % cpes.length]!]);
    });
    process.stderr.write(
      `  enrichment ${Math.round(enrichment)}/s (matcher alone ${Math.round(alone)}/s); without the memo ${Math.round(coldEnrichment)}/s (matcher alone ${Math.round(coldAlone)}/s); ${new Set(cpes).size} distinct of ${cpes.length} CPEs\n`,
    );
    measurements.push(
      {
        target,
        name: `CPE enrichment evaluations/s of 5,000 hosts' CPEs (parse + match + findings with KEV) vs the matcher alone`,
        value: Math.round(enrichment),
        unit: 'evaluations/s',
        baseline: Math.round(alone),
        baselineName: 'the product-indexed matcher alone (parsed CPE in, result out)',
        ratio: Math.round((enrichment / alone) * 100) / 100,
      },
      {
        target,
        name: `CPE enrichment evaluations/s of 5,000 hosts' CPEs without the matcher's memo (every evaluation computed) vs the matcher alone without it`,
        value: Math.round(coldEnrichment),
        unit: 'evaluations/s',
        baseline: Math.round(coldAlone),
        baselineName: 'the product-indexed matcher alone without the memo',
        ratio: Math.round((coldEnrichment / coldAlone) * 100) / 100,
      },
    );

    // Reindex: hosts written without associations, then `catalogue reindex`.
    process.stderr.write(`  loading ${hostCount.toLocaleString('en-US')} generated hosts…\n`);
    const loaded = await writeGenerated(observations, 'hosts', {
      count: hostCount,
      seed: '42',
      now: new Date(),
    });
    process.stderr.write(`  loaded in ${loaded.seconds.toFixed(1)} s\n`);
    const associateStarted = performance.now();
    let associationsInMemory = 0;
    for (const record of generateRecords('hosts', { count: hostCount, seed: '42', now: new Date() })) {
      const hostCpes = (record as { cpe?: unknown }).cpe;
      if (Array.isArray(hostCpes))
        associationsInMemory += matcher.associationsOf(hostCpes.filter((c) => typeof c === 'string')).length;
    }
    const inMemorySeconds = (performance.now() - associateStarted) / 1000;
    const reindexStarted = performance.now();
    const reindex = await service.reindex(observations);
    const reindexSeconds = (performance.now() - reindexStarted) / 1000;
    process.stderr.write(
      `  reindex: ${reindex.observations.toLocaleString('en-US')} hosts, ${reindex.associations.toLocaleString('en-US')} associations (in memory: ${associationsInMemory.toLocaleString('en-US')}) in ${reindexSeconds.toFixed(1)} s\n`,
    );
    const reindexRate = reindex.observations / reindexSeconds;
    const inMemoryRate = hostCount / inMemorySeconds;
    measurements.push({
      target,
      name: `\`catalogue reindex\` of ${hostCount.toLocaleString('en-US')} hosts (${reindexSeconds.toFixed(1)} s, ${reindex.associations.toLocaleString('en-US')} associations) hosts/s vs the matcher alone`,
      value: Math.round(reindexRate),
      unit: 'hosts/s',
      baseline: Math.round(inMemoryRate),
      baselineName: 'generating the same hosts and matching their CPEs in memory',
      ratio: Math.round((reindexRate / inMemoryRate) * 100) / 100,
    });
    return measurements;
  } finally {
    await db.close();
    const cleanup = new pg.Client({ connectionString: serverUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await cleanup.end();
    if (!given) rmSync(pages, { recursive: true, force: true });
  }
}

function rateOf(work: (i: number) => void, durationMs = 3000): number {
  for (let i = 0; i < 2000; i++) work(i); // warm-up
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) for (let k = 0; k < 200; k++) work(done++);
  return done / ((performance.now() - started) / 1000);
}

const mebibytes = (bytes: number): number => Math.round(bytes / 2 ** 20);

/** Runs the work after a full GC (when exposed), sampling the resident set every 50 ms. */
async function withPeakMemory<T>(
  work: () => Promise<T>,
): Promise<{ result: T; seconds: number; peakGrowth: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  const started = performance.now();
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, seconds: (performance.now() - started) / 1000, peakGrowth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}
