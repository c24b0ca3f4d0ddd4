#!/usr/bin/env node
/**
 * Builds the web console (console/ → dist/console) and measures what its first page costs: the JavaScript that
 * index.html loads at once (the entry and its module preloads), gzip-compressed. Over the budget (issue 19: under
 * 200 KB) the build fails. The figures go to dist/console/build-report.json and to stdout.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const BUDGET_BYTES = 200 * 1024;
const root = new URL('../console/', import.meta.url).pathname;
const out = new URL('../dist/console/', import.meta.url).pathname;

// Always the production build (React's development build is twice the size), whoever runs it: jest sets
// NODE_ENV=test for the suites' global setup.
process.env.NODE_ENV = 'production';
await build({ configFile: join(root, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });

const html = readFileSync(join(out, 'index.html'), 'utf8');
const firstPage = [
  ...html.matchAll(/<script[^>]+src="\/([^"]+\.js)"/g),
  ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="\/([^"]+\.js)"/g),
].map((match) => match[1]);
const files = [...new Set(firstPage)].map((file) => {
  const bytes = readFileSync(join(out, file));
  return { file, bytes: bytes.length, gzip_bytes: gzipSync(bytes, { level: 9 }).length };
});
const total = files.reduce((sum, file) => sum + file.gzip_bytes, 0);
const report = { first_page_js_gzip_bytes: total, budget_bytes: BUDGET_BYTES, files };
writeFileSync(join(out, 'build-report.json'), `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(
  `console built: first page ${(total / 1024).toFixed(1)} KB of JavaScript gzip-compressed ` +
    `(budget ${BUDGET_BYTES / 1024} KB) in ${files.length} file(s)\n`,
);
if (total > BUDGET_BYTES) {
  process.stderr.write("the console's first page is over its JavaScript budget\n");
  process.exit(1);
}
