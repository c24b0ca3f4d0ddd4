import { formatIp, parseIp } from '../../query-language/validation.js';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type CollectorFormat,
  type FingerprintEvidence,
} from './collected.js';

/**
 * masscan's `-oJ` and `-oL` output → hosts records (ADR 97). masscan writes one line per fact:
 * - `-oJ`: a JSON array, one object per line between `[` and `]` lines, a comma before (1.3) or after (older
 *   versions) each object; `{"ip","timestamp","ports":[{"port","proto","status","reason","ttl"}]}` for a port
 *   state, `{"ip","timestamp","ports":[{"port","proto","service":{"name","banner"}}]}` for a banner, whose
 *   non-printable characters (and `"'<>&\`) are escaped as \u00XX;
 * - `-oL`: `#masscan`, `open tcp 80 192.0.2.1 1390003200`, `banner tcp 80 192.0.2.1 1390003200 http <banner>`
 *   (the banner's non-printable characters escaped as \xXX), `# end`.
 * A port and its banners share the timestamp of the scan, so their records merge into one (equal last_seen:
 * the fields add up, see ObservationWriteOptions). Closed ports are no service: they yield nothing.
 */
export const MASSCAN_FORMAT: CollectorFormat = {
  name: 'masscan',
  unit: 'lines',
  sniff(head: Buffer): boolean {
    const lines = head
      .toString('utf8')
      .replace(/^\ufeff/, '')
      .split('\n', 4);
    const first = lines[0]?.trim() ?? '';
    if (first.startsWith('#masscan')) return true;
    // -oJ: `[` then an object of masscan's shape (its fixed spacing: `{   "ip": `).
    if (first === '[')
      return /^,?\s*\{\s*"ip":\s*"[^"]*",\s*"timestamp":\s*"\d+",\s*"ports":/.test(lines[1] ?? '');
    return false;
  },
  records(item: string | Buffer, context: CollectorContext) {
    const text = (typeof item === 'string' ? item : item.toString('utf8')).trim();
    if (text === '' || text === '[' || text === ']' || text === ',' || text.startsWith('#')) return [];
    if (text.startsWith('{') || text.startsWith(',')) return jsonLine(text, context);
    return listLine(text, context);
  },
};

interface MasscanFact {
  readonly ip: string;
  readonly port: number;
  readonly proto: string;
  readonly timestamp: number;
  readonly status?: string;
  readonly service?: { readonly name: string; readonly banner: string };
}

function jsonLine(text: string, context: CollectorContext): Array<CollectedRecord | CollectedRecordRefused> {
  // Older masscan ended the array with `{finish: 1}`, which is no JSON: nothing to import.
  if (/^\{\s*finish(ed)?\s*:/.test(text)) return [];
  const body = text.replace(/^,\s*/, '').replace(/,\s*$/, '');
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new CollectedRecordRefused(
      `invalid masscan JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new CollectedRecordRefused('a masscan -oJ line must hold an object');
  const object = value as Record<string, unknown>;
  if (typeof object.ip !== 'string') throw new CollectedRecordRefused('ip: missing');
  const timestamp = Number(object.timestamp);
  if (!Array.isArray(object.ports) || object.ports.length === 0)
    throw new CollectedRecordRefused('ports: missing');
  return object.ports
    .map((entry: unknown) => {
      if (entry === null || typeof entry !== 'object')
        return new CollectedRecordRefused('ports: each port must be an object');
      const port = entry as Record<string, unknown>;
      const service = port.service as Record<string, unknown> | undefined;
      return factRecord(
        {
          ip: object.ip as string,
          port: Number(port.port),
          proto: String(port.proto),
          timestamp,
          ...(typeof port.status === 'string' ? { status: port.status } : {}),
          ...(service && typeof service === 'object'
            ? { service: { name: String(service.name ?? 'unknown'), banner: String(service.banner ?? '') } }
            : {}),
        },
        context,
      );
    })
    .filter((record): record is CollectedRecord | CollectedRecordRefused => record !== undefined);
}

const LIST_LINE = /^(open|closed|banner)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\d+)(?:\s+(\S+)(?:\s(.*))?)?$/;

function listLine(text: string, context: CollectorContext): Array<CollectedRecord | CollectedRecordRefused> {
  const match = LIST_LINE.exec(text);
  if (!match)
    throw new CollectedRecordRefused(`not a masscan -oL line: ${JSON.stringify(text.slice(0, 80))}`);
  const [, kind, proto, port, ip, timestamp, name, banner] = match;
  if (kind === 'banner' && name === undefined)
    throw new CollectedRecordRefused('a banner line names its service after the timestamp');
  const record = factRecord(
    {
      ip: ip!,
      port: Number(port),
      proto: proto!,
      timestamp: Number(timestamp),
      ...(kind === 'banner'
        ? { service: { name: name!, banner: unescapeListBanner(unquoted(banner ?? '')) } }
        : { status: kind! }),
    },
    context,
  );
  return record ? [record] : [];
}

/** masscan escapes bytes outside printable ASCII (and `\"'<>&`) as \xXX in -oL output. */
export function unescapeListBanner(text: string): string {
  return text.replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function unquoted(text: string): string {
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** masscan's service names (masscan_app_to_string) → the protocol of the hosts record. */
const PROTOCOLS: Readonly<Record<string, string>> = {
  http: 'http',
  'http.server': 'http',
  title: 'http',
  html: 'http',
  ssh: 'ssh',
  ftp: 'ftp',
  smtp: 'smtp',
  pop: 'pop3',
  imap: 'imap',
  ssl: 'tls',
  x509: 'tls',
  x509ca: 'tls',
  'dns-ver': 'dns',
  snmp: 'snmp',
  smb: 'smb',
  ntp: 'ntp',
  telnet: 'telnet',
  rdp: 'rdp',
  vnc: 'vnc',
  'vnc-info': 'vnc',
  memcached: 'memcached',
  minecraft: 'minecraft',
  coap: 'coap',
  isakmp: 'isakmp',
  nbtstat: 'netbios',
};

/** Banners of these services are certificates (base64) or scanner findings, not what the service said. */
const NOT_A_BANNER = new Set(['x509', 'x509ca', 'vuln', 'heartbleed', 'ticketbleed', 'error']);

function factRecord(
  fact: MasscanFact,
  context: CollectorContext,
): CollectedRecord | CollectedRecordRefused | undefined {
  const address = parseIp(fact.ip);
  if (!address) return new CollectedRecordRefused(`ip: not an address: ${JSON.stringify(fact.ip)}`);
  if (fact.proto !== 'tcp' && fact.proto !== 'udp') {
    // ICMP echo, ARP and SCTP results are no TCP or UDP service.
    return undefined;
  }
  if (fact.status !== undefined && fact.status !== 'open') return undefined;
  if (!Number.isSafeInteger(fact.port) || fact.port < 1 || fact.port > 65_535)
    return new CollectedRecordRefused(`port: must be from 1 to 65535, got ${fact.port}`);
  const seen =
    Number.isSafeInteger(fact.timestamp) && fact.timestamp > 0
      ? new Date(fact.timestamp * 1000).toISOString()
      : context.seenAt;
  const record: Record<string, unknown> = {
    ip: formatIp(address),
    port: fact.port,
    transport: fact.proto,
    first_seen: seen,
    last_seen: seen,
  };
  const evidence: FingerprintEvidence[] = [];
  if (fact.service) {
    const name = fact.service.name.toLowerCase();
    const banner = fact.service.banner;
    const protocol = PROTOCOLS[name];
    if (protocol) record.protocol = protocol;
    if (name === 'title') {
      if (banner.trim()) {
        record.http = { title: banner.trim() };
        evidence.push({ matches: 'html_title', text: banner.trim() });
      }
    } else if (name === 'http.server') {
      if (banner.trim()) {
        record.http = { server: banner.trim() };
        evidence.push({ matches: 'http_header.server', text: banner.trim() });
      }
    } else if (!NOT_A_BANNER.has(name) && banner !== '') {
      record.banner = banner;
      evidence.push(...bannerEvidence(name, banner, record));
    }
  }
  return { dataset: 'hosts', record, evidence };
}

/**
 * What fingerprinting may identify from a banner, by Recog's `matches` names: the SSH banner without its
 * `SSH-2.0-` prefix (Recog's ssh.banner examples have none), the HTTP Server, X-Powered-By and WWW-Authenticate
 * headers (the status and Server also fill http.status and http.server), and FTP, SMTP, POP3 and IMAP greetings.
 */
export function bannerEvidence(
  service: string,
  banner: string,
  record: Record<string, unknown>,
): FingerprintEvidence[] {
  const firstLine = banner.split(/\r?\n/, 1)[0]!.trim();
  switch (service) {
    case 'ssh': {
      const ssh = /^SSH-\d+(?:\.\d+)?-(.+)$/.exec(firstLine);
      return ssh ? [{ matches: 'ssh.banner', text: ssh[1]!.trim() }] : [];
    }
    case 'http': {
      const evidence: FingerprintEvidence[] = [];
      const lines = banner.split(/\r?\n/);
      const status = /^HTTP\/\d(?:\.\d)?\s+(\d{3})\b/.exec(lines[0] ?? '');
      const http: Record<string, unknown> = {};
      if (status) http.status = Number(status[1]);
      for (const line of lines.slice(1)) {
        if (line.trim() === '') break;
        const header = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
        if (!header) continue;
        const name = header[1]!.toLowerCase();
        const value = header[2]!.trim();
        if (value === '') continue;
        if (name === 'server') {
          http.server ??= value;
          evidence.push({ matches: 'http_header.server', text: value });
        } else if (name === 'x-powered-by')
          evidence.push({ matches: 'http_header.x-powered-by', text: value });
        else if (name === 'www-authenticate') evidence.push({ matches: 'http_header.wwwauth', text: value });
      }
      if (Object.keys(http).length > 0) record.http = http;
      return evidence;
    }
    case 'ftp':
      return greeting('ftp.banner', firstLine, /^\d{3}[ -]?/);
    case 'smtp':
      return greeting('smtp.banner', firstLine, /^\d{3}[ -]?/);
    case 'pop':
      return greeting('pop.banner', firstLine, /^\+OK\s*/);
    case 'imap':
      return greeting('imap4.banner', firstLine, /^\*\s+OK\s*/);
    case 'dns-ver':
      return firstLine ? [{ matches: 'dns.versionbind', text: firstLine }] : [];
    default:
      return [];
  }
}

/** A greeting without its status code (Recog's ftp/smtp/pop/imap banner examples start after it). */
function greeting(matches: string, line: string, status: RegExp): FingerprintEvidence[] {
  const text = line.replace(status, '').trim();
  return text ? [{ matches, text }] : [];
}
