/**
 * From real banners to records (ADR 100), through the Recog databases of ../shared/data/recog: Recog's params as
 * its Ruby matcher gives them, CPE 2.2 URIs bound as CPE 2.3 names, a banner without a version never claiming one
 * (the CPE says `*`, which enrichment answers with version_unknown), and the evidence priority.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { CatalogueMatcher } from '../../../src/catalogue/domain/matching.js';
import { readCatalogueFile } from '../../../src/catalogue/import/parse-catalogue-files.js';
import { cpe23FromRecog } from '../../../src/fingerprints/domain/cpe-conversion.js';
import { recogIdentifier } from '../../../src/fingerprints/domain/identify.js';
import { parseRecogDatabase } from '../../../src/fingerprints/domain/recog-database.js';
import { RecogMatcher } from '../../../src/fingerprints/domain/recog-matcher.js';
import { verifyExamples } from '../../../src/fingerprints/domain/recog-verification.js';
import { validateRecord } from '../../../src/search/domain/records.js';

const RECOG = join(process.cwd(), '..', 'shared', 'data', 'recog');
const databases = readdirSync(RECOG)
  .filter((name) => name.endsWith('.xml'))
  .sort()
  .map((name) => parseRecogDatabase(name, readFileSync(join(RECOG, name), 'utf8')));
const matcher = new RecogMatcher(databases);
const identifier = recogIdentifier(matcher);
const host = { ip: '192.0.2.10', port: 22, transport: 'tcp' };
const sshExample = (text: string) =>
  databases
    .find((database) => database.name === 'ssh_banners.xml')!
    .fingerprints.flatMap((fingerprint) => fingerprint.examples)
    .find((example) => example.text === text);

describe('CPE 2.2 URI to CPE 2.3 formatted string', () => {
  it('binds each component, ANY for the missing ones', () => {
    expect(cpe23FromRecog('cpe:/a:apache:http_server:2.4.49')).toBe(
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
    );
    expect(cpe23FromRecog('cpe:/o:canonical:ubuntu_linux:20.04')).toBe(
      'cpe:2.3:o:canonical:ubuntu_linux:20.04:*:*:*:*:*:*:*',
    );
    expect(cpe23FromRecog('cpe:/h:cisco:asa_5505')).toBe('cpe:2.3:h:cisco:asa_5505:*:*:*:*:*:*:*:*');
  });

  it('decodes percent escapes, quotes what a formatted string must quote, unpacks a packed edition', () => {
    expect(cpe23FromRecog('cpe:/a:foo%21bar:baz:1.0%3a2')).toBe(
      'cpe:2.3:a:foo\\!bar:baz:1.0\\:2:*:*:*:*:*:*:*',
    );
    expect(cpe23FromRecog('cpe:/a:vendor:product:1.0:update1:~pro~sw~linux~x64~other:en')).toBe(
      'cpe:2.3:a:vendor:product:1.0:update1:pro:en:sw:linux:x64:other',
    );
    expect(cpe23FromRecog('cpe:/a:vendor:product:1.0 beta')).toBe(
      'cpe:2.3:a:vendor:product:1.0_beta:*:*:*:*:*:*:*',
    );
  });

  it('never claims a version it did not see: - (NA) and an empty version become * (ANY)', () => {
    expect(cpe23FromRecog('cpe:/a:openbsd:openssh:-')).toBe('cpe:2.3:a:openbsd:openssh:*:*:*:*:*:*:*:*');
    expect(cpe23FromRecog('cpe:/o:hp:integrated_lights-out_firmware:-')).toBe(
      'cpe:2.3:o:hp:integrated_lights-out_firmware:*:*:*:*:*:*:*:*',
    );
  });

  it('refuses what is not a usable CPE', () => {
    expect(cpe23FromRecog('cpe:/x:foo:bar')).toBeNull();
    expect(cpe23FromRecog('cpe:/a::bar')).toBeNull();
    expect(cpe23FromRecog('apache')).toBeNull();
  });
});

describe('identify() on real banners', () => {
  it('an Apache Server header: vendor, product, version and a CPE that passes validateRecord', () => {
    const record = identifier.identify('hosts', { ...host, port: 80 }, [
      { matches: 'http_header.server', text: 'Apache/2.4.49 (Unix)' },
    ]);
    expect(record).toEqual({
      ...host,
      port: 80,
      vendor: 'apache',
      product: 'httpd',
      version: '2.4.49',
      cpe: ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'],
    });
    const validated = validateRecord('hosts', {
      ...record,
      id: '192.0.2.10:80/tcp',
      first_seen: '2026-11-28T00:00:00Z',
      last_seen: '2026-11-28T00:00:00Z',
    });
    expect(validated.ok).toBe(true);
  });

  it('an OpenSSH banner from ssh_banners.xml: the service and the operating system it names', () => {
    const text = 'OpenSSH_7.4p1 Debian-10+deb9u1';
    expect(sshExample(text)).toBeDefined();
    // The whole identification line, as some collectors keep it, identifies the same.
    expect(
      identifier.identify('hosts', host, [{ matches: 'ssh.banner', text: `SSH-2.0-${text}\r\n` }]),
    ).toEqual(identifier.identify('hosts', host, [{ matches: 'ssh.banner', text }]));
    expect(identifier.identify('hosts', host, [{ matches: 'ssh.banner', text }])).toEqual({
      ...host,
      vendor: 'openbsd',
      product: 'openssh',
      version: '7.4p1',
      cpe: [
        'cpe:2.3:a:openbsd:openssh:7.4p1:*:*:*:*:*:*:*',
        'cpe:2.3:o:debian:debian_linux:9.0:*:*:*:*:*:*:*',
      ],
    });
  });

  it('a banner without a version: no version, the CPE version is *, and enrichment answers version_unknown', async () => {
    const record = identifier.identify('hosts', { ...host, port: 80 }, [
      { matches: 'http_header.server', text: 'Apache' },
    ]);
    expect(record).toEqual({
      ...host,
      port: 80,
      vendor: 'apache',
      product: 'httpd',
      cpe: ['cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*'],
    });
    const nvd = join(process.cwd(), '..', 'shared', 'data', 'nvd', 'CVE-2021-41773.json');
    const advisories = (await readCatalogueFile(nvd)).advisories;
    const catalogue = new CatalogueMatcher(advisories, null, {
      version: 1,
      evaluated_at: null,
      kev_source: null,
      advisories: advisories.length,
      kev_entries: 0,
    });
    const [evaluation] = catalogue.evaluateCpes(record.cpe as string[]);
    expect(evaluation).toMatchObject({ status: 'indeterminate', complete: false, reason: 'version_unknown' });
    expect(evaluation!.findings).toEqual([]);
  });

  it('the protocol banner before the Server header before the title; CPEs of every match, the identity first', () => {
    const record = identifier.identify('hosts', { ...host, port: 80 }, [
      { matches: 'html_title', text: 'Apache2 Ubuntu Default Page: It works' },
      { matches: 'http_header.server', text: 'nginx/1.18.0 (Ubuntu)' },
    ]);
    expect(record).toMatchObject({ vendor: 'nginx', product: 'nginx', version: '1.18.0' });
    expect((record.cpe as string[])[0]).toBe('cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*');
    expect(record.cpe).toContain('cpe:2.3:a:apache:http_server:*:*:*:*:*:*:*:*');
  });

  it('keeps what the collector already identified; other datasets and unmatched evidence pass unchanged', () => {
    const own = {
      ...host,
      product: 'dropbear',
      cpe: ['cpe:2.3:a:dropbear_ssh_project:dropbear_ssh:2020.81:*:*:*:*:*:*:*'],
    };
    const record = identifier.identify('hosts', own, [
      { matches: 'ssh.banner', text: 'OpenSSH_8.2p1 Ubuntu-4ubuntu0.5' },
    ]);
    expect(record.product).toBe('dropbear');
    expect((record.cpe as string[])[0]).toBe(own.cpe[0]);
    expect(record.cpe).toContain('cpe:2.3:a:openbsd:openssh:8.2p1:*:*:*:*:*:*:*');
    const vhost = { fingerprint: 'ab'.repeat(32) };
    expect(identifier.identify('vhosts', vhost, [{ matches: 'x509.subject', text: 'CN=foo' }])).toBe(vhost);
    expect(identifier.identify('hosts', host, [{ matches: 'ssh.banner', text: '\u0000nothing' }])).toBe(host);
  });
});

describe("Recog's own verification", () => {
  it('every example of every database in ../shared/data/recog passes through the matcher', () => {
    const report = verifyExamples(databases, matcher);
    expect(matcher.unsupported).toEqual([]);
    expect(report.examples).toBe(3322);
    expect(report.failures).toEqual([]);
    expect(report.passed).toBe(3322);
  });

  it('reports an example whose expected param differs, and one an earlier fingerprint takes', () => {
    const xml = `<?xml version="1.0"?>
<fingerprints matches="ssh.banner" protocol="ssh">
  <fingerprint pattern="^OpenSSH_(\\S+)">
    <description>generic</description>
    <example service.version="9.9">OpenSSH_8.0</example>
    <param pos="1" name="service.version"/>
  </fingerprint>
  <fingerprint pattern="^OpenSSH_8\\.0$">
    <description>shadowed</description>
    <example _encoding="base64">T3BlblNTSF84LjA=</example>
  </fingerprint>
</fingerprints>`;
    const database = parseRecogDatabase('mine.xml', xml);
    const report = verifyExamples([database], new RecogMatcher([database]));
    expect(report).toMatchObject({ examples: 2, passed: 0, failed: 2 });
    expect(report.failures.map((failure) => failure.reason)).toEqual([
      'service.version is "8.0", expected "9.9"',
      'matched earlier by fingerprint #1 (generic)',
    ]);
    expect(report.failures[1]!.example).toBe('OpenSSH_8.0');
  });
});
