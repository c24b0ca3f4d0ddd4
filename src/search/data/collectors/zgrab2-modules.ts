import type { FingerprintEvidence } from './collected.js';
import {
  isObject,
  keyword,
  objectAt,
  sshSoftwareVersion,
  stringAt,
  text,
  type JsonObject,
} from './collected-values.js';

/**
 * What zgrab2's modules put in `data.<name>.result` that the hosts dataset keeps: the port a module scans when
 * none is given (zgrab2 only prints the port in recent versions), the transport, the banner (the first text
 * the service sent) and the evidence fingerprinting may read. Modules not listed import with the port from the
 * output only.
 */

export interface ModuleDefaults {
  readonly port: number;
  readonly transport: 'tcp' | 'udp';
}

const tcp = (port: number): ModuleDefaults => ({ port, transport: 'tcp' });
const udp = (port: number): ModuleDefaults => ({ port, transport: 'udp' });

/** Default ports as each zgrab2 module registers them (`zgrab2.AddCommand(name, …, port, …)`). */
export const ZGRAB2_MODULES: Readonly<Record<string, ModuleDefaults>> = {
  amqp091: tcp(5672),
  bacnet: udp(47808),
  banner: tcp(80),
  dnp3: tcp(20000),
  fox: tcp(1911),
  ftp: tcp(21),
  http: tcp(80),
  imap: tcp(143),
  ipp: tcp(631),
  jarm: tcp(443),
  ldap: tcp(389),
  managesieve: tcp(4190),
  memcached: tcp(11211),
  modbus: tcp(502),
  mongodb: tcp(27017),
  mqtt: tcp(1883),
  mssql: tcp(1433),
  mysql: tcp(3306),
  ntp: udp(123),
  oracle: tcp(1521),
  pop3: tcp(110),
  postgres: tcp(5432),
  pptp: tcp(1723),
  rdp: tcp(3389),
  redis: tcp(6379),
  siemens: tcp(102),
  smb: tcp(445),
  smtp: tcp(25),
  snmp: udp(161),
  socks5: tcp(1080),
  ssh: tcp(22),
  telnet: tcp(23),
  tls: tcp(443),
};

/** The greeting after a reply code, line by line: `220 (vsFTPd 3.0.3)` → `(vsFTPd 3.0.3)` (Recog's form). */
function greetingLines(banner: string, code: RegExp): string[] {
  const lines: string[] = [];
  for (const line of banner.split(/\r?\n/)) {
    const greeting = keyword(line.replace(code, ''));
    if (greeting && !lines.includes(greeting)) lines.push(greeting);
    if (lines.length === 5) break;
  }
  return lines;
}

export interface ModuleReading {
  /** The first text the service sent, as the hosts `banner`. */
  readonly banner?: string;
  readonly evidence: readonly FingerprintEvidence[];
}

/** Banner and evidence of the modules that are not HTTP (http.ts reads those). */
export function readModule(protocol: string, result: JsonObject | undefined): ModuleReading {
  if (!result) return { evidence: [] };
  const banner = stringAt(result, 'banner');
  const evidence: FingerprintEvidence[] = [];
  const add = (matches: string, lines: readonly string[]) => {
    for (const line of lines) evidence.push({ matches, text: line });
  };
  switch (protocol) {
    case 'ssh': {
      // server_id.raw is the identification line every SSH server sends first; result.banner is the optional
      // pre-authentication message, not what identifies the software.
      const identification = stringAt(result, 'server_id', 'raw');
      const software = identification ? sshSoftwareVersion(identification) : undefined;
      if (software) evidence.push({ matches: 'ssh.banner', text: software });
      return { banner: text(identification ?? banner), evidence };
    }
    case 'ftp':
      if (banner) add('ftp.banner', greetingLines(banner, /^\d{3}[ -]?/));
      break;
    case 'smtp':
      if (banner) add('smtp.banner', greetingLines(banner, /^\d{3}[ -]?/));
      break;
    case 'pop3':
      if (banner) add('pop3.banner', greetingLines(banner, /^\+OK ?/i));
      break;
    case 'imap':
      if (banner) add('imap4.banner', greetingLines(banner, /^\* OK ?/i));
      break;
    case 'telnet': {
      // Recog's telnet patterns read the whole greeting (often several lines: a system name, then login:).
      const greeting = banner?.trim();
      if (greeting) evidence.push({ matches: 'telnet.banner', text: greeting });
      break;
    }
    case 'mysql': {
      // Recog's mysql_banners.xml reads the version field of the server greeting.
      const version = keyword(stringAt(result, 'server_version'));
      if (version) evidence.push({ matches: 'mysql.banners', text: version });
      break;
    }
  }
  return { banner: text(banner), evidence };
}

/**
 * The TLS handshake log of a module result, wherever the module keeps it (`tls` for mysql/postgres/imap/…,
 * `handshake_log` at the top for the tls module, `tls_log` inside HTTP requests), searched a few levels deep.
 */
export function findHandshakeLog(result: unknown, depth = 4): JsonObject | undefined {
  if (!isObject(result) || depth < 0) return undefined;
  const direct = objectAt(result, 'handshake_log');
  if (direct) return direct;
  for (const value of Object.values(result)) {
    const found = isObject(value) ? findHandshakeLog(value, depth - 1) : undefined;
    if (found) return found;
  }
  return undefined;
}
