/**
 * `node dist/bench/generate-nvd-catalogue.js --out DIR [--count 250000] [--seed nvd]`: writes a synthetic
 * NVD-shaped catalogue as NVD API 2.0 pages (see nvd-catalogue-generator.ts), for `catalogue import` at scale.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateNvdCatalogue } from './nvd-catalogue-generator.js';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    count: { type: 'string', default: '250000' },
    seed: { type: 'string', default: 'nvd' },
    templates: { type: 'string', default: join(process.cwd(), '..', 'shared', 'data', 'nvd') },
  },
});
const count = Number(values.count);
if (!values.out || !Number.isInteger(count) || count <= 0) {
  process.stderr.write(
    'usage: node dist/bench/generate-nvd-catalogue.js --out DIR [--count 250000] [--seed nvd] [--templates DIR]\n',
  );
  process.exit(2);
}
const started = performance.now();
const report = generateNvdCatalogue(values.out, { count, seed: values.seed, templates: values.templates });
process.stdout.write(
  `${JSON.stringify({ ...report, seconds: Math.round((performance.now() - started) / 100) / 10 }, null, 2)}\n`,
);
