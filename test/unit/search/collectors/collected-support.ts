import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import {
  CollectedRecordRefused,
  type CollectedRecord,
  type CollectorContext,
  type FingerprintEvidence,
} from '../../../../src/search/data/collectors/collected.js';
import { validateRecord } from '../../../../src/search/domain/records.js';

/** Real collector output lives in ../shared/data (never copied into the project). */
export const SHARED_DATA = join(process.cwd(), '..', 'shared', 'data');

export function sharedFile(path: string): Buffer {
  return readFileSync(join(SHARED_DATA, path));
}

export const CONTEXT: CollectorContext = { seenAt: '2026-11-28T12:00:00.000Z', source: 'sample' };

/** Every produced record must pass the one gate; returns the records as stored (normalized). */
export type StoredItem =
  | { readonly refused: string }
  | {
      readonly dataset: string;
      readonly record: Readonly<Record<string, unknown>> & { readonly id: string };
      readonly evidence: readonly FingerprintEvidence[];
    };

export function stored(items: ReadonlyArray<CollectedRecord | CollectedRecordRefused>): StoredItem[] {
  return items.map((item): StoredItem => {
    if (item instanceof CollectedRecordRefused) return { refused: item.message };
    const validation = validateRecord(item.dataset, item.record);
    if (!validation.ok)
      throw new Error(`${item.dataset} record refused by validateRecord: ${validation.problems.join('; ')}`);
    expect(validation.record.id).toBe(item.record.id);
    return { dataset: item.dataset, record: validation.record, evidence: item.evidence };
  });
}

export function refusalOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CollectedRecordRefused);
    return (error as Error).message;
  }
  throw new Error('expected a CollectedRecordRefused');
}
