import { describe, expect, it } from '@jest/globals';
import { DATASETS, type Dataset } from '../../../src/search/domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from '../../../src/search/query-language/ast.js';
import {
  TEXT_FIELDS,
  classifyBare,
  collectFields,
  describeInterpretation,
  interpret,
  interpretationRules,
  toDomain,
  usesFavicon,
} from '../../../src/search/query-language/interpretation.js';
import { parseQuery } from '../../../src/search/query-language/parser.js';
import { validateFor } from '../../../src/search/query-language/validation.js';

function strip(node: QueryNode): unknown {
  return JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'span' ? undefined : value)));
}

const smart = (raw: string, dataset: Dataset) => strip(interpret(parseQuery(raw), dataset, { broad: false }));
const broad = (raw: string, dataset: Dataset) => strip(interpret(parseQuery(raw), dataset, { broad: true }));
const field = (name: string, match: Match) => ({ kind: 'field', field: name, match });
const exact = (name: string, value: string | number | boolean) => field(name, { kind: 'exact', value });
const contains = (name: string, value: string) => field(name, { kind: 'contains', value });
const or = (...children: unknown[]) => ({ kind: 'or', children });
const and = (...children: unknown[]) => ({ kind: 'and', children });
const not = (child: unknown) => ({ kind: 'not', child });
const textSearch = (dataset: Dataset, value: string) =>
  or(...TEXT_FIELDS[dataset].map((name) => contains(name, value)));

function refusal(run: () => unknown): QuerySyntaxError {
  try {
    run();
  } catch (error) {
    if (error instanceof QuerySyntaxError) return error;
    throw error;
  }
  throw new Error('expected a QuerySyntaxError');
}

describe('smart interpretation of an IP address', () => {
  it.each<[Dataset, unknown]>([
    ['hosts', exact('ip', '8.8.8.8')],
    ['vhosts', exact('ip', '8.8.8.8')],
    ['dns', exact('value', '8.8.8.8')],
  ])('%s', (dataset, expected) => {
    expect(smart('8.8.8.8', dataset)).toEqual(expected);
  });

  it('IPv6 addresses are canonicalized', () => {
    expect(smart('2001:DB8:0:0::1', 'hosts')).toEqual(exact('ip', '2001:db8::1'));
    expect(smart('2001:DB8:0:0::1', 'dns')).toEqual(exact('value', '2001:db8::1'));
  });

  it('does not apply to whois: that dataset alone is refused with invalid_query', () => {
    const error = refusal(() => interpret(parseQuery('port:80 OR 8.8.8.8'), 'whois', { broad: false }));
    expect(error.message).toBe('the IP address 8.8.8.8 does not apply to whois registrations');
    expect(error.position).toBe(11);
    expect(error.code).toBe('invalid_query');
  });
});

describe('smart interpretation of a CIDR block', () => {
  const block = { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 4 } as const;
  it.each<[Dataset, unknown]>([
    ['hosts', field('ip', block)],
    ['vhosts', field('ip', block)],
  ])('%s', (dataset, expected) => {
    expect(smart('10.1.2.3/8', dataset)).toEqual(expected);
  });

  it('does not apply to dns (value is a keyword field) nor whois', () => {
    expect(refusal(() => smart('2001:db8::/32', 'whois')).message).toBe(
      'the CIDR block 2001:db8::/32 does not apply to whois registrations',
    );
    expect(refusal(() => smart('a OR 10.0.0.0/8', 'dns'))).toMatchObject({
      message: 'the CIDR block 10.0.0.0/8 does not apply to dns records',
      position: 5,
      code: 'invalid_query',
    });
  });
});

describe('smart interpretation of a domain name', () => {
  it.each<[Dataset, unknown]>([
    ['hosts', or(exact('hostnames', 'example.com'), exact('tls.san', 'example.com'))],
    ['dns', or(exact('name', 'example.com'), field('name', { kind: 'suffix', value: '.example.com' }))],
    ['vhosts', or(exact('names', 'example.com'), exact('subject.cn', 'example.com'))],
    ['whois', exact('domain', 'example.com')],
  ])('%s', (dataset, expected) => {
    expect(smart('Example.COM.', dataset)).toEqual(expected);
  });

  it('recognizes valid names only', () => {
    expect(toDomain('www.example.co.uk')).toBe('www.example.co.uk');
    expect(toDomain('_dmarc.example.com')).toBe('_dmarc.example.com');
    expect(toDomain('xn--bcher-kva.de')).toBe('xn--bcher-kva.de');
    expect(toDomain('bücher.de')).toBe('xn--bcher-kva.de');
    expect(toDomain('example.c0m')).toBe('example.c0m');
    for (const text of [
      'localhost',
      '1.2.3',
      'v1.2',
      'a..b',
      '-a.com',
      'a-.com',
      'a.-com',
      'a.com-',
      '.com',
      'a_b.c_d',
      'a b.com',
      'a.com/x',
      `${'a'.repeat(64)}.com`,
      `${'a.'.repeat(127)}com`,
    ]) {
      expect([text, toDomain(text)]).toEqual([text, undefined]);
    }
  });

  it('IDN input is searched in punycode', () => {
    expect(smart('bücher.de', 'whois')).toEqual(exact('domain', 'xn--bcher-kva.de'));
  });
});

describe('smart interpretation of a CVE identifier', () => {
  it('becomes the hosts cve: selector, upper-cased', () => {
    expect(smart('cve-2021-44228', 'hosts')).toEqual({
      kind: 'selector',
      selector: 'cve',
      value: 'CVE-2021-44228',
    });
  });

  it.each<Dataset>(['dns', 'vhosts', 'whois'])('does not apply to %s', (dataset) => {
    const error = refusal(() => smart('CVE-2021-44228', dataset));
    expect(error.code).toBe('invalid_query');
    expect(error.message).toMatch(/^the CVE identifier CVE-2021-44228 does not apply to /);
  });

  it('only exact identifiers are recognized', () => {
    expect(smart('CVE-2021-*', 'hosts')).toEqual(textSearch('hosts', 'cve-2021-'));
    expect(smart('CVE-2021-123', 'hosts')).toEqual(textSearch('hosts', 'cve-2021-123'));
  });
});

describe('any other word or phrase', () => {
  it.each(DATASETS)('%s: case-insensitive contains over its text-ish fields', (dataset) => {
    expect(smart('NGINX', dataset)).toEqual(textSearch(dataset, 'nginx'));
    expect(smart('"Sign In"', dataset)).toEqual(textSearch(dataset, 'sign in'));
  });

  it('lists the fields of each dataset', () => {
    expect(TEXT_FIELDS).toEqual({
      hosts: ['http.title', 'banner', 'product', 'organization'],
      dns: ['name', 'value'],
      vhosts: ['subject.cn', 'names', 'issuer.organization'],
      whois: ['domain', 'registrar', 'registrant.organization'],
    });
  });

  it('surrounding stars of a bare word are dropped; quoted stars are kept', () => {
    expect(smart('*admin*', 'dns')).toEqual(textSearch('dns', 'admin'));
    expect(smart('"*admin*"', 'dns')).toEqual(textSearch('dns', '*admin*'));
  });

  it('a quoted address, domain or CVE is text', () => {
    expect(smart('"8.8.8.8"', 'whois')).toEqual(textSearch('whois', '8.8.8.8'));
    expect(smart('"example.com"', 'hosts')).toEqual(textSearch('hosts', 'example.com'));
    expect(smart('"CVE-2021-44228"', 'dns')).toEqual(textSearch('dns', 'cve-2021-44228'));
  });

  it('unicode is lowercased', () => {
    expect(smart('Straße', 'whois')).toEqual(textSearch('whois', 'straße'));
  });
});

describe('broad interpretation', () => {
  it.each(DATASETS)('%s: every bare input is text', (dataset) => {
    for (const raw of ['8.8.8.8', '10.0.0.0/8', 'Example.com', 'CVE-2021-44228', 'nginx']) {
      expect(broad(raw, dataset)).toEqual(textSearch(dataset, raw.toLowerCase()));
    }
  });

  it('leaves fields and selectors as they are', () => {
    expect(broad('cve:* port:443', 'hosts')).toEqual(
      and({ kind: 'selector', selector: 'cve', value: '*' }, exact('port', 443)),
    );
  });
});

describe('interpret: structure', () => {
  it('replaces bare nodes anywhere and flattens an OR into its OR parent', () => {
    expect(smart('port:443 (example.com OR nginx) -8.8.8.8', 'hosts')).toEqual(
      and(
        exact('port', 443),
        or(
          exact('hostnames', 'example.com'),
          exact('tls.san', 'example.com'),
          ...TEXT_FIELDS.hosts.map((name) => contains(name, 'nginx')),
        ),
        not(exact('ip', '8.8.8.8')),
      ),
    );
  });

  it('generated nodes carry the span of the bare input', () => {
    const node = interpret(parseQuery('port:1 example.com'), 'whois', { broad: false });
    expect(node.kind === 'and' && node.children[1]).toEqual({
      kind: 'field',
      field: 'domain',
      match: { kind: 'exact', value: 'example.com' },
      span: { start: 7, end: 18 },
    });
  });

  it('returns queries without bare words unchanged', () => {
    const ast = parseQuery('port:443 AND NOT kev:true');
    expect(interpret(ast, 'hosts', { broad: false })).toEqual(ast);
  });

  it('its output validates unchanged, in either order with validateFor', () => {
    // Both pipelines are used: SearchEngine runs interpret(validateFor(ast)).
    const raws = [
      '8.8.8.8 port:443',
      'example.com last_seen:>2026-01-01',
      '10.0.0.0/8 OR "login page"',
      'CVE-2021-44228 kev:true',
      'gandi',
    ];
    for (const raw of raws) {
      for (const dataset of DATASETS) {
        for (const options of [{ broad: false }, { broad: true }]) {
          const attempt = (run: () => QueryNode) => {
            try {
              return run();
            } catch (error) {
              if (error instanceof QuerySyntaxError) return 'invalid';
              throw error;
            }
          };
          const ast = parseQuery(raw);
          const first = attempt(() => validateFor(interpret(ast, dataset, options), dataset));
          const second = attempt(() => interpret(validateFor(ast, dataset), dataset, options));
          expect([raw, dataset, first]).toEqual([raw, dataset, second]);
          if (first !== 'invalid') expect(validateFor(first, dataset)).toEqual(first);
        }
      }
    }
  });
});

describe('classifyBare', () => {
  it.each<[string, boolean, boolean, string]>([
    ['8.8.8.8', false, false, 'ip'],
    ['::1', false, false, 'ip'],
    ['10.0.0.0/8', false, false, 'cidr'],
    ['example.com', false, false, 'domain'],
    ['CVE-2021-44228', false, false, 'cve'],
    ['nginx', false, false, 'text'],
    ['8.8.8.8', true, false, 'text'],
    ['8.8.8.8', false, true, 'text'],
    ['1.2.3', false, false, 'text'],
  ])('%s (quoted %s, broad %s) → %s', (text, quoted, isBroad, kind) => {
    expect(classifyBare(text, quoted, isBroad)).toBe(kind);
  });
});

describe('describeInterpretation and interpretationRules', () => {
  it('describes each bare input for the dataset', () => {
    expect(describeInterpretation('8.8.8.8', 'dns')).toBe('8.8.8.8 (IP address): value is 8.8.8.8');
    expect(describeInterpretation('8.8.8.8', 'whois')).toBe(
      '8.8.8.8 (IP address): not applicable to whois registrations (invalid_query)',
    );
    expect(describeInterpretation('example.com', 'dns')).toBe(
      'example.com (domain name): name is example.com, or name ends with .example.com',
    );
    expect(describeInterpretation('CVE-2021-44228', 'hosts')).toBe(
      'CVE-2021-44228 (CVE identifier): hosts associated in the catalogue with CVE-2021-44228',
    );
    expect(describeInterpretation('10.0.0.0/8', 'vhosts')).toBe(
      '10.0.0.0/8 (CIDR block): ip is in 10.0.0.0/8',
    );
    expect(describeInterpretation('port:443 "Sign In"', 'whois')).toBe(
      '"Sign In" (text): domain contains "sign in", or registrar contains "sign in", or registrant.organization contains "sign in"',
    );
    expect(describeInterpretation('a b', 'dns')).toBe(
      'a (text): name contains "a", or value contains "a"; b (text): name contains "b", or value contains "b"',
    );
  });

  it('with broad, says text', () => {
    expect(describeInterpretation('8.8.8.8', 'whois', { broad: true })).toBe(
      '8.8.8.8 (text): domain contains "8.8.8.8", or registrar contains "8.8.8.8", or registrant.organization contains "8.8.8.8"',
    );
  });

  it('says when there is nothing to interpret, and refuses what does not parse', () => {
    expect(describeInterpretation('port:443', 'hosts')).toBe(
      'every term names its field: matched as written',
    );
    expect(() => describeInterpretation('port:', 'hosts')).toThrow(QuerySyntaxError);
  });

  it('summarizes the rules of each dataset', () => {
    expect(interpretationRules('hosts')).toBe(
      'an IP address searches ip; a CIDR block searches ip; a domain name searches hostnames or tls.san (exact); a CVE identifier is the cve: selector; any other word or "quoted phrase" is a case-insensitive contains over http.title, banner, product, organization. broad=true treats every bare input as text.',
    );
    expect(interpretationRules('whois')).toMatch(
      /^an IP address does not apply; a CIDR block does not apply; a domain name searches domain/,
    );
    expect(interpretationRules('dns')).toMatch(/^an IP address searches value; a CIDR block does not apply;/);
    expect(interpretationRules('dns')).toContain('a CVE identifier does not apply');
    expect(interpretationRules('vhosts')).toContain('names or subject.cn');
  });
});

describe('collectFields and usesFavicon', () => {
  it('lists every field once, in order, negations included, selectors and bare words excluded', () => {
    expect(
      collectFields(
        parseQuery('port:1 (product:x OR -port:2) NOT registrant.email:a@b.c cve:* kev:true nginx'),
      ),
    ).toEqual(['port', 'product', 'registrant.email']);
    expect(collectFields(parseQuery('nginx'))).toEqual([]);
  });

  it('after interpretation, includes the fields bare words are searched in', () => {
    expect(collectFields(interpret(parseQuery('gandi example.com'), 'whois', { broad: false }))).toEqual([
      'domain',
      'registrar',
      'registrant.organization',
    ]);
  });

  it('a favicon search is any query filtering on favicon.hash', () => {
    expect(usesFavicon(parseQuery('favicon.hash:-123456'))).toBe(true);
    expect(usesFavicon(parseQuery('port:443 OR NOT favicon.hash:1'))).toBe(true);
    expect(usesFavicon(parseQuery('port:443 favicon'))).toBe(false);
    expect(usesFavicon(parseQuery('"favicon.hash:1"'))).toBe(false);
  });
});
