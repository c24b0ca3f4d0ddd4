/**
 * importCollected reading the service's own NDJSON (the cases the NDJSON-only importer it replaced was tested
 * for) and pretty-printed JSON (the real LeakIX sample as-is), on PGlite and on the server: bad lines with their
 * numbers and reasons, CRLF and a byte order mark, strict mode, atomic batches when a write fails, problems
 * truncated, merge writes of one id inside a batch, the dataset named, the generator's output, refusals.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATASETS, type Dataset } from '../../../src/search/domain/datasets.js';
import { dnsRecordId } from '../../../src/search/domain/records.js';
import { generateRecords } from '../../../src/search/data/generator.js';
import {
  CollectorImportError,
  importCollected,
  type CollectorImportProgress,
} from '../../../src/search/data/collectors/collector-import.js';
import type {
  ObservationIndex,
  ObservationRecord,
} from '../../../src/search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../../../src/search/observation-index/postgres-observation-index.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../../support/databases.js';
import { SHARED_DATA } from '../../support/shared-data.js';

const SEEN = { first_seen: '2025-05-01T00:00:00Z', last_seen: '2025-06-01T00:00:00Z' };
/** The real LeakIX sample, pretty-printed as published (read in place, never copied). */
const LEAKIX_SAMPLE = join(SHARED_DATA, 'leakix', 'l9event.json');
const LEAKIX_FINGERPRINT = 'e998e371dd4678c9113e196bc5e4a5e901455750c6dbc9985c84403b91055260';

function host(octet: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const ip = `198.51.100.${octet}`;
  return { id: `${ip}:443/tcp`, ip, port: 443, transport: 'tcp', product: 'NGINX', ...SEEN, ...extra };
}

const line = (value: unknown) => JSON.stringify(value);

describe.each(SQL_KINDS)('importCollected with NDJSON and pretty-printed JSON (%s)', (kind) => {
  let database: TestDatabase;
  let index: PostgresObservationIndex;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    index = new PostgresObservationIndex(database.db);
    await index.init();
    dir = await mkdtemp(join(tmpdir(), 'collector-import-ndjson-'));
  });

  afterAll(async () => {
    await database?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    for (const dataset of DATASETS) await index.clear(dataset);
  });

  async function file(name: string, lines: readonly string[], ending = '\n'): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, lines.join(ending) + ending, 'utf8');
    return path;
  }

  /** Lines 1–9: four good records, four bad ones, one blank. */
  const MIXED = [
    line(host(1)), // 1
    '{"id": "198.51.100.2:443/tcp", "ip": ', // 2: truncated JSON
    line(host(3, { port: 70000, id: '198.51.100.3:70000/tcp' })), // 3: port out of range
    '', // 4: blank
    line(host(5)), // 5
    line(host(6, { os: 'linux' })), // 6: unknown field
    line(host(7, { first_seen: '2025-07-01T00:00:00Z' })), // 7: first_seen after last_seen
    line(host(8)), // 8
    line(host(9)), // 9
  ];

  it('writes the valid lines, rejects each bad line with its file, number and reason, skips blank lines', async () => {
    const path = await file('mixed.ndjson', MIXED);
    const summary = await importCollected(index, [path], { target: 'hosts', batchSize: 2 });
    expect(summary).toMatchObject({
      read: 8,
      imported: { hosts: 4 },
      rejected: 4,
      blank: 1,
      batches: 2,
      aborted: false,
      problemsTruncated: false,
    });
    expect(summary.files).toEqual([
      {
        file: path,
        format: 'ndjson',
        read: 8,
        blank: 1,
        imported: { hosts: 4 },
        rejected: 4,
        refused: {},
        // What the load event records of the file: every byte read, and their hash.
        bytes: statSync(path).size,
        sha256: createHash('sha256').update(readFileSync(path)).digest('hex'),
      },
    ]);
    expect(summary.problems.map((p) => [p.file, p.line])).toEqual([
      [path, 2],
      [path, 3],
      [path, 6],
      [path, 7],
    ]);
    expect(summary.problems[0]!.reason).toMatch(/^invalid JSON: /);
    expect(summary.problems[1]!.reason).toContain('port: must be an integer from 1 to 65535, got 70000');
    expect(summary.problems[2]!.reason).toContain('os: unknown field');
    expect(summary.problems[3]!.reason).toContain('first_seen: must not be after last_seen');

    expect(await index.count('hosts')).toBe(4);
    for (const octet of [1, 5, 8, 9])
      expect(await index.get('hosts', `198.51.100.${octet}:443/tcp`)).not.toBeNull();
    // Nothing of a rejected line reached the index, not even with another id.
    for (const octet of [2, 3, 6, 7]) {
      expect(await index.get('hosts', `198.51.100.${octet}:443/tcp`)).toBeNull();
      expect(await index.get('hosts', `198.51.100.${octet}:70000/tcp`)).toBeNull();
    }
    // Stored normalized.
    expect(await index.get('hosts', '198.51.100.1:443/tcp')).toMatchObject({
      product: 'nginx',
      first_seen: '2025-05-01T00:00:00.000Z',
    });
  });

  it('handles CRLF line endings and a byte order mark', async () => {
    const path = await file('crlf.ndjson', [`\ufeff${line(host(1))}`, line(host(2)), 'nope'], '\r\n');
    const summary = await importCollected(index, [path], { target: 'hosts' });
    expect(summary).toMatchObject({ read: 3, imported: { hosts: 2 }, rejected: 1, blank: 0 });
    expect(summary.files[0]!.format).toBe('ndjson');
    expect(summary.problems).toEqual([
      { file: path, line: 3, reason: expect.stringMatching(/^invalid JSON/) as unknown as string },
    ]);
    expect(await index.get('hosts', '198.51.100.1:443/tcp')).toMatchObject({ ip: '198.51.100.1' });
    expect(await index.get('hosts', '198.51.100.2:443/tcp')).toMatchObject({ ip: '198.51.100.2' });
  });

  it('strict mode writes nothing when any line is bad, and lists the bad lines', async () => {
    const path = await file('strict-bad.ndjson', MIXED);
    const summary = await importCollected(index, [path], { target: 'hosts', strict: true, batchSize: 2 });
    expect(summary).toMatchObject({ strict: true, aborted: true, imported: {}, rejected: 4, batches: 0 });
    expect(summary.problems.map((p) => p.line)).toEqual([2, 3, 6, 7]);
    expect(await index.count('hosts')).toBe(0);
  });

  it('strict mode writes everything when every line is good, validating first', async () => {
    const path = await file(
      'strict-good.ndjson',
      [1, 2, 3, 4, 5].map((n) => line(host(n))),
    );
    const phases = new Set<string>();
    const summary = await importCollected(index, [path], {
      target: 'hosts',
      strict: true,
      batchSize: 2,
      onProgress: (p: CollectorImportProgress) => phases.add(p.phase),
    });
    expect(summary).toMatchObject({
      read: 5,
      imported: { hosts: 5 },
      rejected: 0,
      batches: 3,
      aborted: false,
    });
    expect([...phases]).toEqual(['validating', 'importing']);
    expect(await index.count('hosts')).toBe(5);
  });

  it('a failed write stops the import: earlier batches stay, the failed batch wrote nothing', async () => {
    const path = await file(
      'failing.ndjson',
      [1, 2, 3, 4, 5, 6].map((n) => line(host(n))),
    );
    let calls = 0;
    const failing: Pick<ObservationIndex, 'write'> = {
      write: async (dataset: Dataset, records: readonly ObservationRecord[], options) => {
        // The store refuses the second batch as a whole, as a failed transaction does.
        if (++calls === 2) throw new Error('connection reset');
        return index.write(dataset, records, options);
      },
    };
    const error = await importCollected(failing, [path], { target: 'hosts', batchSize: 2 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CollectorImportError);
    expect((error as CollectorImportError).message).toBe(
      `writing hosts records of ${path} lines 3–4 failed, nothing of them was written: connection reset`,
    );
    expect((error as CollectorImportError).summary).toMatchObject({ imported: { hosts: 2 }, batches: 1 });
    expect(await index.count('hosts')).toBe(2);
    expect(await index.get('hosts', '198.51.100.2:443/tcp')).not.toBeNull();
    expect(await index.get('hosts', '198.51.100.3:443/tcp')).toBeNull();
  });

  it('keeps the first problems only, and says so', async () => {
    const path = await file(
      'many-bad.ndjson',
      Array.from({ length: 30 }, (_, i) => `bad ${i}`),
    );
    // No line starts with `{`: nothing sniffs as NDJSON, so the format is named.
    const summary = await importCollected(index, [path], {
      target: 'hosts',
      format: 'ndjson',
      maxProblems: 10,
    });
    expect(summary).toMatchObject({ read: 30, rejected: 30, imported: {}, problemsTruncated: true });
    expect(summary.problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('lines of one id inside one batch merge: seen times widen, the newest observation’s fields win', async () => {
    const path = await file('dupes.ndjson', [
      // Same last_seen: parts of one observation, the later line's fields over the earlier's, others kept.
      line(host(1, { product: 'apache', organization: 'Example Org' })),
      line(host(1, { product: 'caddy' })),
      // An older observation after a newer one: the newer's fields stay, first_seen moves back.
      line(host(2, { product: 'lighttpd', last_seen: '2025-09-01T00:00:00Z' })),
      line(
        host(2, { product: 'iis', first_seen: '2025-01-01T00:00:00Z', last_seen: '2025-02-01T00:00:00Z' }),
      ),
    ]);
    const summary = await importCollected(index, [path], { target: 'hosts' });
    // Every line is counted as imported; the index holds one record an id.
    expect(summary).toMatchObject({ read: 4, imported: { hosts: 4 }, rejected: 0, batches: 1 });
    expect(await index.count('hosts')).toBe(2);
    expect(await index.get('hosts', '198.51.100.1:443/tcp')).toEqual({
      id: '198.51.100.1:443/tcp',
      ip: '198.51.100.1',
      port: 443,
      transport: 'tcp',
      product: 'caddy',
      organization: 'example org',
      first_seen: '2025-05-01T00:00:00.000Z',
      last_seen: '2025-06-01T00:00:00.000Z',
    });
    expect(await index.get('hosts', '198.51.100.2:443/tcp')).toMatchObject({
      product: 'lighttpd',
      first_seen: '2025-01-01T00:00:00.000Z',
      last_seen: '2025-09-01T00:00:00.000Z',
    });
  });

  it('validates against the dataset named, not the record shape', async () => {
    const record = {
      id: dnsRecordId('www.example.com', 'a', '198.51.100.1'),
      name: 'www.example.com',
      type: 'a',
      value: '198.51.100.1',
      ...SEEN,
    };
    const path = await file('dns.ndjson', [line(record)]);
    expect(await importCollected(index, [path], { target: 'dns' })).toMatchObject({
      imported: { dns: 1 },
      rejected: 0,
    });
    expect(await index.get('dns', record.id)).toMatchObject({
      name: 'www.example.com',
      value: '198.51.100.1',
    });
    const wrong = await importCollected(index, [path], { target: 'whois' });
    expect(wrong).toMatchObject({ imported: {}, rejected: 1, refused: {} });
    expect(wrong.problems[0]!.reason).toContain('name: unknown field');
    expect(await index.count('whois')).toBe(0);
  });

  it('imports what the generator produces, every line', async () => {
    const lines = [
      ...generateRecords('vhosts', { count: 1500, seed: 'roundtrip', now: new Date('2026-01-01') }),
    ].map(line);
    const path = await file('generated.ndjson', lines);
    const progress: number[] = [];
    const summary = await importCollected(index, [path], {
      target: 'vhosts',
      onProgress: (p) => progress.push(p.bytesRead),
    });
    expect(summary).toMatchObject({ read: 1500, imported: { vhosts: 1500 }, rejected: 0, batches: 2 });
    expect(await index.count('vhosts')).toBe(1500);
    expect(progress.at(-1)).toBeGreaterThan(0);
  });

  it('refuses an unknown dataset or batch size before reading, and a missing file', async () => {
    const path = await file('one.ndjson', [line(host(1))]);
    await expect(importCollected(index, [path], { target: 'certs' as Dataset })).rejects.toThrow(
      'unknown dataset "certs"',
    );
    await expect(importCollected(index, [path], { target: 'hosts', batchSize: 0 })).rejects.toThrow(
      'batchSize must be an integer from 1 to 10000',
    );
    await expect(
      importCollected(index, [path, join(dir, 'missing.ndjson')], { target: 'hosts' }),
    ).rejects.toThrow(/ENOENT/);
    expect(await index.count('hosts')).toBe(0);
  });

  it('imports the pretty-printed LeakIX sample as-is into its hosts and vhosts records', async () => {
    const seenAt = '2026-11-28T12:00:00.000Z';
    const summary = await importCollected(index, [LEAKIX_SAMPLE], { target: 'auto', seenAt });
    expect(summary).toMatchObject({
      read: 1,
      imported: { hosts: 1, vhosts: 1 },
      rejected: 0,
      refused: {},
      problems: [],
    });
    expect(summary.files.map((f) => [f.file, f.format])).toEqual([[LEAKIX_SAMPLE, 'leakix']]);
    expect(await index.count('hosts')).toBe(1);
    expect(await index.count('vhosts')).toBe(1);
    // The event's time is Go's zero time: the import's own time is used.
    expect(await index.get('hosts', '127.0.0.1:8080/tcp')).toEqual({
      id: '127.0.0.1:8080/tcp',
      ip: '127.0.0.1',
      port: 8080,
      transport: 'tcp',
      protocol: 'https',
      http: { status: 200, title: 'Apache welcome page', server: 'apache' },
      tls: {
        subject: { cn: 'example.com' },
        san: ['site.example.com', 'admin.example.com'],
        fingerprint: LEAKIX_FINGERPRINT,
      },
      hostnames: ['site1.example.com', 'ptr1.example.com'],
      first_seen: seenAt,
      last_seen: seenAt,
    });
    expect(await index.get('vhosts', `${LEAKIX_FINGERPRINT}@127.0.0.1:8080`)).toEqual({
      id: `${LEAKIX_FINGERPRINT}@127.0.0.1:8080`,
      fingerprint: LEAKIX_FINGERPRINT,
      subject: { cn: 'example.com' },
      names: ['site.example.com', 'admin.example.com'],
      issuer: { cn: 'rapid ssl' },
      key: { type: 'rsa', bits: 2048 },
      ip: '127.0.0.1',
      port: 8080,
      first_seen: seenAt,
      last_seen: seenAt,
    });
  });
});
