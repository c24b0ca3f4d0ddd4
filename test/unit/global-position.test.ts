import { describe, expect, it } from '@jest/globals';
import {
  comparePositions,
  decodePosition,
  encodePosition,
  isGlobalPosition,
} from '../../src/platform/event-store/global-position.js';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import { blankDatabaseImage } from '../support/pglite-template.js';

describe('global positions', () => {
  it('order as the numbers they encode, whatever their width', () => {
    const a = encodePosition(9n, 99n);
    const b = encodePosition(10n, 1n);
    expect(comparePositions(a, b)).toBeLessThan(0);
    expect(comparePositions(b, a)).toBeGreaterThan(0);
    expect(comparePositions(null, a)).toBeLessThan(0);
    expect(decodePosition(b)).toEqual({ major: 10n, minor: 1n });
    expect(isGlobalPosition(a)).toBe(true);
    expect(isGlobalPosition('12-3')).toBe(false);
  });

  it('event ids are deterministic per command and index', () => {
    expect(eventIdFor('cmd-1', 0)).toBe(eventIdFor('cmd-1', 0));
    expect(eventIdFor('cmd-1', 0)).not.toBe(eventIdFor('cmd-1', 1));
    expect(eventIdFor('cmd-1', 0)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('PGlite answers from inside jest', async () => {
    // From the suites' blank image (what initdb leaves, built once per run): the same PGlite, without an initdb.
    const db = await PgliteDatabase.open(undefined, { image: await blankDatabaseImage() });
    const { rows } = await db.query<{ n: number }>('select 41 + 1 as n');
    expect(rows[0]?.n).toBe(42);
    await db.close();
  });
});
