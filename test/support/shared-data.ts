import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The real samples (../shared/data beside the project). A git worktree of the project sits a level deeper
 * (worktrees/<name>), so its tests find them one level further up; SHARED_DATA names another place.
 */
export const SHARED_DATA =
  process.env.SHARED_DATA ??
  [join(process.cwd(), '..', 'shared', 'data'), join(process.cwd(), '..', '..', 'shared', 'data')].find(
    (path) => existsSync(path),
  ) ??
  join(process.cwd(), '..', 'shared', 'data');
