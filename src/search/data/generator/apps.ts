import { type Weighted, weighted } from './random.js';
import { cpe, v, type DeviceCertId, type Variant } from './variants.js';

/** Data table: web applications with a recognizable page, in vulnerable and fixed versions. */

/** Applications with a recognizable page, on their usual ports, in vulnerable and fixed versions. */
export type AppId =
  | 'exchange'
  | 'confluence'
  | 'jenkins'
  | 'gitlab'
  | 'fortios'
  | 'panos'
  | 'netscaler'
  | 'ivanti'
  | 'vcenter'
  | 'moveit'
  | 'iosxe'
  | 'solr'
  | 'elasticsearch'
  | 'kibana'
  | 'grafana'
  | 'synology'
  | 'plesk'
  | 'webmin'
  | 'weblogic'
  | 'routeros'
  | 'wordpress';

interface App {
  readonly title?: string;
  readonly status?: number;
  readonly favicon?: number;
  readonly server?: string;
  /** Self-signed or vendor-CA certificate share when the app serves TLS. */
  readonly deviceCertShare: number;
  readonly device?: DeviceCertId;
  readonly variants: Weighted<Variant>;
}

const app = (
  rows: Array<[Variant, number]>,
  extra: Omit<App, 'variants' | 'deviceCertShare'> & { deviceCertShare?: number },
): App => ({ deviceCertShare: 0, ...extra, variants: weighted(rows) });

const exchange = (label: string, build: string, year: string, cu: string, w: number): [Variant, number] => [
  v(
    'exchange server',
    'microsoft',
    build,
    [cpe('a', 'microsoft', 'exchange_server', year, `cumulative_update_${cu}`)],
    {
      server: 'Microsoft-IIS/10.0',
      headers: [`X-OWA-Version: ${build}`, 'X-Powered-By: ASP.NET', `X-FEServer: ${label}`],
    },
  ),
  w,
];

export const APPS: Readonly<Record<AppId, App>> = {
  exchange: app(
    [
      exchange('EXCH01', '15.1.1713.5', '2016', '12', 1),
      exchange('EXCH01', '15.1.2176.2', '2016', '19', 1),
      exchange('MAIL01', '15.1.2375.7', '2016', '22', 2),
      exchange('MAIL01', '15.1.2507.6', '2016', '23', 3),
      exchange('EX2019', '15.2.792.3', '2019', '8', 1),
      exchange('EX2019', '15.2.986.5', '2019', '11', 1.5),
      exchange('EX2019', '15.2.1118.7', '2019', '12', 2),
      exchange('EX2019', '15.2.1544.4', '2019', '14', 3),
      exchange('EXCH13', '15.0.1497.2', '2013', '23', 1),
    ],
    { title: 'Outlook', status: 200, favicon: 1768726119 },
  ),
  confluence: app(
    [
      [v('confluence', 'atlassian', '7.13.7', [cpe('a', 'atlassian', 'confluence_server', '7.13.7')]), 2],
      [v('confluence', 'atlassian', '8.3.2', [cpe('a', 'atlassian', 'confluence_data_center', '8.3.2')]), 1],
      [v('confluence', 'atlassian', '8.5.1', [cpe('a', 'atlassian', 'confluence_data_center', '8.5.1')]), 1],
      [
        v('confluence', 'atlassian', '8.5.3', [cpe('a', 'atlassian', 'confluence_data_center', '8.5.3')]),
        1.5,
      ],
      [
        v('confluence', 'atlassian', '8.5.16', [cpe('a', 'atlassian', 'confluence_data_center', '8.5.16')]),
        2,
      ],
      [v('confluence', 'atlassian', '9.2.1', [cpe('a', 'atlassian', 'confluence_data_center', '9.2.1')]), 1],
    ],
    { title: 'Log In - Confluence', status: 200, favicon: -305179312 },
  ),
  jenkins: app(
    [
      [
        v('jenkins', 'jenkins', '2.426.2', [cpe('a', 'jenkins', 'jenkins', '2.426.2', '*', 'lts')], {
          server: 'Jetty(10.0.18)',
          headers: ['X-Jenkins: 2.426.2'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.426.3', [cpe('a', 'jenkins', 'jenkins', '2.426.3', '*', 'lts')], {
          server: 'Jetty(10.0.18)',
          headers: ['X-Jenkins: 2.426.3'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.440', [cpe('a', 'jenkins', 'jenkins', '2.440', '*', '-')], {
          server: 'Jetty(10.0.18)',
          headers: ['X-Jenkins: 2.440'],
        }),
        1,
      ],
      [
        v('jenkins', 'jenkins', '2.452.1', [cpe('a', 'jenkins', 'jenkins', '2.452.1', '*', 'lts')], {
          server: 'Jetty(10.0.20)',
          headers: ['X-Jenkins: 2.452.1'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.479.3', [cpe('a', 'jenkins', 'jenkins', '2.479.3', '*', 'lts')], {
          server: 'Jetty(12.0.16)',
          headers: ['X-Jenkins: 2.479.3'],
        }),
        2,
      ],
      [
        v('jenkins', 'jenkins', '2.138.2', [cpe('a', 'jenkins', 'jenkins', '2.138.2', '*', 'lts')], {
          server: 'Jetty(9.4.z-SNAPSHOT)',
          headers: ['X-Jenkins: 2.138.2'],
        }),
        0.5,
      ],
    ],
    { title: 'Sign in [Jenkins]', status: 403, favicon: 81586312 },
  ),
  gitlab: app(
    [
      [
        v('gitlab', 'gitlab', '13.10.2', [cpe('a', 'gitlab', 'gitlab', '13.10.2', '*', 'community')], {
          server: 'nginx',
        }),
        1,
      ],
      [
        v('gitlab', 'gitlab', '13.9.5', [cpe('a', 'gitlab', 'gitlab', '13.9.5', '*', 'community')], {
          server: 'nginx',
        }),
        0.5,
      ],
      [
        v('gitlab', 'gitlab', '13.10.3', [cpe('a', 'gitlab', 'gitlab', '13.10.3', '*', 'community')], {
          server: 'nginx',
        }),
        1,
      ],
      [
        v('gitlab', 'gitlab', '16.7.2', [cpe('a', 'gitlab', 'gitlab', '16.7.2', '*', 'community')], {
          server: 'nginx',
        }),
        2,
      ],
      [
        v('gitlab', 'gitlab', '17.5.1', [cpe('a', 'gitlab', 'gitlab', '17.5.1', '*', 'enterprise')], {
          server: 'nginx',
        }),
        2,
      ],
    ],
    { title: 'Sign in · GitLab', status: 200, favicon: 1278323681 },
  ),
  fortios: app(
    [
      [v('fortios', 'fortinet', '6.0.4', [cpe('o', 'fortinet', 'fortios', '6.0.4')]), 0.5],
      [v('fortios', 'fortinet', '6.4.14', [cpe('o', 'fortinet', 'fortios', '6.4.14')]), 1],
      [v('fortios', 'fortinet', '7.0.13', [cpe('o', 'fortinet', 'fortios', '7.0.13')]), 1],
      [v('fortios', 'fortinet', '7.0.14', [cpe('o', 'fortinet', 'fortios', '7.0.14')]), 1],
      [v('fortios', 'fortinet', '7.2.1', [cpe('o', 'fortinet', 'fortios', '7.2.1')]), 0.5],
      [v('fortios', 'fortinet', '7.2.6', [cpe('o', 'fortinet', 'fortios', '7.2.6')]), 1],
      [v('fortios', 'fortinet', '7.2.7', [cpe('o', 'fortinet', 'fortios', '7.2.7')]), 1],
      [v('fortios', 'fortinet', '7.4.2', [cpe('o', 'fortinet', 'fortios', '7.4.2')]), 1],
      [v('fortios', 'fortinet', '7.4.3', [cpe('o', 'fortinet', 'fortios', '7.4.3')]), 1],
      [v('fortios', 'fortinet', '7.6.0', [cpe('o', 'fortinet', 'fortios', '7.6.0')]), 0.5],
    ],
    { server: 'xxxxxxxx-xxxxx', status: 200, favicon: 945408572, deviceCertShare: 0.5, device: 'fortigate' },
  ),
  panos: app(
    [
      [v('pan-os', 'paloaltonetworks', '10.2.8', [cpe('o', 'paloaltonetworks', 'pan-os', '10.2.8', '-')]), 1],
      [
        v('pan-os', 'paloaltonetworks', '10.2.9-h1', [
          cpe('o', 'paloaltonetworks', 'pan-os', '10.2.9', 'h1'),
        ]),
        1,
      ],
      [
        v('pan-os', 'paloaltonetworks', '10.2.11', [cpe('o', 'paloaltonetworks', 'pan-os', '10.2.11', '-')]),
        1,
      ],
      [
        v('pan-os', 'paloaltonetworks', '10.2.12-h2', [
          cpe('o', 'paloaltonetworks', 'pan-os', '10.2.12', 'h2'),
        ]),
        1,
      ],
      [
        v('pan-os', 'paloaltonetworks', '11.1.0', [cpe('o', 'paloaltonetworks', 'pan-os', '11.1.0', '-')]),
        0.5,
      ],
      [
        v('pan-os', 'paloaltonetworks', '11.1.2-h3', [
          cpe('o', 'paloaltonetworks', 'pan-os', '11.1.2', 'h3'),
        ]),
        1,
      ],
      [v('pan-os', 'paloaltonetworks', '11.2.4', [cpe('o', 'paloaltonetworks', 'pan-os', '11.2.4', '-')]), 1],
    ],
    {
      title: 'GlobalProtect Portal',
      status: 200,
      favicon: -631559155,
      deviceCertShare: 0.3,
      device: 'globalprotect',
    },
  ),
  netscaler: app(
    [
      [
        v('netscaler gateway', 'citrix', '13.1-48.47', [
          cpe('a', 'citrix', 'netscaler_gateway', '13.1-48.47'),
        ]),
        1,
      ],
      [
        v('netscaler gateway', 'citrix', '13.1-49.15', [
          cpe('a', 'citrix', 'netscaler_gateway', '13.1-49.15'),
        ]),
        1,
      ],
      [
        v('netscaler gateway', 'citrix', '13.0-92.19', [
          cpe('a', 'citrix', 'netscaler_gateway', '13.0-92.19'),
        ]),
        0.5,
      ],
      [
        v('netscaler gateway', 'citrix', '14.1-12.35', [
          cpe('a', 'citrix', 'netscaler_gateway', '14.1-12.35'),
        ]),
        1,
      ],
    ],
    { title: 'NetScaler AAA', status: 200, favicon: -1292923998, deviceCertShare: 0.25, device: 'netscaler' },
  ),
  ivanti: app(
    [
      [v('connect secure', 'ivanti', '22.7R2.4', [cpe('a', 'ivanti', 'connect_secure', '22.7', 'r2.4')]), 1],
      [v('connect secure', 'ivanti', '22.7R2.5', [cpe('a', 'ivanti', 'connect_secure', '22.7', 'r2.5')]), 1],
      [
        v('connect secure', 'ivanti', '9.1R18.2', [cpe('a', 'ivanti', 'connect_secure', '9.1', 'r18.2')]),
        0.5,
      ],
    ],
    { title: 'Ivanti Connect Secure', status: 200, favicon: -1439222863 },
  ),
  vcenter: app(
    [
      [v('vcenter server', 'vmware', '6.7.0', [cpe('a', 'vmware', 'vcenter_server', '6.7', '-')]), 1],
      [v('vcenter server', 'vmware', '7.0.2', [cpe('a', 'vmware', 'vcenter_server', '7.0', 'update2b')]), 1],
      [v('vcenter server', 'vmware', '7.0.3', [cpe('a', 'vmware', 'vcenter_server', '7.0', 'update3q')]), 1],
      [v('vcenter server', 'vmware', '8.0.2', [cpe('a', 'vmware', 'vcenter_server', '8.0', 'update2')]), 1],
    ],
    { title: 'ID_VC_Welcome', status: 200, favicon: -1995327025, deviceCertShare: 0.7, device: 'vmca' },
  ),
  moveit: app(
    [
      [
        v('moveit transfer', 'progress', '2022.1.5', [cpe('a', 'progress', 'moveit_transfer', '2022.1.5')]),
        1,
      ],
      [
        v('moveit transfer', 'progress', '2023.0.1', [cpe('a', 'progress', 'moveit_transfer', '2023.0.1')]),
        1,
      ],
      [
        v('moveit transfer', 'progress', '2024.0.2', [cpe('a', 'progress', 'moveit_transfer', '2024.0.2')]),
        1,
      ],
    ],
    { title: 'MOVEit Transfer Sign On', status: 200, favicon: 989289239, server: 'Microsoft-IIS/10.0' },
  ),
  iosxe: app(
    [
      [v('ios xe', 'cisco', '17.9.3', [cpe('o', 'cisco', 'ios_xe', '17.9.3')], { server: 'nginx' }), 1],
      [v('ios xe', 'cisco', '17.9.4a', [cpe('o', 'cisco', 'ios_xe', '17.9.4a')], { server: 'nginx' }), 1],
      [v('ios xe', 'cisco', '16.12.5', [cpe('o', 'cisco', 'ios_xe', '16.12.5')], { server: 'nginx' }), 0.7],
    ],
    { status: 200, deviceCertShare: 0.9, device: 'iosxe' },
  ),
  solr: app(
    [
      [
        v('solr', 'apache', '8.11.0', [
          cpe('a', 'apache', 'solr', '8.11.0'),
          cpe('a', 'apache', 'log4j', '2.14.1'),
        ]),
        1,
      ],
      [
        v('solr', 'apache', '8.11.1', [
          cpe('a', 'apache', 'solr', '8.11.1'),
          cpe('a', 'apache', 'log4j', '2.16.0'),
        ]),
        1,
      ],
      [
        v('solr', 'apache', '9.4.0', [
          cpe('a', 'apache', 'solr', '9.4.0'),
          cpe('a', 'apache', 'log4j', '2.20.0'),
        ]),
        1,
      ],
    ],
    { title: 'Solr Admin', status: 200, favicon: -629047854 },
  ),
  elasticsearch: app(
    [
      [
        v('elasticsearch', 'elastic', '7.10.2', [
          cpe('a', 'elastic', 'elasticsearch', '7.10.2'),
          cpe('a', 'apache', 'log4j', '2.11.1'),
        ]),
        2,
      ],
      [
        v('elasticsearch', 'elastic', '6.8.13', [
          cpe('a', 'elastic', 'elasticsearch', '6.8.13'),
          cpe('a', 'apache', 'log4j', '2.11.1'),
        ]),
        1,
      ],
      [
        v('elasticsearch', 'elastic', '7.17.9', [
          cpe('a', 'elastic', 'elasticsearch', '7.17.9'),
          cpe('a', 'apache', 'log4j', '2.17.1'),
        ]),
        2,
      ],
      [
        v('elasticsearch', 'elastic', '8.11.3', [
          cpe('a', 'elastic', 'elasticsearch', '8.11.3'),
          cpe('a', 'apache', 'log4j', '2.19.0'),
        ]),
        1.5,
      ],
    ],
    { status: 200 },
  ),
  kibana: app(
    [
      [v('kibana', 'elastic', '7.10.2', [cpe('a', 'elastic', 'kibana', '7.10.2')]), 1],
      [v('kibana', 'elastic', '8.11.3', [cpe('a', 'elastic', 'kibana', '8.11.3')]), 1],
    ],
    { title: 'Elastic', status: 200, favicon: 1668183286 },
  ),
  grafana: app(
    [
      [v('grafana', 'grafana', '8.3.0', [cpe('a', 'grafana', 'grafana', '8.3.0')]), 1],
      [v('grafana', 'grafana', '9.5.2', [cpe('a', 'grafana', 'grafana', '9.5.2')]), 1],
      [v('grafana', 'grafana', '10.2.3', [cpe('a', 'grafana', 'grafana', '10.2.3')]), 1.5],
    ],
    { title: 'Grafana', status: 200, favicon: 2123863676 },
  ),
  synology: app(
    [
      [
        v('diskstation manager', 'synology', '7.2', [cpe('o', 'synology', 'diskstation_manager', '7.2')], {
          server: 'nginx',
        }),
        2,
      ],
      [
        v(
          'diskstation manager',
          'synology',
          '6.2.4',
          [cpe('o', 'synology', 'diskstation_manager', '6.2.4')],
          { server: 'nginx' },
        ),
        1,
      ],
    ],
    {
      title: 'Synology DiskStation',
      status: 200,
      favicon: 1261718730,
      deviceCertShare: 0.5,
      device: 'synology',
    },
  ),
  plesk: app(
    [
      [
        v('plesk', 'plesk', '18.0.58', [cpe('a', 'plesk', 'plesk', '18.0.58')], { server: 'sw-cp-server' }),
        1,
      ],
    ],
    {
      title: 'Plesk Obsidian 18.0.58',
      status: 200,
      favicon: -134375033,
      deviceCertShare: 0.6,
      device: 'plesk',
    },
  ),
  webmin: app(
    [
      [
        v('webmin', 'webmin', '1.890', [cpe('a', 'webmin', 'webmin', '1.890')], { server: 'MiniServ/1.890' }),
        0.5,
      ],
      [
        v('webmin', 'webmin', '2.105', [cpe('a', 'webmin', 'webmin', '2.105')], { server: 'MiniServ/2.105' }),
        1,
      ],
    ],
    { title: 'Login to Webmin', status: 200, favicon: 1280907310, deviceCertShare: 0.9, device: 'localhost' },
  ),
  weblogic: app(
    [
      [
        v('weblogic server', 'oracle', '12.2.1.3.0', [cpe('a', 'oracle', 'weblogic_server', '12.2.1.3.0')]),
        1,
      ],
      [
        v('weblogic server', 'oracle', '14.1.1.0.0', [cpe('a', 'oracle', 'weblogic_server', '14.1.1.0.0')]),
        1,
      ],
    ],
    { title: 'Error 404--Not Found', status: 404 },
  ),
  routeros: app(
    [
      [v('routeros', 'mikrotik', '6.40.8', [cpe('o', 'mikrotik', 'routeros', '6.40.8')]), 0.5],
      [v('routeros', 'mikrotik', '6.49.10', [cpe('o', 'mikrotik', 'routeros', '6.49.10')]), 2],
      [v('routeros', 'mikrotik', '7.12.1', [cpe('o', 'mikrotik', 'routeros', '7.12.1')]), 2],
    ],
    { title: 'RouterOS router configuration page', status: 200, favicon: 1924358485 },
  ),
  wordpress: app(
    [
      [v('wordpress', 'wordpress', '6.4.3', [cpe('a', 'wordpress', 'wordpress', '6.4.3')]), 2],
      [v('wordpress', 'wordpress', '5.0.3', [cpe('a', 'wordpress', 'wordpress', '5.0.3')]), 0.5],
      [v('wordpress', 'wordpress', '6.7.1', [cpe('a', 'wordpress', 'wordpress', '6.7.1')]), 2],
    ],
    { status: 200 },
  ),
};
