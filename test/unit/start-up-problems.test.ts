import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { EmbeddedDatabaseOpenFailed } from '../../src/platform/database/pglite-database.js';
import { describeThrown } from '../../src/platform/errors/describe-thrown.js';
import { explainStartupFailure } from '../../src/platform/storage/start-up-problems.js';

/** What PGlite's file system (emscripten) throws: not an Error, no message, a WASI errno number. */
function errnoError(errno: number): object {
  return { name: 'ErrnoError', errno };
}

describe('start-up failures are explained, never `[object Object]`', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'explain-'));
  });

  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('describes thrown non-Error objects by their fields', () => {
    expect(describeThrown(errnoError(51))).toBe('ErrnoError errno 51');
    expect(describeThrown({ some: 'thing' })).toBe('{"some":"thing"}');
    expect(describeThrown(new Error('plain'))).toBe('plain');
  });

  it("names a full disk when PGlite's file system reports ENOSPC as a bare errno object", () => {
    const pglite = join(dataDir, 'pglite');
    const text = explainStartupFailure(new EmbeddedDatabaseOpenFailed(pglite, errnoError(51)), {
      dataDir,
      embedded: true,
    });
    expect(text).toContain(`${pglite} failed with ENOSPC: the disk holding DATA_DIR ${dataDir} is full`);
    expect(text).not.toContain('[object Object]');
  });

  it('says the embedded database is damaged when PGlite cannot initialize it and the disk is fine', () => {
    const pglite = join(dataDir, 'pglite');
    const text = explainStartupFailure(
      new EmbeddedDatabaseOpenFailed(pglite, new Error('PGlite failed to initialize properly')),
      { dataDir, embedded: true },
    );
    expect(text).toContain(`its embedded database in ${pglite} could not be opened`);
    expect(text).toContain(`restore ${dataDir} from a backup`);
  });

  it('names the address and port a listen failed on', () => {
    const inUse = Object.assign(new Error('listen EADDRINUSE'), {
      code: 'EADDRINUSE',
      syscall: 'listen',
      address: '127.0.0.1',
      port: 3000,
    });
    expect(explainStartupFailure(inUse, { dataDir, embedded: true })).toContain(
      'listening on 127.0.0.1:3000 failed with EADDRINUSE (another process uses that port)',
    );
  });
});
