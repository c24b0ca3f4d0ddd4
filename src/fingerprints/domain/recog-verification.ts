import type { RecogDatabase } from './recog-database.js';
import type { RecogMatcher } from './recog-matcher.js';

/**
 * Recog's own verification: every `<example>` of a database goes through the loaded matcher (the database of
 * the same file name, first match in file order) and must be matched by its own fingerprint with every param it
 * names equal to what the match yields. Pure: no I/O.
 */
export interface VerificationFailure {
  readonly database: string;
  readonly fingerprint: number;
  readonly description: string;
  readonly example: string;
  readonly expected: Readonly<Record<string, string>>;
  /** What went wrong: no match, another (earlier) fingerprint matched, a param differs, an unsupported pattern. */
  readonly reason: string;
  readonly actual?: Readonly<Record<string, string>>;
}

export interface DatabaseVerification {
  readonly database: string;
  readonly matches: string;
  readonly fingerprints: number;
  readonly examples: number;
  readonly passed: number;
  readonly failed: number;
}

export interface VerificationReport {
  readonly examples: number;
  readonly passed: number;
  readonly failed: number;
  readonly databases: readonly DatabaseVerification[];
  readonly failures: readonly VerificationFailure[];
}

export function verifyExamples(
  databases: readonly RecogDatabase[],
  matcher: RecogMatcher,
): VerificationReport {
  const failures: VerificationFailure[] = [];
  const summaries: DatabaseVerification[] = [];
  for (const database of databases) {
    const unsupported = new Map(
      matcher.unsupported
        .filter((entry) => entry.database === database.name)
        .map((entry) => [entry.fingerprint, entry.reason]),
    );
    let examples = 0;
    let failed = 0;
    for (const fingerprint of database.fingerprints) {
      for (const example of fingerprint.examples) {
        examples += 1;
        const fail = (reason: string, actual?: Readonly<Record<string, string>>): void => {
          failed += 1;
          failures.push({
            database: database.name,
            fingerprint: fingerprint.index,
            description: fingerprint.description,
            example: example.text,
            expected: example.expected,
            reason,
            ...(actual ? { actual } : {}),
          });
        };
        if (!matcher.hasDatabase(database.name)) {
          fail(`${database.name} is not loaded (fingerprints import it first)`);
          continue;
        }
        if (example.filename !== undefined) {
          fail(`the example's content is in a separate file (${example.filename}), which is not read`);
          continue;
        }
        const unsupportedReason = unsupported.get(fingerprint.index);
        if (unsupportedReason !== undefined) {
          fail(`the pattern is not supported: ${unsupportedReason}`);
          continue;
        }
        const match = matcher.matchIn(database.name, example.text);
        if (!match) {
          fail('no fingerprint matched');
          continue;
        }
        if (match.fingerprint !== fingerprint.index) {
          fail(`matched earlier by fingerprint #${match.fingerprint} (${match.description})`, match.params);
          continue;
        }
        const wrong = Object.entries(example.expected).find(([key, value]) => match.params[key] !== value);
        if (wrong)
          fail(
            `${wrong[0]} is ${JSON.stringify(match.params[wrong[0]] ?? null)}, expected ${JSON.stringify(wrong[1])}`,
            match.params,
          );
      }
    }
    summaries.push({
      database: database.name,
      matches: database.matches,
      fingerprints: database.fingerprints.length,
      examples,
      passed: examples - failed,
      failed,
    });
  }
  const examples = summaries.reduce((sum, summary) => sum + summary.examples, 0);
  return {
    examples,
    passed: examples - failures.length,
    failed: failures.length,
    databases: summaries,
    failures,
  };
}
