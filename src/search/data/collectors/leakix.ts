import { hostRecordId, vhostRecordId } from '../../domain/records.js';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type CollectorFormat,
  type FingerprintEvidence,
} from './collected.js';
import {
  collectedTime,
  compact,
  dnsName,
  ipAddress,
  isObject,
  keyword,
  objectAt,
  portNumber,
  sshSoftwareVersion,
  stringAt,
  text,
  type JsonObject,
} from './collected-values.js';

/**
 * LeakIX l9 events (github.com/LeakIX/l9format), one JSON object per line → a hosts record for the service
 * (ip:port/transport) and, when the event carries `ssl.certificate`, a vhosts record for the certificate
 * observed on it. LeakIX gives the certificate's facts, not its DER, so the record holds what the event says.
 * ADR 98 records the mapping.
 */

const KEY_TYPES: Readonly<Record<string, 'rsa' | 'ec' | 'ed25519' | 'ed448' | 'dsa'>> = {
  rsa: 'rsa',
  ecdsa: 'ec',
  ec: 'ec',
  ed25519: 'ed25519',
  ed448: 'ed448',
  dsa: 'dsa',
};

export const leakixFormat: CollectorFormat = {
  name: 'leakix',
  unit: 'lines',

  sniff(head: Buffer): boolean {
    const text = head.toString('utf8');
    const firstLine = text.trimStart().split('\n', 1)[0]!.trim();
    try {
      if (isL9Event(JSON.parse(firstLine))) return true;
    } catch {
      // a pretty-printed event or a line longer than the head: look at the keys instead
    }
    return (
      firstLine.startsWith('{') &&
      /"event_type"\s*:\s*"/.test(text) &&
      /"event_source"\s*:\s*"/.test(text) &&
      /"event_pipeline"\s*:\s*\[/.test(text)
    );
  },

  records(item: string | Buffer, context: CollectorContext): Array<CollectedRecord | CollectedRecordRefused> {
    const line = (typeof item === 'string' ? item : item.toString('utf8')).trim();
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (error) {
      const pretty = line === '{' || line.endsWith(',') || line === '}';
      throw new CollectedRecordRefused(
        pretty
          ? 'a fragment of a pretty-printed event: LeakIX events are one JSON object per line (compact the file with `jq -c .`)'
          : `not JSON (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (!isL9Event(event)) {
      throw new CollectedRecordRefused('not a LeakIX l9 event: expected "event_type", "ip" and "port"');
    }
    const ip = ipAddress(event.ip);
    if (!ip)
      throw new CollectedRecordRefused(`"ip" is not an IPv4 or IPv6 address: ${JSON.stringify(event.ip)}`);
    const port = portNumber(event.port);
    if (port === undefined) {
      throw new CollectedRecordRefused(`"port" is not a port from 1 to 65535: ${JSON.stringify(event.port)}`);
    }
    const seen = collectedTime(event.time) ?? context.seenAt;
    const transports = Array.isArray(event.transport) ? event.transport.map(String) : [];
    const transport = transports.includes('udp') ? 'udp' : 'tcp';
    const http = objectAt(event, 'http');
    const certificate = objectAt(event, 'ssl', 'certificate');
    const fingerprint = keyword(certificate?.fingerprint)?.toLowerCase();
    const certificateUsable =
      fingerprint !== undefined && /^[0-9a-f]{64}$/.test(fingerprint.replaceAll(':', ''));
    const sanNames = certificateNames(certificate);
    const sshIdentification = stringAt(event, 'ssh', 'banner');
    const protocol = keyword(event.protocol)?.toLowerCase();

    const host = compact({
      id: hostRecordId(ip, port, transport),
      first_seen: seen,
      last_seen: seen,
      ip,
      port,
      transport,
      protocol: protocol && /^[a-z0-9][a-z0-9+._-]{0,31}$/.test(protocol) ? protocol : undefined,
      banner: text(sshIdentification),
      http: {
        status: httpStatus(http?.status),
        title: keyword(http?.title),
        server: keyword(header(http, 'server')),
      },
      tls: certificateUsable
        ? {
            subject: { cn: keyword(certificate?.cn) },
            san: sanNames,
            fingerprint: fingerprint!.replaceAll(':', ''),
          }
        : undefined,
      country: countryCode(stringAt(event, 'geoip', 'country_iso_code')),
      city: keyword(stringAt(event, 'geoip', 'city_name')),
      asn: asNumber(objectAt(event, 'network')?.asn),
      organization: keyword(stringAt(event, 'network', 'organization_name')),
      hostnames: unique(
        [event.host, event.reverse].flatMap(
          (name) => dnsName(name, { wildcard: false, singleLabel: false }) ?? [],
        ),
      ),
    });
    const records: CollectedRecord[] = [
      { dataset: 'hosts', record: host, evidence: evidenceOf(event, http) },
    ];
    if (certificateUsable) {
      records.push(vhostOf(certificate!, fingerprint!.replaceAll(':', ''), sanNames, { ip, port, seen }));
    }
    return records;
  },
};

function isL9Event(value: unknown): value is JsonObject {
  return isObject(value) && typeof value.event_type === 'string' && 'ip' in value && 'port' in value;
}

/**
 * Evidence for fingerprinting. LeakIX's own reading of the software (`service.software`: name, version,
 * modules) comes first, written the way an HTTP server announces itself (`Apache/2.2.4`, `PHP/4.4.2`) so
 * Recog's http_servers and http_xpoweredby databases read it; then the headers and title as observed.
 */
function evidenceOf(event: JsonObject, http: JsonObject | undefined): FingerprintEvidence[] {
  const evidence: FingerprintEvidence[] = [];
  const isHttp = http !== undefined || /^https?$/.test(String(event.protocol));
  const software = objectAt(event, 'service', 'software');
  const name = keyword(software?.name);
  if (isHttp && name) {
    const version = keyword(software?.version);
    evidence.push({ matches: 'http_header.server', text: version ? `${name}/${version}` : name });
    for (const module of Array.isArray(software?.modules) ? software.modules : []) {
      const moduleName = keyword(isObject(module) ? module.name : undefined);
      const moduleVersion = keyword(isObject(module) ? module.version : undefined);
      if (moduleName) {
        evidence.push({
          matches: 'http_header.x-powered-by',
          text: moduleVersion ? `${moduleName}/${moduleVersion}` : moduleName,
        });
      }
    }
  }
  const server = keyword(header(http, 'server'));
  if (server) evidence.push({ matches: 'http_header.server', text: server });
  const poweredBy = keyword(header(http, 'x-powered-by'));
  if (poweredBy) evidence.push({ matches: 'http_header.x-powered-by', text: poweredBy });
  const wwwAuthenticate = keyword(header(http, 'www-authenticate'));
  if (wwwAuthenticate) evidence.push({ matches: 'http_header.wwwauth', text: wwwAuthenticate });
  const title = keyword(http?.title);
  if (title) evidence.push({ matches: 'html_title', text: title });
  const ssh = stringAt(event, 'ssh', 'banner');
  const sshSoftware = ssh ? sshSoftwareVersion(ssh) : undefined;
  if (sshSoftware) evidence.push({ matches: 'ssh.banner', text: sshSoftware });
  return evidence;
}

function vhostOf(
  certificate: JsonObject,
  fingerprint: string,
  names: string[],
  seen: { ip: string; port: number; seen: string },
): CollectedRecord {
  const notBefore = collectedTime(certificate.not_before);
  const notAfter = collectedTime(certificate.not_after);
  const keyType = KEY_TYPES[String(certificate.key_algo).toLowerCase()];
  const bits = certificate.key_size;
  const record = compact({
    id: vhostRecordId(fingerprint, seen.ip, seen.port),
    first_seen: seen.seen,
    last_seen: seen.seen,
    fingerprint,
    subject: { cn: keyword(certificate.cn) },
    names,
    // LeakIX's issuer_name is the issuer's common name (`R3`, `Rapid SSL`).
    issuer: { cn: keyword(certificate.issuer_name) },
    not_before: notBefore,
    not_after: notAfter && (!notBefore || notBefore <= notAfter) ? notAfter : undefined,
    key: {
      type: keyType,
      bits:
        typeof bits === 'number' && Number.isInteger(bits) && bits >= 128 && bits <= 65_536
          ? bits
          : undefined,
    },
    ip: seen.ip,
    port: seen.port,
  });
  return { dataset: 'vhosts', record, evidence: [] };
}

function certificateNames(certificate: JsonObject | undefined): string[] {
  const domains = Array.isArray(certificate?.domain) ? certificate.domain : [];
  return unique(domains.flatMap((name) => dnsName(name, { wildcard: true, singleLabel: true }) ?? []));
}

/** A header of LeakIX's `http.header` map, whatever the case of its name. */
function header(http: JsonObject | undefined, name: string): unknown {
  const headers = objectAt(http, 'header');
  if (!headers) return undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

function httpStatus(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599
    ? value
    : undefined;
}

function countryCode(value: string | undefined): string | undefined {
  return value && /^[a-z]{2}$/i.test(value) ? value.toLowerCase() : undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 4_294_967_295
    ? value
    : undefined;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
