/**
 * Splits the suites between shards by measured duration (test/durations.json), longest first onto the
 * lighter shard, instead of jest's hash split: both shards then finish at about the same time. Within a
 * shard the longest suites run first.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import TestSequencer from '@jest/test-sequencer';

const Base = TestSequencer.default ?? TestSequencer;
const { suites } = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8'));
const UNKNOWN_SUITE_SECONDS = 5;

function cost(test) {
  return suites[relative(test.context.config.rootDir, test.path)] ?? UNKNOWN_SUITE_SECONDS;
}

function longestFirst(tests) {
  return [...tests].sort((a, b) => cost(b) - cost(a) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export default class DurationSequencer extends Base {
  shard(tests, { shardIndex, shardCount }) {
    const loads = new Array(shardCount).fill(0);
    const picked = [];
    for (const test of longestFirst(tests)) {
      let lightest = 0;
      for (let i = 1; i < shardCount; i++) if (loads[i] < loads[lightest]) lightest = i;
      loads[lightest] += cost(test);
      if (lightest === shardIndex - 1) picked.push(test);
    }
    return picked;
  }

  sort(tests) {
    return longestFirst(tests);
  }
}
