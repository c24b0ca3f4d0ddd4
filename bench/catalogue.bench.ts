/**
 * CPE evaluations per second against the full imported catalogue (../shared/data: NVD records and the CISA KEV
 * catalogue), beside a naive baseline measured in the same run: scanning every configuration of every advisory
 * for each CPE instead of the matcher's vendor:product index. The CPEs are the software identities the demo
 * generator produces (a realistic mix of matching, non-matching and unknown products).
 */
import { join } from 'node:path';
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
  const matcher = new CatalogueMatcher(advisories.values(), kev, {
    version: 1,
    evaluated_at: null,
    kev_source: null,
    advisories: advisories.size,
    kev_entries: kev?.length ?? 0,
  });
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
