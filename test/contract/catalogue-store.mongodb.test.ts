/**
 * The CatalogueStore contract on MongoDB (a replica set from MONGODB_URL). Without MONGODB_URL the leg is
 * registered with describe.skip, so jest reports it as skipped, with the reason on the console.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { parseCatalogueText } from '../../src/catalogue/import/parse-catalogue-files.js';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../src/catalogue/sample/sample-catalogue.js';
import { MongoCatalogueStore } from '../../src/catalogue/store/mongodb-catalogue-store.js';
import { MongoObservationIndex } from '../../src/search/observation-index/mongodb-observation-index.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';

const url = process.env.MONGODB_URL;
if (url) {
  catalogueStoreContract('mongodb', async () => {
    const name = `catalogue_${randomBytes(6).toString('hex')}`;
    const client = new MongoClient(url);
    await client.connect();
    const store = new MongoCatalogueStore(client, name);
    const observations = new MongoObservationIndex(client, name, { selectors: store.mongoSelectors });
    await observations.init();
    await store.init();
    return {
      store,
      observations,
      dispose: async () => {
        await client.db(name).dropDatabase();
        await client.close();
      },
    };
  });

  describe('MongoDB catalogue at scale: generations, upserts, indexed selectors', () => {
    const name = `catalogue_scale_${randomBytes(6).toString('hex')}`;
    let client: MongoClient;
    let store: MongoCatalogueStore;
    let observations: MongoObservationIndex;
    const nvd = parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD)).advisories;
    const kev = parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)).kev!;
    const stored = (advisories: typeof nvd) =>
      advisories.map((advisory) => ({ advisory, hash: advisory.id }));
    beforeAll(async () => {
      client = new MongoClient(url);
      await client.connect();
      store = new MongoCatalogueStore(client, name);
      observations = new MongoObservationIndex(client, name, { selectors: store.mongoSelectors });
      await observations.init();
      await store.init();
    });
    afterAll(async () => {
      await client.db(name).dropDatabase();
      await client.close();
    });

    it('an import that dies before its switch leaves the old catalogue, and the next commit drops its leftovers', async () => {
      await store.commit({ upserts: inOneBatch(stored(nvd.slice(0, 4))), kev: null, at: new Date() });
      // A crashed import: a generation numbered and partly written, never switched to.
      const counter = await client
        .db(name)
        .collection<{ _id: string; last: number }>('catalogue_generations')
        .findOneAndUpdate({ _id: 'generation' }, { $inc: { last: 1 } }, { returnDocument: 'after' });
      const abandoned = `catalogue_advisories_g${counter!.last}`;
      await client.db(name).collection<{ _id: string }>(abandoned).insertOne({ _id: 'CVE-0000-0001' });
      expect((await store.load()).advisories.map((a) => a.id)).toEqual(
        nvd
          .slice(0, 4)
          .map((a) => a.id)
          .sort(),
      );
      const version = await store.commit({
        upserts: inOneBatch(stored(nvd.slice(4))),
        kev: { ...kev, hash: 'sample' },
        at: new Date(),
      });
      expect(version).toMatchObject({ version: 2, advisories: nvd.length, kev_entries: kev.entries.length });
      const names = (await client.db(name).listCollections({}, { nameOnly: true }).toArray()).map(
        (c) => c.name,
      );
      expect(names).not.toContain(abandoned);
    });

    it('association rows repeated in one batch are upserted, not refused', async () => {
      await observations.write('hosts', [
        {
          id: 'h1',
          first_seen: '2026-02-01T00:00:00.000Z',
          last_seen: '2026-02-20T00:00:00.000Z',
          ip: '198.51.100.1',
          port: 443,
          transport: 'tcp',
        },
      ]);
      const row = { observation_id: 'h1', cve_id: 'CVE-2021-42013', kev: true, conditional: false };
      await store.replaceAssociations(['h1'], [row, row]);
      expect(await store.associationCount()).toBe(1);
      // A re-observation keeps the summary the selectors read.
      await observations.write('hosts', [
        {
          id: 'h1',
          first_seen: '2026-02-01T00:00:00.000Z',
          last_seen: '2026-02-21T00:00:00.000Z',
          ip: '198.51.100.1',
          port: 443,
          transport: 'tcp',
        },
      ]);
      const page = await observations.search(
        'hosts',
        { ast: { kind: 'selector', selector: 'kev', value: 'true', span: { start: 0, end: 8 } } },
        { offset: 0, limit: 10 },
      );
      expect(page.records.map((record) => record.id)).toEqual(['h1']);
    });

    it('a selector is one indexed query on the observations (the winning plan scans assoc_cves)', async () => {
      const explained = await client
        .db(name)
        .collection('obs_hosts')
        .find({ 'assoc.cves': 'CVE-2021-42013' })
        .explain('queryPlanner');
      expect(JSON.stringify(explained.queryPlanner.winningPlan)).toContain('assoc_cves');
    });
  });
} else {
  console.warn(
    'CatalogueStore contract on MongoDB skipped: MONGODB_URL is not set (no MongoDB on this machine)',
  );
  describe.skip('CatalogueStore contract: mongodb (MONGODB_URL not set)', () => {
    it('runs against a MongoDB replica set', () => undefined);
  });
}

/** A change's advisories as the port hands them: batches, read again on every call. */
function inOneBatch<T>(items: readonly T[]): () => AsyncIterable<readonly T[]> {
  return async function* () {
    yield items;
  };
}
