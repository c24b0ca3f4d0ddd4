/**
 * A fresh embedded database costs about a second of PGlite initdb plus the service's schema; suites open
 * hundreds. The first opener in a test process builds one migrated embedded database (the schema openStorage
 * creates on an empty DATA_DIR, no events, no projections started) and every later DATA_DIR starts as a copy of
 * it. PostgreSQL opens the copy as it would reopen its own directory after a clean shutdown, so the service goes
 * through its normal start (every CREATE ... IF NOT EXISTS runs again and finds its table) and tests see exactly
 * what a first start gives.
 *
 * Built once per jest run (the suites of a shard run one after another in one process); the built marker is
 * written last, so a template interrupted half-way is rebuilt, never copied.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceComposition } from '../../src/composition/service-composition.js';
import { systemClock } from '../../src/platform/clock/clock.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { PGLITE_DIR_NAME } from '../../src/platform/database/open-sql-database.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import { openStorage } from '../../src/platform/storage/open-storage.js';

// global-setup.js makes one per jest run and global-teardown.js removes it; a suite run on its own (no global
// setup) uses one per process.
const templateDir = process.env.PGLITE_TEMPLATE_DIR ?? join(tmpdir(), `pglite-template-${process.pid}`);
const builtMarker = join(templateDir, 'built');
const blankImageFile = join(templateDir, 'blank.tar');

/**
 * What a fresh in-memory PGlite holds right after initdb, as a `dumpDataDir` tarball: test databases start from
 * it (PgliteDatabase.open's `image`) in about a quarter of initdb's time, and are otherwise exactly as new.
 */
export async function blankDatabaseImage(): Promise<Blob> {
  if (!existsSync(blankImageFile)) {
    const fresh = await PgliteDatabase.open();
    const image = await fresh.pglite.dumpDataDir('none');
    await fresh.close();
    mkdirSync(templateDir, { recursive: true });
    // Written under another name and renamed: a reader never finds half a tarball.
    writeFileSync(`${blankImageFile}.partial`, Buffer.from(await image.arrayBuffer()));
    renameSync(`${blankImageFile}.partial`, blankImageFile);
  }
  return new Blob([readFileSync(blankImageFile)]);
}

async function buildTemplate(): Promise<void> {
  rmSync(join(templateDir, PGLITE_DIR_NAME), { recursive: true, force: true });
  mkdirSync(templateDir, { recursive: true });
  const config = loadConfig({
    DATA_DIR: templateDir,
    EMBEDDED_ENGINE: 'pglite',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
  });
  const storage = await openStorage(config, {
    clock: systemClock,
    features: serviceComposition.features,
    serveSocket: false,
  });
  await storage.close();
  writeFileSync(builtMarker, new Date().toISOString());
}

/** Makes `dataDir`'s embedded database a copy of the migrated template (for a DATA_DIR not opened yet). */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  if (!existsSync(builtMarker)) await buildTemplate();
  const target = join(dataDir, PGLITE_DIR_NAME);
  if (existsSync(target)) throw new Error(`${target} already holds a database; seed only a new DATA_DIR`);
  cpSync(join(templateDir, PGLITE_DIR_NAME), target, { recursive: true });
}

/** A new, empty DATA_DIR whose embedded database starts as the migrated template (mkdtemp's prefix). */
export async function freshDataDir(prefix: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  await seedEmbeddedDatabase(dataDir);
  return dataDir;
}
