import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { csvColumns, rowFormatter, valueAtPath } from '../../../src/exports/domain/export-formats.js';
import type { ExportSearchType } from '../../../src/exports/domain/export-job.js';
import type { ObservationRecord } from '../../../src/search/observation-index/observation-index.port.js';

/** The CSV row as the contract states it, written plainly: the fast formatter must produce the same bytes. */
function contractCsvRow(searchType: ExportSearchType, record: ObservationRecord): string {
  const field = (value: unknown): string => {
    if (value === undefined || value === null) return '';
    let text: string;
    if (Array.isArray(value))
      text = value.map((item) => (typeof item === 'object' ? JSON.stringify(item) : String(item))).join(';');
    else if (typeof value === 'object') text = JSON.stringify(value);
    else text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return `${csvColumns(searchType)
    .map((column) => field(valueAtPath(record, column)))
    .join(',')}\r\n`;
}

/** A stored record with only the properties a case needs (the formatter reads paths, absent ones are empty). */
const record = (fields: Record<string, unknown>) => fields as unknown as ObservationRecord;

const tricky = fc.oneof(
  fc.constantFrom('', 'a,b', 'say "hi"', 'line\r\nbreak', 'lf\nonly', 'cr\ronly', '""', 'plain', 'ü,ñ'),
  fc.string(),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object()), { maxLength: 4 }),
  fc.object({ maxDepth: 1 }),
);

const hostRecord = fc
  .record(
    {
      id: fc.string(),
      ip: tricky,
      port: tricky,
      banner: tricky,
      cpe: tricky,
      http: fc.oneof(fc.record({ title: tricky, status: tricky }, { requiredKeys: [] }), tricky),
      tls: fc.oneof(fc.record({ subject: fc.oneof(fc.record({ cn: tricky }), tricky), san: tricky }), tricky),
      hostnames: tricky,
      shared_edge: tricky,
      first_seen: tricky,
    },
    { requiredKeys: ['id'] },
  )
  .map(record);

describe('export row formats', () => {
  it('writes each CSV row exactly as the contract states (quoting, lists, nested paths, absent fields)', () => {
    const formatter = rowFormatter('hosts', 'csv');
    fc.assert(
      fc.property(hostRecord, (host) => {
        expect(formatter.row(host)).toBe(contractCsvRow('hosts', host));
      }),
      { numRuns: 500 },
    );
  });

  it('writes the CSV header of the dataset vocabulary, and rows of the other datasets the same way', () => {
    expect(rowFormatter('hosts', 'csv').header).toBe(`${csvColumns('hosts').join(',')}\r\n`);
    const whois = record({ id: 'w1', domain: 'example.com', registrant: { email: 'a@b.c', name: 'A, "B"' } });
    expect(rowFormatter('whois', 'csv').row(whois)).toBe(contractCsvRow('whois', whois));
    expect(rowFormatter('whois', 'csv').row(whois)).toContain(',"A, ""B""",');
  });

  it('writes one primary value per txt line, with line breaks inside it replaced', () => {
    expect(rowFormatter('hosts', 'txt').row(record({ id: 'h', ip: '192.0.2.1' }))).toBe('192.0.2.1\n');
    expect(rowFormatter('dns', 'txt').row(record({ id: 'd', name: 'a\r\nb' }))).toBe('a b\n');
    expect(rowFormatter('vhosts', 'txt').row(record({ id: 'v' }))).toBe('\n');
  });
});
