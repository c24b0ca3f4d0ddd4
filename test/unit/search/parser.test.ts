import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { QuerySyntaxError, type Match, type QueryNode } from '../../../src/search/query-language/ast.js';
import {
  MAX_QUERY_DEPTH,
  MAX_QUERY_TERMS,
  editDistance,
  parseQuery,
  suggestField,
} from '../../../src/search/query-language/parser.js';

/** The AST without spans, for readable expectations. */
function strip(node: QueryNode): unknown {
  return JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'span' ? undefined : value)));
}

const parsed = (raw: string) => strip(parseQuery(raw));
const bare = (text: string, quoted = false) => ({ kind: 'bare', text, quoted });
const field = (name: string, match: Match) => ({ kind: 'field', field: name, match });
const exact = (name: string, value: string | number | boolean) => field(name, { kind: 'exact', value });
const and = (...children: unknown[]) => ({ kind: 'and', children });
const or = (...children: unknown[]) => ({ kind: 'or', children });
const not = (child: unknown) => ({ kind: 'not', child });
const selector = (name: 'cve' | 'kev', value: string) => ({ kind: 'selector', selector: name, value });
const range = (lower?: [number | string, boolean], upper?: [number | string, boolean]): Match => ({
  kind: 'range',
  ...(lower ? { lower: { value: lower[0], inclusive: lower[1] } } : {}),
  ...(upper ? { upper: { value: upper[0], inclusive: upper[1] } } : {}),
});

function failure(raw: string): QuerySyntaxError {
  try {
    parseQuery(raw);
  } catch (error) {
    if (error instanceof QuerySyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
}

describe('parseQuery: terms and values', () => {
  it.each<[string, unknown]>([
    ['nginx', bare('nginx')],
    ['"two words"', bare('two words', true)],
    ['port:80', exact('port', 80)],
    ['Port:80', exact('port', 80)],
    ['HTTP.Title:Admin', field('http.title', { kind: 'contains', value: 'admin' })],
    ['product:nginx', exact('product', 'nginx')],
    ['product:NGINX', exact('product', 'nginx')],
    ['version:1.2.3-RC1', exact('version', '1.2.3-RC1')],
    ['http.title:"Sign In"', field('http.title', { kind: 'contains', value: 'sign in' })],
    ['banner:*SSH*', field('banner', { kind: 'contains', value: 'ssh' })],
    ['http.title:admin*', field('http.title', { kind: 'contains', value: 'admin' })],
    ['product:nginx*', field('product', { kind: 'prefix', value: 'nginx' })],
    ['hostnames:*.Example.com', field('hostnames', { kind: 'suffix', value: '.example.com' })],
    ['product:"ngin*"', exact('product', 'ngin*')],
    ['product:ngin\\*', exact('product', 'ngin*')],
    ['product:open\\ ssh', exact('product', 'open ssh')],
    ['product:"a \\"quoted\\" name"', exact('product', 'a "quoted" name')],
    ['product:"back\\\\slash"', exact('product', 'back\\slash')],
    ['"C:\\Windows"', bare('C:\\Windows', true)],
    ['favicon.hash:-1234567', exact('favicon.hash', -1234567)],
    ['http.status:200', exact('http.status', 200)],
    ['shared_edge:true', exact('shared_edge', true)],
    ['shared_edge:FALSE', exact('shared_edge', false)],
    ['self_signed:true', exact('self_signed', true)],
    ['country:FR', exact('country', 'fr')],
    ['registrant.email:Jane@Example.com', exact('registrant.email', 'jane@example.com')],
    ['value:MX.Example.com', exact('value', 'mx.example.com')],
    ['value:8.8.8.8', exact('value', '8.8.8.8')],
    ['value:2001:DB8::0:1', exact('value', '2001:db8::1')],
    ['value:10.0.0.0/8', exact('value', '10.0.0.0/8')],
  ])('%s', (raw, expected) => {
    expect(parsed(raw)).toEqual(expected);
  });
});

describe('parseQuery: ranges and comparisons', () => {
  it.each<[string, unknown]>([
    ['port:[80 TO 443]', field('port', range([80, true], [443, true]))],
    ['port:{80 TO 443}', field('port', range([80, false], [443, false]))],
    ['port:[80 TO 443}', field('port', range([80, true], [443, false]))],
    ['port:{80 TO 443]', field('port', range([80, false], [443, true]))],
    ['port:[1024 TO *]', field('port', range([1024, true]))],
    ['port:[* TO 1024}', field('port', range(undefined, [1024, false]))],
    ['port:[  80   TO   443  ]', field('port', range([80, true], [443, true]))],
    ['asn:[100 TO 100]', field('asn', range([100, true], [100, true]))],
    ['port:[80 TO 81}', field('port', range([80, true], [81, false]))],
    ['port:{80 TO 82}', field('port', range([80, false], [82, false]))],
    ['port:>1024', field('port', range([1024, false]))],
    ['port:>=1024', field('port', range([1024, true]))],
    ['port:<1024', field('port', range(undefined, [1024, false]))],
    ['port:<=1024', field('port', range(undefined, [1024, true]))],
    ['favicon.hash:>-5', field('favicon.hash', range([-5, false]))],
    [
      'last_seen:2026-01-15',
      field('last_seen', range(['2026-01-15T00:00:00.000Z', true], ['2026-01-16T00:00:00.000Z', false])),
    ],
    ['last_seen:>2026-01-15', field('last_seen', range(['2026-01-16T00:00:00.000Z', true]))],
    ['last_seen:>=2026-01-15', field('last_seen', range(['2026-01-15T00:00:00.000Z', true]))],
    ['last_seen:<2026-01-15', field('last_seen', range(undefined, ['2026-01-15T00:00:00.000Z', false]))],
    ['last_seen:<=2026-01-15', field('last_seen', range(undefined, ['2026-01-16T00:00:00.000Z', false]))],
    ['last_seen:<=2026-12-31', field('last_seen', range(undefined, ['2027-01-01T00:00:00.000Z', false]))],
    ['last_seen:2026-01-15T10:20:30Z', exact('last_seen', '2026-01-15T10:20:30.000Z')],
    ['last_seen:2026-01-15T10:20:30+02:00', exact('last_seen', '2026-01-15T08:20:30.000Z')],
    ['last_seen:2026-01-15T10:20:30.123456Z', exact('last_seen', '2026-01-15T10:20:30.123Z')],
    ['last_seen:2026-01-15T10:20', exact('last_seen', '2026-01-15T10:20:00.000Z')],
    ['last_seen:>2026-01-15T10:00:00Z', field('last_seen', range(['2026-01-15T10:00:00.000Z', false]))],
    [
      'not_after:[2026-01-01 TO 2026-12-31]',
      field('not_after', range(['2026-01-01T00:00:00.000Z', true], ['2027-01-01T00:00:00.000Z', false])),
    ],
    [
      'created:{2020-02-28 TO 2020-03-01}',
      field('created', range(['2020-02-29T00:00:00.000Z', true], ['2020-03-01T00:00:00.000Z', false])),
    ],
  ])('%s', (raw, expected) => {
    expect(parsed(raw)).toEqual(expected);
  });
});

describe('parseQuery: addresses', () => {
  const cidr = (network: string, prefixLength: number, family: 4 | 6) =>
    field('ip', { kind: 'cidr', network, prefixLength, family });
  it.each<[string, unknown]>([
    ['ip:1.2.3.4', exact('ip', '1.2.3.4')],
    ['ip:10.0.0.0/8', cidr('10.0.0.0', 8, 4)],
    ['ip:10.1.2.3/8', cidr('10.0.0.0', 8, 4)],
    ['ip:0.0.0.0/0', cidr('0.0.0.0', 0, 4)],
    ['ip:1.2.3.4/32', cidr('1.2.3.4', 32, 4)],
    ['ip:2001:DB8::1', exact('ip', '2001:db8::1')],
    ['ip:2001:0db8:0000:0000:0001:0000:0000:0001', exact('ip', '2001:db8::1:0:0:1')],
    ['ip:1:0:0:2:0:0:0:3', exact('ip', '1:0:0:2::3')],
    ['ip:1:0:2:3:4:5:6:7', exact('ip', '1:0:2:3:4:5:6:7')],
    ['ip:0:0:0:0:0:0:0:0', exact('ip', '::')],
    ['ip:::1', exact('ip', '::1')],
    ['ip:::FFFF:1.2.3.4', exact('ip', '::ffff:1.2.3.4')],
    ['ip:64:ff9b::1.2.3.4', exact('ip', '64:ff9b::102:304')],
    ['ip:2001:db8::/32', cidr('2001:db8::', 32, 6)],
    ['ip:2001:db8:ffff::1/33', cidr('2001:db8:8000::', 33, 6)],
  ])('%s', (raw, expected) => {
    expect(parsed(raw)).toEqual(expected);
  });
});

describe('parseQuery: CVE and KEV selectors', () => {
  it.each<[string, unknown]>([
    ['cve:CVE-2021-44228', selector('cve', 'CVE-2021-44228')],
    ['cve:cve-2021-44228', selector('cve', 'CVE-2021-44228')],
    ['CVE:CVE-2024-1234567', selector('cve', 'CVE-2024-1234567')],
    ['cve:"CVE-2021-44228"', selector('cve', 'CVE-2021-44228')],
    ['cve:CVE-2021-*', selector('cve', 'CVE-2021-*')],
    ['cve:2021-*', selector('cve', 'CVE-2021-*')],
    ['cve:*', selector('cve', '*')],
    ['kev:true', selector('kev', 'true')],
    ['kev:FALSE', selector('kev', 'false')],
    ['cve:* AND kev:true port:443', and(selector('cve', '*'), selector('kev', 'true'), exact('port', 443))],
    ['-cve:*', not(selector('cve', '*'))],
  ])('%s', (raw, expected) => {
    expect(parsed(raw)).toEqual(expected);
  });

  it.each<[string, number]>([
    ['cve:nginx', 4],
    ['cve:CVE-20*1', 4],
    ['cve:CVE-2021-4*', 4],
    ['cve:CVE-*', 4],
    ['cve:20*', 4],
    ['cve:**', 4],
    ['cve:CVE-2021', 4],
    ['cve:CVE-2021-123', 4],
    ['cve:*2021*', 4],
    ['cve:"CVE-2021-*x"', 4],
    ['kev:*', 4],
    ['kev:maybe', 4],
    ['kev:1', 4],
    ['port:80 cve:log4j', 12],
  ])('refuses %s with invalid_cve_selector', (raw, position) => {
    const error = failure(raw);
    expect(error.code).toBe('invalid_cve_selector');
    expect(error.position).toBe(position);
  });

  it('names the accepted forms', () => {
    expect(failure('cve:nginx').message).toBe(
      'cve: takes a CVE identifier (CVE-2021-44228), a year prefix (CVE-2021-* or 2021-*) or *, got "nginx"',
    );
    expect(failure('kev:*').message).toBe('kev: takes true or false, got "*"');
  });

  it('refuses empty values, ranges and comparisons on selectors with invalid_cve_selector', () => {
    expect(failure('cve:')).toMatchObject({ code: 'invalid_cve_selector', position: 4 });
    expect(failure('kev: true')).toMatchObject({ code: 'invalid_cve_selector', position: 4 });
    expect(failure('cve:""')).toMatchObject({ code: 'invalid_cve_selector', position: 4 });
    expect(failure('cve:[2020 TO 2021]')).toMatchObject({
      code: 'invalid_cve_selector',
      message: 'cve: does not take a range or a comparison',
      position: 4,
    });
    expect(failure('kev:>0')).toMatchObject({ code: 'invalid_cve_selector', position: 4 });
  });
});

describe('parseQuery: operators and precedence', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((text) => bare(text));
  it.each<[string, unknown]>([
    ['a AND b', and(a, b)],
    ['a OR b', or(a, b)],
    ['NOT a', not(a)],
    ['-a', not(a)],
    ['a b', and(a, b)],
    ['a b c', and(a, b, c)],
    ['a AND b AND c', and(a, b, c)],
    ['a OR b OR c', or(a, b, c)],
    ['a AND (b AND c)', and(a, b, c)],
    ['(a b) c', and(a, b, c)],
    ['(a OR b) OR c', or(a, b, c)],
    ['a OR (b OR (c OR d))', or(a, b, c, d)],
    ['a AND (b OR c)', and(a, or(b, c))],
    ['a b OR c d', or(and(a, b), and(c, d))],
    ['a OR b c', or(a, and(b, c))],
    ['a AND b OR c', or(and(a, b), c)],
    ['a OR b AND c', or(a, and(b, c))],
    ['NOT a b', and(not(a), b)],
    ['NOT a OR b', or(not(a), b)],
    ['NOT (a OR b)', not(or(a, b))],
    ['-(a b)', not(and(a, b))],
    ['a -b', and(a, not(b))],
    ['a NOT b', and(a, not(b))],
    ['a OR NOT b', or(a, not(b))],
    ['NOT NOT a', not(not(a))],
    ['--a', not(not(a))],
    ['(a OR b) (c OR d)', and(or(a, b), or(c, d))],
    ['(a OR b) AND NOT (c OR d)', and(or(a, b), not(or(c, d)))],
    ['((a))', a],
    ['(a)AND(b)', and(a, b)],
    ['NOT(a)', not(a)],
    ['a and b', and(a, bare('and'), b)],
    ['a or b', and(a, bare('or'), b)],
    ['not a', and(bare('not'), a)],
    ['"AND" "OR"', and(bare('AND', true), bare('OR', true))],
    ['ANDROID ORACLE NOTE', and(bare('ANDROID'), bare('ORACLE'), bare('NOTE'))],
    ['a-b', bare('a-b')],
    ['toString constructor __proto__', and(bare('toString'), bare('constructor'), bare('__proto__'))],
    ['port:80 -port:443', and(exact('port', 80), not(exact('port', 443)))],
    ['-"two words"', not(bare('two words', true))],
    ['"a"b', and(bare('a', true), bare('b'))],
    [
      'product:nginx AND (port:80 OR port:443) NOT country:cn',
      and(exact('product', 'nginx'), or(exact('port', 80), exact('port', 443)), not(exact('country', 'cn'))),
    ],
  ])('%s', (raw, expected) => {
    expect(parsed(raw)).toEqual(expected);
  });
});

describe('parseQuery: bare inputs, whitespace and unicode', () => {
  it.each<[string, unknown]>([
    ['fe80::1', bare('fe80::1')],
    ['2001:db8::1', bare('2001:db8::1')],
    ['abcd:ef01::1', bare('abcd:ef01::1')],
    ['::1', bare('::1')],
    ['2001:db8::/32', bare('2001:db8::/32')],
    ['https://example.com/login', bare('https://example.com/login')],
    ['12:30', bare('12:30')],
    ['10.0.0.0/8', bare('10.0.0.0/8')],
    ['CVE-2021-44228', bare('CVE-2021-44228')],
    ['example.com', bare('example.com')],
    ['nginx*', bare('nginx*')],
    ['a\\:b', bare('a:b')],
    ['  port:80  ', exact('port', 80)],
    ['a\tb\nc', and(bare('a'), bare('b'), bare('c'))],
    ['a\u00a0b\u3000c', and(bare('a'), bare('b'), bare('c'))],
    ['café', bare('café')],
    ['日本語 テスト', and(bare('日本語'), bare('テスト'))],
    ['🚀', bare('🚀')],
    ['http.title:"Ünïcödé Straße"', field('http.title', { kind: 'contains', value: 'ünïcödé straße' })],
    ['http.title:"emoji 🚀 ok"', field('http.title', { kind: 'contains', value: 'emoji 🚀 ok' })],
    ['organization:Société', exact('organization', 'société')],
  ])('%j', (raw, expected) => {
    expect(parsed(raw)).toEqual(expected);
  });
});

describe('parseQuery: spans', () => {
  it('a field covers its name and value', () => {
    expect(parseQuery('port:80')).toEqual({
      kind: 'field',
      field: 'port',
      match: { kind: 'exact', value: 80 },
      span: { start: 0, end: 7 },
    });
    expect(parseQuery('http.title:"x y"').span).toEqual({ start: 0, end: 16 });
    expect(parseQuery('port:[80 TO 443]').span).toEqual({ start: 0, end: 16 });
    expect(parseQuery('cve:2021-*').span).toEqual({ start: 0, end: 10 });
  });

  it('positions count from the trimmed input', () => {
    expect(parseQuery('   a  b ')).toEqual({
      kind: 'and',
      children: [
        { kind: 'bare', text: 'a', quoted: false, span: { start: 0, end: 1 } },
        { kind: 'bare', text: 'b', quoted: false, span: { start: 3, end: 4 } },
      ],
      span: { start: 0, end: 4 },
    });
  });

  it('negations start at their operator; groups extend parents over their parentheses', () => {
    expect(parseQuery('NOT (a OR b)')).toEqual({
      kind: 'not',
      span: { start: 0, end: 12 },
      child: {
        kind: 'or',
        span: { start: 5, end: 11 },
        children: [
          { kind: 'bare', text: 'a', quoted: false, span: { start: 5, end: 6 } },
          { kind: 'bare', text: 'b', quoted: false, span: { start: 10, end: 11 } },
        ],
      },
    });
    const node = parseQuery('-port:22 (a b)');
    expect(node.span).toEqual({ start: 0, end: 14 });
    expect(node.kind === 'and' && node.children.map((child) => child.span)).toEqual([
      { start: 0, end: 8 },
      { start: 10, end: 11 },
      { start: 12, end: 13 },
    ]);
  });

  it('quoted phrases include their quotes; unicode positions are string indices', () => {
    expect(parseQuery('"x\\"y" z').span).toEqual({ start: 0, end: 8 });
    const node = parseQuery('🚀 é');
    expect(node.kind === 'and' && node.children.map((child) => child.span)).toEqual([
      { start: 0, end: 2 },
      { start: 3, end: 4 },
    ]);
  });
});

describe('parseQuery: refusals', () => {
  it.each<[string, string, number]>([
    ['', 'empty query', 0],
    ['   \t\n', 'empty query', 0],
    ['prot:80', 'unknown field "prot" (did you mean "port"?)', 0],
    ['a prot:80', 'unknown field "prot" (did you mean "port"?)', 2],
    ['hostname:x', 'unknown field "hostname" (did you mean "hostnames"?)', 0],
    ['title:x', 'unknown field "title" (did you mean "http.title"?)', 0],
    ['prodcut:x', 'unknown field "prodcut" (did you mean "product"?)', 0],
    ['zzzzzz:1', 'unknown field "zzzzzz"', 0],
    ['AND:1', 'unknown field "AND"', 0],
    ['constructor:1', 'unknown field "constructor"', 0],
    ['__proto__:1', 'unknown field "__proto__"', 0],
    [':foo', '":" needs a field name right before it', 0],
    ['port:abc', '"port" needs a number, got "abc"', 5],
    ['port:80.5', '"port" needs a number, got "80.5"', 5],
    ['port:1e3', '"port" needs a number, got "1e3"', 5],
    ['port:99999999999999999999', '"port" needs a number, got "99999999999999999999"', 5],
    ['port:', '"port" needs a value right after ":"', 5],
    ['port: 80', '"port" needs a value right after ":"', 5],
    ['(port:)', '"port" needs a value right after ":"', 6],
    ['port:(80 OR 443)', '"port:(…)" groups are not supported: write port:a OR port:b', 5],
    ['(a', 'expected ")" to close the parenthesis opened at 0', 2],
    ['a (b (c)', 'expected ")" to close the parenthesis opened at 2', 8],
    ['a)', 'unexpected ")" without a matching "("', 1],
    [')', 'unexpected ")" without a matching "("', 0],
    ['()', 'empty parentheses', 0],
    ['a ( )', 'empty parentheses', 2],
    ['a AND', 'AND needs a term on its right', 2],
    ['AND a', 'AND needs a term on its left', 0],
    ['a OR', 'OR needs a term on its right', 2],
    ['OR a', 'OR needs a term on its left', 0],
    ['a AND OR b', 'AND needs a term on its right', 2],
    ['a AND AND b', 'AND needs a term on its right', 2],
    ['(a OR)', 'OR needs a term on its right', 3],
    ['NOT', 'NOT needs a term on its right', 0],
    ['a NOT', 'NOT needs a term on its right', 2],
    ['NOT AND a', 'NOT needs a term on its right', 0],
    ['-', '"-" needs a term right after it', 0],
    ['a - b', '"-" needs a term right after it', 2],
    ['(a -)', '"-" needs a term right after it', 3],
    ['"abc', 'unterminated quote: the phrase opened at 0 needs a closing "', 0],
    ['http.title:"abc', 'unterminated quote: the phrase opened at 11 needs a closing "', 11],
    ['"abc\\"', 'unterminated quote: the phrase opened at 0 needs a closing "', 0],
    ['""', 'empty quoted phrase ""', 0],
    ['product:""', '"product" needs a value, "" is empty', 8],
    ['abc\\', '"\\" at the end of the query escapes nothing', 3],
    ['*', 'a bare "*" matches nothing specific: use field:value', 0],
    ['a **', 'a bare "*" matches nothing specific: use field:value', 2],
    ['product:*', '"product:*" would match any value: give a value or a prefix such as abc*', 8],
    ['product:ng*inx', 'wildcards are only allowed at the start or end of a value', 10],
    ['product:**nginx', 'wildcards are only allowed at the start or end of a value', 9],
    [
      'product:*nginx*',
      '"product" takes prefix (abc*) and suffix (*abc) wildcards; *abc* (contains) is only for text fields such as http.title and banner',
      8,
    ],
    ['port:80*', '"port" does not take wildcards', 5],
    ['last_seen:2026*', '"last_seen" does not take wildcards', 10],
    ['shared_edge:tru*', '"shared_edge" takes only true or false', 12],
    ['ip:10.0.*', '"ip" does not take wildcards: use a CIDR block such as 10.0.0.0/8', 3],
    ['ip:[1.2.3.4 TO 1.2.3.9]', '"ip" does not take a range: use a CIDR block such as 10.0.0.0/8', 3],
    ['ip:1.2.3', '"ip" needs an IP address or a CIDR block, got "1.2.3"', 3],
    ['ip:01.2.3.4', '"ip" needs an IP address or a CIDR block, got "01.2.3.4"', 3],
    ['ip:256.1.1.1', '"ip" needs an IP address or a CIDR block, got "256.1.1.1"', 3],
    ['ip:1::2::3', '"ip" needs an IP address or a CIDR block, got "1::2::3"', 3],
    ['ip:1:2:3:4:5:6:7:8:9', '"ip" needs an IP address or a CIDR block, got "1:2:3:4:5:6:7:8:9"', 3],
    ['ip:fe80::1%eth0', '"ip" needs an IP address or a CIDR block, got "fe80::1%eth0"', 3],
    ['ip:10.0.0.0/33', '"ip" needs an IP address or a CIDR block, got "10.0.0.0/33"', 3],
    ['ip:10.0.0.0/08', '"ip" needs an IP address or a CIDR block, got "10.0.0.0/08"', 3],
    ['ip:::/129', '"ip" needs an IP address or a CIDR block, got "::/129"', 3],
    ['product:[a TO b]', '"product" does not take a range (ranges are for numbers and dates)', 8],
    ['http.title:>a', '"http.title" is text: it does not take a range', 11],
    ['shared_edge:yes', '"shared_edge" needs true or false, got "yes"', 12],
    ['shared_edge:[true TO false]', '"shared_edge" takes only true or false', 12],
    [
      'last_seen:yesterday',
      '"last_seen" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "yesterday"',
      10,
    ],
    [
      'last_seen:2026-02-30',
      '"last_seen" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "2026-02-30"',
      10,
    ],
    [
      'last_seen:2026-1-5',
      '"last_seen" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "2026-1-5"',
      10,
    ],
    [
      'last_seen:2026-01-01T25:00:00Z',
      '"last_seen" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "2026-01-01T25:00:00Z"',
      10,
    ],
    [
      'last_seen:[2026-01-01 TO soon]',
      '"last_seen" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "soon"',
      10,
    ],
    ['port:[443 TO 80]', 'the range on "port" is empty: no value lies between its bounds', 5],
    ['port:{80 TO 80}', 'the range on "port" is empty: no value lies between its bounds', 5],
    ['port:{80 TO 81}', 'the range on "port" is empty: no value lies between its bounds', 5],
    ['port:[* TO *]', 'the range on "port" needs at least one bound', 5],
    ['port:[80 443]', 'expected "TO" between the bounds of the range opened at 5', 9],
    ['port:[80 to 443]', 'expected "TO" between the bounds of the range opened at 5', 9],
    ['port:[80TO443]', 'expected "TO" between the bounds of the range opened at 5', 13],
    ['port:[80 TO 443', 'expected "]" or "}" to close the range opened at 5', 15],
    ['(port:[80 TO 443)', 'expected "]" or "}" to close the range opened at 6', 16],
    ['port:[]', 'the range opened at 5 needs a lower bound', 6],
    ['port:[80 TO ]', 'the range opened at 5 needs an upper bound', 12],
    ['port:[80 TO]', 'the range opened at 5 needs an upper bound', 11],
    ['port:>', '">" needs a value right after it', 6],
    ['port:<= 80', '"<=" needs a value right after it', 7],
    ['port:>=abc', '"port" needs a number, got "abc"', 5],
  ])('%j → %s', (raw, message, position) => {
    const error = failure(raw);
    expect(error).toBeInstanceOf(QuerySyntaxError);
    expect(error.message).toBe(message);
    expect(error.position).toBe(position);
    expect(error.code).toBe('invalid_query');
  });
});

describe('parseQuery: limits and safety', () => {
  const nested = (depth: number) => `${'('.repeat(depth)}a${')'.repeat(depth)}`;

  it(`accepts ${MAX_QUERY_DEPTH} levels of parentheses and refuses one more`, () => {
    expect(parsed(nested(MAX_QUERY_DEPTH))).toEqual(bare('a'));
    expect(failure(nested(MAX_QUERY_DEPTH + 1))).toMatchObject({
      message: 'the query nests more than 32 levels deep',
      position: 32,
    });
  });

  it('negations count as nesting levels', () => {
    expect(failure(`${'NOT '.repeat(33)}a`)).toMatchObject({
      message: 'the query nests more than 32 levels deep',
      position: 128,
    });
    expect(failure(`${'-'.repeat(40)}a`)).toMatchObject({ position: 32 });
    expect(failure(`${'-'.repeat(1_000_000)}a`)).toMatchObject({ position: 32 });
    expect(failure('('.repeat(1_000_000))).toMatchObject({ position: 32 });
  });

  it(`accepts ${MAX_QUERY_TERMS} terms and refuses the next one at its position`, () => {
    const terms = (count: number) => Array.from({ length: count }, () => 'a').join(' ');
    const node = parseQuery(terms(MAX_QUERY_TERMS));
    expect(node.kind === 'and' && node.children).toHaveLength(MAX_QUERY_TERMS);
    expect(failure(terms(MAX_QUERY_TERMS + 1))).toMatchObject({
      message: 'the query has more than 64 terms',
      position: 128,
    });
    expect(failure(terms(100_000))).toMatchObject({ position: 128 });
  });

  it('long words and long unknown field names are handled without blowing up', () => {
    expect(parsed('x'.repeat(100_000))).toEqual(bare('x'.repeat(100_000)));
    const error = failure(`${'a'.repeat(100_000)}:1`);
    expect(error.message).toBe(`unknown field "${'a'.repeat(40)}…"`);
    expect(error.position).toBe(0);
  });

  it('any input parses or is refused with a QuerySyntaxError inside the text', () => {
    const pieces = fc.constantFrom(
      '(',
      ')',
      ' ',
      'AND',
      'OR',
      'NOT',
      '-',
      '"',
      '\\',
      '*',
      ':',
      '[',
      ']',
      '{',
      '}',
      'TO',
      '>=',
      '<',
      'a',
      'port:',
      'ip:',
      'cve:',
      'kev:',
      'http.title:',
      '80',
      '2026-01-01',
      '1.2.3.4',
      '::1',
      'é',
      '🚀',
    );
    const check = (raw: string) => {
      try {
        parseQuery(raw);
      } catch (error) {
        expect(error).toBeInstanceOf(QuerySyntaxError);
        const { position } = error as QuerySyntaxError;
        expect(position).toBeGreaterThanOrEqual(0);
        expect(position).toBeLessThanOrEqual(raw.trim().length);
      }
    };
    fc.assert(
      fc.property(
        fc.array(pieces, { maxLength: 40 }).map((parts) => parts.join('')),
        check,
      ),
      {
        numRuns: 2000,
      },
    );
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), check), { numRuns: 1000 });
  });
});

describe('field suggestions', () => {
  it('counts adjacent transpositions as one edit', () => {
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest name, a dotted name ending in the input, or nothing', () => {
    expect(suggestField('prot')).toBe('port');
    expect(suggestField('Registar')).toBe('registrar');
    expect(suggestField('server')).toBe('http.server');
    expect(suggestField('cvee')).toBe('cve');
    expect(suggestField('qqqq')).toBeUndefined();
  });
});
