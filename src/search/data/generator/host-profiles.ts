import type { AppId } from './apps.js';
import type { NetworkKind } from './networks.js';
import { Rng, type Weighted, weighted } from './random.js';
import { SINGLE } from './service-software.js';

/** What an address is (web server, mail host, IoT device…) and the ports it therefore exposes. */

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

export interface Planned {
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
export function planServices(rng: Rng, kind: NetworkKind): Planned[] {
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
