/**
 * Badge enrichment (contract: Badge enrichment, Limits): the request rules and the badge set. Pure.
 *
 * Badges come from stored observations and the catalogue only: the caller's `record` is checked for size and
 * shape and otherwise ignored, so it can never become evidence. Each badge may carry `search`, the indexed
 * criterion behind it, for a related search the user starts (no `tag:` syntax exists).
 */
import { isIP } from 'node:net';
import { ServiceError } from '../../platform/errors/service-error.js';

export const BADGE_ITEM_TYPES = ['host', 'domain', 'ip', 'cert', 'whois', 'dns'] as const;
export type BadgeItemType = (typeof BADGE_ITEM_TYPES)[number];

export const MAX_BADGE_ITEMS = 50;
export const MAX_BADGE_KEY_BYTES = 256;
export const MAX_BADGE_RECORD_BYTES = 4 * 1024;
export const MAX_BADGE_VALUE_BYTES = 1024;
/** Certificates expiring within this many days get `certificate_expiring`. */
export const CERTIFICATE_EXPIRY_WINDOW_DAYS = 30;
/** Domains registered within this many days get `recently_registered`. */
export const RECENT_REGISTRATION_DAYS = 30;

export interface BadgeItem {
  readonly key: string;
  readonly type: BadgeItemType;
  readonly value: string;
}

export interface BadgeSearch {
  readonly field: string;
  readonly value: string;
  readonly match: 'exact' | 'prefix' | 'suffix';
  /** A query of the search language that finds what the badge is about. */
  readonly query: string;
  readonly datasets: readonly ('hosts' | 'dns' | 'vhosts' | 'whois')[];
}

export type BadgeId =
  | 'known_exploited'
  | 'cve_count'
  | 'shared_edge'
  | 'certificate_expired'
  | 'certificate_expiring'
  | 'self_signed'
  | 'recently_registered'
  | 'registration_expiring';

export interface Badge {
  readonly id: BadgeId;
  readonly label: string;
  readonly level: 'critical' | 'warning' | 'info';
  readonly detail: Readonly<Record<string, unknown>>;
  readonly search?: BadgeSearch;
}

/** What the stored observations and the catalogue say about an item (gathered by badge-evidence.ts). */
export interface BadgeEvidence {
  /** CVE associations of the host observations at the address (hosts, ip, dns via its addresses). */
  readonly cves?: ReadonlyArray<{
    readonly cve_id: string;
    readonly kev: boolean | null;
    readonly conditional: boolean;
  }>;
  /** The addresses the evidence is about (dns: what the name resolves to). */
  readonly addresses?: readonly string[];
  /** Certificate names (vhosts) seen on the address, counted up to a cap. */
  readonly namesOnAddress?: number;
  /** Host observations at the address that mark it shared infrastructure (`shared_edge: true`). */
  readonly sharedEdgeHosts?: number;
  readonly certificates?: ReadonlyArray<{
    readonly fingerprint: string;
    readonly not_after: string | null;
    readonly self_signed: boolean | null;
  }>;
  readonly whois?: {
    readonly domain: string;
    readonly created: string | null;
    readonly expires: string | null;
  } | null;
}

const invalid = (problems: Array<{ field: string; problems: string[] }>): ServiceError =>
  new ServiceError('invalid_input', problems.map((p) => `${p.field}: ${p.problems.join('; ')}`).join(' | '), {
    fields: problems,
  });

/**
 * Checks each item against the contract's limits; returns them typed (the record dropped). How many items a
 * request holds (1 to MAX_BADGE_ITEMS) is checked by the request's DTO.
 */
export function validateBadgeItems(items: readonly unknown[]): BadgeItem[] {
  const problems: Array<{ field: string; problems: string[] }> = [];
  const keys = new Set<string>();
  const valid: BadgeItem[] = [];
  items.forEach((item: unknown, i) => {
    const field = `items[${i}]`;
    const local: string[] = [];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      problems.push({ field, problems: ['each item is an object {key, type, value, record?}'] });
      return;
    }
    const { key, type, value, record, ...rest } = item as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) local.push(`unknown properties: ${unknown.join(', ')}`);
    if (typeof key !== 'string' || key.length === 0) local.push('key must be a non-empty string');
    else if (Buffer.byteLength(key, 'utf8') > MAX_BADGE_KEY_BYTES)
      local.push(`key is at most ${MAX_BADGE_KEY_BYTES} UTF-8 bytes`);
    else if (keys.has(key)) local.push(`key ${JSON.stringify(key)} is not unique`);
    else keys.add(key);
    if (typeof type !== 'string' || !(BADGE_ITEM_TYPES as readonly string[]).includes(type))
      local.push(`type must be one of ${BADGE_ITEM_TYPES.join(', ')}`);
    if (typeof value !== 'string' || value.trim() === '') local.push('value must be a non-empty string');
    else if (Buffer.byteLength(value, 'utf8') > MAX_BADGE_VALUE_BYTES)
      local.push(`value is at most ${MAX_BADGE_VALUE_BYTES} UTF-8 bytes`);
    else if ((type === 'ip' || type === 'host') && isIP(value.trim()) === 0)
      local.push(`a ${String(type)} item's value is an IP address`);
    if (record !== undefined) {
      if (typeof record !== 'object' || record === null || Array.isArray(record))
        local.push('record must be an object');
      else if (Buffer.byteLength(JSON.stringify(record), 'utf8') > MAX_BADGE_RECORD_BYTES)
        local.push(`record is at most ${MAX_BADGE_RECORD_BYTES} bytes (JSON)`);
    }
    if (local.length > 0) problems.push({ field, problems: local });
    else valid.push({ key: key as string, type: type as BadgeItemType, value: (value as string).trim() });
  });
  if (problems.length > 0) throw invalid(problems);
  return valid;
}

const DAY_MS = 86_400_000;

/** The badges of one item from its evidence, most important first. */
export function badgesFor(item: BadgeItem, evidence: BadgeEvidence, now: Date): Badge[] {
  const badges: Badge[] = [];
  const subject = subjectQuery(item, evidence.addresses ?? []);
  const cves = evidence.cves ?? [];
  const plain = cves.filter((c) => !c.conditional);
  const kevListed = [...new Set(cves.filter((c) => c.kev === true).map((c) => c.cve_id))].sort();
  if (kevListed.length > 0) {
    badges.push({
      id: 'known_exploited',
      label: `Known exploited vulnerability associated (${kevListed.slice(0, 3).join(', ')}${kevListed.length > 3 ? ', …' : ''})`,
      level: 'critical',
      detail: {
        cve_ids: kevListed,
        note: 'KEV shows known exploitation of the advisory, not of this asset; the association comes from observed software versions',
      },
      search: {
        field: 'kev',
        value: 'true',
        match: 'exact',
        query: subject ? `${subject} AND kev:true` : 'kev:true',
        datasets: ['hosts'],
      },
    });
  }
  const distinct = [...new Set(cves.map((c) => c.cve_id))].sort();
  if (distinct.length > 0) {
    badges.push({
      id: 'cve_count',
      label: `${distinct.length} catalogue CVE${distinct.length === 1 ? '' : 's'} associated`,
      level: 'warning',
      detail: {
        count: distinct.length,
        unconditional: new Set(plain.map((c) => c.cve_id)).size,
        cve_ids: distinct.slice(0, 20),
      },
      search: {
        field: 'cve',
        value: '*',
        match: 'exact',
        query: subject ? `${subject} AND cve:*` : 'cve:*',
        datasets: ['hosts'],
      },
    });
  }
  // The hosts' own observation decides (the same `shared_edge` the exposure coverage and searches use), so the
  // badge and a `shared_edge:true` search always agree; the certificate names seen are shown as context only.
  if ((item.type === 'ip' || item.type === 'host') && (evidence.sharedEdgeHosts ?? 0) > 0) {
    badges.push({
      id: 'shared_edge',
      label: 'Shared edge: observed as shared infrastructure (CDN or edge) serving many unrelated names',
      level: 'info',
      detail: {
        hosts_marked_shared_edge: evidence.sharedEdgeHosts,
        certificate_names_seen: evidence.namesOnAddress ?? null,
        note: 'findings on a shared edge (CDN, shared hosting) rarely belong to one owner',
      },
      search: {
        field: 'shared_edge',
        value: 'true',
        match: 'exact',
        query: `ip:${item.value} AND shared_edge:true`,
        datasets: ['hosts'],
      },
    });
  }
  for (const certificate of evidence.certificates ?? []) {
    const search: BadgeSearch = {
      field: 'fingerprint',
      value: certificate.fingerprint,
      match: 'exact',
      query: `fingerprint:${certificate.fingerprint}`,
      datasets: ['vhosts'],
    };
    if (certificate.not_after) {
      const remaining = (Date.parse(certificate.not_after) - now.getTime()) / DAY_MS;
      if (remaining < 0)
        badges.push({
          id: 'certificate_expired',
          label: 'Certificate expired',
          level: 'warning',
          detail: { fingerprint: certificate.fingerprint, not_after: certificate.not_after },
          search,
        });
      else if (remaining <= CERTIFICATE_EXPIRY_WINDOW_DAYS)
        badges.push({
          id: 'certificate_expiring',
          label: `Certificate expires in ${Math.floor(remaining)} days`,
          level: 'warning',
          detail: { fingerprint: certificate.fingerprint, not_after: certificate.not_after },
          search,
        });
    }
    if (certificate.self_signed === true)
      badges.push({
        id: 'self_signed',
        label: 'Self-signed certificate',
        level: 'info',
        detail: { fingerprint: certificate.fingerprint },
        search: {
          ...search,
          field: 'self_signed',
          value: 'true',
          query: `${search.query} AND self_signed:true`,
        },
      });
  }
  const whois = evidence.whois;
  if (whois?.created) {
    const age = (now.getTime() - Date.parse(whois.created)) / DAY_MS;
    if (age >= 0 && age <= RECENT_REGISTRATION_DAYS)
      badges.push({
        id: 'recently_registered',
        label: `Domain registered ${Math.floor(age)} days ago`,
        level: 'warning',
        detail: { domain: whois.domain, created: whois.created },
        search: {
          field: 'domain',
          value: whois.domain,
          match: 'exact',
          query: `domain:${whois.domain}`,
          datasets: ['whois'],
        },
      });
  }
  if (whois?.expires) {
    const remaining = (Date.parse(whois.expires) - now.getTime()) / DAY_MS;
    if (remaining >= 0 && remaining <= CERTIFICATE_EXPIRY_WINDOW_DAYS)
      badges.push({
        id: 'registration_expiring',
        label: `Domain registration expires in ${Math.floor(remaining)} days`,
        level: 'info',
        detail: { domain: whois.domain, expires: whois.expires },
        search: {
          field: 'domain',
          value: whois.domain,
          match: 'exact',
          query: `domain:${whois.domain}`,
          datasets: ['whois'],
        },
      });
  }
  return dedupe(badges);
}

/** The host criterion of an item, for related searches (`ip:203.0.113.7`), or null. */
function subjectQuery(item: BadgeItem, addresses: readonly string[]): string | null {
  if (item.type === 'ip' || item.type === 'host') return `ip:${item.value}`;
  if (addresses.length === 1) return `ip:${addresses[0]}`;
  if (addresses.length > 1) return `(${addresses.map((address) => `ip:${address}`).join(' OR ')})`;
  return null;
}

function dedupe(badges: Badge[]): Badge[] {
  const seen = new Set<string>();
  return badges.filter((badge) => {
    const key = `${badge.id}:${JSON.stringify(badge.detail)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
