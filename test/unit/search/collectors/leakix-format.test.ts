import { describe, expect, it } from '@jest/globals';
import { leakixFormat } from '../../../../src/search/data/collectors/leakix.js';
import { x509Format } from '../../../../src/search/data/collectors/x509.js';
import { zgrab2Format } from '../../../../src/search/data/collectors/zgrab2.js';
import { CONTEXT, refusalOf, sharedFile, stored } from './collected-support.js';

/** The sample is pretty-printed; in the wild LeakIX writes one event per line. */
const PRETTY = sharedFile('leakix/l9event.json');
const EVENT = JSON.parse(PRETTY.toString('utf8')) as Record<string, unknown>;
const LINE = JSON.stringify(EVENT);
const FINGERPRINT = 'e998e371dd4678c9113e196bc5e4a5e901455750c6dbc9985c84403b91055260';

describe('LeakIX l9 events → hosts and vhosts records', () => {
  it('the sample event: the service, its HTTP reading, the certificate and LeakIX software as evidence', () => {
    expect(stored(leakixFormat.records(LINE, CONTEXT))).toEqual([
      {
        dataset: 'hosts',
        record: {
          id: '127.0.0.1:8080/tcp',
          ip: '127.0.0.1',
          port: 8080,
          transport: 'tcp',
          protocol: 'https',
          http: { status: 200, title: 'Apache welcome page', server: 'apache' },
          tls: {
            subject: { cn: 'example.com' },
            san: ['site.example.com', 'admin.example.com'],
            fingerprint: FINGERPRINT,
          },
          hostnames: ['site1.example.com', 'ptr1.example.com'],
          // "time" is Go's zero time (0001-01-01T00:00:00Z): the event carries no time, the import's is used.
          first_seen: CONTEXT.seenAt,
          last_seen: CONTEXT.seenAt,
        },
        evidence: [
          { matches: 'http_header.server', text: 'Apache/2.2.4' },
          { matches: 'http_header.x-powered-by', text: 'PHP/4.4.2' },
          { matches: 'http_header.server', text: 'Apache' },
          { matches: 'html_title', text: 'Apache welcome page' },
        ],
      },
      {
        dataset: 'vhosts',
        record: {
          id: `${FINGERPRINT}@127.0.0.1:8080`,
          fingerprint: FINGERPRINT,
          subject: { cn: 'example.com' },
          names: ['site.example.com', 'admin.example.com'],
          issuer: { cn: 'rapid ssl' },
          // not_before/not_after are Go zero times in the sample: left out.
          key: { type: 'rsa', bits: 2048 },
          ip: '127.0.0.1',
          port: 8080,
          first_seen: CONTEXT.seenAt,
          last_seen: CONTEXT.seenAt,
        },
        evidence: [],
      },
    ]);
  });

  it('an event time, geo and network fields when LeakIX has them; no certificate, no vhosts record', () => {
    const event = {
      ...EVENT,
      time: '2024-05-01T08:30:00.123456Z',
      ssl: { detected: false, enabled: false, certificate: { fingerprint: '' } },
      geoip: { country_iso_code: 'FR', city_name: 'Paris' },
      network: { organization_name: 'Example Hosting', asn: 64_500, network: '192.0.2.0/24' },
    };
    const [host, ...rest] = stored(leakixFormat.records(JSON.stringify(event), CONTEXT));
    expect(rest).toEqual([]);
    expect(host).toMatchObject({
      record: {
        first_seen: '2024-05-01T08:30:00.123Z',
        last_seen: '2024-05-01T08:30:00.123Z',
        country: 'fr',
        city: 'paris',
        asn: 64_500,
        organization: 'example hosting',
      },
    });
    expect((host as { record: Record<string, unknown> }).record.tls).toBeUndefined();
  });

  it('an SSH event: the identification line as banner and ssh.banner evidence without the prefix', () => {
    const event = {
      ...EVENT,
      port: 22,
      protocol: 'ssh',
      http: undefined,
      ssl: undefined,
      service: { software: { name: 'OpenSSH', version: '8.9p1' } },
      ssh: { fingerprint: 'x', version: 2, banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1' },
    };
    const [host] = stored(leakixFormat.records(JSON.stringify(event), CONTEXT));
    expect(host).toMatchObject({
      record: { id: '127.0.0.1:22/tcp', protocol: 'ssh', banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.1' },
      evidence: [{ matches: 'ssh.banner', text: 'OpenSSH_8.9p1 Ubuntu-3ubuntu0.1' }],
    });
  });

  it('bad input is refused with a reason, a pretty-printed fragment with how to fix the file', () => {
    expect(refusalOf(() => leakixFormat.records('{', CONTEXT))).toBe(
      'a fragment of a pretty-printed event: LeakIX events are one JSON object per line (compact the file with `jq -c .`)',
    );
    expect(refusalOf(() => leakixFormat.records('{"ip":"1.2.3.4"}', CONTEXT))).toBe(
      'not a LeakIX l9 event: expected "event_type", "ip" and "port"',
    );
    expect(refusalOf(() => leakixFormat.records(JSON.stringify({ ...EVENT, port: '0' }), CONTEXT))).toBe(
      '"port" is not a port from 1 to 65535: "0"',
    );
    expect(
      refusalOf(() => leakixFormat.records(JSON.stringify({ ...EVENT, ip: 'localhost' }), CONTEXT)),
    ).toBe('"ip" is not an IPv4 or IPv6 address: "localhost"');
    expect(refusalOf(() => leakixFormat.records('not json', CONTEXT))).toMatch(/^not JSON \(/);
  });
});

describe('LeakIX sniffing', () => {
  it('recognizes the sample, one event per line and pretty-printed; zgrab2 and x509 do not claim it', () => {
    expect(leakixFormat.sniff(Buffer.from(`${LINE}\n${LINE}\n`))).toBe(true);
    expect(leakixFormat.sniff(PRETTY)).toBe(true);
    expect(zgrab2Format.sniff(PRETTY)).toBe(false);
    expect(x509Format.sniff(PRETTY)).toBe(false);
  });

  it('does not claim zgrab2 output, certificates or the service NDJSON', () => {
    expect(leakixFormat.sniff(sharedFile('zgrab2/http-https.json'))).toBe(false);
    expect(leakixFormat.sniff(sharedFile('certs/facebookOnionV3Address.pem'))).toBe(false);
    const ndjson =
      '{"id":"203.0.113.7:443/tcp","ip":"203.0.113.7","port":443,"transport":"tcp","first_seen":"2025-01-01"}\n';
    expect(leakixFormat.sniff(Buffer.from(ndjson))).toBe(false);
  });
});
