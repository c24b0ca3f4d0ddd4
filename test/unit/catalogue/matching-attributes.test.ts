/**
 * Vulnerability evaluation when the outcome hangs on a CPE attribute the observation lacks (update, edition,
 * sw_edition, target_sw): the reason names the attribute, never `version_unknown` when the version is known, and
 * the advisories at stake are listed with the condition in `additional_conditions`.
 */
import { describe, expect, it } from '@jest/globals';
import type { Advisory, Configuration } from '../../../src/catalogue/domain/advisory.js';
import { CatalogueMatcher } from '../../../src/catalogue/domain/matching.js';

type Match = {
  readonly criteria: string;
  readonly vulnerable?: boolean;
  readonly versionEndExcluding?: string;
};

const node = (matches: readonly Match[], operator: 'AND' | 'OR' = 'OR') => ({
  operator,
  negate: false,
  cpeMatch: matches.map(({ vulnerable, ...rest }) => ({ vulnerable: vulnerable ?? true, ...rest })),
});

function advisory(id: string, configurations: Configuration[]): Advisory {
  return {
    id,
    published: null,
    last_modified: null,
    vuln_status: null,
    description: null,
    cvss: null,
    cwe: [],
    configurations,
  };
}

const CATALOGUE = new CatalogueMatcher(
  [
    // Only the Enterprise edition of acme server 4.x before 4.2 is affected.
    advisory('CVE-2099-1001', [
      {
        operator: 'OR',
        negate: false,
        nodes: [
          node([{ criteria: 'cpe:2.3:a:acme:server:*:*:enterprise:*:*:*:*:*', versionEndExcluding: '4.2' }]),
        ],
      },
    ]),
    // acme plugin 1.0 only when built for the node.js target software.
    advisory('CVE-2099-1002', [
      {
        operator: 'OR',
        negate: false,
        nodes: [node([{ criteria: 'cpe:2.3:a:acme:plugin:1.0:*:*:*:*:node.js:*:*' }])],
      },
    ]),
    // acme plugin 1.0 for wordpress, and only on a Linux kernel (a platform).
    advisory('CVE-2099-1003', [
      {
        operator: 'AND',
        negate: false,
        nodes: [
          node([{ criteria: 'cpe:2.3:a:acme:plugin:1.0:*:*:*:*:wordpress:*:*' }]),
          node([{ criteria: 'cpe:2.3:o:linux:linux_kernel:-:*:*:*:*:*:*:*', vulnerable: false }]),
        ],
      },
    ]),
    // Every acme plugin before 2.0: decided by the version alone.
    advisory('CVE-2099-1004', [
      {
        operator: 'OR',
        negate: false,
        nodes: [node([{ criteria: 'cpe:2.3:a:acme:plugin:*:*:*:*:*:*:*:*', versionEndExcluding: '2.0' }])],
      },
    ]),
  ],
  null,
  { version: 1, evaluated_at: null, kev_source: null, advisories: 4, kev_entries: 0 },
);

describe('vulnerability evaluation hanging on an attribute the observation lacks', () => {
  it('the edition: reason edition_unknown, the CVE at stake listed with the edition it needs', () => {
    const [evaluation] = CATALOGUE.evaluateCpes(['cpe:2.3:a:acme:server:4.1:*:*:*:*:*:*:*']);
    expect(evaluation).toMatchObject({
      status: 'indeterminate',
      complete: false,
      reason: 'edition_unknown',
      unknown_attributes: ['edition'],
      undetermined: ['CVE-2099-1001'],
      total: 1,
    });
    expect(evaluation!.findings[0]).toMatchObject({
      id: 'CVE-2099-1001',
      additional_conditions: [
        {
          operator: 'OR',
          criteria: ['cpe:2.3:a:acme:server:*:*:enterprise:*:*:*:*:*'],
          unknown_attributes: ['edition'],
        },
      ],
      observed_products: [{ vendor: 'acme', product: 'server', version: '4.1' }],
    });
    // A version outside the range decides it without the edition.
    expect(CATALOGUE.evaluateCpes(['cpe:2.3:a:acme:server:4.2:*:*:*:*:*:*:*'])[0]).toMatchObject({
      status: 'no_match',
      complete: true,
      reason: 'no_applicable_advisory',
      unknown_attributes: [],
    });
  });

  it('the target software, beside a platform condition and a plain match: matched, but not complete', () => {
    const [evaluation] = CATALOGUE.evaluateCpes(['cpe:2.3:a:acme:plugin:1.0:*:*:*:*:*:*:*']);
    expect(evaluation).toMatchObject({
      status: 'matched',
      reason: 'matched',
      complete: false,
      unknown_attributes: ['target_sw'],
      undetermined: ['CVE-2099-1002', 'CVE-2099-1003'],
    });
    const byId = new Map(evaluation!.findings.map((finding) => [finding.id, finding]));
    expect(byId.get('CVE-2099-1004')!.additional_conditions).toEqual([]);
    expect(byId.get('CVE-2099-1002')!.additional_conditions).toEqual([
      expect.objectContaining({
        criteria: ['cpe:2.3:a:acme:plugin:1.0:*:*:*:*:node.js:*:*'],
        unknown_attributes: ['target_sw'],
        note: expect.stringContaining('target software (target_sw)'),
      }),
    ]);
    // The condition on the software, then the platform the observation does not show.
    expect(byId.get('CVE-2099-1003')!.additional_conditions).toEqual([
      expect.objectContaining({
        criteria: ['cpe:2.3:a:acme:plugin:1.0:*:*:*:*:wordpress:*:*'],
        unknown_attributes: ['target_sw'],
      }),
      expect.objectContaining({ operator: 'OR', criteria: ['cpe:2.3:o:linux:linux_kernel:-:*:*:*:*:*:*:*'] }),
    ]);
    expect(byId.get('CVE-2099-1003')!.additional_conditions[1]).not.toHaveProperty('unknown_attributes');
  });

  it('without a plain match the reason names the attribute; told the attribute, the CVE is decided', () => {
    const node18 = CATALOGUE.evaluateCpes(['cpe:2.3:a:acme:plugin:2.5:*:*:*:*:*:*:*'])[0];
    expect(node18).toMatchObject({ status: 'no_match', complete: true });
    const nodeJs = CATALOGUE.evaluateCpes(['cpe:2.3:a:acme:plugin:1.0:*:*:*:*:node.js:*:*'])[0]!;
    expect(nodeJs).toMatchObject({ status: 'matched', complete: true, unknown_attributes: [] });
    expect(nodeJs.findings.map((finding) => finding.id).sort()).toEqual(['CVE-2099-1002', 'CVE-2099-1004']);
  });

  it('the version stays first: an observation without it is version_unknown and lists nothing as a finding', () => {
    const [evaluation] = CATALOGUE.evaluateCpes(['cpe:2.3:a:acme:server:*:*:*:*:*:*:*:*']);
    expect(evaluation).toMatchObject({
      status: 'indeterminate',
      reason: 'version_unknown',
      unknown_attributes: ['version'],
      total: 0,
      undetermined: ['CVE-2099-1001'],
    });
  });
});
