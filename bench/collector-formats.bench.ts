import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CollectedRecordRefused } from '../src/search/data/collectors/collected.js';
import { zgrab2Format } from '../src/search/data/collectors/zgrab2.js';
import { validateRecord } from '../src/search/domain/records.js';
import type { Measurement } from './bench-support.js';

/**
 * zgrab2 lines → validated records, in memory (no database: the import's own cost), for three shapes of the
 * shared samples (a banner-only line, an SSH line, an HTTPS line with its certificate), each line with its own
 * address, after a warm-up of 10,000 lines. Baseline: `JSON.parse` of the same lines in the same run, the least
 * any importer does per line.
 */
export function benchCollectorFormats(lines: number): Measurement[] {
  const data = join(process.cwd(), '..', 'shared', 'data', 'zgrab2');
  const context = { seenAt: new Date().toISOString(), source: 'bench' };
  const measurements: Measurement[] = [];
  for (const sample of ['ftp-default', 'ssh-ssh', 'http-https']) {
    const grab = JSON.parse(readFileSync(join(data, `${sample}.json`), 'utf8')) as Record<string, unknown>;
    const text: string[] = [];
    for (let index = 0; index < lines; index += 1) {
      text.push(
        JSON.stringify({ ...grab, ip: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}` }),
      );
    }
    // Warm-up (the engine compiles the format's code after a few thousand lines; JSON.parse is native).
    for (const line of text.slice(0, 10_000)) zgrab2Format.records(line, context);
    const parseStart = performance.now();
    for (const line of text) JSON.parse(line);
    const parseRate = lines / ((performance.now() - parseStart) / 1000);

    const formatStart = performance.now();
    for (const line of text) zgrab2Format.records(line, context);
    const formatRate = lines / ((performance.now() - formatStart) / 1000);

    let records = 0;
    const importStart = performance.now();
    for (const line of text) {
      for (const item of zgrab2Format.records(line, context)) {
        if (item instanceof CollectedRecordRefused) throw item;
        if (!validateRecord(item.dataset, item.record).ok) throw new Error(`${sample}: invalid record`);
        records += 1;
      }
    }
    const importRate = lines / ((performance.now() - importStart) / 1000);
    measurements.push({
      target: 'memory',
      name: `zgrab2 ${sample} lines → records (the format alone)`,
      value: Math.round(formatRate),
      unit: 'lines/s',
      baseline: Math.round(parseRate),
      baselineName: 'JSON.parse of the same lines',
      ratio: formatRate / parseRate,
    });
    measurements.push({
      target: 'memory',
      name: `zgrab2 ${sample} lines → validated records (${records / lines} per line)`,
      value: Math.round(importRate),
      unit: 'lines/s',
      baseline: Math.round(parseRate),
      baselineName: 'JSON.parse of the same lines',
      ratio: importRate / parseRate,
    });
  }
  return measurements;
}
