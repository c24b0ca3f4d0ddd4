import type { FingerprintEvidence, ObservationIdentifier } from '../../search/data/collectors/collected.js';
import type { Dataset } from '../../search/domain/datasets.js';
import { RECORD_LIMITS } from '../../search/domain/records.js';
import { cpe23FromRecog } from './cpe-conversion.js';
import type { FingerprintMatch, RecogMatcher } from './recog-matcher.js';

/**
 * From a record's evidence to its identity (ADR 100). Only hosts records carry vendor, product, version and cpe;
 * other datasets pass unchanged.
 *
 * - Evidence is tried in EVIDENCE_PRIORITY order (the protocol's own banner first, then the HTTP Server header,
 *   X-Powered-By, WWW-Authenticate, the page title, the favicon, the certificate), the order the collector gave
 *   within one kind. The first evidence whose match names a product (or at least a vendor) gives vendor, product
 *   and version, all three from one namespace: `service.*`, else `os.*`, else `hw.*`.
 * - cpe gathers the `*.cpe23` params of every matching evidence (the identity's first), converted to CPE 2.3;
 *   a CPE without a seen version says `*` (version_unknown downstream), never a version it did not see.
 * - A record that already names a product keeps its vendor/product/version; cpe names are added to its own.
 */
export const EVIDENCE_PRIORITY: readonly string[] = [
  'ssh.banner',
  'ftp.banner',
  'smtp.banner',
  'pop3.banner',
  'imap.banner',
  'mysql.banner',
  'telnet.banner',
  'dns.versionbind',
  'http_header.server',
  'http_header.x-powered-by',
  'http_header.wwwauth',
  'html_title',
  'favicon.md5',
  'x509.subject',
  'x509.issuer',
];

const NAMESPACES = ['service', 'os', 'hw'] as const;

export interface Identity {
  readonly vendor?: string;
  readonly product?: string;
  readonly version?: string;
  readonly cpe: readonly string[];
  /** The matches behind it, in the order they were considered. */
  readonly matches: readonly FingerprintMatch[];
}

export function identifyEvidence(
  matcher: RecogMatcher,
  evidence: readonly FingerprintEvidence[],
  convert: (value: string) => string | null = cpe23FromRecog,
): Identity {
  const ordered = [...evidence]
    .map((item, position) => ({ item, position, rank: rankOf(item.matches) }))
    .sort((a, b) => a.rank - b.rank || a.position - b.position);
  const matches: FingerprintMatch[] = [];
  let identity: Pick<Identity, 'vendor' | 'product' | 'version'> | undefined;
  /** A vendor without a product, kept until some evidence names a product. */
  let vendorOnly: Pick<Identity, 'vendor'> | undefined;
  const cpe: string[] = [];
  for (const { item } of ordered) {
    if (item.text === '' || !matcher.handles(item.matches)) continue;
    const match = matcher.match(item.matches, textOf(item));
    if (!match) continue;
    matches.push(match);
    const named = identity === undefined ? namedProduct(match.params) : undefined;
    if (named?.product !== undefined) identity = named;
    else if (named) vendorOnly ??= named;
    const cpes = cpesOf(match.params, convert);
    // The identity's CPEs go first: enrichment reads them in order.
    if (named?.product !== undefined) cpe.unshift(...cpes.filter((name) => !cpe.includes(name)));
    else for (const name of cpes) if (!cpe.includes(name)) cpe.push(name);
  }
  return { ...(identity ?? vendorOnly), cpe, matches };
}

/** The ObservationIdentifier the import pipeline calls before validation. */
export function recogIdentifier(matcher: RecogMatcher): ObservationIdentifier {
  // The same few hundred CPE templates come back for every banner of a product: converted once each (bounded).
  const converted = new Map<string, string | null>();
  const convert = (value: string): string | null => {
    let name = converted.get(value);
    if (name === undefined) {
      if (converted.size >= 10_000) converted.clear();
      name = cpe23FromRecog(value);
      converted.set(value, name);
    }
    return name;
  };
  return {
    identify(dataset: Dataset, record: Record<string, unknown>, evidence: readonly FingerprintEvidence[]) {
      if (dataset !== 'hosts' || evidence.length === 0) return record;
      const identity = identifyEvidence(matcher, evidence, convert);
      if (identity.matches.length === 0) return record;
      const result: Record<string, unknown> = { ...record };
      const hasProduct = typeof record.product === 'string' && record.product.trim() !== '';
      if (!hasProduct && identity.product !== undefined) {
        result.product = identity.product;
        if (identity.vendor !== undefined) result.vendor = identity.vendor;
        else delete result.vendor;
        if (identity.version !== undefined) result.version = identity.version;
        else delete result.version;
      } else if (!hasProduct && identity.vendor !== undefined && record.vendor === undefined)
        result.vendor = identity.vendor;
      if (identity.cpe.length > 0) {
        const own = Array.isArray(record.cpe)
          ? record.cpe.filter((c): c is string => typeof c === 'string')
          : [];
        const known = new Set(own.map((name) => name.toLowerCase()));
        result.cpe = [...own, ...identity.cpe.filter((name) => !known.has(name))].slice(
          0,
          RECORD_LIMITS.listItems,
        );
      }
      return result;
    },
  };
}

/** Recog's ssh.banner is the part after `SSH-2.0-`; a collector that passed the whole line is met halfway. */
function textOf(item: FingerprintEvidence): string {
  if (item.matches !== 'ssh.banner') return item.text;
  return item.text.replace(/^SSH-\d+\.\d+-/, '').replace(/\r?\n$/, '');
}

function rankOf(matches: string): number {
  const index = EVIDENCE_PRIORITY.indexOf(matches);
  return index < 0 ? EVIDENCE_PRIORITY.length : index;
}

/** vendor/product/version of the first namespace that names a product (or, failing that, a vendor). */
function namedProduct(
  params: Readonly<Record<string, string>>,
): Pick<Identity, 'vendor' | 'product' | 'version'> | undefined {
  const withProduct = NAMESPACES.find((space) => clean(params[`${space}.product`]) !== undefined);
  const space = withProduct ?? NAMESPACES.find((name) => clean(params[`${name}.vendor`]) !== undefined);
  if (!space) return undefined;
  const vendor = clean(params[`${space}.vendor`]);
  const product = clean(params[`${space}.product`]);
  const version = clean(params[`${space}.version`]);
  return {
    ...(vendor !== undefined ? { vendor: vendor.toLowerCase() } : {}),
    ...(product !== undefined ? { product: product.toLowerCase() } : {}),
    ...(version !== undefined ? { version } : {}),
  };
}

function cpesOf(
  params: Readonly<Record<string, string>>,
  convert: (value: string) => string | null,
): string[] {
  const names: string[] = [];
  for (const space of NAMESPACES) {
    const value = params[`${space}.cpe23`];
    if (value === undefined) continue;
    const name = convert(value);
    if (name && !names.includes(name)) names.push(name);
  }
  return names;
}

/** A value worth storing: trimmed, not empty, within the keyword limit. */
function clean(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed || trimmed.length > RECORD_LIMITS.keywordChars) return undefined;
  return trimmed;
}
