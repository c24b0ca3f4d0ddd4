/**
 * What the MongoDB catalogue store sends (no server needed): the batched, generation-switched import plan of the
 * shipped sample catalogue, the generations a switch drops, and the association writes and selector conditions
 * on the observation document. The contract leg (test/contract/catalogue-store.mongodb.test.ts) runs them on a
 * server when one is available.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { selectorMeaning, type HostAssociation } from '../../../src/catalogue/store/catalogue-store.port.js';
import {
  associationSummary,
  associationWrites,
  generationsToDrop,
  importPlan,
  selectorFilter,
} from '../../../src/catalogue/store/mongodb-catalogue-plan.js';
import { parseCatalogueText } from '../../../src/catalogue/import/parse-catalogue-files.js';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../../src/catalogue/sample/sample-catalogue.js';

const nvd = parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD));
const kev = parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV)).kev!;
const upserts = nvd.advisories.map((advisory) => ({
  advisory,
  hash: createHash('sha256').update(JSON.stringify(advisory)).digest('hex'),
}));

describe('MongoDB catalogue import plan', () => {
  it('writes changed advisories into a new generation, copied from the current one, in bounded batches', () => {
    const plan = importPlan({ upserts, kev: null }, { advisories_generation: 3, kev_generation: 2 }, 7, 4);
    expect(plan.advisories?.into).toBe('catalogue_advisories_g7');
    expect(plan.advisories?.copyFrom).toBe('catalogue_advisories_g3');
    expect(plan.advisories?.batches.map((batch) => batch.length)).toEqual([4, 4, 1]);
    expect(plan.kev).toBeNull();
    expect(plan.switchTo).toEqual({ advisories_generation: 7, kev_generation: 2 });
  });

  it('batches are idempotent upserts by advisory id: a re-sent batch rewrites the same documents', () => {
    const plan = importPlan({ upserts, kev: null }, { advisories_generation: 0, kev_generation: 0 }, 1);
    const operations = plan.advisories!.batches.flat();
    expect(operations).toHaveLength(9);
    const first = operations[0] as { replaceOne: { filter: unknown; replacement: unknown; upsert: boolean } };
    expect(first.replaceOne.filter).toEqual({ _id: upserts[0]!.advisory.id });
    expect(first.replaceOne.upsert).toBe(true);
    expect(first.replaceOne.replacement).toEqual({
      hash: upserts[0]!.hash,
      last_modified: upserts[0]!.advisory.last_modified,
      doc: upserts[0]!.advisory,
    });
    // Generation 0 is the layout before generations (the unsuffixed collection).
    expect(plan.advisories!.copyFrom).toBe('catalogue_advisories');
  });

  it('a KEV replacement is a complete new collection (no copy); unchanged advisories keep their generation', () => {
    const plan = importPlan({ upserts: [], kev }, { advisories_generation: 5, kev_generation: 5 }, 6);
    expect(plan.advisories).toBeNull();
    expect(plan.kev?.into).toBe('catalogue_kev_g6');
    expect(plan.kev?.copyFrom).toBeNull();
    expect(plan.kev?.batches.flat()).toHaveLength(6);
    expect(plan.switchTo).toEqual({ advisories_generation: 5, kev_generation: 6 });
  });

  it('after a switch, drops older and abandoned generations but keeps the replaced one and newer ones', () => {
    const names = [
      'catalogue_advisories',
      'catalogue_kev',
      'catalogue_advisories_g2',
      'catalogue_advisories_g4', // an import that crashed
      'catalogue_advisories_g5', // replaced now: readers may still be on it
      'catalogue_advisories_g6', // current
      'catalogue_advisories_g9', // an import still running
      'catalogue_kev_g5',
      'catalogue_meta',
      'catalogue_generations',
    ];
    expect(
      generationsToDrop(
        names,
        { advisories_generation: 6, kev_generation: 5 },
        { advisories_generation: 5, kev_generation: 5 },
      ),
    ).toEqual([
      'catalogue_advisories',
      'catalogue_advisories_g2',
      'catalogue_advisories_g4',
      'catalogue_kev',
    ]);
  });
});

const row = (observation_id: string, cve_id: string, kevListed: boolean | null): HostAssociation => ({
  observation_id,
  cve_id,
  kev: kevListed,
  conditional: false,
});

describe('MongoDB associations on the observation document', () => {
  it('summarizes an observation: its CVEs sorted, and whether one is KEV-listed, none is, or it is unknown', () => {
    expect(
      associationSummary([
        row('h1', 'CVE-2021-42013', true),
        row('h1', 'CVE-2021-41773', true),
        row('h1', 'CVE-2023-25690', false),
      ]),
    ).toEqual({ cves: ['CVE-2021-41773', 'CVE-2021-42013', 'CVE-2023-25690'], kev: 'listed' });
    expect(associationSummary([row('h2', 'CVE-2023-25690', false)])?.kev).toBe('unlisted');
    expect(associationSummary([row('h2', 'CVE-2023-25690', null)])?.kev).toBe('unknown');
    expect(associationSummary([row('h2', 'CVE-2023-25690', false), row('h2', 'CVE-2022-1', null)])?.kev).toBe(
      'unknown',
    );
    expect(associationSummary([])).toBeNull();
  });

  it('writes associations as unordered upserts (a repeated pair updates) and each observation summary, unsetting it for an observation left without', () => {
    const writes = associationWrites(
      ['h1', 'h3'],
      [row('h1', 'CVE-2021-42013', true), row('h1', 'CVE-2021-42013', true)],
    );
    expect(writes.associations).toHaveLength(2);
    for (const operation of writes.associations) {
      expect(operation).toEqual({
        updateOne: {
          filter: { _id: 'h1\u0000CVE-2021-42013' },
          update: {
            $set: { observation_id: 'h1', cve_id: 'CVE-2021-42013', kev: true, conditional: false },
          },
          upsert: true,
        },
      });
    }
    expect(writes.observations).toEqual([
      {
        updateOne: {
          filter: { _id: 'h1' },
          update: { $set: { assoc: { cves: ['CVE-2021-42013'], kev: 'listed' } } },
        },
      },
      { updateOne: { filter: { _id: 'h3' }, update: { $unset: { assoc: '' } } } },
    ]);
  });

  it('compiles each selector to one condition on the indexed assoc fields (no id list)', () => {
    expect(selectorFilter(selectorMeaning('cve', 'CVE-2021-44228'))).toEqual({
      'assoc.cves': 'CVE-2021-44228',
    });
    expect(selectorFilter(selectorMeaning('cve', 'CVE-2021-*'))).toEqual({
      'assoc.cves': { $elemMatch: { $gte: 'CVE-2021-', $lt: 'CVE-2021.' } },
    });
    expect(selectorFilter(selectorMeaning('cve', '*'))).toEqual({ 'assoc.cves': { $gte: '' } });
    expect(selectorFilter(selectorMeaning('kev', 'true'))).toEqual({ 'assoc.kev': 'listed' });
    expect(selectorFilter(selectorMeaning('kev', 'false'))).toEqual({ 'assoc.kev': 'unlisted' });
  });
});
