/**
 * Reading catalogue files: NVD CVE API 2.0 JSON (one `cve` object, a `{ "cve": {...} }` wrapper, or the API's
 * `{ "vulnerabilities": [ { "cve": ... } ] }` page) and the CISA Known Exploited Vulnerabilities catalogue.
 * Every file is parsed and validated before anything is written: a malformed file is reported with its path and
 * the reason, and the import stops without touching the current catalogue.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type {
  Advisory,
  Configuration,
  ConfigurationNode,
  CpeCriterion,
  Cvss,
  KevEntry,
  KevSource,
} from '../domain/advisory.js';
import { CVE_ID } from '../domain/advisory.js';
import { InvalidCpeError, parseCpe } from '../domain/cpe.js';

export class MalformedCatalogueFile extends Error {
  override readonly name = 'MalformedCatalogueFile';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

export interface KevCatalogue {
  readonly source: KevSource;
  readonly entries: readonly KevEntry[];
}

export interface ParsedFile {
  readonly path: string;
  readonly advisories: readonly Advisory[];
  readonly kev: KevCatalogue | null;
  /** Size and SHA-256 of the file's bytes, when it was read from a file (the load event records them). */
  readonly content?: { readonly bytes: number; readonly sha256: string };
}

type Json = Record<string, unknown>;

/**
 * A CPE 2.3 string parseCpe accepts, by shape: part a, o, h or *, then ten non-empty components of escaped or
 * unescaped non-space characters. Anything it refuses goes through parseCpe, which accepts or explains.
 */
const PLAIN_CPE = /^cpe:2\.3:[aoh*](?::(?:\\[\s\S]|[^\\:\s])+){10}$/i;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Parses one file's content; throws MalformedCatalogueFile. */
export function parseCatalogueText(path: string, text: string): ParsedFile {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new MalformedCatalogueFile(path, `not valid JSON (${(error as Error).message})`);
  }
  const fail = (reason: string): never => {
    throw new MalformedCatalogueFile(path, reason);
  };
  if (!isObject(document)) return fail('expected a JSON object');
  if (
    Array.isArray(document.vulnerabilities) &&
    ('catalogVersion' in document || 'dateReleased' in document)
  ) {
    return { path, advisories: [], kev: parseKev(document, fail) };
  }
  if (Array.isArray(document.vulnerabilities)) {
    const advisories = document.vulnerabilities.map((item, i) => {
      if (!isObject(item) || !isObject(item.cve)) return fail(`vulnerabilities[${i}] has no cve object`);
      return parseCve(item.cve, (reason) => fail(`vulnerabilities[${i}]: ${reason}`));
    });
    return { path, advisories, kev: null };
  }
  if (isObject(document.cve)) return { path, advisories: [parseCve(document.cve, fail)], kev: null };
  if (typeof document.id === 'string') return { path, advisories: [parseCve(document, fail)], kev: null };
  return fail(
    'neither an NVD CVE record (an object with id and configurations, or {vulnerabilities:[{cve}]}) nor the CISA KEV catalogue',
  );
}

function parseCve(cve: Json, fail: (reason: string) => never): Advisory {
  const id = cve.id;
  if (typeof id !== 'string' || !CVE_ID.test(id))
    return fail(`id ${JSON.stringify(id)} is not a CVE identifier`);
  const configurations = cve.configurations ?? [];
  if (!Array.isArray(configurations)) return fail(`${id}: configurations is not an array`);
  const descriptions = Array.isArray(cve.descriptions) ? cve.descriptions.filter(isObject) : [];
  const english = descriptions.find((d) => d.lang === 'en') ?? descriptions[0];
  const weaknesses = Array.isArray(cve.weaknesses) ? cve.weaknesses.filter(isObject) : [];
  const cwe = new Set<string>();
  for (const weakness of weaknesses)
    for (const description of Array.isArray(weakness.description)
      ? weakness.description.filter(isObject)
      : [])
      if (typeof description.value === 'string' && /^CWE-\d+$/.test(description.value))
        cwe.add(description.value);
  return {
    id,
    published: optionalString(cve.published),
    last_modified: optionalString(cve.lastModified),
    vuln_status: optionalString(cve.vulnStatus),
    description: english ? optionalString(english.value) : null,
    cvss: parseCvss(cve.metrics),
    cwe: [...cwe].sort(),
    configurations: configurations.map((configuration, i) =>
      parseConfiguration(configuration, (reason) => fail(`${id}: configurations[${i}]: ${reason}`)),
    ),
  };
}

function parseOperator(value: unknown, fail: (reason: string) => never): 'AND' | 'OR' {
  if (value === undefined || value === null) return 'OR';
  if (value === 'AND' || value === 'OR') return value;
  return fail(`operator ${JSON.stringify(value)} is not AND or OR`);
}

function parseConfiguration(value: unknown, fail: (reason: string) => never): Configuration {
  if (!isObject(value) || !Array.isArray(value.nodes)) return fail('expected an object with nodes');
  const nodes = value.nodes.map((node, i) => parseNode(node, (reason) => fail(`nodes[${i}]: ${reason}`)));
  return {
    // NVD omits the operator of single-node configurations; AND joins nodes otherwise.
    operator:
      value.operator === undefined ? (nodes.length > 1 ? 'AND' : 'OR') : parseOperator(value.operator, fail),
    negate: value.negate === true,
    nodes,
  };
}

function parseNode(value: unknown, fail: (reason: string) => never): ConfigurationNode {
  if (!isObject(value) || !Array.isArray(value.cpeMatch)) return fail('expected an object with cpeMatch');
  return {
    operator: parseOperator(value.operator, fail),
    negate: value.negate === true,
    cpeMatch: value.cpeMatch.map((match, i) =>
      parseCriterion(match, (reason) => fail(`cpeMatch[${i}]: ${reason}`)),
    ),
  };
}

function parseCriterion(value: unknown, fail: (reason: string) => never): CpeCriterion {
  if (!isObject(value)) return fail('expected an object');
  if (typeof value.vulnerable !== 'boolean') return fail('vulnerable must be true or false');
  if (typeof value.criteria !== 'string') return fail('criteria must be a CPE 2.3 string');
  // Most criteria pass the plain shape check; parseCpe (which compiles patterns) decides, with its reason, the rest.
  if (value.criteria.length > 1024 || !PLAIN_CPE.test(value.criteria))
    try {
      parseCpe(value.criteria);
    } catch (error) {
      if (error instanceof InvalidCpeError) return fail(`criteria ${value.criteria}: ${error.message}`);
      throw error;
    }
  const criterion: { -readonly [K in keyof CpeCriterion]: CpeCriterion[K] } = {
    vulnerable: value.vulnerable,
    criteria: value.criteria,
  };
  for (const bound of [
    'versionStartIncluding',
    'versionStartExcluding',
    'versionEndIncluding',
    'versionEndExcluding',
  ] as const) {
    const v = value[bound];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '') return fail(`${bound} must be a non-empty string`);
    criterion[bound] = v;
  }
  return criterion;
}

function parseCvss(metrics: unknown): Cvss | null {
  if (!isObject(metrics)) return null;
  for (const key of ['cvssMetricV40', 'cvssMetricV31', 'cvssMetricV30', 'cvssMetricV2']) {
    const list = metrics[key];
    if (!Array.isArray(list)) continue;
    const entries = list.filter(isObject);
    const chosen = entries.find((entry) => entry.type === 'Primary') ?? entries[0];
    if (!chosen || !isObject(chosen.cvssData)) continue;
    const data = chosen.cvssData;
    if (typeof data.baseScore !== 'number') continue;
    const severity =
      optionalString(data.baseSeverity) ?? optionalString(chosen.baseSeverity) ?? severityOf(data.baseScore);
    return {
      version: optionalString(data.version) ?? key.replace('cvssMetricV', ''),
      base_score: data.baseScore,
      base_severity: severity,
      vector_string: optionalString(data.vectorString) ?? '',
    };
  }
  return null;
}

function severityOf(score: number): string {
  if (score === 0) return 'NONE';
  if (score < 4) return 'LOW';
  if (score < 7) return 'MEDIUM';
  if (score < 9) return 'HIGH';
  return 'CRITICAL';
}

function parseKev(document: Json, fail: (reason: string) => never): KevCatalogue {
  const list = document.vulnerabilities as unknown[];
  const entries = list.map((item, i): KevEntry => {
    if (!isObject(item)) return fail(`vulnerabilities[${i}] is not an object`);
    const id = item.cveID;
    if (typeof id !== 'string' || !CVE_ID.test(id))
      return fail(`vulnerabilities[${i}].cveID ${JSON.stringify(id)} is not a CVE identifier`);
    return {
      cve_id: id,
      vendor_project: optionalString(item.vendorProject),
      product: optionalString(item.product),
      vulnerability_name: optionalString(item.vulnerabilityName),
      date_added: optionalString(item.dateAdded),
      due_date: optionalString(item.dueDate),
      short_description: optionalString(item.shortDescription),
      required_action: optionalString(item.requiredAction),
      known_ransomware_campaign_use: optionalString(item.knownRansomwareCampaignUse),
      notes: optionalString(item.notes),
    };
  });
  if (typeof document.count === 'number' && document.count !== entries.length)
    return fail(`count says ${document.count} entries but the file holds ${entries.length}`);
  return {
    source: {
      title: optionalString(document.title),
      catalog_version: optionalString(document.catalogVersion),
      date_released: optionalString(document.dateReleased),
      count: entries.length,
    },
    entries,
  };
}

/** Every `.json` file under the given files and folders (recursively), in a stable order. */
export async function collectCatalogueFiles(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  const visit = async (path: string): Promise<void> => {
    let info;
    try {
      info = await stat(path);
    } catch {
      throw new MalformedCatalogueFile(path, 'no such file or folder');
    }
    if (info.isDirectory()) {
      const entries = (await readdir(path)).sort();
      for (const entry of entries) {
        const child = join(path, entry);
        const childInfo = await stat(child);
        if (childInfo.isDirectory()) await visit(child);
        else if (entry.endsWith('.json') && !entry.endsWith('_schema.json')) files.push(child);
      }
    } else files.push(path);
  };
  for (const path of paths) await visit(resolve(path));
  return [...new Set(files)];
}

export async function readCatalogueFile(path: string): Promise<ParsedFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new MalformedCatalogueFile(path, `cannot be read (${(error as Error).message})`);
  }
  return {
    ...parseCatalogueText(path, bytes.toString('utf8')),
    content: { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
  };
}
