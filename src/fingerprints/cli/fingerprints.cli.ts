import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import { dataLoadEnvelope, LOAD_REASON_HELP, recordDataLoad } from '../../data-loads/cli/record-data-load.js';
import { MalformedRecogDatabase } from '../domain/recog-database.js';
import type { UnsupportedFingerprint } from '../domain/recog-matcher.js';
import { readRecogFiles, type FingerprintVerification } from '../fingerprint-service.js';

/**
 * `fingerprints import <xml files or folders...>`: stores Rapid7 Recog databases by file name (replaced when the
 * content differs, unchanged otherwise); a malformed file stops the import before anything is written (exit 3).
 * `fingerprints verify <xml files...>`: Recog's verification, every `<example>` through the loaded databases
 * (exit 1 when one fails). `fingerprints list`: the stored databases.
 */
export function registerFingerprintCommands(program: Command, runtime: CliRuntime): void {
  const fingerprints = program
    .command('fingerprints')
    .description('Rapid7 Recog fingerprint databases: banners to vendor, product, version and CPE');

  fingerprints
    .command('import')
    .description(
      'store Recog XML databases (files, or folders of *.xml); re-importing the same files changes nothing',
    )
    .argument('<paths...>', 'Recog XML files or folders')
    .option('--reason <text>', LOAD_REASON_HELP)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (paths: string[], options: { reason?: string; json?: boolean }) => {
        const json = Boolean(options.json);
        const envelope = await dataLoadEnvelope(runtime, 'fingerprints import', options.reason);
        try {
          const files = await readRecogFiles(paths);
          const context = await runtime.open();
          const report = await context.fingerprints.import(files);
          // One transaction stored them all (or none): the load is recorded once it is done (ADR 110).
          const recorded = await recordDataLoad(runtime, envelope, {
            type: 'RecordFingerprintDatabasesLoad',
            outcome: 'completed',
            load: {
              databases: report.databases,
              fingerprints: report.fingerprints,
              unsupported: report.unsupported.length,
            },
          });
          runtime.print(json, { ...report, recorded }, () =>
            [
              `${report.files} databases, ${report.fingerprints} fingerprints: ${report.changed.length} stored, ${report.unchanged.length} unchanged`,
              `recorded as FingerprintDatabasesLoaded on ${recorded.stream}`,
              ...report.changed.map((name) => `  stored    ${name}`),
              ...report.unchanged.map((name) => `  unchanged ${name}`),
              ...describeUnsupported(report.unsupported),
            ].join('\n'),
          );
          return 0;
        } catch (error) {
          if (!(error instanceof MalformedRecogDatabase)) throw error;
          runtime.print(
            json,
            { error: 'malformed_file', reason: error.message, written: false },
            () => `rejected ${error.message}\nnothing was imported; the stored databases are unchanged`,
          );
          return 3;
        }
      }),
    );

  fingerprints
    .command('verify')
    .description(
      "run every <example> of these Recog files through the loaded databases (Recog's own verification); exit 1 on a failure",
    )
    .argument('<paths...>', 'Recog XML files or folders')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (paths: string[], options: { json?: boolean }) => {
        const json = Boolean(options.json);
        let files;
        try {
          files = await readRecogFiles(paths);
          const context = await runtime.open();
          const report = await context.fingerprints.verify(files);
          runtime.print(json, report, () => describeVerification(report));
          return report.failed > 0 ? 1 : 0;
        } catch (error) {
          if (!(error instanceof MalformedRecogDatabase)) throw error;
          runtime.print(
            json,
            { error: 'malformed_file', reason: error.message },
            () => `rejected ${error.message}`,
          );
          return 3;
        }
      }),
    );

  fingerprints
    .command('list')
    .description('the stored Recog databases: file name, what they match, fingerprints, hash, import time')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const context = await runtime.open();
        const databases = await context.fingerprints.list();
        runtime.print(Boolean(options.json), { databases }, () =>
          databases.length === 0
            ? 'no fingerprint databases (fingerprints import <recog xml files> loads them)'
            : databases
                .map(
                  (database) =>
                    `${database.name.padEnd(24)} ${database.matches.padEnd(26)} ${String(database.fingerprints).padStart(5)} fingerprints  ${database.imported_at}  ${database.hash.slice(0, 12)}`,
                )
                .join('\n'),
        );
      }),
    );
}

function describeVerification(report: FingerprintVerification): string {
  const lines = [
    `${report.examples} examples: ${report.passed} passed, ${report.failed} failed`,
    ...report.databases.map(
      (database) =>
        `  ${database.database.padEnd(24)} ${String(database.examples).padStart(5)} examples, ${database.failed} failed`,
    ),
  ];
  for (const failure of report.failures)
    lines.push(
      `FAIL ${failure.database} #${failure.fingerprint} (${failure.description}): ${JSON.stringify(failure.example)} — ${failure.reason}; expected ${JSON.stringify(failure.expected)}`,
    );
  lines.push(...describeUnsupported(report.unsupported));
  return lines.join('\n');
}

function describeUnsupported(unsupported: readonly UnsupportedFingerprint[]): string[] {
  if (unsupported.length === 0) return [];
  return [
    `${unsupported.length} fingerprints not supported (never matched):`,
    ...unsupported.map((entry) => `  ${entry.database} #${entry.fingerprint}: ${entry.reason}`),
  ];
}
