import type { ObservationRecord, WhoisRecord } from '../../domain/records.js';
import type { NsProvider } from './domain-tables.js';
import { domainProfile, nameServers } from './domains.js';
import { Rng, Stream, weighted } from './random.js';
import { DAY, iso, SECOND, seenWindow, YEAR } from './time.js';
import type { World } from './world.js';

/** The whois dataset: one registration per domain of the world (registrar, dates, contacts). */

const REGISTRARS = weighted<string>([
  ['GoDaddy.com, LLC', 22],
  ['NameCheap, Inc.', 10],
  ['Tucows Domains Inc.', 6],
  ['Squarespace Domains II LLC', 4],
  ['Network Solutions, LLC', 3],
  ['Gandi SAS', 3],
  ['OVH sas', 5],
  ['IONOS SE', 5],
  ['Cloudflare, Inc.', 5],
  ['Key-Systems GmbH', 3],
  ['Porkbun LLC', 3],
  ['Amazon Registrar, Inc.', 3],
  ['PDR Ltd. d/b/a PublicDomainRegistry.com', 4],
  ['Hostinger operations, UAB', 3],
  ['Dynadot Inc', 2],
  ['eNom, LLC', 2],
  ['Register.com, Inc.', 1],
  ['Wild West Domains, LLC', 2],
  ['Realtime Register B.V.', 1],
  ['Alibaba Cloud Computing (Beijing) Co., Ltd.', 2],
  ['Registrar of domain names REG.RU LLC', 2],
]);

const REGISTRAR_BY_NS: Partial<Record<NsProvider, string>> = {
  godaddy: 'GoDaddy.com, LLC',
  namecheap: 'NameCheap, Inc.',
  ovh: 'OVH sas',
  gandi: 'Gandi SAS',
  ionos: 'IONOS SE',
  markmonitor: 'MarkMonitor Inc.',
};

const PRIVACY_ORGS: Readonly<Record<string, string>> = {
  'GoDaddy.com, LLC': 'Domains By Proxy, LLC',
  'NameCheap, Inc.': 'Privacy service provided by Withheld for Privacy ehf',
  'Tucows Domains Inc.': 'Contact Privacy Inc. Customer 0123456789',
  'Gandi SAS': 'Gandi SAS',
};

const FIRST_NAMES = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'Thomas',
  'Sarah',
  'Daniel',
  'Laura',
  'Jean',
  'Marie',
  'Pierre',
  'Sophie',
  'Nicolas',
  'Camille',
  'Lukas',
  'Anna',
  'Jonas',
  'Lea',
  'Felix',
  'Hannah',
  'Hiroshi',
  'Yuki',
  'Wei',
  'Li',
  'Carlos',
  'Ana',
  'Javier',
  'Lucia',
  'Marco',
  'Giulia',
  'Jan',
  'Eva',
  'Olga',
  'Ivan',
];
const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Miller',
  'Davis',
  'Wilson',
  'Taylor',
  'Martin',
  'Dupont',
  'Durand',
  'Lefebvre',
  'Moreau',
  'Bernard',
  'Müller',
  'Schmidt',
  'Schneider',
  'Fischer',
  'Weber',
  'Tanaka',
  'Suzuki',
  'Wang',
  'Zhang',
  'Garcia',
  'Rodriguez',
  'Lopez',
  'Rossi',
  'Bianchi',
  'Jansen',
  'de Vries',
  'Kowalski',
  'Nowak',
  'Ivanov',
  'Petrov',
];
const MAILBOXES = [
  'gmail.com',
  'outlook.com',
  'yahoo.com',
  'hotmail.com',
  'gmx.de',
  'orange.fr',
  'proton.me',
  'icloud.com',
];

function emailLocal(first: string, last: string): string {
  return `${first}.${last}`
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-zA-Z.]/g, '')
    .toLowerCase();
}

function whoisRecord(world: World, d: number): WhoisRecord {
  const domain = domainProfile(world, d);
  const rng = new Rng(world.seed, Stream.Whois, d);
  const registrar =
    REGISTRAR_BY_NS[domain.ns] && rng.chance(0.85)
      ? REGISTRAR_BY_NS[domain.ns]!
      : domain.ns === 'cloudflare' && rng.chance(0.35)
        ? 'Cloudflare, Inc.'
        : domain.ns === 'route53' && rng.chance(0.4)
          ? 'Amazon Registrar, Inc.'
          : rng.weighted(REGISTRARS);
  const created =
    Math.floor((world.now - domain.createdYearsAgo * YEAR) / DAY) * DAY + rng.int(86_400) * SECOND;
  const yearsHeld = Math.floor((world.now - created) / YEAR);
  const state = rng.next();
  let expires: number;
  let status: string[];
  if (state < 0.04) {
    expires = created + yearsHeld * YEAR - rng.between(1, 60) * DAY;
    status = rng.pick([['redemptionPeriod'], ['clientHold'], ['pendingDelete']]);
  } else if (state < 0.08) {
    expires = world.now + rng.between(1, 30) * DAY;
    status = ['clientTransferProhibited', 'autoRenewPeriod'];
  } else {
    expires = created + (yearsHeld + 1 + rng.int(3)) * YEAR;
    status =
      registrar.startsWith('MarkMonitor') || rng.chance(0.2)
        ? ['clientDeleteProhibited', 'clientTransferProhibited', 'clientUpdateProhibited']
        : rng.chance(0.75)
          ? ['clientTransferProhibited']
          : ['ok'];
  }
  if (expires < created) expires = created + YEAR;
  const updated = Math.min(
    world.now - DAY,
    Math.max(created, world.now - Math.pow(rng.next(), 2) * 3 * YEAR),
  );
  const window = seenWindow(rng, world.now, 2.5);
  const record: Record<string, unknown> = {
    id: domain.name,
    domain: domain.name,
    registrar: registrar.toLowerCase(),
    status: [...new Set(status.map((s) => s.toLowerCase()))],
    name_servers: nameServers(domain).map((n) => n.toLowerCase()),
    created: iso(created),
    updated: iso(Math.max(created, updated)),
    expires: iso(expires),
  };
  const kind = rng.next();
  const registrant: Record<string, string> = { country: domain.country };
  let person: { first: string; last: string } | undefined;
  if (kind < 0.55) registrant.organization = domain.organization.toLowerCase();
  else if (kind < 0.75)
    registrant.organization = (PRIVACY_ORGS[registrar] ?? 'Redacted for Privacy').toLowerCase();
  else if (kind < 0.95) {
    person = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
    registrant.name = `${person.first} ${person.last}`.toLowerCase();
    registrant.email = `${emailLocal(person.first, person.last)}@${rng.chance(0.6) ? rng.pick(MAILBOXES) : domain.name}`;
  } else {
    registrant.organization = domain.organization.toLowerCase();
    person = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
    registrant.name = `${person.first} ${person.last}`.toLowerCase();
    registrant.email = `${rng.pick(['admin', 'it', 'webmaster', 'contact', 'hostmaster'])}@${domain.name}`;
  }
  record.registrant = {
    ...(registrant.organization ? { organization: registrant.organization } : {}),
    country: registrant.country,
    ...(registrant.name ? { name: registrant.name } : {}),
    ...(registrant.email ? { email: registrant.email } : {}),
  };
  if (person) {
    record.admin = { name: registrant.name, email: registrant.email };
    if (rng.chance(0.5)) {
      const tech = { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
      record.tech = {
        name: `${tech.first} ${tech.last}`.toLowerCase(),
        email: `${emailLocal(tech.first, tech.last)}@${rng.pick(MAILBOXES)}`,
      };
    } else record.tech = { name: registrant.name, email: registrant.email };
  }
  record.first_seen = iso(window.first);
  record.last_seen = iso(window.last);
  return record as WhoisRecord;
}

export function* whoisRecords(world: World): Generator<ObservationRecord> {
  for (let d = 0; ; d++) yield whoisRecord(world, d);
}
