import { describe, expect, it } from '@jest/globals';
import { leakixFormat } from '../../../../src/search/data/collectors/leakix.js';
import { x509Format } from '../../../../src/search/data/collectors/x509.js';
import { zgrab2Format } from '../../../../src/search/data/collectors/zgrab2.js';
import { CONTEXT, refusalOf, sharedFile, stored } from './collected-support.js';

/** One zgrab2 sample (a file holding one output line), as the line it was. */
function sample(name: string): string {
  return sharedFile(`zgrab2/${name}.json`).toString('utf8').trim();
}

function importLine(line: string) {
  return stored(zgrab2Format.records(line, CONTEXT));
}

const HTTPS_FINGERPRINT = 'fe01d8aaa47e75e281f404ab5e60c3e73da4747b02e558c238cc77cf023586fd';
const MYSQL_FINGERPRINT = '1956f3e8a68bfdda8ec648e7c6ed14063d6b7ad1cd4afe9f3251b8c98150a066';
const POSTGRES_FINGERPRINT = 'c9edabed51588ccb7c9482dfee7db4533a4dea515420a0bf7e8ddaaeb06a62be';

describe('zgrab2 output → hosts and vhosts records (every sample in shared/data/zgrab2)', () => {
  it('ftp: the banner as sent, the greeting after the reply code as ftp.banner evidence', () => {
    expect(importLine(sample('ftp-default'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.3:21/tcp',
          ip: '172.17.0.3',
          port: 21,
          transport: 'tcp',
          protocol: 'ftp',
          banner: '220 (vsFTPd 3.0.3)\r\n',
          first_seen: '2018-04-06T19:37:52.000Z',
          last_seen: '2018-04-06T19:37:52.000Z',
        },
        evidence: [{ matches: 'ftp.banner', text: '(vsFTPd 3.0.3)' }],
      },
    ]);
  });

  it('http: status, Server header (also as the banner line), no title when the body has none', () => {
    expect(importLine(sample('http-http'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.3:80/tcp',
          ip: '172.17.0.3',
          port: 80,
          transport: 'tcp',
          protocol: 'http',
          banner: 'HTTP/1.1 200 OK\r\nServer: lighttpd/1.4.35',
          http: { status: 200, server: 'lighttpd/1.4.35' },
          first_seen: '2018-04-06T19:38:09.000Z',
          last_seen: '2018-04-06T19:38:09.000Z',
        },
        evidence: [{ matches: 'http_header.server', text: 'lighttpd/1.4.35' }],
      },
    ]);
  });

  it('https: port 443 from the scheme, the TLS leaf certificate on the host and as a vhosts record', () => {
    const [host, vhost, ...rest] = importLine(sample('http-https'));
    expect(rest).toEqual([]);
    const certificateEvidence = [
      { matches: 'x509.subject', text: 'CN=target' },
      { matches: 'x509.issuer', text: 'CN=target' },
    ];
    expect(host).toEqual({
      dataset: 'hosts',
      record: {
        id: '172.17.0.3:443/tcp',
        ip: '172.17.0.3',
        port: 443,
        transport: 'tcp',
        protocol: 'https',
        banner: 'HTTP/1.1 200 OK\r\nServer: lighttpd/1.4.35',
        http: { status: 200, server: 'lighttpd/1.4.35' },
        // The sample's certificate has no subjectAltName extension, so no tls.san.
        tls: { subject: { cn: 'target' }, fingerprint: HTTPS_FINGERPRINT },
        first_seen: '2018-04-06T19:38:11.000Z',
        last_seen: '2018-04-06T19:38:11.000Z',
      },
      evidence: [{ matches: 'http_header.server', text: 'lighttpd/1.4.35' }, ...certificateEvidence],
    });
    // zgrab2's own parse of the same certificate: serial 15229406698539618719 (decimal) = d359b8b41668919f,
    // validity 2018-02-09T20:31:40Z – 2018-03-11T20:31:40Z, RSA 2048, self_signed true.
    expect(vhost).toEqual({
      dataset: 'vhosts',
      record: {
        id: `${HTTPS_FINGERPRINT}@172.17.0.3:443`,
        fingerprint: HTTPS_FINGERPRINT,
        subject: { cn: 'target' },
        issuer: { cn: 'target' },
        serial: 'd359b8b41668919f',
        not_before: '2018-02-09T20:31:40.000Z',
        not_after: '2018-03-11T20:31:40.000Z',
        self_signed: true,
        key: { type: 'rsa', bits: 2048 },
        ip: '172.17.0.3',
        port: 443,
        first_seen: '2018-04-06T19:38:11.000Z',
        last_seen: '2018-04-06T19:38:11.000Z',
      },
      evidence: certificateEvidence,
    });
  });

  it('memcached: the module default port 11211, no banner (the module sends commands, not a greeting)', () => {
    expect(importLine(sample('memcached-1.6.38'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '100.65.0.30:11211/tcp',
          ip: '100.65.0.30',
          port: 11211,
          transport: 'tcp',
          protocol: 'memcached',
          first_seen: '2025-05-27T23:24:37.000Z',
          last_seen: '2025-05-27T23:24:37.000Z',
        },
        evidence: [],
      },
    ]);
  });

  it('mysql 5.6: the server version of the greeting as mysql.banners evidence', () => {
    expect(importLine(sample('mysql-5.6'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.4:3306/tcp',
          ip: '172.17.0.4',
          port: 3306,
          transport: 'tcp',
          protocol: 'mysql',
          first_seen: '2018-04-06T19:39:16.000Z',
          last_seen: '2018-04-06T19:39:16.000Z',
        },
        evidence: [{ matches: 'mysql.banners', text: '5.6.38' }],
      },
    ]);
  });

  it('mysql 8.0 with TLS: the auto-generated certificate (issued by another CN, so not self-signed)', () => {
    const subject = 'CN=MySQL_Server_8.0.3-rc_Auto_Generated_Server_Certificate';
    const issuer = 'CN=MySQL_Server_8.0.3-rc_Auto_Generated_CA_Certificate';
    const certificateEvidence = [
      { matches: 'x509.subject', text: subject },
      { matches: 'x509.issuer', text: issuer },
    ];
    expect(importLine(sample('mysql-8.0'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.6:3306/tcp',
          ip: '172.17.0.6',
          port: 3306,
          transport: 'tcp',
          protocol: 'mysql',
          tls: {
            subject: { cn: 'mysql_server_8.0.3-rc_auto_generated_server_certificate' },
            fingerprint: MYSQL_FINGERPRINT,
          },
          first_seen: '2018-04-06T19:39:21.000Z',
          last_seen: '2018-04-06T19:39:21.000Z',
        },
        evidence: [{ matches: 'mysql.banners', text: '8.0.3-rc-log' }, ...certificateEvidence],
      },
      {
        dataset: 'vhosts',
        record: {
          id: `${MYSQL_FINGERPRINT}@172.17.0.6:3306`,
          fingerprint: MYSQL_FINGERPRINT,
          subject: { cn: 'mysql_server_8.0.3-rc_auto_generated_server_certificate' },
          issuer: { cn: 'mysql_server_8.0.3-rc_auto_generated_ca_certificate' },
          serial: '02',
          not_before: '2018-04-06T19:38:58.000Z',
          not_after: '2028-04-03T19:38:58.000Z',
          self_signed: false,
          key: { type: 'rsa', bits: 2048 },
          ip: '172.17.0.6',
          port: 3306,
          first_seen: '2018-04-06T19:39:21.000Z',
          last_seen: '2018-04-06T19:39:21.000Z',
        },
        evidence: certificateEvidence,
      },
    ]);
  });

  it('pop3: a bare "+OK" greeting is the banner but gives no evidence', () => {
    expect(importLine(sample('pop3-banner'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.3:110/tcp',
          ip: '172.17.0.3',
          port: 110,
          transport: 'tcp',
          protocol: 'pop3',
          banner: '+OK\r\n',
          first_seen: '2018-04-06T19:40:08.000Z',
          last_seen: '2018-04-06T19:40:08.000Z',
        },
        evidence: [],
      },
    ]);
  });

  it('postgres with SSL: the self-signed localhost certificate from result.tls', () => {
    const records = importLine(sample('postgres-10.1-ssl'));
    expect(records.map((item) => ('record' in item ? item.record.id : item))).toEqual([
      '172.17.0.11:5432/tcp',
      `${POSTGRES_FINGERPRINT}@172.17.0.11:5432`,
    ]);
    expect(records[0]).toMatchObject({
      record: {
        protocol: 'postgres',
        tls: { subject: { cn: 'localhost' }, fingerprint: POSTGRES_FINGERPRINT },
        first_seen: '2018-04-06T19:41:25.000Z',
      },
    });
    expect(records[1]).toEqual({
      dataset: 'vhosts',
      record: {
        id: `${POSTGRES_FINGERPRINT}@172.17.0.11:5432`,
        fingerprint: POSTGRES_FINGERPRINT,
        subject: { cn: 'localhost' },
        issuer: { cn: 'localhost' },
        // zgrab2 printed serial_number 10417357638511902157 (decimal).
        serial: BigInt('10417357638511902157').toString(16),
        not_before: '2018-04-06T19:40:47.000Z',
        not_after: '2018-05-06T19:40:47.000Z',
        self_signed: true,
        key: { type: 'rsa', bits: 2048 },
        ip: '172.17.0.11',
        port: 5432,
        first_seen: '2018-04-06T19:41:25.000Z',
        last_seen: '2018-04-06T19:41:25.000Z',
      },
      evidence: [
        { matches: 'x509.subject', text: 'CN=localhost' },
        { matches: 'x509.issuer', text: 'CN=localhost' },
      ],
    });
  });

  it('redis: the sample has no "ip" (scanned by name), so it cannot be a hosts record and is refused', () => {
    expect(refusalOf(() => zgrab2Format.records(sample('redis-default-normal'), CONTEXT))).toBe(
      'no "ip": a zgrab2 record of "target" without the address it reached cannot be a hosts record',
    );
  });

  it('redis with an address: the module default port 6379', () => {
    const line = JSON.parse(sample('redis-default-normal')) as Record<string, unknown>;
    const [host] = importLine(JSON.stringify({ ip: '192.0.2.10', ...line }));
    expect(host).toEqual({
      dataset: 'hosts',
      record: {
        id: '192.0.2.10:6379/tcp',
        ip: '192.0.2.10',
        port: 6379,
        transport: 'tcp',
        protocol: 'redis',
        first_seen: '2019-06-20T21:12:36.000Z',
        last_seen: '2019-06-20T21:12:36.000Z',
      },
      evidence: [],
    });
  });

  it.each(['smtp-00', 'smtp-ehlo.03'])(
    '%s: the SMTP greeting after "220 " as smtp.banner evidence',
    (name) => {
      const [host, ...rest] = importLine(sample(name));
      expect(rest).toEqual([]);
      const time = name === 'smtp-00' ? '2018-04-06T19:42:03.000Z' : '2018-04-06T19:42:10.000Z';
      expect(host).toEqual({
        dataset: 'hosts',
        record: {
          id: '172.17.0.3:25/tcp',
          ip: '172.17.0.3',
          port: 25,
          transport: 'tcp',
          protocol: 'smtp',
          banner: '220 ba06a6536f7e ESMTP qpsmtpd 0.94 ready; send us your mail, but not your spam.\r\n',
          first_seen: time,
          last_seen: time,
        },
        evidence: [
          {
            matches: 'smtp.banner',
            text: 'ba06a6536f7e ESMTP qpsmtpd 0.94 ready; send us your mail, but not your spam.',
          },
        ],
      });
    },
  );

  it('ssh: the identification line is the banner; ssh.banner evidence without the SSH-2.0- prefix (Recog form)', () => {
    expect(importLine(sample('ssh-ssh'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.3:22/tcp',
          ip: '172.17.0.3',
          port: 22,
          transport: 'tcp',
          protocol: 'ssh',
          banner: 'SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.4',
          first_seen: '2018-04-06T19:42:32.000Z',
          last_seen: '2018-04-06T19:42:32.000Z',
        },
        evidence: [{ matches: 'ssh.banner', text: 'OpenSSH_7.2p2 Ubuntu-4ubuntu2.4' }],
      },
    ]);
  });

  it('telnet: the whole greeting (system line and login prompt) as telnet.banner evidence', () => {
    expect(importLine(sample('telnet-telnet'))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '172.17.0.2:23/tcp',
          ip: '172.17.0.2',
          port: 23,
          transport: 'tcp',
          protocol: 'telnet',
          banner: 'Ubuntu 16.04.3 LTS\r\n5a3511f30de7 login: ',
          first_seen: '2018-04-06T19:42:46.000Z',
          last_seen: '2018-04-06T19:42:46.000Z',
        },
        evidence: [{ matches: 'telnet.banner', text: 'Ubuntu 16.04.3 LTS\r\n5a3511f30de7 login:' }],
      },
    ]);
  });
});

describe('zgrab2 lines beyond the samples', () => {
  const ftp = JSON.parse(sample('ftp-default')) as { data: { ftp: Record<string, unknown> } };
  const https = JSON.parse(sample('http-https')) as { data: { http: Record<string, unknown> } };

  it('a port printed by the scan (recent zgrab2) wins over the module default; a valid domain becomes a hostname', () => {
    const line = {
      ip: '2001:DB8::7',
      domain: 'Mail.Example.com.',
      data: { ftp: { ...ftp.data.ftp, port: 2121 } },
    };
    const [host] = importLine(JSON.stringify(line));
    expect(host).toMatchObject({
      record: {
        id: '[2001:db8::7]:2121/tcp',
        ip: '2001:db8::7',
        port: 2121,
        hostnames: ['mail.example.com'],
      },
    });
  });

  it('an HTTP title is read from the body, entities decoded and white space collapsed', () => {
    const response = (https.data.http.result as { response: Record<string, unknown> }).response;
    const withTitle = {
      ...response,
      body: '<html><head><TITLE>\n  Login &amp; Status &#8211; Router\n</TITLE>',
    };
    const line = { ip: '192.0.2.1', data: { http: { ...https.data.http, result: { response: withTitle } } } };
    const [host] = importLine(JSON.stringify(line));
    expect(host).toMatchObject({ record: { http: { title: 'Login & Status – Router' } } });
    expect((host as { evidence: readonly unknown[] }).evidence).toContainEqual({
      matches: 'html_title',
      text: 'Login & Status – Router',
    });
  });

  it('the tls module: handshake_log at the top of the result, port 443, protocol tls, merged with http on 443', () => {
    const request = (https.data.http.result as { response: { request: { tls_log: object } } }).response
      .request;
    const tls = {
      status: 'success',
      protocol: 'tls',
      result: request.tls_log,
      timestamp: '2018-04-06T19:38:30Z',
    };
    const [alone, vhost] = importLine(JSON.stringify({ ip: '192.0.2.9', data: { tls } }));
    expect(alone).toMatchObject({
      record: {
        id: '192.0.2.9:443/tcp',
        protocol: 'tls',
        tls: { subject: { cn: 'target' }, fingerprint: HTTPS_FINGERPRINT },
        first_seen: '2018-04-06T19:38:30.000Z',
      },
    });
    expect(vhost).toMatchObject({ record: { id: `${HTTPS_FINGERPRINT}@192.0.2.9:443` } });
    const both = importLine(JSON.stringify({ ip: '192.0.2.9', data: { http: https.data.http, tls } }));
    expect(both.map((item) => ('record' in item ? item.record.id : item))).toEqual([
      '192.0.2.9:443/tcp',
      `${HTTPS_FINGERPRINT}@192.0.2.9:443`,
    ]);
    expect(both[0]).toMatchObject({
      record: {
        protocol: 'https',
        http: { status: 200 },
        first_seen: '2018-04-06T19:38:11.000Z',
        last_seen: '2018-04-06T19:38:30.000Z',
      },
    });
  });

  it('two scans of one service on one line merge into one record; a failed scan is refused in its place', () => {
    const line = {
      ip: '192.0.2.5',
      data: {
        ftp: ftp.data.ftp,
        'ftp-again': { ...ftp.data.ftp, timestamp: '2018-04-07T00:00:00Z', result: {} },
        ssh: {
          status: 'connection-timeout',
          protocol: 'ssh',
          timestamp: '2018-04-06T19:40:00Z',
          error: 'i/o timeout',
        },
      },
    };
    const records = importLine(JSON.stringify(line));
    expect(records).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '192.0.2.5:21/tcp',
          ip: '192.0.2.5',
          port: 21,
          transport: 'tcp',
          protocol: 'ftp',
          banner: '220 (vsFTPd 3.0.3)\r\n',
          first_seen: '2018-04-06T19:37:52.000Z',
          last_seen: '2018-04-07T00:00:00.000Z',
        },
        evidence: [{ matches: 'ftp.banner', text: '(vsFTPd 3.0.3)' }],
      },
      {
        refused:
          'scan "ssh": status connection-timeout (i/o timeout): nothing was collected from the service',
      },
    ]);
  });

  it('a line whose only scan failed is refused with the status and error', () => {
    const line = {
      ip: '192.0.2.5',
      data: { http: { status: 'connection-refused', protocol: 'http', error: 'refused' } },
    };
    expect(refusalOf(() => zgrab2Format.records(JSON.stringify(line), CONTEXT))).toBe(
      'scan "http": status connection-refused (refused): nothing was collected from the service',
    );
  });

  it('a protocol-error with a banner keeps the banner but does not claim the scanned protocol', () => {
    const line = { ip: '192.0.2.6', data: { ftp: { ...ftp.data.ftp, status: 'protocol-error' } } };
    const [host] = importLine(JSON.stringify(line));
    expect(host).toMatchObject({ record: { banner: '220 (vsFTPd 3.0.3)\r\n' } });
    expect((host as { record: Record<string, unknown> }).record.protocol).toBeUndefined();
  });

  it('a module without a port in the output or a known default is refused with the reason', () => {
    const line = { ip: '192.0.2.7', data: { custom: { status: 'success', protocol: 'custom', result: {} } } };
    expect(refusalOf(() => zgrab2Format.records(JSON.stringify(line), CONTEXT))).toBe(
      'scan "custom": no port: the output of module "custom" does not carry one and it has no default port known here',
    );
  });

  it('bad input is refused with a reason', () => {
    expect(refusalOf(() => zgrab2Format.records('{"ip":', CONTEXT))).toMatch(/^not JSON \(/);
    expect(refusalOf(() => zgrab2Format.records('{"ip":"192.0.2.1","port":80}', CONTEXT))).toBe(
      'not a zgrab2 record: expected {"ip", "domain", "data": {<scan>: {"status", …}}}',
    );
    const badIp = { ip: '999.1.1.1', data: { ftp: ftp.data.ftp } };
    expect(refusalOf(() => zgrab2Format.records(JSON.stringify(badIp), CONTEXT))).toBe(
      '"ip" is not an IPv4 or IPv6 address: "999.1.1.1"',
    );
  });
});

describe('zgrab2 sniffing', () => {
  const names = [
    'ftp-default',
    'http-http',
    'http-https',
    'memcached-1.6.38',
    'mysql-5.6',
    'mysql-8.0',
    'pop3-banner',
    'postgres-10.1-ssl',
    'redis-default-normal',
    'smtp-00',
    'smtp-ehlo.03',
    'ssh-ssh',
    'telnet-telnet',
  ];

  it.each(names)('recognizes %s, which the LeakIX and x509 formats do not claim', (name) => {
    const head = sharedFile(`zgrab2/${name}.json`);
    expect(zgrab2Format.sniff(head)).toBe(true);
    expect(leakixFormat.sniff(head)).toBe(false);
    expect(x509Format.sniff(head)).toBe(false);
  });

  it('recognizes a line longer than the 64 KiB head by how zgrab2 starts it', () => {
    const https = JSON.parse(sample('http-https')) as { data: { http: { result: { response: object } } } };
    const long = {
      ...https,
      data: { http: { ...https.data.http, result: { response: { body: 'x'.repeat(70_000) } } } },
    };
    const head = Buffer.from(`${JSON.stringify(long)}\n`).subarray(0, 65_536);
    expect(zgrab2Format.sniff(head)).toBe(true);
  });

  it('does not claim LeakIX events, certificates or the service NDJSON', () => {
    const event = sharedFile('leakix/l9event.json');
    expect(zgrab2Format.sniff(event)).toBe(false);
    expect(zgrab2Format.sniff(Buffer.from(JSON.stringify(JSON.parse(event.toString('utf8')))))).toBe(false);
    expect(zgrab2Format.sniff(sharedFile('certs/facebookOnionV3Address.pem'))).toBe(false);
    const ndjson =
      '{"id":"203.0.113.7:443/tcp","ip":"203.0.113.7","port":443,"transport":"tcp","first_seen":"2025-01-01"}\n';
    expect(zgrab2Format.sniff(Buffer.from(ndjson))).toBe(false);
  });
});
