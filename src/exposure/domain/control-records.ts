/**
 * Historical control records (contract, Control records): evidence of controls performed elsewhere, earlier,
 * imported by operators. This service launches none; the records say who ran what and when, nothing more.
 */
import { createHash } from 'node:crypto';
import type { DomainEvent } from '../../platform/event-sourcing/decider.js';

export const MAX_IMPORTED_CONTROLS = 10_000;

export interface ControlRecord {
  readonly id: string;
  /** The asset key (a subject id) or the address or name the control was about. */
  readonly asset: string;
  readonly kind: string;
  readonly title: string;
  readonly performedAt: string;
  readonly performedBy: string | null;
  readonly outcome: string | null;
  readonly source: string | null;
}

export class InvalidControlRecords extends Error {
  override readonly name = 'InvalidControlRecords';
}

const str = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value.trim().length > 0 && value.length <= max ? value.trim() : null;

export function checkedControlRecords(raw: unknown): ControlRecord[] {
  if (!Array.isArray(raw))
    throw new InvalidControlRecords('the file must hold a JSON array of control records');
  if (raw.length > MAX_IMPORTED_CONTROLS) {
    throw new InvalidControlRecords(`at most ${MAX_IMPORTED_CONTROLS} records per import`);
  }
  return raw.map((item: unknown, index) => {
    const record = (item ?? {}) as Record<string, unknown>;
    const asset = str(record.asset, 256);
    const kind = str(record.kind, 64);
    const title = str(record.title, 300);
    const performedAt = typeof record.performed_at === 'string' ? new Date(record.performed_at) : null;
    if (!asset || !kind || !title || !performedAt || Number.isNaN(performedAt.getTime())) {
      throw new InvalidControlRecords(
        `record ${index}: asset, kind, title and performed_at (a date) are required`,
      );
    }
    const base = {
      asset,
      kind,
      title,
      performedAt: performedAt.toISOString(),
      performedBy: str(record.performed_by, 200),
      outcome: str(record.outcome, 200),
      source: str(record.source, 300),
    };
    const id =
      str(record.id, 100) ?? createHash('sha256').update(JSON.stringify(base)).digest('hex').slice(0, 24);
    return { id, ...base };
  });
}

/** Imported by an operator (`exposure controls import`) on the scope's controls stream. */
export type ControlRecordsImported = DomainEvent<
  'ControlRecordsImported',
  { scopeId: string; records: ControlRecord[]; importedAt: string }
>;
