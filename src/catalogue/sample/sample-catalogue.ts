/**
 * The project's own small sample catalogue, loaded at the first start on an empty store beside the demo corpus:
 * hand-written records in the NVD CVE API 2.0 shape (`{vulnerabilities: [{cve}]}`) for software the demo
 * generator produces, and a tiny KEV list in the CISA shape. The descriptions are short summaries written for the
 * demo; import the real NVD and KEV files with `npm run cli -- catalogue import <files or folders>`.
 */
import type { CatalogueService, ImportReport } from '../catalogue-service.js';
import { parseCatalogueText } from '../import/parse-catalogue-files.js';
import type { ObservationIndex } from '../../search/observation-index/observation-index.port.js';

const a = (vendor: string, product: string, version = '*', update = '*', swEdition = '*') =>
  `cpe:2.3:a:${vendor}:${product}:${version}:${update}:*:*:${swEdition}:*:*:*`;
const o = (vendor: string, product: string, version = '*') =>
  `cpe:2.3:o:${vendor}:${product}:${version}:*:*:*:*:*:*:*`;

interface Range {
  readonly criteria: string;
  readonly vulnerable?: boolean;
  readonly versionStartIncluding?: string;
  readonly versionEndIncluding?: string;
  readonly versionEndExcluding?: string;
}

function record(
  id: string,
  published: string,
  description: string,
  score: number,
  severity: string,
  vector: string,
  cwe: string,
  configurations: ReadonlyArray<{ operator?: 'AND'; nodes: ReadonlyArray<readonly Range[]> }>,
) {
  return {
    cve: {
      id,
      sourceIdentifier: 'sample@exposure-research.local',
      published,
      lastModified: published,
      vulnStatus: 'Analyzed',
      descriptions: [{ lang: 'en', value: description }],
      metrics: {
        cvssMetricV31: [
          {
            source: 'sample@exposure-research.local',
            type: 'Primary',
            cvssData: { version: '3.1', vectorString: vector, baseScore: score, baseSeverity: severity },
          },
        ],
      },
      weaknesses: [{ source: 'sample', type: 'Primary', description: [{ lang: 'en', value: cwe }] }],
      configurations: configurations.map((configuration) => ({
        ...(configuration.operator ? { operator: configuration.operator } : {}),
        nodes: configuration.nodes.map((matches) => ({
          operator: 'OR',
          negate: false,
          cpeMatch: matches.map(({ vulnerable, ...range }) => ({ vulnerable: vulnerable ?? true, ...range })),
        })),
      })),
    },
  };
}

const NETWORK_CRITICAL = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const NETWORK_HIGH_C = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N';

export const SAMPLE_NVD = {
  format: 'NVD_CVE',
  version: '2.0',
  vulnerabilities: [
    record(
      'CVE-2021-41773',
      '2021-10-05T09:15:07.593',
      'Sample: path traversal in Apache HTTP Server 2.4.49 lets a remote client read files outside the document root.',
      7.5,
      'HIGH',
      NETWORK_HIGH_C,
      'CWE-22',
      [{ nodes: [[{ criteria: a('apache', 'http_server', '2.4.49') }]] }],
    ),
    record(
      'CVE-2021-42013',
      '2021-10-07T16:15:09.270',
      'Sample: the incomplete fix for the 2.4.49 path traversal leaves Apache HTTP Server 2.4.49 and 2.4.50 open to file disclosure and code execution.',
      9.8,
      'CRITICAL',
      NETWORK_CRITICAL,
      'CWE-22',
      [
        {
          nodes: [
            [
              { criteria: a('apache', 'http_server', '2.4.49') },
              { criteria: a('apache', 'http_server', '2.4.50') },
            ],
          ],
        },
      ],
    ),
    record(
      'CVE-2021-23017',
      '2021-06-01T13:15:07.853',
      'Sample: an off-by-one in the nginx resolver lets a forged DNS response overwrite memory (0.6.18 up to, not including, 1.20.1).',
      7.7,
      'HIGH',
      'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:C/C:L/I:L/A:H',
      'CWE-193',
      [
        {
          nodes: [
            [{ criteria: a('f5', 'nginx'), versionStartIncluding: '0.6.18', versionEndExcluding: '1.20.1' }],
          ],
        },
      ],
    ),
    record(
      'CVE-2024-6387',
      '2024-07-01T13:15:06.467',
      'Sample: a signal handler race in OpenSSH sshd (8.5p1 up to, not including, 9.8) may allow unauthenticated code execution.',
      8.1,
      'HIGH',
      'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H',
      'CWE-364',
      [
        {
          nodes: [
            [
              { criteria: a('openbsd', 'openssh'), versionStartIncluding: '8.6', versionEndExcluding: '9.8' },
              { criteria: a('openbsd', 'openssh', '8.5', 'p1') },
            ],
          ],
        },
      ],
    ),
    record(
      'CVE-2023-0286',
      '2023-02-08T20:15:23.973',
      'Sample: a type confusion in X.400 address processing of OpenSSL can disclose memory or crash a client.',
      7.4,
      'HIGH',
      'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:H',
      'CWE-843',
      [
        {
          nodes: [
            [
              {
                criteria: a('openssl', 'openssl'),
                versionStartIncluding: '1.0.2',
                versionEndExcluding: '1.0.2zg',
              },
              {
                criteria: a('openssl', 'openssl'),
                versionStartIncluding: '1.1.1',
                versionEndExcluding: '1.1.1t',
              },
              {
                criteria: a('openssl', 'openssl'),
                versionStartIncluding: '3.0.0',
                versionEndExcluding: '3.0.8',
              },
            ],
          ],
        },
      ],
    ),
    record(
      'CVE-2024-23897',
      '2024-01-24T18:15:09.370',
      'Sample: the Jenkins CLI argument parser expands @file arguments, letting unauthenticated users read controller files.',
      9.8,
      'CRITICAL',
      NETWORK_CRITICAL,
      'CWE-22',
      [
        {
          nodes: [
            [
              { criteria: a('jenkins', 'jenkins', '*', '*', 'lts'), versionEndExcluding: '2.426.3' },
              { criteria: a('jenkins', 'jenkins', '*', '*', '-'), versionEndExcluding: '2.442' },
            ],
          ],
        },
      ],
    ),
    record(
      'CVE-2024-21762',
      '2024-02-09T09:15:08.087',
      'Sample: an out-of-bounds write in FortiOS SSL-VPN allows remote code execution through crafted HTTP requests.',
      9.8,
      'CRITICAL',
      NETWORK_CRITICAL,
      'CWE-787',
      [
        {
          nodes: [
            [
              {
                criteria: o('fortinet', 'fortios'),
                versionStartIncluding: '6.0.0',
                versionEndExcluding: '6.0.18',
              },
              {
                criteria: o('fortinet', 'fortios'),
                versionStartIncluding: '6.4.0',
                versionEndExcluding: '6.4.15',
              },
              {
                criteria: o('fortinet', 'fortios'),
                versionStartIncluding: '7.0.0',
                versionEndExcluding: '7.0.14',
              },
              {
                criteria: o('fortinet', 'fortios'),
                versionStartIncluding: '7.2.0',
                versionEndExcluding: '7.2.7',
              },
              {
                criteria: o('fortinet', 'fortios'),
                versionStartIncluding: '7.4.0',
                versionEndExcluding: '7.4.3',
              },
            ],
          ],
        },
      ],
    ),
    record(
      'CVE-2023-22515',
      '2023-10-04T14:15:10.440',
      'Sample: broken access control in Confluence Data Center and Server lets outsiders create administrator accounts.',
      9.8,
      'CRITICAL',
      NETWORK_CRITICAL,
      'CWE-284',
      [
        {
          nodes: [
            [
              {
                criteria: a('atlassian', 'confluence_data_center'),
                versionStartIncluding: '8.0.0',
                versionEndExcluding: '8.3.3',
              },
              {
                criteria: a('atlassian', 'confluence_data_center'),
                versionStartIncluding: '8.5.0',
                versionEndExcluding: '8.5.2',
              },
            ],
          ],
        },
      ],
    ),
    record(
      'CVE-2021-44228',
      '2021-12-10T10:15:09.143',
      'Sample: JNDI lookups in Apache Log4j 2 message formatting allow remote code execution (Log4Shell). The sample ties the bundled Log4j of an appliance to its platform.',
      10.0,
      'CRITICAL',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
      'CWE-917',
      [
        {
          nodes: [
            [
              {
                criteria: a('apache', 'log4j'),
                versionStartIncluding: '2.0.1',
                versionEndExcluding: '2.15.0',
              },
            ],
          ],
        },
        {
          operator: 'AND',
          nodes: [
            [{ criteria: a('vmware', 'identity_manager', '3.3.3') }],
            [{ criteria: 'cpe:2.3:a:linux:linux_kernel:-:*:*:*:*:*:*:*', vulnerable: false }],
          ],
        },
      ],
    ),
  ],
};

export const SAMPLE_KEV = {
  title: 'Sample Known Exploited Vulnerabilities list (demo)',
  catalogVersion: 'sample-1',
  dateReleased: '2026-01-01T00:00:00.000Z',
  count: 6,
  vulnerabilities: [
    ['CVE-2021-41773', 'Apache', 'HTTP Server', '2021-11-03'],
    ['CVE-2021-42013', 'Apache', 'HTTP Server', '2021-11-03'],
    ['CVE-2024-23897', 'Jenkins', 'Jenkins Command Line Interface (CLI)', '2024-08-19'],
    ['CVE-2024-21762', 'Fortinet', 'FortiOS', '2024-02-09'],
    ['CVE-2023-22515', 'Atlassian', 'Confluence Data Center and Server', '2023-10-05'],
    ['CVE-2021-44228', 'Apache', 'Log4j2', '2021-12-10'],
  ].map(([cveID, vendorProject, product, dateAdded]) => ({
    cveID,
    vendorProject,
    product,
    vulnerabilityName: `${vendorProject} ${product} vulnerability (sample entry)`,
    dateAdded,
    shortDescription: 'Sample KEV entry for the demo catalogue.',
    requiredAction: 'Apply updates per vendor instructions.',
    dueDate: dateAdded,
    knownRansomwareCampaignUse: 'Unknown',
    notes: 'sample',
  })),
};

/** Imports the sample catalogue when the catalogue is empty (first start); otherwise does nothing. */
export async function loadSampleCatalogue(
  catalogue: CatalogueService,
  observations: ObservationIndex,
): Promise<ImportReport | null> {
  if ((await catalogue.version()).version > 0) return null;
  return catalogue.importParsed(
    [
      parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD)),
      parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)),
    ],
    { observations },
  );
}
