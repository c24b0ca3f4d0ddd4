/**
 * The four observation datasets and their searchable vocabulary. Records are previously collected
 * observations; the service never scans. Field names are what `raw_query` uses (`field:value`), what
 * `GET /search/fields` lists, and the dotted paths inside stored records.
 */
export const DATASETS = ['hosts', 'dns', 'vhosts', 'whois'] as const;
export type Dataset = (typeof DATASETS)[number];

export function isDataset(value: unknown): value is Dataset {
  return typeof value === 'string' && (DATASETS as readonly string[]).includes(value);
}

/**
 * How a field is stored and matched:
 * - keyword: exact string (case-insensitive for names and domains), prefix `abc*` and suffix `*.abc` allowed;
 * - text: words inside longer text (titles, banners): value matches as a case-insensitive substring, `*` allowed;
 * - integer: numbers, ranges `[a TO b]`, `>n`, `>=n`, `<n`, `<=n`;
 * - date: ISO dates or date-times, same ranges;
 * - ip: an address or a CIDR block (`ip:10.0.0.0/8`);
 * - boolean: true or false.
 */
export type FieldType = 'keyword' | 'text' | 'integer' | 'date' | 'ip' | 'boolean';

/** Entitlements a field may need beyond personal data access. */
export type FieldEntitlement = 'cpe' | 'whois_contacts';

export interface FieldDefinition {
  readonly name: string;
  readonly type: FieldType;
  readonly datasets: readonly Dataset[];
  readonly description: string;
  /** Stored as a list (matches when any element matches). */
  readonly multiple?: boolean;
  /** Lowercased at indexing and query time (domains, names). */
  readonly caseInsensitive?: boolean;
  readonly aggregatable?: boolean;
  readonly entitlement?: FieldEntitlement;
  /** Natural-person WHOIS contact omitted during an organization trial (rule 7). */
  readonly personalContact?: boolean;
}

const f = (
  name: string,
  type: FieldType,
  datasets: readonly Dataset[],
  description: string,
  extra: Omit<FieldDefinition, 'name' | 'type' | 'datasets' | 'description'> = {},
): FieldDefinition => ({ name, type, datasets, description, ...extra });

export const FIELDS: readonly FieldDefinition[] = [
  // hosts: one service (ip, port, transport) as last observed
  f('ip', 'ip', ['hosts', 'vhosts'], 'IPv4 or IPv6 address of the observed service; accepts a CIDR block', {
    aggregatable: true,
  }),
  f('port', 'integer', ['hosts', 'vhosts'], 'TCP or UDP port', { aggregatable: true }),
  f('transport', 'keyword', ['hosts'], 'tcp or udp', { caseInsensitive: true, aggregatable: true }),
  f(
    'protocol',
    'keyword',
    ['hosts'],
    'application protocol identified on the port (http, https, ssh, smtp, …)',
    { caseInsensitive: true, aggregatable: true },
  ),
  f('product', 'keyword', ['hosts'], 'software product identified from the banner (nginx, OpenSSH, …)', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('vendor', 'keyword', ['hosts'], 'vendor of the identified product', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('version', 'keyword', ['hosts'], 'version of the identified product as announced', {
    aggregatable: true,
  }),
  f('cpe', 'keyword', ['hosts'], 'CPE 2.3 names of the identified software', {
    multiple: true,
    caseInsensitive: true,
    entitlement: 'cpe',
  }),
  f('banner', 'text', ['hosts'], 'raw service banner (first bytes the service sent)'),
  f('http.status', 'integer', ['hosts'], 'HTTP status code of the root page', { aggregatable: true }),
  f('http.title', 'text', ['hosts'], 'HTML title of the root page'),
  f('http.server', 'keyword', ['hosts'], 'HTTP Server header', { caseInsensitive: true, aggregatable: true }),
  f('favicon.hash', 'integer', ['hosts'], 'MurmurHash3 of the favicon (a favicon search costs 5 credits)', {
    aggregatable: true,
  }),
  f('tls.subject.cn', 'keyword', ['hosts'], 'subject common name of the certificate the service presented', {
    caseInsensitive: true,
  }),
  f('tls.san', 'keyword', ['hosts'], 'subject alternative names of the certificate the service presented', {
    multiple: true,
    caseInsensitive: true,
  }),
  f('tls.fingerprint', 'keyword', ['hosts'], 'SHA-256 fingerprint of the certificate the service presented', {
    caseInsensitive: true,
  }),
  f('country', 'keyword', ['hosts'], 'ISO 3166-1 alpha-2 country of the address', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('city', 'keyword', ['hosts'], 'city of the address', { caseInsensitive: true, aggregatable: true }),
  f('asn', 'integer', ['hosts'], 'autonomous system number announcing the address', { aggregatable: true }),
  f('organization', 'keyword', ['hosts'], 'organization of the autonomous system or netblock', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('hostnames', 'keyword', ['hosts'], 'names seen resolving to or served by the address', {
    multiple: true,
    caseInsensitive: true,
  }),
  f(
    'shared_edge',
    'boolean',
    ['hosts'],
    'the address is shared infrastructure (CDN or edge) serving many unrelated names',
    { aggregatable: true },
  ),
  // dns: one record
  f('name', 'keyword', ['dns'], 'owner name of the record', { caseInsensitive: true }),
  f('type', 'keyword', ['dns'], 'record type (A, AAAA, CNAME, MX, NS, TXT, SOA, CAA)', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('value', 'keyword', ['dns'], 'record data (address, target name, text)', { caseInsensitive: true }),
  f('ttl', 'integer', ['dns'], 'time to live in seconds'),
  // vhosts: one certificate as observed on a service
  f('fingerprint', 'keyword', ['vhosts'], 'SHA-256 fingerprint of the certificate', {
    caseInsensitive: true,
  }),
  f('subject.cn', 'keyword', ['vhosts'], 'subject common name', { caseInsensitive: true }),
  f('names', 'keyword', ['vhosts'], 'subject alternative DNS names', {
    multiple: true,
    caseInsensitive: true,
  }),
  f('issuer.cn', 'keyword', ['vhosts'], 'issuer common name', { caseInsensitive: true, aggregatable: true }),
  f('issuer.organization', 'keyword', ['vhosts'], 'issuer organization', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('serial', 'keyword', ['vhosts'], 'serial number in hexadecimal', { caseInsensitive: true }),
  f('not_before', 'date', ['vhosts'], 'start of validity'),
  f('not_after', 'date', ['vhosts'], 'end of validity'),
  f('self_signed', 'boolean', ['vhosts'], 'issuer and subject are the same', { aggregatable: true }),
  f('key.type', 'keyword', ['vhosts'], 'public key algorithm (rsa, ec, ed25519)', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('key.bits', 'integer', ['vhosts'], 'public key size in bits', { aggregatable: true }),
  // whois: one registration
  f('domain', 'keyword', ['whois'], 'registered domain', { caseInsensitive: true }),
  f('registrar', 'keyword', ['whois'], 'sponsoring registrar', { caseInsensitive: true, aggregatable: true }),
  f('status', 'keyword', ['whois'], 'EPP status codes', {
    multiple: true,
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('name_servers', 'keyword', ['whois'], 'delegated name servers', {
    multiple: true,
    caseInsensitive: true,
  }),
  f('created', 'date', ['whois'], 'registration date'),
  f('updated', 'date', ['whois'], 'last update of the registration'),
  f('expires', 'date', ['whois'], 'expiry date of the registration'),
  f('registrant.organization', 'keyword', ['whois'], 'registrant organization', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('registrant.country', 'keyword', ['whois'], 'registrant country', {
    caseInsensitive: true,
    aggregatable: true,
  }),
  f('registrant.name', 'keyword', ['whois'], 'registrant name (natural person)', {
    caseInsensitive: true,
    personalContact: true,
    entitlement: 'whois_contacts',
  }),
  f('registrant.email', 'keyword', ['whois'], 'registrant email (natural person)', {
    caseInsensitive: true,
    personalContact: true,
    entitlement: 'whois_contacts',
  }),
  f('admin.name', 'keyword', ['whois'], 'administrative contact name', {
    caseInsensitive: true,
    personalContact: true,
    entitlement: 'whois_contacts',
  }),
  f('admin.email', 'keyword', ['whois'], 'administrative contact email', {
    caseInsensitive: true,
    personalContact: true,
    entitlement: 'whois_contacts',
  }),
  f('tech.name', 'keyword', ['whois'], 'technical contact name', {
    caseInsensitive: true,
    personalContact: true,
    entitlement: 'whois_contacts',
  }),
  f('tech.email', 'keyword', ['whois'], 'technical contact email', {
    caseInsensitive: true,
    personalContact: true,
    entitlement: 'whois_contacts',
  }),
  // every dataset
  f('first_seen', 'date', ['hosts', 'dns', 'vhosts', 'whois'], 'first time the observation was collected'),
  f('last_seen', 'date', ['hosts', 'dns', 'vhosts', 'whois'], 'last time the observation was collected'),
];

const BY_NAME = new Map(FIELDS.map((field) => [field.name, field]));

export function fieldNamed(name: string): FieldDefinition | undefined {
  return BY_NAME.get(name);
}

export function fieldsOf(dataset: Dataset): FieldDefinition[] {
  return FIELDS.filter((field) => field.datasets.includes(dataset));
}

/** The value `txt` exports and results use as each record's identity. */
export const PRIMARY_VALUE: Readonly<Record<Dataset, string>> = {
  hosts: 'ip',
  dns: 'name',
  vhosts: 'fingerprint',
  whois: 'domain',
};
