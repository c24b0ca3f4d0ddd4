/** Data table: the edge networks (CDNs) and how edge addresses are shared among them. */

export type CdnId = 'cloudflare' | 'cloudfront' | 'akamai' | 'fastly';

export interface Cdn {
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
export const CDNS: Readonly<Record<CdnId, Cdn>> = {
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
export const CDN_BY_SLOT: readonly CdnId[] = [
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
