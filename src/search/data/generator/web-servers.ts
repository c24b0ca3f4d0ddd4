import { weighted } from './random.js';
import { cpe, v, type Variant } from './variants.js';

/** Data table: web servers and their default pages. */

const nginx = (version: string | undefined, server: string, w: number): [Variant, number] => [
  v('nginx', 'f5', version, [cpe('a', 'f5', 'nginx', version)], { server, family: 'nginx' }),
  w,
];

const apache = (
  version: string | undefined,
  server: string,
  w: number,
  extra: string[] = [],
): [Variant, number] => [
  v('apache httpd', 'apache', version, [cpe('a', 'apache', 'http_server', version), ...extra], {
    server,
    family: server.includes('Ubuntu')
      ? 'ubuntu'
      : server.includes('Debian')
        ? 'debian'
        : server.includes('CentOS')
          ? 'centos'
          : 'apache',
  }),
  w,
];

/** Web servers on ordinary sites: nginx and Apache lead, with vulnerable and fixed versions of both. */
export const WEB_SERVERS = weighted<Variant>([
  nginx(undefined, 'nginx', 14),
  nginx('1.18.0', 'nginx/1.18.0 (Ubuntu)', 10),
  nginx('1.24.0', 'nginx/1.24.0 (Ubuntu)', 6),
  nginx('1.22.1', 'nginx/1.22.1', 5),
  nginx('1.20.1', 'nginx/1.20.1', 3),
  nginx('1.26.2', 'nginx/1.26.2', 3),
  nginx('1.14.0', 'nginx/1.14.0 (Ubuntu)', 3),
  nginx('1.16.1', 'nginx/1.16.1', 3),
  nginx('1.21.6', 'nginx/1.21.6', 1),
  nginx('1.25.5', 'nginx/1.25.5', 2),
  nginx('1.27.3', 'nginx/1.27.3', 1),
  nginx('1.12.2', 'nginx/1.12.2', 1),
  nginx('1.10.3', 'nginx/1.10.3', 1),
  nginx('1.4.0', 'nginx/1.4.0', 0.2),
  apache(undefined, 'Apache', 8),
  apache('2.4.41', 'Apache/2.4.41 (Ubuntu)', 6),
  apache('2.4.52', 'Apache/2.4.52 (Ubuntu)', 6),
  apache('2.4.58', 'Apache/2.4.58 (Ubuntu)', 4),
  apache('2.4.62', 'Apache/2.4.62 (Debian)', 4),
  apache('2.4.29', 'Apache/2.4.29 (Ubuntu)', 1.5),
  apache('2.4.38', 'Apache/2.4.38 (Debian)', 1.5),
  apache('2.4.57', 'Apache/2.4.57 (Debian)', 2),
  apache('2.4.6', 'Apache/2.4.6 (CentOS) OpenSSL/1.0.2k-fips PHP/7.4.33', 3, [
    cpe('a', 'openssl', 'openssl', '1.0.2k'),
    cpe('a', 'php', 'php', '7.4.33'),
  ]),
  apache('2.4.6', 'Apache/2.4.6 (CentOS)', 2),
  apache('2.4.49', 'Apache/2.4.49 (Unix)', 0.6),
  apache('2.4.50', 'Apache/2.4.50 (Unix)', 0.5),
  apache('2.4.51', 'Apache/2.4.51 (Unix)', 0.5),
  apache('2.4.54', 'Apache/2.4.54 (Win64) OpenSSL/1.1.1p PHP/8.1.28', 0.5, [
    cpe('a', 'openssl', 'openssl', '1.1.1p'),
    cpe('a', 'php', 'php', '8.1.28'),
  ]),
  apache('2.4.59', 'Apache/2.4.59 (Win64) OpenSSL/3.1.5 PHP/8.2.20', 0.3, [
    cpe('a', 'openssl', 'openssl', '3.1.5'),
    cpe('a', 'php', 'php', '8.2.20'),
  ]),
  apache('2.2.15', 'Apache/2.2.15 (CentOS)', 0.8),
  [
    v(
      'internet information services',
      'microsoft',
      '10.0',
      [cpe('a', 'microsoft', 'internet_information_services', '10.0')],
      {
        server: 'Microsoft-IIS/10.0',
        family: 'iis',
      },
    ),
    7,
  ],
  [
    v(
      'internet information services',
      'microsoft',
      '8.5',
      [cpe('a', 'microsoft', 'internet_information_services', '8.5')],
      {
        server: 'Microsoft-IIS/8.5',
        family: 'iis',
      },
    ),
    2,
  ],
  [
    v(
      'internet information services',
      'microsoft',
      '7.5',
      [cpe('a', 'microsoft', 'internet_information_services', '7.5')],
      {
        server: 'Microsoft-IIS/7.5',
        family: 'iis',
      },
    ),
    1.5,
  ],
  [
    v(
      'litespeed web server',
      'litespeedtech',
      undefined,
      [cpe('a', 'litespeedtech', 'litespeed_web_server')],
      { server: 'LiteSpeed', family: 'litespeed' },
    ),
    3,
  ],
  [
    v('openresty', 'openresty', '1.21.4.1', [cpe('a', 'openresty', 'openresty', '1.21.4.1')], {
      server: 'openresty/1.21.4.1',
      family: 'openresty',
    }),
    1.5,
  ],
  [
    v('openresty', 'openresty', '1.19.3.1', [cpe('a', 'openresty', 'openresty', '1.19.3.1')], {
      server: 'openresty/1.19.3.1',
      family: 'openresty',
    }),
    0.5,
  ],
  [
    v('caddy', 'caddyserver', undefined, [cpe('a', 'caddyserver', 'caddy')], {
      server: 'Caddy',
      family: 'caddy',
    }),
    1.5,
  ],
  [
    v('lighttpd', 'lighttpd', '1.4.59', [cpe('a', 'lighttpd', 'lighttpd', '1.4.59')], {
      server: 'lighttpd/1.4.59',
      family: 'lighttpd',
    }),
    1,
  ],
  [v('http.sys', 'microsoft', '2.0', [], { server: 'Microsoft-HTTPAPI/2.0', family: 'httpapi' }), 2],
  [
    v('tomcat', 'apache', undefined, [cpe('a', 'apache', 'tomcat')], {
      server: 'Apache-Coyote/1.1',
      family: 'tomcat',
    }),
    1,
  ],
  [
    v('jetty', 'eclipse', '9.4.43', [cpe('a', 'eclipse', 'jetty', '9.4.43')], {
      server: 'Jetty(9.4.43.v20210629)',
      family: 'jetty',
    }),
    0.8,
  ],
  [
    v('gunicorn', 'gunicorn', undefined, [cpe('a', 'gunicorn', 'gunicorn')], {
      server: 'gunicorn',
      family: 'app',
    }),
    0.8,
  ],
  [v('kestrel', 'microsoft', undefined, [], { server: 'Kestrel', family: 'app' }), 0.8],
  [
    v('werkzeug', 'palletsprojects', '2.0.3', [cpe('a', 'palletsprojects', 'werkzeug', '2.0.3')], {
      server: 'Werkzeug/2.0.3 Python/3.8.10',
      family: 'app',
    }),
    0.5,
  ],
  [
    v('envoy', 'envoyproxy', undefined, [cpe('a', 'envoyproxy', 'envoy')], {
      server: 'envoy',
      family: 'app',
    }),
    0.5,
  ],
]);

/** Default pages by server family, for addresses that serve no particular site. */
export const DEFAULT_TITLES: Readonly<Record<string, readonly string[]>> = {
  nginx: ['Welcome to nginx!', '403 Forbidden', '404 Not Found'],
  ubuntu: ['Apache2 Ubuntu Default Page: It works', 'Index of /'],
  debian: ['Apache2 Debian Default Page: It works', 'Index of /'],
  centos: ['Apache HTTP Server Test Page powered by CentOS', 'Testing 123..'],
  apache: ['Index of /', '403 Forbidden', 'Default Web Site Page'],
  iis: ['IIS Windows Server', 'IIS Windows Server', '404 - File or directory not found.'],
  litespeed: ["Web Server's Default Page", 'Domain Default page', '404 Not Found'],
  openresty: ['Welcome to OpenResty!', '403 Forbidden'],
  caddy: ['Caddy works!'],
  lighttpd: ['Placeholder page', '404 Not Found'],
  httpapi: ['Not Found'],
  tomcat: ['Apache Tomcat/9.0.65', 'HTTP Status 404 – Not Found'],
  jetty: ['Error 404 Not Found'],
  app: ['Login', 'Dashboard', 'Welcome', 'API', 'Swagger UI'],
};
