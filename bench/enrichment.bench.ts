/**
 * The computed enrichment path at NVD scale (issue 16, goal 8; ADR 105), in memory (no database): the synthetic
 * NVD-shaped catalogue's pages (BENCH_NVD_DIR, generated there when absent: BENCH_NVD_ADVISORIES, default 250,000)
 * and the CISA KEV file loaded into a matcher without its memo, and the 5,000 generated hosts' CPEs evaluated
 * one by one (`evaluateCpes([cpe])`: parse + match + findings with KEV), every evaluation computed.
 *
 * The baseline is the previous matcher in the same process: BENCH_PREVIOUS_MATCHER names a build of an earlier
 * src/catalogue/domain/matching.js (e.g. `git archive main src/catalogue/domain | tar -x -C DIR` then
 * `npx swc DIR/src -d DIR/dist --config-file .swcrc`). The two are measured alternately (BENCH_ENRICH_ROUNDS rounds
 * of BENCH_ENRICH_MS each), their load time and retained heap reported, and their answers compared on every
 * distinct host CPE and on names at, around and between the bounds of the products hosts run: any difference
 * fails the bench. Without BENCH_PREVIOUS_MATCHER the current matcher is measured alone, beside itself with the
 * memo on.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Advisory, CatalogueVersion, KevEntry } from '../src/catalogue/domain/advisory.js';
import { CatalogueMatcher } from '../src/catalogue/domain/matching.js';
import { parseCpe, tryParseCpe } from '../src/catalogue/domain/cpe.js';
import { collectCatalogueFiles, readCatalogueFile } from '../src/catalogue/import/parse-catalogue-files.js';
import { generateRecords } from '../src/search/data/generator.js';
import { generateNvdCatalogue } from './nvd-catalogue-generator.js';
import type { Measurement } from './bench-support.js';

const DATA = join(process.cwd(), '..', 'shared', 'data');

/** What the bench needs of a matcher, old or new. */
interface Matcher {
  readonly advisoryCount: number;
  evaluateCpes(cpes: readonly string[]): unknown[];
  evaluateTarget(
    target: ReturnType<typeof parseCpe>,
    observed: readonly ReturnType<typeof parseCpe>[],
  ): unknown;
  associationsOf(cpes: readonly string[]): unknown[];
}
type MatcherClass = new (
  advisories: Iterable<Advisory>,
  kev: Iterable<KevEntry> | null,
  version: CatalogueVersion,
  options?: { readonly memoEntries?: number },
) => Matcher;

export async function benchEnrichment(): Promise<Measurement[]> {
  const count = Number(process.env.BENCH_NVD_ADVISORIES ?? 250_000);
  const given = process.env.BENCH_NVD_DIR;
  const pages = given ?? mkdtempSync(join(tmpdir(), 'bench-enrich-'));
  const rounds = Number(process.env.BENCH_ENRICH_ROUNDS ?? 3);
  const roundMs = Number(process.env.BENCH_ENRICH_MS ?? 3000);
  try {
    if (!existsSync(join(pages, 'nvdcve-2.0-00000.json'))) {
      process.stderr.write(
        `generating ${count.toLocaleString('en-US')} synthetic NVD advisories in ${pages}…\n`,
      );
      generateNvdCatalogue(pages, { count, seed: 'nvd', templates: join(DATA, 'nvd') });
    }
    const advisories = new Map<string, Advisory>();
    let kev: KevEntry[] | null = null;
    for (const file of await collectCatalogueFiles([pages, join(DATA, 'kev')])) {
      const parsed = await readCatalogueFile(file);
      for (const advisory of parsed.advisories) advisories.set(advisory.id, advisory);
      if (parsed.kev) kev = [...parsed.kev.entries];
    }
    const version: CatalogueVersion = {
      version: 1,
      evaluated_at: null,
      kev_source: null,
      advisories: advisories.size,
      kev_entries: kev?.length ?? 0,
    };
    const cpes: string[] = [];
    for (const record of generateRecords('hosts', { count: 5000, seed: 'catalogue-bench', now: new Date() }))
      for (const cpe of (record as { cpe?: string[] }).cpe ?? []) cpes.push(cpe);
    const parsedCpes = cpes.map((cpe) => parseCpe(cpe));

    const previousPath = process.env.BENCH_PREVIOUS_MATCHER;
    const Previous = previousPath
      ? ((await import(pathToFileURL(previousPath).href)) as { CatalogueMatcher: MatcherClass })
          .CatalogueMatcher
      : null;
    // The previous build has its own cpe.js (its own ANY and NA symbols): its targets are parsed by it.
    const previousParse = previousPath
      ? (
          (await import(pathToFileURL(join(previousPath, '..', 'cpe.js')).href)) as {
            parseCpe: typeof parseCpe;
          }
        ).parseCpe
      : parseCpe;
    const previousCpes = cpes.map((cpe) => previousParse(cpe));
    const build = (Matcher: MatcherClass, memoEntries: number) =>
      loadMeasured(() => new Matcher(advisories.values(), kev, version, { memoEntries }));
    const previous = Previous ? build(Previous, 0) : null;
    const current = build(CatalogueMatcher as unknown as MatcherClass, 0);
    const remembering = previous ? null : build(CatalogueMatcher as unknown as MatcherClass, 10_000);
    process.stderr.write(
      `  ${advisories.size.toLocaleString('en-US')} advisories; matcher loaded in ${current.seconds.toFixed(1)} s, ` +
        `${mebibytes(current.retained)} MiB retained` +
        (previous
          ? `; previous ${previous.seconds.toFixed(1)} s, ${mebibytes(previous.retained)} MiB\n`
          : '\n'),
    );

    let compared = 0;
    if (previous) compared = compareAnswers(previous.matcher, current.matcher, cpes, advisories.values());

    const enrich = (matcher: Matcher) => (i: number) => matcher.evaluateCpes([cpes[i % cpes.length]!]);
    const alone = (matcher: Matcher, parsed: readonly ReturnType<typeof parseCpe>[]) => (i: number) => {
      const cpe = parsed[i % parsed.length]!;
      matcher.evaluateTarget(cpe, [cpe]);
    };
    const baselineMatcher = previous?.matcher ?? remembering!.matcher;
    const rates = { current: [] as number[], baseline: [] as number[], currentAlone: [] as number[] };
    const baselineAlone: number[] = [];
    for (let round = 0; round < rounds; round++) {
      rates.baseline.push(rateOf(enrich(baselineMatcher), roundMs));
      rates.current.push(rateOf(enrich(current.matcher), roundMs));
      baselineAlone.push(rateOf(alone(baselineMatcher, previousCpes), roundMs));
      rates.currentAlone.push(rateOf(alone(current.matcher, parsedCpes), roundMs));
      process.stderr.write(
        `  round ${round + 1}: enrichment ${Math.round(rates.current.at(-1)!)}/s against ${Math.round(rates.baseline.at(-1)!)}/s; ` +
          `matcher alone ${Math.round(rates.currentAlone.at(-1)!)}/s against ${Math.round(baselineAlone.at(-1)!)}/s\n`,
      );
    }
    const enrichment = median(rates.current);
    const baseline = median(rates.baseline);
    const target = `enrichment, every evaluation computed (${advisories.size.toLocaleString('en-US')} synthetic NVD advisories, in memory, ${new Set(cpes).size} distinct of ${cpes.length} host CPEs)`;
    const baselineName = previous
      ? 'the previous matcher without its memo, measured alternately in the same process'
      : 'the same matcher with its memo (every name remembered)';
    const measurements: Measurement[] = [
      {
        target,
        name: `CPE enrichment evaluations/s of 5,000 hosts' CPEs without the memo (parse + match + findings with KEV), median of ${rounds} rounds`,
        value: Math.round(enrichment),
        unit: 'evaluations/s',
        baseline: Math.round(baseline),
        baselineName,
        ratio: Math.round((enrichment / baseline) * 100) / 100,
      },
      {
        target,
        name: `the matcher alone without the memo (parsed CPE in, target result out), median of ${rounds} rounds`,
        value: Math.round(median(rates.currentAlone)),
        unit: 'evaluations/s',
        baseline: Math.round(median(baselineAlone)),
        baselineName,
        ratio: Math.round((median(rates.currentAlone) / median(baselineAlone)) * 100) / 100,
      },
      {
        target,
        name: 'loading the matcher (compiling and indexing the parsed advisories)',
        value: Math.round(current.seconds * 10) / 10,
        unit: 's',
        ...(previous
          ? { baseline: Math.round(previous.seconds * 10) / 10, baselineName: 'the previous matcher' }
          : {}),
      },
      {
        target,
        name: 'heap the matcher retains (after a full GC; the parsed advisories excluded)',
        value: mebibytes(current.retained),
        unit: 'MiB',
        ...(previous ? { baseline: mebibytes(previous.retained), baselineName: 'the previous matcher' } : {}),
      },
    ];
    if (previous)
      measurements.push({
        target,
        name: 'answers compared equal with the previous matcher (evaluateCpes one and several names, associationsOf)',
        value: compared,
        unit: 'comparisons',
      });
    return measurements;
  } finally {
    if (!given) rmSync(pages, { recursive: true, force: true });
  }
}

/**
 * Compares the two matchers' answers: each distinct host CPE alone and beside the next one (a platform), with
 * the version left out (`*`) and not applicable (`-`), and names of the hosts' products at, just around and
 * between the version bounds and exact versions the catalogue gives them. Throws on the first difference.
 */
function compareAnswers(
  previous: Matcher,
  current: Matcher,
  cpes: readonly string[],
  advisories: Iterable<Advisory>,
): number {
  const distinct = [...new Set(cpes)];
  const products = new Set(distinct.map((raw) => raw.split(':').slice(3, 5).join(':')));
  const names = new Set<string>(distinct);
  const versions = new Map<string, Set<string>>();
  for (const advisory of advisories)
    for (const configuration of advisory.configurations)
      for (const node of configuration.nodes)
        for (const criterion of node.cpeMatch) {
          const parts = criterion.criteria.split(':');
          const product = `${parts[3]}:${parts[4]}`;
          if (!products.has(product)) continue;
          let set = versions.get(product);
          if (!set) versions.set(product, (set = new Set()));
          for (const bound of [
            parts[5],
            criterion.versionStartIncluding,
            criterion.versionStartExcluding,
            criterion.versionEndIncluding,
            criterion.versionEndExcluding,
          ])
            if (typeof bound === 'string' && bound !== '*' && bound !== '-') set.add(bound);
        }
  for (const raw of distinct) {
    const parts = raw.split(':');
    const named = (version: string) => [...parts.slice(0, 5), version, ...parts.slice(6)].join(':');
    names.add(named('*'));
    names.add(named('-'));
    const bounds = [...(versions.get(`${parts[3]}:${parts[4]}`) ?? [])].slice(0, 60);
    for (const bound of bounds) {
      names.add(named(bound));
      names.add(named(`${bound}.1`));
      names.add(named(`${bound}.0`));
      names.add(named(`${bound}-rc1`));
      names.add(named(`${bound}p1`));
    }
  }
  const list = [...names].filter((raw) => tryParseCpe(raw) !== null);
  let compared = 0;
  const expectEqual = (what: string, a: unknown, b: unknown) => {
    compared++;
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`the matchers answer ${what} differently:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
  };
  list.forEach((raw, i) => {
    const other = list[(i + 1) % list.length]!;
    expectEqual(`evaluateCpes([${raw}])`, previous.evaluateCpes([raw]), current.evaluateCpes([raw]));
    expectEqual(
      `evaluateCpes([${raw}, ${other}])`,
      previous.evaluateCpes([raw, other]),
      current.evaluateCpes([raw, other]),
    );
    expectEqual(`associationsOf([${raw}])`, previous.associationsOf([raw]), current.associationsOf([raw]));
  });
  process.stderr.write(
    `  ${compared.toLocaleString('en-US')} answers compared equal over ${list.length} names\n`,
  );
  return compared;
}

/** Builds after a full GC (when exposed: run with --expose-gc) and reports the time and the heap it keeps. */
function loadMeasured(build: () => Matcher): { matcher: Matcher; seconds: number; retained: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const started = performance.now();
  const matcher = build();
  const seconds = (performance.now() - started) / 1000;
  gc?.();
  return { matcher, seconds, retained: process.memoryUsage().heapUsed - before };
}

function rateOf(work: (i: number) => void, durationMs: number): number {
  for (let i = 0; i < 500; i++) work(i); // warm-up
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < durationMs) for (let k = 0; k < 50; k++) work(done++);
  return done / ((performance.now() - started) / 1000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const mebibytes = (bytes: number): number => Math.round(bytes / 2 ** 20);
