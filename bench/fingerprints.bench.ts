/**
 * Fingerprint matches/s alone (issue 17): every `<example>` of the Recog databases in ../shared/data/recog (real
 * banners, headers, titles, certificate names, each with the `matches=` of its file) through the loaded matcher
 * (first match in file order over the databases declaring that name), beside the same texts through one plain
 * RegExp in the same run: the cost of trying Recog's fingerprints in order instead of one pattern. A second
 * figure is identify() of a hosts record (priority order, identity, CPE 2.2 → 2.3) over the same evidence.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { recogIdentifier } from '../src/fingerprints/domain/identify.js';
import { parseRecogDatabase } from '../src/fingerprints/domain/recog-database.js';
import { RecogMatcher } from '../src/fingerprints/domain/recog-matcher.js';
import type { Measurement } from './bench-support.js';

const RECOG = join(process.cwd(), '..', 'shared', 'data', 'recog');
/** The baseline: one product/version pattern, as a scanner without a fingerprint database would try. */
const PLAIN = /([A-Za-z][\w.-]*)[/ _-]v?(\d+(?:\.\d+)+)/;

export function benchFingerprints(durationMs = 3000): Measurement[] {
  const databases = readdirSync(RECOG)
    .filter((name) => name.endsWith('.xml'))
    .sort()
    .map((name) => parseRecogDatabase(name, readFileSync(join(RECOG, name), 'utf8')));
  const started = performance.now();
  const matcher = new RecogMatcher(databases, { memoEntries: 0 }); // every text matched, none remembered
  const compileMs = performance.now() - started;
  const evidence = databases.flatMap((database) =>
    database.fingerprints.flatMap((fingerprint) =>
      fingerprint.examples.map((example) => ({ matches: database.matches, text: example.text })),
    ),
  );
  const identifier = recogIdentifier(matcher);
  // As an import uses it: repeated banners answered from the memo (the 3,322 texts fit in it).
  const remembering = new RecogMatcher(databases);
  const rate = (work: (i: number) => unknown, ms: number): number => {
    let done = 0;
    let sink = 0;
    const begun = performance.now();
    while (performance.now() - begun < ms) {
      for (let k = 0; k < 100; k++) if (work(done++) !== null) sink++;
    }
    if (sink < 0) process.stderr.write('');
    return done / ((performance.now() - begun) / 1000);
  };
  const legs = {
    plain: (i: number) => PLAIN.exec(evidence[i % evidence.length]!.text),
    matched: (i: number) => {
      const item = evidence[i % evidence.length]!;
      return matcher.match(item.matches, item.text);
    },
    remembered: (i: number) => {
      const item = evidence[i % evidence.length]!;
      return remembering.match(item.matches, item.text);
    },
    identified: (i: number) =>
      identifier.identify('hosts', { ip: '192.0.2.1', port: 80, transport: 'tcp' }, [
        evidence[i % evidence.length]!,
      ]),
  };
  // Warm-up: every pattern compiled and run once. Then the legs take turns (the machine is shared and its load
  // moves): each leg's figure is its best round.
  for (const leg of Object.values(legs)) for (let i = 0; i < evidence.length; i++) leg(i);
  const best = { plain: 0, matched: 0, remembered: 0, identified: 0 };
  for (let round = 0; round < 5; round++)
    for (const name of Object.keys(legs) as Array<keyof typeof legs>)
      best[name] = Math.max(best[name], rate(legs[name], durationMs / 5));
  const { plain, matched, remembered, identified } = best;
  const target = `Recog matcher (${databases.length} databases, ${matcher.fingerprintCount} fingerprints, ${evidence.length} example texts; compiled in ${Math.round(compileMs)} ms)`;
  const baselineName = 'the same texts through one plain RegExp (product/version)';
  return [
    {
      target,
      name: 'fingerprint matches/s (first match in file order)',
      value: Math.round(matched),
      unit: 'texts/s',
      baseline: Math.round(plain),
      baselineName,
      ratio: Math.round((matched / plain) * 1000) / 1000,
    },
    {
      target,
      name: 'fingerprint matches/s of repeated texts (the memo an import uses)',
      value: Math.round(remembered),
      unit: 'texts/s',
      baseline: Math.round(plain),
      baselineName,
      ratio: Math.round((remembered / plain) * 1000) / 1000,
    },
    {
      target,
      name: 'identify() of a hosts record from one evidence (match, identity, CPE 2.3)',
      value: Math.round(identified),
      unit: 'records/s',
      baseline: Math.round(plain),
      baselineName,
      ratio: Math.round((identified / plain) * 1000) / 1000,
    },
  ];
}
