import { CDN_BY_SLOT, type CdnId } from './cdns.js';
import {
  type CaId,
  CAS,
  CF_NS_NAMES,
  COMPANY_SUFFIX,
  GENERIC_COUNTRIES,
  HETZNER_NS,
  MAIL_PROVIDERS,
  type MailProvider,
  NS_PROVIDERS,
  NS_PROVIDERS_DE,
  type NsProvider,
  SUBDOMAINS,
  TLDS,
  WORDS_A,
  WORDS_B,
} from './domain-tables.js';
import { hash, Rng, Stream } from './random.js';
import { CDN_CUSTOMER_SHARE, type World } from './world.js';

/** A domain of the world: its name, owner, providers and names, a pure function of (world, index). */

export interface DomainProfile {
  readonly index: number;
  readonly name: string;
  readonly label: string;
  readonly organization: string;
  readonly country: string;
  readonly cdn: CdnId | undefined;
  readonly mail: MailProvider;
  readonly ns: NsProvider;
  readonly nsNumber: number;
  readonly ca: CaId;
  readonly wildcard: boolean;
  /** Names with A/AAAA records on the domain's own addresses, apex first. */
  readonly names: readonly string[];
  /** Names certified with the domain's certificate. */
  readonly certNames: readonly string[];
  readonly title: string;
  readonly favicon: number | undefined;
  readonly createdYearsAgo: number;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function domainProfile(world: World, d: number): DomainProfile {
  const rng = new Rng(world.seed, Stream.Domain, d);
  const combos = WORDS_A.length * WORDS_B.length;
  const position = (world.domainMultiplier * (d % combos) + world.domainOffset) % combos;
  const first = WORDS_A[Math.floor(position / WORDS_B.length)]!;
  const second = WORDS_B[position % WORDS_B.length]!;
  const round = Math.floor(d / combos);
  const hyphen = rng.chance(0.1);
  const label = `${first}${hyphen ? '-' : ''}${second}${round > 0 ? round + 1 : ''}`;
  const tld = rng.weighted(TLDS);
  const name = `${label}.${tld.suffix}`;
  const country =
    tld.country ??
    (tld.suffix === 'eu' ? rng.pick(['de', 'fr', 'nl', 'it', 'es', 'pl']) : rng.weighted(GENERIC_COUNTRIES));
  const organization = `${capitalize(first)} ${capitalize(second)}${round > 0 ? ` ${round + 1}` : ''} ${COMPANY_SUFFIX[country] ?? 'Ltd'}`;
  // A CDN customer is served by edge address d mod edgeCount, so it uses that edge's CDN.
  const cdn: CdnId | undefined =
    world.edgeCount > 0 && rng.chance(CDN_CUSTOMER_SHARE)
      ? CDN_BY_SLOT[(d % world.edgeCount) % CDN_BY_SLOT.length]
      : undefined;
  const mail = rng.weighted(MAIL_PROVIDERS);
  const ns: NsProvider =
    cdn === 'cloudflare' ? 'cloudflare' : rng.weighted(tld.country === 'de' ? NS_PROVIDERS_DE : NS_PROVIDERS);
  const names = [name];
  if (rng.chance(0.9)) names.push(`www.${name}`);
  if (mail === 'self') names.push(`mail.${name}`);
  const extras = rng.chance(0.3) ? 0 : rng.between(1, 7);
  for (let i = 0; i < extras; i++) {
    const sub = `${rng.weighted(SUBDOMAINS)}.${name}`;
    if (!names.includes(sub)) names.push(sub);
  }
  const wildcard = rng.chance(0.25);
  const certNames = wildcard
    ? [`*.${name}`, name]
    : names.slice(0, Math.min(names.length, rng.chance(0.5) ? 2 : 10));
  const ca = cdn === 'cloudflare' ? 'gts' : rng.weighted(CAS);
  const display = `${capitalize(first)} ${capitalize(second)}`;
  const title = rng.pick([
    `${display} | Home`,
    `${display} – Official Website`,
    `Welcome to ${display}`,
    `${display} - ${capitalize(second)} services`,
    display,
    `Home - ${display}`,
  ]);
  return {
    index: d,
    name,
    label,
    organization,
    country,
    cdn,
    mail,
    ns,
    nsNumber: rng.between(1, 9999),
    ca,
    wildcard,
    names,
    certNames,
    title,
    favicon: rng.chance(0.35) ? hash(world.seed, Stream.Domain, d, 99) | 0 : undefined,
    createdYearsAgo: Math.pow(rng.next(), 1.4) * 27 + 0.1,
  };
}

export function nameServers(domain: DomainProfile): string[] {
  const n = domain.nsNumber;
  switch (domain.ns) {
    case 'cloudflare':
      return [
        `${CF_NS_NAMES[n % 16]}.ns.cloudflare.com`,
        `${CF_NS_NAMES[(n >> 4) % 16 === n % 16 ? (n + 1) % 16 : (n >> 4) % 16]}.ns.cloudflare.com`,
      ];
    case 'route53':
      return [
        `ns-${n % 512}.awsdns-${n % 64}.com`,
        `ns-${(n % 512) + 512}.awsdns-${(n + 7) % 64}.net`,
        `ns-${(n % 512) + 1024}.awsdns-${(n + 13) % 64}.org`,
        `ns-${(n % 512) + 1536}.awsdns-${(n + 21) % 64}.co.uk`,
      ];
    case 'godaddy':
      return [`ns${(n % 80) + 1}.domaincontrol.com`, `ns${(n % 80) + 2}.domaincontrol.com`];
    case 'ovh':
      return [`dns${(n % 200) + 1}.ovh.net`, `ns${(n % 200) + 1}.ovh.net`];
    case 'google':
      return ['a', 'b', 'c', 'd'].map((x) => `ns-cloud-${x}${(n % 5) + 1}.googledomains.com`);
    case 'azure': {
      const k = String((n % 9) + 1).padStart(2, '0');
      return [
        `ns1-${k}.azure-dns.com`,
        `ns2-${k}.azure-dns.net`,
        `ns3-${k}.azure-dns.org`,
        `ns4-${k}.azure-dns.info`,
      ];
    }
    case 'namecheap':
      return ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'];
    case 'gandi':
      return [`ns-${n % 250}-a.gandi.net`, `ns-${n % 250}-b.gandi.net`, `ns-${n % 250}-c.gandi.net`];
    case 'ionos':
      return ['de', 'com', 'org', 'biz'].map((x) => `ns${1000 + (n % 100)}.ui-dns.${x}`);
    case 'hetzner':
      return HETZNER_NS.slice();
    case 'self':
      return [`ns1.${domain.name}`, `ns2.${domain.name}`];
    case 'markmonitor':
      return ['ns1.markmonitor.com', 'ns2.markmonitor.com', 'ns3.markmonitor.com'];
  }
}

export function mailExchangers(domain: DomainProfile): string[] {
  switch (domain.mail) {
    case 'google':
      return ['aspmx.l.google.com', 'alt1.aspmx.l.google.com', 'alt2.aspmx.l.google.com'];
    case 'microsoft':
      return [`${domain.name.replaceAll('.', '-')}.mail.protection.outlook.com`];
    case 'self':
      return [`mail.${domain.name}`];
    case 'ovh':
      return ['mx1.mail.ovh.net', 'mx2.mail.ovh.net'];
    case 'zoho':
      return ['mx.zoho.eu', 'mx2.zoho.eu'];
    case 'proton':
      return ['mail.protonmail.ch', 'mailsec.protonmail.ch'];
    case 'ionos':
      return ['mx00.ionos.de', 'mx01.ionos.de'];
    case 'none':
      return [];
  }
}
