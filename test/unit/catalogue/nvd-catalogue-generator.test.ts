/** The synthetic NVD catalogue generator (bench tooling): deterministic NVD API 2.0 pages the importer reads. */
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateNvdCatalogue } from '../../../bench/nvd-catalogue-generator.js';
import { parseCatalogueText } from '../../../src/catalogue/import/parse-catalogue-files.js';

const TEMPLATES = join(process.cwd(), '..', 'shared', 'data', 'nvd');
const scratch = mkdtempSync(join(tmpdir(), 'nvd-generator-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const generate = (name: string, seed: string) => {
  const out = join(scratch, name);
  const report = generateNvdCatalogue(out, { count: 450, seed, templates: TEMPLATES, pageSize: 200 });
  const files = readdirSync(out).sort();
  return { report, files, texts: files.map((file) => readFileSync(join(out, file), 'utf8')) };
};

describe('synthetic NVD catalogue generator', () => {
  it('writes NVD API 2.0 pages the importer parses, with unique CVE ids and real-shaped configurations', () => {
    const { report, files, texts } = generate('a', 'one');
    expect(files).toEqual(['nvdcve-2.0-00000.json', 'nvdcve-2.0-00001.json', 'nvdcve-2.0-00002.json']);
    expect(report).toMatchObject({ files: 3, advisories: 450 });
    const pages = texts.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(pages.map((p) => [p.resultsPerPage, p.startIndex, p.totalResults, p.format, p.version])).toEqual([
      [200, 0, 450, 'NVD_CVE', '2.0'],
      [200, 200, 450, 'NVD_CVE', '2.0'],
      [50, 400, 450, 'NVD_CVE', '2.0'],
    ]);
    const advisories = texts.flatMap((text, i) => parseCatalogueText(files[i]!, text).advisories);
    expect(new Set(advisories.map((a) => a.id)).size).toBe(450);
    const withConfigurations = advisories.filter((a) => a.configurations.length > 0);
    expect(withConfigurations.length).toBe(450 - report.awaitingAnalysis);
    // Version ranges come from the real records' criteria.
    expect(
      withConfigurations.some((a) =>
        a.configurations.some((c) =>
          c.nodes.some((n) => n.cpeMatch.some((m) => m.versionEndExcluding ?? m.versionEndIncluding)),
        ),
      ),
    ).toBe(true);
    expect(report.distinctProducts).toBeGreaterThan(50);
  });

  it('keeps every criteria a valid CPE 2.3 string when renaming products (escaped characters included)', () => {
    const out = join(scratch, 'many');
    const report = generateNvdCatalogue(out, { count: 6000, seed: 'escapes', templates: TEMPLATES });
    const parsed = readdirSync(out).flatMap(
      (file) => parseCatalogueText(file, readFileSync(join(out, file), 'utf8')).advisories,
    );
    expect(parsed.length).toBe(6000);
    expect(report.cpeMatches).toBeGreaterThan(6000);
  });

  it('is deterministic from its seed', () => {
    const first = generate('b', 'same');
    const again = generate('c', 'same');
    const other = generate('d', 'different');
    expect(again.texts).toEqual(first.texts);
    expect(other.texts[0]).not.toEqual(first.texts[0]);
  });
});
