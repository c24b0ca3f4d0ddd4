/**
 * The CatalogueStore contract, adapter-neutral, exercised through the CatalogueService the service uses and an
 * observation index of the same backend with the store's selector compiler: imports (idempotent, versioned, a
 * malformed file changes nothing), the association index kept in step with observation writes, and the `cve:`/`kev:`
 * selectors (this extends the observation index contract with real selectors).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssociatedObservationIndex } from '../../src/catalogue/associated-observation-index.js';
import { generateNvdCatalogue } from '../../bench/nvd-catalogue-generator.js';
import {
  CatalogueService,
  surveyCataloguePaths,
  type ImportProgress,
} from '../../src/catalogue/catalogue-service.js';
import { MATCHER_VERSION } from '../../src/catalogue/domain/matching.js';
import { MalformedCatalogueFile } from '../../src/catalogue/import/parse-catalogue-files.js';
import type { CatalogueStore } from '../../src/catalogue/store/catalogue-store.port.js';
import type {
  ObservationIndex,
  ObservationRecord,
} from '../../src/search/observation-index/observation-index.port.js';
import { QuerySyntaxError } from '../../src/search/query-language/ast.js';
import { q } from './observation-index.contract.js';

export interface CatalogueUnderTest {
  readonly store: CatalogueStore;
  /** An observation index of the same backend, compiling selectors with the store's compiler. */
  readonly observations: ObservationIndex;
  dispose(): Promise<void>;
}

// The samples beside the project (SHARED_DATA names another place, e.g. from a worktree).
const DATA = process.env.SHARED_DATA ?? join(process.cwd(), '..', 'shared', 'data');
const AT = new Date('2026-03-01T00:00:00.000Z');
const OLDER = new Date('2026-01-15T00:00:00.000Z');
const cpe = (vendor: string, product: string, version: string, update = '*') =>
  `cpe:2.3:a:${vendor}:${product}:${version}:${update}:*:*:*:*:*:*`;

function host(id: string, cpes: string[], port = 443): ObservationRecord {
  return {
    id,
    first_seen: '2026-02-01T00:00:00.000Z',
    last_seen: '2026-02-20T00:00:00.000Z',
    ip: `198.51.100.${Number(id.replace(/\D/g, '')) % 250}`,
    port,
    transport: 'tcp',
    cpe: cpes,
  };
}

const HOSTS = [
  host('h1', [cpe('apache', 'http_server', '2.4.49')]), // 41773, 42013 (KEV), 25690 (not KEV)
  host('h2', [cpe('apache', 'http_server', '2.4.55')], 80), // 25690 only: kev:false
  host('h3', [cpe('f5', 'nginx', '1.26.2')]), // nothing
  host('h4', [cpe('openssl', 'openssl', '1.0.1f')]), // 2014-0160 (KEV)
  host('h5', []), // no software identity
];

export function catalogueStoreContract(label: string, open: () => Promise<CatalogueUnderTest>): void {
  describe(`CatalogueStore contract: ${label}`, () => {
    let subject: CatalogueUnderTest;
    let service: CatalogueService;
    let index: ObservationIndex;
    let scratch: string;
    const ids = async (ast: ReturnType<typeof q.selector>) =>
      (await index.search('hosts', { ast }, { offset: 0, limit: 50 })).records.map((r) => r.id).sort();

    beforeAll(async () => {
      subject = await open();
      service = new CatalogueService(subject.store, { now: () => AT });
      index = new AssociatedObservationIndex(subject.observations, service);
      await index.write('hosts', HOSTS);
      scratch = mkdtempSync(join(tmpdir(), 'catalogue-'));
    });
    afterAll(async () => {
      rmSync(scratch, { recursive: true, force: true });
      await subject?.dispose();
    });

    it('starts empty: version 0, no KEV source, no associations, no matcher version recorded', async () => {
      expect(await subject.store.version()).toMatchObject({ version: 0, advisories: 0, kev_source: null });
      expect(await subject.store.associationCount()).toBe(0);
      expect(await subject.store.indexStamp()).toBeNull();
    });

    it('at start, an index with no matcher version and nothing to associate is stamped current without a rebuild', async () => {
      // Hosts are stored, but the catalogue is empty: no association can exist, whatever built the index.
      expect(await service.indexStatus()).toEqual({
        index: 'current',
        matcher_version: MATCHER_VERSION,
        index_matcher_version: null,
        built_at: null,
      });
      const upkeep = await service.upkeepIndexAtStart(index);
      expect(await upkeep.done).toBeNull();
      expect(await subject.store.indexStamp()).toEqual({
        matcher_version: MATCHER_VERSION,
        built_at: AT.toISOString(),
      });
    });

    it('imports the real NVD and KEV files, versioned, and associates the stored hosts', async () => {
      const progress: ImportProgress[] = [];
      const report = await service.importPaths([join(DATA, 'nvd'), join(DATA, 'kev')], {
        observations: index,
        onProgress: (p) => progress.push(p),
      });
      expect(report).toMatchObject({
        files: 41,
        advisories_read: 40,
        advisories_added: 39,
        kev_entries: 1404,
        kev_changed: true,
        changed: true,
        catalogue: {
          version: 1,
          evaluated_at: AT.toISOString(),
          advisories: 39,
          kev_entries: 1404,
          kev_source: { catalog_version: '2025.08.25', count: 1404 },
        },
        associations: { observations: 5, associated_observations: 3 },
      });
      // Each phase reports done 0 before its work (the CLI's rates are measured from it), the reindex its total.
      const phase = (name: ImportProgress['phase']) =>
        progress.filter((p) => p.phase === name).map((p) => [p.done, p.total]);
      expect([...new Set(progress.map((p) => p.phase))]).toEqual(['read', 'commit', 'reindex']);
      expect(phase('read')).toEqual(Array.from({ length: 42 }, (_, i) => [i, 41]));
      // The commit counts advisories written, one file's worth at a time (the files are read again, not held).
      expect(phase('commit')).toEqual(Array.from({ length: 40 }, (_, i) => [i, 39]));
      expect(phase('reindex')).toEqual([
        [0, 5],
        [5, 5],
      ]);
      const snapshot = await subject.store.load();
      // The analysed CVE-2024-3400 (newer lastModified) won over the "awaiting analysis" copy.
      expect(
        snapshot.advisories.find((a) => a.id === 'CVE-2024-3400')!.configurations.length,
      ).toBeGreaterThan(0);
    });

    it('re-importing the same files changes nothing', async () => {
      const again = await service.importPaths([join(DATA, 'nvd'), join(DATA, 'kev')], {
        observations: index,
      });
      expect(again).toMatchObject({
        changed: false,
        advisories_unchanged: 39,
        kev_changed: false,
        associations: null,
      });
      expect((await subject.store.version()).version).toBe(1);
    });

    it('a malformed file is rejected with its path and reason, and the catalogue is untouched', async () => {
      const good = join(scratch, 'a-good.json');
      writeFileSync(
        good,
        JSON.stringify({ id: 'CVE-2099-0001', lastModified: '2099-01-01', configurations: [] }),
      );
      const bad = join(scratch, 'b-bad.json');
      writeFileSync(
        bad,
        JSON.stringify({
          id: 'CVE-2099-0002',
          configurations: [{ nodes: [{ operator: 'XOR', cpeMatch: [] }] }],
        }),
      );
      const broken = join(scratch, 'c-broken.json');
      writeFileSync(broken, '{"id": "CVE-2099-0003", ');
      for (const [paths, reason] of [
        [[scratch], /operator "XOR"/],
        [[good, broken], /not valid JSON/],
        [[join(scratch, 'missing.json')], /no such file/],
      ] as const) {
        const attempt = service.importPaths(paths as readonly string[], { observations: index });
        await expect(attempt).rejects.toBeInstanceOf(MalformedCatalogueFile);
        await expect(attempt).rejects.toThrow(reason);
      }
      expect(await subject.store.version()).toMatchObject({ version: 1, advisories: 39 });
      expect((await subject.store.stamps(['CVE-2099-0001'])).size).toBe(0);
    });

    it('cve: and kev: select over the association index', async () => {
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual(['h1']);
      expect(await ids(q.selector('cve', 'CVE-2023-25690'))).toEqual(['h1', 'h2']);
      expect(await ids(q.selector('cve', 'CVE-2014-*'))).toEqual(['h4']);
      expect(await ids(q.selector('cve', 'CVE-2021-*'))).toEqual(['h1']);
      expect(await ids(q.selector('cve', '*'))).toEqual(['h1', 'h2', 'h4']);
      expect(await ids(q.selector('kev', 'true'))).toEqual(['h1', 'h4']);
      expect(await ids(q.selector('kev', 'false'))).toEqual(['h2']);
      expect(await ids(q.and(q.selector('cve', '*'), q.exact('port', 80)))).toEqual(['h2']);
      expect(await ids(q.or(q.selector('kev', 'true'), q.exact('port', 80)))).toEqual(['h1', 'h2', 'h4']);
      expect(await ids(q.not(q.selector('cve', '*')))).toEqual(['h3', 'h5']);
      const counted = await index.search('hosts', { ast: q.selector('cve', '*') }, { offset: 0, limit: 1 });
      expect(counted.total).toBe(3);
    });

    it('a reindex rebuilds the same associations, reporting done 0 and its total before the first batch', async () => {
      const before = await subject.store.associationsOf(HOSTS.map((h) => h.id));
      const progress: Array<[number, number]> = [];
      const report = await service.reindex(index, (done, total) => progress.push([done, total]));
      expect(report).toMatchObject({ observations: 5, associated_observations: 3 });
      expect(progress).toEqual([
        [0, 5],
        [5, 5],
      ]);
      expect(await subject.store.associationsOf(HOSTS.map((h) => h.id))).toEqual(before);
    });

    it('the index records the matcher version of its last full build; stampIndex replaces it', async () => {
      expect(await subject.store.indexStamp()).toEqual({
        matcher_version: MATCHER_VERSION,
        built_at: AT.toISOString(),
      });
      await subject.store.stampIndex(MATCHER_VERSION - 1, OLDER);
      expect(await subject.store.indexStamp()).toEqual({
        matcher_version: MATCHER_VERSION - 1,
        built_at: OLDER.toISOString(),
      });
      await service.reindex(index);
      expect(await subject.store.indexStamp()).toEqual({
        matcher_version: MATCHER_VERSION,
        built_at: AT.toISOString(),
      });
    });

    it('at start, an index built by another matcher version is rebuilt in the background and stamped current', async () => {
      // What an older matcher left: h1 without its associations, stamped with that matcher's version.
      await subject.store.replaceAssociations(['h1'], []);
      await subject.store.stampIndex(MATCHER_VERSION - 1, OLDER);
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual([]);
      expect(await service.indexStatus()).toEqual({
        index: 'stale',
        matcher_version: MATCHER_VERSION,
        index_matcher_version: MATCHER_VERSION - 1,
        built_at: OLDER.toISOString(),
      });
      const upkeep = await service.upkeepIndexAtStart(index);
      expect(await upkeep.done).toMatchObject({ observations: 5, associated_observations: 3 });
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual(['h1']);
      expect(await service.indexStatus()).toEqual({
        index: 'current',
        matcher_version: MATCHER_VERSION,
        index_matcher_version: MATCHER_VERSION,
        built_at: AT.toISOString(),
      });
    });

    it('at start, a current index is left as it is (no rebuild)', async () => {
      // A difference a rebuild would undo: it stays, so nothing was rebuilt.
      const h1 = (await subject.store.associationsOf(['h1'])).get('h1')!;
      await subject.store.replaceAssociations(['h1'], []);
      const upkeep = await service.upkeepIndexAtStart(index);
      expect((await service.indexStatus()).index).toBe('current');
      expect(await upkeep.done).toBeNull();
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual([]);
      await subject.store.replaceAssociations(['h1'], h1);
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual(['h1']);
    });

    it('refuses selectors outside hosts', async () => {
      await expect(
        index.search('dns', { ast: q.selector('cve', '*') }, { offset: 0, limit: 1 }),
      ).rejects.toBeInstanceOf(QuerySyntaxError);
    });

    it('host writes replace their associations; clearing the hosts clears them', async () => {
      await index.write('hosts', [
        host('h3', [cpe('f5', 'nginx', '1.4.0')]),
        host('h1', [cpe('apache', 'http_server', '2.4.56')]),
      ]);
      expect(await ids(q.selector('cve', 'CVE-2013-2028'))).toEqual(['h3']);
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual([]);
      expect((await subject.store.associationsOf(['h3'])).get('h3')!.map((a) => a.cve_id)).toEqual([
        'CVE-2013-2028',
        'CVE-2019-20372',
        'CVE-2021-23017',
      ]);
      await index.clear('hosts');
      expect(await subject.store.associationCount()).toBe(0);
      await index.write('hosts', HOSTS);
      expect(await ids(q.selector('kev', 'true'))).toEqual(['h1', 'h4']);
    });

    it('a merge write associates what is stored: an older observation keeps the newer identity and its CVEs', async () => {
      const older = {
        ...host('h1', [cpe('apache', 'http_server', '2.4.56')]),
        first_seen: '2025-01-01T00:00:00.000Z',
        last_seen: '2025-02-01T00:00:00.000Z',
      };
      await index.write('hosts', [older], { seen: 'merge' });
      expect(await index.get('hosts', 'h1')).toMatchObject({
        cpe: [cpe('apache', 'http_server', '2.4.49')],
        first_seen: '2025-01-01T00:00:00.000Z',
      });
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual(['h1']);
      const newer = {
        ...host('h1', [cpe('apache', 'http_server', '2.4.56')]),
        last_seen: '2026-02-25T00:00:00.000Z',
      };
      await index.write('hosts', [newer], { seen: 'merge' });
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual([]);
      await index.write('hosts', HOSTS);
      expect(await ids(q.selector('cve', 'CVE-2021-41773'))).toEqual(['h1']);
    });

    it('imports NVD API pages file by file; a page changed between the survey and the commit changes nothing', async () => {
      const pages = join(scratch, 'pages');
      // Synthetic products only (none keeps a real name): the hosts above keep their associations.
      generateNvdCatalogue(pages, {
        count: 25,
        seed: 'contract',
        templates: join(DATA, 'nvd'),
        pageSize: 10,
        keepRealProduct: 0,
      });
      const before = await subject.store.version();
      const survey = await surveyCataloguePaths([pages]);
      expect(survey).toMatchObject({ read: 25 });
      const second = join(pages, 'nvdcve-2.0-00001.json');
      const original = readFileSync(second, 'utf8');
      writeFileSync(second, original.replace('Synthetic advisory', 'Rewritten advisory'));
      const refused = service.importSurveyed(survey, { observations: index });
      await expect(refused).rejects.toBeInstanceOf(MalformedCatalogueFile);
      await expect(refused).rejects.toThrow(/nvdcve-2\.0-00001\.json: changed while it was being imported/);
      // The first page's batch was written inside the same transaction: it was rolled back with the rest.
      expect(await subject.store.version()).toEqual(before);
      const firstIds = (
        JSON.parse(readFileSync(join(pages, 'nvdcve-2.0-00000.json'), 'utf8')) as {
          vulnerabilities: Array<{ cve: { id: string } }>;
        }
      ).vulnerabilities.map((v) => v.cve.id);
      expect((await subject.store.stamps(firstIds)).size).toBe(0);

      writeFileSync(second, original);
      const progress: ImportProgress[] = [];
      const report = await service.importPaths([pages], { onProgress: (p) => progress.push(p) });
      expect(report).toMatchObject({
        files: 3,
        advisories_read: 25,
        advisories_added: 25,
        catalogue: { version: before.version + 1, advisories: before.advisories + 25 },
      });
      expect(progress.filter((p) => p.phase === 'commit').map((p) => [p.done, p.total])).toEqual([
        [0, 25],
        [10, 25],
        [20, 25],
        [25, 25],
      ]);
      expect((await subject.store.stamps(firstIds)).size).toBe(10);
      const again = await service.importPaths([pages]);
      expect(again).toMatchObject({
        changed: false,
        advisories_unchanged: 25,
        catalogue: { version: before.version + 1 },
      });
    });
  });
}
