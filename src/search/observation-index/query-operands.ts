/**
 * How every adapter reads query operands: keyword case folding, integers, integer and date ranges, instants,
 * IP addresses and CIDR blocks.
 */
import { isIP } from 'node:net';
import type { FieldDefinition } from '../domain/datasets.js';
import { type Match, QuerySyntaxError } from '../query-language/ast.js';

export const HOUR_MS = 3_600_000;

/** How keyword values are compared: lowercased (JavaScript toLowerCase) for case-insensitive fields. */
export function keywordValue(field: FieldDefinition, value: string): string {
  return field.caseInsensitive ? value.toLowerCase() : value;
}

/** An exact keyword operand (numbers and booleans compare as their text). */
export function exactKeyword(field: FieldDefinition, value: string | number | boolean): string {
  return keywordValue(field, String(value));
}

/** An exact integer operand; null when the value is no integer (then nothing matches). */
export function exactInteger(value: string | number | boolean, position: number): number | null {
  const number =
    typeof value === 'number' ? value : typeof value === 'string' && value.trim() ? Number(value) : NaN;
  if (!Number.isFinite(number)) throw new QuerySyntaxError(`${String(value)} is not a number`, position);
  return Number.isSafeInteger(number) ? number : null;
}

export function exactBoolean(value: string | number | boolean, position: number): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new QuerySyntaxError(`${String(value)} is not true or false`, position);
}

/** An integer range with inclusive bounds (exclusive and fractional bounds are rounded inward). */
export type IntegerRange = { readonly gte?: number; readonly lte?: number } | 'empty';

export function integerRange(match: Extract<Match, { kind: 'range' }>, position: number): IntegerRange {
  const bound = (value: number | string): number => {
    const number = typeof value === 'number' ? value : Number(value);
    if (!Number.isFinite(number)) throw new QuerySyntaxError(`${String(value)} is not a number`, position);
    return number;
  };
  let gte: number | undefined;
  let lte: number | undefined;
  if (match.lower) {
    const value = bound(match.lower.value);
    gte = match.lower.inclusive ? Math.ceil(value) : Math.floor(value) + 1;
  }
  if (match.upper) {
    const value = bound(match.upper.value);
    lte = match.upper.inclusive ? Math.floor(value) : Math.ceil(value) - 1;
  }
  if (gte !== undefined && lte !== undefined && gte > lte) return 'empty';
  // Beyond the safe integers nothing is stored: clamp, so that the bound stays a valid bigint.
  if (gte !== undefined && gte > Number.MAX_SAFE_INTEGER) return 'empty';
  if (lte !== undefined && lte < Number.MIN_SAFE_INTEGER) return 'empty';
  return {
    ...(gte !== undefined && gte > Number.MIN_SAFE_INTEGER ? { gte } : {}),
    ...(lte !== undefined && lte < Number.MAX_SAFE_INTEGER ? { lte } : {}),
  };
}

export const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
export const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * A date or date-time as an instant: `YYYY-MM-DD` is midnight UTC, a date-time without an offset is UTC.
 * Returns undefined for anything else.
 */
export function parseInstant(
  value: string,
): { readonly iso: string; readonly dateOnly: boolean } | undefined {
  const day = DATE_ONLY.exec(value);
  if (day) {
    const time = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const iso = new Date(time).toISOString();
    // Rejects 2025-02-30 and friends, which Date.UTC would roll over.
    return iso.startsWith(value) ? { iso, dateOnly: true } : undefined;
  }
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [, year, month, date, hours, minutes, seconds = '00', fraction = '', zone] = match;
  const millis = fraction ? fraction.slice(1, 4).padEnd(3, '0') : '000';
  const offset =
    !zone || zone.toUpperCase() === 'Z'
      ? 'Z'
      : zone.includes(':')
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const text = `${year}-${month}-${date}T${hours}:${minutes}:${seconds}.${millis}${offset}`;
  const time = Date.parse(text);
  if (Number.isNaN(time) || Number(month) > 12 || Number(date) > 31 || Number(hours) > 23) return undefined;
  if (Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  const check = new Date(Date.UTC(Number(year), Number(month) - 1, Number(date)));
  if (check.getUTCDate() !== Number(date)) return undefined;
  return { iso: new Date(time).toISOString(), dateOnly: false };
}

/** A date range as instants: lower `gte`/`gt`, upper `lt`/`lte`. */
export interface InstantRange {
  readonly gte?: string;
  readonly gt?: string;
  readonly lt?: string;
  readonly lte?: string;
}

export const DAY_MS = 24 * HOUR_MS;

export function instantOperand(value: string | number | boolean, position: number) {
  const instant = typeof value === 'string' ? parseInstant(value.trim()) : undefined;
  if (!instant) throw new QuerySyntaxError(`${String(value)} is not a date`, position);
  return instant;
}

export function nextDay(iso: string): string {
  return new Date(Date.parse(iso) + DAY_MS).toISOString();
}

/**
 * A date `exact` or `range` as instants. A date without a time stands for the whole UTC day: `created:2024-02-29`
 * is that day, `<=2024-02-29` includes it, `>2024-02-29` starts the next day, `<2024-02-29` ends before it.
 */
export function instantRange(match: Match, position: number): InstantRange {
  if (match.kind === 'exact') {
    const instant = instantOperand(match.value, position);
    return instant.dateOnly
      ? { gte: instant.iso, lt: nextDay(instant.iso) }
      : { gte: instant.iso, lte: instant.iso };
  }
  if (match.kind !== 'range') throw new QuerySyntaxError(`dates take exact values or ranges`, position);
  const range: { gte?: string; gt?: string; lt?: string; lte?: string } = {};
  if (match.lower) {
    const instant = instantOperand(match.lower.value, position);
    if (instant.dateOnly) range.gte = match.lower.inclusive ? instant.iso : nextDay(instant.iso);
    else if (match.lower.inclusive) range.gte = instant.iso;
    else range.gt = instant.iso;
  }
  if (match.upper) {
    const instant = instantOperand(match.upper.value, position);
    if (instant.dateOnly) range.lt = match.upper.inclusive ? nextDay(instant.iso) : instant.iso;
    else if (match.upper.inclusive) range.lte = instant.iso;
    else range.lt = instant.iso;
  }
  return range;
}

/** An IPv4 or IPv6 address, parsed. IPv4-mapped IPv6 addresses stay IPv6 (as PostgreSQL's inet does). */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  /** Canonical text: dotted quad, or RFC 5952 (lowercase, longest zero run compressed). */
  readonly text: string;
}

export function parseIp(value: string): IpAddress | undefined {
  const family = isIP(value);
  if (family === 4) {
    const bytes = Uint8Array.from(value.split('.').map(Number));
    return { family: 4, bytes, text: ipText(4, bytes) };
  }
  if (family !== 6 || value.includes('%')) return undefined;
  let text = value.toLowerCase();
  const groups: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const quad = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${(((quad[0] ?? 0) << 8) | (quad[1] ?? 0)).toString(16)}:${(((quad[2] ?? 0) << 8) | (quad[3] ?? 0)).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  groups.push(...headGroups.map((g) => parseInt(g, 16)));
  if (tail !== undefined) for (let i = 0; i < missing; i += 1) groups.push(0);
  groups.push(...tailGroups.map((g) => parseInt(g, 16)));
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff))
    return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  return { family: 6, bytes, text: ipText(6, bytes) };
}

export function ipText(family: 4 | 6, bytes: Uint8Array): string {
  if (family === 4) return [...bytes].join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0));
  // IPv4-mapped: ::ffff:a.b.c.d, as PostgreSQL prints it.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${[...bytes.slice(12)].join('.')}`;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** A CIDR block: its network (host bits cleared) and the first and last addresses it holds. */
export interface IpBlock {
  readonly family: 4 | 6;
  readonly prefixLength: number;
  readonly first: IpAddress;
  readonly last: IpAddress;
  /** `network/prefixLength`, canonical. */
  readonly text: string;
}

export function ipBlock(match: Extract<Match, { kind: 'cidr' }>, position: number): IpBlock {
  const address = parseIp(match.network);
  const bits = match.family === 4 ? 32 : 128;
  if (!address || address.family !== match.family) {
    throw new QuerySyntaxError(`${match.network} is not an IPv${match.family} address`, position);
  }
  if (!Number.isInteger(match.prefixLength) || match.prefixLength < 0 || match.prefixLength > bits) {
    throw new QuerySyntaxError(
      `/${match.prefixLength} is not a valid IPv${match.family} prefix length`,
      position,
    );
  }
  const first = new Uint8Array(address.bytes);
  const last = new Uint8Array(address.bytes);
  for (let bit = match.prefixLength; bit < bits; bit += 1) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    first[byte] = (first[byte] ?? 0) & ~mask;
    last[byte] = (last[byte] ?? 0) | mask;
  }
  const network = { family: match.family, bytes: first, text: ipText(match.family, first) } as const;
  return {
    family: match.family,
    prefixLength: match.prefixLength,
    first: network,
    last: { family: match.family, bytes: last, text: ipText(match.family, last) },
    text: `${network.text}/${match.prefixLength}`,
  };
}
