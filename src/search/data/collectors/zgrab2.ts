import { hostRecordId } from '../../domain/records.js';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type CollectorFormat,
  type FingerprintEvidence,
} from './collected.js';
import {
  certificateEvidence,
  certificateVhost,
  describeCertificate,
  hostTlsFields,
  type CertificateFacts,
} from './certificate.js';
import {
  collectedTime,
  compact,
  dnsName,
  ipAddress,
  isObject,
  keyword,
  objectAt,
  portNumber,
  stringAt,
  type JsonObject,
} from './collected-values.js';
import { readHttp } from './zgrab2-http.js';
import { findHandshakeLog, readModule, ZGRAB2_MODULES } from './zgrab2-modules.js';

/**
 * zgrab2: one JSON object per line, `{ip, domain, data: {<scan name>: {status, protocol, result, timestamp,
 * error}}}`. Each scan of the line becomes a hosts record (ip:port/transport); scans of one line that land on
 * the same service merge into one record. The leaf certificate of a TLS handshake becomes a vhosts record
 * observed on that service. A scan that failed (status other than success) with nothing usable is refused in
 * its place; a line none of whose scans is usable is refused whole. ADR 98 records the mapping.
 */

/** Statuses where the service answered in the scanned protocol (application-error: it answered with an error). */
const ANSWERED = new Set(['success', 'application-error']);

export const zgrab2Format: CollectorFormat = {
  name: 'zgrab2',
  unit: 'lines',

  sniff(head: Buffer): boolean {
    const text = head.toString('utf8').trimStart();
    const firstLine = text.split('\n', 1)[0]!.trim();
    if (!firstLine.startsWith('{')) return false;
    const complete = text.includes('\n') || head.length < 65_536;
    if (complete) {
      try {
        return isZgrab2Line(JSON.parse(firstLine));
      } catch {
        return false;
      }
    }
    // A line longer than the head (HTTP bodies, certificate chains): zgrab2 prints ip, domain, then data.
    return /^\{(?:"ip":"[^"]*",)?(?:"domain":"[^"]*",)?"data":\{"[^"]+":\{"status":"/.test(firstLine);
  },

  records(item: string | Buffer, context: CollectorContext): Array<CollectedRecord | CollectedRecordRefused> {
    const line = typeof item === 'string' ? item : item.toString('utf8');
    let grab: unknown;
    try {
      grab = JSON.parse(line);
    } catch (error) {
      throw new CollectedRecordRefused(
        `not JSON (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (!isZgrab2Line(grab)) {
      throw new CollectedRecordRefused(
        'not a zgrab2 record: expected {"ip", "domain", "data": {<scan>: {"status", …}}}',
      );
    }
    const ip = ipAddress(grab.ip);
    if (!ip) {
      throw new CollectedRecordRefused(
        grab.ip === undefined
          ? `no "ip": a zgrab2 record of ${describeTarget(grab)} without the address it reached cannot be a hosts record`
          : `"ip" is not an IPv4 or IPv6 address: ${JSON.stringify(grab.ip).slice(0, 60)}`,
      );
    }
    const hostname = dnsName(grab.domain, { wildcard: false, singleLabel: false });
    const services = new Map<string, ServiceObservation>();
    const vhosts = new Map<string, CollectedRecord>();
    const refusals: CollectedRecordRefused[] = [];

    for (const [scanName, scan] of Object.entries(objectAt(grab, 'data')!)) {
      const outcome = readScan(scanName, scan, context);
      if (typeof outcome === 'string') {
        refusals.push(new CollectedRecordRefused(`scan "${scanName}": ${outcome}`));
        continue;
      }
      const id = hostRecordId(ip, outcome.port, outcome.transport);
      services.set(id, merge(services.get(id), outcome));
      if (outcome.certificate) {
        const vhost = certificateVhost(outcome.certificate.facts, {
          ip,
          port: outcome.port,
          firstSeen: outcome.seen,
          lastSeen: outcome.seen,
        });
        vhosts.set(String(vhost.record.id), vhost);
      }
    }
    if (services.size === 0) {
      throw new CollectedRecordRefused(
        refusals.map((refusal) => refusal.message).join('; ') || 'no scans in "data"',
      );
    }
    const records: Array<CollectedRecord | CollectedRecordRefused> = [];
    for (const [id, service] of services) records.push(hostRecord(id, ip, hostname, service));
    records.push(...vhosts.values(), ...refusals);
    return records;
  },
};

function isZgrab2Line(value: unknown): value is JsonObject {
  const data = objectAt(value, 'data');
  if (!data) return false;
  const scans = Object.values(data);
  return scans.length > 0 && scans.every((scan) => isObject(scan) && typeof scan.status === 'string');
}

function describeTarget(grab: JsonObject): string {
  return typeof grab.domain === 'string' ? `"${grab.domain.slice(0, 60)}"` : 'an unnamed target';
}

interface ServiceObservation {
  readonly port: number;
  readonly transport: 'tcp' | 'udp';
  readonly protocol?: string;
  readonly banner?: string;
  readonly http?: { status?: number; title?: string; server?: string };
  readonly certificate?: { facts: CertificateFacts };
  readonly seen: string;
  readonly firstSeen?: string;
  readonly evidence: readonly FingerprintEvidence[];
}

/** One scan of a line: what it observed, or why it cannot be imported. */
function readScan(scanName: string, scan: unknown, context: CollectorContext): ServiceObservation | string {
  if (!isObject(scan)) return 'not an object';
  const status = String(scan.status);
  const protocol = (stringAt(scan, 'protocol') ?? scanName).toLowerCase();
  const result = objectAt(scan, 'result');
  const defaults = ZGRAB2_MODULES[protocol];
  const http = protocol === 'http' ? readHttp(result) : undefined;
  const module = http ? { banner: http.banner, evidence: http.evidence } : readModule(protocol, result);
  const handshakeLog = http ? (http.handshakeLog ?? findHandshakeLog(result)) : findHandshakeLog(result);
  const certificate = leafCertificate(handshakeLog);

  const usable = module.banner !== undefined || http?.status !== undefined || certificate !== undefined;
  if (!ANSWERED.has(status) && !usable) {
    const error = stringAt(scan, 'error');
    return `status ${status}${error ? ` (${error.slice(0, 200)})` : ''}: nothing was collected from the service`;
  }
  const port = portNumber(scan.port) ?? http?.port ?? defaults?.port;
  if (port === undefined) {
    return `no port: the output of module "${protocol}" does not carry one and it has no default port known here`;
  }
  // protocol-error: the reply was not the scanned protocol, so the module's name would be a wrong claim.
  const claimed =
    status === 'protocol-error'
      ? undefined
      : http?.scheme === 'https' || (http && certificate)
        ? 'https'
        : protocol;
  const seen = collectedTime(scan.timestamp) ?? context.seenAt;
  return {
    port,
    transport: defaults?.transport ?? 'tcp',
    protocol: claimed && /^[a-z0-9][a-z0-9+._-]{0,31}$/.test(claimed) ? claimed : undefined,
    banner: module.banner,
    http: http ? { status: http.status, title: http.title, server: http.server } : undefined,
    certificate: certificate ? { facts: certificate } : undefined,
    seen,
    evidence: [...module.evidence, ...(certificate ? certificateEvidence(certificate) : [])],
  };
}

/**
 * Certificates already described, by their base64 DER: scans meet the same certificate on many addresses (CDNs,
 * appliance defaults), and parsing and verifying it again costs far more than reading the line. Bounded: the
 * oldest entry leaves first.
 */
const describedCertificates = new Map<string, CertificateFacts | undefined>();
const DESCRIBED_CERTIFICATES_KEPT = 1024;

/** The certificate the service presented (the chain's CA certificates describe the issuers, not the service). */
function leafCertificate(handshakeLog: JsonObject | undefined): CertificateFacts | undefined {
  const raw = stringAt(handshakeLog, 'server_certificates', 'certificate', 'raw');
  if (!raw) return undefined;
  if (describedCertificates.has(raw)) return describedCertificates.get(raw);
  let facts: CertificateFacts | undefined;
  try {
    facts = describeCertificate(Buffer.from(raw, 'base64'));
  } catch {
    facts = undefined; // zgrab2 also keeps certificates Node cannot parse; the service is still observed
  }
  if (describedCertificates.size >= DESCRIBED_CERTIFICATES_KEPT) {
    describedCertificates.delete(describedCertificates.keys().next().value!);
  }
  describedCertificates.set(raw, facts);
  return facts;
}

/** Two scans of one service on one line (http and tls on 443): fields from both, the earliest and latest time. */
function merge(existing: ServiceObservation | undefined, next: ServiceObservation): ServiceObservation {
  if (!existing) return { ...next, firstSeen: next.seen };
  const firstSeen = [existing.firstSeen ?? existing.seen, next.seen].sort()[0]!;
  return {
    port: next.port,
    transport: next.transport,
    protocol: existing.protocol ?? next.protocol,
    banner: existing.banner ?? next.banner,
    http: existing.http ?? next.http,
    certificate: existing.certificate ?? next.certificate,
    seen: [existing.seen, next.seen].sort()[1]!,
    firstSeen,
    evidence: [...existing.evidence, ...next.evidence],
  };
}

function hostRecord(
  id: string,
  ip: string,
  hostname: string | undefined,
  service: ServiceObservation,
): CollectedRecord {
  const record = compact({
    id,
    first_seen: service.firstSeen ?? service.seen,
    last_seen: service.seen,
    ip,
    port: service.port,
    transport: service.transport,
    protocol: service.protocol,
    banner: service.banner,
    http: service.http ? { ...service.http, server: keyword(service.http.server) } : undefined,
    tls: service.certificate ? hostTlsFields(service.certificate.facts) : undefined,
    hostnames: hostname ? [hostname] : undefined,
  });
  return { dataset: 'hosts', record, evidence: service.evidence };
}
