import { describe, expect, it } from '@jest/globals';
import type { Dataset } from '../../../src/search/domain/datasets.js';
import {
  dnsRecordId,
  hostRecordId,
  recordIdOf,
  validateRecord,
  vhostRecordId,
} from '../../../src/search/domain/records.js';

const SEEN = { first_seen: '2025-03-01T10:00:00Z', last_seen: '2025-06-01T10:00:00Z' };
const FP = 'e998e371dd4678c9113e196bc5e4a5e901455750c6dbc9985c84403b91055260';

/** A complete, valid record of each dataset, as an importer would send it. */
function good(dataset: Dataset): Record<string, unknown> {
  switch (dataset) {
    case 'hosts':
      return {
        id: '203.0.113.7:443/tcp',
        ip: '203.0.113.7',
        port: 443,
        transport: 'tcp',
        protocol: 'https',
        product: 'nginx',
        vendor: 'F5',
        version: '1.18.0',
        cpe: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
        banner: 'HTTP/1.1 200 OK\r\nServer: nginx/1.18.0 (Ubuntu)',
        http: { status: 200, title: 'Welcome to nginx!', server: 'nginx/1.18.0 (Ubuntu)' },
        favicon: { hash: -305179312 },
        tls: {
          subject: { cn: 'www.Example.com' },
          san: ['www.example.com', 'example.com.'],
          fingerprint: FP,
        },
        country: 'FR',
        city: 'Paris',
        asn: 16276,
        organization: 'OVH SAS',
        hostnames: ['www.example.com'],
        shared_edge: false,
        ...SEEN,
      };
    case 'dns':
      return {
        id: dnsRecordId('www.example.com', 'a', '203.0.113.7'),
        name: 'WWW.example.com.',
        type: 'A',
        value: '203.0.113.7',
        ttl: 300,
        ...SEEN,
      };
    case 'vhosts':
      return {
        id: `${FP}@203.0.113.7:443`,
        fingerprint: FP.toUpperCase().match(/../g)!.join(':'),
        subject: { cn: 'example.com' },
        names: ['example.com', '*.example.com'],
        issuer: { cn: 'R11', organization: "Let's Encrypt" },
        serial: '04A1B2',
        not_before: '2025-01-01',
        not_after: '2025-04-01T00:00:00+02:00',
        self_signed: false,
        key: { type: 'RSA', bits: 2048 },
        ip: '203.0.113.7',
        port: 443,
        ...SEEN,
      };
    case 'whois':
      return {
        id: 'Example.com',
        domain: 'example.com',
        registrar: 'MarkMonitor Inc.',
        status: [
          'clientTransferProhibited https://icann.org/epp#clientTransferProhibited',
          'clientUpdateProhibited',
        ],
        name_servers: ['NS1.GOOGLE.COM', 'ns2.google.com.'],
        created: '1997-09-15T04:00:00Z',
        updated: '2019-09-09T15:39:04Z',
        expires: '2028-09-14T04:00:00Z',
        registrant: {
          organization: 'Example Inc.',
          country: 'US',
          name: 'Jane Doe',
          email: 'Jane.Doe@example.com',
        },
        admin: { name: 'Jane Doe', email: 'jane.doe@example.com' },
        tech: { name: 'John Roe', email: 'john@example.net' },
        ...SEEN,
      };
  }
}

function problemsOf(dataset: Dataset, value: unknown): string[] {
  const result = validateRecord(dataset, value);
  if (result.ok) throw new Error(`expected ${dataset} record to be refused: ${JSON.stringify(value)}`);
  return result.problems;
}

function withChange(
  dataset: Dataset,
  change: (record: Record<string, unknown>) => void,
): Record<string, unknown> {
  const record = structuredClone(good(dataset));
  change(record);
  return record;
}

describe('validateRecord accepts and normalizes', () => {
  it('a complete record of every dataset', () => {
    for (const dataset of ['hosts', 'dns', 'vhosts', 'whois'] as const) {
      const result = validateRecord(dataset, good(dataset));
      expect(result).toMatchObject({ ok: true });
    }
  });

  it('lowercases case-insensitive fields, keeps the others as given', () => {
    const result = validateRecord('hosts', good('hosts'));
    if (!result.ok) throw new Error(result.problems.join('; '));
    const record = result.record;
    expect(record.vendor).toBe('f5');
    expect(record.country).toBe('fr');
    expect(record.city).toBe('paris');
    expect(record.organization).toBe('ovh sas');
    expect(record.http).toEqual({ status: 200, title: 'Welcome to nginx!', server: 'nginx/1.18.0 (ubuntu)' });
    expect(record.tls).toEqual({
      subject: { cn: 'www.example.com' },
      san: ['www.example.com', 'example.com'],
      fingerprint: FP,
    });
    expect(record.version).toBe('1.18.0');
    expect(record.banner).toContain('Server: nginx/1.18.0 (Ubuntu)');
    expect(record.first_seen).toBe('2025-03-01T10:00:00.000Z');
  });

  it('dns: name without the root dot, type lowercased, id recomputed', () => {
    const result = validateRecord('dns', good('dns'));
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.record).toMatchObject({ name: 'www.example.com', type: 'a', value: '203.0.113.7' });
    expect(result.record.id).toMatch(/^www\.example\.com\/a\/[0-9a-f]{16}$/);
  });

  it('vhosts: colon-separated fingerprints, dates with offsets and date-only dates', () => {
    const result = validateRecord('vhosts', good('vhosts'));
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.record).toMatchObject({
      fingerprint: FP,
      serial: '04a1b2',
      not_before: '2025-01-01T00:00:00.000Z',
      not_after: '2025-03-31T22:00:00.000Z',
      key: { type: 'rsa', bits: 2048 },
      issuer: { cn: 'r11', organization: "let's encrypt" },
    });
  });

  it('whois: EPP status URLs dropped, name servers normalized, id matched case-insensitively', () => {
    const result = validateRecord('whois', good('whois'));
    if (!result.ok) throw new Error(result.problems.join('; '));
    expect(result.record.id).toBe('example.com');
    expect(result.record.status).toEqual(['clienttransferprohibited', 'clientupdateprohibited']);
    expect(result.record.name_servers).toEqual(['ns1.google.com', 'ns2.google.com']);
    expect(result.record.registrant?.email).toBe('jane.doe@example.com');
  });

  it('IPv6 in canonical form, with brackets in the host id', () => {
    const record = withChange('hosts', (r) => {
      r.ip = '2001:0DB8:0000:0000:0000:0000:0000:0001';
      r.id = '[2001:db8::1]:443/tcp';
    });
    const result = validateRecord('hosts', record);
    expect(result).toMatchObject({ ok: true, record: { ip: '2001:db8::1', id: '[2001:db8::1]:443/tcp' } });
  });

  it('minimal records: id, dates and what the id is made of', () => {
    expect(
      validateRecord('hosts', {
        id: '198.51.100.1:22/tcp',
        ip: '198.51.100.1',
        port: 22,
        transport: 'tcp',
        ...SEEN,
      }),
    ).toMatchObject({ ok: true });
    expect(validateRecord('whois', { id: 'example.org', domain: 'example.org', ...SEEN })).toMatchObject({
      ok: true,
    });
    expect(validateRecord('vhosts', { id: FP, fingerprint: FP, ...SEEN })).toMatchObject({ ok: true });
  });

  it('drops list duplicates and empty lists and objects, and never modifies its input', () => {
    const input = withChange('hosts', (r) => {
      r.hostnames = ['www.example.com', 'WWW.EXAMPLE.COM'];
      r.cpe = [];
      r.favicon = {};
    });
    const before = structuredClone(input);
    const result = validateRecord('hosts', input);
    expect(input).toEqual(before);
    expect(result).toMatchObject({ ok: true, record: { hostnames: ['www.example.com'] } });
    if (result.ok) {
      expect(result.record.cpe).toBeUndefined();
      expect(result.record.favicon).toBeUndefined();
    }
  });

  it('stores fields in vocabulary order, whatever the input order', () => {
    const input = good('dns');
    const reversed = Object.fromEntries(Object.entries(input).reverse());
    const a = validateRecord('dns', input);
    const b = validateRecord('dns', reversed);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('canonical ids', () => {
    expect(hostRecordId('192.0.2.1', 80, 'tcp')).toBe('192.0.2.1:80/tcp');
    expect(hostRecordId('2001:db8::1', 53, 'udp')).toBe('[2001:db8::1]:53/udp');
    expect(vhostRecordId(FP)).toBe(FP);
    expect(vhostRecordId(FP, '192.0.2.1', 443)).toBe(`${FP}@192.0.2.1:443`);
    expect(dnsRecordId('a.example.com', 'txt', 'v=spf1 -all')).toBe(
      dnsRecordId('a.example.com', 'txt', 'v=spf1 -all'),
    );
    expect(dnsRecordId('a.example.com', 'txt', 'x')).not.toBe(dnsRecordId('a.example.com', 'txt', 'y'));
    expect(recordIdOf('whois', { domain: 'example.com' })).toBe('example.com');
  });
});

type Case = [string, Dataset, (record: Record<string, unknown>) => void, string];

const REFUSALS: Case[] = [
  ['id missing', 'hosts', (r) => delete r.id, 'id: required'],
  ['id not a string', 'hosts', (r) => (r.id = 42), 'id: must be a string'],
  ['id not canonical', 'hosts', (r) => (r.id = 'h1'), 'id: must be "203.0.113.7:443/tcp"'],
  ['first_seen missing', 'dns', (r) => delete r.first_seen, 'first_seen: required'],
  ['last_seen missing', 'whois', (r) => delete r.last_seen, 'last_seen: required'],
  ['primary value missing (hosts ip)', 'hosts', (r) => delete r.ip, 'ip: required'],
  ['primary value missing (dns name)', 'dns', (r) => delete r.name, 'name: required'],
  [
    'primary value missing (vhosts fingerprint)',
    'vhosts',
    (r) => delete r.fingerprint,
    'fingerprint: required',
  ],
  ['primary value missing (whois domain)', 'whois', (r) => delete r.domain, 'domain: required'],
  ['port 0', 'hosts', (r) => (r.port = 0), 'port: must be an integer from 1 to 65535, got 0'],
  ['port 70000', 'hosts', (r) => (r.port = 70000), 'port: must be an integer from 1 to 65535, got 70000'],
  ['port as text', 'hosts', (r) => (r.port = '443'), 'port: must be an integer, got "443"'],
  ['port fractional', 'hosts', (r) => (r.port = 44.3), 'port: must be an integer, got number 44.3'],
  ['transport sctp', 'hosts', (r) => (r.transport = 'sctp'), 'transport: must be one of tcp, udp'],
  [
    'http.status 999',
    'hosts',
    (r) => ((r.http as Record<string, unknown>).status = 999),
    'http.status: must be an integer from 100 to 599',
  ],
  [
    'favicon hash beyond 32 bits',
    'hosts',
    (r) => (r.favicon = { hash: 2 ** 32 }),
    'favicon.hash: must be an integer from -2147483648',
  ],
  ['asn 0', 'hosts', (r) => (r.asn = 0), 'asn: must be an integer from 1'],
  [
    'invalid IPv4',
    'hosts',
    (r) => (r.ip = '999.1.1.1'),
    'ip: must be an IPv4 or IPv6 address, got "999.1.1.1"',
  ],
  ['IPv4 with leading zeros', 'hosts', (r) => (r.ip = '010.1.1.1'), 'ip: must be an IPv4 or IPv6 address'],
  [
    'CIDR instead of an address',
    'hosts',
    (r) => (r.ip = '10.0.0.0/8'),
    'ip: must be an IPv4 or IPv6 address',
  ],
  [
    'impossible date',
    'hosts',
    (r) => (r.first_seen = '2025-02-30'),
    'first_seen: must be an ISO 8601 date or date-time',
  ],
  [
    'date as words',
    'dns',
    (r) => (r.last_seen = 'yesterday'),
    'last_seen: must be an ISO 8601 date or date-time',
  ],
  [
    'date as a number',
    'dns',
    (r) => (r.last_seen = 1735689600000),
    'last_seen: must be an ISO 8601 date or date-time, got number',
  ],
  [
    'first_seen after last_seen',
    'hosts',
    (r) => (r.first_seen = '2025-07-01T00:00:00Z'),
    'first_seen: must not be after last_seen',
  ],
  ['unknown field', 'hosts', (r) => (r.os = 'linux'), 'os: unknown field'],
  [
    'unknown nested field',
    'hosts',
    (r) => ((r.http as Record<string, unknown>).length = 5),
    'http.length: unknown field',
  ],
  [
    'flat dotted key',
    'hosts',
    (r) => (r['http.title'] = 'x'),
    'http.title: unknown field (nest it: {"http": {"title": …})',
  ],
  ['field of another dataset', 'hosts', (r) => (r.registrar = 'x'), 'registrar: unknown field'],
  ['null value', 'hosts', (r) => (r.product = null), 'product: must not be null (omit the field instead)'],
  [
    'nested value not an object',
    'hosts',
    (r) => (r.http = 'nginx'),
    'http: must be an object with status, title, server',
  ],
  [
    'multiple field given a string',
    'hosts',
    (r) => (r.hostnames = 'www.example.com'),
    'hostnames: must be a list',
  ],
  [
    'single field given a list',
    'hosts',
    (r) => (r.product = ['nginx']),
    'product: must be a single value, not a list',
  ],
  [
    'list item of the wrong type',
    'hosts',
    (r) => (r.hostnames = ['www.example.com', 7]),
    'hostnames[1]: must be a string, got number 7',
  ],
  [
    'too many list items',
    'hosts',
    (r) => (r.hostnames = Array.from({ length: 1001 }, (_, i) => `h${i}.example.com`)),
    'hostnames: must have at most 1000 items',
  ],
  ['empty keyword', 'hosts', (r) => (r.product = '   '), 'product: must not be empty'],
  [
    'keyword with a control character',
    'hosts',
    (r) => (r.product = 'nginx\u0007'),
    'product: must not contain control characters',
  ],
  ['text with NUL', 'hosts', (r) => (r.banner = 'SSH-2.0\u0000'), 'banner: must not contain NUL characters'],
  [
    'CPE 2.2 URI',
    'hosts',
    (r) => (r.cpe = ['cpe:/a:f5:nginx:1.18.0']),
    'cpe[0]: is a CPE 2.2 URI: use the CPE 2.3 formatted string',
  ],
  [
    'CPE with missing components',
    'hosts',
    (r) => (r.cpe = ['cpe:2.3:a:f5:nginx:1.18.0']),
    'cpe[0]: must be a CPE 2.3 formatted string with 13 components',
  ],
  [
    'CPE without a vendor',
    'hosts',
    (r) => (r.cpe = ['cpe:2.3:a:*:nginx:1.18.0:*:*:*:*:*:*:*']),
    'cpe[0]: must name a vendor',
  ],
  [
    'country of three letters',
    'hosts',
    (r) => (r.country = 'FRA'),
    'country: must be an ISO 3166-1 alpha-2 country code',
  ],
  [
    'hostname of one label',
    'hosts',
    (r) => (r.hostnames = ['localhost']),
    'hostnames[0]: must be a fully qualified DNS name',
  ],
  [
    'wildcard hostname',
    'hosts',
    (r) => (r.hostnames = ['*.example.com']),
    'hostnames[0]: must not be a wildcard name',
  ],
  [
    'hostname with a space',
    'hosts',
    (r) => (r.hostnames = ['www example.com']),
    'hostnames[0]: must be an ASCII DNS name',
  ],
  ['non-ASCII hostname', 'hosts', (r) => (r.hostnames = ['bücher.example']), 'use the xn-- form'],
  [
    'fingerprint not SHA-256',
    'hosts',
    (r) => (r.tls = { fingerprint: 'abc' }),
    'tls.fingerprint: must be a SHA-256 fingerprint',
  ],
  [
    'dns type PTR',
    'dns',
    (r) => (r.type = 'PTR'),
    'type: must be one of a, aaaa, cname, mx, ns, txt, soa, caa',
  ],
  [
    'A record with an IPv6 value',
    'dns',
    (r) => (r.value = '2001:db8::1'),
    'value: an A record must carry an IPv4 address',
  ],
  [
    'CNAME to a non-name',
    'dns',
    (r) => ((r.type = 'CNAME'), (r.value = 'not a name')),
    'value: a CNAME record carries the target name',
  ],
  ['negative ttl', 'dns', (r) => (r.ttl = -1), 'ttl: must be an integer from 0'],
  ['certificate ip without port', 'vhosts', (r) => delete r.port, 'ip: ip and port go together'],
  [
    'not_before after not_after',
    'vhosts',
    (r) => (r.not_before = '2026-01-01'),
    'not_before: must not be after not_after',
  ],
  [
    'unknown key type',
    'vhosts',
    (r) => (r.key = { type: 'rsa-pss', bits: 2048 }),
    'key.type: must be one of rsa, ec, ed25519, ed448, dsa',
  ],
  [
    'key too small',
    'vhosts',
    (r) => (r.key = { type: 'rsa', bits: 64 }),
    'key.bits: must be an integer from 128 to 65536, got 64',
  ],
  [
    'self_signed as text',
    'vhosts',
    (r) => (r.self_signed = 'false'),
    'self_signed: must be true or false, got "false"',
  ],
  [
    'serial not hexadecimal',
    'vhosts',
    (r) => (r.serial = 'xyz'),
    'serial: must be a hexadecimal serial number',
  ],
  [
    'whois domain with a wildcard',
    'whois',
    (r) => ((r.domain = '*.example.com'), (r.id = '*.example.com')),
    'domain: must not be a wildcard name',
  ],
  ['created after expires', 'whois', (r) => (r.created = '2030-01-01'), 'created: must not be after expires'],
  [
    'invalid email',
    'whois',
    (r) => (r.registrant = { email: 'jane at example.com' }),
    'registrant.email: must be an email address',
  ],
  [
    'status with spaces and punctuation',
    'whois',
    (r) => (r.status = ['client!hold']),
    'status[0]: must be an EPP status code',
  ],
];

describe('validateRecord refuses, naming the field and the reason', () => {
  it.each(REFUSALS)('%s', (_title, dataset, change, expected) => {
    const problems = problemsOf(dataset, withChange(dataset, change));
    expect(problems.join('\n')).toContain(expected);
  });

  it('a value that is not an object', () => {
    expect(problemsOf('hosts', null)).toEqual(['a hosts record must be a JSON object, got null']);
    expect(problemsOf('dns', [1, 2])).toEqual(['a dns record must be a JSON object, got a list']);
    expect(problemsOf('whois', 'example.com')).toEqual([
      'a whois record must be a JSON object, got "example.com"',
    ]);
  });

  it('reports every problem of a record at once (at most 20)', () => {
    const problems = problemsOf(
      'hosts',
      withChange('hosts', (r) => {
        r.port = 0;
        r.country = 'France';
        r.extra = true;
      }),
    );
    expect(problems).toHaveLength(3);
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, i]));
    expect(problemsOf('hosts', { ...good('hosts'), ...many })).toHaveLength(20);
  });

  it('does not check the id until the fields are valid (no misleading expected id)', () => {
    const problems = problemsOf(
      'hosts',
      withChange('hosts', (r) => ((r.port = 'x'), (r.id = 'wrong'))),
    );
    expect(problems).toEqual(['port: must be an integer, got "x"']);
  });
});
