import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirFileStore } from '../../src/exports/files/data-dir-file-store.js';
import { exportFileStoreContract } from './export-file-store.contract.js';

exportFileStoreContract('data directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'export-files-'));
  return {
    store: new DataDirFileStore(dir),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
