/**
 * The hostile input classes a black-box review found (issue 13): NUL and lone UTF-16 surrogates in any string,
 * JSON nested thousands of levels deep, NUL in a path segment, invalid percent-encoding, over-long path
 * segments, wrong or missing content types, and a few neighbours of each.
 */
import fc from 'fast-check';

/** Characters PostgreSQL text/jsonb or UTF-8 encoders choke on, or that are merely unusual. */
const HOSTILE_CHARACTERS: ReadonlyArray<readonly [kind: HostileKind, characters: readonly string[]]> = [
  ['nul', ['\u0000']],
  ['lone-surrogate', ['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uDC00\uD800']],
  ['control', ['\u0001', '\u001B', '\u007F', '\r\n', '\u2028']],
  ['noncharacter', ['\uFFFE', '\uFFFF', '\uFEFF']],
];

export type HostileKind = 'nul' | 'lone-surrogate' | 'control' | 'noncharacter';

/**
 * A hostile character of that kind at the start, middle or end of a string (or alone). The base is a valid
 * value of the field (a real id, a real query) most of the time, so the fault reaches past the validation that
 * a random string would already fail.
 */
export function hostileString(
  kind: HostileKind,
  base: fc.Arbitrary<string> = fc.string({ maxLength: 12 }),
): fc.Arbitrary<string> {
  const characters = HOSTILE_CHARACTERS.find(([name]) => name === kind)?.[1];
  if (!characters) throw new Error(`no hostile class ${kind}`);
  return fc
    .tuple(fc.constantFrom(...characters), base, fc.constantFrom('start', 'middle', 'end', 'alone'))
    .map(([character, text, where]) => {
      if (where === 'alone') return character;
      if (where === 'start') return character + text;
      if (where === 'end') return text + character;
      // Split between code points: splitting a surrogate pair would add a second, unnamed fault.
      const points = Array.from(text);
      const middle = Math.floor(points.length / 2);
      return points.slice(0, middle).join('') + character + points.slice(middle).join('');
    });
}

/**
 * The same, as it travels in a URL (path segment or query value): NUL is `%00`; a lone surrogate cannot be
 * percent-encoded as UTF-8, so it goes as the bytes a WTF-8 encoder writes (`%ED%A0%80`), which a strict UTF-8
 * decoder refuses.
 */
export function hostileUrlComponent(kind: HostileKind, base?: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return hostileString(kind, base).map(wtf8PercentEncode);
}

/** Percent-encodes a string as UTF-8, writing lone surrogates as their 3-byte (WTF-8) form. */
export function wtf8PercentEncode(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(value.slice(i, i + 2));
      i += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(value[i]!);
    }
  }
  return out;
}

/** Percent-sequences that are not valid percent-encoding, or decode to invalid UTF-8. */
export const INVALID_PERCENT_ENCODINGS: readonly string[] = [
  '%',
  '%%',
  '%zz',
  'a%2',
  '%E0%A4%A',
  '%C0%80',
  '%C3%28',
  '%FF',
  '%80',
  '%F4%90%80%80',
  '%uD800',
];

/** Segment lengths past the router's parameter limit (100), up to past Node's header limit (16 KiB). */
export const OVERLONG_SEGMENT_LENGTHS: readonly number[] = [101, 257, 1025, 8193, 20_000];

/** A JSON text nested `depth` levels deep (arrays, objects or both), written directly: no stringify recursion. */
export function deepJson(depth: number, shape: 'array' | 'object' | 'mixed'): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let level = 0; level < depth; level++) {
    const object = shape === 'object' || (shape === 'mixed' && level % 2 === 1);
    open.push(object ? '{"a":' : '[');
    close.push(object ? '}' : ']');
  }
  return `${open.join('')}1${close.reverse().join('')}`;
}

/** 2,000 array levels still fit a 4 KiB body limit (the search routes). */
export const DEEP_JSON_DEPTHS: readonly number[] = [100, 1_000, 2_000, 5_000, 20_000, 100_000];

/** Bodies that are not valid JSON, or JSON that tests the parser's corners. */
export const MALFORMED_JSON_BODIES: readonly string[] = [
  '{',
  '{"a":}',
  "{'a':1}",
  '{"a":1,}',
  '{"a":1}{"b":2}',
  '[1,2',
  'nul',
  '\u0000',
  '{"a":"\\u00"}',
  '{"a":"\\ud800"}',
  '{"a":1e999999}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '\uFEFF{}',
  ' ',
];

/** JSON bodies that are valid JSON but not an object. */
export const NON_OBJECT_BODIES: readonly string[] = ['null', '[]', '[{}]', '"text"', '0', 'true', '""'];

/** Content types that are not JSON, or are JSON spelled in ways a parser may not expect. */
export const WRONG_CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/jsonx',
  'application/json-patch+json',
  'APPLICATION/JSON',
  'application/json;;',
  '*/*',
  'garbage',
];

/** Query parameter names a route may read without documenting them (plus a random one). */
export const COMMON_QUERY_NAMES: readonly string[] = [
  'offset',
  'limit',
  'page',
  'cursor',
  'as_of',
  'group_by',
  'q',
  'sort',
  'status',
  'format',
  'include',
];
