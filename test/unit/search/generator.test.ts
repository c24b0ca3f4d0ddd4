import { beforeAll, describe, expect, it } from '@jest/globals';
import { DATASETS, type Dataset } from '../../../src/search/domain/datasets.js';
import {
  validateRecord,
  type DnsRecord,
  type HostRecord,
  type ObservationRecord,
  type VhostRecord,
  type WhoisRecord,
} from '../../../src/search/domain/records.js';
import {
  describeWorld,
  digestRecords,
  generateRecords,
  registeredDomainOf,
} from '../../../src/search/data/generator.js';

const NOW = new Date('2026-01-15T12:00:00.000Z');
const DAY = 86_400_000;
const CDN_ASNS = [13335, 16509, 20940, 54113];

function generate<T = ObservationRecord>(
  dataset: Dataset,
  count: number,
  seed: string | number = 'test',
): T[] {
  return [...generateRecords(dataset, { count, seed, now: NOW })] as T[];
}

function tally<T>(values: Iterable<T>): Map<T, number> {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

function ranked<T>(counts: Map<T, number>): T[] {
  return [...counts].sort((a, b) => b[1] - a[1]).map(([value]) => value);
}

describe('generateRecords: determinism', () => {
  it('the same seed, count and now give the same records', () => {
    for (const dataset of DATASETS) {
      const a = digestRecords(generateRecords(dataset, { count: 2000, seed: 42, now: NOW }));
      const b = digestRecords(generateRecords(dataset, { count: 2000, seed: 42, now: NOW }));
      expect(a).toBe(b);
    }
  });

  it('another seed or another now gives other records', () => {
    const base = digestRecords(generateRecords('hosts', { count: 500, seed: 'a', now: NOW }));
    expect(digestRecords(generateRecords('hosts', { count: 500, seed: 'b', now: NOW }))).not.toBe(base);
    expect(
      digestRecords(generateRecords('hosts', { count: 500, seed: 'a', now: new Date(NOW.getTime() + DAY) })),
    ).not.toBe(base);
  });

  it('a numeric seed and its text are the same seed', () => {
    expect(digestRecords(generateRecords('whois', { count: 300, seed: 7, now: NOW }))).toBe(
      digestRecords(generateRecords('whois', { count: 300, seed: '7', now: NOW })),
    );
  });

  it('produces exactly count records, and none for 0; refuses a bad count or date', () => {
    for (const dataset of DATASETS) expect(generate(dataset, 1234)).toHaveLength(1234);
    expect(generate('dns', 0)).toEqual([]);
    expect(() => generateRecords('hosts', { count: -1, seed: 1, now: NOW })).toThrow(RangeError);
    expect(() => generateRecords('hosts', { count: 1.5, seed: 1, now: NOW })).toThrow(RangeError);
    expect(() => generateRecords('hosts', { count: 1, seed: 1, now: new Date('nope') })).toThrow(RangeError);
  });
});

describe('generateRecords: every record is valid', () => {
  it.each(DATASETS)('%s: 10,000 records pass validateRecord unchanged, with unique ids', (dataset) => {
    const ids = new Set<string>();
    const failures: string[] = [];
    for (const record of generateRecords(dataset, { count: 10_000, seed: 'valid', now: NOW })) {
      const result = validateRecord(dataset, record);
      if (!result.ok) failures.push(`${record.id}: ${result.problems.join('; ')}`);
      // Already normalized: what the generator writes is what validation would store.
      else if (JSON.stringify(result.record) !== JSON.stringify(record))
        failures.push(`${record.id}: not normalized`);
      if (ids.has(record.id)) failures.push(`${record.id}: duplicate id`);
      ids.add(record.id);
    }
    expect(failures.slice(0, 5)).toEqual([]);
    expect(ids.size).toBe(10_000);
  });

  it('observations fall in the two years before now, recent ones more often', () => {
    for (const dataset of DATASETS) {
      const records = generate(dataset, 5000);
      const ages = records.map((r) => (NOW.getTime() - Date.parse(r.last_seen)) / DAY);
      expect(Math.min(...ages)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...ages)).toBeLessThanOrEqual(730);
      for (const r of records)
        expect(Date.parse(r.first_seen)).toBeGreaterThanOrEqual(NOW.getTime() - 730 * DAY);
      const lastQuarter = ages.filter((age) => age <= 182).length / ages.length;
      const firstQuarter = ages.filter((age) => age > 547).length / ages.length;
      expect(lastQuarter).toBeGreaterThan(0.45);
      expect(lastQuarter).toBeGreaterThan(firstQuarter * 2);
    }
  });
});

describe('generateRecords: hosts look like an internet scan', () => {
  let hosts: HostRecord[];
  beforeAll(() => {
    hosts = generate<HostRecord>('hosts', 40_000, 'distribution');
  });

  it('ports weighted like real scans: 80 and 443 first, then 22 and TR-069', () => {
    const ports = ranked(tally(hosts.map((h) => h.port)));
    expect(ports.slice(0, 2).sort()).toEqual([443, 80]);
    expect(ports.slice(0, 4)).toEqual(expect.arrayContaining([22, 7547]));
    const share80 = hosts.filter((h) => h.port === 80).length / hosts.length;
    expect(share80).toBeGreaterThan(0.15);
    expect(share80).toBeLessThan(0.35);
    for (const port of [8080, 21, 25, 3389, 8443, 53, 3306, 5432, 6379, 9200, 27017]) {
      expect(ports).toContain(port);
    }
    expect(hosts.some((h) => h.transport === 'udp' && h.port === 53)).toBe(true);
  });

  it('about 3% shared edge hosts, with CDN ASNs and many hostnames', () => {
    const edge = hosts.filter((h) => h.shared_edge);
    const share = edge.length / hosts.length;
    expect(share).toBeGreaterThan(0.02);
    expect(share).toBeLessThan(0.045);
    for (const h of edge) expect(CDN_ASNS).toContain(h.asn);
    const names = edge.map((h) => h.hostnames?.length ?? 0);
    expect(names.reduce((a, b) => a + b, 0) / edge.length).toBeGreaterThan(10);
    expect(Math.max(...names)).toBeGreaterThan(25);
    // Ordinary hosts serve a handful of names at most.
    const ordinary = hosts.filter((h) => !h.shared_edge && h.hostnames);
    expect(Math.max(...ordinary.map((h) => h.hostnames!.length))).toBeLessThanOrEqual(12);
  });

  it('products from real software tables, with vulnerable and fixed versions of catalogued products', () => {
    const versions = new Set(hosts.map((h) => `${h.product} ${h.version ?? ''}`.trim()));
    const products = ranked(tally(hosts.map((h) => h.product)));
    expect(products.slice(0, 4)).toEqual(expect.arrayContaining(['openssh', 'nginx', 'apache httpd']));
    // Apache httpd 2.4.49/2.4.50 (CVE-2021-41773, CVE-2021-42013) and fixed releases.
    for (const v of [
      'apache httpd 2.4.49',
      'apache httpd 2.4.50',
      'apache httpd 2.4.58',
      'apache httpd 2.4.62',
    ])
      expect(versions).toContain(v);
    // nginx before and after 1.20.1 (CVE-2021-23017).
    for (const v of ['nginx 1.18.0', 'nginx 1.16.1', 'nginx 1.20.1', 'nginx 1.26.2'])
      expect(versions).toContain(v);
    // OpenSSH 7.x to 9.x.
    for (const v of ['openssh 7.4', 'openssh 8.2p1', 'openssh 8.9p1', 'openssh 9.2p1', 'openssh 9.9'])
      expect(versions).toContain(v);
    for (const product of ['exchange server', 'fortios', 'pan-os', 'confluence', 'jenkins', 'gitlab'])
      expect(products).toContain(product);
    const cpes = new Set(hosts.flatMap((h) => h.cpe ?? []));
    expect(cpes).toContain('cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*');
    expect(cpes).toContain('cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*');
    expect([...cpes].some((c) => c.startsWith('cpe:2.3:a:apache:log4j:2.14.1:'))).toBe(true);
    expect([...cpes].some((c) => c.startsWith('cpe:2.3:o:fortinet:fortios:7.2.6:'))).toBe(true);
    expect([...cpes].some((c) => c.startsWith('cpe:2.3:o:fortinet:fortios:7.2.7:'))).toBe(true);
  });

  it('HTTP titles, servers and favicons; some favicons shared by many hosts', () => {
    const web = hosts.filter((h) => h.http);
    expect(web.length / hosts.length).toBeGreaterThan(0.4);
    const titles = new Set(web.map((h) => h.http?.title));
    for (const t of [
      'Welcome to nginx!',
      'IIS Windows Server',
      'Outlook',
      'Sign in · GitLab',
      'GlobalProtect Portal',
    ])
      expect(titles).toContain(t);
    expect(web.some((h) => h.http?.server === 'nginx/1.18.0 (ubuntu)')).toBe(true);
    const favicons = tally(hosts.flatMap((h) => (h.favicon?.hash === undefined ? [] : [h.favicon.hash])));
    expect(favicons.size).toBeGreaterThan(20);
    expect(Math.max(...favicons.values())).toBeGreaterThan(20);
  });

  it('countries, cities, ASNs and organizations with real-looking weights', () => {
    const countries = ranked(tally(hosts.map((h) => h.country)));
    expect(countries[0]).toBe('us');
    expect(countries.slice(0, 4)).toEqual(expect.arrayContaining(['cn', 'de']));
    const organizations = ranked(tally(hosts.map((h) => h.organization)));
    expect(organizations[0]).toBe('amazon.com, inc.');
    expect(hosts.filter((h) => h.city).length / hosts.length).toBeGreaterThan(0.8);
    expect(new Set(hosts.map((h) => h.asn)).size).toBeGreaterThan(30);
    expect(hosts.some((h) => h.ip.includes(':'))).toBe(true);
    expect(hosts.some((h) => h.hostnames?.some((n) => n.endsWith('.compute.amazonaws.com')))).toBe(true);
  });
});

describe('generateRecords: one world across datasets', () => {
  const COUNT = 10_000;
  let hosts: HostRecord[];
  let dns: DnsRecord[];
  let vhosts: VhostRecord[];
  let whois: WhoisRecord[];
  beforeAll(() => {
    hosts = generate<HostRecord>('hosts', COUNT, 'world');
    dns = generate<DnsRecord>('dns', COUNT, 'world');
    vhosts = generate<VhostRecord>('vhosts', COUNT, 'world');
    whois = generate<WhoisRecord>('whois', COUNT, 'world');
  });

  const domainsOf = (names: Iterable<string>) =>
    new Set([...names].map((name) => registeredDomainOf(name)).filter((d): d is string => d !== undefined));

  it('a domain search finds hosts, dns, vhosts and whois records', () => {
    const hostDomains = domainsOf(hosts.filter((h) => !h.shared_edge).flatMap((h) => h.hostnames ?? []));
    const dnsDomains = domainsOf(dns.map((r) => r.name));
    const certDomains = domainsOf(vhosts.flatMap((r) => r.names ?? []));
    const registered = new Set(whois.map((r) => r.domain));
    const everywhere = [...hostDomains].filter(
      (d) => dnsDomains.has(d) && certDomains.has(d) && registered.has(d),
    );
    expect(everywhere.length).toBeGreaterThan(500);
  });

  it('dns A/AAAA records point at generated hosts, which list the name back', () => {
    const byIp = new Map<string, HostRecord[]>();
    for (const h of hosts) byIp.set(h.ip, [...(byIp.get(h.ip) ?? []), h]);
    const addresses = dns.filter((r) => r.type === 'a' || r.type === 'aaaa');
    expect(addresses.some((r) => r.type === 'aaaa')).toBe(true);
    const pointing = addresses.filter((r) => byIp.has(r.value));
    expect(pointing.length / addresses.length).toBeGreaterThan(0.9);
    const named = pointing.filter((r) => byIp.get(r.value)!.some((h) => h.hostnames?.includes(r.name)));
    expect(named.length / addresses.length).toBeGreaterThan(0.6);
  });

  it('every dns record type of the vocabulary but none other', () => {
    const types = tally<string>(dns.map((r) => r.type));
    expect([...types.keys()].sort()).toEqual(['a', 'aaaa', 'caa', 'cname', 'mx', 'ns', 'soa', 'txt']);
    expect(ranked(types)[0]).toBe('a');
  });

  it('whois name servers are the ones the dns delegates to', () => {
    const delegations = new Map<string, Set<string>>();
    for (const r of dns.filter((r) => r.type === 'ns'))
      delegations.set(r.name, new Set([...(delegations.get(r.name) ?? []), r.value]));
    // The stream stops after `count` records, possibly inside the last domain's records.
    delegations.delete(dns.at(-1)!.name);
    let compared = 0;
    for (const w of whois) {
      const delegated = delegations.get(w.domain);
      if (!delegated) continue;
      compared++;
      expect(new Set(w.name_servers)).toEqual(delegated);
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('a certificate seen on a host is the same certificate in vhosts', () => {
    const certificates = new Map(vhosts.filter((v) => v.ip).map((v) => [`${v.ip}:${v.port}`, v]));
    const withTls = hosts.filter((h) => h.tls && certificates.has(`${h.ip}:${h.port}`));
    expect(withTls.length).toBeGreaterThan(500);
    for (const h of withTls) {
      const cert = certificates.get(`${h.ip}:${h.port}`)!;
      expect(h.tls?.fingerprint).toBe(cert.fingerprint);
      expect(h.tls?.subject?.cn).toBe(cert.subject?.cn);
    }
    // One certificate serves every address of its domain.
    const spread = tally(vhosts.filter((v) => v.ip && !v.self_signed).map((v) => v.fingerprint));
    expect(Math.max(...spread.values())).toBeGreaterThan(3);
  });

  it('certificates: public CAs, a self-signed share and an expired share', () => {
    const selfSigned = vhosts.filter((v) => v.self_signed).length / vhosts.length;
    expect(selfSigned).toBeGreaterThan(0.02);
    expect(selfSigned).toBeLessThan(0.2);
    const expired = vhosts.filter((v) => Date.parse(v.not_after!) < NOW.getTime()).length / vhosts.length;
    expect(expired).toBeGreaterThan(0.05);
    expect(expired).toBeLessThan(0.5);
    const issuers = new Set(vhosts.map((v) => v.issuer?.cn));
    for (const issuer of [
      'r10',
      'r11',
      'digicert global g2 tls rsa sha256 2020 ca1',
      'sectigo rsa domain validation secure server ca',
    ])
      expect(issuers).toContain(issuer);
    expect(vhosts.some((v) => !v.ip)).toBe(true);
  });

  it('whois: registrars, statuses, organizations and natural-person contacts for some', () => {
    const persons = whois.filter((w) => w.registrant?.name).length / whois.length;
    expect(persons).toBeGreaterThan(0.1);
    expect(persons).toBeLessThan(0.4);
    expect(whois.filter((w) => w.registrant?.organization).length / whois.length).toBeGreaterThan(0.5);
    expect(whois.some((w) => w.admin?.email && w.tech?.name)).toBe(true);
    expect(new Set(whois.map((w) => w.registrar)).size).toBeGreaterThan(10);
    const expired = whois.filter((w) => Date.parse(w.expires!) < NOW.getTime()).length / whois.length;
    expect(expired).toBeGreaterThan(0.005);
    expect(expired).toBeLessThan(0.1);
    expect(new Set(whois.flatMap((w) => w.status ?? []))).toContain('clienttransferprohibited');
  });

  it('the world has the shape its parameters say', () => {
    const shape = describeWorld({ count: COUNT, seed: 'world', now: NOW });
    expect(new Set(hosts.map((h) => h.ip)).size).toBeGreaterThanOrEqual(shape.addresses * 0.97);
    expect(shape.domainPool).toBeGreaterThan(0);
    expect(shape.edgeAddresses).toBeGreaterThan(0);
  });
});

describe('generateRecords: scale', () => {
  it('streams 200,000 hosts one by one (nothing accumulated)', () => {
    let count = 0;
    let sampled = 0;
    for (const record of generateRecords('hosts', { count: 200_000, seed: 'scale', now: NOW })) {
      if (count % 5000 === 0 && validateRecord('hosts', record).ok) sampled++;
      count++;
    }
    expect(count).toBe(200_000);
    expect(sampled).toBe(40);
  }, 120_000);
});

describe('registeredDomainOf', () => {
  it('knows the generator suffixes', () => {
    expect(registeredDomainOf('www.acmelabs.co.uk')).toBe('acmelabs.co.uk');
    expect(registeredDomainOf('*.acmelabs.com')).toBe('acmelabs.com');
    expect(registeredDomainOf('a.b.acmelabs.com.br')).toBe('acmelabs.com.br');
    expect(registeredDomainOf('localhost')).toBeUndefined();
  });
});
