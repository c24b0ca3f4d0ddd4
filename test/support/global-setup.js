import { execFileSync } from 'node:child_process';

/**
 * The CLI and child-process tests run the built code: build once (swc, about a second) before the suites.
 * scripts/test.mjs builds before starting its shards and sets TEST_SKIP_BUILD so they do not build together.
 */
export default function globalSetup() {
  if (process.env.TEST_SKIP_BUILD === '1') return;
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
