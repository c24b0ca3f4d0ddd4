import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { DATASETS, FIELDS, fieldNamed, type Dataset } from '../../../src/search/domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from '../../../src/search/query-language/ast.js';
import { parseQuery } from '../../../src/search/query-language/parser.js';
import {
  formatIp,
  normalizeMatch,
  normalizeSelector,
  parseCidr,
  parseDate,
  parseIp,
  validateFor,
} from '../../../src/search/query-language/validation.js';

const span = { start: 0, end: 1 };
const fieldNode = (field: string, match: Match): QueryNode => ({ kind: 'field', field, match, span });
const matchOf = (node: QueryNode): Match => {
  if (node.kind !== 'field') throw new Error(`expected a field node, got ${node.kind}`);
  return node.match;
};
const validated = (field: string, match: Match, dataset: Dataset = fieldNamed(field)!.datasets[0]!) =>
  matchOf(validateFor(fieldNode(field, match), dataset));

function refusal(run: () => unknown): QuerySyntaxError {
  try {
    run();
  } catch (error) {
    if (error instanceof QuerySyntaxError) return error;
    throw error;
  }
  throw new Error('expected a QuerySyntaxError');
}

describe('validateFor: which datasets a query applies to', () => {
  it.each(DATASETS)('every %s field is accepted by its dataset', (dataset) => {
    for (const definition of FIELDS.filter((field) => field.datasets.includes(dataset))) {
      const sample: Record<string, Match> = {
        keyword: { kind: 'exact', value: 'x' },
        text: { kind: 'exact', value: 'x' },
        integer: { kind: 'exact', value: 1 },
        date: { kind: 'exact', value: '2026-01-01T00:00:00Z' },
        ip: { kind: 'exact', value: '10.0.0.1' },
        boolean: { kind: 'exact', value: true },
      };
      expect(() => validateFor(fieldNode(definition.name, sample[definition.type]!), dataset)).not.toThrow();
    }
  });

  it.each<[string, Dataset[]]>([
    ['port:443', ['hosts', 'vhosts']],
    ['ip:10.0.0.0/8', ['hosts', 'vhosts']],
    ['product:nginx', ['hosts']],
    ['type:mx', ['dns']],
    ['issuer.cn:"R3"', ['vhosts']],
    ['registrar:gandi', ['whois']],
    ['last_seen:>2026-01-01', ['hosts', 'dns', 'vhosts', 'whois']],
    ['first_seen:<2020-01-01 OR last_seen:>2026-01-01', ['hosts', 'dns', 'vhosts', 'whois']],
    ['port:443 AND self_signed:true', ['vhosts']],
    ['port:443 OR self_signed:true', ['vhosts']],
    ['port:443 NOT self_signed:true', ['vhosts']],
    ['product:nginx OR type:a', []],
    ['product:nginx NOT domain:example.com', []],
    ['cve:* port:443', ['hosts']],
    ['kev:true', ['hosts']],
    ['-cve:CVE-2021-44228', ['hosts']],
    ['cve:* self_signed:true', []],
    ['nginx', ['hosts', 'dns', 'vhosts', 'whois']],
  ])('%s applies to %j', (raw, applicable) => {
    const ast = parseQuery(raw);
    const accepted = DATASETS.filter((dataset) => {
      try {
        validateFor(ast, dataset);
        return true;
      } catch (error) {
        if (!(error instanceof QuerySyntaxError)) throw error;
        expect(error.code).toBe('invalid_query');
        return false;
      }
    });
    expect(accepted).toEqual(applicable);
  });

  it('names the field, the dataset and the position of the first foreign field', () => {
    const error = refusal(() => validateFor(parseQuery('port:22 OR registrar:gandi'), 'hosts'));
    expect(error.message).toBe(
      '"registrar" is not a field of hosts observations (it belongs to whois), so this query does not apply to hosts',
    );
    expect(error.position).toBe(11);
    expect(error.code).toBe('invalid_query');
    expect(refusal(() => validateFor(parseQuery('(a) -port:22'), 'dns'))).toMatchObject({
      message:
        '"port" is not a field of dns records (it belongs to hosts, vhosts), so this query does not apply to dns',
      position: 5,
    });
  });

  it('selectors apply to hosts only: elsewhere the dataset is not applicable (invalid_query)', () => {
    for (const dataset of ['dns', 'vhosts', 'whois'] as const) {
      const error = refusal(() => validateFor(parseQuery('a OR kev:false'), dataset));
      expect(error.code).toBe('invalid_query');
      expect(error.position).toBe(5);
      expect(error.message).toMatch(/^kev: selectors apply to hosts observations only/);
    }
  });

  it('re-validates selector values of a constructed AST with invalid_cve_selector', () => {
    const node = (value: string): QueryNode => ({ kind: 'selector', selector: 'cve', value, span });
    expect(validateFor(node('cve-2021-44228'), 'hosts')).toEqual(node('CVE-2021-44228'));
    expect(validateFor(node('2021-*'), 'hosts')).toEqual(node('CVE-2021-*'));
    expect(refusal(() => validateFor(node('log4j'), 'hosts')).code).toBe('invalid_cve_selector');
    expect(
      refusal(() => validateFor({ kind: 'selector', selector: 'kev', value: '*', span }, 'hosts')).code,
    ).toBe('invalid_cve_selector');
  });

  it('leaves bare words for interpretation, refuses none nodes with their reason and unknown fields', () => {
    const bare: QueryNode = { kind: 'bare', text: 'Nginx', quoted: false, span };
    expect(validateFor(bare, 'whois')).toBe(bare);
    expect(
      refusal(() => validateFor({ kind: 'none', reason: 'not here', span: { start: 3, end: 4 } }, 'dns')),
    ).toMatchObject({
      message: 'not here',
      position: 3,
    });
    expect(
      refusal(() => validateFor(fieldNode('nope', { kind: 'exact', value: 'x' }), 'hosts')).message,
    ).toBe('unknown field "nope"');
  });

  it('returns a new AST and leaves its input unchanged', () => {
    const input: QueryNode = {
      kind: 'and',
      children: [
        fieldNode('product', { kind: 'exact', value: 'NGINX' }),
        fieldNode('port', { kind: 'exact', value: '80' }),
      ],
      span,
    };
    const copy = structuredClone(input);
    const output = validateFor(input, 'hosts');
    expect(input).toEqual(copy);
    expect(output).toEqual({
      kind: 'and',
      children: [
        fieldNode('product', { kind: 'exact', value: 'nginx' }),
        fieldNode('port', { kind: 'exact', value: 80 }),
      ],
      span,
    });
  });

  it('is idempotent on every parsed query', () => {
    const queries = [
      'product:NGINX* port:[80 TO 443} -country:CN',
      'last_seen:2026-01-15 OR last_seen:>2026-02-01T10:00:00+01:00',
      'ip:10.1.2.3/8 OR ip:2001:DB8::1',
      'http.title:"Sign In" cve:2021-* kev:true',
      'type:MX value:10.0.0.0/8 name:*.Example.com',
      'not_after:{2026-01-01 TO 2026-06-30] self_signed:false key.bits:>=2048',
      'created:<=2020-12-31 registrar:GANDI',
    ];
    for (const raw of queries) {
      const ast = parseQuery(raw);
      for (const dataset of DATASETS) {
        let once: QueryNode;
        try {
          once = validateFor(ast, dataset);
        } catch {
          continue;
        }
        expect(once).toEqual(ast);
        expect(validateFor(once, dataset)).toEqual(once);
      }
    }
  });
});

describe('normalization per field type', () => {
  it('keyword: lowercased when case-insensitive, kept otherwise; prefix, suffix and contains allowed', () => {
    expect(validated('product', { kind: 'exact', value: 'OpenSSH' })).toEqual({
      kind: 'exact',
      value: 'openssh',
    });
    expect(validated('version', { kind: 'exact', value: '8.9P1' })).toEqual({
      kind: 'exact',
      value: '8.9P1',
    });
    expect(validated('version', { kind: 'prefix', value: '8.9P' })).toEqual({
      kind: 'prefix',
      value: '8.9P',
    });
    expect(validated('name', { kind: 'suffix', value: '.EXAMPLE.com' })).toEqual({
      kind: 'suffix',
      value: '.example.com',
    });
    expect(validated('organization', { kind: 'contains', value: 'Google' })).toEqual({
      kind: 'contains',
      value: 'google',
    });
    expect(validated('http.status', { kind: 'exact', value: '404' })).toEqual({ kind: 'exact', value: 404 });
  });

  it('keyword: no ranges, no CIDR blocks (except dns value), no empty values', () => {
    expect(
      refusal(() => validated('product', { kind: 'range', lower: { value: 'a', inclusive: true } })).message,
    ).toBe('"product" does not take a range (ranges are for numbers and dates)');
    expect(
      refusal(() => validated('hostnames', { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 4 }))
        .message,
    ).toBe('"hostnames" does not take a CIDR block');
    expect(refusal(() => validated('product', { kind: 'exact', value: '' })).message).toBe(
      '"product" needs a value',
    );
    expect(refusal(() => validated('product', { kind: 'prefix', value: '' })).message).toBe(
      '"product" needs a value',
    );
  });

  it('dns value: addresses are canonicalized; CIDR text stays text and cidr matches are refused', () => {
    expect(validated('value', { kind: 'exact', value: '2001:DB8:0::1' })).toEqual({
      kind: 'exact',
      value: '2001:db8::1',
    });
    expect(validated('value', { kind: 'exact', value: '192.168.7.7/16' })).toEqual({
      kind: 'exact',
      value: '192.168.7.7/16',
    });
    expect(
      refusal(() => validated('value', { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 4 }))
        .message,
    ).toBe('"value" does not take a CIDR block');
    expect(validated('value', { kind: 'exact', value: 'v=spf1 -all' })).toEqual({
      kind: 'exact',
      value: 'v=spf1 -all',
    });
  });

  it('text: every form becomes a lowercased contains; no ranges', () => {
    for (const kind of ['exact', 'prefix', 'suffix', 'contains'] as const) {
      expect(validated('banner', { kind, value: 'SSH-2.0' })).toEqual({ kind: 'contains', value: 'ssh-2.0' });
    }
    expect(
      refusal(() => validated('http.title', { kind: 'range', upper: { value: 'z', inclusive: true } }))
        .message,
    ).toBe('"http.title" is text: it does not take a range');
    expect(
      refusal(() => validated('banner', { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 4 }))
        .message,
    ).toBe('"banner" is text: it does not take a cidr');
  });

  it('integer: numbers or numeric strings, exact or range; no wildcards', () => {
    expect(validated('port', { kind: 'exact', value: 443 })).toEqual({ kind: 'exact', value: 443 });
    expect(validated('ttl', { kind: 'range', lower: { value: '60', inclusive: false } })).toEqual({
      kind: 'range',
      lower: { value: 60, inclusive: false },
    });
    expect(refusal(() => validated('port', { kind: 'exact', value: 1.5 })).message).toBe(
      '"port" needs a number, got "1.5"',
    );
    expect(refusal(() => validated('port', { kind: 'exact', value: true })).message).toBe(
      '"port" needs a number, got "true"',
    );
    expect(refusal(() => validated('asn', { kind: 'prefix', value: '13' })).message).toBe(
      '"asn" does not take wildcards',
    );
    expect(refusal(() => validated('key.bits', { kind: 'contains', value: '2' })).message).toBe(
      '"key.bits" does not take wildcards',
    );
    expect(
      refusal(() => validated('port', { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 4 }))
        .message,
    ).toBe('"port" does not take a CIDR block');
    expect(refusal(() => validated('port', { kind: 'range' })).message).toBe(
      'the range on "port" needs at least one bound',
    );
  });

  it('date: YYYY-MM-DD is the whole UTC day, date-times become ISO with milliseconds; no wildcards', () => {
    expect(validated('expires', { kind: 'exact', value: '2027-03-01' })).toEqual({
      kind: 'range',
      lower: { value: '2027-03-01T00:00:00.000Z', inclusive: true },
      upper: { value: '2027-03-02T00:00:00.000Z', inclusive: false },
    });
    expect(validated('expires', { kind: 'exact', value: '2027-03-01T12:00:00-05:30' })).toEqual({
      kind: 'exact',
      value: '2027-03-01T17:30:00.000Z',
    });
    expect(validated('updated', { kind: 'range', upper: { value: '2024-02-28', inclusive: true } })).toEqual({
      kind: 'range',
      upper: { value: '2024-02-29T00:00:00.000Z', inclusive: false },
    });
    expect(refusal(() => validated('created', { kind: 'exact', value: 20260101 })).message).toBe(
      '"created" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "20260101"',
    );
    expect(refusal(() => validated('created', { kind: 'prefix', value: '2026' })).message).toBe(
      '"created" does not take wildcards',
    );
    expect(
      refusal(() =>
        validated('created', {
          kind: 'range',
          lower: { value: '2026-01-02', inclusive: true },
          upper: { value: '2026-01-01', inclusive: true },
        }),
      ).message,
    ).toBe('the range on "created" is empty: no value lies between its bounds');
  });

  it('ip: canonical addresses, CIDR blocks masked and re-checked; no ranges or wildcards', () => {
    expect(validated('ip', { kind: 'exact', value: '::FFFF:10.0.0.1' })).toEqual({
      kind: 'exact',
      value: '::ffff:10.0.0.1',
    });
    expect(validated('ip', { kind: 'exact', value: '2001:db8::1/64' }, 'vhosts')).toEqual({
      kind: 'cidr',
      network: '2001:db8::',
      prefixLength: 64,
      family: 6,
    });
    expect(
      refusal(() => validated('ip', { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 6 }))
        .message,
    ).toBe('"ip" has an invalid CIDR block 10.0.0.0/8');
    expect(
      refusal(() => validated('ip', { kind: 'cidr', network: '10.0.0.0', prefixLength: 40, family: 4 }))
        .message,
    ).toBe('"ip" has an invalid CIDR block 10.0.0.0/40');
    expect(refusal(() => validated('ip', { kind: 'exact', value: 'localhost' })).message).toBe(
      '"ip" needs an IP address or a CIDR block, got "localhost"',
    );
    expect(refusal(() => validated('ip', { kind: 'prefix', value: '10.' })).message).toBe(
      '"ip" does not take wildcards: use a CIDR block such as 10.0.0.0/8',
    );
    expect(
      refusal(() => validated('ip', { kind: 'range', lower: { value: '10.0.0.1', inclusive: true } }))
        .message,
    ).toBe('"ip" does not take a range: use a CIDR block such as 10.0.0.0/8');
  });

  it('boolean: true or false only', () => {
    expect(validated('self_signed', { kind: 'exact', value: 'True' })).toEqual({
      kind: 'exact',
      value: true,
    });
    expect(validated('shared_edge', { kind: 'exact', value: false })).toEqual({
      kind: 'exact',
      value: false,
    });
    expect(refusal(() => validated('shared_edge', { kind: 'exact', value: 1 })).message).toBe(
      '"shared_edge" needs true or false, got "1"',
    );
    expect(refusal(() => validated('self_signed', { kind: 'prefix', value: 't' })).message).toBe(
      '"self_signed" takes only true or false',
    );
    expect(
      refusal(() => validated('self_signed', { kind: 'range', lower: { value: 'false', inclusive: true } }))
        .message,
    ).toBe('"self_signed" takes only true or false');
  });

  it('reports errors at the given position', () => {
    expect(
      refusal(() => normalizeMatch(fieldNamed('port')!, { kind: 'exact', value: 'x' }, 17)).position,
    ).toBe(17);
  });
});

describe('selector values', () => {
  it.each<[string, string]>([
    ['CVE-2021-44228', 'CVE-2021-44228'],
    ['cve-2021-44228', 'CVE-2021-44228'],
    ['CVE-2021-*', 'CVE-2021-*'],
    ['2021-*', 'CVE-2021-*'],
    ['*', '*'],
  ])('cve:%s → %s', (raw, expected) => {
    expect(normalizeSelector('cve', raw, 0)).toBe(expected);
  });

  it('kev: true or false, case-insensitive', () => {
    expect(normalizeSelector('kev', 'TRUE', 0)).toBe('true');
    expect(normalizeSelector('kev', 'false', 0)).toBe('false');
    expect(refusal(() => normalizeSelector('kev', 'yes', 9))).toMatchObject({
      code: 'invalid_cve_selector',
      position: 9,
    });
  });
});

describe('address and date helpers', () => {
  it('format IPv6 as RFC 5952', () => {
    const canonical = (text: string) => formatIp(parseIp(text)!);
    expect(canonical('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(canonical('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonical('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(canonical('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonical('1::')).toBe('1::');
    expect(canonical('::ffff:0a00:0001')).toBe('::ffff:10.0.0.1');
  });

  it('refuses malformed addresses', () => {
    for (const text of [
      '1.2.3.4.5',
      '1.2.3.-1',
      ':1',
      '1:',
      '1:2:3:4:5:6:7:8::',
      '12345::',
      '1.2.3.4::',
      'g::1',
      '',
    ]) {
      expect(parseIp(text)).toBeUndefined();
    }
    expect(parseCidr('10.0.0.0')).toBeUndefined();
    expect(parseCidr('10.0.0.0/8/8')).toBeUndefined();
    expect(parseCidr('10.0.0.0/')).toBeUndefined();
  });

  it('round-trips any IPv4 and IPv6 address through its canonical form', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (address) => {
        const parsed = parseIp(address);
        expect(parsed).toBeDefined();
        const canonical = formatIp(parsed!);
        expect(formatIp(parseIp(canonical)!)).toBe(canonical);
        expect(parseIp(canonical)!.bytes).toEqual(parsed!.bytes);
      }),
      { numRuns: 500 },
    );
  });

  it('parses dates strictly', () => {
    expect(parseDate('2024-02-29')).toEqual({ ms: Date.UTC(2024, 1, 29), dayOnly: true });
    expect(parseDate('2023-02-29')).toBeUndefined();
    expect(parseDate('2026-01-01T00:00:00.5Z')).toEqual({
      ms: Date.UTC(2026, 0, 1, 0, 0, 0, 500),
      dayOnly: false,
    });
    expect(parseDate('2026-01-01T00:00:00+0100')).toEqual({ ms: Date.UTC(2025, 11, 31, 23), dayOnly: false });
    expect(parseDate('2026-01-01T00:60:00Z')).toBeUndefined();
    expect(parseDate('0999-01-01')).toBeUndefined();
    expect(parseDate('26-01-01')).toBeUndefined();
  });
});
