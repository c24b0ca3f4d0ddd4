import { describe, expect, it } from 'vitest';
import {
  MAX_EVIDENCE_RECORDS,
  recordKey,
  toggleRecord,
  type RecordRef,
} from '../src/organizations/team/selection';
import { recordSummary } from '../src/organizations/team/record-summary';

const record = (i: number): RecordRef => ({ dataset: 'hosts', id: `host-${i}` });

function selectAll(records: RecordRef[]) {
  let selection: ReadonlyMap<string, RecordRef> = new Map();
  for (const item of records) {
    const result = toggleRecord(selection, item);
    if (!result.ok) throw new Error(result.reason);
    selection = result.selection;
  }
  return selection;
}

describe('evidence selection (rule 4)', () => {
  it('keeps up to 20 records and refuses the 21st with the reason, leaving the selection unchanged', () => {
    const twenty = selectAll(Array.from({ length: MAX_EVIDENCE_RECORDS }, (_, i) => record(i)));
    expect(twenty.size).toBe(20);
    const refused = toggleRecord(twenty, record(20));
    expect(refused).toEqual({ ok: false, reason: expect.stringContaining('At most 20 records') });
    expect(twenty.size).toBe(20);
    // Unselecting one makes room again.
    const fewer = toggleRecord(twenty, record(3));
    expect(fewer.ok && fewer.selection.size).toBe(19);
    const again = fewer.ok ? toggleRecord(fewer.selection, record(20)) : fewer;
    expect(again.ok && again.selection.has(recordKey(record(20)))).toBe(true);
  });

  it('identifies a record by dataset and id, so reordering the shown rows selects the same records', () => {
    const rows = [record(1), { dataset: 'dns', id: 'host-1' } as RecordRef, record(2)];
    const inOrder = selectAll([rows[0]!, rows[2]!]);
    const reversed = selectAll([rows[2]!, rows[0]!]);
    expect([...inOrder.keys()].sort()).toEqual([...reversed.keys()].sort());
    // Same id in another dataset is another record.
    expect(inOrder.has(recordKey(rows[1]!))).toBe(false);
    expect([...inOrder.values()]).toEqual([record(1), record(2)]);
  });

  it('summarises an observation by its well-known plain fields', () => {
    expect(recordSummary({ ip: '192.0.2.1', port: 443, nested: { a: 1 }, product: 'nginx' })).toBe(
      'ip: 192.0.2.1 · port: 443 · product: nginx',
    );
    expect(recordSummary({ nested: { a: 1 } })).toBe('(no plain fields)');
  });
});
