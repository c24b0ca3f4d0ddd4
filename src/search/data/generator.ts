import { createHash } from 'node:crypto';
import type { Dataset } from '../domain/datasets.js';
import {
  dnsRecordId,
  hostRecordId,
  vhostRecordId,
  type DnsRecord,
  type HostRecord,
  type ObservationRecord,
  type VhostRecord,
  type WhoisRecord,
} from '../domain/records.js';
import { formatIp } from '../query-language/validation.js';

/**
 * Deterministic generator of realistic observation records for the four datasets (demo corpus, benchmarks,
 * tests). Same seed + count + now → the same records in the same order; nothing else is read (no clock, no
 * Math.random, no files): the software, network and registrar tables below are small curated excerpts of
 * public knowledge (recog fingerprints, NVD/KEV product names, registrar and CA names).
 *
 * One "world" per (seed, count) ties the datasets together, so generate them with the same seed and count:
 * - a deterministic, infinite sequence of domains; the first `domainPool` ones are hosted on the generated
 *   host addresses (hostnames, TLS names), resolved in dns, certified in vhosts and registered in whois;
 * - host address j (j = 0, 1, …) belongs to domain `j mod domainPool` for ~55% of addresses; dns A/AAAA
 *   records of that domain point at exactly those addresses, and the hosts list the names back;
 * - every `edgeStride`-th address is shared edge/CDN infrastructure (~3% of host records) that serves many
 *   domains: `shared_edge: true`, CDN ASN and organization, a dozen hostnames or more;
 * - a certificate is a function of (domain, issuance), so the same fingerprint appears on every address of a
 *   domain, in hosts `tls.fingerprint` and in vhosts.
 * Every record is in the normalized form `validateRecord` returns (lowercased case-insensitive fields,
 * canonical addresses, ISO dates), so it can be written as is.
 */
export interface GenerateOptions {
  /** Records to produce for the dataset. */
  readonly count: number;
  readonly seed: string | number;
  /** Reference time: observations fall within the two years before it, recent ones more often. */
  readonly now: Date;
}

export const GENERATOR_VERSION = 1;

/** Streams `count` records of `dataset`; nothing is held beyond the current address or domain. */
export function generateRecords(dataset: Dataset, options: GenerateOptions): Iterable<ObservationRecord> {
  if (!Number.isSafeInteger(options.count) || options.count < 0)
    throw new RangeError('count must be a non-negative integer');
  if (Number.isNaN(options.now.getTime())) throw new RangeError('now must be a valid date');
  const world = createWorld(options);
  switch (dataset) {
    case 'hosts':
      return take(hostRecords(world), options.count);
    case 'dns':
      return take(dnsRecords(world), options.count);
    case 'vhosts':
      return take(vhostRecords(world), options.count);
    case 'whois':
      return take(whoisRecords(world), options.count);
  }
}

/** Shape of the world for a seed and count (exposed for tests and the CLI summary). */
export function describeWorld(options: GenerateOptions): {
  addresses: number;
  domainPool: number;
  edgeAddresses: number;
  edgeStride: number;
} {
  const world = createWorld(options);
  return {
    addresses: world.ipCount,
    domainPool: world.domainPool,
    edgeAddresses: world.edgeCount,
    edgeStride: world.edgeStride,
  };
}

/** The registered domain of a generated name (`www.acme.co.uk` → `acme.co.uk`), knowing the generator's TLDs. */
export function registeredDomainOf(name: string): string | undefined {
  const labels = name.replace(/^\*\./, '').split('.');
  for (const size of [3, 2]) {
    if (labels.length < size) continue;
    const suffix = labels.slice(-(size - 1)).join('.');
    if (TLD_SET.has(suffix) && (size === 3 || !TLD_SET.has(labels.slice(-2).join('.'))))
      return labels.slice(-size).join('.');
  }
  return undefined;
}

function* take<T>(source: Iterable<T>, count: number): Generator<T> {
  if (count <= 0) return;
  let produced = 0;
  for (const item of source) {
    yield item;
    if (++produced >= count) return;
  }
}

// ==== randomness ============================================================================================

function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

function fmix32(input: number): number {
  let h = input;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Independent streams of randomness, one per kind of entity. */
const enum Stream {
  Host = 1,
  Own = 2,
  Domain = 3,
  DomainDns = 4,
  Whois = 5,
  Cert = 6,
  Device = 7,
  V6 = 8,
  Ct = 9,
  Wheel = 10,
  Calibration = 11,
}

/** Stateless 32-bit hash of (seed, stream, index). */
function hash(seed: readonly number[], stream: number, index: number, salt = 0): number {
  return fmix32(
    (seed[0]! ^ fmix32(Math.imul(stream, 0x9e3779b1) ^ salt)) +
      fmix32((index >>> 0) ^ seed[1]!) +
      Math.imul(Math.floor(index / 4294967296), 0x27d4eb2d),
  );
}

function unit(seed: readonly number[], stream: number, index: number, salt = 0): number {
  return hash(seed, stream, index, salt) / 4294967296;
}

/** sfc32: small, fast, good statistical quality; one instance per entity keeps entities independent. */
class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: readonly number[], stream: number, index: number, salt = 0) {
    this.a = seed[0]! ^ fmix32(Math.imul(stream, 0x632be5ab) ^ salt);
    this.b = seed[1]! ^ fmix32(index >>> 0);
    this.c =
      seed[2]! ^ fmix32(Math.imul(index >>> 0, 0x27d4eb2d) ^ seed[3]! ^ Math.floor(index / 4294967296));
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.u32() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  between(low: number, high: number): number {
    return low + this.int(high - low + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  weighted<T>(table: Weighted<T>): T {
    const target = this.next() * table.total;
    const { cumulative, items } = table;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! > target) high = mid;
      else low = mid + 1;
    }
    return items[low]!;
  }

  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.u32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  digits(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += String(this.int(10));
    return out;
  }
}

interface Weighted<T> {
  readonly items: readonly T[];
  readonly cumulative: readonly number[];
  readonly total: number;
}

function weighted<T>(rows: ReadonlyArray<readonly [T, number]>): Weighted<T> {
  const items: T[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (const [item, weight] of rows) {
    if (weight <= 0) continue;
    total += weight;
    items.push(item);
    cumulative.push(total);
  }
  return { items, cumulative, total };
}

function hexOf(seed: readonly number[], stream: number, index: number, salt: number, length: number): string {
  let out = '';
  for (let i = 0; out.length < length; i++)
    out += hash(seed, stream, index, salt + i * 7919)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
}

// ==== time ==================================================================================================

const SECOND = 1000;
const DAY = 86_400_000;
const YEAR = 365 * DAY;
const WINDOW = 730 * DAY;

function iso(ms: number): string {
  return new Date(Math.floor(ms / SECOND) * SECOND).toISOString();
}

/** last_seen skewed to recent, first_seen between the window start and last_seen, also skewed to recent. */
function seenWindow(rng: Rng, now: number, recency = 3): { first: number; last: number } {
  const start = now - WINDOW;
  const last = now - WINDOW * Math.pow(rng.next(), recency);
  const first = last - (last - start) * Math.pow(rng.next(), 1.6);
  return { first: Math.floor(first / SECOND) * SECOND, last: Math.floor(last / SECOND) * SECOND };
}

// ==== networks ==============================================================================================

type NetworkKind = 'cloud' | 'hosting' | 'isp';

interface Network {
  readonly name: string;
  readonly asn: number;
  readonly organization: string;
  readonly kind: NetworkKind;
  readonly weight: number;
  readonly prefixes: readonly string[];
  readonly countries: Weighted<string>;
  /** First two groups of a /32 IPv6 allocation. */
  readonly v6?: readonly [number, number];
  readonly rdns?: (ip: readonly number[], country: string, rng: Rng) => string | undefined;
}

const AWS_REGIONS: Readonly<Record<string, string>> = {
  us: 'compute-1',
  de: 'eu-central-1.compute',
  ie: 'eu-west-1.compute',
  gb: 'eu-west-2.compute',
  fr: 'eu-west-3.compute',
  jp: 'ap-northeast-1.compute',
  sg: 'ap-southeast-1.compute',
  au: 'ap-southeast-2.compute',
  in: 'ap-south-1.compute',
  br: 'sa-east-1.compute',
  ca: 'ca-central-1.compute',
};

const COMCAST_STATES = [
  'ca',
  'pa',
  'il',
  'fl',
  'ga',
  'co',
  'wa',
  'or',
  'md',
  'va',
  'tx',
  'mn',
  'nj',
  'ma',
  'mi',
];

const net = (
  name: string,
  asn: number,
  organization: string,
  kind: NetworkKind,
  weight: number,
  prefixes: string[],
  countries: Array<[string, number]>,
  extra: { v6?: [number, number]; rdns?: Network['rdns'] } = {},
): Network => ({ name, asn, organization, kind, weight, prefixes, countries: weighted(countries), ...extra });

const NETWORKS: readonly Network[] = [
  net(
    'aws',
    16509,
    'Amazon.com, Inc.',
    'cloud',
    95,
    ['3.0.0.0/9', '52.0.0.0/11', '54.64.0.0/11', '18.184.0.0/15'],
    [
      ['us', 55],
      ['de', 8],
      ['ie', 8],
      ['jp', 6],
      ['sg', 5],
      ['gb', 5],
      ['au', 4],
      ['in', 3],
      ['br', 3],
      ['ca', 2],
      ['fr', 1],
    ],
    {
      v6: [0x2600, 0x1f18],
      rdns: (ip, country) => `ec2-${ip.join('-')}.${AWS_REGIONS[country] ?? 'compute-1'}.amazonaws.com`,
    },
  ),
  net(
    'azure',
    8075,
    'Microsoft Corporation',
    'cloud',
    55,
    ['20.0.0.0/11', '40.64.0.0/10', '52.224.0.0/11'],
    [
      ['us', 50],
      ['nl', 10],
      ['ie', 8],
      ['gb', 6],
      ['de', 5],
      ['fr', 5],
      ['sg', 5],
      ['jp', 4],
      ['au', 4],
      ['in', 3],
    ],
    { v6: [0x2603, 0x1030] },
  ),
  net(
    'gcp',
    396982,
    'Google LLC',
    'cloud',
    40,
    ['34.64.0.0/10', '35.184.0.0/13'],
    [
      ['us', 60],
      ['be', 8],
      ['nl', 6],
      ['de', 6],
      ['jp', 6],
      ['sg', 5],
      ['gb', 5],
      ['au', 4],
    ],
    {
      v6: [0x2600, 0x1900],
      rdns: (ip) => `${[...ip].reverse().join('.')}.bc.googleusercontent.com`,
    },
  ),
  net(
    'digitalocean',
    14061,
    'DigitalOcean, LLC',
    'cloud',
    50,
    [
      '159.89.0.0/16',
      '167.99.0.0/16',
      '138.68.0.0/16',
      '164.90.0.0/16',
      '143.198.0.0/16',
      '134.209.0.0/16',
      '206.189.0.0/16',
      '46.101.0.0/16',
      '165.227.0.0/16',
      '68.183.0.0/16',
    ],
    [
      ['us', 45],
      ['de', 12],
      ['nl', 12],
      ['gb', 10],
      ['sg', 8],
      ['in', 7],
      ['ca', 6],
    ],
    { v6: [0x2604, 0xa880] },
  ),
  net(
    'ovh',
    16276,
    'OVH SAS',
    'hosting',
    50,
    [
      '51.68.0.0/14',
      '51.75.0.0/16',
      '51.77.0.0/16',
      '51.89.0.0/16',
      '54.36.0.0/14',
      '137.74.0.0/16',
      '145.239.0.0/16',
      '147.135.0.0/16',
      '149.202.0.0/16',
      '164.132.0.0/16',
      '178.32.0.0/15',
      '188.165.0.0/16',
    ],
    [
      ['fr', 60],
      ['ca', 12],
      ['de', 8],
      ['gb', 6],
      ['pl', 6],
      ['us', 5],
      ['sg', 3],
    ],
    { v6: [0x2001, 0x41d0], rdns: (ip) => `ip${ip[3]}.ip-${ip[0]}-${ip[1]}-${ip[2]}.eu` },
  ),
  net(
    'hetzner',
    24940,
    'Hetzner Online GmbH',
    'hosting',
    50,
    [
      '78.46.0.0/15',
      '88.198.0.0/16',
      '88.99.0.0/16',
      '116.202.0.0/15',
      '136.243.0.0/16',
      '144.76.0.0/16',
      '148.251.0.0/16',
      '157.90.0.0/16',
      '159.69.0.0/16',
      '168.119.0.0/16',
      '176.9.0.0/16',
      '195.201.0.0/16',
      '5.9.0.0/16',
      '65.108.0.0/15',
      '95.216.0.0/15',
      '135.181.0.0/16',
    ],
    [
      ['de', 75],
      ['fi', 20],
      ['us', 5],
    ],
    { v6: [0x2a01, 0x4f8], rdns: (ip) => `static.${[...ip].reverse().join('.')}.clients.your-server.de` },
  ),
  net(
    'linode',
    63949,
    'Akamai Connected Cloud',
    'cloud',
    18,
    ['45.33.0.0/17', '45.79.0.0/16', '139.162.0.0/16', '172.104.0.0/15'],
    [
      ['us', 60],
      ['de', 12],
      ['gb', 10],
      ['jp', 8],
      ['sg', 10],
    ],
    {
      v6: [0x2600, 0x3c00],
      rdns: (ip, _c, rng) => `li${rng.between(100, 2400)}-${ip[3]}.members.linode.com`,
    },
  ),
  net(
    'vultr',
    20473,
    'The Constant Company, LLC',
    'cloud',
    15,
    ['45.32.0.0/16', '45.76.0.0/16', '45.77.0.0/16', '108.61.0.0/16', '149.28.0.0/16', '207.148.0.0/17'],
    [
      ['us', 55],
      ['de', 10],
      ['nl', 10],
      ['jp', 10],
      ['sg', 8],
      ['au', 7],
    ],
    { v6: [0x2001, 0x19f0], rdns: (ip) => `${ip.join('.')}.vultrusercontent.com` },
  ),
  net(
    'contabo',
    51167,
    'Contabo GmbH',
    'hosting',
    16,
    [
      '161.97.64.0/18',
      '167.86.64.0/18',
      '173.212.192.0/18',
      '207.180.192.0/18',
      '62.171.128.0/18',
      '5.189.128.0/17',
    ],
    [
      ['de', 80],
      ['us', 12],
      ['sg', 8],
    ],
    { v6: [0x2a02, 0xc207], rdns: (_ip, _c, rng) => `vmi${rng.between(100000, 2499999)}.contaboserver.net` },
  ),
  net(
    'ionos',
    8560,
    'IONOS SE',
    'hosting',
    14,
    ['82.165.0.0/16', '217.160.0.0/16', '212.227.0.0/16', '74.208.0.0/16'],
    [
      ['de', 55],
      ['us', 20],
      ['gb', 10],
      ['es', 10],
      ['fr', 5],
    ],
    { v6: [0x2001, 0x8d8] },
  ),
  net(
    'scaleway',
    12876,
    'Scaleway S.A.S.',
    'hosting',
    8,
    ['51.15.0.0/16', '51.158.0.0/15', '163.172.0.0/16', '212.47.224.0/19'],
    [
      ['fr', 80],
      ['nl', 12],
      ['pl', 8],
    ],
    { v6: [0x2001, 0xbc8], rdns: (ip) => `${ip.join('-')}.instances.scw.cloud` },
  ),
  net(
    'godaddy',
    26496,
    'GoDaddy.com, LLC',
    'hosting',
    10,
    ['160.153.0.0/16', '184.168.0.0/16', '208.109.0.0/16', '107.180.0.0/16'],
    [
      ['us', 85],
      ['nl', 8],
      ['sg', 7],
    ],
    { rdns: (ip) => `ip-${ip.join('-')}.ip.secureserver.net` },
  ),
  net(
    'oracle',
    31898,
    'Oracle Corporation',
    'cloud',
    14,
    [
      '129.146.0.0/16',
      '132.145.0.0/16',
      '140.238.0.0/16',
      '150.136.0.0/16',
      '152.67.0.0/16',
      '158.101.0.0/16',
    ],
    [
      ['us', 45],
      ['de', 10],
      ['gb', 10],
      ['jp', 8],
      ['in', 8],
      ['br', 7],
      ['au', 6],
      ['kr', 6],
    ],
  ),
  net(
    'alibaba',
    37963,
    'Hangzhou Alibaba Advertising Co.,Ltd.',
    'cloud',
    30,
    ['47.92.0.0/14', '47.96.0.0/11', '39.96.0.0/13', '120.24.0.0/14', '8.130.0.0/15'],
    [['cn', 100]],
  ),
  net(
    'tencent',
    45090,
    'Shenzhen Tencent Computer Systems Company Limited',
    'cloud',
    25,
    ['49.232.0.0/14', '81.68.0.0/14', '118.24.0.0/15', '129.204.0.0/16', '150.158.0.0/16'],
    [['cn', 100]],
  ),
  net(
    'chinanet',
    4134,
    'Chinanet',
    'isp',
    75,
    [
      '27.16.0.0/12',
      '58.208.0.0/12',
      '59.32.0.0/11',
      '106.80.0.0/12',
      '115.192.0.0/11',
      '180.96.0.0/11',
      '183.128.0.0/11',
      '222.64.0.0/11',
    ],
    [['cn', 100]],
  ),
  net(
    'unicom',
    4837,
    'China Unicom China169 Backbone',
    'isp',
    40,
    ['112.224.0.0/11', '123.112.0.0/12', '221.192.0.0/14', '60.0.0.0/11', '124.64.0.0/13'],
    [['cn', 100]],
  ),
  net(
    'kt',
    4766,
    'Korea Telecom',
    'isp',
    35,
    ['121.128.0.0/10', '175.192.0.0/10', '211.48.0.0/13', '222.96.0.0/12'],
    [['kr', 100]],
  ),
  net(
    'comcast',
    7922,
    'Comcast Cable Communications, LLC',
    'isp',
    35,
    ['24.0.0.0/12', '67.160.0.0/11', '73.0.0.0/8', '98.192.0.0/10'],
    [['us', 100]],
    {
      v6: [0x2601, 0x0],
      rdns: (ip, _c, rng) => `c-${ip.join('-')}.hsd1.${rng.pick(COMCAST_STATES)}.comcast.net`,
    },
  ),
  net(
    'charter',
    20115,
    'Charter Communications',
    'isp',
    20,
    ['66.168.0.0/14', '71.80.0.0/13', '97.80.0.0/13'],
    [['us', 100]],
  ),
  net(
    'att',
    7018,
    'AT&T Services, Inc.',
    'isp',
    20,
    ['99.0.0.0/10', '107.192.0.0/10', '75.0.0.0/11'],
    [['us', 100]],
    {
      rdns: (ip) => `${ip.join('-')}.lightspeed.sntcca.sbcglobal.net`,
    },
  ),
  net(
    'dtag',
    3320,
    'Deutsche Telekom AG',
    'isp',
    25,
    ['79.192.0.0/10', '84.128.0.0/10', '87.128.0.0/10', '91.0.0.0/10', '93.192.0.0/10'],
    [['de', 100]],
    {
      v6: [0x2003, 0xe0],
      rdns: (ip) => `p${ip.map((b) => b.toString(16).padStart(2, '0')).join('')}.dip0.t-ipconnect.de`,
    },
  ),
  net(
    'orange',
    3215,
    'Orange S.A.',
    'isp',
    18,
    ['2.0.0.0/12', '86.192.0.0/11', '90.0.0.0/9', '92.128.0.0/10'],
    [['fr', 100]],
    {
      v6: [0x2a01, 0xcb00],
      rdns: (ip, _c, rng) =>
        `lfbn-${rng.pick(['idf1', 'lyo1', 'mar1', 'tou1', 'lil1', 'bor1', 'nan1', 'str1'])}-1-${rng.between(1, 1999)}-${ip[3]}.w${ip[0]}-${ip[1]}.abo.wanadoo.fr`,
    },
  ),
  net(
    'free',
    12322,
    'Free SAS',
    'isp',
    10,
    ['78.192.0.0/10', '82.64.0.0/10', '88.160.0.0/11'],
    [['fr', 100]],
    {
      v6: [0x2a01, 0xe0a],
      rdns: (ip) => `${ip.join('-')}.subs.proxad.net`,
    },
  ),
  net(
    'bt',
    2856,
    'British Telecommunications PLC',
    'isp',
    12,
    ['81.128.0.0/11', '86.128.0.0/10', '109.144.0.0/12'],
    [['gb', 100]],
  ),
  net(
    'telefonica',
    3352,
    'Telefonica de Espana S.A.U.',
    'isp',
    10,
    ['80.24.0.0/13', '83.32.0.0/11', '88.0.0.0/11'],
    [['es', 100]],
  ),
  net(
    'rostelecom',
    12389,
    'PJSC Rostelecom',
    'isp',
    22,
    ['95.24.0.0/13', '109.184.0.0/13', '178.64.0.0/12'],
    [['ru', 100]],
  ),
  net(
    'turktelekom',
    9121,
    'Turk Telekomunikasyon Anonim Sirketi',
    'isp',
    12,
    ['78.160.0.0/11', '88.224.0.0/11'],
    [['tr', 100]],
  ),
  net('vnpt', 45899, 'VNPT Corp', 'isp', 15, ['113.160.0.0/11', '14.160.0.0/11'], [['vn', 100]]),
  net(
    'telkom',
    7713,
    'PT Telekomunikasi Indonesia',
    'isp',
    10,
    ['36.64.0.0/11', '118.96.0.0/13'],
    [['id', 100]],
  ),
  net('airtel', 9498, 'Bharti Airtel Ltd.', 'isp', 12, ['122.160.0.0/12', '182.64.0.0/12'], [['in', 100]]),
  net(
    'claro',
    28573,
    'Claro NXT Telecomunicacoes Ltda',
    'isp',
    15,
    ['177.0.0.0/12', '179.96.0.0/12', '189.0.0.0/12'],
    [['br', 100]],
  ),
  net(
    'ntt',
    4713,
    'NTT Communications Corporation',
    'isp',
    12,
    ['114.144.0.0/12', '153.128.0.0/11', '180.0.0.0/12'],
    [['jp', 100]],
  ),
  net(
    'hinet',
    3462,
    'Data Communication Business Group',
    'isp',
    14,
    ['1.160.0.0/12', '114.32.0.0/12', '36.224.0.0/12'],
    [['tw', 100]],
  ),
  net('telstra', 1221, 'Telstra Limited', 'isp', 6, ['58.160.0.0/12', '101.160.0.0/11'], [['au', 100]]),
  net(
    'rogers',
    812,
    'Rogers Communications Canada Inc.',
    'isp',
    6,
    ['99.224.0.0/11', '174.112.0.0/12'],
    [['ca', 100]],
  ),
];

type CdnId = 'cloudflare' | 'cloudfront' | 'akamai' | 'fastly';

interface Cdn {
  readonly id: CdnId;
  readonly asn: number;
  readonly organization: string;
  readonly prefixes: readonly string[];
  readonly v6?: readonly [number, number];
  readonly locations: ReadonlyArray<readonly [string, string]>;
  readonly server: string;
  readonly product: string;
  readonly vendor: string;
  readonly status: number;
  readonly title: string;
  readonly ports: ReadonlyArray<readonly [number, boolean]>;
}

/** Edge networks. Cloudflare answers on its dozen proxied ports; the others on 80 and 443. */
const CDNS: Readonly<Record<CdnId, Cdn>> = {
  cloudflare: {
    id: 'cloudflare',
    asn: 13335,
    organization: 'Cloudflare, Inc.',
    prefixes: ['104.16.0.0/13', '172.64.0.0/13'],
    v6: [0x2606, 0x4700],
    locations: [['us', 'San Francisco']],
    server: 'cloudflare',
    product: 'cloudflare',
    vendor: 'cloudflare',
    status: 403,
    title: 'Direct IP access not allowed | Cloudflare',
    ports: [
      [80, false],
      [443, true],
      [8080, false],
      [8443, true],
      [2052, false],
      [2053, true],
      [2082, false],
      [2083, true],
      [2086, false],
      [2087, true],
      [2095, false],
      [2096, true],
      [8880, false],
    ],
  },
  cloudfront: {
    id: 'cloudfront',
    asn: 16509,
    organization: 'Amazon.com, Inc.',
    prefixes: ['13.32.0.0/15', '13.224.0.0/14', '18.64.0.0/14', '52.84.0.0/15'],
    locations: [
      ['us', 'Seattle'],
      ['us', 'Ashburn'],
      ['de', 'Frankfurt am Main'],
      ['gb', 'London'],
      ['jp', 'Tokyo'],
    ],
    server: 'CloudFront',
    product: 'cloudfront',
    vendor: 'amazon',
    status: 403,
    title: 'ERROR: The request could not be satisfied',
    ports: [
      [80, false],
      [443, true],
    ],
  },
  akamai: {
    id: 'akamai',
    asn: 20940,
    organization: 'Akamai International B.V.',
    prefixes: ['23.32.0.0/11', '23.192.0.0/11'],
    locations: [
      ['nl', 'Amsterdam'],
      ['de', 'Frankfurt am Main'],
      ['us', 'Cambridge'],
      ['jp', 'Tokyo'],
      ['fr', 'Paris'],
    ],
    server: 'AkamaiGHost',
    product: 'akamaighost',
    vendor: 'akamai',
    status: 400,
    title: 'Invalid URL',
    ports: [
      [80, false],
      [443, true],
    ],
  },
  fastly: {
    id: 'fastly',
    asn: 54113,
    organization: 'Fastly, Inc.',
    prefixes: ['151.101.0.0/16', '199.232.0.0/16'],
    v6: [0x2a04, 0x4e42],
    locations: [['us', 'San Francisco']],
    server: 'Varnish',
    product: 'varnish',
    vendor: 'fastly',
    status: 500,
    title: 'Fastly error: unknown domain',
    ports: [
      [80, false],
      [443, true],
    ],
  },
};

/** Which CDN edge address e belongs to: 6 in 10 Cloudflare. */
const CDN_BY_SLOT: readonly CdnId[] = [
  'cloudflare',
  'cloudflare',
  'cloudflare',
  'cloudflare',
  'cloudflare',
  'cloudflare',
  'cloudfront',
  'cloudfront',
  'akamai',
  'fastly',
];

const CITIES: Readonly<Record<string, Weighted<string>>> = Object.fromEntries(
  Object.entries({
    us: [
      ['Ashburn', 14],
      ['New York', 8],
      ['Los Angeles', 7],
      ['Chicago', 6],
      ['Dallas', 6],
      ['San Jose', 5],
      ['Seattle', 5],
      ['Atlanta', 4],
      ['Miami', 3],
      ['Denver', 3],
      ['Boston', 3],
      ['Phoenix', 3],
      ['Columbus', 3],
      ['Portland', 2],
      ['Houston', 3],
    ],
    de: [
      ['Frankfurt am Main', 12],
      ['Nuremberg', 8],
      ['Falkenstein', 6],
      ['Berlin', 6],
      ['Munich', 5],
      ['Hamburg', 4],
      ['Cologne', 3],
      ['Stuttgart', 3],
      ['Düsseldorf', 3],
    ],
    fr: [
      ['Paris', 14],
      ['Roubaix', 8],
      ['Gravelines', 4],
      ['Strasbourg', 3],
      ['Lyon', 4],
      ['Marseille', 3],
      ['Toulouse', 3],
      ['Lille', 2],
      ['Bordeaux', 2],
      ['Nantes', 2],
    ],
    gb: [
      ['London', 14],
      ['Manchester', 4],
      ['Birmingham', 2],
      ['Leeds', 2],
      ['Edinburgh', 1],
    ],
    nl: [
      ['Amsterdam', 12],
      ['Rotterdam', 2],
      ['Eemshaven', 2],
    ],
    ie: [['Dublin', 1]],
    be: [['Saint-Ghislain', 1]],
    fi: [['Helsinki', 4]],
    pl: [
      ['Warsaw', 4],
      ['Krakow', 1],
    ],
    es: [
      ['Madrid', 6],
      ['Barcelona', 4],
      ['Valencia', 2],
    ],
    ca: [
      ['Toronto', 6],
      ['Montreal', 5],
      ['Beauharnois', 2],
      ['Vancouver', 3],
    ],
    jp: [
      ['Tokyo', 10],
      ['Osaka', 4],
      ['Yokohama', 1],
    ],
    sg: [['Singapore', 1]],
    au: [
      ['Sydney', 6],
      ['Melbourne', 4],
      ['Brisbane', 1],
    ],
    in: [
      ['Mumbai', 6],
      ['Bengaluru', 3],
      ['Delhi', 3],
      ['Chennai', 2],
    ],
    br: [
      ['São Paulo', 8],
      ['Rio de Janeiro', 3],
      ['Belo Horizonte', 1],
    ],
    cn: [
      ['Shanghai', 8],
      ['Beijing', 8],
      ['Guangzhou', 5],
      ['Shenzhen', 5],
      ['Hangzhou', 5],
      ['Nanjing', 3],
      ['Chengdu', 3],
      ['Wuhan', 2],
      ['Qingdao', 2],
    ],
    kr: [
      ['Seoul', 10],
      ['Busan', 3],
      ['Incheon', 2],
      ['Daejeon', 1],
    ],
    ru: [
      ['Moscow', 8],
      ['Saint Petersburg', 4],
      ['Novosibirsk', 1],
      ['Yekaterinburg', 1],
    ],
    tr: [
      ['Istanbul', 6],
      ['Ankara', 3],
      ['Izmir', 1],
    ],
    vn: [
      ['Hanoi', 4],
      ['Ho Chi Minh City', 5],
    ],
    id: [
      ['Jakarta', 5],
      ['Surabaya', 2],
    ],
    tw: [
      ['Taipei', 5],
      ['Taichung', 2],
      ['Kaohsiung', 1],
    ],
  } as Record<string, Array<[string, number]>>).map(([country, rows]) => [country, weighted(rows)]),
);

// ==== addresses =============================================================================================

interface Block {
  readonly base: number;
  readonly size: number;
}

interface AddressSpace {
  readonly blocks: readonly Block[];
  readonly size: number;
  readonly multiplier: number;
  readonly offset: number;
}

function parsePrefix(cidr: string): Block {
  const [address, length] = cidr.split('/') as [string, string];
  const parts = address.split('.').map(Number);
  const base = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
  return { base, size: 2 ** (32 - Number(length)) };
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y) [x, y] = [y, x % y];
  return x;
}

/** An affine permutation of a network's addresses: local index i → a distinct address while i < size. */
function addressSpace(prefixes: readonly string[], seed: readonly number[], salt: number): AddressSpace {
  const blocks = prefixes.map(parsePrefix);
  const size = blocks.reduce((sum, block) => sum + block.size, 0);
  let multiplier = (hash(seed, Stream.Wheel, salt, 1) % Math.max(1, size - 1)) | 1;
  while (gcd(multiplier, size) !== 1) multiplier += 2;
  return { blocks, size, multiplier, offset: hash(seed, Stream.Wheel, salt, 2) % size };
}

function addressAt(space: AddressSpace, local: number): number[] {
  let position = (space.multiplier * (local % space.size) + space.offset) % space.size;
  for (const block of space.blocks) {
    if (position < block.size) {
      const value = block.base + position;
      return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
    }
    position -= block.size;
  }
  throw new Error('address outside its network');
}

function v6Address(prefix: readonly [number, number], local: number, interfaceId: number): string {
  const groups = [
    prefix[0],
    prefix[1],
    (local >>> 16) & 0xffff,
    local & 0xffff,
    0,
    0,
    0,
    interfaceId & 0xffff,
  ];
  return formatIp({ family: 6, bytes: groups.flatMap((group) => [group >> 8, group & 0xff]) });
}

// ==== software ==============================================================================================

const cpe = (
  part: 'a' | 'o' | 'h',
  vendor: string,
  product: string,
  version = '*',
  update = '*',
  edition = '*',
) => `cpe:2.3:${part}:${vendor}:${product}:${version}:${update}:*:*:${edition}:*:*:*`;

/** One way a service can look: what the banner announces and what it is identified as. */
interface Variant {
  readonly product: string;
  readonly vendor: string;
  readonly version?: string;
  readonly cpe?: readonly string[];
  /** HTTP Server header, for HTTP services. */
  readonly server?: string;
  /** Extra HTTP headers shown in the banner. */
  readonly headers?: readonly string[];
  /** Raw banner, for non-HTTP services. */
  readonly banner?: string;
  readonly family?: string;
}

const v = (
  product: string,
  vendor: string,
  version: string | undefined,
  cpes: string[],
  extra: Omit<Variant, 'product' | 'vendor' | 'version' | 'cpe'> = {},
): Variant => ({ product, vendor, ...(version ? { version } : {}), cpe: cpes, ...extra });

const nginx = (version: string | undefined, server: string, w: number): [Variant, number] => [
  v('nginx', 'f5', version, [cpe('a', 'f5', 'nginx', version)], { server, family: 'nginx' }),
  w,
];

const apache = (
  version: string | undefined,
  server: string,
  w: number,
  extra: string[] = [],
): [Variant, number] => [
  v('apache httpd', 'apache', version, [cpe('a', 'apache', 'http_server', version), ...extra], {
    server,
    family: server.includes('Ubuntu')
      ? 'ubuntu'
      : server.includes('Debian')
        ? 'debian'
        : server.includes('CentOS')
          ? 'centos'
          : 'apache',
  }),
  w,
];

/** Web servers on ordinary sites: nginx and Apache lead, with vulnerable and fixed versions of both. */
const WEB_SERVERS = weighted<Variant>([
  nginx(undefined, 'nginx', 14),
  nginx('1.18.0', 'nginx/1.18.0 (Ubuntu)', 10),
  nginx('1.24.0', 'nginx/1.24.0 (Ubuntu)', 6),
  nginx('1.22.1', 'nginx/1.22.1', 5),
  nginx('1.20.1', 'nginx/1.20.1', 3),
  nginx('1.26.2', 'nginx/1.26.2', 3),
  nginx('1.14.0', 'nginx/1.14.0 (Ubuntu)', 3),
  nginx('1.16.1', 'nginx/1.16.1', 3),
  nginx('1.21.6', 'nginx/1.21.6', 1),
  nginx('1.25.5', 'nginx/1.25.5', 2),
  nginx('1.27.3', 'nginx/1.27.3', 1),
  nginx('1.12.2', 'nginx/1.12.2', 1),
  nginx('1.10.3', 'nginx/1.10.3', 1),
  nginx('1.4.0', 'nginx/1.4.0', 0.2),
  apache(undefined, 'Apache', 8),
  apache('2.4.41', 'Apache/2.4.41 (Ubuntu)', 6),
  apache('2.4.52', 'Apache/2.4.52 (Ubuntu)', 6),
  apache('2.4.58', 'Apache/2.4.58 (Ubuntu)', 4),
  apache('2.4.62', 'Apache/2.4.62 (Debian)', 4),
  apache('2.4.29', 'Apache/2.4.29 (Ubuntu)', 1.5),
  apache('2.4.38', 'Apache/2.4.38 (Debian)', 1.5),
  apache('2.4.57', 'Apache/2.4.57 (Debian)', 2),
  apache('2.4.6', 'Apache/2.4.6 (CentOS) OpenSSL/1.0.2k-fips PHP/7.4.33', 3, [
    cpe('a', 'openssl', 'openssl', '1.0.2k'),
    cpe('a', 'php', 'php', '7.4.33'),
  ]),
  apache('2.4.6', 'Apache/2.4.6 (CentOS)', 2),
  apache('2.4.49', 'Apache/2.4.49 (Unix)', 0.6),
  apache('2.4.50', 'Apache/2.4.50 (Unix)', 0.5),
  apache('2.4.51', 'Apache/2.4.51 (Unix)', 0.5),
  apache('2.4.54', 'Apache/2.4.54 (Win64) OpenSSL/1.1.1p PHP/8.1.28', 0.5, [
    cpe('a', 'openssl', 'openssl', '1.1.1p'),
    cpe('a', 'php', 'php', '8.1.28'),
  ]),
  apache('2.4.59', 'Apache/2.4.59 (Win64) OpenSSL/3.1.5 PHP/8.2.20', 0.3, [
    cpe('a', 'openssl', 'openssl', '3.1.5'),
    cpe('a', 'php', 'php', '8.2.20'),
  ]),
  apache('2.2.15', 'Apache/2.2.15 (CentOS)', 0.8),
  [
    v(
      'internet information services',
      'microsoft',
      '10.0',
      [cpe('a', 'microsoft', 'internet_information_services', '10.0')],
      {
        server: 'Microsoft-IIS/10.0',
        family: 'iis',
      },
    ),
    7,
  ],
  [
    v(
      'internet information services',
      'microsoft',
      '8.5',
      [cpe('a', 'microsoft', 'internet_information_services', '8.5')],
      {
        server: 'Microsoft-IIS/8.5',
        family: 'iis',
      },
    ),
    2,
  ],
  [
    v(
      'internet information services',
      'microsoft',
      '7.5',
      [cpe('a', 'microsoft', 'internet_information_services', '7.5')],
      {
        server: 'Microsoft-IIS/7.5',
        family: 'iis',
      },
    ),
    1.5,
  ],
  [
    v(
      'litespeed web server',
      'litespeedtech',
      undefined,
      [cpe('a', 'litespeedtech', 'litespeed_web_server')],
      { server: 'LiteSpeed', family: 'litespeed' },
    ),
    3,
  ],
  [
    v('openresty', 'openresty', '1.21.4.1', [cpe('a', 'openresty', 'openresty', '1.21.4.1')], {
      server: 'openresty/1.21.4.1',
      family: 'openresty',
    }),
    1.5,
  ],
  [
    v('openresty', 'openresty', '1.19.3.1', [cpe('a', 'openresty', 'openresty', '1.19.3.1')], {
      server: 'openresty/1.19.3.1',
      family: 'openresty',
    }),
    0.5,
  ],
  [
    v('caddy', 'caddyserver', undefined, [cpe('a', 'caddyserver', 'caddy')], {
      server: 'Caddy',
      family: 'caddy',
    }),
    1.5,
  ],
  [
    v('lighttpd', 'lighttpd', '1.4.59', [cpe('a', 'lighttpd', 'lighttpd', '1.4.59')], {
      server: 'lighttpd/1.4.59',
      family: 'lighttpd',
    }),
    1,
  ],
  [v('http.sys', 'microsoft', '2.0', [], { server: 'Microsoft-HTTPAPI/2.0', family: 'httpapi' }), 2],
  [
    v('tomcat', 'apache', undefined, [cpe('a', 'apache', 'tomcat')], {
      server: 'Apache-Coyote/1.1',
      family: 'tomcat',
    }),
    1,
  ],
  [
    v('jetty', 'eclipse', '9.4.43', [cpe('a', 'eclipse', 'jetty', '9.4.43')], {
      server: 'Jetty(9.4.43.v20210629)',
      family: 'jetty',
    }),
    0.8,
  ],
  [
    v('gunicorn', 'gunicorn', undefined, [cpe('a', 'gunicorn', 'gunicorn')], {
      server: 'gunicorn',
      family: 'app',
    }),
    0.8,
  ],
  [v('kestrel', 'microsoft', undefined, [], { server: 'Kestrel', family: 'app' }), 0.8],
  [
    v('werkzeug', 'palletsprojects', '2.0.3', [cpe('a', 'palletsprojects', 'werkzeug', '2.0.3')], {
      server: 'Werkzeug/2.0.3 Python/3.8.10',
      family: 'app',
    }),
    0.5,
  ],
  [
    v('envoy', 'envoyproxy', undefined, [cpe('a', 'envoyproxy', 'envoy')], {
      server: 'envoy',
      family: 'app',
    }),
    0.5,
  ],
]);

/** Default pages by server family, for addresses that serve no particular site. */
const DEFAULT_TITLES: Readonly<Record<string, readonly string[]>> = {
  nginx: ['Welcome to nginx!', '403 Forbidden', '404 Not Found'],
  ubuntu: ['Apache2 Ubuntu Default Page: It works', 'Index of /'],
  debian: ['Apache2 Debian Default Page: It works', 'Index of /'],
  centos: ['Apache HTTP Server Test Page powered by CentOS', 'Testing 123..'],
  apache: ['Index of /', '403 Forbidden', 'Default Web Site Page'],
  iis: ['IIS Windows Server', 'IIS Windows Server', '404 - File or directory not found.'],
  litespeed: ["Web Server's Default Page", 'Domain Default page', '404 Not Found'],
  openresty: ['Welcome to OpenResty!', '403 Forbidden'],
  caddy: ['Caddy works!'],
  lighttpd: ['Placeholder page', '404 Not Found'],
  httpapi: ['Not Found'],
  tomcat: ['Apache Tomcat/9.0.65', 'HTTP Status 404 – Not Found'],
  jetty: ['Error 404 Not Found'],
  app: ['Login', 'Dashboard', 'Welcome', 'API', 'Swagger UI'],
};

/** Applications with a recognizable page, on their usual ports, in vulnerable and fixed versions. */
type AppId =
  | 'exchange'
  | 'confluence'
  | 'jenkins'
  | 'gitlab'
  | 'fortios'
  | 'panos'
  | 'netscaler'
  | 'ivanti'
  | 'vcenter'
  | 'moveit'
  | 'iosxe'
  | 'solr'
  | 'elasticsearch'
  | 'kibana'
  | 'grafana'
  | 'synology'
  | 'plesk'
  | 'webmin'
  | 'weblogic'
  | 'routeros'
  | 'wordpress';

interface App {
  readonly title?: string;
  readonly status?: number;
  readonly favicon?: number;
  readonly server?: string;
  /** Self-signed or vendor-CA certificate share when the app serves TLS. */
  readonly deviceCertShare: number;
  readonly device?: DeviceCertId;
  readonly variants: Weighted<Variant>;
}

const app = (
  rows: Array<[Variant, number]>,
  extra: Omit<App, 'variants' | 'deviceCertShare'> & { deviceCertShare?: number },
): App => ({ deviceCertShare: 0, ...extra, variants: weighted(rows) });

const exchange = (label: string, build: string, year: string, cu: string, w: number): [Variant, number] => [
  v(
    'exchange server',
    'microsoft',
    build,
    [cpe('a', 'microsoft', 'exchange_server', year, `cumulative_update_${cu}`)],
    {
      server: 'Microsoft-IIS/10.0',
      headers: [`X-OWA-Version: ${build}`, 'X-Powered-By: ASP.NET', `X-FEServer: ${label}`],
    },
  ),
  w,
];

const APPS: Readonly<Record<AppId, App>> = {
  exchange: app(
    [
      exchange('EXCH01', '15.1.1713.5', '2016', '12', 1),
      exchange('EXCH01', '15.1.2176.2', '2016', '19', 1),
      exchange('MAIL01', '15.1.2375.7', '2016', '22', 2),
      exchange('MAIL01', '15.1.2507.6', '2016', '23', 3),
      exchange('EX2019', '15.2.792.3', '2019', '8', 1),
      exchange('EX2019', '15.2.986.5', '2019', '11', 1.5),
      exchange('EX2019', '15.2.1118.7', '2019', '12', 2),
      exchange('EX2019', '15.2.1544.4', '2019', '14', 3),
      exchange('EXCH13', '15.0.1497.2', '2013', '23', 1),
    ],
    { title: 'Outlook', status: 200, favicon: 1768726119 },
  ),
  confluence: app(
    [
      [v('confluence', 'atlassian', '7.13.7', [cpe('a', 'atlassian', 'confluence_server', '7.13.7')]), 2],
      [v('confluence', 'atlassian', '8.3.2', [cpe('a', 'atlassian', 'confluence_data_center', '8.3.2')]), 1],
      [v('confluence', 'atlassian', '8.5.1', [cpe('a', 'atlassian', 'confluence_data_center', '8.5.1')]), 1],
      [
        v('confluence', 'atlassian', '8.5.3', [cpe('a', 'atlassian', 'confluence_data_center', '8.5.3')]),
        1.5,
      ],
      [
        v('confluence', 'atlassian', '8.5.16', [cpe('a', 'atlassian', 'confluence_data_center', '8.5.16')]),
        2,
      ],
      [v('confluence', 'atlassian', '9.2.1', [cpe('a', 'atlassian', 'confluence_data_center', '9.2.1')]), 1],
    ],
    { title: 'Log In - Confluence', status: 200, favicon: -305179312 },
  ),
  jenkins: app(
    [
      [
        v('jenkins', 'jenkins', '2.426.2', [cpe('a', 'jenkins', 'jenkins', '2.426.2', '*', 'lts')], {
          server: 'Jetty(10.0.18)',
          headers: ['X-Jenkins: 2.426.2'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.426.3', [cpe('a', 'jenkins', 'jenkins', '2.426.3', '*', 'lts')], {
          server: 'Jetty(10.0.18)',
          headers: ['X-Jenkins: 2.426.3'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.440', [cpe('a', 'jenkins', 'jenkins', '2.440', '*', '-')], {
          server: 'Jetty(10.0.18)',
          headers: ['X-Jenkins: 2.440'],
        }),
        1,
      ],
      [
        v('jenkins', 'jenkins', '2.452.1', [cpe('a', 'jenkins', 'jenkins', '2.452.1', '*', 'lts')], {
          server: 'Jetty(10.0.20)',
          headers: ['X-Jenkins: 2.452.1'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.479.3', [cpe('a', 'jenkins', 'jenkins', '2.479.3', '*', 'lts')], {
          server: 'Jetty(12.0.16)',
          headers: ['X-Jenkins: 2.479.3'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.138.2', [cpe('a', 'jenkins', 'jenkins', '2.138.2', '*', 'lts')], {
          server: 'Jetty(9.4.z-SNAPSHOT)',
          headers: ['X-Jenkins: 2.138.2'],
        }),
        0.5,
      ],
    ],
    { title: 'Sign in [Jenkins]', status: 403, favicon: 81586312 },
  ),
  gitlab: app(
    [
      [
        v('gitlab', 'gitlab', '13.10.2', [cpe('a', 'gitlab', 'gitlab', '13.10.2', '*', 'community')], {
          server: 'nginx',
        }),
        1,
      ],
      [
        v('gitlab', 'gitlab', '13.9.5', [cpe('a', 'gitlab', 'gitlab', '13.9.5', '*', 'community')], {
          server: 'nginx',
        }),
        0.5,
      ],
      [
        v('gitlab', 'gitlab', '13.10.3', [cpe('a', 'gitlab', 'gitlab', '13.10.3', '*', 'community')], {
          server: 'nginx',
        }),
        1,
      ],
      [
        v('gitlab', 'gitlab', '16.7.2', [cpe('a', 'gitlab', 'gitlab', '16.7.2', '*', 'community')], {
          server: 'nginx',
        }),
        2,
      ],
      [
        v('gitlab', 'gitlab', '17.5.1', [cpe('a', 'gitlab', 'gitlab', '17.5.1', '*', 'enterprise')], {
          server: 'nginx',
        }),
        2,
      ],
    ],
    { title: 'Sign in · GitLab', status: 200, favicon: 1278323681 },
  ),
  fortios: app(
    [
      [v('fortios', 'fortinet', '6.0.4', [cpe('o', 'fortinet', 'fortios', '6.0.4')]), 0.5],
      [v('fortios', 'fortinet', '6.4.14', [cpe('o', 'fortinet', 'fortios', '6.4.14')]), 1],
      [v('fortios', 'fortinet', '7.0.13', [cpe('o', 'fortinet', 'fortios', '7.0.13')]), 1],
      [v('fortios', 'fortinet', '7.0.14', [cpe('o', 'fortinet', 'fortios', '7.0.14')]), 1],
      [v('fortios', 'fortinet', '7.2.1', [cpe('o', 'fortinet', 'fortios', '7.2.1')]), 0.5],
      [v('fortios', 'fortinet', '7.2.6', [cpe('o', 'fortinet', 'fortios', '7.2.6')]), 1],
      [v('fortios', 'fortinet', '7.2.7', [cpe('o', 'fortinet', 'fortios', '7.2.7')]), 1],
      [v('fortios', 'fortinet', '7.4.2', [cpe('o', 'fortinet', 'fortios', '7.4.2')]), 1],
      [v('fortios', 'fortinet', '7.4.3', [cpe('o', 'fortinet', 'fortios', '7.4.3')]), 1],
      [v('fortios', 'fortinet', '7.6.0', [cpe('o', 'fortinet', 'fortios', '7.6.0')]), 0.5],
    ],
    { server: 'xxxxxxxx-xxxxx', status: 200, favicon: 945408572, deviceCertShare: 0.5, device: 'fortigate' },
  ),
  panos: app(
    [
      [v('pan-os', 'paloaltonetworks', '10.2.8', [cpe('o', 'paloaltonetworks', 'pan-os', '10.2.8', '-')]), 1],
      [
        v('pan-os', 'paloaltonetworks', '10.2.9-h1', [
          cpe('o', 'paloaltonetworks', 'pan-os', '10.2.9', 'h1'),
        ]),
        1,
      ],
      [
        v('pan-os', 'paloaltonetworks', '10.2.11', [cpe('o', 'paloaltonetworks', 'pan-os', '10.2.11', '-')]),
        1,
      ],
      [
        v('pan-os', 'paloaltonetworks', '10.2.12-h2', [
          cpe('o', 'paloaltonetworks', 'pan-os', '10.2.12', 'h2'),
        ]),
        1,
      ],
      [
        v('pan-os', 'paloaltonetworks', '11.1.0', [cpe('o', 'paloaltonetworks', 'pan-os', '11.1.0', '-')]),
        0.5,
      ],
      [
        v('pan-os', 'paloaltonetworks', '11.1.2-h3', [
          cpe('o', 'paloaltonetworks', 'pan-os', '11.1.2', 'h3'),
        ]),
        1,
      ],
      [v('pan-os', 'paloaltonetworks', '11.2.4', [cpe('o', 'paloaltonetworks', 'pan-os', '11.2.4', '-')]), 1],
    ],
    {
      title: 'GlobalProtect Portal',
      status: 200,
      favicon: -631559155,
      deviceCertShare: 0.3,
      device: 'globalprotect',
    },
  ),
  netscaler: app(
    [
      [
        v('netscaler gateway', 'citrix', '13.1-48.47', [
          cpe('a', 'citrix', 'netscaler_gateway', '13.1-48.47'),
        ]),
        1,
      ],
      [
        v('netscaler gateway', 'citrix', '13.1-49.15', [
          cpe('a', 'citrix', 'netscaler_gateway', '13.1-49.15'),
        ]),
        1,
      ],
      [
        v('netscaler gateway', 'citrix', '13.0-92.19', [
          cpe('a', 'citrix', 'netscaler_gateway', '13.0-92.19'),
        ]),
        0.5,
      ],
      [
        v('netscaler gateway', 'citrix', '14.1-12.35', [
          cpe('a', 'citrix', 'netscaler_gateway', '14.1-12.35'),
        ]),
        1,
      ],
    ],
    { title: 'NetScaler AAA', status: 200, favicon: -1292923998, deviceCertShare: 0.25, device: 'netscaler' },
  ),
  ivanti: app(
    [
      [v('connect secure', 'ivanti', '22.7R2.4', [cpe('a', 'ivanti', 'connect_secure', '22.7', 'r2.4')]), 1],
      [v('connect secure', 'ivanti', '22.7R2.5', [cpe('a', 'ivanti', 'connect_secure', '22.7', 'r2.5')]), 1],
      [
        v('connect secure', 'ivanti', '9.1R18.2', [cpe('a', 'ivanti', 'connect_secure', '9.1', 'r18.2')]),
        0.5,
      ],
    ],
    { title: 'Ivanti Connect Secure', status: 200, favicon: -1439222863 },
  ),
  vcenter: app(
    [
      [v('vcenter server', 'vmware', '6.7.0', [cpe('a', 'vmware', 'vcenter_server', '6.7', '-')]), 1],
      [v('vcenter server', 'vmware', '7.0.2', [cpe('a', 'vmware', 'vcenter_server', '7.0', 'update2b')]), 1],
      [v('vcenter server', 'vmware', '7.0.3', [cpe('a', 'vmware', 'vcenter_server', '7.0', 'update3q')]), 1],
      [v('vcenter server', 'vmware', '8.0.2', [cpe('a', 'vmware', 'vcenter_server', '8.0', 'update2')]), 1],
    ],
    { title: 'ID_VC_Welcome', status: 200, favicon: -1995327025, deviceCertShare: 0.7, device: 'vmca' },
  ),
  moveit: app(
    [
      [
        v('moveit transfer', 'progress', '2022.1.5', [cpe('a', 'progress', 'moveit_transfer', '2022.1.5')]),
        1,
      ],
      [
        v('moveit transfer', 'progress', '2023.0.1', [cpe('a', 'progress', 'moveit_transfer', '2023.0.1')]),
        1,
      ],
      [
        v('moveit transfer', 'progress', '2024.0.2', [cpe('a', 'progress', 'moveit_transfer', '2024.0.2')]),
        1,
      ],
    ],
    { title: 'MOVEit Transfer Sign On', status: 200, favicon: 989289239, server: 'Microsoft-IIS/10.0' },
  ),
  iosxe: app(
    [
      [v('ios xe', 'cisco', '17.9.3', [cpe('o', 'cisco', 'ios_xe', '17.9.3')], { server: 'nginx' }), 1],
      [v('ios xe', 'cisco', '17.9.4a', [cpe('o', 'cisco', 'ios_xe', '17.9.4a')], { server: 'nginx' }), 1],
      [v('ios xe', 'cisco', '16.12.5', [cpe('o', 'cisco', 'ios_xe', '16.12.5')], { server: 'nginx' }), 0.7],
    ],
    { status: 200, deviceCertShare: 0.9, device: 'iosxe' },
  ),
  solr: app(
    [
      [
        v('solr', 'apache', '8.11.0', [
          cpe('a', 'apache', 'solr', '8.11.0'),
          cpe('a', 'apache', 'log4j', '2.14.1'),
        ]),
        1,
      ],
      [
        v('solr', 'apache', '8.11.1', [
          cpe('a', 'apache', 'solr', '8.11.1'),
          cpe('a', 'apache', 'log4j', '2.16.0'),
        ]),
        1,
      ],
      [
        v('solr', 'apache', '9.4.0', [
          cpe('a', 'apache', 'solr', '9.4.0'),
          cpe('a', 'apache', 'log4j', '2.20.0'),
        ]),
        1,
      ],
    ],
    { title: 'Solr Admin', status: 200, favicon: -629047854 },
  ),
  elasticsearch: app(
    [
      [
        v('elasticsearch', 'elastic', '7.10.2', [
          cpe('a', 'elastic', 'elasticsearch', '7.10.2'),
          cpe('a', 'apache', 'log4j', '2.11.1'),
        ]),
        2,
      ],
      [
        v('elasticsearch', 'elastic', '6.8.13', [
          cpe('a', 'elastic', 'elasticsearch', '6.8.13'),
          cpe('a', 'apache', 'log4j', '2.11.1'),
        ]),
        1,
      ],
      [
        v('elasticsearch', 'elastic', '7.17.9', [
          cpe('a', 'elastic', 'elasticsearch', '7.17.9'),
          cpe('a', 'apache', 'log4j', '2.17.1'),
        ]),
        2,
      ],
      [
        v('elasticsearch', 'elastic', '8.11.3', [
          cpe('a', 'elastic', 'elasticsearch', '8.11.3'),
          cpe('a', 'apache', 'log4j', '2.19.0'),
        ]),
        1.5,
      ],
    ],
    { status: 200 },
  ),
  kibana: app(
    [
      [v('kibana', 'elastic', '7.10.2', [cpe('a', 'elastic', 'kibana', '7.10.2')]), 1],
      [v('kibana', 'elastic', '8.11.3', [cpe('a', 'elastic', 'kibana', '8.11.3')]), 1],
    ],
    { title: 'Elastic', status: 200, favicon: 1668183286 },
  ),
  grafana: app(
    [
      [v('grafana', 'grafana', '8.3.0', [cpe('a', 'grafana', 'grafana', '8.3.0')]), 1],
      [v('grafana', 'grafana', '9.5.2', [cpe('a', 'grafana', 'grafana', '9.5.2')]), 1],
      [v('grafana', 'grafana', '10.2.3', [cpe('a', 'grafana', 'grafana', '10.2.3')]), 1.5],
    ],
    { title: 'Grafana', status: 200, favicon: 2123863676 },
  ),
  synology: app(
    [
      [
        v('diskstation manager', 'synology', '7.2', [cpe('o', 'synology', 'diskstation_manager', '7.2')], {
          server: 'nginx',
        }),
        2,
      ],
      [
        v(
          'diskstation manager',
          'synology',
          '6.2.4',
          [cpe('o', 'synology', 'diskstation_manager', '6.2.4')],
          { server: 'nginx' },
        ),
        1,
      ],
    ],
    {
      title: 'Synology DiskStation',
      status: 200,
      favicon: 1261718730,
      deviceCertShare: 0.5,
      device: 'synology',
    },
  ),
  plesk: app(
    [
      [
        v('plesk', 'plesk', '18.0.58', [cpe('a', 'plesk', 'plesk', '18.0.58')], { server: 'sw-cp-server' }),
        1,
      ],
    ],
    {
      title: 'Plesk Obsidian 18.0.58',
      status: 200,
      favicon: -134375033,
      deviceCertShare: 0.6,
      device: 'plesk',
    },
  ),
  webmin: app(
    [
      [
        v('webmin', 'webmin', '1.890', [cpe('a', 'webmin', 'webmin', '1.890')], { server: 'MiniServ/1.890' }),
        0.5,
      ],
      [
        v('webmin', 'webmin', '2.105', [cpe('a', 'webmin', 'webmin', '2.105')], { server: 'MiniServ/2.105' }),
        1,
      ],
    ],
    { title: 'Login to Webmin', status: 200, favicon: 1280907310, deviceCertShare: 0.9, device: 'localhost' },
  ),
  weblogic: app(
    [
      [
        v('weblogic server', 'oracle', '12.2.1.3.0', [cpe('a', 'oracle', 'weblogic_server', '12.2.1.3.0')]),
        1,
      ],
      [
        v('weblogic server', 'oracle', '14.1.1.0.0', [cpe('a', 'oracle', 'weblogic_server', '14.1.1.0.0')]),
        1,
      ],
    ],
    { title: 'Error 404--Not Found', status: 404 },
  ),
  routeros: app(
    [
      [v('routeros', 'mikrotik', '6.40.8', [cpe('o', 'mikrotik', 'routeros', '6.40.8')]), 0.5],
      [v('routeros', 'mikrotik', '6.49.10', [cpe('o', 'mikrotik', 'routeros', '6.49.10')]), 2],
      [v('routeros', 'mikrotik', '7.12.1', [cpe('o', 'mikrotik', 'routeros', '7.12.1')]), 2],
    ],
    { title: 'RouterOS router configuration page', status: 200, favicon: 1924358485 },
  ),
  wordpress: app(
    [
      [v('wordpress', 'wordpress', '6.4.3', [cpe('a', 'wordpress', 'wordpress', '6.4.3')]), 2],
      [v('wordpress', 'wordpress', '5.0.3', [cpe('a', 'wordpress', 'wordpress', '5.0.3')]), 0.5],
      [v('wordpress', 'wordpress', '6.7.1', [cpe('a', 'wordpress', 'wordpress', '6.7.1')]), 2],
    ],
    { status: 200 },
  ),
};

const openssh = (version: string, update: string, banner: string, w: number): [Variant, number] => [
  v(
    'openssh',
    'openbsd',
    update === '-' ? version : `${version}${update}`,
    [cpe('a', 'openbsd', 'openssh', version, update)],
    {
      banner,
    },
  ),
  w,
];

/** SSH servers by real banners (recog ssh_banners): distribution packages first, as scans see them. */
const SSH_SERVERS = weighted<Variant>([
  openssh('8.2', 'p1', 'SSH-2.0-OpenSSH_8.2p1 Ubuntu-4ubuntu0.13', 10),
  openssh('8.9', 'p1', 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10', 10),
  openssh('7.4', '-', 'SSH-2.0-OpenSSH_7.4', 9),
  openssh('9.2', 'p1', 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3', 6),
  openssh('8.4', 'p1', 'SSH-2.0-OpenSSH_8.4p1 Debian-5+deb11u3', 5),
  openssh('7.6', 'p1', 'SSH-2.0-OpenSSH_7.6p1 Ubuntu-4ubuntu0.7', 5),
  openssh('9.6', 'p1', 'SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5', 5),
  openssh('7.9', 'p1', 'SSH-2.0-OpenSSH_7.9p1 Debian-10+deb10u4', 3),
  openssh('8.0', '-', 'SSH-2.0-OpenSSH_8.0', 3),
  openssh('7.2', 'p2', 'SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.10', 2),
  openssh('9.3', '-', 'SSH-2.0-OpenSSH_9.3', 1),
  openssh('9.7', '-', 'SSH-2.0-OpenSSH_9.7', 1),
  openssh('9.8', '-', 'SSH-2.0-OpenSSH_9.8', 1),
  openssh('9.9', '-', 'SSH-2.0-OpenSSH_9.9', 1.5),
  openssh('5.3', '-', 'SSH-2.0-OpenSSH_5.3', 1),
  openssh('6.6.1', 'p1', 'SSH-2.0-OpenSSH_6.6.1p1 Ubuntu-2ubuntu2.13', 1),
  openssh('8.6', '-', 'SSH-2.0-OpenSSH_8.6', 0.5),
  openssh('3.5', 'p1', 'SSH-2.0-OpenSSH_3.5p1 FreeBSD-20030924', 0.1),
  [
    v(
      'dropbear ssh',
      'dropbear_ssh_project',
      '2019.78',
      [cpe('a', 'dropbear_ssh_project', 'dropbear_ssh', '2019.78')],
      { banner: 'SSH-2.0-dropbear_2019.78' },
    ),
    3,
  ],
  [
    v(
      'dropbear ssh',
      'dropbear_ssh_project',
      '2022.83',
      [cpe('a', 'dropbear_ssh_project', 'dropbear_ssh', '2022.83')],
      { banner: 'SSH-2.0-dropbear_2022.83' },
    ),
    2,
  ],
  [v('cisco ssh', 'cisco', '1.25', [], { banner: 'SSH-2.0-Cisco-1.25' }), 1],
  [v('rosssh', 'mikrotik', undefined, [], { banner: 'SSH-2.0-ROSSSH' }), 1],
  [
    v('libssh', 'libssh', '0.9.6', [cpe('a', 'libssh', 'libssh', '0.9.6')], {
      banner: 'SSH-2.0-libssh_0.9.6',
    }),
    0.5,
  ],
]);

const variants = (rows: Array<[Variant, number]>) => weighted(rows);

const FTP_SERVERS = variants([
  [
    v('vsftpd', 'vsftpd_project', '3.0.3', [cpe('a', 'vsftpd_project', 'vsftpd', '3.0.3')], {
      banner: '220 (vsFTPd 3.0.3)',
    }),
    6,
  ],
  [
    v('vsftpd', 'vsftpd_project', '3.0.5', [cpe('a', 'vsftpd_project', 'vsftpd', '3.0.5')], {
      banner: '220 (vsFTPd 3.0.5)',
    }),
    3,
  ],
  [
    v('vsftpd', 'vsftpd_project', '2.3.4', [cpe('a', 'vsftpd_project', 'vsftpd', '2.3.4')], {
      banner: '220 (vsFTPd 2.3.4)',
    }),
    0.2,
  ],
  [
    v('proftpd', 'proftpd', '1.3.5e', [cpe('a', 'proftpd', 'proftpd', '1.3.5e')], {
      banner: '220 ProFTPD 1.3.5e Server (Debian) [::ffff:10.0.0.5]',
    }),
    2,
  ],
  [
    v('proftpd', 'proftpd', '1.3.6c', [cpe('a', 'proftpd', 'proftpd', '1.3.6c')], {
      banner: '220 ProFTPD 1.3.6c Server (ProFTPD)',
    }),
    2,
  ],
  [
    v('proftpd', 'proftpd', '1.3.8b', [cpe('a', 'proftpd', 'proftpd', '1.3.8b')], {
      banner: '220 ProFTPD Server (ProFTPD)',
    }),
    1,
  ],
  [
    v('pure-ftpd', 'pureftpd', undefined, [cpe('a', 'pureftpd', 'pure-ftpd')], {
      banner: '220---------- Welcome to Pure-FTPd [privsep] [TLS] ----------',
    }),
    5,
  ],
  [
    v('ftp service', 'microsoft', undefined, [cpe('a', 'microsoft', 'internet_information_services')], {
      banner: '220 Microsoft FTP Service',
    }),
    3,
  ],
  [
    v(
      'filezilla server',
      'filezilla-project',
      '0.9.60',
      [cpe('a', 'filezilla-project', 'filezilla_server', '0.9.60')],
      { banner: '220-FileZilla Server 0.9.60 beta' },
    ),
    1,
  ],
]);

const SMTP_SERVERS = variants([
  [
    v('postfix', 'postfix', undefined, [cpe('a', 'postfix', 'postfix')], {
      banner: '220 {host} ESMTP Postfix (Ubuntu)',
    }),
    10,
  ],
  [
    v('postfix', 'postfix', undefined, [cpe('a', 'postfix', 'postfix')], {
      banner: '220 {host} ESMTP Postfix',
    }),
    6,
  ],
  [
    v('exim', 'exim', '4.96', [cpe('a', 'exim', 'exim', '4.96')], {
      banner: '220 {host} ESMTP Exim 4.96 Ubuntu',
    }),
    4,
  ],
  [
    v('exim', 'exim', '4.94.2', [cpe('a', 'exim', 'exim', '4.94.2')], {
      banner: '220-{host} ESMTP Exim 4.94.2 #2',
    }),
    3,
  ],
  [
    v('exim', 'exim', '4.91', [cpe('a', 'exim', 'exim', '4.91')], {
      banner: '220 {host} ESMTP Exim 4.91 #1',
    }),
    0.5,
  ],
  [
    v('sendmail', 'sendmail', '8.15.2', [cpe('a', 'sendmail', 'sendmail', '8.15.2')], {
      banner: '220 {host} ESMTP Sendmail 8.15.2/8.15.2',
    }),
    1,
  ],
  [
    v('exchange server', 'microsoft', undefined, [cpe('a', 'microsoft', 'exchange_server')], {
      banner: '220 {host} Microsoft ESMTP MAIL Service ready',
    }),
    3,
  ],
]);

const IMAP_SERVERS = variants([
  [
    v('dovecot', 'dovecot', undefined, [cpe('a', 'dovecot', 'dovecot')], {
      banner:
        '* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN] Dovecot (Ubuntu) ready.',
    }),
    8,
  ],
  [
    v('courier imap', 'courier-mta', undefined, [], {
      banner:
        '* OK [CAPABILITY IMAP4rev1 UIDPLUS CHILDREN NAMESPACE THREAD=ORDEREDSUBJECT SORT QUOTA IDLE ACL ACL2=UNION STARTTLS] Courier-IMAP ready.',
    }),
    2,
  ],
]);

const POP3_SERVERS = variants([
  [
    v('dovecot', 'dovecot', undefined, [cpe('a', 'dovecot', 'dovecot')], {
      banner: '+OK Dovecot (Ubuntu) ready.',
    }),
    8,
  ],
  [v('courier pop3', 'courier-mta', undefined, [], { banner: '+OK Hello there.' }), 2],
]);

const DNS_SERVERS = variants([
  [
    v('bind', 'isc', '9.16.1', [cpe('a', 'isc', 'bind', '9.16.1')], {
      banner: 'version.bind: 9.16.1-Ubuntu',
    }),
    4,
  ],
  [
    v('bind', 'isc', '9.18.28', [cpe('a', 'isc', 'bind', '9.18.28')], {
      banner: 'version.bind: 9.18.28-0ubuntu0.22.04.1-Ubuntu',
    }),
    4,
  ],
  [
    v('bind', 'isc', '9.11.4', [cpe('a', 'isc', 'bind', '9.11.4', 'p2')], {
      banner: 'version.bind: 9.11.4-P2-RedHat-9.11.4-26.P2.el7_9.16',
    }),
    2,
  ],
  [
    v('dnsmasq', 'thekelleys', '2.80', [cpe('a', 'thekelleys', 'dnsmasq', '2.80')], {
      banner: 'version.bind: dnsmasq-2.80',
    }),
    4,
  ],
  [
    v('dnsmasq', 'thekelleys', '2.90', [cpe('a', 'thekelleys', 'dnsmasq', '2.90')], {
      banner: 'version.bind: dnsmasq-2.90',
    }),
    2,
  ],
  [
    v('unbound', 'nlnetlabs', '1.13.1', [cpe('a', 'nlnetlabs', 'unbound', '1.13.1')], {
      banner: 'version.bind: unbound 1.13.1',
    }),
    2,
  ],
]);

const MYSQL_SERVERS = variants([
  [v('mysql', 'oracle', '5.7.41', [cpe('a', 'oracle', 'mysql', '5.7.41')], { banner: '5.7.41-log' }), 3],
  [v('mysql', 'oracle', '5.7.44', [cpe('a', 'oracle', 'mysql', '5.7.44')], { banner: '5.7.44' }), 2],
  [v('mysql', 'oracle', '8.0.32', [cpe('a', 'oracle', 'mysql', '8.0.32')], { banner: '8.0.32' }), 2],
  [
    v('mysql', 'oracle', '8.0.36', [cpe('a', 'oracle', 'mysql', '8.0.36')], {
      banner: '8.0.36-0ubuntu0.22.04.1',
    }),
    3,
  ],
  [v('mysql', 'oracle', '5.1.55', [cpe('a', 'oracle', 'mysql', '5.1.55')], { banner: '5.1.55' }), 0.3],
  [
    v('mariadb', 'mariadb', '10.6.16', [cpe('a', 'mariadb', 'mariadb', '10.6.16')], {
      banner: '5.5.5-10.6.16-MariaDB-0+deb12u1',
    }),
    3,
  ],
  [
    v('mariadb', 'mariadb', '10.3.39', [cpe('a', 'mariadb', 'mariadb', '10.3.39')], {
      banner: '5.5.5-10.3.39-MariaDB-0+deb10u1',
    }),
    1,
  ],
]);

const REDIS_SERVERS = variants(
  ['5.0.7', '6.0.16', '6.2.6', '7.0.15', '7.2.4'].map((version, index) => [
    v('redis', 'redis', version, [cpe('a', 'redis', 'redis', version)], {
      banner:
        index % 2
          ? '-NOAUTH Authentication required.'
          : `# Server\r\nredis_version:${version}\r\nredis_mode:standalone`,
    }),
    [3, 2, 3, 2, 2][index]!,
  ]),
);

const MONGODB_SERVERS = variants(
  ['3.6.8', '4.4.6', '5.0.24', '6.0.13', '7.0.5'].map((version, index) => [
    v('mongodb', 'mongodb', version, [cpe('a', 'mongodb', 'mongodb', version)], {
      banner: `MongoDB Server Information\nversion: ${version}\nok: 1.0`,
    }),
    [3, 2, 2, 2, 1][index]!,
  ]),
);

/** Fixed services: one variant each, or a short table. */
const SINGLE = {
  rdp: variants([
    [
      v('remote desktop protocol', 'microsoft', undefined, [cpe('o', 'microsoft', 'windows')], {
        banner: 'Remote Desktop Protocol\nNLA: required (CredSSP)',
      }),
      1,
    ],
  ]),
  smb: variants([
    [
      v('windows smb', 'microsoft', undefined, [cpe('o', 'microsoft', 'windows')], {
        banner: 'SMB Status: Authentication: enabled SMBv1: disabled',
      }),
      3,
    ],
    [
      v('samba', 'samba', '4.15.13', [cpe('a', 'samba', 'samba', '4.15.13')], {
        banner: 'SMB Status: Authentication: enabled Samba 4.15.13-Ubuntu',
      }),
      1,
    ],
  ]),
  postgresql: variants([
    [
      v('postgresql', 'postgresql', undefined, [cpe('a', 'postgresql', 'postgresql')], {
        banner: 'FATAL: no pg_hba.conf entry for host',
      }),
      1,
    ],
  ]),
  memcached: variants([
    [
      v('memcached', 'memcached', '1.5.6', [cpe('a', 'memcached', 'memcached', '1.5.6')], {
        banner: 'STAT version 1.5.6',
      }),
      1,
    ],
    [
      v('memcached', 'memcached', '1.6.21', [cpe('a', 'memcached', 'memcached', '1.6.21')], {
        banner: 'STAT version 1.6.21',
      }),
      1,
    ],
  ]),
  telnet: variants([
    [
      v('busybox telnetd', 'busybox', undefined, [cpe('a', 'busybox', 'busybox')], { banner: '\r\nlogin: ' }),
      3,
    ],
    [
      v('cisco telnet', 'cisco', undefined, [], {
        banner: '\r\n\r\nUser Access Verification\r\n\r\nUsername: ',
      }),
      1,
    ],
    [v('zxhn telnet', 'zte', undefined, [], { banner: 'F660\r\nLogin: ' }), 1],
  ]),
  snmp: variants([
    [
      v('net-snmp', 'net-snmp', '5.7.3', [cpe('a', 'net-snmp', 'net-snmp', '5.7.3')], {
        banner: 'sysDescr: Linux router 3.10.14 #1 SMP mips',
      }),
      2,
    ],
    [
      v('cisco snmp', 'cisco', undefined, [], {
        banner: 'sysDescr: Cisco IOS Software, C2960 Software (C2960-LANBASEK9-M), Version 15.0(2)SE11',
      }),
      1,
    ],
  ]),
  ntp: variants([
    [
      v('ntpd', 'ntp', '4.2.8p15', [cpe('a', 'ntp', 'ntp', '4.2.8', 'p15')], {
        banner: 'version="ntpd 4.2.8p15@1.3728-o", stratum=2',
      }),
      1,
    ],
  ]),
  ike: variants([
    [v('ike', 'ietf', undefined, [], { banner: 'IKE(v2) Vendor IDs: RFC 3706 DPD, NAT-Traversal' }), 1],
  ]),
  openvpn: variants([
    [
      v('openvpn', 'openvpn', undefined, [cpe('a', 'openvpn', 'openvpn')], {
        banner: 'OpenVPN P_CONTROL_HARD_RESET_SERVER_V2',
      }),
      1,
    ],
  ]),
  sip: variants([
    [
      v('asterisk', 'digium', '16.30.0', [cpe('a', 'digium', 'asterisk', '16.30.0')], {
        banner: 'SIP/2.0 200 OK\r\nUser-Agent: Asterisk PBX 16.30.0',
      }),
      1,
    ],
    [
      v('freepbx', 'sangoma', undefined, [], {
        banner: 'SIP/2.0 200 OK\r\nUser-Agent: FPBX-16.0.40.7(18.20.0)',
      }),
      1,
    ],
  ]),
  pptp: variants([
    [
      v('pptp', 'mikrotik', undefined, [], {
        banner: 'PPTP Firmware: 1 Hostname: MikroTik Vendor: MikroTik',
      }),
      1,
    ],
  ]),
  upnp: variants([
    [
      v('miniupnpd', 'miniupnp_project', '2.1', [cpe('a', 'miniupnp_project', 'miniupnpd', '2.1')], {
        banner: 'HTTP/1.1 200 OK\r\nSERVER: Linux/3.14.77 UPnP/1.1 MiniUPnPd/2.1',
      }),
      1,
    ],
  ]),
  vnc: variants([
    [v('vnc', 'realvnc', undefined, [cpe('a', 'realvnc', 'realvnc')], { banner: 'RFB 003.008' }), 1],
  ]),
  ldap: variants([
    [
      v('active directory ldap', 'microsoft', undefined, [], {
        banner: 'LDAP: dnsHostName, defaultNamingContext',
      }),
      1,
    ],
  ]),
  mssql: variants([
    [
      v('sql server', 'microsoft', '2019', [cpe('a', 'microsoft', 'sql_server', '2019')], {
        banner: 'Microsoft SQL Server 2019 15.00.2000',
      }),
      1,
    ],
    [
      v('sql server', 'microsoft', '2016', [cpe('a', 'microsoft', 'sql_server', '2016')], {
        banner: 'Microsoft SQL Server 2016 13.00.5026',
      }),
      1,
    ],
  ]),
  winbox: variants([[v('winbox', 'mikrotik', undefined, [], { banner: 'MikroTik WinBox' }), 1]]),
  docker: variants([
    [
      v('docker', 'docker', '20.10.7', [cpe('a', 'docker', 'docker', '20.10.7')], {
        banner: '{"Version":"20.10.7","ApiVersion":"1.41","Os":"linux"}',
      }),
      1,
    ],
  ]),
  kubernetes: variants([
    [
      v('kubernetes', 'kubernetes', '1.27.3', [cpe('a', 'kubernetes', 'kubernetes', '1.27.3')], {
        banner: '{"kind":"Status","status":"Failure","code":401}',
      }),
      1,
    ],
  ]),
  printer: variants([
    [v('jetdirect', 'hp', undefined, [], { banner: '@PJL INFO STATUS CODE=10001 ONLINE=TRUE' }), 1],
  ]),
} satisfies Record<string, Weighted<Variant>>;

/** Protocol names where they differ from the service kind. */
const PROTOCOLS: Readonly<Record<string, string>> = {
  printer: 'jetdirect',
  docker: 'http',
  kubernetes: 'https',
  cwmp: 'http',
};

/** Home routers and other CPE on their management pages and TR-069. */
const CPE_WEB = variants([
  [v('boa', 'boa', '0.94.14rc21', [cpe('a', 'boa', 'boa', '0.94.14rc21')], { server: 'Boa/0.94.14rc21' }), 4],
  [v('goahead', 'embedthis', undefined, [cpe('a', 'embedthis', 'goahead')], { server: 'GoAhead-Webs' }), 3],
  [
    v('mini_httpd', 'acme', '1.19', [cpe('a', 'acme', 'mini_httpd', '1.19')], {
      server: 'mini_httpd/1.19 19dec2003',
    }),
    2,
  ],
  [
    v('rompager', 'allegrosoft', '4.07', [cpe('a', 'allegrosoft', 'rompager', '4.07')], {
      server: 'RomPager/4.07 UPnP/1.0',
    }),
    3,
  ],
  [v('uhttpd', 'openwrt', undefined, [], { server: 'uhttpd' }), 1],
  [v('micro_httpd', 'acme', undefined, [], { server: 'micro_httpd' }), 1],
  [v('hikvision web server', 'hikvision', undefined, [], { server: 'App-webs/' }), 1],
]);

const CPE_TITLES = [
  'Login',
  'TP-LINK',
  'ZXHN H108N',
  'FRITZ!Box',
  'HG8245H',
  'Router',
  'Web Client',
  'NETGEAR Router',
  '',
];

const CWMP_SERVERS = variants([
  [
    v('rompager', 'allegrosoft', '4.07', [cpe('a', 'allegrosoft', 'rompager', '4.07')], {
      server: 'RomPager/4.07 UPnP/1.0',
    }),
    3,
  ],
  [v('gsoap', 'genivia', '2.8', [cpe('a', 'genivia', 'gsoap', '2.8')], { server: 'gSOAP/2.8' }), 2],
  [v('tr-069 client', 'broadcom', undefined, [], { server: 'TR069' }), 1],
]);

// ==== host profiles =========================================================================================

type Kind =
  | 'http'
  | 'https'
  | 'ssh'
  | 'ftp'
  | 'smtp'
  | 'smtps'
  | 'submission'
  | 'imap'
  | 'imaps'
  | 'pop3'
  | 'pop3s'
  | 'dns'
  | 'mysql'
  | 'postgresql'
  | 'redis'
  | 'mongodb'
  | 'cwmp'
  | 'cpe-web'
  | 'edge'
  | keyof typeof SINGLE;

interface Planned {
  readonly port: number;
  readonly transport: 'tcp' | 'udp';
  readonly kind: Kind;
  readonly app?: AppId;
}

type Profile =
  | 'web'
  | 'ssh'
  | 'mail'
  | 'windows'
  | 'exchange'
  | 'iot'
  | 'appliance'
  | 'database'
  | 'devops'
  | 'dns'
  | 'nas'
  | 'misc';

const PROFILES: Readonly<Record<NetworkKind, Weighted<Profile>>> = {
  cloud: weighted<Profile>([
    ['web', 40],
    ['ssh', 18],
    ['database', 9],
    ['devops', 9],
    ['windows', 7],
    ['mail', 4],
    ['appliance', 2],
    ['dns', 3],
    ['misc', 4],
    ['exchange', 1],
  ]),
  hosting: weighted<Profile>([
    ['web', 48],
    ['ssh', 11],
    ['mail', 10],
    ['windows', 7],
    ['database', 6],
    ['devops', 5],
    ['dns', 4],
    ['misc', 4],
    ['exchange', 1],
    ['appliance', 1],
    ['nas', 1],
  ]),
  isp: weighted<Profile>([
    ['iot', 52],
    ['web', 12],
    ['appliance', 9],
    ['windows', 6],
    ['exchange', 2],
    ['ssh', 6],
    ['nas', 5],
    ['misc', 5],
    ['mail', 2],
    ['dns', 1],
  ]),
};

const APPLIANCES = weighted<AppId>([
  ['fortios', 30],
  ['panos', 14],
  ['netscaler', 10],
  ['ivanti', 8],
  ['iosxe', 10],
  ['routeros', 18],
  ['moveit', 3],
  ['vcenter', 7],
]);

const DEVOPS = weighted<AppId>([
  ['jenkins', 22],
  ['gitlab', 20],
  ['confluence', 15],
  ['grafana', 12],
  ['kibana', 8],
  ['solr', 5],
  ['weblogic', 4],
]);

/** Ports an address exposes, by what it is. At least one; duplicates removed. */
function planServices(rng: Rng, kind: NetworkKind): Planned[] {
  const out: Planned[] = [];
  const add = (port: number, k: Kind, appId?: AppId, transport: 'tcp' | 'udp' = 'tcp') => {
    if (!out.some((s) => s.port === port && s.transport === transport))
      out.push({ port, transport, kind: k, ...(appId ? { app: appId } : {}) });
  };
  const maybe = (p: number, port: number, k: Kind, appId?: AppId, transport: 'tcp' | 'udp' = 'tcp') => {
    if (rng.chance(p)) add(port, k, appId, transport);
  };
  const profile = rng.weighted(PROFILES[kind]);
  switch (profile) {
    case 'web': {
      const wp = rng.chance(0.12) ? 'wordpress' : undefined;
      maybe(0.93, 80, 'http', wp);
      maybe(0.9, 443, 'https', wp);
      maybe(0.35, 22, 'ssh');
      maybe(0.07, 8080, 'http');
      maybe(0.05, 8443, 'https', rng.chance(0.4) ? 'plesk' : undefined);
      maybe(0.1, 21, 'ftp');
      maybe(0.06, 3306, 'mysql');
      maybe(0.04, 25, 'smtp');
      maybe(0.02, 10000, 'https', 'webmin');
      if (rng.chance(0.03)) {
        add(2083, 'https');
        add(2087, 'https');
      }
      break;
    }
    case 'ssh':
      add(rng.chance(0.9) ? 22 : 2222, 'ssh');
      maybe(0.15, 80, 'http');
      break;
    case 'mail':
      add(25, 'smtp');
      maybe(0.7, 587, 'submission');
      maybe(0.5, 465, 'smtps');
      maybe(0.55, 993, 'imaps');
      maybe(0.45, 143, 'imap');
      maybe(0.45, 995, 'pop3s');
      maybe(0.4, 110, 'pop3');
      maybe(0.6, 80, 'http');
      maybe(0.6, 443, 'https');
      maybe(0.5, 22, 'ssh');
      break;
    case 'windows':
      maybe(0.8, 3389, 'rdp');
      maybe(0.25, 445, 'smb');
      maybe(0.45, 80, 'http');
      maybe(0.35, 443, 'https');
      maybe(0.2, 5985, 'http');
      maybe(0.1, 1433, 'mssql');
      maybe(0.08, 21, 'ftp');
      maybe(0.05, 389, 'ldap');
      break;
    case 'exchange':
      add(443, 'https', 'exchange');
      maybe(0.8, 80, 'http', 'exchange');
      maybe(0.6, 25, 'smtp');
      maybe(0.2, 587, 'submission');
      maybe(0.15, 3389, 'rdp');
      break;
    case 'iot':
      maybe(0.55, 7547, 'cwmp');
      maybe(0.45, 80, 'cpe-web');
      maybe(0.15, 443, 'https');
      maybe(0.18, 8080, 'cpe-web');
      maybe(0.12, 23, 'telnet');
      maybe(0.12, 161, 'snmp', undefined, 'udp');
      maybe(0.12, 53, 'dns', undefined, 'udp');
      maybe(0.1, 1900, 'upnp', undefined, 'udp');
      maybe(0.08, 22, 'ssh');
      maybe(0.06, 5060, 'sip', undefined, 'udp');
      maybe(0.04, 1723, 'pptp');
      maybe(0.03, 5900, 'vnc');
      break;
    case 'appliance': {
      const appId = rng.weighted(APPLIANCES);
      if (appId === 'routeros') {
        add(80, 'http', 'routeros');
        maybe(0.5, 8291, 'winbox');
        maybe(0.4, 22, 'ssh');
        maybe(0.3, 1723, 'pptp');
        break;
      }
      const port = appId === 'fortios' ? rng.pick([443, 443, 10443, 4443, 8443]) : 443;
      add(port, 'https', appId);
      maybe(0.4, 80, 'http', appId);
      maybe(appId === 'fortios' || appId === 'panos' ? 0.4 : 0.1, 500, 'ike', undefined, 'udp');
      maybe(0.2, 22, 'ssh');
      break;
    }
    case 'database': {
      const [port, k, appId] = rng.pick<[number, Kind, AppId?]>([
        [3306, 'mysql'],
        [3306, 'mysql'],
        [5432, 'postgresql'],
        [5432, 'postgresql'],
        [6379, 'redis'],
        [6379, 'redis'],
        [27017, 'mongodb'],
        [9200, 'http', 'elasticsearch'],
        [11211, 'memcached'],
      ]);
      add(port, k, appId);
      maybe(0.15, 9200, 'http', 'elasticsearch');
      maybe(0.1, 6379, 'redis');
      maybe(0.85, 22, 'ssh');
      maybe(0.2, 80, 'http');
      break;
    }
    case 'devops': {
      const appId = rng.weighted(DEVOPS);
      const port =
        appId === 'jenkins'
          ? 8080
          : appId === 'confluence'
            ? rng.pick([8090, 443])
            : appId === 'grafana'
              ? 3000
              : appId === 'kibana'
                ? 5601
                : appId === 'solr'
                  ? 8983
                  : appId === 'weblogic'
                    ? 7001
                    : 443;
      add(port, port === 443 ? 'https' : 'http', appId);
      if (appId === 'gitlab') maybe(0.8, 80, 'http', 'gitlab');
      maybe(0.8, 22, 'ssh');
      maybe(0.08, 2375, 'docker');
      maybe(0.08, 6443, 'kubernetes');
      maybe(0.1, 9200, 'http', 'elasticsearch');
      break;
    }
    case 'dns':
      add(53, 'dns', undefined, 'udp');
      maybe(0.5, 53, 'dns');
      maybe(0.35, 22, 'ssh');
      maybe(0.1, 123, 'ntp', undefined, 'udp');
      break;
    case 'nas':
      add(rng.chance(0.5) ? 5001 : 5000, rng.chance(0.5) ? 'https' : 'http', 'synology');
      maybe(0.5, 443, 'https', 'synology');
      maybe(0.3, 80, 'http', 'synology');
      maybe(0.25, 21, 'ftp');
      maybe(0.2, 22, 'ssh');
      break;
    case 'misc': {
      const [port, k, transport] = rng.pick<[number, Kind, 'tcp' | 'udp']>([
        [21, 'ftp', 'tcp'],
        [21, 'ftp', 'tcp'],
        [5900, 'vnc', 'tcp'],
        [9100, 'printer', 'tcp'],
        [123, 'ntp', 'udp'],
        [1194, 'openvpn', 'udp'],
        [389, 'ldap', 'tcp'],
        [8080, 'http', 'tcp'],
        [8000, 'http', 'tcp'],
        [8888, 'http', 'tcp'],
      ]);
      add(port, k, undefined, transport);
      maybe(0.3, 22, 'ssh');
      maybe(0.2, 80, 'http');
      break;
    }
  }
  if (out.length === 0) add(80, kind === 'isp' ? 'cpe-web' : 'http');
  return out;
}

// ==== domains ===============================================================================================

const WORDS_A =
  'acme alder amber anchor apex arc arrow aster atlas aurora axis azure beacon birch bison blue bolt boreal brava bright brook cedar chroma cinder citadel clover cobalt comet condor copper coral crest crimson crystal cypress delta dune eagle echo ember emerald falcon fern fjord flint forest fox frost garnet glacier golden granite harbor hazel helix heron horizon indigo iris ivory jade juniper kestrel kinetic lagoon lark laurel legacy lemon lunar lynx magnet maple marble meadow mercury meridian mesa metro mistral monarch mosaic nimbus noble nordic north nova oak oasis obsidian ocean olive omega onyx orbit orchid osprey pacific palm panda pepper pine pioneer pixel polar prairie prime pulse quartz quasar radiant raven redwood ridge river rocket ruby saffron sage sapphire sequoia sierra silver solar sparrow spruce summit swift tango terra thistle thunder tidal timber titan topaz trident tulip tundra umber valley vector velvet venture verde vertex violet vista walnut willow wolf zenith zephyr'.split(
    ' ',
  );
const WORDS_B =
  'labs soft tech works systems cloud media group logistics health bank energy foods design studio consulting partners solutions network data digital shop store travel motors legal finance capital insurance pharma clinic school academy games hosting security analytics robotics marine aero build homes realty farms wines coffee fashion sports fitness music films press news radio apps devops hub port point line link web mail box base stack forge craft mark tree bridge gate tower ventures industries electric telecom optics dynamics metrics machines pay market trade freight bikes pets care dental vision audio print paper textiles steel plastics chemicals mining water air power grid scale fleet'.split(
    ' ',
  );

interface Tld {
  readonly suffix: string;
  readonly country?: string;
}

const TLDS = weighted<Tld>([
  [{ suffix: 'com' }, 46],
  [{ suffix: 'net' }, 6],
  [{ suffix: 'org' }, 5],
  [{ suffix: 'io' }, 3],
  [{ suffix: 'co' }, 1],
  [{ suffix: 'info' }, 1.5],
  [{ suffix: 'xyz' }, 1.5],
  [{ suffix: 'app' }, 0.7],
  [{ suffix: 'dev' }, 0.7],
  [{ suffix: 'shop' }, 0.6],
  [{ suffix: 'eu' }, 1.2],
  [{ suffix: 'de', country: 'de' }, 8],
  [{ suffix: 'co.uk', country: 'gb' }, 4],
  [{ suffix: 'fr', country: 'fr' }, 3.5],
  [{ suffix: 'nl', country: 'nl' }, 2.5],
  [{ suffix: 'it', country: 'it' }, 1.5],
  [{ suffix: 'es', country: 'es' }, 1.2],
  [{ suffix: 'pl', country: 'pl' }, 1.2],
  [{ suffix: 'se', country: 'se' }, 0.8],
  [{ suffix: 'ch', country: 'ch' }, 0.8],
  [{ suffix: 'com.br', country: 'br' }, 1.5],
  [{ suffix: 'com.au', country: 'au' }, 1],
  [{ suffix: 'ca', country: 'ca' }, 1],
  [{ suffix: 'jp', country: 'jp' }, 0.8],
  [{ suffix: 'in', country: 'in' }, 0.6],
  [{ suffix: 'ru', country: 'ru' }, 1.2],
  [{ suffix: 'cn', country: 'cn' }, 0.8],
]);

const TLD_SET: ReadonlySet<string> = new Set(TLDS.items.map((tld) => tld.suffix));

const GENERIC_COUNTRIES = weighted<string>([
  ['us', 45],
  ['gb', 7],
  ['de', 7],
  ['fr', 5],
  ['ca', 4],
  ['nl', 4],
  ['au', 3],
  ['in', 3],
  ['br', 2],
  ['jp', 2],
  ['es', 2],
  ['it', 2],
  ['se', 1],
  ['ch', 1],
  ['sg', 2],
  ['cn', 3],
  ['ru', 2],
]);

const COMPANY_SUFFIX: Readonly<Record<string, string>> = {
  us: 'Inc.',
  gb: 'Ltd',
  de: 'GmbH',
  fr: 'SAS',
  nl: 'B.V.',
  it: 'S.r.l.',
  es: 'S.L.',
  pl: 'Sp. z o.o.',
  se: 'AB',
  ch: 'AG',
  br: 'Ltda',
  au: 'Pty Ltd',
  ca: 'Inc.',
  jp: 'K.K.',
  in: 'Pvt. Ltd.',
  ru: 'LLC',
  cn: 'Co., Ltd.',
  sg: 'Pte. Ltd.',
};

type MailProvider = 'google' | 'microsoft' | 'self' | 'ovh' | 'zoho' | 'proton' | 'ionos' | 'none';
type NsProvider =
  | 'cloudflare'
  | 'route53'
  | 'godaddy'
  | 'ovh'
  | 'google'
  | 'azure'
  | 'namecheap'
  | 'gandi'
  | 'ionos'
  | 'hetzner'
  | 'self'
  | 'markmonitor';
type CaId = 'letsencrypt' | 'gts' | 'digicert' | 'sectigo' | 'globalsign' | 'godaddy' | 'amazon' | 'zerossl';

const SUBDOMAINS = weighted<string>([
  ['api', 8],
  ['vpn', 6],
  ['remote', 4],
  ['portal', 5],
  ['dev', 5],
  ['staging', 4],
  ['test', 3],
  ['app', 6],
  ['admin', 3],
  ['git', 2],
  ['gitlab', 2],
  ['jenkins', 2],
  ['ci', 2],
  ['jira', 2],
  ['confluence', 2],
  ['wiki', 2],
  ['webmail', 4],
  ['owa', 2],
  ['shop', 3],
  ['blog', 4],
  ['status', 2],
  ['static', 2],
  ['files', 2],
  ['sso', 2],
  ['login', 2],
  ['m', 2],
  ['intranet', 2],
  ['extranet', 1],
  ['ftp', 3],
  ['sftp', 1],
  ['smtp', 2],
  ['imap', 1],
  ['ns1', 1],
  ['grafana', 1],
  ['monitor', 1],
  ['backup', 1],
  ['nas', 1],
  ['cloud', 2],
  ['citrix', 1],
  ['sslvpn', 1],
  ['gw', 1],
  ['secure', 1],
]);

interface DomainProfile {
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

function domainProfile(world: World, d: number): DomainProfile {
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

const MAIL_PROVIDERS = weighted<MailProvider>([
  ['google', 28],
  ['microsoft', 30],
  ['self', 20],
  ['ovh', 4],
  ['zoho', 3],
  ['proton', 2],
  ['ionos', 4],
  ['none', 9],
]);

const NS_PROVIDERS = weighted<NsProvider>([
  ['cloudflare', 22],
  ['route53', 12],
  ['godaddy', 16],
  ['ovh', 7],
  ['google', 4],
  ['azure', 4],
  ['namecheap', 10],
  ['gandi', 4],
  ['ionos', 5],
  ['hetzner', 3],
  ['self', 5],
  ['markmonitor', 2],
]);

const NS_PROVIDERS_DE = weighted<NsProvider>([
  ['cloudflare', 15],
  ['ionos', 20],
  ['hetzner', 15],
  ['route53', 8],
  ['ovh', 5],
  ['godaddy', 5],
  ['self', 10],
]);

const CAS = weighted<CaId>([
  ['letsencrypt', 56],
  ['gts', 6],
  ['digicert', 10],
  ['sectigo', 10],
  ['globalsign', 4],
  ['godaddy', 5],
  ['amazon', 4],
  ['zerossl', 5],
]);

const CF_NS_NAMES = [
  'ada',
  'bob',
  'carl',
  'dana',
  'elle',
  'fred',
  'gina',
  'hank',
  'ivy',
  'jim',
  'kate',
  'lou',
  'mia',
  'nash',
  'olga',
  'pete',
];
const HETZNER_NS = ['hydrogen.ns.hetzner.com', 'oxygen.ns.hetzner.com', 'helium.ns.hetzner.de'];

function nameServers(domain: DomainProfile): string[] {
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

function mailExchangers(domain: DomainProfile): string[] {
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

// ==== the world =============================================================================================

interface World {
  readonly seed: readonly number[];
  readonly count: number;
  readonly now: number;
  /** Addresses that can be named by domains (about the number hosts visits for `count` records). */
  readonly ipCount: number;
  readonly domainPool: number;
  readonly edgeStride: number;
  readonly edgeCount: number;
  readonly wheel: readonly number[];
  readonly wheelRank: readonly number[];
  readonly wheelShare: readonly number[];
  readonly spaces: readonly AddressSpace[];
  readonly cdnSpaces: Readonly<Record<CdnId, AddressSpace>>;
  readonly domainMultiplier: number;
  readonly domainOffset: number;
}

const EDGE_SHARE = 0.03;
const CDN_CUSTOMER_SHARE = 0.35;
const OWNED_SHARE = 0.55;
const WHEEL = 1000;

/** Services per ordinary address and per edge address, measured once on a fixed sample. */
const calibration = (() => {
  let cached: { normal: number; edge: number } | undefined;
  return () => {
    if (cached) return cached;
    const seed = cyrb128('calibration');
    const kinds = weighted(NETWORKS.map((n) => [n.kind, n.weight] as const));
    let total = 0;
    const samples = 20_000;
    for (let i = 0; i < samples; i++) {
      const rng = new Rng(seed, Stream.Calibration, i);
      total += planServices(rng, rng.weighted(kinds)).length;
    }
    let edge = 0;
    for (let slot = 0; slot < CDN_BY_SLOT.length; slot++) edge += CDNS[CDN_BY_SLOT[slot]!].ports.length;
    cached = { normal: total / samples, edge: edge / CDN_BY_SLOT.length };
    return cached;
  };
})();

function createWorld(options: GenerateOptions): World {
  const seed = cyrb128(`exposure-generator/${GENERATOR_VERSION}/${String(options.seed)}`);
  const { normal, edge } = calibration();
  const edgeStride = Math.max(2, Math.round(1 + (edge * (1 - EDGE_SHARE)) / (EDGE_SHARE * normal)));
  const perAddress = (normal * (edgeStride - 1) + edge) / edgeStride;
  const ipCount = Math.max(1, Math.floor((options.count * 0.97) / perAddress));
  const domainPool = Math.max(1, Math.floor(ipCount / 4));
  const edgeCount = Math.floor(ipCount / edgeStride);

  // Networks by weight on a wheel of 1000 slots, shuffled by the seed.
  const totalWeight = NETWORKS.reduce((sum, n) => sum + n.weight, 0);
  const slots = NETWORKS.map((n) => Math.max(1, Math.round((n.weight / totalWeight) * WHEEL)));
  let excess = slots.reduce((a, b) => a + b, 0) - WHEEL;
  for (let i = 0; excess !== 0; i = (i + 1) % slots.length) {
    if (excess > 0 && slots[i]! > 1) {
      slots[i]!--;
      excess--;
    } else if (excess < 0) {
      slots[i]!++;
      excess++;
    }
  }
  const wheel: number[] = slots.flatMap((n, network) => new Array<number>(n).fill(network));
  const shuffle = new Rng(seed, Stream.Wheel, 0);
  for (let i = wheel.length - 1; i > 0; i--) {
    const k = shuffle.int(i + 1);
    [wheel[i], wheel[k]] = [wheel[k]!, wheel[i]!];
  }
  const seen = new Array<number>(NETWORKS.length).fill(0);
  const wheelRank = wheel.map((network) => seen[network]!++);

  const combos = WORDS_A.length * WORDS_B.length;
  let domainMultiplier = (hash(seed, Stream.Domain, 0, 17) % (combos - 1)) + 1;
  while (gcd(domainMultiplier, combos) !== 1) domainMultiplier++;

  return {
    seed,
    count: options.count,
    now: options.now.getTime(),
    ipCount,
    domainPool,
    edgeStride,
    edgeCount,
    wheel,
    wheelRank,
    wheelShare: slots,
    spaces: NETWORKS.map((n, i) => addressSpace(n.prefixes, seed, 100 + i)),
    cdnSpaces: Object.fromEntries(
      (Object.keys(CDNS) as CdnId[]).map((id, i) => [id, addressSpace(CDNS[id].prefixes, seed, 900 + i)]),
    ) as Record<CdnId, AddressSpace>,
    domainMultiplier,
    domainOffset: hash(seed, Stream.Domain, 0, 18) % combos,
  };
}

function isEdge(world: World, j: number): boolean {
  return j % world.edgeStride === world.edgeStride >> 1 && Math.floor(j / world.edgeStride) < world.edgeCount;
}

/** The pool domain that address j belongs to, or -1. */
function ownerOf(world: World, j: number): number {
  if (j >= world.ipCount || isEdge(world, j)) return -1;
  return unit(world.seed, Stream.Own, j) < OWNED_SHARE ? j % world.domainPool : -1;
}

const MAX_OWNED = 12;

/** Addresses of pool domain d, in address order (at most 12). */
function ownedAddresses(world: World, d: number): number[] {
  const out: number[] = [];
  if (d >= world.domainPool) return out;
  for (let j = d; j < world.ipCount && out.length < MAX_OWNED; j += world.domainPool) {
    if (ownerOf(world, j) === d) out.push(j);
  }
  return out;
}

/** The edge address serving CDN domain d. */
function edgeAddressOf(world: World, d: number): number {
  const e = d % world.edgeCount;
  return e * world.edgeStride + (world.edgeStride >> 1);
}

interface Address {
  readonly j: number;
  readonly ip: string;
  readonly family: 4 | 6;
  readonly asn: number;
  readonly organization: string;
  readonly country: string;
  readonly city: string | undefined;
  readonly kind: NetworkKind;
  readonly network: Network | undefined;
  readonly cdn: Cdn | undefined;
}

const addressCache = new WeakMap<World, Map<number, Address>>();

/** Where address j is: network, address, location. A pure function of (world, j). */
function addressOf(world: World, j: number): Address {
  let cache = addressCache.get(world);
  if (!cache) {
    cache = new Map();
    addressCache.set(world, cache);
  }
  const hit = cache.get(j);
  if (hit) return hit;
  const address = computeAddress(world, j);
  if (cache.size > 4096) cache.clear();
  cache.set(j, address);
  return address;
}

function computeAddress(world: World, j: number): Address {
  const rng = new Rng(world.seed, Stream.V6, j);
  if (isEdge(world, j)) {
    const e = Math.floor(j / world.edgeStride);
    const cdn = CDNS[CDN_BY_SLOT[e % CDN_BY_SLOT.length]!];
    const perCdn = CDN_BY_SLOT.filter((id) => id === cdn.id).length;
    const rank = CDN_BY_SLOT.slice(0, e % CDN_BY_SLOT.length).filter((id) => id === cdn.id).length;
    const local = Math.floor(e / CDN_BY_SLOT.length) * perCdn + rank;
    const v6 = cdn.v6 && rng.chance(0.1);
    const ip = v6 ? v6Address(cdn.v6!, local, 1) : addressAt(world.cdnSpaces[cdn.id], local).join('.');
    const [country, city] = cdn.locations[local % cdn.locations.length]!;
    return {
      j,
      ip,
      family: v6 ? 6 : 4,
      asn: cdn.asn,
      organization: cdn.organization,
      country,
      city,
      kind: 'cloud',
      network: undefined,
      cdn,
    };
  }
  const slot = j % WHEEL;
  const index = world.wheel[slot]!;
  const network = NETWORKS[index]!;
  const local = Math.floor(j / WHEEL) * world.wheelShare[index]! + world.wheelRank[slot]!;
  const v6 = network.v6 !== undefined && rng.chance(network.kind === 'isp' ? 0.06 : 0.05);
  const bytes = addressAt(world.spaces[index]!, local);
  const block = hash(world.seed, Stream.Host, (bytes[0]! << 16) | (bytes[1]! << 8) | bytes[2]!, 5);
  const country = pickBy(network.countries, block);
  const cities = CITIES[country];
  return {
    j,
    ip: v6 ? v6Address(network.v6!, local, 1 + (block & 0xff)) : bytes.join('.'),
    family: v6 ? 6 : 4,
    asn: network.asn,
    organization: network.organization,
    country,
    city: cities ? pickBy(cities, fmix32(block)) : undefined,
    kind: network.kind,
    network,
    cdn: undefined,
  };
}

function pickBy<T>(table: Weighted<T>, value32: number): T {
  const target = (value32 / 4294967296) * table.total;
  const index = table.cumulative.findIndex((c) => c > target);
  return table.items[index === -1 ? table.items.length - 1 : index]!;
}

/** Names that resolve to address j (its domain's names spread over the domain's addresses), or its PTR name. */
function hostnamesOf(world: World, address: Address, rng: Rng): string[] {
  const j = address.j;
  if (address.cdn) {
    const names: string[] = [];
    const e = Math.floor(j / world.edgeStride);
    for (let d = e; d < world.domainPool && names.length < 400; d += world.edgeCount) {
      const domain = domainProfile(world, d);
      if (domain.cdn !== address.cdn.id) continue;
      names.push(domain.name);
      if (domain.names.includes(`www.${domain.name}`)) names.push(`www.${domain.name}`);
    }
    return names;
  }
  const owner = ownerOf(world, j);
  if (owner >= 0) {
    const domain = domainProfile(world, owner);
    const addresses = ownedAddresses(world, owner);
    const position = addresses.indexOf(j);
    return routedNames(domain).filter((_, k) => k % addresses.length === position);
  }
  if (address.network?.rdns && address.family === 4 && rng.chance(0.7)) {
    const bytes = address.ip.split('.').map(Number);
    const name = address.network.rdns(bytes, address.country, rng);
    return name ? [name.toLowerCase()] : [];
  }
  return [];
}

/** The names of a domain served by its own addresses (CDN domains send apex and www to the edge). */
function routedNames(domain: DomainProfile): string[] {
  if (!domain.cdn) return domain.names.slice();
  return domain.names.filter((name) => name !== domain.name && name !== `www.${domain.name}`);
}

// ==== certificates ==========================================================================================

interface Certificate {
  readonly fingerprint: string;
  readonly cn: string;
  readonly names: readonly string[];
  readonly issuerCn: string;
  readonly issuerOrganization: string;
  readonly serial: string;
  readonly notBefore: number;
  readonly notAfter: number;
  readonly selfSigned: boolean;
  readonly keyType: 'rsa' | 'ec';
  readonly keyBits: number;
}

const LE_SWITCH = Date.UTC(2024, 5, 6);

function issuerOf(
  ca: CaId,
  notBefore: number,
  rng: Rng,
): { cn: string; organization: string; ec: boolean; days: number; renew: number } {
  const ec = rng.chance(0.3);
  switch (ca) {
    case 'letsencrypt':
      return {
        cn:
          notBefore < LE_SWITCH ? (ec ? 'E1' : 'R3') : ec ? rng.pick(['E5', 'E6']) : rng.pick(['R10', 'R11']),
        organization: "Let's Encrypt",
        ec,
        days: 90,
        renew: 60,
      };
    case 'gts':
      return { cn: ec ? 'WE1' : 'WR1', organization: 'Google Trust Services', ec, days: 90, renew: 60 };
    case 'zerossl':
      return {
        cn: ec ? 'ZeroSSL ECC Domain Secure Site CA' : 'ZeroSSL RSA Domain Secure Site CA',
        organization: 'ZeroSSL',
        ec,
        days: 90,
        renew: 60,
      };
    case 'digicert':
      return {
        cn: 'DigiCert Global G2 TLS RSA SHA256 2020 CA1',
        organization: 'DigiCert Inc',
        ec: false,
        days: 397,
        renew: 365,
      };
    case 'sectigo':
      return {
        cn: 'Sectigo RSA Domain Validation Secure Server CA',
        organization: 'Sectigo Limited',
        ec: false,
        days: 365,
        renew: 335,
      };
    case 'globalsign':
      return {
        cn: 'GlobalSign GCC R3 DV TLS CA 2020',
        organization: 'GlobalSign nv-sa',
        ec: false,
        days: 397,
        renew: 365,
      };
    case 'godaddy':
      return {
        cn: 'Go Daddy Secure Certificate Authority - G2',
        organization: 'GoDaddy.com, Inc.',
        ec: false,
        days: 397,
        renew: 365,
      };
    case 'amazon':
      return {
        cn: rng.pick(['Amazon RSA 2048 M02', 'Amazon RSA 2048 M03', 'Amazon RSA 2048 M04']),
        organization: 'Amazon',
        ec: false,
        days: 395,
        renew: 335,
      };
  }
}

/** The certificate of domain d current at time `at` (issuance `back` renewals earlier when stale). */
function domainCertificate(world: World, domain: DomainProfile, at: number, back = 0): Certificate {
  const probe = new Rng(world.seed, Stream.Cert, domain.index, 1);
  const interval = issuerOf(domain.ca, at, probe).renew * DAY;
  const anchor = world.now - unit(world.seed, Stream.Cert, domain.index, 2) * interval;
  const issuance = Math.floor((at - anchor) / interval) - back;
  return certificateIssuance(world, domain, issuance);
}

function certificateIssuance(world: World, domain: DomainProfile, issuance: number): Certificate {
  const probe = new Rng(world.seed, Stream.Cert, domain.index, 1);
  const interval = issuerOf(domain.ca, world.now, probe).renew * DAY;
  const anchor = world.now - unit(world.seed, Stream.Cert, domain.index, 2) * interval;
  const notBefore = Math.floor((anchor + issuance * interval) / SECOND) * SECOND;
  const salt = (issuance + 100_000) >>> 0;
  const rng = new Rng(world.seed, Stream.Cert, domain.index, salt);
  const issuer = issuerOf(domain.ca, notBefore, rng);
  const serialLength = domain.ca === 'letsencrypt' ? 36 : 32;
  return {
    fingerprint: hexOf(world.seed, Stream.Cert, domain.index, salt, 64),
    cn: domain.certNames[0]!,
    names: domain.certNames,
    issuerCn: issuer.cn,
    issuerOrganization: issuer.organization,
    serial:
      (domain.ca === 'letsencrypt' ? rng.pick(['03', '04', '05', '06']) : '0') +
      rng.hex(serialLength - (domain.ca === 'letsencrypt' ? 2 : 1)),
    notBefore,
    notAfter: notBefore + issuer.days * DAY - SECOND,
    selfSigned: false,
    keyType: issuer.ec ? 'ec' : 'rsa',
    keyBits: issuer.ec ? 256 : rng.chance(0.12) ? 4096 : 2048,
  };
}

type DeviceCertId =
  | 'localhost'
  | 'localdomain'
  | 'ingress'
  | 'traefik'
  | 'plesk'
  | 'synology'
  | 'fortigate'
  | 'globalprotect'
  | 'netscaler'
  | 'vmca'
  | 'iosxe';

const GENERIC_DEVICE_CERTS = weighted<DeviceCertId>([
  ['localdomain', 4],
  ['localhost', 3],
  ['ingress', 2],
  ['traefik', 1],
]);

/** A self-signed or vendor-CA certificate of one service (factory defaults), fixed per address and port. */
function deviceCertificate(world: World, j: number, port: number, id: DeviceCertId): Certificate {
  const rng = new Rng(world.seed, Stream.Device, j, port);
  const notBefore = Math.floor((world.now - rng.next() * 8 * YEAR - DAY) / SECOND) * SECOND;
  const base = {
    fingerprint: rng.hex(64),
    serial: rng.hex(rng.pick([16, 18, 32, 40])).replace(/^0+(?=.)/, ''),
    notBefore,
  };
  const make = (
    cn: string,
    names: string[],
    issuerCn: string,
    issuerOrganization: string,
    years: number,
    selfSigned = true,
    keyBits = 2048,
  ): Certificate => ({
    ...base,
    cn,
    names,
    issuerCn,
    issuerOrganization,
    notAfter: notBefore + years * YEAR - SECOND,
    selfSigned,
    keyType: 'rsa',
    keyBits,
  });
  switch (id) {
    case 'localdomain':
      return make(
        'localhost.localdomain',
        ['localhost.localdomain'],
        'localhost.localdomain',
        'SomeOrganization',
        1,
      );
    case 'localhost':
      return make(
        'localhost',
        ['localhost'],
        'localhost',
        'Internet Widgits Pty Ltd',
        rng.pick([1, 10]),
        true,
        rng.chance(0.2) ? 1024 : 2048,
      );
    case 'ingress':
      return make(
        'Kubernetes Ingress Controller Fake Certificate',
        ['ingress.local'],
        'Kubernetes Ingress Controller Fake Certificate',
        'Acme Co',
        1,
      );
    case 'traefik':
      return make(
        'TRAEFIK DEFAULT CERT',
        [`${rng.hex(32)}.${rng.hex(32)}.traefik.default`],
        'TRAEFIK DEFAULT CERT',
        'TRAEFIK DEFAULT CERT',
        1,
      );
    case 'plesk':
      return make('Plesk', [], 'Plesk', 'Plesk', 1);
    case 'synology':
      return make('synology', ['synology'], 'Synology Inc. CA', 'Synology Inc.', 2, false);
    case 'fortigate': {
      const serial = `FGT${rng.pick(['60F', '40F', '100F', '60E', '200F'])}TK${rng.between(19, 24)}${rng.digits(6)}`;
      return make(serial, [], 'fortinet-subca2001', 'Fortinet', 10, false);
    }
    case 'globalprotect':
      return make('GlobalProtect', [], 'GlobalProtect-CA', 'Palo Alto Networks', 2, false);
    case 'netscaler': {
      const cn = `default${rng.hex(6).toUpperCase()}`;
      return make(cn, [], cn, 'Citrix ANG', 10);
    }
    case 'vmca':
      return make(
        `vcsa-${rng.digits(2)}.localdomain`,
        [`vcsa-${rng.digits(2)}.localdomain`],
        'CA',
        'VMware',
        2,
        false,
      );
    case 'iosxe': {
      const cn = `IOS-Self-Signed-Certificate-${rng.digits(10)}`;
      return make(cn, [], cn, cn, 20);
    }
  }
}

const CDN_CERTS: Readonly<
  Record<
    CdnId,
    { cn: string; names: string[]; issuer: string; organization: string; ec: boolean; days: number }
  >
> = {
  cloudflare: {
    cn: 'sni.cloudflaressl.com',
    names: ['sni.cloudflaressl.com'],
    issuer: 'Cloudflare Inc ECC CA-3',
    organization: 'Cloudflare, Inc.',
    ec: true,
    days: 365,
  },
  cloudfront: {
    cn: '*.cloudfront.net',
    names: ['*.cloudfront.net', 'cloudfront.net'],
    issuer: 'Amazon RSA 2048 M01',
    organization: 'Amazon',
    ec: false,
    days: 395,
  },
  akamai: {
    cn: 'a248.e.akamai.net',
    names: ['a248.e.akamai.net', '*.akamaized.net', '*.akamaihd.net'],
    issuer: 'DigiCert Global G2 TLS RSA SHA256 2020 CA1',
    organization: 'DigiCert Inc',
    ec: false,
    days: 397,
  },
  fastly: {
    cn: 'default.ssl.fastly.net',
    names: ['default.ssl.fastly.net', '*.global.ssl.fastly.net'],
    issuer: 'GlobalSign Atlas R3 DV TLS CA 2024 Q1',
    organization: 'GlobalSign nv-sa',
    ec: false,
    days: 397,
  },
};

/** One default certificate per CDN, renewed yearly: shared by every edge address of that CDN. */
function cdnCertificate(world: World, cdn: CdnId, at: number): Certificate {
  const spec = CDN_CERTS[cdn];
  const salt = Object.keys(CDNS).indexOf(cdn) + 1;
  const interval = (spec.days - 30) * DAY;
  const anchor = world.now - unit(world.seed, Stream.Cert, 0, 500 + salt) * interval;
  const issuance = Math.floor((at - anchor) / interval);
  const notBefore = Math.floor((anchor + issuance * interval) / SECOND) * SECOND;
  const key = (issuance + 100_000) * 8 + salt;
  return {
    fingerprint: hexOf(world.seed, Stream.Cert, key, 7001, 64),
    cn: spec.cn,
    names: spec.names,
    issuerCn: spec.issuer,
    issuerOrganization: spec.organization,
    serial: `0${hexOf(world.seed, Stream.Cert, key, 7002, 31)}`,
    notBefore,
    notAfter: notBefore + spec.days * DAY - SECOND,
    selfSigned: false,
    keyType: spec.ec ? 'ec' : 'rsa',
    keyBits: spec.ec ? 256 : 2048,
  };
}

/** A domain outside the pool, for certificates of sites whose names no scan resolved. */
function offPoolDomain(world: World, rng: Rng): number {
  return world.domainPool + rng.int(Math.max(1, world.count));
}

// ==== hosts =================================================================================================

interface ServiceObservation {
  readonly record: HostRecord;
  readonly cert: Certificate | undefined;
}

const TLS_PORTS: ReadonlySet<number> = new Set([
  443, 8443, 993, 995, 465, 10443, 4443, 5001, 2083, 2087, 6443, 10000, 2053, 2096, 9443,
]);

const REASONS: Readonly<Record<number, string>> = {
  200: 'OK',
  301: 'Moved Permanently',
  302: 'Found',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  500: 'Internal Server Error',
};

function httpBanner(
  status: number,
  server: string | undefined,
  headers: readonly string[],
  location?: string,
): string {
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? 'OK'}`];
  if (server) lines.push(`Server: ${server}`);
  lines.push('Content-Type: text/html; charset=UTF-8');
  if (location) lines.push(`Location: ${location}`);
  lines.push(...headers);
  return lines.join('\r\n');
}

/** Every service observed on address j, each with the certificate it presented. */
function servicesOf(world: World, j: number): ServiceObservation[] {
  const address = addressOf(world, j);
  const rng = new Rng(world.seed, Stream.Host, j);
  const hostnames = hostnamesOf(world, address, rng);
  const owner = address.cdn ? -1 : ownerOf(world, j);
  const domain = owner >= 0 ? domainProfile(world, owner) : undefined;
  const hostWindow = address.cdn
    ? { first: world.now - WINDOW * Math.pow(rng.next(), 0.5), last: world.now - rng.next() * 3 * DAY }
    : seenWindow(rng, world.now);
  const base = {
    country: address.country,
    city: address.city,
    asn: address.asn,
    organization: address.organization,
  };
  const planned: Planned[] = address.cdn
    ? address.cdn.ports.map(([port]) => ({ port, transport: 'tcp' as const, kind: 'edge' as const }))
    : planServices(rng, address.kind);
  const web = rng.weighted(WEB_SERVERS);
  const cpeWeb = rng.weighted(CPE_WEB);
  const siteTitle = domain && rng.chance(0.65) ? domain.title : undefined;
  const out: ServiceObservation[] = [];
  for (const service of planned) {
    const last = Math.max(hostWindow.first, hostWindow.last - rng.next() * 2 * DAY);
    const first = Math.min(last, hostWindow.first + rng.next() * 5 * DAY);
    const tls =
      TLS_PORTS.has(service.port) ||
      service.kind === 'https' ||
      service.kind === 'imaps' ||
      service.kind === 'pop3s' ||
      service.kind === 'smtps';
    const record: Record<string, unknown> = {
      id: hostRecordId(address.ip, service.port, service.transport),
      ip: address.ip,
      port: service.port,
      transport: service.transport,
    };
    let variant: Variant | undefined;
    let http: { status: number; title?: string; server?: string } | undefined;
    let favicon: number | undefined;
    let banner: string | undefined;
    let protocol: string;
    let cert: Certificate | undefined;
    let device: DeviceCertId | undefined;
    let deviceShare = 0;
    const appDef = service.app ? APPS[service.app] : undefined;

    if (service.kind === 'edge' && address.cdn) {
      const cdn = address.cdn;
      variant = v(cdn.product, cdn.vendor, undefined, [], { server: cdn.server });
      http = { status: cdn.status, title: cdn.title, server: cdn.server };
      protocol = cdn.ports.some(([p, t]) => p === service.port && t) ? 'https' : 'http';
      banner = httpBanner(
        cdn.status,
        cdn.server,
        cdn.id === 'cloudflare'
          ? ['CF-RAY: ' + rng.hex(16) + '-' + rng.pick(['CDG', 'FRA', 'AMS', 'IAD', 'SJC', 'LHR'])]
          : [],
      );
      if (protocol === 'https') cert = cdnCertificate(world, cdn.id, last);
    } else if (appDef) {
      variant = rng.weighted(appDef.variants);
      const server = variant.server ?? appDef.server;
      const redirect = service.kind === 'http' && service.port === 80 && rng.chance(0.6);
      const status = redirect ? 301 : (appDef.status ?? 200);
      const title = redirect ? '301 Moved Permanently' : appDef.title;
      http = { status, ...(title ? { title } : {}), ...(server ? { server } : {}) };
      favicon = redirect ? undefined : appDef.favicon;
      banner =
        variant.banner ??
        httpBanner(
          status,
          server,
          variant.headers ?? [],
          redirect ? `https://${hostnames[0] ?? address.ip}/` : undefined,
        );
      if (service.app === 'elasticsearch') {
        http = { status: 200 };
        banner = `HTTP/1.1 200 OK\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n{"name":"node-1","cluster_name":"elasticsearch","version":{"number":"${variant.version ?? ''}","build_flavor":"default"},"tagline":"You Know, for Search"}`;
      }
      protocol = tls ? 'https' : 'http';
      device = appDef.device;
      deviceShare = appDef.deviceCertShare;
    } else {
      switch (service.kind) {
        case 'http':
        case 'https': {
          variant = web;
          const redirect = service.kind === 'http' && domain !== undefined && rng.chance(0.5);
          const status = redirect ? 301 : rng.weighted(STATUSES);
          const family = web.family ?? 'app';
          const title = redirect
            ? '301 Moved Permanently'
            : status === 200 && siteTitle
              ? siteTitle
              : status === 403
                ? '403 Forbidden'
                : status === 404
                  ? '404 Not Found'
                  : rng.chance(0.85)
                    ? rng.pick(DEFAULT_TITLES[family] ?? DEFAULT_TITLES.app!)
                    : undefined;
          http = { status, ...(title ? { title } : {}), ...(web.server ? { server: web.server } : {}) };
          favicon = !redirect && domain?.favicon !== undefined && status === 200 ? domain.favicon : undefined;
          banner = httpBanner(
            status,
            web.server,
            web.headers ?? [],
            redirect ? `https://${hostnames[0] ?? address.ip}/` : undefined,
          );
          protocol = service.kind === 'https' || tls ? 'https' : 'http';
          break;
        }
        case 'cpe-web':
        case 'cwmp': {
          variant = service.kind === 'cwmp' ? rng.weighted(CWMP_SERVERS) : cpeWeb;
          const status = service.kind === 'cwmp' ? 401 : rng.pick([200, 200, 200, 401, 302]);
          const title = service.kind === 'cwmp' ? undefined : rng.pick(CPE_TITLES);
          http = {
            status,
            ...(title ? { title } : {}),
            ...(variant.server ? { server: variant.server } : {}),
          };
          banner = httpBanner(
            status,
            variant.server,
            status === 401 ? ['WWW-Authenticate: Digest realm="IgdAuthentication"'] : [],
          );
          protocol = 'http';
          break;
        }
        case 'ssh':
          variant = rng.weighted(SSH_SERVERS);
          protocol = 'ssh';
          break;
        case 'ftp':
          variant = rng.weighted(FTP_SERVERS);
          protocol = 'ftp';
          break;
        case 'smtp':
        case 'submission':
        case 'smtps':
          variant = rng.weighted(SMTP_SERVERS);
          protocol = service.kind === 'smtps' ? 'smtps' : 'smtp';
          break;
        case 'imap':
        case 'imaps':
          variant = rng.weighted(IMAP_SERVERS);
          protocol = service.kind;
          break;
        case 'pop3':
        case 'pop3s':
          variant = rng.weighted(POP3_SERVERS);
          protocol = service.kind;
          break;
        case 'dns':
          variant = rng.weighted(DNS_SERVERS);
          protocol = 'dns';
          break;
        case 'mysql':
          variant = rng.weighted(MYSQL_SERVERS);
          protocol = 'mysql';
          break;
        case 'postgresql':
          variant = rng.weighted(SINGLE.postgresql);
          protocol = 'postgresql';
          break;
        case 'redis':
          variant = rng.weighted(REDIS_SERVERS);
          protocol = 'redis';
          break;
        case 'mongodb':
          variant = rng.weighted(MONGODB_SERVERS);
          protocol = 'mongodb';
          break;
        default: {
          const table = (SINGLE as Readonly<Record<string, Weighted<Variant>>>)[service.kind];
          variant = table ? rng.weighted(table) : undefined;
          protocol = PROTOCOLS[service.kind] ?? service.kind;
        }
      }
      if (variant?.banner) banner = variant.banner.replaceAll('{host}', hostnames[0] ?? `${address.ip}`);
    }

    if (tls && !cert) {
      if (domain && !(device && rng.chance(deviceShare))) {
        cert = domainCertificate(world, domain, last, rng.chance(0.04) ? 2 : 0);
      } else if (device && (!domain || rng.chance(deviceShare))) {
        cert = deviceCertificate(world, j, service.port, device);
      } else if (rng.chance(0.5)) {
        cert = domainCertificate(
          world,
          domainProfile(world, offPoolDomain(world, rng)),
          last,
          rng.chance(0.08) ? 3 : 0,
        );
      } else {
        cert = deviceCertificate(world, j, service.port, rng.weighted(GENERIC_DEVICE_CERTS));
      }
    }

    record.protocol = protocol;
    if (variant) {
      record.product = variant.product.toLowerCase();
      record.vendor = variant.vendor.toLowerCase();
      if (variant.version) record.version = variant.version;
      if (variant.cpe && variant.cpe.length > 0) record.cpe = variant.cpe.map((c) => c.toLowerCase());
    }
    if (banner) record.banner = banner;
    if (http) {
      const h: Record<string, unknown> = { status: http.status };
      if (http.title) h.title = http.title;
      if (http.server) h.server = http.server.toLowerCase();
      record.http = h;
    }
    if (favicon !== undefined) record.favicon = { hash: favicon };
    if (cert) {
      const san = cert.names.map((n) => n.toLowerCase());
      record.tls = {
        subject: { cn: cert.cn.toLowerCase() },
        ...(san.length > 0 ? { san } : {}),
        fingerprint: cert.fingerprint,
      };
    }
    record.country = base.country;
    if (base.city) record.city = base.city.toLowerCase();
    record.asn = base.asn;
    record.organization = base.organization.toLowerCase();
    if (hostnames.length > 0) record.hostnames = hostnames;
    record.shared_edge = address.cdn !== undefined;
    record.first_seen = iso(first);
    record.last_seen = iso(last);
    out.push({ record: record as HostRecord, cert });
  }
  return out;
}

const STATUSES = weighted<number>([
  [200, 62],
  [403, 10],
  [404, 12],
  [302, 6],
  [401, 4],
  [400, 2],
  [500, 1],
]);

function* hostRecords(world: World): Generator<ObservationRecord> {
  for (let j = 0; ; j++) {
    for (const service of servicesOf(world, j)) yield service.record;
  }
}

// ==== vhosts ================================================================================================

function certificateRecord(
  cert: Certificate,
  first: number,
  last: number,
  ip?: string,
  port?: number,
): VhostRecord {
  const record: Record<string, unknown> = { id: vhostRecordId(cert.fingerprint, ip, port) };
  if (ip !== undefined && port !== undefined) {
    record.ip = ip;
    record.port = port;
  }
  Object.assign(record, {
    fingerprint: cert.fingerprint,
    subject: { cn: cert.cn.toLowerCase() },
  });
  if (cert.names.length > 0) record.names = cert.names.map((n) => n.toLowerCase());
  record.issuer = { cn: cert.issuerCn.toLowerCase(), organization: cert.issuerOrganization.toLowerCase() };
  record.serial = cert.serial.toLowerCase();
  record.not_before = iso(cert.notBefore);
  record.not_after = iso(cert.notAfter);
  record.self_signed = cert.selfSigned;
  record.key = { type: cert.keyType, bits: cert.keyBits };
  record.first_seen = iso(first);
  record.last_seen = iso(last);
  return record as VhostRecord;
}

/** Certificates on the generated services first, then certificate-transparency entries of the pool domains. */
function* vhostRecords(world: World): Generator<ObservationRecord> {
  for (let j = 0; j < world.ipCount; j++) {
    for (const { record, cert } of servicesOf(world, j)) {
      if (!cert) continue;
      const first = Math.max(
        Date.parse(record.first_seen),
        Math.min(cert.notBefore, Date.parse(record.last_seen)),
      );
      yield certificateRecord(cert, first, Date.parse(record.last_seen), record.ip, record.port);
    }
  }
  // Each round visits every registered domain once; a fifth of the entries are earlier, expired issuances.
  const domains = Math.max(1, world.count);
  for (let k = 0; ; k++) {
    const d = k % domains;
    const rng = new Rng(world.seed, Stream.Ct, k);
    const back = Math.floor(k / domains) * 4 + (rng.chance(0.8) ? 0 : rng.between(1, 3));
    const domain = domainProfile(world, d);
    const cert = certificateIssuance(world, domain, issuanceOf(world, domain, world.now) - back);
    const seen = Math.min(world.now, cert.notBefore + rng.next() * 2 * DAY);
    const last = Math.max(seen, Math.min(world.now, cert.notAfter) - rng.next() * 10 * DAY);
    yield certificateRecord(cert, Math.max(world.now - WINDOW, seen), Math.max(world.now - WINDOW, last));
  }
}

function issuanceOf(world: World, domain: DomainProfile, at: number): number {
  const probe = new Rng(world.seed, Stream.Cert, domain.index, 1);
  const interval = issuerOf(domain.ca, at, probe).renew * DAY;
  const anchor = world.now - unit(world.seed, Stream.Cert, domain.index, 2) * interval;
  return Math.floor((at - anchor) / interval);
}

// ==== dns ===================================================================================================

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

function* dnsRecords(world: World): Generator<ObservationRecord> {
  for (let d = 0; ; d++) yield* domainDns(world, d);
}

// ==== whois =================================================================================================

const REGISTRARS = weighted<string>([
  ['GoDaddy.com, LLC', 22],
  ['NameCheap, Inc.', 10],
  ['Tucows Domains Inc.', 6],
  ['Squarespace Domains II LLC', 4],
  ['Network Solutions, LLC', 3],
  ['Gandi SAS', 3],
  ['OVH sas', 5],
  ['IONOS SE', 5],
  ['Cloudflare, Inc.', 5],
  ['Key-Systems GmbH', 3],
  ['Porkbun LLC', 3],
  ['Amazon Registrar, Inc.', 3],
  ['PDR Ltd. d/b/a PublicDomainRegistry.com', 4],
  ['Hostinger operations, UAB', 3],
  ['Dynadot Inc', 2],
  ['eNom, LLC', 2],
  ['Register.com, Inc.', 1],
  ['Wild West Domains, LLC', 2],
  ['Realtime Register B.V.', 1],
  ['Alibaba Cloud Computing (Beijing) Co., Ltd.', 2],
  ['Registrar of domain names REG.RU LLC', 2],
]);

const REGISTRAR_BY_NS: Partial<Record<NsProvider, string>> = {
  godaddy: 'GoDaddy.com, LLC',
  namecheap: 'NameCheap, Inc.',
  ovh: 'OVH sas',
  gandi: 'Gandi SAS',
  ionos: 'IONOS SE',
  markmonitor: 'MarkMonitor Inc.',
};

const PRIVACY_ORGS: Readonly<Record<string, string>> = {
  'GoDaddy.com, LLC': 'Domains By Proxy, LLC',
  'NameCheap, Inc.': 'Privacy service provided by Withheld for Privacy ehf',
  'Tucows Domains Inc.': 'Contact Privacy Inc. Customer 0123456789',
  'Gandi SAS': 'Gandi SAS',
};

const FIRST_NAMES = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'Thomas',
  'Sarah',
  'Daniel',
  'Laura',
  'Jean',
  'Marie',
  'Pierre',
  'Sophie',
  'Nicolas',
  'Camille',
  'Lukas',
  'Anna',
  'Jonas',
  'Lea',
  'Felix',
  'Hannah',
  'Hiroshi',
  'Yuki',
  'Wei',
  'Li',
  'Carlos',
  'Ana',
  'Javier',
  'Lucia',
  'Marco',
  'Giulia',
  'Jan',
  'Eva',
  'Olga',
  'Ivan',
];
const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Taylor',
  'Martin',
  'Dupont',
  'Durand',
  'Lefebvre',
  'Moreau',
  'Bernard',
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Tanaka',
  'Suzuki',
  'Wang',
  'Zhang',
  'Garcia',
  'Rodriguez',
  'Lopez',
  'Rossi',
  'Bianchi',
  'Jansen',
  'de Vries',
  'Kowalski',
  'Nowak',
  'Ivanov',
  'Petrov',
];
const MAILBOXES = [
  'gmail.com',
  'outlook.com',
  'yahoo.com',
  'hotmail.com',
  'gmx.de',
  'orange.fr',
  'proton.me',
  'icloud.com',
];

function emailLocal(first: string, last: string): string {
  return `${first}.${last}`
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z.]/g, '')
    .toLowerCase();
}

function whoisRecord(world: World, d: number): WhoisRecord {
  const domain = domainProfile(world, d);
  const rng = new Rng(world.seed, Stream.Whois, d);
  const registrar =
    REGISTRAR_BY_NS[domain.ns] && rng.chance(0.85)
      ? REGISTRAR_BY_NS[domain.ns]!
      : domain.ns === 'cloudflare' && rng.chance(0.35)
        ? 'Cloudflare, Inc.'
        : domain.ns === 'route53' && rng.chance(0.4)
          ? 'Amazon Registrar, Inc.'
          : rng.weighted(REGISTRARS);
  const created =
    Math.floor((world.now - domain.createdYearsAgo * YEAR) / DAY) * DAY + rng.int(86_400) * SECOND;
  const yearsHeld = Math.floor((world.now - created) / YEAR);
  const state = rng.next();
  let expires: number;
  let status: string[];
  if (state < 0.04) {
    expires = created + yearsHeld * YEAR - rng.between(1, 60) * DAY;
    status = rng.pick([['redemptionPeriod'], ['clientHold'], ['pendingDelete']]);
  } else if (state < 0.08) {
    expires = world.now + rng.between(1, 30) * DAY;
    status = ['clientTransferProhibited', 'autoRenewPeriod'];
  } else {
    expires = created + (yearsHeld + 1 + rng.int(3)) * YEAR;
    status =
      registrar.startsWith('MarkMonitor') || rng.chance(0.2)
        ? ['clientDeleteProhibited', 'clientTransferProhibited', 'clientUpdateProhibited']
        : rng.chance(0.75)
          ? ['clientTransferProhibited']
          : ['ok'];
  }
  if (expires < created) expires = created + YEAR;
  const updated = Math.min(
    world.now - DAY,
    Math.max(created, world.now - Math.pow(rng.next(), 2) * 3 * YEAR),
  );
  const window = seenWindow(rng, world.now, 2.5);
  const record: Record<string, unknown> = {
    id: domain.name,
    domain: domain.name,
    registrar: registrar.toLowerCase(),
    status: [...new Set(status.map((s) => s.toLowerCase()))],
    name_servers: nameServers(domain).map((n) => n.toLowerCase()),
    created: iso(created),
    updated: iso(Math.max(created, updated)),
    expires: iso(expires),
  };
  const kind = rng.next();
  const registrant: Record<string, string> = { country: domain.country };
  let person: { first: string; last: string } | undefined;
  if (kind < 0.55) registrant.organization = domain.organization.toLowerCase();
  else if (kind < 0.75)
    registrant.organization = (PRIVACY_ORGS[registrar] ?? 'Redacted for Privacy').toLowerCase();
  else if (kind < 0.95) {
    person = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
    registrant.name = `${person.first} ${person.last}`.toLowerCase();
    registrant.email = `${emailLocal(person.first, person.last)}@${rng.chance(0.6) ? rng.pick(MAILBOXES) : domain.name}`;
  } else {
    registrant.organization = domain.organization.toLowerCase();
    person = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
    registrant.name = `${person.first} ${person.last}`.toLowerCase();
    registrant.email = `${rng.pick(['admin', 'it', 'webmaster', 'contact', 'hostmaster'])}@${domain.name}`;
  }
  record.registrant = {
    ...(registrant.organization ? { organization: registrant.organization } : {}),
    country: registrant.country,
    ...(registrant.name ? { name: registrant.name } : {}),
    ...(registrant.email ? { email: registrant.email } : {}),
  };
  if (person) {
    record.admin = { name: registrant.name, email: registrant.email };
    if (rng.chance(0.5)) {
      const tech = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
      record.tech = {
        name: `${tech.first} ${tech.last}`.toLowerCase(),
        email: `${emailLocal(tech.first, tech.last)}@${rng.pick(MAILBOXES)}`,
      };
    } else record.tech = { name: registrant.name, email: registrant.email };
  }
  record.first_seen = iso(window.first);
  record.last_seen = iso(window.last);
  return record as WhoisRecord;
}

function* whoisRecords(world: World): Generator<ObservationRecord> {
  for (let d = 0; ; d++) yield whoisRecord(world, d);
}

/** A stable digest of generated output, for determinism checks and the CLI summary. */
export function digestRecords(records: Iterable<ObservationRecord>): string {
  const digest = createHash('sha256');
  for (const record of records) digest.update(JSON.stringify(record)).update('\n');
  return digest.digest('hex');
}
