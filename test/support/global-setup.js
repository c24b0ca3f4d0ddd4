import { execFileSync } from 'node:child_process';

/** The CLI and child-process tests run the built code: build once (swc, about a second) before the suites. */
export default function globalSetup() {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
