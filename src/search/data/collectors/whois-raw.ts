import { createRequire } from 'node:module';
import { basename } from 'node:path';
import { domainToASCII } from 'node:url';
import { dnsNameProblem, RECORD_LIMITS } from '../../domain/records.js';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type CollectorFormat,
} from './collected.js';
import {
  cleanWhoisResponse,
  firstLabelled,
  HEADED_CONTACTS,
  headedContact,
  isContactHandle,
  isWithheld,
  labelledValues,
  listedNameServers,
  organizationUsingDomain,
  parseWhoisDate,
  registroBrOwner,
  REGISTRY_LABELS,
  unlabelledDomain,
  type LabelledValues,
} from './whois-registry-rules.js';

/**
 * whois-raw (issue 17): one port-43 WHOIS response per file becomes one whois record. The maintained `whoiser`
 * parser reads the response (label renaming for gTLDs and many ccTLDs); the rules of whois-registry-rules.ts
 * fill what it leaves out (ADR 99). Withheld values ("REDACTED FOR PRIVACY", "Please query the RDDS service…")
 * are left absent, never stored as data.
 */

type WhoiserFields = Record<string, string | string[] | undefined>;
const require = createRequire(import.meta.url);
const { parseDomainWhois } = require('whoiser/src/parsers.js') as {
  parseDomainWhois(domain: string, whois: string, ignorePrivacy: boolean): WhoiserFields;
};

/** What makes a text a WHOIS answer when sniffing: labels only registries print. */
const WHOIS_LABELS =
  /^[ \t]*(?:\*\*[ \t]*)?(?:domain(?: name)?|registrar|registry expiry date|creation date|created|expires|expiration date|paid-till|nserver|name servers?|registrant(?: name| organization)?|domain status|status|whois server|last updated|changed|created on|expires on|record created|domain created|nombre de dominio|fecha de creación)[ \t]*(?:\.{2,}[ \t]*)?:/gim;

/** Registries answer in a few kilobytes; a larger file is something else (a log, a concatenation). */
const MAX_RESPONSE_CHARS = 1_000_000;

export const whoisRawFormat = {
  name: 'whois-raw',
  unit: 'file',

  sniff(head: Buffer): boolean {
    const text = head.toString('utf8');
    const start = text.trimStart();
    // NDJSON/JSON, PEM certificates, masscan lists and binary (DER) content belong to other formats; the
    // `whois` client's `[whois.nic.xyz]` first line is not a JSON array.
    if (/^(?:\{|\[\s*[[{"\d\]-]|\[\s*$)/.test(start) || text.includes('-----BEGIN ')) return false;
    if (/^#masscan|^(?:open|closed|banner) (?:tcp|udp|sctp) \d+ /m.test(start)) return false;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000e-\u001f]/.test(text)) return false;
    const labels = new Set((text.match(WHOIS_LABELS) ?? []).map((label) => label.trim().toLowerCase()));
    return labels.size >= 2 || (labels.size === 1 && /whois/i.test(text));
  },

  records(item: string | Buffer, context: CollectorContext): CollectedRecord[] {
    if (item.length > MAX_RESPONSE_CHARS) {
      throw new CollectedRecordRefused(
        `${item.length} bytes is not one WHOIS response (at most ${MAX_RESPONSE_CHARS}): give one response per file`,
      );
    }
    const text = typeof item === 'string' ? item : decodeResponse(item);
    return [{ dataset: 'whois', record: whoisRecordOf(text, context), evidence: [] }];
  },
} satisfies CollectorFormat;

/** The whois record of one response, in the shape of an NDJSON whois line (validateRecord normalizes it). */
export function whoisRecordOf(response: string, context: CollectorContext): Record<string, unknown> {
  const cleaned = cleanWhoisResponse(response);
  const labelled = labelledValues(cleaned);
  const fileDomain = domainFromFileName(context.source);
  const parsed = parseWithWhoiser(guessDomain(labelled, cleaned) ?? fileDomain ?? '', cleaned);
  const lineValues = lineValuesOf(cleaned);
  const single = (key: string) => firstOf(parsed[key], lineValues);

  const domain = responseDomain(single('Domain Name'), labelled, cleaned) ?? fileDomain;
  if (domain === undefined) {
    throw new CollectedRecordRefused(
      `no domain name in the WHOIS response, and the file name "${basename(context.source)}" is not a domain`,
    );
  }

  const brOwner = registroBrOwner(labelled);
  const headed = {
    registrant: headedContact(cleaned, HEADED_CONTACTS.registrant),
    admin: headedContact(cleaned, HEADED_CONTACTS.admin),
    tech: headedContact(cleaned, HEADED_CONTACTS.tech),
  };
  const registration: Record<string, unknown> = {
    registrar: registrarOf(single('Registrar'), labelled, cleaned),
    status: statusesOf(parsed['Domain Status']),
    name_servers: nameServersOf(parsed['Name Server'], labelled, cleaned),
    ...datesOf(single, labelled),
    registrant: contact({
      organization: keep(
        single('Registrant Organization') ?? organizationUsingDomain(cleaned) ?? brOwner.organization,
      ),
      country: countryOf(
        single('Registrant Country') ??
          firstLabelled(labelled, REGISTRY_LABELS.registrantCountry) ??
          brOwner.country,
      ),
      name: personOf(single('Registrant Name') ?? brOwner.person ?? headed.registrant.name),
      email: emailOf(single('Registrant Email') ?? headed.registrant.email),
    }),
    admin: contact({
      name: personOf(single('Admin Name') ?? headed.admin.name),
      email: emailOf(single('Admin Email') ?? headed.admin.email),
    }),
    tech: contact({
      name: personOf(single('Tech Name') ?? headed.tech.name),
      email: emailOf(single('Tech Email') ?? headed.tech.email),
    }),
  };
  const present = Object.fromEntries(Object.entries(registration).filter(([, value]) => value !== undefined));
  if (Object.keys(present).length === 0) {
    const firstLine = response.split('\n').find((line) => line.trim() !== '' && !/^\s*[%#]/.test(line));
    throw new CollectedRecordRefused(
      `no registration data in the WHOIS response for ${domain} (no registrar, date, status, name server or ` +
        `registrant)${firstLine ? `; it starts "${firstLine.trim().slice(0, 80)}"` : ''}`,
    );
  }
  return {
    id: domain,
    domain,
    ...present,
    first_seen: context.seenAt,
    last_seen: context.seenAt,
  };
}

/**
 * whoiser with its rules for the domain's registry (.fr, .tr, .it, …), or, when those throw on an answer they
 * do not expect (a .fr contact block naming no handle), its generic reading of the same text.
 */
function parseWithWhoiser(domain: string, cleaned: string): WhoiserFields {
  try {
    return parseDomainWhois(domain, cleaned, true);
  } catch {
    return parseDomainWhois('', cleaned, true);
  }
}

/** UTF-8 when the bytes are UTF-8; otherwise Latin-1, which older registries (.tr) still send. */
function decodeResponse(bytes: Buffer): string {
  try {
    return UTF8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

// ---- fields ------------------------------------------------------------------------------------------------

/**
 * whoiser joins a repeated label's values with spaces ("1997-05-26 00:00:00 2013-10-30 …", a registrar and
 * the address lines after it): the first occurrence, the domain's own, is the longest line of the response the
 * joined value starts with.
 */
function firstOf(value: string | string[] | undefined, lineValues: ReadonlySet<string>): string | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text || lineValues.has(text)) return text || undefined;
  let first: string | undefined;
  for (const line of lineValues) {
    if (line !== '' && text.startsWith(`${line} `) && line.length > (first?.length ?? 0)) first = line;
  }
  return first ?? text;
}

/** Every line of a response, trimmed, and what follows its first colon. */
function lineValuesOf(cleaned: string): ReadonlySet<string> {
  const values = new Set<string>();
  for (const line of cleaned.split('\n')) {
    values.add(line.trim());
    const colon = line.indexOf(':');
    if (colon >= 0) values.add(line.slice(colon + 1).trim());
  }
  return values;
}

function responseDomain(
  whoiserDomain: string | undefined,
  labelled: LabelledValues,
  cleaned: string,
): string | undefined {
  const candidates = [
    whoiserDomain?.split(/\s+/)[0],
    firstLabelled(labelled, REGISTRY_LABELS.domain)?.split(/\s+/)[0],
    unlabelledDomain(cleaned),
  ];
  return candidates
    .map((name) => (name ? domainToASCII(name.replace(/\.$/, '')) : undefined))
    .find(isDomainName);
}

function guessDomain(labelled: LabelledValues, cleaned: string): string | undefined {
  return responseDomain(firstLabelled(labelled, ['domain name', 'domain']), labelled, cleaned);
}

/** The file's name when it is a domain (`google.com`, `google.com.whois`, `google.com.txt`). */
function domainFromFileName(source: string): string | undefined {
  if (source === '-') return undefined;
  const name = basename(source)
    .toLowerCase()
    .replace(/\.(?:whois|txt|raw)$/, '');
  return isDomainName(name) ? name : undefined;
}

function isDomainName(name: string | undefined): name is string {
  return name !== undefined && name !== '' && dnsNameProblem(name, false) === undefined;
}

/** A registrar named by its handle (`FAJN-0002`, .sk) takes the name of that handle's own block. */
function registrarOf(
  whoiserRegistrar: string | undefined,
  labelled: LabelledValues,
  cleaned: string,
): string | undefined {
  const registrar = keep(whoiserRegistrar) ?? keep(firstLabelled(labelled, REGISTRY_LABELS.registrar));
  if (registrar === undefined || !isContactHandle(registrar)) return registrar;
  // .sk prints the registrar's block as `Registrar: <handle>` directly followed by `Name: <name>`.
  const block = new RegExp(
    String.raw`^[ \t]*Registrar:[ \t]*${escapeRegExp(registrar)}[ \t]*\n[ \t]*Name:[ \t]*(.+)$`,
    'im',
  );
  return keep(block.exec(cleaned)?.[1]) ?? registrar;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

type DateField = 'created' | 'updated' | 'expires';

function datesOf(
  single: (key: string) => string | undefined,
  labelled: LabelledValues,
): Partial<Record<DateField, string>> {
  const whoiserKeys: Record<DateField, string> = {
    created: 'Created Date',
    updated: 'Updated Date',
    expires: 'Expiry Date',
  };
  const dates: Partial<Record<DateField, string>> = {};
  for (const field of ['created', 'updated', 'expires'] as const) {
    const value = single(whoiserKeys[field]) ?? firstLabelled(labelled, REGISTRY_LABELS[field]);
    const date = value === undefined ? undefined : parseWhoisDate(value);
    if (date !== undefined) dates[field] = date;
  }
  // A date before the creation belongs to something else (a contact's history): left out, not stored wrong.
  for (const later of ['updated', 'expires'] as const) {
    if (dates.created && dates[later] && dates[later] < dates.created) delete dates[later];
  }
  return dates;
}

/** EPP codes without their ICANN URL or explanation (`clientTransferProhibited - status prohibits …`, .kz). */
function statusesOf(value: string | string[] | undefined): string[] | undefined {
  const values = (Array.isArray(value) ? value : value ? [value] : [])
    .map((status) =>
      status
        .replace(/\s+https?:\/\/\S*/g, '')
        .replace(/\s+(?:-|\().*$/, '')
        .trim(),
    )
    .filter((status) => /^[A-Za-z][A-Za-z0-9 _-]{0,63}$/.test(status));
  return values.length > 0 ? [...new Set(values)].slice(0, RECORD_LIMITS.listItems) : undefined;
}

function nameServersOf(
  value: string | string[] | undefined,
  labelled: LabelledValues,
  cleaned: string,
): string[] | undefined {
  const parsed = Array.isArray(value) ? value : value ? value.split(/\s+/) : [];
  const servers = REGISTRY_LABELS.nameServers.flatMap((label) => labelled.get(label) ?? []);
  const names = [...parsed, ...servers, ...listedNameServers(cleaned)]
    .map((name) => name.toLowerCase().replace(/\.$/, ''))
    .filter(isDomainName);
  return names.length > 0 ? [...new Set(names)].slice(0, RECORD_LIMITS.listItems) : undefined;
}

/**
 * A value with its whitespace (tabs included) collapsed, unless it is empty, a placeholder for withheld data,
 * or too long to be a name (a paragraph a label happened to precede).
 */
function keep(value: string | undefined): string | undefined {
  // eslint-disable-next-line no-control-regex
  const text = value?.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  return text && text.length <= MAX_VALUE_CHARS && !isWithheld(text) ? text : undefined;
}

const MAX_VALUE_CHARS = 512;

/** A contact name: a registry handle (`GI7803022-NICAT`) or a number (a tax id, .ar) is not a name. */
function personOf(value: string | undefined): string | undefined {
  const name = keep(value);
  return name && !isContactHandle(name) && /\p{L}/u.test(name) ? name : undefined;
}

const EMAIL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+$/i;

function emailOf(value: string | undefined): string | undefined {
  const email = keep(value);
  return email && EMAIL.test(email) ? email : undefined;
}

/** ISO 3166-1 alpha-2 only (`United States`, .mx, is left out rather than guessed). */
function countryOf(value: string | undefined): string | undefined {
  const country = keep(value);
  return country && /^[A-Za-z]{2}$/.test(country) ? country : undefined;
}

function contact(fields: Record<string, string | undefined>): Record<string, string> | undefined {
  const present = Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return present.length > 0 ? Object.fromEntries(present) : undefined;
}
