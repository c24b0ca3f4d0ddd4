/**
 * CPE 2.3 formatted strings (NISTIR 7695 §6.2): `cpe:2.3:part:vendor:product:version:update:edition:language:
 * sw_edition:target_sw:target_hw:other`. Values are kept in their formatted form with escapes resolved and
 * lower-cased (CPE matching is case-insensitive); `*` is ANY and `-` is NA. An unquoted `*` or `?` inside a
 * value is a wildcard (only meaningful in match criteria).
 */
export const CPE_ATTRIBUTES = [
  'part',
  'vendor',
  'product',
  'version',
  'update',
  'edition',
  'language',
  'sw_edition',
  'target_sw',
  'target_hw',
  'other',
] as const;
export type CpeAttribute = (typeof CPE_ATTRIBUTES)[number];

export const ANY = Symbol('ANY');
export const NA = Symbol('NA');

/** A value: ANY, NA, or a literal (escapes resolved) that may hold wildcards (`hasWildcards`). */
export type CpeValue = typeof ANY | typeof NA | { readonly text: string; readonly pattern: RegExp | null };

export interface Cpe {
  readonly part: 'a' | 'o' | 'h' | typeof ANY;
  readonly values: Readonly<Record<CpeAttribute, CpeValue>>;
  /** The string as given. */
  readonly raw: string;
}

export class InvalidCpeError extends Error {
  override readonly name = 'InvalidCpeError';
}

const PREFIX = 'cpe:2.3:';

/** Splits on unescaped `:`; keeps escapes for the value parser. */
function splitComponents(body: string): string[] {
  if (!body.includes('\\')) return body.split(':');
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '\\') {
      if (i + 1 >= body.length) throw new InvalidCpeError('a trailing backslash escapes nothing');
      current += ch + body[i + 1]!;
      i++;
    } else if (ch === ':') {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function parseValue(component: string, attribute: CpeAttribute): CpeValue {
  if (component === '*') return ANY;
  if (component === '-') return NA;
  if (component === '') throw new InvalidCpeError(`${attribute} is empty`);
  // Most values are plain (no escape, no wildcard): no pattern to build, one lower-casing.
  if (PLAIN_VALUE.test(component)) return { text: component.toLowerCase(), pattern: null };
  let text = '';
  let regex = '';
  let wild = false;
  for (let i = 0; i < component.length; i++) {
    const ch = component[i]!;
    if (ch === '\\') {
      const next = component[++i]!;
      text += next;
      regex += escapeRegex(next.toLowerCase());
    } else if (ch === '*' || ch === '?') {
      // Unquoted wildcards: `*` any run, `?` one character (at the ends only, by the spec; accepted anywhere).
      wild = true;
      text += ch;
      regex += ch === '*' ? '.*' : '.';
    } else {
      if (/\s/.test(ch)) throw new InvalidCpeError(`${attribute} holds whitespace`);
      text += ch;
      regex += escapeRegex(ch.toLowerCase());
    }
  }
  const lower = text.toLowerCase();
  return { text: lower, pattern: wild ? new RegExp(`^${regex}$`) : null };
}

/** A value without escapes, wildcards or whitespace: its text is itself, lower-cased. */
const PLAIN_VALUE = /^[^\\*?\s]+$/;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function parseCpe(raw: string): Cpe {
  if (typeof raw !== 'string') throw new InvalidCpeError('a CPE must be a string');
  if (raw.length > 1024) throw new InvalidCpeError('a CPE is at most 1024 characters');
  if (!raw.toLowerCase().startsWith(PREFIX))
    throw new InvalidCpeError('a CPE 2.3 formatted string starts with "cpe:2.3:"');
  const components = splitComponents(raw.slice(PREFIX.length));
  if (components.length !== CPE_ATTRIBUTES.length)
    throw new InvalidCpeError(
      `a CPE 2.3 formatted string has ${CPE_ATTRIBUTES.length} components after "cpe:2.3:", got ${components.length}`,
    );
  const values = {} as Record<CpeAttribute, CpeValue>;
  CPE_ATTRIBUTES.forEach((attribute, i) => {
    values[attribute] = parseValue(components[i]!, attribute);
  });
  const part = values.part;
  if (part === NA || (part !== ANY && !['a', 'o', 'h'].includes(part.text)))
    throw new InvalidCpeError('part must be a, o, h or *');
  return { part: part === ANY ? ANY : (part.text as 'a' | 'o' | 'h'), values, raw };
}

export function tryParseCpe(raw: string): Cpe | null {
  try {
    return parseCpe(raw);
  } catch {
    return null;
  }
}

/** The literal text of a value (null for ANY/NA): vendor, product, version as shown to users. */
export function literal(value: CpeValue): string | null {
  return typeof value === 'symbol' ? null : value.text;
}

/** `vendor:product`, the key advisories are indexed by (null when either is not a literal). */
export function productKey(cpe: Cpe): string | null {
  const vendor = cpe.values.vendor;
  const product = cpe.values.product;
  if (typeof vendor === 'symbol' || typeof product === 'symbol') return null;
  if (vendor.pattern || product.pattern) return null;
  return `${vendor.text}:${product.text}`;
}

/**
 * Attribute comparison of a match criterion (source) with an observed name (target), per the CPE name matching
 * specification (NISTIR 7696), reduced to a yes / no / unknown answer:
 * - source ANY matches anything; source NA matches NA only;
 * - a literal matches an equal literal (or its wildcard pattern);
 * - a target ANY (the observation does not say) against a specific source is unknown.
 */
export function attributeMatches(source: CpeValue, target: CpeValue): boolean | 'unknown' {
  if (source === ANY) return true;
  if (target === ANY) return 'unknown';
  if (source === NA) return target === NA;
  if (target === NA) return false;
  if (source.pattern) return source.pattern.test(target.text);
  return source.text === target.text;
}
