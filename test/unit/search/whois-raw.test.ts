import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CollectedRecordRefused } from '../../../src/search/data/collectors/collected.js';
import { COLLECTOR_FORMATS } from '../../../src/search/data/collectors/formats.js';
import { whoisRawFormat } from '../../../src/search/data/collectors/whois-raw.js';
import { parseWhoisDate } from '../../../src/search/data/collectors/whois-registry-rules.js';
import { validateRecord } from '../../../src/search/domain/records.js';
import { redactWhoisRecord } from '../../../src/organizations/domain/policies.js';
import {
  AGREEMENT_FIELDS,
  formatWhoisAgreement,
  measureWhoisAgreement,
  WHOIS_SAMPLES,
} from '../../../bench/whois-agreement.js';

const RAW = join(WHOIS_SAMPLES, 'raw');
const SEEN_AT = '2026-11-28T12:00:00.000Z';
const SEEN = { first_seen: SEEN_AT, last_seen: SEEN_AT };

/** The stored form of a sample: whois-raw's record through the one gate every record passes. */
function imported(domain: string): Record<string, unknown> {
  const source = join(RAW, domain);
  const [collected] = whoisRawFormat.records(readFileSync(source), { seenAt: SEEN_AT, source });
  expect(collected!.dataset).toBe('whois');
  const validation = validateRecord('whois', collected!.record);
  if (!validation.ok) throw new Error(`${domain}: ${validation.problems.join('; ')}`);
  return validation.record;
}

describe('whois-raw: real port-43 responses of different registries, field by field', () => {
  it('.com (Verisign thin answer): the block of the queried name, not the "Server Name" spam blocks', () => {
    expect(imported('google.com')).toEqual({
      id: 'google.com',
      domain: 'google.com',
      registrar: 'markmonitor inc.',
      status: ['clientdeleteprohibited', 'clienttransferprohibited', 'clientupdateprohibited'],
      name_servers: ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com'],
      created: '1997-09-15T00:00:00.000Z',
      updated: '2006-04-10T00:00:00.000Z',
      expires: '2011-09-14T00:00:00.000Z',
      ...SEEN,
    });
  });

  it('.de (DENIC): no registrar or creation date published; the update date keeps its +01:00 offset', () => {
    expect(imported('google.de')).toEqual({
      id: 'google.de',
      domain: 'google.de',
      status: ['connect'],
      name_servers: ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com'],
      updated: '2018-03-12T20:44:25.000Z',
      ...SEEN,
    });
  });

  it('.fr (AFNIC): holder contact as registrant, EPP codes of the eppstatus lines', () => {
    expect(imported('google.fr')).toEqual({
      id: 'google.fr',
      domain: 'google.fr',
      registrar: 'markmonitor inc.',
      status: [
        'serverupdateprohibited',
        'servertransferprohibited',
        'serverdeleteprohibited',
        'serverrecoverprohibited',
      ],
      name_servers: ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com'],
      created: '2000-07-26T22:00:00.000Z',
      updated: '2025-12-03T10:12:00.352Z',
      expires: '2026-12-30T17:16:48.000Z',
      registrant: {
        country: 'ie',
        name: 'google ireland holdings unlimited company',
        email: 'dns-admin@google.com',
      },
      ...SEEN,
    });
  });

  it(".br (Registro.br): compact YYYYMMDD dates, the domain's own before its contacts'", () => {
    expect(imported('google.com.br')).toEqual({
      id: 'google.com.br',
      domain: 'google.com.br',
      status: ['published'],
      name_servers: ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com'],
      created: '1999-05-18T00:00:00.000Z',
      updated: '2019-04-17T00:00:00.000Z',
      expires: '2020-05-18T00:00:00.000Z',
      // ownerid 06.990.590/0001-23 is a CNPJ: the owner is a company, not a person.
      registrant: { organization: 'google brasil internet ltda', country: 'br' },
      ...SEEN,
    });
    const personOwned = readFileSync(join(RAW, 'google.com.br'), 'utf8')
      .replace('06.990.590/0001-23', '123.456.789-09')
      .replace('Google Brasil Internet Ltda', 'Maria da Silva');
    const [collected] = whoisRawFormat.records(personOwned, { seenAt: SEEN_AT, source: 'google.com.br' });
    expect(collected!.record).toMatchObject({ registrant: { name: 'Maria da Silva', country: 'BR' } });
    expect(collected!.record).not.toHaveProperty('registrant.organization');
  });

  it('.pl (NASK): registrar on the line after its label, YYYY.MM.DD dates, indented name servers', () => {
    expect(imported('allegro.pl')).toEqual({
      id: 'allegro.pl',
      domain: 'allegro.pl',
      registrar: 'corporation service company',
      name_servers: ['dns1.allegro.pl', 'dns2.allegro.pl', 'dns3.allegro.pl', 'dns4.allegro.pl'],
      created: '1999-10-27T13:00:00.000Z',
      updated: '2017-10-17T07:01:25.000Z',
      expires: '2018-10-26T15:00:00.000Z',
      ...SEEN,
    });
  });

  it('.nl (SIDN): the registrar name, not its address lines nor "Record maintained by"', () => {
    expect(imported('app.nl')).toEqual({
      id: 'app.nl',
      domain: 'app.nl',
      registrar: 'hosting secure',
      status: ['active'],
      name_servers: ['ns1.hoasted.nl', 'ns2.hoasted.eu', 'ns3.hoasted.com'],
      created: '1998-02-20T00:00:00.000Z',
      updated: '2025-09-12T00:00:00.000Z',
      ...SEEN,
    });
  });

  it('.cl and .co.cr: zone names (CLST is UTC-3) and day-first DD.MM.YYYY dates', () => {
    expect(imported('google.cl')).toMatchObject({
      created: '2002-10-22T20:48:23.000Z',
      expires: '2019-11-20T17:48:02.000Z',
    });
    expect(imported('google.co.cr')).toMatchObject({
      registrar: 'nic-reg1',
      created: '2002-04-18T18:00:00.000Z',
      updated: '2017-02-28T06:39:42.000Z',
      expires: '2020-04-17T00:00:00.000Z',
      registrant: { organization: 'markmonitor inc.' },
    });
  });

  it('.uk: "before Aug-1996" is the first day of that month; the response names the domain (gov.uk)', () => {
    expect(imported('www.gov.uk')).toMatchObject({
      id: 'gov.uk',
      domain: 'gov.uk',
      created: '1996-08-01T00:00:00.000Z',
      registrant: { name: 'uk cabinet office' },
    });
    // "No registrar listed. This domain is directly registered with Nominet." says there is none.
    expect(imported('www.gov.uk')).not.toHaveProperty('registrar');
  });

  it('.sk: a registrar given as a handle takes the name of its own block', () => {
    expect(imported('google.sk')).toMatchObject({
      registrar: 'fajnor ip s. r. o.',
      created: '2003-07-24T00:00:00.000Z',
      expires: '2019-07-24T00:00:00.000Z',
    });
  });

  it('.kg and .kz: labels whoiser does not know (Record created, Current Registar, Primary server)', () => {
    expect(imported('google.kg')).toEqual({
      id: 'google.kg',
      domain: 'google.kg',
      name_servers: ['ns1.google.com', 'ns2.google.com', 'ns4.google.com'],
      created: '2004-02-10T09:42:42.000Z',
      updated: '2025-03-05T00:13:49.000Z',
      expires: '2026-03-28T23:59:00.000Z',
      ...SEEN,
    });
    expect(imported('yandex.kz')).toEqual({
      id: 'yandex.kz',
      domain: 'yandex.kz',
      registrar: 'hoster.kz',
      name_servers: ['ns1.yandex.net', 'ns2.yandex.net'],
      created: '2009-07-01T12:44:02.000Z',
      updated: '2022-08-04T10:20:10.000Z',
      registrant: { organization: 'yandex.kazakhstan llp' },
      ...SEEN,
    });
  });

  it('.ve (NIC.VE): Spanish labels, a dash list of name servers, contacts under Titular/Contacto headings', () => {
    expect(imported('google.co.ve')).toEqual({
      id: 'google.co.ve',
      domain: 'google.co.ve',
      name_servers: ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com'],
      created: '2003-03-06T00:00:00.000Z',
      updated: '2005-11-17T20:35:01.000Z',
      expires: '2018-03-06T00:00:00.000Z',
      registrant: { name: 'google inc.', email: 'dns-admin@google.com' },
      admin: { name: 'dns admin', email: 'dns-admin@google.com' },
      tech: { name: 'dns admin', email: 'dns-admin@google.com' },
      ...SEEN,
    });
  });

  it('old .org (no space after the colon): contacts a Teams plan sees and the trial omits', () => {
    expect(imported('slashdot.org')).toMatchObject({
      registrar: 'tucows inc. (r11-lror)',
      status: ['ok'],
      created: '1997-10-05T04:00:00.000Z',
      expires: '2008-10-04T04:00:00.000Z',
      registrant: {
        organization: 'sourceforge, inc.',
        country: 'us',
        name: 'dns administration',
        email: 'dns-admin@corp.sourceforge.com',
      },
      admin: { name: 'dns administration', email: 'dns-admin@corp.sourceforge.com' },
      tech: { name: 'dns technical', email: 'dns-tech@corp.sourceforge.com' },
    });
  });

  it("the trial's redaction (rule 7) leaves the registration and removes every contact name and email", () => {
    const redacted = redactWhoisRecord(imported('slashdot.org'));
    expect(redacted).toMatchObject({
      registrar: 'tucows inc. (r11-lror)',
      registrant: { organization: 'sourceforge, inc.', country: 'us' },
    });
    expect(JSON.stringify(redacted)).not.toMatch(/dns administration|dns technical|@/);
  });

  it('withheld values ("REDACTED FOR PRIVACY", "Please query the RDDS service…") are absent, not data', () => {
    const record = imported('seal.jobs');
    expect(record).toEqual({
      id: 'seal.jobs',
      domain: 'seal.jobs',
      registrar: 'godaddy.com, llc',
      status: ['ok'],
      name_servers: ['pdns13.domaincontrol.com', 'pdns14.domaincontrol.com'],
      created: '2017-02-25T06:26:32.000Z',
      updated: '2018-03-22T13:44:07.000Z',
      expires: '2022-02-25T06:26:32.000Z',
      registrant: { organization: 'seal jobs nv', country: 'be' },
      ...SEEN,
    });
    expect(JSON.stringify(imported('brainly.lat'))).not.toMatch(/redacted|rdds|privacy/i);
    // A registry handle or a tax number is not a person's name.
    expect(imported('google.at')).not.toHaveProperty('registrant');
    expect(imported('afip.gob.ar')).not.toHaveProperty('registrant');
  });

  it('every sample becomes a record the validation gate accepts, first_seen/last_seen the import time', () => {
    const domains = readdirSync(RAW);
    expect(domains).toHaveLength(46);
    for (const domain of domains) {
      expect(imported(domain)).toMatchObject({ first_seen: SEEN_AT, last_seen: SEEN_AT });
    }
  });
});

describe('whois-raw: what is not a registration', () => {
  const context = { seenAt: SEEN_AT, source: '/imports/example.org' };

  it('takes the domain from the file name when the response does not name it', () => {
    const response = 'Registrar: Example Registrar, Inc.\nCreation Date: 2001-02-03T04:05:06Z\n';
    expect(whoisRawFormat.records(response, context)[0]!.record).toEqual({
      id: 'example.org',
      domain: 'example.org',
      registrar: 'Example Registrar, Inc.',
      created: '2001-02-03T04:05:06.000Z',
      ...SEEN,
    });
  });

  it('refuses a response with nothing parseable, with a reason', () => {
    const notFound =
      '% IANA WHOIS server\n\nNo match for "EXAMPLE.ORG".\n>>> Last update of WHOIS database <<<\n';
    expect(() => whoisRawFormat.records(notFound, context)).toThrow(CollectedRecordRefused);
    expect(() => whoisRawFormat.records(notFound, context)).toThrow(
      /no registration data in the WHOIS response for example\.org.*No match for "EXAMPLE\.ORG"/,
    );
    expect(() =>
      whoisRawFormat.records('hello world\n', { seenAt: SEEN_AT, source: '/imports/notes' }),
    ).toThrow(/no domain name in the WHOIS response, and the file name "notes" is not a domain/);
  });

  it("reads an answer whoiser's registry rules choke on with its generic reading (.fr without holder-c)", () => {
    const source = join(RAW, 'google.fr');
    const answer = readFileSync(source, 'utf8')
      .split('\n')
      .filter((line) => !/^(?:holder-c|admin-c|tech-c|billing-c):/.test(line))
      .join('\n');
    const [collected] = whoisRawFormat.records(answer, { seenAt: SEEN_AT, source });
    expect(collected!.record).toMatchObject({ domain: 'google.fr', registrar: 'MARKMONITOR Inc.' });
  });

  it('any head or tail of every sample is a valid record or a refusal with a reason, never an error', () => {
    let records = 0;
    let refusals = 0;
    for (const domain of readdirSync(RAW)) {
      const lines = readFileSync(join(RAW, domain), 'utf8').split('\n');
      const step = Math.max(1, Math.floor(lines.length / 6));
      for (let cut = 1; cut < lines.length; cut += step) {
        for (const part of [lines.slice(0, cut), lines.slice(cut)]) {
          for (const source of [join(RAW, domain), '-']) {
            try {
              const [collected] = whoisRawFormat.records(part.join('\n'), { seenAt: SEEN_AT, source });
              const validation = validateRecord('whois', collected!.record);
              expect([domain, cut, validation.ok ? [] : validation.problems]).toEqual([domain, cut, []]);
              records++;
            } catch (error) {
              expect(error).toBeInstanceOf(CollectedRecordRefused);
              expect((error as Error).message).toMatch(/no (?:domain name|registration data)/);
              refusals++;
            }
          }
        }
      }
    }
    expect(records).toBeGreaterThan(300);
    expect(refusals).toBeGreaterThan(0);
  });

  it('collapses tabs and runs of spaces inside a value', () => {
    const [collected] = whoisRawFormat.records(
      'Domain Name: example.org\nRegistrar:\tExample\t\tRegistrar\n',
      context,
    );
    expect(collected!.record).toMatchObject({ domain: 'example.org', registrar: 'Example Registrar' });
  });

  it('refuses a file far larger than any WHOIS answer', () => {
    expect(() => whoisRawFormat.records(Buffer.alloc(1_000_001, 0x61), context)).toThrow(
      /1000001 bytes is not one WHOIS response/,
    );
  });

  it('sniffs WHOIS text, and leaves NDJSON/JSON, PEM and masscan content to their formats', () => {
    for (const domain of readdirSync(RAW)) {
      expect([domain, whoisRawFormat.sniff(readFileSync(join(RAW, domain)))]).toEqual([domain, true]);
    }
    const others = [
      '{"domain":"example.org","registrar":"x","created":"2001-01-01"}\n',
      '[{"ip":"192.0.2.1","ports":[{"port":80,"proto":"tcp","status":"open"}]}]\n',
      '-----BEGIN CERTIFICATE-----\nRegistrar: x\nDomain Name: example.org\n-----END CERTIFICATE-----\n',
      '#masscan\nopen tcp 80 192.0.2.1 1700000000\n# end\n',
      'banner tcp 22 192.0.2.1 1700000000 ssh SSH-2.0-OpenSSH_8.9\n',
    ];
    for (const text of others) expect([text, whoisRawFormat.sniff(Buffer.from(text))]).toEqual([text, false]);
    expect(COLLECTOR_FORMATS).toContain(whoisRawFormat);
  });

  it('reads the registry date forms, the first date of a joined value, and no impossible date', () => {
    expect(parseWhoisDate('before Aug-1996')).toBe('1996-08-01T00:00:00.000Z');
    expect(parseWhoisDate('28.11.2005')).toBe('2005-11-28T00:00:00.000Z');
    expect(parseWhoisDate('2005-11-28 00:00:00 CLST')).toBe('2005-11-28T03:00:00.000Z');
    expect(parseWhoisDate('2002-12-04 00:00:00+02')).toBe('2002-12-03T22:00:00.000Z');
    expect(parseWhoisDate('20-feb-2000')).toBe('2000-02-20T00:00:00.000Z');
    expect(parseWhoisDate('2001-Aug-23.')).toBe('2001-08-23T00:00:00.000Z');
    expect(parseWhoisDate('Tue Feb 10 09:42:42 2004')).toBe('2004-02-10T09:42:42.000Z');
    expect(parseWhoisDate('19990518 #162310 20100520')).toBe('1999-05-18T00:00:00.000Z');
    expect(parseWhoisDate('1997-05-26 00:00:00 2013-10-30 00:00:00')).toBe('1997-05-26T00:00:00.000Z');
    expect(parseWhoisDate('2019-02-30')).toBeUndefined();
    expect(parseWhoisDate('not a date')).toBeUndefined();
  });
});

describe('whois-raw agreement with another parser (python-whois expected results, issue 17)', () => {
  it('agrees on ≥ 90% of registrars, creation and expiration dates where the reference has one', () => {
    const agreement = measureWhoisAgreement();
    process.stdout.write(`\nWHOIS agreement with python-whois\n${formatWhoisAgreement(agreement)}\n`);
    expect(agreement.samples).toBe(46);
    expect(agreement.refused).toEqual([]);
    for (const field of AGREEMENT_FIELDS) {
      const row = agreement.fields.find((candidate) => candidate.field === field)!;
      expect(row.compared).toBeGreaterThan(30);
      expect([field, row.percent >= 90]).toEqual([field, true]);
    }
  });
});
