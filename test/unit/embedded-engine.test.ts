import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  chooseEmbeddedEngine,
  EmbeddedEngineMismatch,
} from '../../src/platform/database/open-sql-database.js';

/** Which engine opens a DATA_DIR (ADR 94): decided from what the directory holds, never losing what is there. */
describe('the embedded engine of a DATA_DIR', () => {
  const dirs: string[] = [];
  const dataDir = (holds: ReadonlyArray<'pglite' | 'postgres'>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-'));
    dirs.push(dir);
    for (const engine of holds) {
      mkdirSync(join(dir, engine));
      writeFileSync(join(dir, engine, 'PG_VERSION'), '18\n');
    }
    return dir;
  };

  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a new DATA_DIR gets the server; PGlite only when asked for', () => {
    expect(chooseEmbeddedEngine(dataDir([]), 'auto')).toEqual({ engine: 'postgres' });
    expect(chooseEmbeddedEngine(dataDir([]), 'postgres')).toEqual({ engine: 'postgres' });
    expect(chooseEmbeddedEngine(dataDir([]), 'pglite')).toEqual({ engine: 'pglite' });
  });

  it('a DATA_DIR of an earlier version keeps its PGlite database, with a note unless PGlite was asked for', () => {
    const old = dataDir(['pglite']);
    const chosen = chooseEmbeddedEngine(old, 'auto');
    expect(chosen.engine).toBe('pglite');
    expect(chosen.notice).toContain(`DATA_DIR ${old} holds a PGlite database written by an earlier version`);
    expect(chooseEmbeddedEngine(old, 'pglite')).toEqual({ engine: 'pglite' });
  });

  it('asking for the engine whose database is not there, beside the other one, is refused', () => {
    const old = dataDir(['pglite']);
    expect(() => chooseEmbeddedEngine(old, 'postgres')).toThrow(EmbeddedEngineMismatch);
    expect(() => chooseEmbeddedEngine(old, 'postgres')).toThrow(
      `DATA_DIR ${old} holds a PGlite database (${join(old, 'pglite')}), but EMBEDDED_ENGINE=postgres would start an empty PostgreSQL server`,
    );
    const server = dataDir(['postgres']);
    expect(chooseEmbeddedEngine(server, 'auto')).toEqual({ engine: 'postgres' });
    expect(() => chooseEmbeddedEngine(server, 'pglite')).toThrow(EmbeddedEngineMismatch);
  });

  it('with both databases present, each engine opens its own', () => {
    const both = dataDir(['pglite', 'postgres']);
    expect(chooseEmbeddedEngine(both, 'auto')).toEqual({ engine: 'postgres' });
    expect(chooseEmbeddedEngine(both, 'pglite')).toEqual({ engine: 'pglite' });
  });
});
