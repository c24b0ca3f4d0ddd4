import { type Weighted, weighted } from './random.js';
import { cpe, v, type Variant } from './variants.js';

/** Data table: non-web services (SSH, FTP, mail, DNS, databases, single-port services, CPE devices). */

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
export const SSH_SERVERS = weighted<Variant>([
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

export const FTP_SERVERS = variants([
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

export const SMTP_SERVERS = variants([
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

export const IMAP_SERVERS = variants([
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

export const POP3_SERVERS = variants([
  [
    v('dovecot', 'dovecot', undefined, [cpe('a', 'dovecot', 'dovecot')], {
      banner: '+OK Dovecot (Ubuntu) ready.',
    }),
    8,
  ],
  [v('courier pop3', 'courier-mta', undefined, [], { banner: '+OK Hello there.' }), 2],
]);

export const DNS_SERVERS = variants([
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

export const MYSQL_SERVERS = variants([
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

export const REDIS_SERVERS = variants(
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

export const MONGODB_SERVERS = variants(
  ['3.6.8', '4.4.6', '5.0.24', '6.0.13', '7.0.5'].map((version, index) => [
    v('mongodb', 'mongodb', version, [cpe('a', 'mongodb', 'mongodb', version)], {
      banner: `MongoDB Server Information\nversion: ${version}\nok: 1.0`,
    }),
    [3, 2, 2, 2, 1][index]!,
  ]),
);

/** Fixed services: one variant each, or a short table. */
export const SINGLE = {
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
export const PROTOCOLS: Readonly<Record<string, string>> = {
  printer: 'jetdirect',
  docker: 'http',
  kubernetes: 'https',
  cwmp: 'http',
};

/** Home routers and other CPE on their management pages and TR-069. */
export const CPE_WEB = variants([
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

export const CPE_TITLES = [
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

export const CWMP_SERVERS = variants([
  [
    v('rompager', 'allegrosoft', '4.07', [cpe('a', 'allegrosoft', 'rompager', '4.07')], {
      server: 'RomPager/4.07 UPnP/1.0',
    }),
    3,
  ],
  [v('gsoap', 'genivia', '2.8', [cpe('a', 'genivia', 'gsoap', '2.8')], { server: 'gSOAP/2.8' }), 2],
  [v('tr-069 client', 'broadcom', undefined, [], { server: 'TR069' }), 1],
]);
