import type { Command } from 'commander';
import { action, type CliRuntime } from '../../platform/cli/cli-runtime.js';
import {
  checkLoadReason,
  dataLoadEnvelope,
  LOAD_REASON_HELP,
  recordDataLoad,
} from '../../data-loads/cli/record-data-load.js';
import type { RecordDataLoad } from '../../data-loads/domain/data-load.js';
import { startProgress, type Progress } from '../../platform/cli/progress.js';
import {
  surveyCataloguePaths,
  type CatalogueIndexStatus,
  type CatalogueSurvey,
  type ImportProgress,
  type ImportReport,
} from '../catalogue-service.js';
import { MalformedCatalogueFile } from '../import/parse-catalogue-files.js';

/**
 * `catalogue import <files or folders>`: NVD CVE API 2.0 JSON and the CISA KEV catalogue; idempotent; one malformed
 * file stops the import before anything is written (exit 3, with its path and reason).
 * `catalogue status`: the current version and whether the association index follows the code's matcher version.
 * `catalogue reindex`: rebuilds the host → CVE association index.
 */
export function registerCatalogueCommands(program: Command, runtime: CliRuntime): void {
  const catalogue = program
    .command('catalogue')
    .description('vulnerability catalogue (NVD CVE records, CISA KEV)');

  catalogue
    .command('import')
    .description(
      'import NVD CVE API 2.0 JSON (single records or {vulnerabilities:[{cve}]}) and the CISA KEV catalogue from ' +
        'files or folders (recursively, *.json); re-importing the same files changes nothing',
    )
    .argument('<paths...>', 'files or folders')
    .option('--reason <text>', LOAD_REASON_HELP)
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (paths: string[], options: { reason?: string; json?: boolean }) => {
        const json = Boolean(options.json);
        checkLoadReason('catalogue import', options.reason);
        const bars = new Map<ImportProgress['phase'], Progress>();
        const labels = {
          read: 'reading files',
          commit: 'writing advisories',
          reindex: 'associating hosts',
        };
        // A phase's bar starts at its first report, which the service sends before the phase's work (done: 0):
        // the rate shown is measured over the phase itself.
        const onProgress = (progress: ImportProgress): void => {
          let bar = bars.get(progress.phase);
          if (!bar) {
            for (const [phase, other] of bars) if (phase !== progress.phase) other.stop();
            bar = startProgress(labels[progress.phase], {
              json,
              ...(progress.total !== null ? { total: progress.total } : {}),
              unit:
                progress.phase === 'reindex' ? 'hosts' : progress.phase === 'read' ? 'files' : 'advisories',
            });
            bars.set(progress.phase, bar);
          }
          bar.update(progress.done, progress.total !== null ? { total: progress.total } : undefined);
        };
        try {
          // Every file is read and validated before the database is opened: a malformed file is refused without
          // touching (or waiting for) the store.
          const survey = await surveyCataloguePaths(paths, onProgress);
          const envelope = await dataLoadEnvelope(runtime, 'catalogue import', options.reason);
          const context = await runtime.open();
          // The commit is atomic (a failure there writes nothing, and records nothing); the association of hosts
          // runs after it, so a failure there is recorded as a failed load of a committed catalogue (ADR 110).
          const committed = await context.catalogue.importSurveyed(survey, { onProgress });
          let report: ImportReport = committed;
          if (committed.changed) {
            try {
              const associations = await context.catalogue.reindex(context.observations, (done, total) =>
                onProgress({ phase: 'reindex', done, total }),
              );
              report = { ...committed, associations };
            } catch (error) {
              for (const bar of bars.values()) bar.stop();
              await recordDataLoad(runtime, envelope, catalogueLoad(survey, committed, error));
              throw error;
            }
          }
          const recorded = await recordDataLoad(runtime, envelope, catalogueLoad(survey, report));
          for (const bar of bars.values()) bar.stop();
          runtime.print(json, { ...report, recorded }, () =>
            [describe(report), `  recorded:   CatalogueLoaded on ${recorded.stream}`].join('\n'),
          );
          return 0;
        } catch (error) {
          for (const bar of bars.values()) bar.stop();
          if (!(error instanceof MalformedCatalogueFile)) throw error;
          runtime.print(
            json,
            { error: 'malformed_file', path: error.path, reason: error.reason, written: false },
            () =>
              `rejected ${error.path}: ${error.reason}\nnothing was imported; the current catalogue is unchanged`,
          );
          return 3;
        }
      }),
    );

  catalogue
    .command('status')
    .description(
      'the catalogue version, when it was evaluated, its KEV source, the association count and the matcher ' +
        'version the association index was built with',
    )
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const context = await runtime.open();
        const version = await context.catalogue.version();
        const associations = await context.catalogue.store.associationCount();
        const index = await context.catalogue.indexStatus();
        runtime.print(Boolean(options.json), { ...version, associations, index }, () =>
          [
            `catalogue version ${version.version} (evaluated at ${version.evaluated_at ?? 'never'})`,
            `  advisories:   ${version.advisories}`,
            `  KEV:          ${version.kev_source ? `${version.kev_entries} entries, ${version.kev_source.title ?? ''} ${version.kev_source.catalog_version ?? ''}` : 'no KEV catalogue loaded (kev is unknown)'}`,
            `  associations: ${associations} host→CVE`,
            `  index:        ${describeIndex(index)}`,
          ].join('\n'),
        );
      }),
    );

  catalogue
    .command('reindex')
    .description('rebuild the association index from host observations to CVEs (cve:/kev: selectors)')
    .option('--json', 'machine-readable output')
    .action(
      action(runtime, async (options: { json?: boolean }) => {
        const json = Boolean(options.json);
        const context = await runtime.open();
        // Started at the first report (after the catalogue is loaded, before the first batch), so that loading a
        // large catalogue does not count against the association rate.
        let progress: Progress | undefined;
        const report = await context.catalogue.reindex(context.observations, (done, total) => {
          progress ??= startProgress('associating hosts', { json, total, unit: 'hosts' });
          progress.update(done, { total });
        });
        progress?.stop();
        runtime.print(
          json,
          report,
          () =>
            `${report.observations} host observations: ${report.associated_observations} associated with ${report.associations} CVE links`,
        );
      }),
    );
}

/** What the load event says of a catalogue import; `error` when associating hosts failed after the commit. */
function catalogueLoad(survey: CatalogueSurvey, report: ImportReport, error?: unknown): RecordDataLoad {
  const kev = survey.kev;
  return {
    type: 'RecordCatalogueLoad',
    ...(error === undefined
      ? { outcome: 'completed' as const }
      : { outcome: 'failed' as const, error: `associating hosts failed: ${messageOf(error)}` }),
    load: {
      files: survey.files.map((file) => ({ name: file.path, bytes: file.bytes, sha256: file.sha256 })),
      kev: kev
        ? { title: kev.source.title, catalogVersion: kev.source.catalog_version, entries: kev.entries.length }
        : null,
      advisories: {
        read: report.advisories_read,
        added: report.advisories_added,
        updated: report.advisories_updated,
        unchanged: report.advisories_unchanged,
        older: report.advisories_older,
      },
      kevChanged: report.kev_changed,
      catalogueVersion: report.catalogue.version,
      associatedObservations: report.associations?.observations ?? null,
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describeIndex(index: CatalogueIndexStatus): string {
  const built =
    index.index_matcher_version === null
      ? 'no matcher version recorded'
      : `built with matcher version ${index.index_matcher_version} at ${index.built_at}`;
  const advice =
    index.index === 'stale'
      ? '; `catalogue reindex` (or a service restart) rebuilds it'
      : index.index === 'rebuilding'
        ? '; the service is rebuilding it'
        : '';
  return `${index.index} (matcher version ${index.matcher_version}; ${built})${advice}${index.detail ? ` (${index.detail})` : ''}`;
}

function describe(report: ImportReport): string {
  const lines = [
    report.changed
      ? `catalogue version ${report.catalogue.version} (evaluated at ${report.catalogue.evaluated_at})`
      : `nothing changed: catalogue version ${report.catalogue.version} kept`,
    `  files:      ${report.files}`,
    `  advisories: ${report.advisories_read} read, ${report.advisories_added} added, ${report.advisories_updated} updated, ${report.advisories_unchanged} unchanged, ${report.advisories_older} older than stored (kept stored)`,
    `  KEV:        ${report.kev_entries === null ? 'no KEV file' : `${report.kev_entries} entries${report.kev_changed ? '' : ' (unchanged)'}`}`,
    `  total:      ${report.catalogue.advisories} advisories, ${report.catalogue.kev_entries} KEV entries`,
  ];
  if (report.associations)
    lines.push(
      `  hosts:      ${report.associations.observations} observations, ${report.associations.associated_observations} associated (${report.associations.associations} CVE links)`,
    );
  return lines.join('\n');
}
