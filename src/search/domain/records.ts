import { createHash } from 'node:crypto';
import { formatIp, parseDate, parseIp } from '../query-language/validation.js';
import { fieldsOf, type Dataset, type FieldDefinition } from './datasets.js';

/**
 * Stored observation records: one type per dataset, nested like the vocabulary's dotted names
 * (`http.status` is `{ http: { status } }`), and `validateRecord`, the one gate every record passes before it
 * reaches the observation index (NDJSON import; the generator is tested against it).
 *
 * Stored values are normalized exactly as queries normalize what they compare with (query-language/validation):
 * case-insensitive fields lowercased, addresses in canonical form (RFC 5952 for IPv6), dates as
 * `YYYY-MM-DDTHH:MM:SS.sssZ`. Pure: no I/O, no clock.
 */

/**
 * What the observation index stores: an id, the collection dates and the dataset's fields. The same shape as
 * the port's `ObservationRecord` (observation-index.port.ts), so validated records go to `write` as they are.
 */
export type ObservationRecord = {
  readonly id: string;
  readonly first_seen: string;
  readonly last_seen: string;
  readonly [field: string]: unknown;
};

type Seen = {
  /** First time the observation was collected (ISO 8601, UTC). */
  first_seen: string;
  /** Last time the observation was collected; never before first_seen. */
  last_seen: string;
};

/** hosts: one service (ip, port, transport) as last observed. Id: `ip:port/transport` (`[ipv6]:port/transport`). */
export type HostRecord = Seen & {
  id: string;
  ip: string;
  port: number;
  transport: 'tcp' | 'udp';
  protocol?: string;
  product?: string;
  vendor?: string;
  version?: string;
  cpe?: string[];
  banner?: string;
  http?: { status?: number; title?: string; server?: string };
  favicon?: { hash?: number };
  tls?: { subject?: { cn?: string }; san?: string[]; fingerprint?: string };
  country?: string;
  city?: string;
  asn?: number;
  organization?: string;
  hostnames?: string[];
  shared_edge?: boolean;
};

export const DNS_RECORD_TYPES = ['a', 'aaaa', 'cname', 'mx', 'ns', 'txt', 'soa', 'caa'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

/** dns: one record. Id: `name/type/value-hash` (16 hex digits of SHA-256 of the stored value). */
export type DnsRecord = Seen & {
  id: string;
  name: string;
  type: DnsRecordType;
  value: string;
  ttl?: number;
};

export const KEY_TYPES = ['rsa', 'ec', 'ed25519', 'ed448', 'dsa'] as const;

/**
 * vhosts: one certificate, as observed on a service (ip and port, id `fingerprint@ip:port`) or on its own
 * (certificate transparency, id `fingerprint`).
 */
export type VhostRecord = Seen & {
  id: string;
  fingerprint: string;
  subject?: { cn?: string };
  names?: string[];
  issuer?: { cn?: string; organization?: string };
  serial?: string;
  not_before?: string;
  not_after?: string;
  self_signed?: boolean;
  key?: { type?: (typeof KEY_TYPES)[number]; bits?: number };
  ip?: string;
  port?: number;
};

/** whois: one registration. Id: the domain. */
export type WhoisRecord = Seen & {
  id: string;
  domain: string;
  registrar?: string;
  status?: string[];
  name_servers?: string[];
  created?: string;
  updated?: string;
  expires?: string;
  registrant?: { organization?: string; country?: string; name?: string; email?: string };
  admin?: { name?: string; email?: string };
  tech?: { name?: string; email?: string };
};

export type RecordOf<D extends Dataset> = {
  hosts: HostRecord;
  dns: DnsRecord;
  vhosts: VhostRecord;
  whois: WhoisRecord;
}[D];

export type RecordValidation<R> = { ok: true; record: R } | { ok: false; problems: string[] };

// ---- ids ---------------------------------------------------------------------------------------------------

/** `203.0.113.7:443/tcp`, `[2001:db8::1]:443/tcp` (brackets keep the port readable after an IPv6 address). */
export function hostRecordId(ip: string, port: number, transport: string): string {
  return `${ip.includes(':') ? `[${ip}]` : ip}:${port}/${transport}`;
}

/** `www.example.com/a/9f86d081884c7d65`: the value is hashed because TXT data can be long. */
export function dnsRecordId(name: string, type: string, value: string): string {
  return `${name}/${type}/${createHash('sha256').update(value).digest('hex').slice(0, 16)}`;
}

/** `fingerprint@ip:port` for a certificate seen on a service, the bare fingerprint otherwise. */
export function vhostRecordId(fingerprint: string, ip?: string, port?: number): string {
  if (ip === undefined || port === undefined) return fingerprint;
  return `${fingerprint}@${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
}

export function whoisRecordId(domain: string): string {
  return domain;
}

/** The canonical id of a normalized record (the one `validateRecord` requires). */
export function recordIdOf(dataset: Dataset, record: Readonly<Record<string, unknown>>): string {
  switch (dataset) {
    case 'hosts':
      return hostRecordId(String(record.ip), Number(record.port), String(record.transport));
    case 'dns':
      return dnsRecordId(String(record.name), String(record.type), String(record.value));
    case 'vhosts':
      return vhostRecordId(
        String(record.fingerprint),
        record.ip === undefined ? undefined : String(record.ip),
        record.port === undefined ? undefined : Number(record.port),
      );
    case 'whois':
      return whoisRecordId(String(record.domain));
  }
}

// ---- limits ------------------------------------------------------------------------------------------------

export const RECORD_LIMITS = {
  keywordChars: 4096,
  textChars: 65_536,
  listItems: 1000,
  idChars: 1024,
} as const;

const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  port: [1, 65_535],
  'http.status': [100, 599],
  // MurmurHash3 (32-bit, signed) as favicon search engines print it.
  'favicon.hash': [-2_147_483_648, 2_147_483_647],
  asn: [1, 4_294_967_295],
  ttl: [0, 2_147_483_647],
  'key.bits': [128, 65_536],
};

/** Fields that must be present, besides id, first_seen and last_seen. */
const REQUIRED: Readonly<Record<Dataset, readonly string[]>> = {
  hosts: ['ip', 'port', 'transport'],
  dns: ['name', 'type', 'value'],
  vhosts: ['fingerprint'],
  whois: ['domain'],
};

// ---- field checks ------------------------------------------------------------------------------------------

/** Returns a problem, or undefined when the already-normalized value is acceptable. */
type Check = (value: string | number | boolean) => string | undefined;

const LABEL = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;

/**
 * Lowercase DNS name, no trailing dot, at least two labels unless `singleLabel` (certificate names such as
 * `localhost`); `*.` only as the leftmost label and only when `wildcard`.
 */
export function dnsNameProblem(name: string, wildcard: boolean, singleLabel = false): string | undefined {
  if (/[^\x21-\x7e]/.test(name))
    return 'must be an ASCII DNS name (use the xn-- form for internationalized names)';
  if (name.length > 253) return 'must be a DNS name of at most 253 characters';
  const labels = name.split('.');
  if (labels.length < 2 && !singleLabel) return 'must be a fully qualified DNS name (at least two labels)';
  for (const [index, label] of labels.entries()) {
    if (label === '*' && index === 0 && wildcard) continue;
    if (label === '*')
      return wildcard ? 'may use * only as the leftmost label' : 'must not be a wildcard name';
    if (!LABEL.test(label)) return `has an invalid DNS label "${clip(label, 20)}"`;
  }
  return undefined;
}

const dnsName =
  (wildcard: boolean, singleLabel = false): Check =>
  (value) =>
    dnsNameProblem(String(value), wildcard, singleLabel);

const oneOf =
  (values: readonly string[]): Check =>
  (value) =>
    values.includes(String(value)) ? undefined : `must be one of ${values.join(', ')}`;

const pattern =
  (regex: RegExp, what: string): Check =>
  (value) =>
    regex.test(String(value)) ? undefined : `must be ${what}`;

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;
const COUNTRY = /^[a-z]{2}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** CPE 2.3 formatted string: 13 colon-separated components (`\:` escapes a colon), part a, o or h. */
export function cpeProblem(cpe: string): string | undefined {
  if (cpe.startsWith('cpe:/'))
    return 'is a CPE 2.2 URI: use the CPE 2.3 formatted string (cpe:2.3:a:vendor:product:version:…)';
  const components = cpe.split(/(?<!\\):/);
  if (components.length !== 13 || components[0] !== 'cpe' || components[1] !== '2.3')
    return 'must be a CPE 2.3 formatted string with 13 components (cpe:2.3:part:vendor:product:version:…)';
  if (!['a', 'o', 'h'].includes(components[2]!)) return 'must have part a, o or h';
  for (const [index, name] of [
    [3, 'vendor'],
    [4, 'product'],
  ] as const) {
    const component = components[index]!;
    if (component === '' || component === '*' || component === '-') return `must name a ${name}`;
  }
  if (components.some((component) => component === '' || /\s/.test(component)))
    return 'must not have empty components or spaces (use * for any)';
  return undefined;
}

const CHECKS: Readonly<Record<string, Check>> = {
  transport: oneOf(['tcp', 'udp']),
  protocol: pattern(/^[a-z0-9][a-z0-9+._-]{0,31}$/, 'a protocol name such as http, https, ssh or smtp'),
  cpe: (value) => cpeProblem(String(value)),
  'tls.san': (value) => (parseIp(String(value)) ? undefined : dnsNameProblem(String(value), true, true)),
  'tls.fingerprint': pattern(SHA256_HEX, 'a SHA-256 fingerprint (64 hexadecimal digits)'),
  country: pattern(COUNTRY, 'an ISO 3166-1 alpha-2 country code'),
  hostnames: dnsName(false),
  name: dnsName(true),
  type: oneOf(DNS_RECORD_TYPES),
  fingerprint: pattern(SHA256_HEX, 'a SHA-256 fingerprint (64 hexadecimal digits)'),
  names: dnsName(true, true),
  serial: pattern(/^[0-9a-f]{1,64}$/, 'a hexadecimal serial number of at most 64 digits'),
  'key.type': oneOf(KEY_TYPES),
  domain: dnsName(false),
  status: pattern(/^[a-z][a-z0-9 _-]{0,63}$/, 'an EPP status code such as clienttransferprohibited'),
  name_servers: dnsName(false),
  'registrant.country': pattern(COUNTRY, 'an ISO 3166-1 alpha-2 country code'),
  'registrant.email': pattern(EMAIL, 'an email address'),
  'admin.email': pattern(EMAIL, 'an email address'),
  'tech.email': pattern(EMAIL, 'an email address'),
};

/** Hex fields are also accepted with colons (`AB:CD:…`, as openssl prints them) and stored without. */
const HEX_FIELDS: ReadonlySet<string> = new Set(['fingerprint', 'tls.fingerprint', 'serial']);
/** DNS names are stored without the root's trailing dot (`example.com.` → `example.com`). */
const NAME_FIELDS: ReadonlySet<string> = new Set([
  'hostnames',
  'tls.san',
  'name',
  'names',
  'domain',
  'name_servers',
]);

// ---- the schema tree ---------------------------------------------------------------------------------------

type SchemaNode =
  | { readonly kind: 'leaf'; readonly field: FieldDefinition }
  | { readonly kind: 'object'; readonly path: string; readonly children: Map<string, SchemaNode> };

function schemaOf(dataset: Dataset): Map<string, SchemaNode> {
  const root = new Map<string, SchemaNode>();
  for (const field of fieldsOf(dataset)) {
    const parts = field.name.split('.');
    let level = root;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) {
        level.set(part, { kind: 'leaf', field });
        return;
      }
      let node = level.get(part);
      if (!node) {
        node = { kind: 'object', path: parts.slice(0, index + 1).join('.'), children: new Map() };
        level.set(part, node);
      }
      if (node.kind !== 'object') throw new Error(`vocabulary conflict at ${field.name}`);
      level = node.children;
    });
  }
  return root;
}

const SCHEMAS = new Map<Dataset, Map<string, SchemaNode>>(
  (['hosts', 'dns', 'vhosts', 'whois'] as const).map((dataset) => [dataset, schemaOf(dataset)]),
);

// ---- validation --------------------------------------------------------------------------------------------

const MAX_PROBLEMS = 20;

/**
 * Checks one record of `dataset` and returns it normalized, or every problem found (at most 20), each naming
 * the field: types from the vocabulary, lists for multiple fields, integer ranges (port 1–65535, …), ISO dates,
 * valid addresses, DNS names, CPE 2.3 names, required fields (id, first_seen, last_seen, the dataset's primary
 * value and what its id is made of), first_seen ≤ last_seen, and the canonical id. Unknown fields, `null`
 * values and flat dotted keys are refused. Case-insensitive fields are lowercased, hex fingerprints lose their
 * colons, list duplicates are dropped, empty lists and objects are dropped. The input is not modified.
 */
export function validateRecord<D extends Dataset>(dataset: D, value: unknown): RecordValidation<RecordOf<D>> {
  const problems: string[] = [];
  const problem = (text: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  if (!isPlainObject(value)) {
    return { ok: false, problems: [`a ${dataset} record must be a JSON object, got ${describe(value)}`] };
  }
  const schema = SCHEMAS.get(dataset)!;
  const record: Record<string, unknown> = {};

  const suppliedId = value.id;
  if (suppliedId === undefined) problem('id: required');
  else if (typeof suppliedId !== 'string') problem(`id: must be a string, got ${describe(suppliedId)}`);
  else if (suppliedId.trim() === '') problem('id: must not be empty');
  else if (suppliedId.length > RECORD_LIMITS.idChars)
    problem(`id: must be at most ${RECORD_LIMITS.idChars} characters`);

  const fields = normalizeObject(value, schema, '', problem, true);
  Object.assign(record, fields);

  for (const name of ['first_seen', 'last_seen', ...REQUIRED[dataset]]) {
    if (getPath(value, name) === undefined) problem(`${name}: required`);
  }
  crossChecks(dataset, record, problem);

  if (problems.length === 0) {
    const canonical = recordIdOf(dataset, record);
    if (typeof suppliedId === 'string' && suppliedId.trim().toLowerCase() !== canonical.toLowerCase()) {
      problem(`id: must be "${clip(canonical, 120)}" (${ID_FORMS[dataset]}), got "${clip(suppliedId, 120)}"`);
    }
    if (problems.length === 0) {
      return { ok: true, record: { id: canonical, ...record } as RecordOf<D> };
    }
  }
  return { ok: false, problems };
}

const ID_FORMS: Readonly<Record<Dataset, string>> = {
  hosts: 'ip:port/transport, with [brackets] around an IPv6 address',
  dns: 'name/type/first 16 hex digits of the SHA-256 of the value',
  vhosts: 'fingerprint@ip:port when observed on a service, else the fingerprint',
  whois: 'the domain',
};

function normalizeObject(
  input: Record<string, unknown>,
  schema: Map<string, SchemaNode>,
  prefix: string,
  problem: (text: string) => void,
  top: boolean,
): Record<string, unknown> {
  for (const key of Object.keys(input)) {
    if (top && key === 'id') continue;
    if (schema.has(key)) continue;
    const path = `${prefix}${key}`;
    const dotted = key.includes('.') && top ? nestedHint(key) : '';
    problem(`${path}: unknown field${dotted}`);
  }
  const out: Record<string, unknown> = {};
  // Vocabulary order, so the stored form does not depend on the input's key order.
  for (const [key, node] of schema) {
    const raw = input[key];
    if (raw === undefined) continue;
    const path = `${prefix}${key}`;
    if (raw === null) {
      problem(`${path}: must not be null (omit the field instead)`);
      continue;
    }
    if (node.kind === 'object') {
      if (!isPlainObject(raw)) {
        problem(`${path}: must be an object with ${[...node.children.keys()].join(', ')}`);
        continue;
      }
      const nested = normalizeObject(raw, node.children, `${path}.`, problem, false);
      if (Object.keys(nested).length > 0) out[key] = nested;
      continue;
    }
    const normalized = normalizeField(node.field, raw, problem);
    if (normalized !== undefined) out[key] = normalized;
  }
  return out;
}

function nestedHint(key: string): string {
  const parts = key.split('.');
  const last = parts.pop()!;
  const open = parts.map((part) => `{"${part}": `).join('');
  return ` (nest it: ${open}{"${last}": …}${'}'.repeat(parts.length - 1)})`;
}

function normalizeField(
  field: FieldDefinition,
  raw: unknown,
  problem: (text: string) => void,
): unknown | undefined {
  if (field.multiple) {
    if (!Array.isArray(raw)) {
      problem(`${field.name}: must be a list, got ${describe(raw)}`);
      return undefined;
    }
    if (raw.length > RECORD_LIMITS.listItems) {
      problem(`${field.name}: must have at most ${RECORD_LIMITS.listItems} items, got ${raw.length}`);
      return undefined;
    }
    const seen = new Set<unknown>();
    const items: unknown[] = [];
    raw.forEach((item, index) => {
      const normalized = normalizeScalar(field, item, `${field.name}[${index}]`, problem);
      if (normalized !== undefined && !seen.has(normalized)) {
        seen.add(normalized);
        items.push(normalized);
      }
    });
    return items.length > 0 ? items : undefined;
  }
  if (Array.isArray(raw)) {
    problem(`${field.name}: must be a single value, not a list`);
    return undefined;
  }
  return normalizeScalar(field, raw, field.name, problem);
}

function normalizeScalar(
  field: FieldDefinition,
  raw: unknown,
  path: string,
  problem: (text: string) => void,
): string | number | boolean | undefined {
  const fail = (text: string): undefined => {
    problem(`${path}: ${text}`);
    return undefined;
  };
  let value: string | number | boolean;
  switch (field.type) {
    case 'keyword':
    case 'text': {
      if (typeof raw !== 'string') return fail(`must be a string, got ${describe(raw)}`);
      if (raw.includes('\u0000')) return fail('must not contain NUL characters');
      const limit = field.type === 'keyword' ? RECORD_LIMITS.keywordChars : RECORD_LIMITS.textChars;
      if (raw.length > limit) return fail(`must be at most ${limit} characters, got ${raw.length}`);
      let text = field.type === 'keyword' ? raw.trim() : raw;
      if (text.trim() === '') return fail('must not be empty');
      // eslint-disable-next-line no-control-regex
      if (field.type === 'keyword' && /[\u0000-\u001f\u007f]/.test(text))
        return fail('must not contain control characters');
      if (field.caseInsensitive) text = text.toLowerCase();
      if (HEX_FIELDS.has(field.name)) text = text.replaceAll(':', '');
      if (NAME_FIELDS.has(field.name)) text = text.replace(/\.$/, '');
      if (field.name === 'status') text = text.replace(/\s+https?:\/\/\S*$/, '');
      value = text;
      break;
    }
    case 'integer': {
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw))
        return fail(`must be an integer, got ${describe(raw)}`);
      const range = INTEGER_RANGES[field.name];
      if (range && (raw < range[0] || raw > range[1]))
        return fail(`must be an integer from ${range[0]} to ${range[1]}, got ${raw}`);
      value = raw === 0 ? 0 : raw;
      break;
    }
    case 'date': {
      const parsed = typeof raw === 'string' ? parseDate(raw.trim()) : undefined;
      if (!parsed) return fail(`must be an ISO 8601 date or date-time, got ${describe(raw)}`);
      value = new Date(parsed.ms).toISOString();
      break;
    }
    case 'ip': {
      const parsed = typeof raw === 'string' ? parseIp(raw.trim()) : undefined;
      if (!parsed) return fail(`must be an IPv4 or IPv6 address, got ${describe(raw)}`);
      value = formatIp(parsed);
      break;
    }
    case 'boolean': {
      if (typeof raw !== 'boolean') return fail(`must be true or false, got ${describe(raw)}`);
      value = raw;
      break;
    }
  }
  const check = CHECKS[field.name];
  const refusal = check?.(value);
  return refusal ? fail(refusal) : value;
}

function crossChecks(
  dataset: Dataset,
  record: Record<string, unknown>,
  problem: (text: string) => void,
): void {
  const ordered = (earlier: string, later: string) => {
    const a = getPath(record, earlier);
    const b = getPath(record, later);
    if (typeof a === 'string' && typeof b === 'string' && a > b)
      problem(`${earlier}: must not be after ${later}`);
  };
  ordered('first_seen', 'last_seen');
  if (dataset === 'dns' && typeof record.type === 'string' && typeof record.value === 'string') {
    let value = record.value;
    if (['cname', 'ns', 'mx'].includes(record.type)) value = value.replace(/\.$/, '');
    const refusal = dnsValueProblem(record.type, value);
    if (refusal) problem(`value: ${refusal}`);
    else if (record.type === 'a' || record.type === 'aaaa') value = formatIp(parseIp(value)!);
    record.value = value;
  }
  if (dataset === 'vhosts') {
    ordered('not_before', 'not_after');
    if ((record.ip === undefined) !== (record.port === undefined))
      problem('ip: ip and port go together (a certificate observed on a service) or are both absent');
  }
  if (dataset === 'whois') {
    ordered('created', 'updated');
    ordered('created', 'expires');
  }
}

/** A/AAAA carry an address of their family; CNAME, NS and MX carry a target name; TXT, SOA, CAA any text. */
export function dnsValueProblem(type: string, value: string): string | undefined {
  switch (type) {
    case 'a':
      return parseIp(value)?.family === 4 ? undefined : 'an A record must carry an IPv4 address';
    case 'aaaa':
      return parseIp(value)?.family === 6 ? undefined : 'an AAAA record must carry an IPv6 address';
    case 'cname':
    case 'ns':
    case 'mx': {
      const refusal = dnsNameProblem(value, false);
      return refusal ? `a ${type.toUpperCase()} record carries the target name, which ${refusal}` : undefined;
    }
    default:
      return undefined;
  }
}

// ---- helpers -----------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function getPath(record: Record<string, unknown>, path: string): unknown {
  let current: unknown = record;
  for (const part of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `"${clip(value, 40)}"`;
  return `${typeof value} ${clip(String(value), 40)}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
