import { type CdnId, CDNS } from './cdns.js';
import type { CaId } from './domain-tables.js';
import type { DomainProfile } from './domains.js';
import type { DeviceCertId } from './variants.js';
import { hexOf, Rng, Stream, unit, weighted } from './random.js';
import { DAY, SECOND, YEAR } from './time.js';
import type { World } from './world.js';

/** Certificates of domains, devices and CDNs: functions of (world, domain or address, issuance). */

export interface Certificate {
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

export function issuerOf(
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
export function domainCertificate(world: World, domain: DomainProfile, at: number, back = 0): Certificate {
  const probe = new Rng(world.seed, Stream.Cert, domain.index, 1);
  const interval = issuerOf(domain.ca, at, probe).renew * DAY;
  const anchor = world.now - unit(world.seed, Stream.Cert, domain.index, 2) * interval;
  const issuance = Math.floor((at - anchor) / interval) - back;
  return certificateIssuance(world, domain, issuance);
}

export function certificateIssuance(world: World, domain: DomainProfile, issuance: number): Certificate {
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

export const GENERIC_DEVICE_CERTS = weighted<DeviceCertId>([
  ['localdomain', 4],
  ['localhost', 3],
  ['ingress', 2],
  ['traefik', 1],
]);

/** A self-signed or vendor-CA certificate of one service (factory defaults), fixed per address and port. */
export function deviceCertificate(world: World, j: number, port: number, id: DeviceCertId): Certificate {
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
export function cdnCertificate(world: World, cdn: CdnId, at: number): Certificate {
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
export function offPoolDomain(world: World, rng: Rng): number {
  return world.domainPool + rng.int(Math.max(1, world.count));
}
