import { formatIp, parseDate, parseIp } from '../../query-language/validation.js';
import { dnsNameProblem, RECORD_LIMITS } from '../../domain/records.js';

/**
 * Helpers the collector formats share to turn a collector's loosely typed JSON into values `validateRecord`
 * accepts: a value that would make the whole record fail (a control character in a header, a name that is not
 * a DNS name) is left out here instead, so one odd field does not cost the observation.
 */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function objectAt(value: unknown, ...path: string[]): JsonObject | undefined {
  let current: unknown = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return isObject(current) ? current : undefined;
}

export function stringAt(value: unknown, ...path: string[]): string | undefined {
  let current: unknown = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return typeof current === 'string' && current !== '' ? current : undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A keyword field's value (trimmed, one line, at most 4096 characters), or undefined when it cannot be one. */
export function keyword(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '' || CONTROL.test(text) || text.length > RECORD_LIMITS.keywordChars) return undefined;
  return text;
}

/** A text field's value: NUL characters (refused by the record gate) become U+FFFD; cut at the text limit. */
export function text(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return value.replaceAll('\u0000', '\uFFFD').slice(0, RECORD_LIMITS.textChars);
}

/** A DNS name as records store it (lowercase, no root dot), or undefined when it is not one. */
export function dnsName(
  value: unknown,
  options: { wildcard: boolean; singleLabel: boolean },
): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.trim().toLowerCase().replace(/\.$/, '');
  return dnsNameProblem(name, options.wildcard, options.singleLabel) ? undefined : name;
}

/** An address in canonical form, or undefined. */
export function ipAddress(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parseIp(value.trim());
  return parsed ? formatIp(parsed) : undefined;
}

/**
 * A collector's time as ISO 8601, or undefined: Go's zero time (`0001-01-01T00:00:00Z`, what Go collectors
 * print for "unset") counts as no time at all.
 */
export function collectedTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  // RFC 3339 with a zone, what collectors print: the engine's parser reads it exactly; other forms go the
  // query language's way.
  const ms = RFC3339.test(trimmed) && realDay(trimmed) ? Date.parse(trimmed) : parseDate(trimmed)?.ms;
  if (ms === undefined || Number.isNaN(ms) || ms < 0) return undefined;
  return new Date(ms).toISOString();
}

/** The engine rolls 2018-02-30 over to March; a collector's impossible day is no time. */
function realDay(iso: string): boolean {
  const [year, month, day] = [Number(iso.slice(0, 4)), Number(iso.slice(5, 7)), Number(iso.slice(8, 10))];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export function portNumber(value: unknown): number | undefined {
  const port = typeof value === 'string' && /^\d{1,5}$/.test(value.trim()) ? Number(value) : value;
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65_535 ? port : undefined;
}

/** Drops undefined values and empty nested objects, so a record carries only what was observed. */
export function compact(record: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) out[key] = value;
      continue;
    }
    if (isObject(value)) {
      const nested = compact(value);
      if (Object.keys(nested).length > 0) out[key] = nested;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/** `SSH-2.0-OpenSSH_7.4` → `OpenSSH_7.4`: Recog's ssh_banners.xml matches the software version part. */
export function sshSoftwareVersion(identification: string): string | undefined {
  const line = identification.split(/\r?\n/)[0]!.trim();
  const match = /^SSH-\d+(?:\.\d+)?-(.+)$/.exec(line);
  return keyword(match ? match[1] : undefined);
}
