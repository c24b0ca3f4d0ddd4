/**
 * The GridFS abandoned-upload sweep (no server needed): it reads only upload registrations idle past the bound,
 * through their index, and an upload is touched only while it makes progress.
 */
import { describe, expect, it } from '@jest/globals';
import { planIndexes } from '../../../src/platform/mongodb/index-reconciliation.js';
import {
  idleUploadsFilter,
  madeProgress,
  UPLOAD_INDEXES,
  UPLOAD_TOUCH_INTERVAL_MS,
} from '../../../src/exports/files/gridfs-file-store.js';

describe('GridFS abandoned uploads', () => {
  it('selects registrations untouched since the bound, on the indexed touched_at', () => {
    const bound = new Date('2026-03-01T10:00:00.000Z');
    expect(idleUploadsFilter(bound)).toEqual({ touched_at: { $lt: bound } });
    const [index] = UPLOAD_INDEXES;
    expect(Object.keys(index!.keys)).toEqual(Object.keys(idleUploadsFilter(bound)));
    expect(planIndexes([{ name: '_id_', key: { _id: 1 } }], UPLOAD_INDEXES).create).toEqual(UPLOAD_INDEXES);
  });

  it('touches an upload only when bytes were written since the last touch', () => {
    expect(madeProgress(0, 0)).toBe(false);
    expect(madeProgress(0, 255 * 1024)).toBe(true);
    expect(madeProgress(255 * 1024, 255 * 1024)).toBe(false);
  });

  it('records progress far more often than the sweeper reaps (an hour idle)', () => {
    expect(UPLOAD_TOUCH_INTERVAL_MS * 10).toBeLessThanOrEqual(60 * 60 * 1000);
  });
});
