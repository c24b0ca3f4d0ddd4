/** Rule 4: up to 20 records of a completed search are saved as one evidence item. */
export const MAX_EVIDENCE_RECORDS = 20;

export interface RecordRef {
  readonly dataset: 'hosts' | 'dns' | 'vhosts' | 'whois';
  readonly id: string;
}

/**
 * A record's identity in the selection: its dataset and id, never its row position, so filtering or reordering
 * the shown results cannot change which source record is saved (rule 4).
 */
export const recordKey = (record: RecordRef): string => `${record.dataset}:${record.id}`;

export type Toggle =
  | { readonly ok: true; readonly selection: ReadonlyMap<string, RecordRef> }
  | { readonly ok: false; readonly reason: string };

/** Selects or unselects one record; the 21st is refused with the reason, the selection unchanged. */
export function toggleRecord(selection: ReadonlyMap<string, RecordRef>, record: RecordRef): Toggle {
  const key = recordKey(record);
  const next = new Map(selection);
  if (next.has(key)) {
    next.delete(key);
    return { ok: true, selection: next };
  }
  if (next.size >= MAX_EVIDENCE_RECORDS) {
    return {
      ok: false,
      reason: `At most ${MAX_EVIDENCE_RECORDS} records of a completed search can be saved as evidence; unselect one first.`,
    };
  }
  next.set(key, { dataset: record.dataset, id: record.id });
  return { ok: true, selection: next };
}
