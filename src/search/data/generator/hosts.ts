import { type HostRecord, hostRecordId, type ObservationRecord } from '../../domain/records.js';
import { APPS } from './apps.js';
import {
  cdnCertificate,
  type Certificate,
  deviceCertificate,
  domainCertificate,
  GENERIC_DEVICE_CERTS,
  offPoolDomain,
} from './certificates.js';
import { domainProfile } from './domains.js';
import { type Planned, planServices } from './host-profiles.js';
import { Rng, Stream, type Weighted, weighted } from './random.js';
import {
  CPE_TITLES,
  CPE_WEB,
  CWMP_SERVERS,
  DNS_SERVERS,
  FTP_SERVERS,
  IMAP_SERVERS,
  MONGODB_SERVERS,
  MYSQL_SERVERS,
  POP3_SERVERS,
  PROTOCOLS,
  REDIS_SERVERS,
  SINGLE,
  SMTP_SERVERS,
  SSH_SERVERS,
} from './service-software.js';
import { DAY, iso, seenWindow, WINDOW } from './time.js';
import { type DeviceCertId, v, type Variant } from './variants.js';
import { DEFAULT_TITLES, WEB_SERVERS } from './web-servers.js';
import { addressOf, hostnamesOf, ownerOf } from './world-addresses.js';
import type { World } from './world.js';

/** The hosts dataset: every service observed on each address of the world. */

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
export function servicesOf(world: World, j: number): ServiceObservation[] {
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

export function* hostRecords(world: World): Generator<ObservationRecord> {
  for (let j = 0; ; j++) {
    for (const service of servicesOf(world, j)) yield service.record;
  }
}
