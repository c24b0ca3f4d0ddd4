/**
 * The importer checks criteria with a shape test first and parseCpe only for what the shape test refuses: whatever
 * the string, a record is accepted exactly when parseCpe accepts its criteria, and refused with parseCpe's reason.
 */
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { InvalidCpeError, parseCpe } from '../../../src/catalogue/domain/cpe.js';
import {
  MalformedCatalogueFile,
  parseCatalogueText,
} from '../../../src/catalogue/import/parse-catalogue-files.js';

function importerVerdict(criteria: string): string {
  const record = {
    id: 'CVE-2099-0001',
    configurations: [{ nodes: [{ operator: 'OR', cpeMatch: [{ vulnerable: true, criteria }] }] }],
  };
  try {
    parseCatalogueText('record.json', JSON.stringify(record));
    return 'accepted';
  } catch (error) {
    if (error instanceof MalformedCatalogueFile) return error.reason;
    throw error;
  }
}

function parserVerdict(criteria: string): string {
  try {
    parseCpe(criteria);
    return 'accepted';
  } catch (error) {
    if (error instanceof InvalidCpeError)
      return `CVE-2099-0001: configurations[0]: nodes[0]: cpeMatch[0]: criteria ${criteria}: ${error.message}`;
    throw error;
  }
}

const component = fc.oneof(
  fc.constantFrom(
    '*',
    '-',
    '',
    'a',
    'o',
    'h',
    'A',
    'x',
    'nginx',
    '1.2.3',
    'a b',
    'c\\:d',
    'e\\',
    '?x*',
    '\\ ',
    '\t',
  ),
  fc.string({ unit: fc.constantFrom('a', '1', '.', '\\', ':', ' ', '*', '?', '-', '_', 'é', '\n') }),
);

describe('criteria validation in the importer', () => {
  it('accepts and refuses exactly as parseCpe does, with its reason', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('cpe:2.3:', 'CPE:2.3:', 'cpe:2.2:', 'cpe:/'),
        fc.array(component, { minLength: 9, maxLength: 13 }),
        (prefix, components) => {
          const criteria = prefix + components.join(':');
          expect(importerVerdict(criteria)).toBe(parserVerdict(criteria));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('takes the usual NVD criteria on the shape test, and refuses a long one as parseCpe does', () => {
    for (const criteria of [
      'cpe:2.3:a:f5:nginx:*:*:*:*:*:*:*:*',
      'cpe:2.3:o:fedoraproject:fedora:19:*:*:*:*:*:*:*',
      'cpe:2.3:a:netapp:solidfire_\\&_hci_storage_node:-:*:*:*:*:*:*:*',
      `cpe:2.3:a:vendor:${'x'.repeat(1100)}:*:*:*:*:*:*:*:*`,
    ])
      expect(importerVerdict(criteria)).toBe(parserVerdict(criteria));
  });
});
