/**
 * SQLSTATEs that say the stored bytes themselves are damaged or missing: reading them again gives the same
 * error, so retrying can only hang whoever waits (a projection that never catches up).
 * XX001 data_corrupted (e.g. "invalid page in block 3 of relation base/5/16396"), XX002 index_corrupted,
 * 58030 io_error, 58P01 undefined_file (a relation file is gone).
 */
const DAMAGE_SQLSTATES = new Set(['XX001', 'XX002', '58030', '58P01']);

export function isStorageDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && DAMAGE_SQLSTATES.has(code);
}

/** The relation file a damage error names (`base/5/16396`, relative to the database's data directory). */
export function damagedRelationFile(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  return /(?:relation|file) "((?:base|global|pg_tblspc)\/[^"]+)"/.exec(message)?.[1];
}
