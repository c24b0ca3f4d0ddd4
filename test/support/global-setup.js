import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The CLI and child-process tests run the built code: build once (swc, about a second) before the suites.
 * scripts/test.mjs builds before starting its shards and sets TEST_SKIP_BUILD so they do not build together.
 */
export default function globalSetup() {
  // Suites create hundreds of password accounts: hash them at scrypt N=2^14 instead of OWASP's 2^17 (about 8x
  // faster). The production default and the rehash of weaker hashes are tested on their own.
  process.env.PASSWORD_HASH_COST ??= String(2 ** 14);
  // A rebuild keeps the previous generation 2 s for reads still on it; a test's reads are done in far less, and
  // `projections rebuild --all` waits it out once per projection.
  process.env.PROJECTION_DROP_GRACE_MS ??= '100';
  // The service and CLI processes the suites start keep PGlite (fast, seeded from a template); the embedded
  // PostgreSQL server default has its own suite (test/e2e/embedded-server.test.ts), which asks for it.
  process.env.EMBEDDED_ENGINE ??= 'pglite';
  // Where test/support/pglite-template.ts keeps this run's embedded database templates (global-teardown.js).
  process.env.PGLITE_TEMPLATE_DIR ??= mkdtempSync(join(tmpdir(), 'pglite-template-'));
  if (process.env.TEST_SKIP_BUILD === '1') return;
  execFileSync('npm', ['run', 'build:all', '--silent'], { stdio: 'inherit' });
}
