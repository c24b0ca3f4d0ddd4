import { describe, expect, it } from '@jest/globals';
import { CatalogueMatcher } from '../../../src/catalogue/domain/matching.js';
import { parseCatalogueText } from '../../../src/catalogue/import/parse-catalogue-files.js';
import { SAMPLE_KEV, SAMPLE_NVD } from '../../../src/catalogue/sample/sample-catalogue.js';

describe('the shipped sample catalogue', () => {
  it('parses as NVD and KEV files and matches software the demo generator produces', () => {
    const nvd = parseCatalogueText('sample:nvd', JSON.stringify(SAMPLE_NVD));
    const kev = parseCatalogueText('sample:kev', JSON.stringify(SAMPLE_KEV));
    expect(nvd.advisories).toHaveLength(9);
    expect(kev.kev?.entries).toHaveLength(6);
    const matcher = new CatalogueMatcher(nvd.advisories, kev.kev!.entries, {
      version: 1,
      evaluated_at: null,
      kev_source: kev.kev!.source,
      advisories: 9,
      kev_entries: 6,
    });
    const [apache, jenkins, vmware] = matcher.evaluateCpes([
      'cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*',
      'cpe:2.3:a:jenkins:jenkins:2.426.2:*:*:*:lts:*:*:*',
      'cpe:2.3:a:vmware:identity_manager:3.3.3:*:*:*:*:*:*:*',
    ]);
    expect(apache!.findings.map((f) => [f.id, Boolean(f.kev)])).toEqual([
      ['CVE-2021-42013', true],
      ['CVE-2021-41773', true],
    ]);
    expect(jenkins!.findings.map((f) => f.id)).toEqual(['CVE-2024-23897']);
    expect(vmware!.findings[0]).toMatchObject({
      id: 'CVE-2021-44228',
      additional_conditions: [{ operator: 'OR' }],
    });
  });
});
