import { type DnsRecord, dnsRecordId, type ObservationRecord } from '../../domain/records.js';
import type { CdnId } from './cdns.js';
import type { MailProvider } from './domain-tables.js';
import { type DomainProfile, domainProfile, mailExchangers, nameServers } from './domains.js';
import { Rng, Stream } from './random.js';
import { DAY, iso, seenWindow } from './time.js';
import { addressOf, edgeAddressOf, isEdge, ownedAddresses, routedNames } from './world-addresses.js';
import type { World } from './world.js';

/** The dns dataset: every record of each domain of the world. */

const CDN_TARGETS: Readonly<Record<CdnId, (domain: DomainProfile, rng: Rng) => string>> = {
  cloudflare: (domain) => `${domain.name}.cdn.cloudflare.net`,
  cloudfront: (_d, rng) => `d${rng.hex(13)}.cloudfront.net`,
  akamai: (domain) => `www.${domain.name}.edgekey.net`,
  fastly: (domain) => `${domain.label}.map.fastly.net`,
};

const THIRD_PARTY_CNAMES: ReadonlyArray<readonly [string, (domain: DomainProfile) => string]> = [
  ['shop', () => 'shops.myshopify.com'],
  ['blog', () => 'ghs.googlehosted.com'],
  ['status', (d) => `${d.label}.statuspage.io`],
  ['docs', (d) => `${d.label}.github.io`],
  ['autodiscover', () => 'autodiscover.outlook.com'],
];

/** Every dns record of domain d: A/AAAA to its addresses (or the CDN edge), CNAME, MX, NS, TXT, SOA, CAA. */
function domainDns(world: World, d: number): DnsRecord[] {
  const domain = domainProfile(world, d);
  const rng = new Rng(world.seed, Stream.DomainDns, d);
  const window = seenWindow(rng, world.now, 2);
  const out: DnsRecord[] = [];
  const add = (name: string, type: DnsRecord['type'], value: string, ttl: number) => {
    const last = Math.max(window.first, window.last - rng.next() * DAY);
    out.push({
      id: dnsRecordId(name, type, value),
      name,
      type,
      value,
      ttl,
      first_seen: iso(window.first),
      last_seen: iso(last),
    });
  };
  const ttl = rng.pick([300, 300, 600, 3600, 3600, 3600, 14400, 86400]);
  const addresses = ownedAddresses(world, d);
  const routed = routedNames(domain);
  const pointTo = (name: string, j: number) => {
    const address = addressOf(world, j);
    add(name, address.family === 6 ? 'aaaa' : 'a', address.ip, ttl);
  };
  if (domain.cdn) {
    const edge = addressOf(world, edgeAddressOf(world, d));
    add(domain.name, edge.family === 6 ? 'aaaa' : 'a', edge.ip, 300);
    if (domain.names.includes(`www.${domain.name}`)) {
      if (domain.cdn === 'cloudflare')
        add(`www.${domain.name}`, edge.family === 6 ? 'aaaa' : 'a', edge.ip, 300);
      else add(`www.${domain.name}`, 'cname', CDN_TARGETS[domain.cdn](domain, rng), 300);
    }
  }
  if (addresses.length > 0) {
    routed.forEach((name, k) => pointTo(name, addresses[k % addresses.length]!));
  } else if (d < world.domainPool || rng.chance(0.8)) {
    // Hosted on addresses no scan attributed to the domain (shared hosting, parking).
    const elsewhere = rng.int(Math.max(1, world.ipCount));
    const target = isEdge(world, elsewhere) ? elsewhere + 1 : elsewhere;
    for (const name of routed) pointTo(name, target);
  }
  for (const [sub, target] of THIRD_PARTY_CNAMES) {
    if (domain.names.includes(`${sub}.${domain.name}`)) continue;
    if (
      (sub === 'autodiscover' && domain.mail === 'microsoft') ||
      (sub !== 'autodiscover' && rng.chance(0.06))
    )
      add(`${sub}.${domain.name}`, 'cname', target(domain), 3600);
  }
  for (const mx of mailExchangers(domain)) add(domain.name, 'mx', mx, 3600);
  const servers = nameServers(domain);
  for (const ns of servers) add(domain.name, 'ns', ns, 86400);
  const spf: Record<MailProvider, string> = {
    google: 'v=spf1 include:_spf.google.com ~all',
    microsoft: 'v=spf1 include:spf.protection.outlook.com -all',
    self: 'v=spf1 mx a ~all',
    ovh: 'v=spf1 include:mx.ovh.com ~all',
    zoho: 'v=spf1 include:zoho.eu ~all',
    proton: 'v=spf1 include:_spf.protonmail.ch ~all',
    ionos: 'v=spf1 include:_spf-eu.ionos.com ~all',
    none: 'v=spf1 -all',
  };
  add(domain.name, 'txt', spf[domain.mail], 3600);
  if (domain.mail === 'google' || rng.chance(0.3))
    add(domain.name, 'txt', `google-site-verification=${rng.hex(43)}`, 3600);
  if (domain.mail === 'microsoft') add(domain.name, 'txt', `MS=ms${rng.digits(8)}`.toLowerCase(), 3600);
  if (domain.mail !== 'none' && rng.chance(0.6))
    add(
      `_dmarc.${domain.name}`,
      'txt',
      `v=DMARC1; p=${rng.pick(['none', 'quarantine', 'reject'])}; rua=mailto:dmarc@${domain.name}`.toLowerCase(),
      3600,
    );
  if (rng.chance(0.35)) {
    const primary = servers[0]!;
    add(
      domain.name,
      'soa',
      `${primary} hostmaster.${domain.name} ${2024010100 + rng.int(99999)} 7200 3600 1209600 3600`,
      3600,
    );
  }
  if (rng.chance(0.15)) {
    const issuer =
      domain.ca === 'letsencrypt'
        ? 'letsencrypt.org'
        : domain.ca === 'digicert'
          ? 'digicert.com'
          : domain.ca === 'sectigo'
            ? 'sectigo.com'
            : 'pki.goog';
    add(domain.name, 'caa', `0 issue "${issuer}"`, 3600);
  }
  return out;
}

export function* dnsRecords(world: World): Generator<ObservationRecord> {
  for (let d = 0; ; d++) yield* domainDns(world, d);
}
