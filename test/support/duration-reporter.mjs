/**
 * Writes each suite's wall time (seconds) to $TEST_DURATIONS_FILE when set: scripts/test.mjs merges the two
 * shards' files into dist/test-durations.json, and `node scripts/durations.mjs` makes that the shard split's
 * measure (test/durations.json).
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class DurationReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.suites = {};
  }

  onTestResult(_test, result) {
    const { start, end } = result.perfStats;
    if (start && end)
      this.suites[relative(this.rootDir, result.testFilePath)] = Math.round((end - start) / 1000);
  }

  onRunComplete() {
    const file = process.env.TEST_DURATIONS_FILE;
    if (file) writeFileSync(file, `${JSON.stringify(this.suites, null, 2)}\n`);
  }
}
