/**
 * A synthetic vulnerability catalogue shaped like the real NVD, for measuring the catalogue at scale (issue 16,
 * goal 8). The shape comes from the real NVD CVE API 2.0 records in ../shared/data/nvd, read at generation time
 * (never copied into the project): each synthetic advisory takes one real record as its template (its
 * configurations with their operators, negations, version ranges and exact versions, its CVSS metrics and
 * weaknesses) and renames its vendor:product pairs. A few keep their real name (so hosts running nginx, OpenSSH or
 * Apache meet a realistic number of advisories); the rest are drawn from a Zipf-distributed universe of synthetic
 * products (a few products with thousands of advisories, a long tail with one or two, as in the NVD). Three in ten
 * of the 2024–2025 advisories are "Awaiting Analysis" without configurations, as the NVD's backlog is.
 *
 * Written as NVD API 2.0 pages ({resultsPerPage, startIndex, totalResults, format, version, timestamp,
 * vulnerabilities: [{cve}]}), 2,000 records a file. Deterministic: the same seed and count give the same bytes.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cyrb128 } from '../src/search/data/generator/random.js';

export const NVD_PAGE_SIZE = 2000;

export interface NvdGeneratorOptions {
  readonly count: number;
  readonly seed: string;
  /** Folder holding the real NVD records used as templates. */
  readonly templates: string;
  readonly pageSize?: number;
  /** Share of product references that keep their real vendor:product (default 0.01). */
  readonly keepRealProduct?: number;
  /** Size of the synthetic product universe (default 60,000). */
  readonly products?: number;
}

export interface NvdGeneratorReport {
  readonly files: number;
  readonly advisories: number;
  readonly bytes: number;
  readonly configurations: number;
  readonly cpeMatches: number;
  readonly awaitingAnalysis: number;
  readonly distinctProducts: number;
  /** Advisories of the product named most often, and of the tenth. */
  readonly busiestProducts: ReadonlyArray<{ readonly product: string; readonly advisories: number }>;
}

type Json = Record<string, unknown>;

// A vendor or product in a criteria string as JSON text: a CPE escape is `\\` and one character there (e.g. the
// escaped colon of `product\\:_connector`).
const COMPONENT = String.raw`((?:\\\\.|[^:\\])+)`;
const CRITERIA_PRODUCT = new RegExp(String.raw`"cpe:2\.3:[aho]:${COMPONENT}:${COMPONENT}:`, 'g');
const CRITERIA_PART_PRODUCT = new RegExp(String.raw`"cpe:2\.3:([aho]):${COMPONENT}:${COMPONENT}:`, 'g');

interface Template {
  readonly configurations: Json[];
  readonly metrics: unknown;
  readonly weaknesses: unknown;
  readonly products: readonly string[];
  readonly cpeMatches: number;
}

/** sfc32 seeded from the text: a fast, well-mixed deterministic stream. */
function randomStream(seed: string): () => number {
  let [a, b, c, d] = cyrb128(seed);
  return () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function loadTemplates(folder: string): Template[] {
  const templates: Template[] = [];
  for (const name of readdirSync(folder).sort()) {
    if (!name.endsWith('.json')) continue;
    const record = JSON.parse(readFileSync(join(folder, name), 'utf8')) as Json;
    const configurations = Array.isArray(record.configurations) ? (record.configurations as Json[]) : [];
    if (configurations.length === 0) continue; // the awaiting-analysis shape is generated on its own
    const products = new Set<string>();
    for (const criteria of JSON.stringify(configurations).matchAll(CRITERIA_PRODUCT))
      products.add(`${criteria[1]}:${criteria[2]}`);
    templates.push({
      configurations,
      metrics: record.metrics ?? {},
      weaknesses: record.weaknesses ?? [],
      products: [...products],
      cpeMatches: JSON.stringify(configurations).split('"criteria"').length - 1,
    });
  }
  if (templates.length === 0) throw new Error(`no NVD records with configurations in ${folder}`);
  return templates;
}

/** Cumulative Zipf–Mandelbrot weights (rank r weighs 1/(r+q)^s): a heavy head and a long tail. */
function zipf(size: number, s: number, q: number): Float64Array {
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) {
    sum += 1 / Math.pow(r + 1 + q, s);
    cumulative[r] = sum;
  }
  for (let r = 0; r < size; r++) cumulative[r]! /= sum;
  return cumulative;
}

function draw(cumulative: Float64Array, u: number): number {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (cumulative[mid]! < u) low = mid + 1;
    else high = mid;
  }
  return low;
}

// NVD publications per year grow steeply (about 2,000 a year before 2005, about 40,000 in 2024).
const YEAR_WEIGHTS: ReadonlyArray<readonly [number, number]> = [
  [1999, 1500], [2000, 1200], [2001, 1700], [2002, 2400], [2003, 1500], [2004, 2700], [2005, 4900],
  [2006, 7000], [2007, 6500], [2008, 7000], [2009, 5000], [2010, 5000], [2011, 4600], [2012, 5300],
  [2013, 5200], [2014, 7900], [2015, 6500], [2016, 6400], [2017, 14600], [2018, 16500], [2019, 17300],
  [2020, 18300], [2021, 20100], [2022, 25000], [2023, 29000], [2024, 40000], [2025, 30000],
]; // prettier-ignore

const SEVERITY_WORDS = ['buffer overflow', 'SQL injection', 'cross-site scripting', 'path traversal',
  'use-after-free', 'improper authentication', 'server-side request forgery', 'deserialization of untrusted data',
  'integer overflow', 'race condition', 'out-of-bounds read', 'command injection']; // prettier-ignore

const hex = (random: () => number, length: number): string => {
  let text = '';
  for (let i = 0; i < length; i++) text += '0123456789ABCDEF'[Math.floor(random() * 16)];
  return text;
};

/** Writes the pages into `out` (created when missing) and returns what was written. */
export function generateNvdCatalogue(out: string, options: NvdGeneratorOptions): NvdGeneratorReport {
  const templates = loadTemplates(options.templates);
  const pageSize = options.pageSize ?? NVD_PAGE_SIZE;
  const keepReal = options.keepRealProduct ?? 0.01;
  const universe = options.products ?? 60_000;
  const random = randomStream(`nvd:${options.seed}`);
  // The sample is famous CVEs, whose configurations are larger than the NVD's average (log4j's has 408 criteria):
  // a template is drawn with weight 1/sqrt(its criteria), which brings the mean near the NVD's few per advisory.
  const templateWeights = new Float64Array(templates.length);
  let weightSum = 0;
  templates.forEach((template, i) => {
    weightSum += 1 / Math.sqrt(Math.max(1, template.cpeMatches));
    templateWeights[i] = weightSum;
  });
  for (let i = 0; i < templates.length; i++) templateWeights[i]! /= weightSum;
  const products = zipf(universe, 1.05, 25);
  const yearTotal = YEAR_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
  // Ids: each year's share of the count, numbered from 1000 (unique, in publication order).
  const years: Array<{ year: number; until: number }> = [];
  let running = 0;
  for (const [year, weight] of YEAR_WEIGHTS) {
    running += weight;
    years.push({ year, until: Math.round((running / yearTotal) * options.count) });
  }
  mkdirSync(out, { recursive: true });
  const perProduct = new Map<string, number>();
  let bytes = 0;
  let files = 0;
  let configurationCount = 0;
  let cpeMatches = 0;
  let awaiting = 0;
  let yearIndex = 0;
  let sequence = 1000;
  const timestamp = '2025-08-25T00:00:00.000';
  for (let start = 0; start < options.count; start += pageSize) {
    const vulnerabilities: Json[] = [];
    for (let i = start; i < Math.min(options.count, start + pageSize); i++) {
      while (i >= years[yearIndex]!.until) {
        yearIndex++;
        sequence = 1000;
      }
      const year = years[yearIndex]!.year;
      const id = `CVE-${year}-${sequence++}`;
      const month = String(1 + Math.floor(random() * 12)).padStart(2, '0');
      const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
      const published = `${year}-${month}-${day}T${String(Math.floor(random() * 24)).padStart(2, '0')}:15:00.000`;
      const modifiedYear = Math.min(2025, year + Math.floor(random() * 4));
      const lastModified = `${modifiedYear}-${month}-${day}T18:${String(Math.floor(random() * 60)).padStart(2, '0')}:00.000`;
      const template = templates[draw(templateWeights, random())]!;
      const isAwaiting = year >= 2024 && random() < 0.3;
      const rename = new Map<string, string>();
      for (const product of template.products) {
        const name =
          random() < keepReal
            ? product
            : (() => {
                const rank = draw(products, random());
                return `vendor${rank.toString(36)}:product${rank.toString(36)}`;
              })();
        rename.set(product, name);
      }
      let configurations: Json[] = [];
      if (isAwaiting) awaiting++;
      else {
        const text = JSON.stringify(template.configurations).replace(
          CRITERIA_PART_PRODUCT,
          (_match, part: string, vendor: string, product: string) =>
            `"cpe:2.3:${part}:${rename.get(`${vendor}:${product}`) ?? `${vendor}:${product}`}:`,
        );
        configurations = (JSON.parse(text) as Json[]).map((configuration) => ({
          ...configuration,
          nodes: (configuration.nodes as Json[]).map((node) => ({
            ...node,
            cpeMatch: (node.cpeMatch as Json[]).map((match) => ({
              ...match,
              matchCriteriaId: `${hex(random, 8)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 4)}-${hex(random, 12)}`,
            })),
          })),
        }));
        configurationCount += configurations.length;
        const named = new Set<string>();
        for (const configuration of configurations)
          for (const node of configuration.nodes as Json[])
            for (const match of node.cpeMatch as Json[]) {
              cpeMatches++;
              const parts = String(match.criteria).split(':');
              named.add(`${parts[3]}:${parts[4]}`);
            }
        for (const product of named) perProduct.set(product, (perProduct.get(product) ?? 0) + 1);
      }
      const weakness = SEVERITY_WORDS[Math.floor(random() * SEVERITY_WORDS.length)]!;
      const subject = [...rename.values()][0] ?? 'vendor0:product0';
      vulnerabilities.push({
        cve: {
          id,
          sourceIdentifier: 'cve@mitre.org',
          published,
          lastModified: lastModified < published ? published : lastModified,
          vulnStatus: isAwaiting ? 'Awaiting Analysis' : random() < 0.6 ? 'Analyzed' : 'Modified',
          cveTags: [],
          descriptions: [
            {
              lang: 'en',
              value: `Synthetic advisory ${id}: a ${weakness} in ${subject.replace(':', ' ')} allows a remote attacker to affect confidentiality, integrity or availability via crafted input (generated for benchmarks; not a real vulnerability).`,
            },
          ],
          metrics: isAwaiting ? {} : template.metrics,
          weaknesses: isAwaiting ? [] : template.weaknesses,
          configurations,
          references: Array.from({ length: 2 + Math.floor(random() * 6) }, (_, k) => ({
            url: `https://example.org/advisories/${id}/${k}`,
            source: 'cve@mitre.org',
            tags: k === 0 ? ['Vendor Advisory'] : ['Third Party Advisory'],
          })),
        },
      });
    }
    const page = {
      resultsPerPage: vulnerabilities.length,
      startIndex: start,
      totalResults: options.count,
      format: 'NVD_CVE',
      version: '2.0',
      timestamp,
      vulnerabilities,
    };
    const text = JSON.stringify(page);
    writeFileSync(join(out, `nvdcve-2.0-${String(files).padStart(5, '0')}.json`), text);
    bytes += Buffer.byteLength(text);
    files++;
  }
  const busiest = [...perProduct.entries()].sort((a, b) => b[1] - a[1]);
  return {
    files,
    advisories: options.count,
    bytes,
    configurations: configurationCount,
    cpeMatches,
    awaitingAnalysis: awaiting,
    distinctProducts: perProduct.size,
    busiestProducts: [0, 1, 9, 99, 999]
      .filter((rank) => rank < busiest.length)
      .map((rank) => ({ product: busiest[rank]![0], advisories: busiest[rank]![1] })),
  };
}
