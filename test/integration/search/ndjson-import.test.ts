/**
 * NDJSON import into the PostgreSQL observation index (in-memory PGlite): line numbers of bad lines, nothing
 * half-written, strict mode writing nothing, atomic batches when a write fails; and the demo corpus loader.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATASETS, type Dataset } from '../../../src/search/domain/datasets.js';
import { dnsRecordId } from '../../../src/search/domain/records.js';
import { DEMO_CORPUS_SEED, loadDemoCorpus } from '../../../src/search/data/demo-corpus.js';
import { generateRecords } from '../../../src/search/data/generator.js';
import {
  importNdjson,
  NdjsonImportError,
  type NdjsonImportProgress,
} from '../../../src/search/data/ndjson-import.js';
import type {
  ObservationIndex,
  ObservationRecord,
} from '../../../src/search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../../../src/search/observation-index/postgres-observation-index.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';

const SEEN = { first_seen: '2025-05-01T00:00:00Z', last_seen: '2025-06-01T00:00:00Z' };

function host(octet: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const ip = `198.51.100.${octet}`;
  return { id: `${ip}:443/tcp`, ip, port: 443, transport: 'tcp', product: 'NGINX', ...SEEN, ...extra };
}

const line = (value: unknown) => JSON.stringify(value);

describe('importNdjson into the PostgreSQL observation index (pglite)', () => {
  let database: TestDatabase;
  let index: PostgresObservationIndex;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    index = new PostgresObservationIndex(database.db);
    await index.init();
    dir = await mkdtemp(join(tmpdir(), 'ndjson-import-'));
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

  it('writes the valid lines, rejects each bad line with its number and reason, skips blank lines', async () => {
    const path = await file('mixed.ndjson', MIXED);
    const summary = await importNdjson(index, 'hosts', path, { batchSize: 2 });
    expect(summary).toMatchObject({
      read: 8,
      imported: 4,
      rejected: 4,
      blank: 1,
      aborted: false,
      problemsTruncated: false,
    });
    expect(summary.problems.map((p) => p.line)).toEqual([2, 3, 6, 7]);
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
    const summary = await importNdjson(index, 'hosts', path);
    expect(summary).toMatchObject({ read: 3, imported: 2, rejected: 1 });
    expect(summary.problems).toEqual([{ line: 3, reason: expect.stringMatching(/^invalid JSON/) }]);
  });

  it('strict mode writes nothing when any line is bad, and lists the bad lines', async () => {
    const path = await file('strict-bad.ndjson', MIXED);
    const summary = await importNdjson(index, 'hosts', path, { strict: true, batchSize: 2 });
    expect(summary).toMatchObject({ strict: true, aborted: true, imported: 0, rejected: 4, batches: 0 });
    expect(summary.problems.map((p) => p.line)).toEqual([2, 3, 6, 7]);
    expect(await index.count('hosts')).toBe(0);
  });

  it('strict mode writes everything when every line is good', async () => {
    const path = await file(
      'strict-good.ndjson',
      [1, 2, 3, 4, 5].map((n) => line(host(n))),
    );
    const phases = new Set<string>();
    const summary = await importNdjson(index, 'hosts', path, {
      strict: true,
      batchSize: 2,
      onProgress: (p: NdjsonImportProgress) => phases.add(p.phase),
    });
    expect(summary).toMatchObject({ read: 5, imported: 5, rejected: 0, batches: 3, aborted: false });
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
      write: async (dataset: Dataset, records: readonly ObservationRecord[]) => {
        if (++calls === 2) {
          // The store refuses the second batch as a whole, as a failed transaction does.
          throw new Error('connection reset');
        }
        await index.write(dataset, records);
      },
    };
    const error = await importNdjson(failing, 'hosts', path, { batchSize: 2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NdjsonImportError);
    expect((error as NdjsonImportError).message).toContain('writing lines 3–4 failed');
    expect((error as NdjsonImportError).summary).toMatchObject({ imported: 2, batches: 1 });
    expect(await index.count('hosts')).toBe(2);
    expect(await index.get('hosts', '198.51.100.3:443/tcp')).toBeNull();
  });

  it('keeps the first problems only, and says so', async () => {
    const path = await file(
      'many-bad.ndjson',
      Array.from({ length: 30 }, (_, i) => `bad ${i}`),
    );
    const summary = await importNdjson(index, 'hosts', path, { maxProblems: 10 });
    expect(summary).toMatchObject({ read: 30, rejected: 30, imported: 0, problemsTruncated: true });
    expect(summary.problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('a later line with the same id replaces the earlier one (upsert), also inside one batch', async () => {
    const path = await file('dupes.ndjson', [
      line(host(1, { product: 'apache' })),
      line(host(1, { product: 'caddy' })),
    ]);
    const summary = await importNdjson(index, 'hosts', path);
    expect(summary).toMatchObject({ imported: 2, rejected: 0 });
    expect(await index.count('hosts')).toBe(1);
    expect(await index.get('hosts', '198.51.100.1:443/tcp')).toMatchObject({ product: 'caddy' });
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
    expect(await importNdjson(index, 'dns', path)).toMatchObject({ imported: 1 });
    const wrong = await importNdjson(index, 'whois', path);
    expect(wrong).toMatchObject({ imported: 0, rejected: 1 });
    expect(wrong.problems[0]!.reason).toContain('name: unknown field');
  });

  it('imports what the generator produces, every line', async () => {
    const lines = [
      ...generateRecords('vhosts', { count: 1500, seed: 'roundtrip', now: new Date('2026-01-01') }),
    ].map(line);
    const path = await file('generated.ndjson', lines);
    const progress: number[] = [];
    const summary = await importNdjson(index, 'vhosts', path, {
      onProgress: (p) => progress.push(p.bytesRead),
    });
    expect(summary).toMatchObject({ read: 1500, imported: 1500, rejected: 0, batches: 2 });
    expect(await index.count('vhosts')).toBe(1500);
    expect(progress.at(-1)).toBeGreaterThan(0);
  });

  it('refuses an unknown dataset or batch size before reading, and a missing file', async () => {
    const path = await file('one.ndjson', [line(host(1))]);
    await expect(importNdjson(index, 'certs' as Dataset, path)).rejects.toThrow('unknown dataset');
    await expect(importNdjson(index, 'hosts', path, { batchSize: 0 })).rejects.toThrow('batchSize');
    await expect(importNdjson(index, 'hosts', join(dir, 'missing.ndjson'))).rejects.toThrow(/ENOENT/);
    expect(await index.count('hosts')).toBe(0);
  });
});

describe('loadDemoCorpus (pglite)', () => {
  let database: TestDatabase;
  let index: PostgresObservationIndex;

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    index = new PostgresObservationIndex(database.db);
    await index.init();
  });

  afterAll(async () => {
    await database?.dispose();
  });

  it('fills an empty index once, and never mixes with existing data', async () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const first = await loadDemoCorpus(index, now, { count: 600 });
    expect(first.loaded).toBe(true);
    for (const dataset of DATASETS) expect(await index.count(dataset)).toBe(600);
    const again = await loadDemoCorpus(index, now, { count: 600 });
    expect(again).toEqual({ loaded: false, reason: 'hosts already holds 600 records' });
    // The demo corpus is the generator's output for its fixed seed.
    const sample = generateRecords('whois', { count: 1, seed: DEMO_CORPUS_SEED, now });
    const [firstWhois] = [...sample];
    expect(await index.get('whois', firstWhois!.id)).toMatchObject({ domain: firstWhois!.id });
  });
});
