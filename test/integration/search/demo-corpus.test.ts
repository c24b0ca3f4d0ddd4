/**
 * The demo corpus loader into the PostgreSQL observation index (in-memory PGlite): it fills an empty index once,
 * with the generator's output for its fixed seed, and never mixes with existing data.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DATASETS } from '../../../src/search/domain/datasets.js';
import { DEMO_CORPUS_SEED, loadDemoCorpus } from '../../../src/search/data/demo-corpus.js';
import { generateRecords } from '../../../src/search/data/generator.js';
import { PostgresObservationIndex } from '../../../src/search/observation-index/postgres-observation-index.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';

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
