import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { compare } from '../../../src/exposure/exposure-monitor.js';
import { MAX_WATCH_LISTED, type WatchedService } from '../../../src/exposure/domain/watch.js';

const service = (n: number, result: string): WatchedService => ({
  subjectId: `svc-${String(n).padStart(4, '0')}`,
  host: `192.0.2.${n % 250}`,
  port: 443,
  product: 'nginx',
  result,
});
const run = (entries: ReadonlyArray<readonly [number, string]>) =>
  new Map(entries.map(([n, result]) => [service(n, result).subjectId, service(n, result)]));

describe('watch comparison (what a compared run says)', () => {
  it('newly observed services and new KEV associations are listed; a service missing from this run is only counted', () => {
    const previous = run([
      [1, 'matched'],
      [2, 'matched'],
      [3, 'kev'],
    ]);
    const current = run([
      [1, 'kev'],
      [3, 'kev'],
      [4, 'matched'],
    ]);
    expect(compare(previous, current)).toEqual({
      newServices: 1,
      newServicesListed: [service(4, 'matched')],
      newKev: 1,
      newKevListed: [service(1, 'kev')],
      notObserved: 1,
    });
  });

  it('an empty run after a full one claims nothing new and only counts what was not observed', () => {
    expect(
      compare(
        run([
          [1, 'kev'],
          [2, 'matched'],
        ]),
        run([]),
      ),
    ).toEqual({
      newServices: 0,
      newServicesListed: [],
      newKev: 0,
      newKevListed: [],
      notObserved: 2,
    });
  });

  it('property: a comparison never names a service the run did not observe, and what is missing is only a count', () => {
    const entries = fc.uniqueArray(
      fc.tuple(fc.nat({ max: 150 }), fc.constantFrom('kev', 'matched', 'no_match', 'not_evaluable')),
      { selector: ([n]) => n, maxLength: 120 },
    );
    fc.assert(
      fc.property(entries, entries, (before, after) => {
        const previous = run(before);
        const current = run(after);
        const findings = compare(previous, current);
        const listed = [...findings.newServicesListed, ...findings.newKevListed];
        for (const named of listed) expect(current.get(named.subjectId)).toEqual(named);
        expect(findings.newServicesListed.every((s) => !previous.has(s.subjectId))).toBe(true);
        expect(findings.newKevListed.every((s) => s.result === 'kev')).toBe(true);
        expect(findings.newServices).toBe([...current.keys()].filter((id) => !previous.has(id)).length);
        expect(findings.notObserved).toBe([...previous.keys()].filter((id) => !current.has(id)).length);
        expect(findings.newServicesListed.length).toBe(Math.min(findings.newServices, MAX_WATCH_LISTED));
        expect(findings.newKevListed.length).toBe(Math.min(findings.newKev, MAX_WATCH_LISTED));
        expect(Object.keys(findings).sort()).toEqual([
          'newKev',
          'newKevListed',
          'newServices',
          'newServicesListed',
          'notObserved',
        ]);
      }),
    );
  });
});
