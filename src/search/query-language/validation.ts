import { fieldNamed, type Dataset, type FieldDefinition } from '../domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from './ast.js';

/**
 * Per-dataset validation and value normalization of the query AST. Pure: no I/O, no clock.
 *
 * Applicability rule (one rule, no partial rewriting): a dataset applies to a query only when every field and
 * selector in the query belongs to it. If any does not, `validateFor` throws a QuerySyntaxError (invalid_query)
 * for that dataset alone; the caller reports `invalid_query` in that dataset's state and runs the others. An
 * AND/OR mixing fields of two datasets means nothing for either, so it never silently drops a branch: dropping
 * a branch under NOT or OR would widen the result and present it as a match of the query.
 *
 * Bare words pass through untouched (interpretation.ts replaces them, before or after this function).
 */

/** Catalogue selectors: not vocabulary fields, accepted on hosts observations only. */
export type SelectorName = 'cve' | 'kev';

export function isSelectorField(name: string): name is SelectorName {
  return name === 'cve' || name === 'kev';
}

/**
 * Keyword fields whose values can be addresses: an exact address is canonicalized (RFC 5952) so that it compares
 * with stored canonical values. They take no CIDR block: the observation index port accepts `cidr` on ip fields
 * only (MATCH_KINDS_BY_TYPE), so `value:10.0.0.0/8` is the literal text and a bare CIDR does not apply to dns.
 */
const ADDRESS_KEYWORDS: ReadonlySet<string> = new Set(['value']);

const DATASET_NOUN: Readonly<Record<Dataset, string>> = {
  hosts: 'hosts observations',
  dns: 'dns records',
  vhosts: 'vhosts certificates',
  whois: 'whois registrations',
};

export function datasetNoun(dataset: Dataset): string {
  return DATASET_NOUN[dataset];
}

/**
 * Checks `ast` against `dataset`'s vocabulary and returns a new AST whose `field` nodes carry normalized values.
 * Throws QuerySyntaxError (invalid_query, or invalid_cve_selector for a malformed selector) when the query does
 * not apply to the dataset or a value is invalid. Idempotent: validating its own output returns an equal AST.
 */
export function validateFor(ast: QueryNode, dataset: Dataset): QueryNode {
  switch (ast.kind) {
    case 'and':
    case 'or':
      return {
        kind: ast.kind,
        children: ast.children.map((child) => validateFor(child, dataset)),
        span: ast.span,
      };
    case 'not':
      return { kind: 'not', child: validateFor(ast.child, dataset), span: ast.span };
    case 'bare':
      return ast;
    case 'none':
      throw new QuerySyntaxError(ast.reason, ast.span.start);
    case 'selector': {
      if (dataset !== 'hosts') {
        throw new QuerySyntaxError(
          `${ast.selector}: selectors apply to hosts observations only, so this query does not apply to ${datasetNoun(dataset)}`,
          ast.span.start,
        );
      }
      return { ...ast, value: normalizeSelector(ast.selector, ast.value, ast.span.start) };
    }
    case 'field': {
      const definition = fieldNamed(ast.field);
      if (!definition) throw new QuerySyntaxError(`unknown field "${ast.field}"`, ast.span.start);
      if (!definition.datasets.includes(dataset)) {
        throw new QuerySyntaxError(
          `"${ast.field}" is not a field of ${datasetNoun(dataset)} (it belongs to ${definition.datasets.join(', ')}), so this query does not apply to ${dataset}`,
          ast.span.start,
        );
      }
      return { ...ast, match: normalizeMatch(definition, ast.match, ast.span.start) };
    }
  }
}

/**
 * Validates a `cve:` or `kev:` value and returns its normal form. Accepted: `cve:CVE-2021-44228` (upper-cased),
 * `cve:CVE-2021-*` and `cve:2021-*` (both become `CVE-2021-*`), `cve:*`, `kev:true`, `kev:false`. Anything else
 * throws with code invalid_cve_selector.
 */
export function normalizeSelector(selector: SelectorName, raw: string, position: number): string {
  const value = raw.trim();
  if (selector === 'kev') {
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === 'false') return lower;
    throw new QuerySyntaxError(
      `kev: takes true or false, got "${clip(raw)}"`,
      position,
      'invalid_cve_selector',
    );
  }
  if (value === '*') return '*';
  const upper = value.toUpperCase();
  if (/^CVE-\d{4}-\d{4,}$/.test(upper)) return upper;
  const year = /^(?:CVE-)?(\d{4})-\*$/.exec(upper);
  if (year) return `CVE-${year[1]}-*`;
  throw new QuerySyntaxError(
    `cve: takes a CVE identifier (CVE-2021-44228), a year prefix (CVE-2021-* or 2021-*) or *, got "${clip(raw)}"`,
    position,
    'invalid_cve_selector',
  );
}

/**
 * Normalizes what a field is compared with for the field's type, or throws QuerySyntaxError at `position`.
 * - keyword: exact, prefix, suffix or contains (contains comes from interpretation; the parser refuses `*x*` on
 *   keywords); lowercased when the field is case-insensitive; no ranges, no CIDR blocks. An exact address on dns
 *   `value` is canonicalized.
 * - text: every form becomes a lowercased `contains`; no ranges.
 * - integer: whole numbers (safe integers), exact or range; no wildcards.
 * - date: `YYYY-MM-DD` or ISO 8601 date-time (UTC when no offset), normalized to `YYYY-MM-DDTHH:MM:SS.sssZ`. A
 *   date without time means the whole UTC day: `d` → [d, d+1), `>d` → >= d+1, `<=d` → < d+1.
 * - ip: an IPv4 or IPv6 address (RFC 5952 canonical form) or a CIDR block (host bits masked); no wildcards, no
 *   ranges.
 * - boolean: true or false.
 */
export function normalizeMatch(definition: FieldDefinition, match: Match, position: number): Match {
  const name = definition.name;
  switch (definition.type) {
    case 'integer':
      return normalizeOrdered(name, match, position, (value) => toInteger(name, value, position));
    case 'date':
      return normalizeDate(name, match, position);
    case 'ip':
      return normalizeIpMatch(name, match, position);
    case 'boolean': {
      if (match.kind !== 'exact') throw new QuerySyntaxError(`"${name}" takes only true or false`, position);
      const value = String(match.value).toLowerCase();
      if (value !== 'true' && value !== 'false') {
        throw new QuerySyntaxError(
          `"${name}" needs true or false, got "${clip(String(match.value))}"`,
          position,
        );
      }
      return { kind: 'exact', value: value === 'true' };
    }
    case 'text': {
      if (match.kind === 'range' || match.kind === 'cidr') {
        throw new QuerySyntaxError(`"${name}" is text: it does not take a ${match.kind}`, position);
      }
      return { kind: 'contains', value: nonEmpty(name, String(match.value), position).toLowerCase() };
    }
    case 'keyword':
      return normalizeKeyword(definition, match, position);
  }
}

function normalizeKeyword(definition: FieldDefinition, match: Match, position: number): Match {
  const name = definition.name;
  const fold = (value: string) => (definition.caseInsensitive ? value.toLowerCase() : value);
  switch (match.kind) {
    case 'range':
      throw new QuerySyntaxError(
        `"${name}" does not take a range (ranges are for numbers and dates)`,
        position,
      );
    case 'cidr':
      throw new QuerySyntaxError(`"${name}" does not take a CIDR block`, position);
    case 'exact': {
      const value = nonEmpty(name, String(match.value), position);
      if (ADDRESS_KEYWORDS.has(name)) {
        const address = parseIp(value);
        if (address) return { kind: 'exact', value: formatIp(address) };
      }
      return { kind: 'exact', value: fold(value) };
    }
    case 'prefix':
    case 'suffix':
    case 'contains':
      return { kind: match.kind, value: fold(nonEmpty(name, match.value, position)) };
  }
}

type Bound = { readonly value: number | string; readonly inclusive: boolean };

function normalizeOrdered(
  name: string,
  match: Match,
  position: number,
  convert: (value: number | string | boolean) => number | string,
): Match {
  switch (match.kind) {
    case 'exact':
      return { kind: 'exact', value: convert(match.value) };
    case 'range': {
      const lower = match.lower
        ? { value: convert(match.lower.value), inclusive: match.lower.inclusive }
        : undefined;
      const upper = match.upper
        ? { value: convert(match.upper.value), inclusive: match.upper.inclusive }
        : undefined;
      return checkedRange(name, lower, upper, position);
    }
    default:
      throw new QuerySyntaxError(wildcardRefusal(name, match), position);
  }
}

function checkedRange(
  name: string,
  lower: Bound | undefined,
  upper: Bound | undefined,
  position: number,
): Match {
  if (!lower && !upper)
    throw new QuerySyntaxError(`the range on "${name}" needs at least one bound`, position);
  if (lower && upper) {
    const order = lower.value < upper.value ? -1 : lower.value > upper.value ? 1 : 0;
    const noIntegerBetween =
      typeof lower.value === 'number' &&
      typeof upper.value === 'number' &&
      !lower.inclusive &&
      !upper.inclusive &&
      upper.value - lower.value <= 1;
    if (order > 0 || (order === 0 && !(lower.inclusive && upper.inclusive)) || noIntegerBetween) {
      throw new QuerySyntaxError(
        `the range on "${name}" is empty: no value lies between its bounds`,
        position,
      );
    }
  }
  return { kind: 'range', ...(lower ? { lower } : {}), ...(upper ? { upper } : {}) };
}

function wildcardRefusal(name: string, match: Match): string {
  if (match.kind === 'cidr') return `"${name}" does not take a CIDR block`;
  return `"${name}" does not take wildcards`;
}

function toInteger(name: string, value: number | string | boolean, position: number): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const text = String(value).trim();
  if (/^-?\d+$/.test(text)) {
    const parsed = Number(text);
    if (Number.isSafeInteger(parsed)) return parsed === 0 ? 0 : parsed;
  }
  throw new QuerySyntaxError(`"${name}" needs a number, got "${clip(String(value))}"`, position);
}

// ---- dates -------------------------------------------------------------------------------------------------

const DAY_MS = 86_400_000;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

/** A parsed date: epoch milliseconds and whether it was a calendar day without a time. */
export interface ParsedDate {
  readonly ms: number;
  readonly dayOnly: boolean;
}

/** Parses `YYYY-MM-DD` or an ISO 8601 date-time (`Z`, `±HH:MM` or no offset = UTC); undefined when invalid. */
export function parseDate(text: string): ParsedDate | undefined {
  const day = DATE_ONLY.exec(text);
  if (day) {
    const ms = utc(Number(day[1]), Number(day[2]), Number(day[3]), 0, 0, 0, 0);
    return ms === undefined ? undefined : { ms, dayOnly: true };
  }
  const full = DATE_TIME.exec(text);
  if (!full) return undefined;
  const [, y, mo, d, h, mi, s, fraction, , sign, oh, om] = full;
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const local = utc(Number(y), Number(mo), Number(d), Number(h), Number(mi), s ? Number(s) : 0, millis);
  if (local === undefined) return undefined;
  let offset = 0;
  if (sign) {
    const hours = Number(oh);
    const minutes = Number(om);
    if (hours > 23 || minutes > 59) return undefined;
    offset = (sign === '-' ? -1 : 1) * (hours * 60 + minutes) * 60_000;
  }
  const ms = local - offset;
  return inRange(ms) ? { ms, dayOnly: false } : undefined;
}

function utc(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
): number | undefined {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, ms);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return undefined;
  const time = date.getTime();
  return inRange(time) ? time : undefined;
}

const MIN_MS = Date.UTC(1000, 0, 1);
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function inRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_MS && ms <= MAX_MS;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function normalizeDate(name: string, match: Match, position: number): Match {
  const parse = (value: number | string | boolean): ParsedDate => {
    const parsed = typeof value === 'string' ? parseDate(value.trim()) : undefined;
    if (!parsed) {
      throw new QuerySyntaxError(
        `"${name}" needs a date (YYYY-MM-DD or an ISO 8601 date-time), got "${clip(String(value))}"`,
        position,
      );
    }
    return parsed;
  };
  switch (match.kind) {
    case 'exact': {
      const date = parse(match.value);
      if (!date.dayOnly) return { kind: 'exact', value: iso(date.ms) };
      return checkedRange(
        name,
        { value: iso(date.ms), inclusive: true },
        { value: iso(date.ms + DAY_MS), inclusive: false },
        position,
      );
    }
    case 'range': {
      let lower: Bound | undefined;
      let upper: Bound | undefined;
      if (match.lower) {
        const date = parse(match.lower.value);
        lower =
          date.dayOnly && !match.lower.inclusive
            ? { value: iso(date.ms + DAY_MS), inclusive: true }
            : { value: iso(date.ms), inclusive: match.lower.inclusive };
      }
      if (match.upper) {
        const date = parse(match.upper.value);
        upper =
          date.dayOnly && match.upper.inclusive
            ? { value: iso(date.ms + DAY_MS), inclusive: false }
            : { value: iso(date.ms), inclusive: match.upper.inclusive };
      }
      return checkedRange(name, lower, upper, position);
    }
    default:
      throw new QuerySyntaxError(wildcardRefusal(name, match), position);
  }
}

// ---- addresses ---------------------------------------------------------------------------------------------

export interface ParsedIp {
  readonly family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  readonly bytes: readonly number[];
}

export interface CidrBlock {
  readonly network: string;
  readonly prefixLength: number;
  readonly family: 4 | 6;
}

/** Strict dotted-quad IPv4 (no leading zeros) or IPv6 (with `::` and an optional trailing IPv4); no zone ids. */
export function parseIp(text: string): ParsedIp | undefined {
  if (text.length > 45) return undefined;
  const v4 = parseIpv4(text);
  if (v4) return { family: 4, bytes: v4 };
  const v6 = parseIpv6(text);
  return v6 ? { family: 6, bytes: v6 } : undefined;
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const part of parts) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return bytes;
}

function parseIpv6(text: string): number[] | undefined {
  if (!/^[0-9A-Fa-f:.]+$/.test(text) || !text.includes(':')) return undefined;
  const gap = text.indexOf('::');
  if (gap !== -1 && text.indexOf('::', gap + 1) !== -1) return undefined;
  const split = (part: string) => (part === '' ? [] : part.split(':'));
  const head = gap === -1 ? split(text) : split(text.slice(0, gap));
  const tail = gap === -1 ? [] : split(text.slice(gap + 2));
  const groups = (parts: string[], last: boolean): number[] | undefined => {
    const out: number[] = [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      if (part.includes('.')) {
        if (!last || i !== parts.length - 1) return undefined;
        const v4 = parseIpv4(part);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(part)) return undefined;
        out.push(parseInt(part, 16));
      }
    }
    return out;
  };
  const first = groups(head, gap === -1);
  const second = groups(tail, true);
  if (!first || !second) return undefined;
  let all: number[];
  if (gap === -1) {
    if (first.length !== 8) return undefined;
    all = first;
  } else {
    const missing = 8 - first.length - second.length;
    if (missing < 1) return undefined;
    all = [...first, ...new Array<number>(missing).fill(0), ...second];
  }
  return all.flatMap((group) => [group >> 8, group & 0xff]);
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lowercase, longest zero run compressed, `::ffff:a.b.c.d`). */
export function formatIp(ip: ParsedIp): string {
  const b = ip.bytes;
  if (ip.family === 4) return b.join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${b.slice(12).join('.')}`;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** `address/length`, host bits masked: `10.1.2.3/8` → network `10.0.0.0`, prefixLength 8. */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf('/');
  if (slash === -1 || text.indexOf('/', slash + 1) !== -1) return undefined;
  const length = text.slice(slash + 1);
  if (!/^(?:0|[1-9]\d{0,2})$/.test(length)) return undefined;
  const ip = parseIp(text.slice(0, slash));
  if (!ip) return undefined;
  const prefixLength = Number(length);
  if (prefixLength > ip.bytes.length * 8) return undefined;
  const bytes = ip.bytes.map((byte, index) => {
    const keep = Math.max(0, Math.min(8, prefixLength - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return { network: formatIp({ family: ip.family, bytes }), prefixLength, family: ip.family };
}

function normalizeIpMatch(name: string, match: Match, position: number): Match {
  switch (match.kind) {
    case 'exact': {
      const text = String(match.value).trim();
      if (text.includes('/')) {
        const block = parseCidr(text);
        if (block) return { kind: 'cidr', ...block };
      } else {
        const ip = parseIp(text);
        if (ip) return { kind: 'exact', value: formatIp(ip) };
      }
      throw new QuerySyntaxError(
        `"${name}" needs an IP address or a CIDR block, got "${clip(text)}"`,
        position,
      );
    }
    case 'cidr':
      return checkedCidr(name, match, position);
    case 'range':
      throw new QuerySyntaxError(
        `"${name}" does not take a range: use a CIDR block such as 10.0.0.0/8`,
        position,
      );
    default:
      throw new QuerySyntaxError(
        `"${name}" does not take wildcards: use a CIDR block such as 10.0.0.0/8`,
        position,
      );
  }
}

function checkedCidr(name: string, match: Extract<Match, { kind: 'cidr' }>, position: number): Match {
  const block = parseCidr(`${match.network}/${match.prefixLength}`);
  if (!block || block.family !== match.family) {
    throw new QuerySyntaxError(
      `"${name}" has an invalid CIDR block ${match.network}/${match.prefixLength}`,
      position,
    );
  }
  return { kind: 'cidr', ...block };
}

// ---- helpers -----------------------------------------------------------------------------------------------

function nonEmpty(name: string, value: string, position: number): string {
  if (value === '') throw new QuerySyntaxError(`"${name}" needs a value`, position);
  return value;
}

/** Keeps echoed input short in messages. */
export function clip(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
