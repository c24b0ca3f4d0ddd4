import { describe, expect, it } from '@jest/globals';
import { compareVersions } from '../../../src/catalogue/domain/version.js';

/** [lower, higher]: each pair must order both ways, and never compare equal. */
const ORDERED: ReadonlyArray<readonly [string, string]> = [
  ['1.2.9', '1.2.10'],
  ['1.9', '1.10'],
  ['1.2', '1.2.1'],
  ['2.0-beta9', '2.0'],
  ['2.0-beta1', '2.0-beta2'],
  ['2.0-beta9', '2.0-rc1'],
  ['2.0-alpha3', '2.0-beta1'],
  ['2.0-rc1', '2.0-rc2'],
  ['2.0-rc2', '2.0'],
  ['2.0a1', '2.0'],
  ['2.0b2', '2.0rc1'],
  ['2.0.dev1', '2.0a1'],
  ['1.0-SNAPSHOT', '1.0'],
  ['2.0', '2.0.1'],
  ['8.9', '8.9p1'],
  ['8.9p1', '8.9p2'],
  ['8.9p1', '9.0'],
  ['8.5p1', '8.6'],
  ['9.3', '9.3p1'],
  ['1.1.1', '1.1.1a'],
  ['1.1.1k', '1.1.1t'],
  ['1.1.1s', '1.1.1t'],
  ['1.0.2k', '1.0.2zg'],
  ['1.0.1f', '1.0.1g'],
  ['1.0.1', '1.0.1g'],
  ['9.0.0', '9.0.0.1'],
  ['9.0.0.1', '9.0.1'],
  ['2021-06-01', '2021-12-01'],
  ['2021-12-31', '2022-01-01'],
  ['20210601', '20211201'],
  ['2023.0.1', '2023.0.2'],
  ['2022.1.5', '2022.1.6'],
  ['2020.1.6', '2021.0'],
  ['17.9.4', '17.9.4a'],
  ['17.9.3', '17.9.4a'],
  ['16.12.10', '16.12.10a'],
  ['10.2.9', '10.2.12'],
  ['2.426.2', '2.426.3'],
  ['2.426.3', '2.440'],
  ['2.138.3', '2.153'],
  ['1.3.8', '1.3.9'],
  ['0.6.17', '0.6.18'],
  ['1.0.rc1', '1.0.1'],
  ['5.1.52', '5.1.52sp1'],
  ['7.4.33', '8.1.28'],
  ['3.0.7', '3.0.8'],
  ['1.4.0', '1.4.1'],
];

const EQUAL: ReadonlyArray<readonly [string, string]> = [
  ['1.0', '1.0.0'],
  ['v2.4.1', '2.4.1'],
  ['2.4.49', '2.4.49'],
  ['1.1.1T', '1.1.1t'],
  ['2.0-RC1', '2.0rc1'],
  ['1_2_3', '1.2.3'],
];

describe('version ordering', () => {
  it(`orders ${ORDERED.length} real version pairs both ways`, () => {
    const wrong = ORDERED.filter(
      ([lower, higher]) => !(compareVersions(lower, higher) < 0 && compareVersions(higher, lower) > 0),
    );
    expect(wrong).toEqual([]);
    expect(ORDERED.length).toBeGreaterThanOrEqual(40);
  });

  it('treats spelling variants of one version as equal', () => {
    for (const [a, b] of EQUAL) expect([a, b, compareVersions(a, b)]).toEqual([a, b, 0]);
  });

  it('is a total order over the table (sorting is stable and transitive)', () => {
    const all = [...new Set(ORDERED.flat())];
    const sorted = [...all].sort(compareVersions);
    for (let i = 1; i < sorted.length; i++)
      expect(compareVersions(sorted[i - 1]!, sorted[i]!)).toBeLessThanOrEqual(0);
    for (const [lower, higher] of ORDERED) expect(sorted.indexOf(lower)).toBeLessThan(sorted.indexOf(higher));
  });
});
