/**
 * What an exposure scope declares (contract, Scope (client resource)): a domain, an IANA timezone and up to 16
 * IP addresses, with the billing mode it was created under. Pure validation, shared by the space decider and
 * the refresh. Declared entries grant no access, send no message and do not restrict public searches (rule 9):
 * they only say which stored observations the inventory reads.
 */
import { ServiceError } from '../../platform/errors/service-error.js';
import { formatIp, parseIp } from '../../search/query-language/validation.js';

/** Contract, Limits: "Scope addresses: up to 16 IPs". */
export const MAX_SCOPE_ADDRESSES = 16;
/** Contract, Limits: "Deletion cancellation window: seven days". */
export const DELETION_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * `capacity`: the organization's exposure plan includes refreshes (quota and cadence apply; credit_limit is
 * ignored). `credit`: legacy credit billing, each refresh is paid from the ledger inside the scope's envelope
 * (credit_limit 6 to 1,000,000).
 */
export const BILLING_MODES = ['capacity', 'credit'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];

export interface ExposureDeclaration {
  readonly domain: string;
  readonly timezone: string;
  readonly addresses: readonly string[];
  readonly billing: BillingMode;
}

/** The declaration an `ExposureScopeDeclared` event carries, as the read models keep it. */
export function declarationOf(data: Readonly<Record<string, unknown>>): ExposureDeclaration {
  return {
    domain: data.domain as string,
    timezone: data.timezone as string,
    addresses: data.addresses as string[],
    billing: data.billing as BillingMode,
  };
}

function invalid(field: string, problem: string): ServiceError {
  return new ServiceError('invalid_input', `${field} ${problem}`, {
    fields: [{ field, problems: [problem] }],
  });
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A registrable-looking DNS name: lowercased, no trailing dot, at least two labels, no wildcard. */
export function checkedDomain(raw: unknown): string {
  const domain = typeof raw === 'string' ? raw.trim().toLowerCase().replace(/\.$/, '') : '';
  const labels = domain.split('.');
  if (
    domain.length === 0 ||
    domain.length > 253 ||
    labels.length < 2 ||
    !labels.every((label) => LABEL.test(label)) ||
    /^\d+$/.test(labels.at(-1) ?? '')
  ) {
    throw invalid('domain', 'must be a domain name such as example.com');
  }
  return domain;
}

/**
 * An IANA timezone name the runtime knows (`Europe/Paris`, `UTC`), stored in its canonical form: the runtime's
 * own spelling (`europe/paris` → `Europe/Paris`; a link such as `US/Pacific` → `America/Los_Angeles`).
 * Abbreviations and offsets are refused.
 */
export function checkedTimezone(raw: unknown): string {
  const canonical = canonicalTimezone(typeof raw === 'string' ? raw.trim() : '');
  if (canonical === null) throw invalid('timezone', 'must be an IANA timezone name such as Europe/Paris');
  return canonical;
}

export function isIanaTimezone(name: string): boolean {
  return canonicalTimezone(name) !== null;
}

/** The runtime's canonical name of an IANA timezone, or null when the name is no IANA zone name. */
export function canonicalTimezone(name: string): string | null {
  if (name.length === 0 || name.length > 64) return null;
  if (name.toUpperCase() !== 'UTC' && !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){1,2}$/.test(name)) {
    return null;
  }
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Up to 16 single IP addresses (no ranges), canonical form, duplicates folded, in the order given. */
export function checkedAddresses(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalid('addresses', 'must be a list of IP addresses');
  if (raw.length > MAX_SCOPE_ADDRESSES) {
    throw invalid('addresses', `must hold at most ${MAX_SCOPE_ADDRESSES} IP addresses`);
  }
  const out: string[] = [];
  for (const item of raw) {
    const parsed = typeof item === 'string' ? parseIp(item.trim()) : undefined;
    if (!parsed) throw invalid('addresses', `${JSON.stringify(item)} is not a single IP address`);
    const canonical = formatIp(parsed);
    if (!out.includes(canonical)) out.push(canonical);
  }
  return out;
}

/** Today's date (YYYY-MM-DD) in a timezone: "not in the future, interpreted in the scope timezone". */
export function localDate(now: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(now);
  const get = (type: string) => parts.find((part) => part.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** A real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}
