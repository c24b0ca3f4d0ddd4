/**
 * The per-registry rules the whois-raw format adds where `whoiser` falls short (ADR 99): text clean-up before
 * parsing, the date forms registries print, the labels whoiser does not know, and the values that say "no
 * data". Pure: text in, values out.
 */

/**
 * Rewrites a port-43 response so that whoiser's `Label: value` reading sees it: CRLF to LF, Verisign's
 * "Server Name" blocks dropped (they list other names, such as `GOOGLE.COM.ZZZ.EXAMPLE`, each with its own
 * registrar), dotted label padding removed (`Domain Name......: x`, .kz) and a space put after a colon that has
 * none (`Domain Name:SLASHDOT.ORG`, old .org).
 */
export function cleanWhoisResponse(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  let skippingServerBlock = false;
  for (const line of lines) {
    if (/^\s*Server Name:/i.test(line)) skippingServerBlock = true;
    else if (line.trim() === '') skippingServerBlock = false;
    if (skippingServerBlock) continue;
    if (!line.includes(':')) {
      kept.push(line);
      continue;
    }
    kept.push(
      line
        .replace(/^(\s*[A-Za-z][\w /()-]{0,60}?)\s*\.{2,}\s*:/, '$1:')
        .replace(/^(\s*[A-Za-z][\w /()-]{0,60}?[A-Za-z)]):(?=[^\s/:])/, '$1: '),
    );
  }
  return kept.join('\n');
}

/** One label of a response (lowercased, padding removed) and its values, in order of appearance. */
export type LabelledValues = ReadonlyMap<string, readonly string[]>;

/**
 * Every `label: value` of a cleaned response, first occurrence first. A label with nothing after its colon
 * takes the next line when that line has no label of its own (`REGISTRAR:` then `Corporation Service
 * Company`, .pl).
 */
export function labelledValues(cleaned: string): LabelledValues {
  const values = new Map<string, string[]>();
  const lines = cleaned.split('\n');
  lines.forEach((line, index) => {
    if (/^\s*[%#;*>]/.test(line)) return;
    const match = /^\s*([A-Za-z][^:]{0,60}?)\s*:(.*)$/.exec(line);
    if (!match) return;
    const label = match[1]!.toLowerCase().replace(/\s+/g, ' ');
    let value = match[2]!.trim();
    const next = lines[index + 1];
    if (value === '' && next !== undefined && next.trim() !== '' && !next.includes(':')) value = next.trim();
    if (value === '') return;
    const list = values.get(label) ?? [];
    list.push(value);
    values.set(label, list);
  });
  return values;
}

/** The first value of the first label present, in the order given. */
export function firstLabelled(values: LabelledValues, labels: readonly string[]): string | undefined {
  for (const label of labels) {
    const found = values.get(label)?.[0];
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Labels whoiser does not map, per field, as registries print them (lowercased). */
export const REGISTRY_LABELS = {
  domain: ['domainname', 'nombre de dominio', 'domain name'],
  registrar: ['registrar-name', 'current registar', 'registrar of record', 'registrar'],
  created: [
    'record created',
    'domain created',
    'fecha de creación',
    'created on',
    'assigned',
    'domain name commencement date',
  ],
  updated: ['record last updated on', 'ultima actualización', 'last updated on', 'last modified'],
  expires: [
    'record expires on',
    'expires on',
    'fecha de vencimiento',
    'validity',
    'valid until',
    'renewal date',
  ],
  registrantCountry: ['org-country'],
  nameServers: ['primary server', 'secondary server'],
} as const;

/** .kz names the registrant under `Organization Using Domain Name`, before the contacts' own organizations. */
export function organizationUsingDomain(cleaned: string): string | undefined {
  return /^[ \t]*Organization Using Domain Name[ \t]*\n(?:.*\n){0,3}?[ \t]*Organization Name[ \t]*:[ \t]*(.+)$/im.exec(
    cleaned,
  )?.[1];
}

/**
 * Registro.br prints the holder as `owner`, identified by `ownerid`: a CNPJ (`06.990.590/0001-23`) is a company,
 * so the owner is the registrant organization; a CPF (`123.456.789-09`) is a natural person, so the owner is the
 * registrant's name (a personal contact, hidden during the trial). The first `country` is the owner's.
 */
export function registroBrOwner(values: LabelledValues): {
  organization?: string;
  person?: string;
  country?: string;
} {
  const owner = values.get('owner')?.[0];
  const ownerId = values.get('ownerid')?.[0];
  if (owner === undefined || ownerId === undefined) return {};
  const country = values.get('country')?.[0];
  if (/^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/.test(ownerId)) return { organization: owner, country };
  if (/^\d{3}\.\d{3}\.\d{3}-\d{2}$/.test(ownerId)) return { person: owner, country };
  return {};
}

/** The contacts NIC.VE prints under Spanish headings, each as its name and email on one line. */
export const HEADED_CONTACTS = {
  registrant: 'Titular',
  admin: 'Contacto Administrativo',
  tech: 'Contacto Técnico',
} as const;

/** `Titular:` then `Google Inc. <tabs> dns-admin@google.com` on the next line (.ve). */
export function headedContact(cleaned: string, heading: string): { name?: string; email?: string } {
  const pattern = new RegExp(String.raw`^[ \t]*${heading}:[ \t]*\n[ \t]*(\S.*?)[ \t]+(\S+@\S+)[ \t]*$`, 'im');
  const match = pattern.exec(cleaned);
  return match ? { name: match[1], email: match[2] } : {};
}

/** `Domain GOOGLE.KG (ACTIVE)` (.kg): the domain on a line of its own, without a colon. */
export function unlabelledDomain(cleaned: string): string | undefined {
  return /^[ \t]*Domain[ \t]+([A-Za-z0-9.-]+\.[A-Za-z0-9-]+)[ \t]*(?:\(|$)/m.exec(cleaned)?.[1];
}

const NAME_SERVER_HEADING =
  /^\s*(?:name ?servers?|nservers?|domain nameservers|name servers in the listed order|servidor\(es\) de nombres de dominio)\s*:?/i;
const NAME_SERVER_LINE =
  /^\s*-?\s*([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)\.?\s*(?:\[[^\]]*\]|[\d.:a-fA-F]+)?\s*$/;

/**
 * Name servers listed under a heading, one per indented line (`nameservers: a` then `   b [ip]`, .pl;
 * `- ns1.example.com`, .ve; a bare list after `Name servers in the listed order:`, .kg).
 */
export function listedNameServers(cleaned: string): string[] {
  const found: string[] = [];
  const lines = cleaned.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const heading = NAME_SERVER_HEADING.exec(lines[index]!);
    if (!heading) continue;
    const rest = lines[index]!.slice(heading[0].length);
    const inline = NAME_SERVER_LINE.exec(rest);
    if (inline) found.push(inline[1]!);
    let next = index + 1;
    while (!inline && next < lines.length - 1 && lines[next]!.trim() === '' && next <= index + 2) next++;
    for (; next < lines.length; next++) {
      const line = lines[next]!;
      const listed = line.includes(':') ? null : NAME_SERVER_LINE.exec(line);
      if (!listed) break;
      found.push(listed[1]!);
    }
  }
  return found;
}

// ---- values that mean "nothing" ----------------------------------------------------------------------------

/** Placeholders registries print instead of withheld data: never stored as if they were data. */
const WITHHELD =
  /redacted|privacy|private|not disclosed|withheld|please query|gdpr|data protected|non-public|masked|hidden upon|not available|statutory masking|contact the registrar|whoisprotect|^no registrar listed|^(?:-|\.|n\/a|na|none|no data|null|unknown)$/i;

export function isWithheld(value: string): boolean {
  return WITHHELD.test(value.trim());
}

/** A registry contact handle (`GI7803022-NICAT`, `CON-66`, `FAJN-0002`) rather than a name. */
export function isContactHandle(value: string): boolean {
  return /^[A-Z0-9]+(?:-[A-Z0-9]+)+$/.test(value) && /\d/.test(value);
}

// ---- dates --------------------------------------------------------------------------------------------------

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Zone names registries print (.cl prints Chilean summer time). */
const ZONES: Readonly<Record<string, number>> = { utc: 0, gmt: 0, z: 0, clst: -180, clt: -240 };

type DateParts = { year: number; month: number; day: number; time?: string; zone?: string };

const monthOf = (name: string) => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
const TIME = String.raw`(?:[T\s]+(\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?))?`;
const ZONE = String.raw`\s*(Z|UTC|GMT|CLST|CLT|[+-]\d{2}(?::?\d{2})?|\(GMT[+-]\d{1,2}:\d{2}\))?`;

/** The date forms seen in port-43 answers, each turned into parts. */
const DATE_FORMS: ReadonlyArray<readonly [RegExp, (match: RegExpExecArray) => DateParts]> = [
  // 2014-03-20T12:59:17.0Z, 1999.10.27 13:00:00, 2002-12-04 00:00:00+02, 2009-07-01 12:44:02 (GMT+0:00)
  [
    new RegExp(String.raw`\b(\d{4})[-./](\d{2})[-./](\d{2})(?!\d)${TIME}${ZONE}`, 'i'),
    (m) => ({ year: +m[1]!, month: +m[2]!, day: +m[3]!, time: m[4], zone: m[5] }),
  ],
  // 28.11.2005, 14-07-1998 (day first: .cr, .hk, .il)
  [
    new RegExp(String.raw`\b(\d{2})[-.](\d{2})[-.](\d{4})\b${TIME}${ZONE}`, 'i'),
    (m) => ({ year: +m[3]!, month: +m[2]!, day: +m[1]!, time: m[4], zone: m[5] }),
  ],
  // 20-feb-2000, 05-Oct-1997 04:00:00 UTC
  [
    new RegExp(String.raw`\b(\d{1,2})-([A-Za-z]{3})-(\d{4})\b${TIME}${ZONE}`, 'i'),
    (m) => ({ year: +m[3]!, month: monthOf(m[2]!), day: +m[1]!, time: m[4], zone: m[5] }),
  ],
  // 2001-Aug-23 (.tr)
  [/\b(\d{4})-([A-Za-z]{3})-(\d{1,2})\b/, (m) => ({ year: +m[1]!, month: monthOf(m[2]!), day: +m[3]! })],
  // Tue Feb 10 09:42:42 2004 (.kg)
  [
    /\b[A-Za-z]{3}\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{2}:\d{2}:\d{2})\s+(\d{4})\b/,
    (m) => ({ year: +m[4]!, month: monthOf(m[1]!), day: +m[2]!, time: m[3] }),
  ],
  // before Aug-1996 (.uk, registrations older than Nominet's records): the first day of that month
  [/\bbefore\s+([A-Za-z]{3})-(\d{4})\b/i, (m) => ({ year: +m[2]!, month: monthOf(m[1]!), day: 1 })],
  // 19990518 (.br, .at): eight digits, only when nothing else matched
  [
    /\b(\d{4})(\d{2})(\d{2})\b(?:\s+(\d{2}:\d{2}:\d{2}))?/,
    (m) => ({ year: +m[1]!, month: +m[2]!, day: +m[3]!, time: m[4] }),
  ],
];

/**
 * The first date of a registry's value, as ISO 8601 UTC (`YYYY-MM-DDTHH:MM:SS.sssZ`); undefined when none.
 * A value with several dates (whoiser joins repeated labels with spaces) yields the first, the domain's own.
 * A time without a zone is taken as UTC.
 */
export function parseWhoisDate(value: string): string | undefined {
  let best: { index: number; parts: DateParts } | undefined;
  for (const [form, toParts] of DATE_FORMS) {
    const match = form.exec(value);
    if (match && (best === undefined || match.index < best.index))
      best = { index: match.index, parts: toParts(match) };
  }
  return best ? isoOf(best.parts) : undefined;
}

function isoOf({ year, month, day, time, zone }: DateParts): string | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < 1980 || year > 2200) return undefined;
  const [hours = 0, minutes = 0, seconds = 0] = (time ?? '').split(':').map((part) => Number(part) || 0);
  const ms = Date.UTC(year, month - 1, day, hours, minutes, 0, Math.round(seconds * 1000));
  const date = new Date(ms);
  if (date.getUTCDate() !== day || hours > 23 || minutes > 59) return undefined;
  return new Date(ms - zoneOffsetMinutes(zone) * 60_000).toISOString();
}

function zoneOffsetMinutes(zone: string | undefined): number {
  if (!zone) return 0;
  const named = ZONES[zone.toLowerCase()];
  if (named !== undefined) return named;
  const numeric = /([+-])(\d{1,2}):?(\d{2})?/.exec(zone);
  if (!numeric) return 0;
  const minutes = Number(numeric[2]) * 60 + Number(numeric[3] ?? 0);
  return numeric[1] === '-' ? -minutes : minutes;
}
