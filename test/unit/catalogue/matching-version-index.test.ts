/**
 * The matcher's version index and memo (ADR 96) must not change a single evaluation: each target's result is
 * compared with a reference that evaluates every configuration of every advisory, over a synthetic NVD-shaped
 * catalogue (bench/nvd-catalogue-generator.ts, templates from ../shared/data/nvd) and CPE names at, around and
 * between the catalogue's own range bounds and exact versions. versionKey is held to compareVersions' equality.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateNvdCatalogue } from '../../../bench/nvd-catalogue-generator.js';
import type { Advisory } from '../../../src/catalogue/domain/advisory.js';
import {
  compileAdvisory,
  type CompiledAdvisory,
  evaluateConfiguration,
  type Outcome,
} from '../../../src/catalogue/domain/applicability.js';
import { type Cpe, parseCpe } from '../../../src/catalogue/domain/cpe.js';
import { CatalogueMatcher } from '../../../src/catalogue/domain/matching.js';
import {
  collectCatalogueFiles,
  readCatalogueFile,
} from '../../../src/catalogue/import/parse-catalogue-files.js';
import { compareVersions, versionKey } from '../../../src/catalogue/domain/version.js';
import { VersionTable } from '../../../src/catalogue/domain/version-table.js';

const TEMPLATES = join(process.cwd(), '..', 'shared', 'data', 'nvd');
const VERSION = { version: 1, evaluated_at: null, kev_source: null, advisories: 0, kev_entries: 0 };
const RANK = { none: 0, unknown: 1, conditional: 2, match: 3 } as const;

let out: string;
let advisories: Advisory[];
let compiled: CompiledAdvisory[];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'matcher-index-'));
  generateNvdCatalogue(out, { count: 2000, seed: 'version-index', templates: TEMPLATES });
  advisories = [];
  for (const file of await collectCatalogueFiles([out]))
    advisories.push(...(await readCatalogueFile(file)).advisories);
  compiled = advisories.map((advisory) => compileAdvisory(advisory));
}, 120_000);

afterAll(() => rmSync(out, { recursive: true, force: true }));

/** Every configuration of every advisory, the best outcome of each advisory that is not `none`. */
function reference(target: Cpe, observed: readonly Cpe[]): Map<string, Outcome> {
  const outcomes = new Map<string, Outcome>();
  for (const { advisory, configurations } of compiled) {
    let best: Outcome | null = null;
    for (const configuration of configurations) {
      const outcome = evaluateConfiguration(configuration, target, observed);
      if (!best || RANK[outcome.kind] > RANK[best.kind]) best = outcome;
    }
    if (best && best.kind !== 'none') outcomes.set(advisory.id, best);
  }
  return outcomes;
}

/** CPE names of the catalogue's products at their bounds, exact versions, between them, and unversioned. */
function targets(): string[] {
  const names = new Set<string>();
  for (const advisory of advisories.slice(0, 120))
    for (const configuration of advisory.configurations)
      for (const node of configuration.nodes)
        for (const criterion of node.cpeMatch.slice(0, 3)) {
          const parts = criterion.criteria.split(':');
          const name = (version: string) => [...parts.slice(0, 5), version, ...parts.slice(6)].join(':');
          const versions = [
            criterion.versionStartIncluding,
            criterion.versionStartExcluding,
            criterion.versionEndIncluding,
            criterion.versionEndExcluding,
            parts[5],
          ].filter((v): v is string => v !== undefined && v !== '*' && v !== '-');
          for (const version of versions) {
            names.add(name(version));
            names.add(name(`${version}.1`));
            names.add(name(`${version}.0`));
          }
          names.add(name('*'));
          names.add(name('-'));
        }
  return [...names].filter((raw) => {
    try {
      parseCpe(raw);
      return true;
    } catch {
      return false;
    }
  });
}

describe('the version-indexed matcher', () => {
  it('finds exactly what evaluating every configuration of every advisory finds', () => {
    const matcher = new CatalogueMatcher(advisories, null, VERSION, { memoEntries: 0 });
    const names = targets();
    expect(names.length).toBeGreaterThan(200);
    let found = 0;
    for (const raw of names) {
      const target = parseCpe(raw);
      const expected = reference(target, [target]);
      const result = matcher.evaluateTarget(target, [target]);
      const actual = new Map<string, string>();
      for (const [id, { outcome }] of result.findings) actual.set(id, outcome.kind);
      for (const id of result.undetermined.keys()) if (!actual.has(id)) actual.set(id, 'unknown');
      expect(Object.fromEntries(actual)).toEqual(
        Object.fromEntries([...expected].map(([id, outcome]) => [id, outcome.kind])),
      );
      for (const [id, { outcome }] of result.findings) expect(outcome).toEqual(expected.get(id));
      found += actual.size;
    }
    expect(found).toBeGreaterThan(20);
  });

  it('answers the same with and without its memo, and a remembered evaluation cannot be changed', () => {
    const remembering = new CatalogueMatcher(advisories, null, VERSION);
    const computing = new CatalogueMatcher(advisories, null, VERSION, { memoEntries: 0 });
    const names = targets().slice(0, 150);
    for (const raw of [...names, ...names]) {
      expect(remembering.evaluateCpes([raw])).toEqual(computing.evaluateCpes([raw]));
      expect(remembering.associationsOf([raw, names[0]!])).toEqual(
        computing.associationsOf([raw, names[0]!]),
      );
    }
    const [evaluation] = remembering.evaluateCpes([names[0]!]);
    expect(() => {
      (evaluation as { total: number }).total = -1;
    }).toThrow(TypeError);
    expect(remembering.evaluateCpes([names[0]!])[0]!.total).not.toBe(-1);
  });
});

describe('versionKey', () => {
  const token = fc.constantFrom(
    '0',
    '00',
    '1',
    '01',
    '2',
    '10',
    'a',
    'b',
    'rc',
    'alpha',
    'p',
    'dev',
    'x',
    'v1',
  );
  const separator = fc.constantFrom('.', '-', '_', '', '+');
  const version = fc
    .array(fc.tuple(token, separator), { minLength: 1, maxLength: 5 })
    .map((parts) => parts.map(([t, s]) => t + s).join(''));

  it('is equal for two versions exactly when compareVersions finds them equal', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        expect(versionKey(a) === versionKey(b)).toBe(compareVersions(a, b) === 0);
      }),
      { numRuns: 5000 },
    );
    expect(versionKey('1.0')).toBe(versionKey('1.0.0'));
    expect(versionKey('v2')).toBe(versionKey('2'));
    expect(versionKey('2.0a1')).not.toBe(versionKey('2.0'));
  });
});

describe('the version table (ADR 105)', () => {
  const token = fc.constantFrom(
    '0',
    '00',
    '1',
    '01',
    '2',
    '10',
    '20210601',
    '9999999999999999',
    'a',
    'b',
    'm',
    'rc',
    'alpha',
    'p',
    'dev',
    'x',
    'z',
    'v1',
    'update',
    'verylongwordbeyondeleven',
  );
  const separator = fc.constantFrom('.', '-', '_', '', '+');
  const version = fc
    .array(fc.tuple(token, separator), { minLength: 1, maxLength: 6 })
    .map((parts) => parts.map(([t, s]) => t + s).join(''));

  it('compares an observed version with a bound exactly as compareVersions does, and keys exact versions alike', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const table = new VersionTable();
        const bound = table.bound(b);
        const exact = table.exact(b);
        const observed = table.observe(a);
        expect(Math.sign(table.compare(observed, bound))).toBe(Math.sign(compareVersions(a, b)));
        expect(observed.keyId === exact).toBe(compareVersions(a, b) === 0);
      }),
      { numRuns: 20000 },
    );
  });

  it('refuses a bound that is not a version, as tokenize does', () => {
    expect(() => new VersionTable().bound({ corrupt: true } as unknown as string)).toThrow(TypeError);
  });
});
