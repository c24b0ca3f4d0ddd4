/**
 * The ObservationIndex contract, adapter-neutral: every adapter's test file calls observationIndexContract with
 * a factory. One index is opened per suite and loaded with the small hand-built fixture below; queries are
 * ASTs built directly (no parser). The read-only cases run first; the cases that write restore the fixture
 * after each test. The `cve:`/`kev:` selectors are checked through the selector compiler of the catalogue
 * store of the same backend (what the service plugs in), over hand-written associations of the fixture hosts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { CatalogueStore, HostAssociation } from '../../src/catalogue/store/catalogue-store.port.js';
import type { Dataset } from '../../src/search/domain/datasets.js';
import { QuerySyntaxError, type Match, type QueryNode } from '../../src/search/query-language/ast.js';
import {
  checkObservation,
  InvalidObservationRecord,
  SelectorNotConfiguredError,
  sinceOf,
  TIME_FRAMES,
  type ObservationIndex,
  type ObservationQuery,
  type ObservationRecord,
  type TimeFrame,
} from '../../src/search/observation-index/observation-index.port.js';

export interface ObservationIndexUnderTest {
  /** The index without a selector compiler. */
  readonly index: ObservationIndex;
  /**
   * The same observations read through an index of the same adapter that compiles `cve:`/`kev:` with the
   * selector compiler of `store` (a catalogue store of the same backend, initialised, its associations empty).
   */
  readonly catalogue: { readonly index: ObservationIndex; readonly store: CatalogueStore };
  dispose(): Promise<void>;
}

// --- query builders ----------------------------------------------------------------------------------------

const SPAN = { start: 0, end: 0 };
type Bound = readonly [value: number | string, inclusive: boolean];

export const q = {
  all: (): QueryNode => ({ kind: 'and', children: [], span: SPAN }),
  nothing: (): QueryNode => ({ kind: 'or', children: [], span: SPAN }),
  and: (...children: QueryNode[]): QueryNode => ({ kind: 'and', children, span: SPAN }),
  or: (...children: QueryNode[]): QueryNode => ({ kind: 'or', children, span: SPAN }),
  not: (child: QueryNode): QueryNode => ({ kind: 'not', child, span: SPAN }),
  match: (field: string, match: Match): QueryNode => ({ kind: 'field', field, match, span: SPAN }),
  exact: (field: string, value: string | number | boolean): QueryNode =>
    q.match(field, { kind: 'exact', value }),
  prefix: (field: string, value: string): QueryNode => q.match(field, { kind: 'prefix', value }),
  suffix: (field: string, value: string): QueryNode => q.match(field, { kind: 'suffix', value }),
  contains: (field: string, value: string): QueryNode => q.match(field, { kind: 'contains', value }),
  range: (field: string, lower?: Bound, upper?: Bound): QueryNode =>
    q.match(field, {
      kind: 'range',
      ...(lower ? { lower: { value: lower[0], inclusive: lower[1] } } : {}),
      ...(upper ? { upper: { value: upper[0], inclusive: upper[1] } } : {}),
    }),
  cidr: (field: string, network: string, prefixLength: number): QueryNode =>
    q.match(field, { kind: 'cidr', network, prefixLength, family: network.includes(':') ? 6 : 4 }),
  selector: (selector: 'cve' | 'kev', value: string): QueryNode => ({
    kind: 'selector',
    selector,
    value,
    span: SPAN,
  }),
  none: (reason: string): QueryNode => ({ kind: 'none', reason, span: SPAN }),
  bare: (text: string): QueryNode => ({ kind: 'bare', text, quoted: false, span: SPAN }),
};

// --- fixture -----------------------------------------------------------------------------------------------

export const FIXTURE_NOW = new Date('2026-03-15T12:00:00.000Z');
const HOUR_MS = 3_600_000;
export const ago = (hours: number): string => new Date(FIXTURE_NOW.getTime() - hours * HOUR_MS).toISOString();
const fingerprint = (byte: number): string => byte.toString(16).padStart(2, '0').toUpperCase().repeat(32);

function observation(id: string, hoursAgo: number, fields: Record<string, unknown>): ObservationRecord {
  return { id, first_seen: ago(hoursAgo + 720), last_seen: ago(hoursAgo), ...fields };
}

const org = {
  ovh: { asn: 16276, organization: 'OVH SAS' },
  hetzner: { asn: 24940, organization: 'Hetzner Online GmbH' },
  amazon: { asn: 14618, organization: 'Amazon.com, Inc.' },
  amazonSg: { asn: 16509, organization: 'Amazon.com, Inc.' },
  virgin: { asn: 5089, organization: 'Virgin Media Limited' },
  cloudflare: { asn: 13335, organization: 'Cloudflare, Inc.' },
  iij: { asn: 2497, organization: 'Internet Initiative Japan Inc.' },
  att: { asn: 7018, organization: 'AT&T Services, Inc.' },
  claro: { asn: 28573, organization: 'Claro NXT' },
  dtag: { asn: 3320, organization: 'Deutsche Telekom AG' },
};

/** 30 host observations; last_seen `hoursAgo` before FIXTURE_NOW (h13/h14 and h28/h29 tie). */
export const HOSTS: readonly ObservationRecord[] = [
  observation('h01', 1, {
    ip: '192.0.2.1',
    port: 80,
    transport: 'tcp',
    protocol: 'http',
    product: 'nginx',
    vendor: 'F5',
    version: '1.24.0',
    cpe: ['cpe:2.3:a:f5:nginx:1.24.0:*:*:*:*:*:*:*'],
    http: { status: 200, title: 'Welcome to nginx!', server: 'nginx/1.24.0' },
    favicon: { hash: 116323821 },
    country: 'FR',
    city: 'Paris',
    ...org.ovh,
    hostnames: ['www.example.com', 'example.com'],
    shared_edge: false,
    first_seen: '2024-06-01T09:30:00.000Z',
  }),
  observation('h02', 2, {
    ip: '192.0.2.2',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'nginx',
    vendor: 'F5',
    version: '1.18.0',
    cpe: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
    http: { status: 200, title: 'Admin Console - Sign In', server: 'nginx' },
    favicon: { hash: -1293291467 },
    tls: {
      subject: { cn: 'admin.example.com' },
      san: ['admin.example.com', '*.example.com'],
      fingerprint: fingerprint(2),
    },
    country: 'fr',
    city: 'Paris',
    ...org.ovh,
    hostnames: ['admin.example.com'],
    shared_edge: false,
  }),
  observation('h03', 3, {
    ip: '192.0.2.3',
    port: 22,
    transport: 'tcp',
    protocol: 'ssh',
    product: 'OpenSSH',
    vendor: 'OpenBSD',
    version: '8.9p1',
    cpe: ['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*'],
    banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6',
    country: 'DE',
    city: 'Berlin',
    ...org.hetzner,
    shared_edge: false,
  }),
  observation('h04', 5, {
    ip: '198.51.100.4',
    port: 22,
    transport: 'tcp',
    protocol: 'ssh',
    product: 'OpenSSH',
    vendor: 'OpenBSD',
    version: '9.6p1',
    banner: 'SSH-2.0-OpenSSH_9.6',
    country: 'US',
    city: 'Ashburn',
    ...org.amazon,
  }),
  observation('h05', 8, {
    ip: '198.51.100.5',
    port: 8080,
    transport: 'tcp',
    protocol: 'http',
    product: 'Apache httpd',
    vendor: 'Apache',
    version: '2.4.58',
    cpe: ['cpe:2.3:a:apache:http_server:2.4.58:*:*:*:*:*:*:*'],
    http: { status: 200, title: 'Index of /', server: 'Apache/2.4.58 (Ubuntu)' },
    country: 'US',
    city: 'Ashburn',
    ...org.amazon,
    hostnames: ['files.example.org'],
  }),
  observation('h06', 12, {
    ip: '2001:db8::6',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'nginx',
    vendor: 'F5',
    version: '1.25.3',
    http: { status: 401, title: 'Login required', server: 'nginx' },
    tls: { subject: { cn: 'v6.example.net' }, san: ['v6.example.net'], fingerprint: fingerprint(6) },
    country: 'NL',
    city: 'Amsterdam',
    asn: 1136,
    organization: 'KPN B.V.',
    hostnames: ['v6.example.net'],
  }),
  observation('h07', 20, {
    ip: '2001:db8:0:1::7',
    port: 80,
    transport: 'tcp',
    protocol: 'http',
    product: 'Microsoft IIS httpd',
    vendor: 'Microsoft',
    version: '10.0',
    http: { status: 200, title: 'IIS Windows Server', server: 'Microsoft-IIS/10.0' },
    country: 'US',
    city: 'Seattle',
    asn: 8075,
    organization: 'Microsoft Corporation',
  }),
  observation('h08', 23, {
    ip: '203.0.113.8',
    port: 25,
    transport: 'tcp',
    protocol: 'smtp',
    product: 'Postfix',
    vendor: 'Postfix',
    version: '3.7.11',
    banner: '220 mail.example.com ESMTP Postfix',
    hostnames: ['mail.example.com', 'MX.Example.COM'],
    country: 'GB',
    city: 'London',
    ...org.virgin,
  }),
  observation('h09', 30, {
    ip: '203.0.113.9',
    port: 53,
    transport: 'udp',
    protocol: 'dns',
    product: 'ISC BIND',
    vendor: 'ISC',
    version: '9.18.24',
    country: 'GB',
    city: 'London',
    ...org.virgin,
  }),
  observation('h10', 48, {
    ip: '10.1.2.3',
    port: 3306,
    transport: 'tcp',
    protocol: 'mysql',
    product: 'MySQL',
    vendor: 'Oracle',
    version: '8.0.36',
    banner: '5.5.5-8.0.36 MySQL Community Server',
    country: 'DE',
    city: 'Frankfurt',
    ...org.hetzner,
  }),
  observation('h11', 72, {
    ip: '10.200.0.11',
    port: 6379,
    transport: 'tcp',
    protocol: 'redis',
    product: 'Redis',
    vendor: 'Redis',
    version: '7.2.4',
    country: 'DE',
    city: 'Frankfurt',
    ...org.hetzner,
  }),
  observation('h12', 100, {
    ip: '172.16.5.12',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'nginx',
    vendor: 'F5',
    version: '1.25.3',
    http: { status: 302, title: 'GitLab', server: 'nginx' },
    tls: {
      subject: { cn: 'gitlab.corp.example' },
      san: ['gitlab.corp.example', 'registry.corp.example'],
      fingerprint: fingerprint(12),
    },
    country: 'FR',
    city: 'Lyon',
    ...org.ovh,
    hostnames: ['gitlab.corp.example'],
  }),
  observation('h13', 150, {
    ip: '192.0.2.13',
    port: 80,
    transport: 'tcp',
    protocol: 'http',
    product: 'cloudflare',
    vendor: 'Cloudflare',
    http: { status: 403, title: 'Attention Required! | Cloudflare', server: 'cloudflare' },
    shared_edge: true,
    country: 'US',
    city: 'San Francisco',
    ...org.cloudflare,
    hostnames: ['shop.example.com', 'blog.example.com'],
  }),
  observation('h14', 150, {
    ip: '192.0.2.14',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'cloudflare',
    vendor: 'Cloudflare',
    http: { status: 403, title: 'Just a moment...', server: 'cloudflare' },
    shared_edge: true,
    tls: {
      subject: { cn: 'sni.cloudflaressl.com' },
      san: ['*.example.com', 'example.com'],
      fingerprint: fingerprint(14),
    },
    country: 'US',
    city: 'San Francisco',
    ...org.cloudflare,
    hostnames: ['api.example.com'],
  }),
  observation('h15', 200, {
    ip: '198.51.100.15',
    port: 21,
    transport: 'tcp',
    protocol: 'ftp',
    product: 'vsftpd',
    vendor: 'Beasts',
    version: '3.0.5',
    banner: '220 (vsFTPd 3.0.5)',
    country: 'JP',
    city: 'Tokyo',
    ...org.iij,
  }),
  observation('h16', 300, {
    ip: '198.51.100.16',
    port: 3389,
    transport: 'tcp',
    protocol: 'rdp',
    product: 'Microsoft Terminal Services',
    vendor: 'Microsoft',
    country: 'JP',
    city: 'Tokyo',
    ...org.iij,
  }),
  observation('h17', 0.5, {
    ip: '203.0.113.17',
    port: 9200,
    transport: 'tcp',
    protocol: 'http',
    product: 'Elasticsearch',
    vendor: 'Elastic',
    version: '8.12.0',
    http: { status: 200, title: 'node_1 — 50% ready' },
    country: 'SG',
    city: 'Singapore',
    ...org.amazonSg,
  }),
  observation('h18', 500, {
    ip: '203.0.113.18',
    port: 5432,
    transport: 'tcp',
    protocol: 'postgresql',
    product: 'PostgreSQL',
    vendor: 'PostgreSQL',
    version: '15.6',
    country: 'SG',
    city: 'Singapore',
    ...org.amazonSg,
  }),
  observation('h19', 600, {
    ip: '192.0.2.19',
    port: 8443,
    transport: 'tcp',
    protocol: 'https',
    product: 'Jenkins',
    vendor: 'Jenkins',
    version: '2.440',
    cpe: ['cpe:2.3:a:jenkins:jenkins:2.440:*:*:*:*:*:*:*', 'cpe:2.3:a:eclipse:jetty:10.0.18:*:*:*:*:*:*:*'],
    http: { status: 200, title: 'Dashboard [Jenkins]', server: 'Jetty(10.0.18)' },
    favicon: { hash: 81586312 },
    country: 'US',
    city: 'Chicago',
    ...org.att,
  }),
  observation('h20', 700, {
    ip: '192.0.2.20',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'FortiGate SSL VPN',
    vendor: 'Fortinet',
    version: '7.2.5',
    http: { status: 200, title: 'FortiGate', server: 'xxxxxxxx-xxxxx' },
    favicon: { hash: 945408572 },
    country: 'BR',
    city: 'São Paulo',
    ...org.claro,
  }),
  observation('h21', 800, {
    ip: '198.51.100.21',
    port: 80,
    transport: 'tcp',
    protocol: 'http',
    product: 'nginx',
    vendor: 'F5',
    version: '1.24.0',
    http: { status: 404, title: '404 Not Found', server: 'nginx/1.24.0' },
    country: 'BR',
    city: 'São Paulo',
    ...org.claro,
  }),
  observation('h22', 1000, {
    ip: '198.51.100.22',
    port: 161,
    transport: 'udp',
    protocol: 'snmp',
    product: 'Net-SNMP',
    vendor: 'Net-SNMP',
    version: '5.9',
    country: 'IN',
    city: 'Mumbai',
    asn: 9829,
    organization: 'BSNL',
  }),
  observation('h23', 1500, {
    ip: '203.0.113.23',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'Apache httpd',
    vendor: 'Apache',
    version: '2.4.41',
    http: { status: 200, title: 'Welcome to WordPress', server: 'Apache/2.4.41' },
    hostnames: ['wp.example.org'],
    country: 'CA',
    city: 'Toronto',
    asn: 577,
    organization: 'Bell Canada',
  }),
  observation('h24', 1700, {
    ip: '203.0.113.24',
    port: 23,
    transport: 'tcp',
    protocol: 'telnet',
    banner: 'Welcome to ÉCOLE router\r\nlogin:',
    country: 'FR',
    city: 'Marseille',
    asn: 3215,
    organization: 'Orange S.A.',
  }),
  observation('h25', 1800, {
    ip: '2001:db8:1::25',
    port: 22,
    transport: 'tcp',
    protocol: 'ssh',
    product: 'OpenSSH',
    vendor: 'OpenBSD',
    version: '7.4',
    banner: 'SSH-2.0-OpenSSH_7.4',
    country: 'US',
    city: 'Dallas',
    ...org.att,
  }),
  observation('h26', 3000, {
    ip: '192.0.2.26',
    port: 8080,
    transport: 'tcp',
    protocol: 'http',
    product: 'Jetty',
    vendor: 'Eclipse',
    version: '9.4.z-SNAPSHOT',
    http: { status: 500, title: 'Error 500 Server Error', server: 'Jetty(9.4.z-SNAPSHOT)' },
    country: 'CN',
    city: 'Beijing',
    asn: 4134,
    organization: 'Chinanet',
  }),
  observation('h27', 5000, {
    ip: '10.1.9.27',
    port: 502,
    transport: 'tcp',
    protocol: 'modbus',
    country: 'IT',
    city: 'Milan',
    asn: 3269,
    organization: 'Telecom Italia',
  }),
  observation('h28', 9000, {
    ip: '192.0.2.28',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'nginx',
    vendor: 'F5',
    version: '1.21.0-RC1',
    http: { status: 200, title: 'Welcome to nginx!', server: 'nginx' },
    country: 'DE',
    city: 'Munich',
    ...org.dtag,
  }),
  observation('h29', 9000, {
    ip: '192.0.2.29',
    port: 443,
    transport: 'tcp',
    protocol: 'https',
    product: 'nginx',
    vendor: 'F5',
    version: '1.24.0',
    http: { status: 200, title: 'Sign in · GitLab', server: 'nginx' },
    country: 'DE',
    city: 'Munich',
    ...org.dtag,
    hostnames: ['git.example.de'],
  }),
  observation('h30', 20_000, { ip: '198.51.100.30', port: 9999 }),
];

export const DNS: readonly ObservationRecord[] = [
  observation('d01', 2, { name: 'example.com', type: 'A', value: '93.184.215.14', ttl: 3600 }),
  observation('d02', 3, { name: 'www.example.com', type: 'CNAME', value: 'example.com', ttl: 300 }),
  observation('d03', 4, { name: 'example.com', type: 'MX', value: '10 mail.example.com', ttl: 3600 }),
  observation('d04', 5, { name: 'mail.example.com', type: 'A', value: '192.0.2.8', ttl: 60 }),
  observation('d05', 6, {
    name: 'Example.ORG',
    type: 'TXT',
    value: 'v=spf1 include:_spf.example.org ~all',
    ttl: 86400,
  }),
  observation('d06', 7, { name: 'example.org', type: 'NS', value: 'ns1.example.net', ttl: 172800 }),
  observation('d07', 8, { name: 'api.example.com', type: 'AAAA', value: '2001:db8::6', ttl: 300 }),
  observation('d08', 5000, { name: 'old.example.net', type: 'A', value: '198.51.100.30', ttl: 60 }),
];

const LETS_ENCRYPT = "Let's Encrypt";

export const VHOSTS: readonly ObservationRecord[] = [
  observation('v01', 2, {
    ip: '192.0.2.2',
    port: 443,
    fingerprint: fingerprint(0xa1),
    subject: { cn: 'admin.example.com' },
    names: ['admin.example.com', '*.example.com'],
    issuer: { cn: 'R11', organization: LETS_ENCRYPT },
    serial: '04A1B2C3',
    not_before: '2026-01-10T00:00:00Z',
    not_after: '2026-04-10T00:00:00Z',
    self_signed: false,
    key: { type: 'rsa', bits: 2048 },
  }),
  observation('v02', 3, {
    ip: '192.0.2.14',
    port: 443,
    fingerprint: fingerprint(0xb2),
    subject: { cn: 'sni.cloudflaressl.com' },
    names: ['*.example.com', 'example.com'],
    issuer: { cn: 'WE1', organization: 'Google Trust Services' },
    serial: '7F00AA',
    not_before: '2026-02-01T00:00:00Z',
    not_after: '2026-05-02T00:00:00Z',
    self_signed: false,
    key: { type: 'ec', bits: 256 },
  }),
  observation('v03', 50, {
    ip: '10.1.2.3',
    port: 8443,
    fingerprint: fingerprint(0xc3),
    subject: { cn: 'localhost' },
    names: ['localhost'],
    issuer: { cn: 'localhost' },
    serial: '01',
    not_before: '2020-01-01',
    not_after: '2030-01-01',
    self_signed: true,
    key: { type: 'rsa', bits: 4096 },
  }),
  observation('v04', 12, {
    ip: '2001:db8::6',
    port: 443,
    fingerprint: fingerprint(0xd4),
    subject: { cn: 'v6.example.net' },
    names: ['v6.example.net'],
    issuer: { cn: 'R10', organization: LETS_ENCRYPT },
    serial: '03FF',
    not_before: '2025-12-20T08:00:00Z',
    not_after: '2026-03-20T08:00:00Z',
    self_signed: false,
    key: { type: 'ec', bits: 256 },
  }),
  observation('v05', 400, {
    ip: '198.51.100.5',
    port: 443,
    fingerprint: fingerprint(0xe5),
    subject: { cn: 'files.example.org' },
    names: ['files.example.org'],
    issuer: { cn: 'DigiCert Global G2 TLS RSA SHA256 2020 CA1', organization: 'DigiCert Inc' },
    serial: '0A0B0C',
    not_before: '2025-03-01T00:00:00Z',
    not_after: '2026-03-01T00:00:00Z',
    self_signed: false,
    key: { type: 'rsa', bits: 2048 },
  }),
  observation('v06', 30, {
    ip: '203.0.113.23',
    port: 443,
    fingerprint: fingerprint(0xf6),
    subject: { cn: 'wp.example.org' },
    names: ['wp.example.org', 'www.wp.example.org'],
    issuer: { cn: 'R11', organization: LETS_ENCRYPT },
    serial: '05C0FFEE',
    not_before: '2026-02-20T00:00:00Z',
    not_after: '2026-05-21T00:00:00Z',
    self_signed: false,
    key: { type: 'rsa', bits: 2048 },
  }),
];

const IANA = 'Internet Assigned Numbers Authority';

export const WHOIS: readonly ObservationRecord[] = [
  observation('w01', 24, {
    domain: 'example.com',
    registrar: `RESERVED-${IANA}`,
    status: ['clientDeleteProhibited', 'clientTransferProhibited', 'clientUpdateProhibited'],
    name_servers: ['A.IANA-SERVERS.NET', 'B.IANA-SERVERS.NET'],
    created: '1995-08-14T04:00:00Z',
    updated: '2025-08-14T07:01:44Z',
    expires: '2026-08-13T04:00:00Z',
    registrant: { organization: IANA, country: 'US' },
  }),
  observation('w02', 30, {
    domain: 'example.org',
    registrar: 'Public Interest Registry',
    status: ['clientTransferProhibited'],
    name_servers: ['a.iana-servers.net', 'b.iana-servers.net'],
    created: '1995-08-31T04:00:00Z',
    expires: '2026-08-30T04:00:00Z',
    registrant: { organization: IANA, country: 'US' },
  }),
  observation('w03', 3000, {
    domain: 'example.net',
    registrar: `RESERVED-${IANA}`,
    status: ['clientDeleteProhibited', 'clientTransferProhibited'],
    name_servers: ['a.iana-servers.net'],
    created: '1991-01-14',
    expires: '2026-01-13',
  }),
  observation('w04', 48, {
    domain: 'exemple.fr',
    registrar: 'OVH',
    status: ['active'],
    name_servers: ['dns10.ovh.net', 'ns10.ovh.net'],
    created: '2010-05-12',
    expires: '2026-05-12',
    registrant: {
      organization: 'Exemple SARL',
      country: 'FR',
      name: 'Jean Dupont',
      email: 'Jean.Dupont@exemple.fr',
    },
    admin: { name: 'Jean Dupont', email: 'admin@exemple.fr' },
    tech: { name: 'OVH Support', email: 'tech@ovh.net' },
  }),
  observation('w05', 100, {
    domain: 'corp.example',
    registrar: 'Gandi SAS',
    status: ['ok'],
    name_servers: ['ns-1.gandi.net'],
    created: '2024-02-29T10:00:00Z',
    expires: '2027-02-28T10:00:00Z',
    registrant: { organization: 'Example Corp', country: 'FR' },
  }),
];

export const FIXTURES: Readonly<Record<Dataset, readonly ObservationRecord[]>> = {
  hosts: HOSTS,
  dns: DNS,
  vhosts: VHOSTS,
  whois: WHOIS,
};

/** Writes the fixture, newest records last, so that no adapter can pass by returning insertion order. */
export async function loadFixtures(index: ObservationIndex): Promise<void> {
  for (const [dataset, records] of Object.entries(FIXTURES) as [Dataset, readonly ObservationRecord[]][]) {
    await index.clear(dataset);
    await index.write(dataset, [...records].reverse());
  }
}

const ids = (prefix: string, numbers: readonly number[]): string[] =>
  numbers.map((n) => `${prefix}${String(n).padStart(2, '0')}`);
const h = (...numbers: number[]): string[] => ids('h', numbers);
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
const ALL_HOSTS = h(...range(1, 30));
const hostsExcept = (...numbers: number[]): string[] => ALL_HOSTS.filter((id) => !h(...numbers).includes(id));

/** The fixture's hosts in result order: last_seen descending, ties by id. */
const HOSTS_IN_ORDER = [...HOSTS]
  .sort((a, b) => b.last_seen.localeCompare(a.last_seen) || (a.id < b.id ? -1 : 1))
  .map((record) => record.id);

export interface MatchCase {
  readonly name: string;
  readonly dataset: Dataset;
  readonly ast: QueryNode;
  readonly expected: readonly string[];
}

const hosts = (name: string, ast: QueryNode, expected: readonly string[]): MatchCase => ({
  name,
  dataset: 'hosts',
  ast,
  expected,
});

const NGINX = h(1, 2, 6, 12, 21, 28, 29);
const PORT_443 = h(2, 6, 12, 14, 20, 23, 28, 29);

export const MATCH_CASES: readonly MatchCase[] = [
  // keyword: exact, case-insensitive fields compare lowercased, multiple fields match any element
  hosts('keyword exact, case-insensitive', q.exact('product', 'NGINX'), NGINX),
  hosts('keyword exact on stored values of mixed case', q.exact('country', 'FR'), h(1, 2, 12, 24)),
  hosts('keyword exact on a case-sensitive field', q.exact('version', '1.21.0-RC1'), h(28)),
  hosts('keyword exact on a case-sensitive field keeps case', q.exact('version', '1.21.0-rc1'), []),
  hosts('keyword exact on a multiple field (any element)', q.exact('hostnames', 'mx.example.com'), h(8)),
  hosts('keyword exact on a multiple field is per element', q.exact('hostnames', 'EXAMPLE.COM'), h(1)),
  hosts('keyword exact on a nested field', q.exact('tls.fingerprint', fingerprint(2).toLowerCase()), h(2)),
  hosts(
    'keyword exact with literal asterisks',
    q.exact('cpe', 'cpe:2.3:a:jenkins:jenkins:2.440:*:*:*:*:*:*:*'),
    h(19),
  ),
  hosts('keyword exact on a nested field with dots', q.exact('http.server', 'nginx'), h(2, 6, 12, 28, 29)),
  hosts('keyword exact with a number operand', q.exact('version', 5.9), h(22)),
  // keyword: prefix
  hosts('keyword prefix', q.prefix('product', 'open'), h(3, 4, 25)),
  hosts('keyword prefix, case-insensitive', q.prefix('product', 'Apache'), h(5, 23)),
  hosts('keyword prefix on a case-sensitive field', q.prefix('version', '1.2'), h(1, 6, 12, 21, 28, 29)),
  hosts('keyword prefix escapes LIKE wildcards', q.prefix('version', '9.4.z_'), []),
  hosts('keyword prefix on a multiple field', q.prefix('hostnames', 'MAIL.'), h(8)),
  hosts('keyword prefix on a multiple field with colons', q.prefix('cpe', 'cpe:2.3:a:f5:'), h(1, 2)),
  // keyword: suffix
  hosts('keyword suffix', q.suffix('tls.subject.cn', '.example.com'), h(2)),
  hosts(
    'keyword suffix with punctuation',
    q.suffix('organization', ', Inc.'),
    h(4, 5, 13, 14, 17, 18, 19, 25),
  ),
  hosts('keyword suffix on a multiple field', q.suffix('hostnames', '.example.com'), h(1, 2, 8, 13, 14)),
  hosts('keyword suffix on another multiple field', q.suffix('tls.san', '.EXAMPLE.COM'), h(2, 14)),
  // keyword: contains
  hosts('keyword contains', q.contains('product', 'SSH'), h(3, 4, 25)),
  hosts('keyword contains on a multiple field', q.contains('hostnames', 'corp'), h(12)),
  // text: case-insensitive substring, and prefix/suffix/exact of the whole text
  hosts('text contains, case-insensitive', q.contains('http.title', 'sign in'), h(2, 29)),
  hosts('text contains in banners', q.contains('banner', 'openssh'), h(3, 4, 25)),
  hosts('text contains folds non-ASCII case', q.contains('banner', 'école'), h(24)),
  hosts('text contains escapes LIKE wildcards', q.contains('http.title', '50%'), h(17)),
  hosts('text prefix', q.prefix('http.title', 'welcome'), h(1, 23, 28)),
  hosts('text suffix', q.suffix('http.title', 'GITLAB'), h(12, 29)),
  hosts('text exact is the whole text, case-insensitive', q.exact('http.title', 'gitlab'), h(12)),
  // integer
  hosts('integer exact', q.exact('port', 443), PORT_443),
  hosts('integer exact on a nested negative value', q.exact('favicon.hash', -1293291467), h(2)),
  hosts('integer exact from a numeric string', q.exact('port', '22'), h(3, 4, 25)),
  hosts('integer exact with a fraction matches nothing', q.exact('port', 1.5), []),
  hosts('integer range, inclusive', q.range('port', [20, true], [25, true]), h(3, 4, 8, 15, 24, 25)),
  hosts('integer range, open upper end', q.range('port', [8000, false]), h(5, 17, 19, 26, 30)),
  hosts('integer range, open lower end', q.range('port', undefined, [80, false]), h(3, 4, 8, 9, 15, 24, 25)),
  hosts('integer range, half-open', q.range('port', [3306, true], [6379, false]), h(10, 16, 18)),
  hosts('integer range with fractional bounds', q.range('port', [442.5, false], [443.5, false]), PORT_443),
  hosts('integer range on a nested field', q.range('http.status', [400, true]), h(6, 13, 14, 21, 26)),
  hosts('integer range over negative values', q.range('favicon.hash', undefined, [0, false]), h(2)),
  hosts('integer range that is empty', q.range('port', [443, false], [444, false]), []),
  // date
  hosts('date exact, a whole UTC day', q.exact('first_seen', '2024-06-01'), h(1)),
  hosts('date exact, an instant', q.exact('last_seen', ago(150)), h(13, 14)),
  hosts('date range before a day', q.range('first_seen', undefined, ['2025-01-01', false]), h(1, 30)),
  hosts(
    'date range between instants, inclusive',
    q.range('last_seen', [ago(24), true], [ago(12), true]),
    h(6, 7, 8),
  ),
  hosts(
    'date range up to a day, inclusive',
    q.range('last_seen', undefined, ['2026-03-14', true]),
    hostsExcept(1, 2, 3, 4, 5, 6, 17),
  ),
  hosts('date range after a day', q.range('last_seen', ['2026-03-14', false]), h(1, 2, 3, 4, 5, 6, 17)),
  // ip
  hosts('ip exact, IPv4', q.exact('ip', '192.0.2.13'), h(13)),
  hosts('ip exact, IPv6 in another spelling', q.exact('ip', '2001:0db8:0000:0000:0000:0000:0000:0006'), h(6)),
  hosts('ip cidr /24', q.cidr('ip', '192.0.2.0', 24), h(1, 2, 3, 13, 14, 19, 20, 26, 28, 29)),
  hosts('ip cidr /8', q.cidr('ip', '10.0.0.0', 8), h(10, 11, 27)),
  hosts('ip cidr /16', q.cidr('ip', '10.1.0.0', 16), h(10, 27)),
  hosts('ip cidr /32', q.cidr('ip', '203.0.113.8', 32), h(8)),
  hosts('ip cidr IPv6 /32', q.cidr('ip', '2001:db8::', 32), h(6, 7, 25)),
  hosts('ip cidr IPv6 /48', q.cidr('ip', '2001:db8::', 48), h(6, 7)),
  hosts('ip cidr IPv6 /64', q.cidr('ip', '2001:db8::', 64), h(6)),
  hosts('ip cidr ::/0 holds IPv6 only', q.cidr('ip', '::', 0), h(6, 7, 25)),
  hosts('ip cidr 0.0.0.0/0 holds IPv4 only', q.cidr('ip', '0.0.0.0', 0), hostsExcept(6, 7, 25)),
  // boolean
  hosts('boolean true', q.exact('shared_edge', true), h(13, 14)),
  hosts('boolean false (absent is not false)', q.exact('shared_edge', false), h(1, 2, 3)),
  hosts('boolean from text', q.exact('shared_edge', 'true'), h(13, 14)),
  // and / or / not
  hosts('and', q.and(q.exact('product', 'nginx'), q.exact('country', 'fr')), h(1, 2, 12)),
  hosts(
    'and of or and not',
    q.and(q.or(q.exact('port', 22), q.exact('port', 23)), q.not(q.exact('country', 'us'))),
    h(3, 24),
  ),
  hosts(
    'not of or',
    q.not(q.or(q.exact('product', 'nginx'), q.exact('product', 'openssh'))),
    hostsExcept(1, 2, 6, 12, 21, 28, 29, 3, 4, 25),
  ),
  hosts(
    'or of ands with not',
    q.or(
      q.and(q.exact('protocol', 'https'), q.not(q.exact('product', 'nginx'))),
      q.and(q.exact('port', 22), q.exact('country', 'de')),
    ),
    h(3, 14, 19, 20, 23),
  ),
  hosts(
    'not matches records without the field',
    q.not(q.range('http.status', [400, true])),
    hostsExcept(6, 13, 14, 21, 26),
  ),
  hosts(
    'not of a multiple field',
    q.not(q.suffix('hostnames', '.example.com')),
    hostsExcept(1, 2, 8, 13, 14),
  ),
  hosts('double negation', q.not(q.not(q.exact('shared_edge', true))), h(13, 14)),
  hosts('empty and matches everything', q.all(), ALL_HOSTS),
  hosts('empty or matches nothing', q.nothing(), []),
  // dns
  {
    name: 'dns name suffix',
    dataset: 'dns',
    ast: q.suffix('name', '.example.com'),
    expected: ['d02', 'd04', 'd07'],
  },
  {
    name: 'dns name exact, case-insensitive',
    dataset: 'dns',
    ast: q.exact('name', 'EXAMPLE.org'),
    expected: ['d05', 'd06'],
  },
  { name: 'dns type exact', dataset: 'dns', ast: q.exact('type', 'a'), expected: ['d01', 'd04', 'd08'] },
  {
    name: 'dns ttl range',
    dataset: 'dns',
    ast: q.range('ttl', undefined, [300, true]),
    expected: ['d02', 'd04', 'd07', 'd08'],
  },
  {
    name: 'dns value suffix',
    dataset: 'dns',
    ast: q.suffix('value', 'example.com'),
    expected: ['d02', 'd03'],
  },
  { name: 'dns value prefix', dataset: 'dns', ast: q.prefix('value', 'v=spf1 '), expected: ['d05'] },
  {
    name: 'dns and not',
    dataset: 'dns',
    ast: q.and(q.exact('type', 'A'), q.not(q.suffix('name', '.example.com'))),
    expected: ['d01', 'd08'],
  },
  // vhosts
  {
    name: 'vhosts date before a day',
    dataset: 'vhosts',
    ast: q.range('not_after', undefined, ['2026-03-15', false]),
    expected: ['v05'],
  },
  {
    name: 'vhosts date between days, inclusive',
    dataset: 'vhosts',
    ast: q.range('not_after', ['2026-03-15', true], ['2026-03-31', true]),
    expected: ['v04'],
  },
  {
    name: 'vhosts date exact from a date-only record',
    dataset: 'vhosts',
    ast: q.exact('not_after', '2030-01-01'),
    expected: ['v03'],
  },
  {
    name: 'vhosts keyword with an apostrophe',
    dataset: 'vhosts',
    ast: q.exact('issuer.organization', "LET'S ENCRYPT"),
    expected: ['v01', 'v04', 'v06'],
  },
  {
    name: 'vhosts names suffix',
    dataset: 'vhosts',
    ast: q.suffix('names', '.example.org'),
    expected: ['v05', 'v06'],
  },
  {
    name: 'vhosts names exact wildcard name',
    dataset: 'vhosts',
    ast: q.exact('names', '*.example.com'),
    expected: ['v01', 'v02'],
  },
  { name: 'vhosts boolean', dataset: 'vhosts', ast: q.exact('self_signed', true), expected: ['v03'] },
  {
    name: 'vhosts integer range',
    dataset: 'vhosts',
    ast: q.range('key.bits', [4096, true]),
    expected: ['v03'],
  },
  { name: 'vhosts ip cidr', dataset: 'vhosts', ast: q.cidr('ip', '192.0.2.0', 24), expected: ['v01', 'v02'] },
  { name: 'vhosts port', dataset: 'vhosts', ast: q.exact('port', 8443), expected: ['v03'] },
  {
    name: 'vhosts serial prefix, case-insensitive',
    dataset: 'vhosts',
    ast: q.prefix('serial', '05c0'),
    expected: ['v06'],
  },
  // whois
  {
    name: 'whois multiple exact, case-insensitive',
    dataset: 'whois',
    ast: q.exact('name_servers', 'a.iana-servers.net'),
    expected: ['w01', 'w02', 'w03'],
  },
  {
    name: 'whois status exact',
    dataset: 'whois',
    ast: q.exact('status', 'CLIENTTRANSFERPROHIBITED'),
    expected: ['w01', 'w02', 'w03'],
  },
  {
    name: 'whois date exact, a leap day',
    dataset: 'whois',
    ast: q.exact('created', '2024-02-29'),
    expected: ['w05'],
  },
  {
    name: 'whois expired',
    dataset: 'whois',
    ast: q.range('expires', undefined, ['2026-03-15', false]),
    expected: ['w03'],
  },
  {
    name: 'whois contact suffix',
    dataset: 'whois',
    ast: q.suffix('registrant.email', '@EXEMPLE.FR'),
    expected: ['w04'],
  },
  {
    name: 'whois registrar prefix',
    dataset: 'whois',
    ast: q.prefix('registrar', 'reserved-'),
    expected: ['w01', 'w03'],
  },
  {
    name: 'whois nested keyword',
    dataset: 'whois',
    ast: q.exact('registrant.country', 'fr'),
    expected: ['w04', 'w05'],
  },
  {
    name: 'whois multiple suffix',
    dataset: 'whois',
    ast: q.suffix('name_servers', '.ovh.net'),
    expected: ['w04'],
  },
];

const TIME_FRAME_HOSTS: Readonly<Record<TimeFrame, readonly string[]>> = {
  all_time: ALL_HOSTS,
  last_24h: h(1, 2, 3, 4, 5, 6, 7, 8, 17),
  last_7d: h(...range(1, 14), 17),
  last_30d: h(...range(1, 20)),
  this_year: h(...range(1, 24)),
};

// --- cve: and kev: selectors --------------------------------------------------------------------------------

const association = (
  observation_id: string,
  cve_id: string,
  kev: boolean | null,
  conditional = false,
): HostAssociation => ({ observation_id, cve_id, kev, conditional });

/**
 * Associations of fixture hosts with advisories, as a catalogue import would write them: `kev` null where the
 * KEV state is unknown, `conditional` for a platform-dependent finding (selected like any other).
 */
export const ASSOCIATIONS: readonly HostAssociation[] = [
  association('h02', 'CVE-2021-23017', false), // nginx 1.18.0
  association('h03', 'CVE-2024-6387', false), // OpenSSH 8.9p1
  association('h03', 'CVE-2023-38408', false, true),
  association('h05', 'CVE-2024-38476', null), // Apache 2.4.58, KEV state unknown
  association('h19', 'CVE-2024-23897', true), // Jenkins 2.440
  association('h19', 'CVE-2024-43044', false),
  association('h20', 'CVE-2024-21762', true), // FortiOS 7.2.5
  association('h20', 'CVE-2022-40684', true),
  association('h26', 'CVE-2021-28164', false), // Jetty 9.4
];

const ASSOCIATED = ['h02', 'h03', 'h05', 'h19', 'h20', 'h26'];

export const SELECTOR_CASES: ReadonlyArray<{ name: string; ast: QueryNode; expected: readonly string[] }> = [
  {
    name: 'cve:<id> selects the hosts associated with it',
    ast: q.selector('cve', 'CVE-2024-23897'),
    expected: ['h19'],
  },
  {
    name: 'cve:<id> selects a conditional association',
    ast: q.selector('cve', 'CVE-2023-38408'),
    expected: ['h03'],
  },
  {
    name: 'cve:<id> of no association selects nothing',
    ast: q.selector('cve', 'CVE-2099-0001'),
    expected: [],
  },
  {
    name: 'cve:<year>-* selects the hosts associated with an advisory of that year',
    ast: q.selector('cve', 'CVE-2021-*'),
    expected: ['h02', 'h26'],
  },
  {
    name: 'cve:<year>-* of another year',
    ast: q.selector('cve', 'CVE-2024-*'),
    expected: ['h03', 'h05', 'h19', 'h20'],
  },
  { name: 'cve:<year>-* of a year without associations', ast: q.selector('cve', 'CVE-2020-*'), expected: [] },
  { name: 'cve:* selects every associated host', ast: q.selector('cve', '*'), expected: ASSOCIATED },
  {
    name: 'kev:true selects hosts with a KEV-listed association',
    ast: q.selector('kev', 'true'),
    expected: ['h19', 'h20'],
  },
  {
    name: 'kev:false selects associated hosts with none listed, never an unknown KEV state',
    ast: q.selector('kev', 'false'),
    expected: ['h02', 'h03', 'h26'],
  },
  {
    name: 'NOT cve:* selects the hosts without associations',
    ast: q.not(q.selector('cve', '*')),
    expected: ALL_HOSTS.filter((id) => !ASSOCIATED.includes(id)),
  },
  {
    name: 'a selector AND a field',
    ast: q.and(q.selector('kev', 'false'), q.exact('port', 22)),
    expected: ['h03'],
  },
  {
    name: 'a selector OR a field',
    ast: q.or(q.selector('kev', 'true'), q.exact('product', 'redis')),
    expected: ['h11', 'h19', 'h20'],
  },
  {
    name: 'a selector AND NOT a selector',
    ast: q.and(q.selector('cve', 'CVE-2024-*'), q.not(q.selector('kev', 'true'))),
    expected: ['h03', 'h05'],
  },
  {
    name: 'a selector AND NOT a field',
    ast: q.and(q.selector('cve', '*'), q.not(q.exact('product', 'nginx'))),
    expected: ['h03', 'h05', 'h19', 'h20', 'h26'],
  },
  {
    name: 'two cve:<id> ORed',
    ast: q.or(q.selector('cve', 'CVE-2021-23017'), q.selector('cve', 'CVE-2022-40684')),
    expected: ['h02', 'h20'],
  },
  {
    name: 'kev:true AND kev:false selects nothing',
    ast: q.and(q.selector('kev', 'true'), q.selector('kev', 'false')),
    expected: [],
  },
  {
    name: 'cve:* AND NOT kev:false keeps listed and unknown KEV states',
    ast: q.and(q.selector('cve', '*'), q.not(q.selector('kev', 'false'))),
    expected: ['h05', 'h19', 'h20'],
  },
];

function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

async function drain(stream: AsyncIterable<ObservationRecord[]>): Promise<ObservationRecord[][]> {
  const batches: ObservationRecord[][] = [];
  for await (const batch of stream) batches.push(batch);
  return batches;
}

export function observationIndexContract(
  label: string,
  open: () => Promise<ObservationIndexUnderTest>,
): void {
  describe(`ObservationIndex contract: ${label}`, () => {
    let underTest: ObservationIndexUnderTest | undefined;

    beforeAll(async () => {
      underTest = await open();
      await loadFixtures(underTest.index);
    });

    afterAll(async () => {
      await underTest?.dispose();
    });

    const index = (): ObservationIndex => {
      if (!underTest) throw new Error('index not opened');
      return underTest.index;
    };

    const idsOf = async (dataset: Dataset, query: ObservationQuery): Promise<string[]> => {
      const page = await index().search(dataset, query, { offset: 0, limit: 100 });
      expect(page.total).toBe(page.records.length);
      expect(page.totalIsLowerBound).toBe(false);
      return page.records.map((record) => record.id);
    };

    describe('matches', () => {
      it.each(MATCH_CASES)('$name', async ({ dataset, ast, expected }) => {
        const found = await idsOf(dataset, { ast });
        expect([...found].sort()).toEqual([...expected].sort());
      });
    });

    describe('time frames', () => {
      it.each(TIME_FRAMES)('%s keeps records last seen since its start', async (timeFrame) => {
        const since = sinceOf(timeFrame, FIXTURE_NOW);
        const found = await idsOf('hosts', { ast: q.all(), ...(since ? { since } : {}) });
        expect(found.sort()).toEqual([...TIME_FRAME_HOSTS[timeFrame]].sort());
      });

      it('sinceOf gives the start of each frame', () => {
        expect(sinceOf('all_time', FIXTURE_NOW)).toBeUndefined();
        expect(sinceOf('last_24h', FIXTURE_NOW)).toBe('2026-03-14T12:00:00.000Z');
        expect(sinceOf('last_7d', FIXTURE_NOW)).toBe('2026-03-08T12:00:00.000Z');
        expect(sinceOf('last_30d', FIXTURE_NOW)).toBe('2026-02-13T12:00:00.000Z');
        expect(sinceOf('this_year', FIXTURE_NOW)).toBe('2026-01-01T00:00:00.000Z');
      });

      it('a record last seen exactly at the start is included', async () => {
        expect((await idsOf('hosts', { ast: q.all(), since: ago(23) })).sort()).toEqual(
          h(1, 2, 3, 4, 5, 6, 7, 8, 17),
        );
      });

      it('combines with the query', async () => {
        const since = sinceOf('last_7d', FIXTURE_NOW);
        expect((await idsOf('hosts', { ast: q.exact('product', 'nginx'), since })).sort()).toEqual(
          h(1, 2, 6, 12),
        );
      });
    });

    describe('paging', () => {
      it('orders by last_seen descending, ties by id', async () => {
        expect(await idsOf('hosts', { ast: q.all() })).toEqual(HOSTS_IN_ORDER);
        expect(HOSTS_IN_ORDER.slice(0, 3)).toEqual(['h17', 'h01', 'h02']);
        expect(HOSTS_IN_ORDER.indexOf('h13') + 1).toBe(HOSTS_IN_ORDER.indexOf('h14'));
      });

      it('pages through the same order without gaps or repeats', async () => {
        const seen: string[] = [];
        for (let offset = 0; offset < 35; offset += 7) {
          const page = await index().search('hosts', { ast: q.all() }, { offset, limit: 7 });
          seen.push(...page.records.map((record) => record.id));
          expect(page.total).toBe(30);
          expect(page.totalIsLowerBound).toBe(false);
        }
        expect(seen).toEqual(HOSTS_IN_ORDER);
      });

      it('returns whole records', async () => {
        const page = await index().search(
          'hosts',
          { ast: q.exact('ip', '192.0.2.2') },
          { offset: 0, limit: 5 },
        );
        expect(page.records).toEqual([HOSTS.find((record) => record.id === 'h02')]);
      });

      it('counts exactly up to countLimit, then gives a lower bound', async () => {
        const nginx = { ast: q.exact('product', 'nginx') };
        const capped = await index().search('hosts', nginx, { offset: 0, limit: 3, countLimit: 5 });
        expect(capped.records.map((record) => record.id)).toEqual(['h01', 'h02', 'h06']);
        expect(capped).toMatchObject({ total: 5, totalIsLowerBound: true });
        expect(await index().search('hosts', nginx, { offset: 0, limit: 3, countLimit: 6 })).toMatchObject({
          total: 6,
          totalIsLowerBound: true,
        });
        expect(await index().search('hosts', nginx, { offset: 0, limit: 3, countLimit: 7 })).toMatchObject({
          total: 7,
          totalIsLowerBound: false,
        });
        expect(await index().search('hosts', nginx, { offset: 0, limit: 3 })).toMatchObject({
          total: 7,
          totalIsLowerBound: false,
        });
      });

      it('a last page tells the exact total; a page past the end still counts', async () => {
        const nginx = { ast: q.exact('product', 'nginx') };
        const last = await index().search('hosts', nginx, { offset: 5, limit: 10, countLimit: 2 });
        expect(last.records.map((record) => record.id)).toEqual(['h28', 'h29']);
        expect(last).toMatchObject({ total: 7, totalIsLowerBound: false });
        const past = await index().search('hosts', nginx, { offset: 10, limit: 5 });
        expect(past).toEqual({ records: [], total: 7, totalIsLowerBound: false });
        const deep = await index().search('hosts', nginx, { offset: 4, limit: 2, countLimit: 3 });
        expect(deep.records).toHaveLength(2);
        expect(deep).toMatchObject({ total: 6, totalIsLowerBound: true });
        expect(await index().search('hosts', nginx, { offset: 0, limit: 0 })).toEqual({
          records: [],
          total: 7,
          totalIsLowerBound: false,
        });
        expect(await index().search('hosts', { ast: q.nothing() }, { offset: 0, limit: 10 })).toEqual({
          records: [],
          total: 0,
          totalIsLowerBound: false,
        });
      });

      it('refuses negative or fractional paging values', async () => {
        await expect(index().search('hosts', { ast: q.all() }, { offset: -1, limit: 5 })).rejects.toThrow(
          RangeError,
        );
        await expect(index().search('hosts', { ast: q.all() }, { offset: 0, limit: 1.5 })).rejects.toThrow(
          RangeError,
        );
      });
    });

    describe('get and count', () => {
      it('gets a record as written, or null', async () => {
        for (const [dataset, records] of Object.entries(FIXTURES) as [Dataset, ObservationRecord[]][]) {
          expect(await index().count(dataset)).toBe(records.length);
          for (const record of records) expect(await index().get(dataset, record.id)).toEqual(record);
        }
        expect(await index().get('hosts', 'h99')).toBeNull();
        expect(await index().get('dns', 'h01')).toBeNull();
      });
    });

    describe('aggregate', () => {
      it('gives the top values per field, count descending then value', async () => {
        const facets = await index().aggregate(
          'hosts',
          { ast: q.all() },
          ['port', 'country', 'product', 'shared_edge'],
          3,
        );
        expect(facets).toEqual({
          port: [
            { value: 443, count: 8 },
            { value: 80, count: 4 },
            { value: 22, count: 3 },
          ],
          country: [
            { value: 'us', count: 7 },
            { value: 'de', count: 5 },
            { value: 'fr', count: 4 },
          ],
          product: [
            { value: 'nginx', count: 7 },
            { value: 'openssh', count: 3 },
            { value: 'apache httpd', count: 2 },
          ],
          shared_edge: [
            { value: false, count: 3 },
            { value: true, count: 2 },
          ],
        });
      });

      it('counts over the matching records and the time frame', async () => {
        expect(
          await index().aggregate('hosts', { ast: q.exact('product', 'nginx') }, ['country'], 3),
        ).toEqual({
          country: [
            { value: 'fr', count: 3 },
            { value: 'de', count: 2 },
            { value: 'br', count: 1 },
          ],
        });
        const since = sinceOf('last_24h', FIXTURE_NOW);
        expect(await index().aggregate('hosts', { ast: q.all(), since }, ['country'], 2)).toEqual({
          country: [
            { value: 'us', count: 3 },
            { value: 'fr', count: 2 },
          ],
        });
        expect(await index().aggregate('hosts', { ast: q.nothing() }, ['port'], 5)).toEqual({ port: [] });
      });

      it('counts each element of a multiple field, and canonical addresses', async () => {
        expect(
          await index().aggregate('whois', { ast: q.all() }, ['status', 'registrant.country'], 2),
        ).toEqual({
          status: [
            { value: 'clienttransferprohibited', count: 3 },
            { value: 'clientdeleteprohibited', count: 2 },
          ],
          'registrant.country': [
            { value: 'fr', count: 2 },
            { value: 'us', count: 2 },
          ],
        });
        expect(await index().aggregate('vhosts', { ast: q.all() }, ['issuer.organization', 'ip'], 3)).toEqual(
          {
            'issuer.organization': [
              { value: "let's encrypt", count: 3 },
              { value: 'digicert inc', count: 1 },
              { value: 'google trust services', count: 1 },
            ],
            ip: [
              { value: '10.1.2.3', count: 1 },
              { value: '192.0.2.14', count: 1 },
              { value: '192.0.2.2', count: 1 },
            ],
          },
        );
      });

      it('refuses fields that are not aggregatable in the dataset', async () => {
        await expect(index().aggregate('hosts', { ast: q.all() }, ['hostnames'], 5)).rejects.toThrow(
          /aggregatable/,
        );
        await expect(index().aggregate('hosts', { ast: q.all() }, ['registrar'], 5)).rejects.toThrow(/hosts/);
      });
    });

    describe('stream', () => {
      it('delivers every matching record exactly once, in a stable order', async () => {
        const first = await drain(index().stream('hosts', { ast: q.all() }, 4));
        expect(first.map((batch) => batch.length)).toEqual([4, 4, 4, 4, 4, 4, 4, 2]);
        const streamed = first.flat().map((record) => record.id);
        expect(streamed).toEqual([...ALL_HOSTS].sort());
        const again = (await drain(index().stream('hosts', { ast: q.all() }, 4)))
          .flat()
          .map((record) => record.id);
        expect(again).toEqual(streamed);
        expect(first.flat()).toEqual(expect.arrayContaining([...HOSTS]));
      });

      it('applies the query and the time frame', async () => {
        const batches = await drain(index().stream('hosts', { ast: q.exact('product', 'nginx') }, 3));
        expect(batches.map((batch) => batch.map((record) => record.id))).toEqual([
          ['h01', 'h02', 'h06'],
          ['h12', 'h21', 'h28'],
          ['h29'],
        ]);
        const since = sinceOf('last_24h', FIXTURE_NOW);
        const recent = (await drain(index().stream('hosts', { ast: q.all(), since }, 100))).flat();
        expect(recent.map((record) => record.id)).toEqual(h(1, 2, 3, 4, 5, 6, 7, 8, 17));
        expect(await drain(index().stream('hosts', { ast: q.nothing() }, 10))).toEqual([]);
      });
    });

    describe('abort', () => {
      it('a signal aborted before the call rejects with its reason', async () => {
        await expect(
          index().search('hosts', { ast: q.all() }, { offset: 0, limit: 5 }, abortedSignal()),
        ).rejects.toMatchObject({
          name: 'AbortError',
        });
        await expect(
          index().aggregate('hosts', { ast: q.all() }, ['port'], 5, abortedSignal()),
        ).rejects.toMatchObject({
          name: 'AbortError',
        });
        await expect(
          drain(index().stream('hosts', { ast: q.all() }, 5, abortedSignal())),
        ).rejects.toMatchObject({
          name: 'AbortError',
        });
      });

      it('aborting while the call runs rejects with the reason, and the index keeps working', async () => {
        const controller = new AbortController();
        const running = index().search(
          'hosts',
          { ast: q.contains('banner', 'ssh') },
          { offset: 0, limit: 5 },
          controller.signal,
        );
        controller.abort();
        await expect(running).rejects.toMatchObject({ name: 'AbortError' });

        const deadline = new AbortController();
        const facets = index().aggregate('hosts', { ast: q.all() }, ['port', 'country'], 5, deadline.signal);
        deadline.abort(new DOMException('deadline passed', 'TimeoutError'));
        await expect(facets).rejects.toMatchObject({ name: 'TimeoutError' });

        expect(await idsOf('hosts', { ast: q.exact('product', 'redis') })).toEqual(['h11']);
      });

      it('aborting between stream batches stops the stream', async () => {
        const controller = new AbortController();
        const seen: string[] = [];
        const consume = async (): Promise<void> => {
          for await (const batch of index().stream('hosts', { ast: q.all() }, 5, controller.signal)) {
            seen.push(...batch.map((record) => record.id));
            controller.abort();
          }
        };
        await expect(consume()).rejects.toMatchObject({ name: 'AbortError' });
        expect(seen).toEqual(h(1, 2, 3, 4, 5));
      });

      it('a signal that never aborts changes nothing', async () => {
        const signal = new AbortController().signal;
        const page = await index().search(
          'hosts',
          { ast: q.exact('port', 443) },
          { offset: 0, limit: 3 },
          signal,
        );
        expect(page).toMatchObject({ total: 8, totalIsLowerBound: false });
        expect(page.records.map((record) => record.id)).toEqual(['h02', 'h06', 'h12']);
      });
    });

    describe('invalid queries', () => {
      const search = (dataset: Dataset, ast: QueryNode) =>
        index().search(dataset, { ast }, { offset: 0, limit: 5 });

      it.each([
        ['a field of another dataset', 'hosts', q.exact('name', 'example.com')],
        ['an unknown field', 'hosts', q.exact('nope', 'x')],
        ['a prefix on an integer', 'hosts', q.prefix('port', '44')],
        ['a range on a keyword', 'hosts', q.range('product', ['a', true])],
        ['a cidr on a keyword', 'hosts', q.cidr('product', '10.0.0.0', 8)],
        ['a prefix on a boolean', 'hosts', q.prefix('shared_edge', 't')],
        [
          'a cidr of the wrong family',
          'hosts',
          q.match('ip', { kind: 'cidr', network: '10.0.0.0', prefixLength: 8, family: 6 }),
        ],
        ['a prefix length out of range', 'hosts', q.cidr('ip', '10.0.0.0', 33)],
        ['an address that is no address', 'hosts', q.exact('ip', 'not-an-ip')],
        ['a date that is no date', 'hosts', q.exact('last_seen', 'yesterday')],
        ['a number that is no number', 'hosts', q.range('port', ['many', true])],
        ['a selector outside hosts', 'dns', q.selector('cve', 'CVE-2021-44228')],
        ['a none node', 'dns', q.and(q.exact('type', 'a'), q.none('field port does not apply to dns'))],
      ] as const)('%s is invalid_query', async (_name, dataset, ast) => {
        const error: unknown = await search(dataset, ast).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(QuerySyntaxError);
        expect((error as QuerySyntaxError).code).toBe('invalid_query');
      });

      it('a selector without a selector compiler fails clearly, never matching nothing', async () => {
        await expect(search('hosts', q.or(q.exact('port', 443), q.selector('kev', 'true')))).rejects.toThrow(
          SelectorNotConfiguredError,
        );
        await expect(search('hosts', q.selector('cve', 'CVE-2021-44228'))).rejects.toThrow(/enrichment/);
      });

      it('bare input must be interpreted first', async () => {
        await expect(search('hosts', q.bare('nginx'))).rejects.toThrow(/interpret/);
      });
    });

    describe("cve: and kev: selectors (the catalogue store's compiler)", () => {
      const selecting = (): ObservationIndex => {
        if (!underTest) throw new Error('index not opened');
        return underTest.catalogue.index;
      };
      const selected = async (ast: QueryNode): Promise<string[]> => {
        const page = await selecting().search('hosts', { ast }, { offset: 0, limit: 100 });
        expect(page.total).toBe(page.records.length);
        expect(page.totalIsLowerBound).toBe(false);
        return page.records.map((record) => record.id).sort();
      };

      beforeAll(async () => {
        await underTest!.catalogue.store.replaceAssociations(
          [...new Set(ASSOCIATIONS.map((row) => row.observation_id))],
          ASSOCIATIONS,
        );
      });
      afterAll(async () => {
        await underTest?.catalogue.store.clearAssociations();
      });

      it.each(SELECTOR_CASES)('$name', async ({ ast, expected }) => {
        expect(await selected(ast)).toEqual([...expected].sort());
      });

      it('pages and counts selected records in the usual order, within the time frame', async () => {
        const page = await selecting().search(
          'hosts',
          { ast: q.selector('cve', '*') },
          { offset: 2, limit: 2 },
        );
        expect(page).toMatchObject({ total: 6, totalIsLowerBound: false });
        expect(page.records.map((record) => record.id)).toEqual(['h05', 'h19']);
        const since = sinceOf('last_7d', FIXTURE_NOW);
        expect(
          (
            await selecting().search(
              'hosts',
              { ast: q.selector('cve', '*'), since },
              { offset: 0, limit: 10 },
            )
          ).records.map((record) => record.id),
        ).toEqual(['h02', 'h03', 'h05']);
      });

      it('aggregates and streams over selected records', async () => {
        expect(await selecting().aggregate('hosts', { ast: q.selector('cve', '*') }, ['port'], 3)).toEqual({
          port: [
            { value: 443, count: 2 },
            { value: 8080, count: 2 },
            { value: 22, count: 1 },
          ],
        });
        const batches = await drain(selecting().stream('hosts', { ast: q.selector('kev', 'false') }, 2));
        expect(batches.map((batch) => batch.map((record) => record.id))).toEqual([['h02', 'h03'], ['h26']]);
      });

      it('follows the association index: replaced associations change what is selected', async () => {
        const store = underTest!.catalogue.store;
        await store.replaceAssociations(
          ['h02', 'h11'],
          [{ observation_id: 'h11', cve_id: 'CVE-2025-49844', kev: true, conditional: false }],
        );
        try {
          expect(await selected(q.selector('cve', 'CVE-2021-23017'))).toEqual([]);
          expect(await selected(q.selector('kev', 'true'))).toEqual(['h11', 'h19', 'h20']);
        } finally {
          await store.replaceAssociations(
            ['h02', 'h11'],
            ASSOCIATIONS.filter((row) => row.observation_id === 'h02'),
          );
        }
        expect(await selected(q.selector('cve', 'CVE-2021-23017'))).toEqual(['h02']);
      });
    });

    describe('writes', () => {
      afterEach(async () => {
        await loadFixtures(index());
      });

      it('upserts by id', async () => {
        const updated = {
          ...HOSTS.find((record) => record.id === 'h05')!,
          product: 'lighttpd',
          last_seen: ago(0.1),
        };
        expect(await index().write('hosts', [updated])).toEqual({ inserted: 0, updated: 1 });
        expect(await index().count('hosts')).toBe(30);
        expect(await index().get('hosts', 'h05')).toEqual(updated);
        expect((await idsOf('hosts', { ast: q.all() }))[0]).toBe('h05');
        expect(await idsOf('hosts', { ast: q.exact('product', 'apache httpd') })).toEqual(['h23']);
        expect(await idsOf('hosts', { ast: q.exact('product', 'LIGHTTPD') })).toEqual(['h05']);
      });

      it('the last record of an id in a batch wins', async () => {
        const base = observation('h31', 0.2, { ip: '192.0.2.31', port: 8000 });
        await index().write('hosts', [base, { ...base, port: 8001 }]);
        expect(await index().get('hosts', 'h31')).toEqual({ ...base, port: 8001 });
        expect(await idsOf('hosts', { ast: q.exact('port', 8000) })).toEqual([]);
      });

      describe("merge writes (ObservationWriteOptions seen: 'merge', ADR 97)", () => {
        const seen = (first: number, last: number, fields: Record<string, unknown>): ObservationRecord => ({
          id: 'h40',
          ip: '192.0.2.40',
          port: 8080,
          transport: 'tcp',
          first_seen: ago(first),
          last_seen: ago(last),
          ...fields,
        });
        const merge = (records: ObservationRecord[]) => index().write('hosts', records, { seen: 'merge' });

        it('a newer observation moves last_seen and brings its fields; first_seen stays', async () => {
          // A write answers what it did (a data load's event counts merges from it, ADR 110).
          expect(await merge([seen(100, 50, { product: 'nginx', banner: 'old' })])).toEqual({
            inserted: 1,
            updated: 0,
          });
          expect(await merge([seen(10, 5, { product: 'caddy' })])).toEqual({ inserted: 0, updated: 1 });
          expect(await index().get('hosts', 'h40')).toEqual(seen(100, 5, { product: 'caddy' }));
          expect(await index().count('hosts')).toBe(HOSTS.length + 1);
          // The searchable values follow the stored record, dates included.
          expect(await idsOf('hosts', { ast: q.exact('product', 'caddy') })).toEqual(['h40']);
          expect(await idsOf('hosts', { ast: q.exact('product', 'nginx') })).not.toContain('h40');
          expect(
            await idsOf('hosts', {
              ast: q.and(q.exact('port', 8080), q.range('last_seen', [ago(6), true], [ago(4), true])),
            }),
          ).toEqual(['h40']);
          expect(
            await idsOf('hosts', {
              ast: q.and(q.exact('port', 8080), q.range('first_seen', [ago(101), true], [ago(99), true])),
            }),
          ).toEqual(['h40']);
        });

        it('an older observation imported later only moves first_seen back', async () => {
          await merge([seen(100, 50, { product: 'nginx' })]);
          await merge([seen(300, 200, { product: 'apache httpd', banner: 'older' })]);
          expect(await index().get('hosts', 'h40')).toEqual(seen(300, 50, { product: 'nginx' }));
          expect(await idsOf('hosts', { ast: q.exact('product', 'apache httpd') })).not.toContain('h40');
          expect(
            await idsOf('hosts', {
              ast: q.and(q.exact('port', 8080), q.range('first_seen', [ago(301), true], [ago(299), true])),
            }),
          ).toEqual(['h40']);
        });

        it('the same observation again changes nothing; on equal last_seen the fields add up', async () => {
          await merge([seen(100, 50, { product: 'nginx', banner: 'SSH-2.0-OpenSSH_8.9' })]);
          await merge([seen(100, 50, { product: 'nginx', banner: 'SSH-2.0-OpenSSH_8.9' })]);
          expect(await index().get('hosts', 'h40')).toEqual(
            seen(100, 50, { product: 'nginx', banner: 'SSH-2.0-OpenSSH_8.9' }),
          );
          // Two parts of one observation (masscan writes a line per banner): the later's where both have one.
          await merge([seen(80, 50, { product: 'caddy', http: { server: 'Caddy' } })]);
          expect(await index().get('hosts', 'h40')).toEqual(
            seen(100, 50, { product: 'caddy', banner: 'SSH-2.0-OpenSSH_8.9', http: { server: 'Caddy' } }),
          );
          expect(await idsOf('hosts', { ast: q.exact('http.server', 'caddy') })).toEqual(['h40']);
        });

        it('records of one id in a batch are merged the same way before the write', async () => {
          await merge([
            seen(20, 10, { product: 'caddy' }),
            seen(300, 200, { product: 'apache httpd' }),
            seen(40, 30, { product: 'nginx' }),
            seen(15, 10, { banner: 'caddy banner', http: { status: 200, server: 'caddy' } }),
          ]);
          expect(await index().get('hosts', 'h40')).toEqual(
            seen(300, 10, {
              product: 'caddy',
              banner: 'caddy banner',
              http: { status: 200, server: 'caddy' },
            }),
          );
          // Objects add up one level down: a status from one line, a title from another.
          await merge([seen(12, 10, { http: { title: 'Caddy works!' } })]);
          expect(await index().get('hosts', 'h40')).toEqual(
            seen(300, 10, {
              product: 'caddy',
              banner: 'caddy banner',
              http: { status: 200, server: 'caddy', title: 'Caddy works!' },
            }),
          );
          expect(await idsOf('hosts', { ast: q.exact('http.status', 200) })).toContain('h40');
          expect(await index().count('hosts')).toBe(HOSTS.length + 1);
        });

        it('a replace write (the default) still replaces the dates', async () => {
          await merge([seen(300, 10, { product: 'caddy' })]);
          await index().write('hosts', [seen(100, 50, { product: 'nginx' })]);
          expect(await index().get('hosts', 'h40')).toEqual(seen(100, 50, { product: 'nginx' }));
        });

        it('writeMerged (where the adapter has it) merges as write does and answers what each id keeps', async () => {
          const adapter = index();
          if (!adapter.writeMerged) {
            // The associations then read the merged rows back with getMany (AssociatedObservationIndex).
            expect(adapter.kind).toBe('mongodb');
            return;
          }
          const nginx = 'cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*';
          await merge([seen(100, 50, { product: 'nginx', cpe: [nginx] })]);
          const other = { ...seen(30, 20, { product: 'caddy' }), id: 'h41', ip: '192.0.2.41' };
          // An older observation keeps the stored fields, cpe included; a new id is answered as sent.
          const answered = await adapter.writeMerged(
            'hosts',
            [
              seen(300, 200, {
                product: 'apache httpd',
                cpe: ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'],
              }),
              other,
            ],
            ['cpe'],
          );
          expect(answered.records.sort((a, b) => a.id.localeCompare(b.id))).toEqual([
            { id: 'h40', first_seen: ago(300), last_seen: ago(50), cpe: [nginx] },
            { id: 'h41', first_seen: ago(30), last_seen: ago(20) },
          ]);
          // And says what it did, as write does: h41 is new, h40 was merged into.
          expect({ inserted: answered.inserted, updated: answered.updated }).toEqual({
            inserted: 1,
            updated: 1,
          });
          // A newer observation without a cpe: the stored cpe goes with the rest of the older fields.
          expect(await adapter.writeMerged('hosts', [seen(10, 5, { product: 'caddy' })], ['cpe'])).toEqual({
            records: [{ id: 'h40', first_seen: ago(300), last_seen: ago(5) }],
            inserted: 0,
            updated: 1,
          });
          expect(await adapter.get('hosts', 'h40')).toEqual(seen(300, 5, { product: 'caddy' }));
          await expect(adapter.writeMerged('hosts', [other], ['http.server'])).rejects.toThrow(RangeError);
        });

        it('a record checked by checkObservation is written as checked, and cannot change after', async () => {
          const checked = checkObservation(
            'hosts',
            seen(100, 50, { product: 'nginx', http: { status: 200 } }),
          );
          expect(() => {
            (checked.record.http as { status: number }).status = 500;
          }).toThrow(TypeError);
          await merge([checked.record]);
          expect(await index().get('hosts', 'h40')).toEqual(
            seen(100, 50, { product: 'nginx', http: { status: 200 } }),
          );
          expect(await idsOf('hosts', { ast: q.exact('http.status', 200) })).toContain('h40');
        });

        it('getMany gives the stored records of the ids that exist', async () => {
          await merge([seen(100, 50, { product: 'nginx' })]);
          const found = await index().getMany('hosts', ['h40', 'h01', 'nope']);
          expect(found.map((record) => record.id).sort()).toEqual(['h01', 'h40']);
          expect(await index().getMany('hosts', [])).toEqual([]);
        });
      });

      const valid = observation('h31', 0.2, { ip: '192.0.2.31', port: 8000 });
      it.each([
        ['an integer field holding text', { port: 'eighty' }],
        ['a missing last_seen', { last_seen: undefined }],
        ['a date that is no date', { first_seen: 'last week' }],
        ['an address that is no address', { ip: '300.1.2.3' }],
        ['a multiple field that is no array', { hostnames: 'www.example.com' }],
        ['a multiple field holding numbers', { hostnames: [1, 2] }],
        ['a keyword holding a number', { product: 42 }],
        ['a boolean holding text', { shared_edge: 'yes' }],
        ['an empty id', { id: '' }],
      ])('a batch with %s writes nothing', async (_name, change) => {
        const invalid = { ...observation('h32', 0.3, { ip: '192.0.2.32', port: 8000 }), ...change };
        await expect(index().write('hosts', [valid, invalid as ObservationRecord])).rejects.toThrow(
          InvalidObservationRecord,
        );
        expect(await index().count('hosts')).toBe(30);
        expect(await index().get('hosts', 'h31')).toBeNull();
        expect(await index().get('hosts', 'h32')).toBeNull();
      });

      it('an empty batch writes nothing', async () => {
        await index().write('dns', []);
        expect(await index().count('dns')).toBe(DNS.length);
      });

      it('clear empties one dataset only', async () => {
        await index().clear('dns');
        expect(await index().count('dns')).toBe(0);
        expect(await idsOf('dns', { ast: q.all() })).toEqual([]);
        expect(await index().count('hosts')).toBe(HOSTS.length);
        expect(await index().count('whois')).toBe(WHOIS.length);
      });
    });
  });
}
