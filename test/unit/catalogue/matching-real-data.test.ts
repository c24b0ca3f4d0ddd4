/**
 * CPE matching against the real NVD records and CISA KEV catalogue in ../shared/data (never copied into the
 * project). Each row: an observed CPE, the CVE ids the catalogue must report, and which of them are KEV-listed.
 * Boundary versions sit on each side of every range kind (start including, end including, end excluding,
 * exact versions with update fields).
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CatalogueMatcher } from '../../../src/catalogue/domain/matching.js';
import {
  collectCatalogueFiles,
  readCatalogueFile,
} from '../../../src/catalogue/import/parse-catalogue-files.js';
import type { Advisory, KevEntry } from '../../../src/catalogue/domain/advisory.js';

const DATA = join(process.cwd(), '..', 'shared', 'data');

async function loadRealCatalogue(): Promise<CatalogueMatcher> {
  const files = await collectCatalogueFiles([join(DATA, 'nvd'), join(DATA, 'kev')]);
  const byId = new Map<string, Advisory>();
  let kev: KevEntry[] | null = null;
  for (const file of files) {
    const parsed = await readCatalogueFile(file);
    for (const advisory of parsed.advisories) {
      const previous = byId.get(advisory.id);
      if (!previous || (advisory.last_modified ?? '') > (previous.last_modified ?? ''))
        byId.set(advisory.id, advisory);
    }
    if (parsed.kev) kev = [...parsed.kev.entries];
  }
  return new CatalogueMatcher(byId.values(), kev, {
    version: 1,
    evaluated_at: null,
    kev_source: null,
    advisories: byId.size,
    kev_entries: kev?.length ?? 0,
  });
}

const cpe = (vendor: string, product: string, version: string, update = '*', swEdition = '*', part = 'a') =>
  `cpe:2.3:${part}:${vendor}:${product}:${version}:${update}:*:*:${swEdition}:*:*:*`;

/** [observed CPE, expected CVE ids, the KEV-listed ones among them] */
const CASES: ReadonlyArray<readonly [string, readonly string[], readonly string[]]> = [
  // nginx: start including 1.3.9 / end including 1.4.0 (CVE-2013-2028), end excluding 1.17.7 and 1.20.1
  [cpe('f5', 'nginx', '1.3.8'), ['CVE-2019-20372', 'CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.3.9'), ['CVE-2013-2028', 'CVE-2019-20372', 'CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.4.0'), ['CVE-2013-2028', 'CVE-2019-20372', 'CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.4.1'), ['CVE-2019-20372', 'CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.17.6'), ['CVE-2019-20372', 'CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.17.7'), ['CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.20.0'), ['CVE-2021-23017'], []],
  [cpe('f5', 'nginx', '1.20.1'), [], []],
  [cpe('f5', 'nginx', '0.6.17'), ['CVE-2019-20372'], []],
  // Apache httpd: exact versions and an end-including range
  [
    cpe('apache', 'http_server', '2.4.49'),
    ['CVE-2021-41773', 'CVE-2021-42013', 'CVE-2023-25690'],
    ['CVE-2021-41773', 'CVE-2021-42013'],
  ],
  [cpe('apache', 'http_server', '2.4.50'), ['CVE-2021-42013', 'CVE-2023-25690'], ['CVE-2021-42013']],
  [cpe('apache', 'http_server', '2.4.55'), ['CVE-2023-25690'], []],
  [cpe('apache', 'http_server', '2.4.56'), [], []],
  // OpenSSH: versions with p-updates, exact `9.3:-` / `9.3:p1` / `8.5:p1` criteria
  [cpe('openbsd', 'openssh', '6.1', 'p1'), ['CVE-2023-38408'], []],
  [cpe('openbsd', 'openssh', '6.2'), ['CVE-2021-41617', 'CVE-2023-38408'], []],
  [cpe('openbsd', 'openssh', '8.5', 'p1'), ['CVE-2021-41617', 'CVE-2023-38408', 'CVE-2024-6387'], []],
  [cpe('openbsd', 'openssh', '8.7', 'p1'), ['CVE-2021-41617', 'CVE-2023-38408', 'CVE-2024-6387'], []],
  [cpe('openbsd', 'openssh', '8.8', 'p1'), ['CVE-2023-38408', 'CVE-2024-6387'], []],
  [cpe('openbsd', 'openssh', '9.3', 'p1'), ['CVE-2023-38408', 'CVE-2024-6387'], []],
  [cpe('openbsd', 'openssh', '9.8', 'p1'), [], []],
  // OpenSSL: letter releases against end-excluding bounds
  [cpe('openssl', 'openssl', '1.0.1f'), ['CVE-2014-0160'], ['CVE-2014-0160']],
  [cpe('openssl', 'openssl', '1.0.1g'), [], []],
  [cpe('openssl', 'openssl', '1.0.2k'), ['CVE-2023-0286'], []],
  [cpe('openssl', 'openssl', '1.1.1s'), ['CVE-2023-0286'], []],
  [cpe('openssl', 'openssl', '1.1.1t'), [], []],
  // Log4j: pre-releases as exact criteria (2.0:beta9), ranges around 2.15.0 / 2.17.1
  [cpe('apache', 'log4j', '2.0', 'beta9'), ['CVE-2021-44228', 'CVE-2021-44832'], ['CVE-2021-44228']],
  [cpe('apache', 'log4j', '2.14.1'), ['CVE-2021-44228', 'CVE-2021-44832'], ['CVE-2021-44228']],
  [cpe('apache', 'log4j', '2.15.0'), ['CVE-2021-44832'], []],
  [cpe('apache', 'log4j', '2.17.1'), [], []],
  // Jenkins: sw_edition lts vs `-` (weekly)
  [
    cpe('jenkins', 'jenkins', '2.138.3', '*', 'lts'),
    ['CVE-2018-1000861', 'CVE-2024-23897'],
    ['CVE-2018-1000861', 'CVE-2024-23897'],
  ],
  [cpe('jenkins', 'jenkins', '2.426.2', '*', 'lts'), ['CVE-2024-23897'], ['CVE-2024-23897']],
  [cpe('jenkins', 'jenkins', '2.426.3', '*', 'lts'), [], []],
  [cpe('jenkins', 'jenkins', '2.441', '*', '-'), ['CVE-2024-23897'], ['CVE-2024-23897']],
  [cpe('jenkins', 'jenkins', '2.442', '*', '-'), [], []],
  // FortiOS (part o)
  [
    cpe('fortinet', 'fortios', '6.0.4', '*', '*', 'o'),
    ['CVE-2018-13379', 'CVE-2024-21762'],
    ['CVE-2018-13379', 'CVE-2024-21762'],
  ],
  [cpe('fortinet', 'fortios', '6.0.5', '*', '*', 'o'), ['CVE-2024-21762'], ['CVE-2024-21762']],
  [cpe('fortinet', 'fortios', '7.4.3', '*', '*', 'o'), [], []],
  // Exchange: version and cumulative update as exact criteria
  [
    cpe('microsoft', 'exchange_server', '2016', 'cumulative_update_19'),
    ['CVE-2021-26855', 'CVE-2021-34473'],
    ['CVE-2021-26855', 'CVE-2021-34473'],
  ],
  // Cisco IOS XE: `17.9.4a` end excluding
  [cpe('cisco', 'ios_xe', '17.9.3', '*', '*', 'o'), ['CVE-2023-20198'], ['CVE-2023-20198']],
  [cpe('cisco', 'ios_xe', '17.9.4a', '*', '*', 'o'), [], []],
];

describe('CPE matching against the real NVD and KEV data', () => {
  let matcher: CatalogueMatcher;
  beforeAll(async () => {
    expect(existsSync(DATA)).toBe(true);
    matcher = await loadRealCatalogue();
  });

  it(`reports the expected CVEs and KEV flags for ${CASES.length} observations`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
    const results = CASES.map(([observed]) => {
      const [evaluation] = matcher.evaluateCpes([observed]);
      const plain = evaluation!.findings.filter((f) => f.additional_conditions.length === 0);
      return [
        observed,
        plain.map((f) => f.id).sort(),
        plain
          .filter((f) => f.kev !== false && f.kev !== null)
          .map((f) => f.id)
          .sort(),
      ];
    });
    expect(results).toEqual(
      CASES.map(([observed, ids, kev]) => [observed, [...ids].sort(), [...kev].sort()]),
    );
  });

  it('a complete no_match only when nothing applies and every advisory was decided', () => {
    const [evaluation] = matcher.evaluateCpes([cpe('f5', 'nginx', '1.20.1')]);
    expect(evaluation).toMatchObject({
      status: 'no_match',
      complete: true,
      reason: 'no_applicable_advisory',
      total: 0,
    });
    const [unknownProduct] = matcher.evaluateCpes([cpe('example', 'nothing', '1.0')]);
    expect(unknownProduct).toMatchObject({
      status: 'no_match',
      complete: true,
      reason: 'product_not_in_catalogue',
    });
  });

  it('an observation without a version is indeterminate, never a negative', () => {
    const [evaluation] = matcher.evaluateCpes([cpe('f5', 'nginx', '*')]);
    expect(evaluation).toMatchObject({
      status: 'indeterminate',
      complete: false,
      reason: 'version_unknown',
      total: 0,
    });
    expect(evaluation!.undetermined).toEqual(['CVE-2013-2028', 'CVE-2019-20372', 'CVE-2021-23017']);
  });

  it('an observation without the software edition is undecided on that attribute, never version_unknown when the version is known', () => {
    // Jenkins 2.440 without its sw_edition: CVE-2024-23897 applies to weekly releases (`-`) before 2.442 and
    // to LTS before 2.426.3, so it hangs on the edition only.
    const [jenkins] = matcher.evaluateCpes([cpe('jenkins', 'jenkins', '2.440')]);
    expect(jenkins).toMatchObject({
      status: 'indeterminate',
      complete: false,
      reason: 'sw_edition_unknown',
      unknown_attributes: ['sw_edition'],
      undetermined: ['CVE-2024-23897'],
      total: 1,
    });
    expect(jenkins!.findings).toEqual([
      expect.objectContaining({
        id: 'CVE-2024-23897',
        kev: expect.objectContaining({ cve_id: 'CVE-2024-23897' }),
        matched_criteria: [],
        additional_conditions: [
          {
            operator: 'OR',
            criteria: ['cpe:2.3:a:jenkins:jenkins:*:*:*:*:-:*:*:*'],
            unknown_attributes: ['sw_edition'],
            note: expect.stringMatching(/software edition \(sw_edition\)/),
          },
        ],
      }),
    ]);
    // Told the edition, it is decided either way.
    expect(matcher.evaluateCpes([cpe('jenkins', 'jenkins', '2.440', '*', '-')])[0]).toMatchObject({
      status: 'matched',
      complete: true,
    });
    expect(matcher.evaluateCpes([cpe('jenkins', 'jenkins', '2.440', '*', 'lts')])[0]).toMatchObject({
      status: 'no_match',
      complete: true,
    });
  });

  it('an observation without the update is undecided on the update: the CVEs at stake list the updates they need', () => {
    const [exchange] = matcher.evaluateCpes([cpe('microsoft', 'exchange_server', '2016')]);
    expect(exchange).toMatchObject({
      status: 'indeterminate',
      complete: false,
      reason: 'update_unknown',
      unknown_attributes: ['update'],
    });
    const proxyShell = exchange!.findings.find((finding) => finding.id === 'CVE-2021-34473');
    expect(proxyShell!.additional_conditions).toEqual([
      {
        operator: 'OR',
        criteria: [
          'cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_19:*:*:*:*:*:*',
          'cpe:2.3:a:microsoft:exchange_server:2016:cumulative_update_20:*:*:*:*:*:*',
        ],
        unknown_attributes: ['update'],
        note: expect.stringMatching(/update/),
      },
    ]);
    expect(exchange!.undetermined).toEqual(exchange!.findings.map((finding) => finding.id).sort());
    // The version stays the first question: without it, the reason is version_unknown.
    expect(matcher.evaluateCpes([cpe('microsoft', 'exchange_server', '*')])[0]).toMatchObject({
      reason: 'version_unknown',
    });
  });

  it('a platform-conditioned CVE carries additional_conditions until the platform is observed', () => {
    const identityManager = cpe('vmware', 'identity_manager', '3.3.3');
    const [alone] = matcher.evaluateCpes([identityManager]);
    expect(alone).toMatchObject({
      status: 'indeterminate',
      reason: 'additional_conditions',
      complete: false,
    });
    expect(alone!.findings).toHaveLength(1);
    expect(alone!.findings[0]).toMatchObject({
      id: 'CVE-2022-22954',
      additional_conditions: [{ operator: 'OR', criteria: ['cpe:2.3:a:linux:linux_kernel:-:*:*:*:*:*:*:*'] }],
      observed_products: [{ vendor: 'vmware', product: 'identity_manager', version: '3.3.3' }],
    });
    expect(alone!.findings[0]!.kev).toMatchObject({ cve_id: 'CVE-2022-22954' });
    // With the platform among the CPEs of the same request, it is a plain match.
    const [withPlatform] = matcher.evaluateCpes([
      identityManager,
      'cpe:2.3:a:linux:linux_kernel:-:*:*:*:*:*:*:*',
    ]);
    expect(withPlatform).toMatchObject({ status: 'matched', complete: true });
    expect(withPlatform!.findings[0]).toMatchObject({ id: 'CVE-2022-22954', additional_conditions: [] });
    // Firmware whose CVE needs the hardware model (vulnerable:false criteria): conditional too.
    const [firmware] = matcher.evaluateCpes([
      cpe('rockwellautomation', 'allen-bradley_stratix_5200_firmware', '17.12.01', '*', '*', 'o'),
    ]);
    expect(firmware!.findings.map((f) => [f.id, f.additional_conditions.length])).toEqual([
      ['CVE-2023-20198', 1],
    ]);
  });

  it('findings carry the advisory details and kev false for an unlisted CVE', () => {
    const [evaluation] = matcher.evaluateCpes([cpe('apache', 'http_server', '2.4.49')]);
    const byId = new Map(evaluation!.findings.map((f) => [f.id, f]));
    expect(byId.get('CVE-2021-41773')).toMatchObject({
      cvss: { base_score: 7.5, base_severity: 'HIGH', vector_string: expect.stringMatching(/^CVSS:3\.1\//) },
      cwe: ['CWE-22'],
      published: expect.stringMatching(/^2021-10-05/),
      kev: { cve_id: 'CVE-2021-41773', date_added: expect.any(String) },
    });
    expect(byId.get('CVE-2023-25690')!.kev).toBe(false);
    // KEV-listed findings come first.
    expect(evaluation!.findings[evaluation!.findings.length - 1]!.id).toBe('CVE-2023-25690');
  });

  it('kev is null (unknown), not false, when no KEV catalogue is loaded', () => {
    const withoutKev = new CatalogueMatcher(
      [
        {
          id: 'CVE-2099-0001',
          published: null,
          last_modified: null,
          vuln_status: null,
          description: null,
          cvss: null,
          cwe: [],
          configurations: [
            {
              operator: 'OR',
              negate: false,
              nodes: [
                {
                  operator: 'OR',
                  negate: false,
                  cpeMatch: [{ vulnerable: true, criteria: cpe('x', 'y', '1.0') }],
                },
              ],
            },
          ],
        },
      ],
      null,
      { version: 1, evaluated_at: null, kev_source: null, advisories: 1, kev_entries: 0 },
    );
    expect(withoutKev.evaluateCpes([cpe('x', 'y', '1.0')])[0]!.findings[0]!.kev).toBeNull();
  });

  it('associations of a host observation include conditional ones, flagged', () => {
    const associations = matcher.associationsOf([
      cpe('apache', 'http_server', '2.4.49'),
      cpe('vmware', 'identity_manager', '3.3.3'),
    ]);
    expect(associations).toEqual([
      { cve_id: 'CVE-2021-41773', kev: true, conditional: false },
      { cve_id: 'CVE-2021-42013', kev: true, conditional: false },
      { cve_id: 'CVE-2022-22954', kev: true, conditional: true },
      { cve_id: 'CVE-2023-25690', kev: false, conditional: false },
    ]);
  });
});
