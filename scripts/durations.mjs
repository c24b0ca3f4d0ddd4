#!/usr/bin/env node
// Makes the suite times of the last two-shard `npm test` (dist/test-durations.json) the measure the shards are
// split by (test/durations.json). Run it after a full run on a quiet machine, and commit the result.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const measured = JSON.parse(readFileSync(new URL('../dist/test-durations.json', import.meta.url), 'utf8'));
const target = new URL('../test/durations.json', import.meta.url);
const current = JSON.parse(readFileSync(target, 'utf8'));
// Suites the run did not measure keep their time; suites whose file is gone are dropped.
const suites = Object.fromEntries(
  Object.entries({ ...current.suites, ...measured })
    .filter(([path]) => existsSync(new URL(`../${path}`, import.meta.url)))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)),
);
writeFileSync(target, `${JSON.stringify({ $comment: current.$comment, suites }, null, 2)}\n`);
const total = Object.values(suites).reduce((sum, seconds) => sum + seconds, 0);
process.stdout.write(`test/durations.json: ${Object.keys(suites).length} suites, ${total} s in all\n`);
