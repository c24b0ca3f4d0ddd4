#!/usr/bin/env node
// The npm registry reachable from our machines serves only the Linux builds of packages that ship one binary
// package per platform (@swc/core-*, @unrs/resolver-binding-*). `npm install` then leaves the other platforms'
// optional packages out of package-lock.json, and `npm ci` refuses the lock as out of sync. This adds an entry,
// restricted by os/cpu, for each such missing optional package, so npm skips it on Linux without fetching it.
// Run it after any `npm install` that changes the lock: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const packages = lock.packages;
const OS = [
  'darwin',
  'linux',
  'win32',
  'android',
  'freebsd',
  'openharmony',
  'sunos',
  'aix',
  'netbsd',
  'openbsd',
];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32', 'mips64el'];
let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const nested = `${location}/node_modules/${name}`;
    if (packages[key] || packages[nested]) continue;
    const parts = name.split('/').pop().split('-');
    // A package named for Windows alone (vite's napi-windows-process-start-time) is one too, on every CPU.
    const windowsOnly = parts.includes('windows');
    const os = windowsOnly ? 'win32' : OS.find((candidate) => parts.includes(candidate));
    const cpu = CPU.find((candidate) => parts.includes(candidate));
    if (!os || (!cpu && !windowsOnly)) continue; // not a per-platform binary package: leave it to npm
    const libc =
      parts.includes('musl') || parts.includes('musleabihf')
        ? ['musl']
        : os === 'linux'
          ? ['glibc']
          : undefined;
    packages[key] = {
      version: String(version).replace(/^[\^~]/, ''),
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [os],
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc } : {}),
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
lock.packages = sorted;
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
