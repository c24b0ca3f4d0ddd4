/**
 * The collector import pipeline (importCollected) into the PostgreSQL observation index, on PGlite and on the
 * server: several files and a folder in name order, standard input, masscan and NDJSON sniffed, a bad line in
 * the middle, a named dataset refusing records of others, re-import moving last_seen, strict mode, and an
 * ObservationIdentifier (a small real one mapping banners to CPEs) applied before validation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DATASETS, type Dataset } from '../../../src/search/domain/datasets.js';
import type {
  FingerprintEvidence,
  ObservationIdentifier,
} from '../../../src/search/data/collectors/collected.js';
import {
  CollectorImportError,
  importCollected,
  type CollectorImportSummary,
} from '../../../src/search/data/collectors/collector-import.js';
import { PostgresObservationIndex } from '../../../src/search/observation-index/postgres-observation-index.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../../support/databases.js';
import { MASSCAN_JSON, MASSCAN_LIST } from '../../support/masscan-samples.js';

const SEEN = { first_seen: '2025-05-01T00:00:00.000Z', last_seen: '2025-06-01T00:00:00.000Z' };
const host = (octet: number, extra: Record<string, unknown> = {}) => ({
  id: `198.51.100.${octet}:443/tcp`,
  ip: `198.51.100.${octet}`,
  port: 443,
  transport: 'tcp',
  ...SEEN,
  ...extra,
});
const whois = { id: 'example.com', domain: 'example.com', registrar: 'Example Registrar', ...SEEN };
const line = (value: unknown) => JSON.stringify(value);

/**
 * A real identifier, in miniature: an OpenSSH ssh.banner or an Apache http_header.server gives vendor, product,
 * version and a CPE 2.3 name; a banner without a version gives the product only.
 */
const bannerIdentifier: ObservationIdentifier = {
  identify(dataset: Dataset, record: Record<string, unknown>, evidence: readonly FingerprintEvidence[]) {
    if (dataset !== 'hosts') return record;
    for (const { matches, text } of evidence) {
      const openssh = matches === 'ssh.banner' ? /^OpenSSH_([\d.]+p?\d*)/.exec(text) : null;
      if (openssh)
        return {
          ...record,
          vendor: 'openbsd',
          product: 'openssh',
          version: openssh[1],
          cpe: [`cpe:2.3:a:openbsd:openssh:${openssh[1]!.replace('p', ':p')}:*:*:*:*:*:*`],
        };
      const apache = matches === 'http_header.server' ? /^Apache(?:\/([\d.]+))?/.exec(text) : null;
      if (apache)
        return {
          ...record,
          vendor: 'apache',
          product: 'http_server',
          ...(apache[1]
            ? { version: apache[1], cpe: [`cpe:2.3:a:apache:http_server:${apache[1]}:*:*:*:*:*:*:*`] }
            : {}),
        };
    }
    return record;
  },
};

describe.each(SQL_KINDS)('importCollected into the PostgreSQL observation index (%s)', (kind) => {
  let database: TestDatabase;
  let index: PostgresObservationIndex;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    index = new PostgresObservationIndex(database.db);
    await index.init();
    dir = await mkdtemp(join(tmpdir(), 'collector-import-'));
  });

  afterAll(async () => {
    await database?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    for (const dataset of DATASETS) await index.clear(dataset);
  });

  async function file(name: string, lines: readonly string[]): Promise<string> {
    const path = join(dir, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, `${lines.join('\n')}\n`, 'utf8');
    return path;
  }

  it('imports files and a folder (in name order) of masscan and NDJSON, sniffed, with a bad line in the middle', async () => {
    const folder = join(dir, `scans-${kind}`);
    await file(`scans-${kind}/b-list.txt`, MASSCAN_LIST);
    await file(`scans-${kind}/a-scan.json`, MASSCAN_JSON);
    const ndjson = await file('hosts.ndjson', [
      line(host(1)),
      '{"id": "198.51.100.2:443/tcp", "ip": ',
      line(host(3)),
    ]);
    const summary = await importCollected(index, [ndjson, folder], { target: 'hosts', batchSize: 2 });
    expect(summary.files.map((f) => [f.file, f.format])).toEqual([
      [ndjson, 'ndjson'],
      [join(folder, 'a-scan.json'), 'masscan'],
      [join(folder, 'b-list.txt'), 'masscan'],
    ]);
    expect(summary.problems).toEqual([
      { file: ndjson, line: 2, reason: expect.stringMatching(/^invalid JSON: /) as unknown as string },
    ]);
    expect(summary).toMatchObject({ rejected: 1, aborted: false, refused: {} });
    // masscan writes a line per fact: the port and its banners are one record.
    expect(await index.count('hosts')).toBe(2 + 4 + 2);
    expect(await index.get('hosts', '198.51.100.7:80/tcp')).toEqual({
      id: '198.51.100.7:80/tcp',
      ip: '198.51.100.7',
      port: 80,
      transport: 'tcp',
      first_seen: '2023-11-14T22:14:02.000Z',
      last_seen: '2023-11-14T22:14:02.000Z',
      protocol: 'http',
      banner:
        'HTTP/1.1 301 Moved Permanently\r\nServer: Apache/2.4.49 (Unix)\r\nX-Powered-By: PHP/7.4.3\r\n' +
        'Location: https://example.com/\r\n\r\n',
      http: { status: 301, server: 'apache/2.4.49 (unix)', title: '301 Moved Permanently' },
    });
    expect(await index.get('hosts', '192.0.2.21:8080/tcp')).toMatchObject({
      protocol: 'http',
      http: { status: 200, server: 'nginx/1.18.0' },
      banner: 'HTTP/1.1 200 OK\r\nServer: nginx/1.18.0\r\n\r\n',
    });
    expect(await index.get('hosts', '203.0.113.9:443/tcp')).toBeNull(); // closed
    expect(summary.files[1]).toMatchObject({ imported: { hosts: 6 }, rejected: 0 });
  });

  it('re-import moves last_seen, keeps the earliest first_seen, and duplicates nothing', async () => {
    const first = await file('first.ndjson', [line(host(1, { product: 'nginx' }))]);
    await importCollected(index, [first], { target: 'hosts' });
    const later = { first_seen: '2025-07-01T00:00:00.000Z', last_seen: '2025-08-01T00:00:00.000Z' };
    const second = await file('second.ndjson', [line(host(1, { product: 'caddy', ...later }))]);
    await importCollected(index, [second], { target: 'hosts' });
    const older = { first_seen: '2024-01-01T00:00:00.000Z', last_seen: '2024-02-01T00:00:00.000Z' };
    const third = await file('third.ndjson', [line(host(1, { product: 'apache httpd', ...older }))]);
    await importCollected(index, [third], { target: 'hosts' });
    expect(await index.count('hosts')).toBe(1);
    expect(await index.get('hosts', '198.51.100.1:443/tcp')).toEqual(
      host(1, { product: 'caddy', first_seen: older.first_seen, last_seen: later.last_seen }),
    );
  });

  it('reads standard input; a named dataset refuses records of others, counted with the reason', async () => {
    const stdin = Readable.from([Buffer.from(`${line(host(4))}\n${line(whois)}\n`)]);
    const named = await importCollected(index, ['-'], { target: 'hosts', stdin });
    // The NDJSON format reads every line as the dataset named: a whois line is a bad hosts record.
    expect(named).toMatchObject({ read: 2, imported: { hosts: 1 }, rejected: 1 });
    const auto = await importCollected(index, ['-'], {
      target: 'auto',
      stdin: Readable.from([`${line(host(5))}\n`, `${line(whois)}\n`]),
    });
    expect(auto).toMatchObject({ imported: { hosts: 1, whois: 1 }, rejected: 0 });
    expect(await index.get('whois', 'example.com')).toMatchObject({ registrar: 'example registrar' });

    // A format yielding records of several datasets: the ones not named are refused, not rejected.
    const twoDatasets = {
      name: 'ndjson' as const,
      unit: 'lines' as const,
      sniff: () => true,
      records: (item: string | Buffer) => [
        {
          dataset: 'hosts' as const,
          record: JSON.parse(String(item)) as Record<string, unknown>,
          evidence: [],
        },
        { dataset: 'whois' as const, record: { ...whois }, evidence: [] },
      ],
    };
    const refused = await importCollected(index, ['-'], {
      target: 'hosts',
      formats: [twoDatasets],
      stdin: Readable.from([`${line(host(6))}\n`]),
    });
    expect(refused).toMatchObject({ imported: { hosts: 1 }, rejected: 0, refused: { whois: 1 } });
    expect(refused.refusedReasons.whois).toBe(
      'whois records are not imported into hosts (import into auto to keep them)',
    );
  });

  it('applies the identifier to each record with its evidence before validation', async () => {
    const path = await file(`identified-${kind}.json`, MASSCAN_JSON);
    const summary = await importCollected(index, [path], { target: 'hosts', identifier: bannerIdentifier });
    expect(summary.rejected).toBe(0);
    expect(await index.get('hosts', '192.0.2.10:22/tcp')).toMatchObject({
      vendor: 'openbsd',
      product: 'openssh',
      version: '8.9p1',
      cpe: ['cpe:2.3:a:openbsd:openssh:8.9:p1:*:*:*:*:*:*'],
      banner: 'SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6',
    });
    expect(await index.get('hosts', '198.51.100.7:80/tcp')).toMatchObject({
      product: 'http_server',
      version: '2.4.49',
      cpe: ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'],
      http: { title: '301 Moved Permanently' },
    });
  });

  it('strict mode writes nothing when any item is bad, and refuses standard input', async () => {
    const path = await file('strict.ndjson', [line(host(1)), 'nope', line(host(2))]);
    const summary: CollectorImportSummary = await importCollected(index, [path], {
      target: 'hosts',
      strict: true,
    });
    expect(summary).toMatchObject({ aborted: true, rejected: 1, imported: {} });
    expect(await index.count('hosts')).toBe(0);
    await expect(importCollected(index, ['-'], { target: 'hosts', strict: true })).rejects.toThrow(
      /standard input/,
    );
  });

  it('a failed write stops the import with what was stored', async () => {
    const path = await file(
      'failing.ndjson',
      [1, 2, 3, 4].map((n) => line(host(n))),
    );
    let calls = 0;
    const failing = {
      write: async (dataset: Dataset, records: readonly never[]) => {
        if (++calls === 2) throw new Error('connection reset');
        return index.write(dataset, records, { seen: 'merge' });
      },
    };
    const error = await importCollected(failing, [path], { target: 'hosts', batchSize: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CollectorImportError);
    expect((error as Error).message).toBe(
      `writing hosts records of ${path} lines 3–4 failed, nothing of them was written: connection reset`,
    );
    expect((error as CollectorImportError).summary.imported).toEqual({ hosts: 2 });
    expect(await index.count('hosts')).toBe(2);
  });

  it('stops before writing when a file fits no format', async () => {
    const good = await file('good.ndjson', [line(host(1))]);
    const notes = await file('notes.txt', ['just some notes']);
    await expect(importCollected(index, [good, notes], { target: 'hosts' })).rejects.toThrow(
      `${notes}: no format recognizes this content`,
    );
    expect(await index.count('hosts')).toBe(0);
  });
});
