/**
 * The catalogue context's application service: imports (survey every file, then one atomic commit streamed file by
 * file, then the association index), the loaded matcher (cached per catalogue version, so a CLI import while the service runs is
 * picked up at the next request), and the association index maintenance on observation writes. Every full build
 * of the index records the matcher version it used (MATCHER_VERSION); at service start an index built by another
 * version is rebuilt in the background (upkeepIndexAtStart).
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../platform/clock/clock.js';
import type {
  ObservationIndex,
  ObservationRecord,
} from '../search/observation-index/observation-index.port.js';
import type { QueryNode } from '../search/query-language/ast.js';
import type { Advisory, CatalogueVersion, KevEntry } from './domain/advisory.js';
import { CatalogueMatcher, MATCHER_VERSION } from './domain/matching.js';
import {
  collectCatalogueFiles,
  MalformedCatalogueFile,
  readCatalogueFile,
  type KevCatalogue,
  type ParsedFile,
} from './import/parse-catalogue-files.js';
import type {
  CatalogueStore,
  HostAssociation,
  IndexStamp,
  StoredAdvisory,
} from './store/catalogue-store.port.js';

export interface ImportReport {
  readonly files: number;
  readonly advisories_read: number;
  readonly advisories_added: number;
  readonly advisories_updated: number;
  readonly advisories_unchanged: number;
  /** Older than the stored record of the same CVE (lastModified): kept the stored one. */
  readonly advisories_older: number;
  readonly kev_entries: number | null;
  readonly kev_changed: boolean;
  readonly changed: boolean;
  readonly catalogue: CatalogueVersion;
  readonly associations: ReindexReport | null;
}

export interface ReindexReport {
  readonly observations: number;
  readonly associated_observations: number;
  readonly associations: number;
}

/**
 * Each phase reports `done: 0` when it starts, before any of its work, so that a rate measured from the first
 * report covers the whole phase. `read` counts files, `commit` advisories written, `reindex` host observations.
 */
export interface ImportProgress {
  readonly phase: 'read' | 'commit' | 'reindex';
  readonly done: number;
  readonly total: number | null;
}

/**
 * The association index against the code's matcher: `current` (built with MATCHER_VERSION), `rebuilding` (the
 * start-up rebuild runs; searches answer from the old associations until each batch is replaced), `stale` (built
 * by another matcher version, or by one that recorded none; `catalogue reindex` or a restart rebuilds it), or
 * `unknown` (the stamp could not be read).
 */
export interface CatalogueIndexStatus {
  readonly index: 'current' | 'rebuilding' | 'stale' | 'unknown';
  /** The code's matcher version. */
  readonly matcher_version: number;
  /** The version the index was last built with; null when no build recorded one. */
  readonly index_matcher_version: number | null;
  readonly built_at: string | null;
  /** Why the index is stale or unknown (the start-up rebuild failed, the store did not answer). */
  readonly detail?: string;
}

export type CatalogueLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

export interface ImportOptions {
  readonly observations?: ObservationIndex;
  readonly onProgress?: (progress: ImportProgress) => void;
}

const ALL: QueryNode = { kind: 'and', children: [], span: { start: 0, end: 0 } };
const REINDEX_BATCH = 1000;
const STAMP_BATCH = 10_000;

export function advisoryHash(advisory: Advisory): string {
  return createHash('sha256').update(JSON.stringify(advisory)).digest('hex');
}

function kevHash(kev: KevCatalogue): string {
  return createHash('sha256')
    .update(JSON.stringify([...kev.entries].sort((a, b) => (a.cve_id < b.cve_id ? -1 : 1))))
    .digest('hex');
}

export class CatalogueService {
  private cached: Promise<CatalogueMatcher> | null = null;
  private cachedVersion = -1;
  /** Full builds of the index in this process run one at a time (a start-up rebuild, an import's, the CLI's). */
  private builds: Promise<unknown> = Promise.resolve();
  private startUpRebuild: { running: boolean; failure?: string } = { running: false };

  constructor(
    readonly store: CatalogueStore,
    private readonly clock: Clock,
  ) {}

  async version(): Promise<CatalogueVersion> {
    return this.store.version();
  }

  /** The matcher of the current catalogue version (one cheap version query per call). */
  async matcher(): Promise<CatalogueMatcher> {
    const version = await this.store.version();
    if (!this.cached || this.cachedVersion !== version.version) {
      this.cachedVersion = version.version;
      this.cached = this.store
        .load()
        .then((snapshot) => new CatalogueMatcher(snapshot.advisories, snapshot.kev, snapshot.version));
      this.cached.catch(() => {
        this.cached = null;
      });
    }
    return this.cached;
  }

  /**
   * Imports files and folders. Every file is read and validated first: one malformed file (MalformedCatalogueFile,
   * with its path and reason) and nothing is written. Re-importing the same files changes nothing (idempotent):
   * the version moves only when an advisory or the KEV catalogue changed. Memory stays bounded by one file's
   * records plus a small stamp per CVE: files are read twice (survey, then write) instead of held (ADR 85).
   */
  async importPaths(paths: readonly string[], options: ImportOptions = {}): Promise<ImportReport> {
    return this.importSurveyed(await surveyCataloguePaths(paths, options.onProgress), options);
  }

  /** Imports records already parsed (tests, the sample catalogue): the same path as files. */
  async importParsed(parsed: readonly ParsedFile[], options: ImportOptions = {}): Promise<ImportReport> {
    const sources = parsed.map((file) => ({ path: file.path, read: () => Promise.resolve(file) }));
    return this.importSurveyed(await surveyCatalogue(sources, options.onProgress), options);
  }

  /** Writes what a survey found: new and changed advisories, streamed file by file into one atomic commit. */
  async importSurveyed(survey: CatalogueSurvey, options: ImportOptions = {}): Promise<ImportReport> {
    let added = 0;
    let updated = 0;
    let unchanged = 0;
    let older = 0;
    const ids = [...survey.winners.keys()];
    for (let i = 0; i < ids.length; i += STAMP_BATCH) {
      const batch = ids.slice(i, i + STAMP_BATCH);
      const stamps = await this.store.stamps(batch);
      for (const id of batch) {
        const winner = survey.winners.get(id)!;
        const stored = stamps.get(id);
        if (!stored) {
          added++;
          winner.write = true;
        } else if (stored.hash === winner.hash) unchanged++;
        else if (stored.last_modified && winner.last_modified && winner.last_modified < stored.last_modified)
          older++;
        else {
          updated++;
          winner.write = true;
        }
      }
    }
    const kev = survey.kev;
    const newKevHash = kev ? kevHash(kev) : null;
    const kevChanged = kev !== null && newKevHash !== (await this.store.kevHash());
    const writes = added + updated;
    const changed = writes > 0 || kevChanged;
    options.onProgress?.({ phase: 'commit', done: 0, total: writes });
    const catalogue = changed
      ? await this.store.commit({
          upserts: () =>
            upsertsOf(survey, (done) => options.onProgress?.({ phase: 'commit', done, total: writes })),
          kev: kevChanged ? { source: kev.source, entries: kev.entries, hash: newKevHash! } : null,
          at: this.clock.now(),
        })
      : await this.store.version();
    if (!changed || writes === 0) options.onProgress?.({ phase: 'commit', done: writes, total: writes });
    const associations =
      changed && options.observations
        ? await this.reindex(options.observations, (done, total) =>
            options.onProgress?.({ phase: 'reindex', done, total }),
          )
        : null;
    return {
      files: survey.sources.length,
      advisories_read: survey.read,
      advisories_added: added,
      advisories_updated: updated,
      advisories_unchanged: unchanged,
      advisories_older: older,
      kev_entries: kev ? kev.entries.length : null,
      kev_changed: kevChanged,
      changed,
      catalogue,
      associations,
    };
  }

  /**
   * Rebuilds the association index over every host observation, a batch of observations at a time (each batch
   * replaces the associations of its observations atomically, so searches never see a hole).
   * `onProgress` gets `done: 0` once the catalogue is loaded and just before the first batch (so a rate measured
   * from it counts association work only), then the observations done after each batch; `total` is the number of
   * host observations when the rebuild started (writes during the rebuild may move it).
   */
  async reindex(
    observations: ObservationIndex,
    onProgress?: (done: number, total: number) => void,
  ): Promise<ReindexReport> {
    return this.oneBuildAtATime(() => this.rebuild(observations, onProgress));
  }

  /**
   * At service start: when the index was built by another matcher version, or recorded none while there are
   * associations or hosts and advisories to associate, rebuilds it in the background. Only the stamp read is
   * awaited (readiness does not wait for the rebuild); a current index costs nothing more. `done` settles when the
   * background work ended, with the rebuild's report, or null when nothing was rebuilt (the index was current or
   * empty, or the rebuild stopped); it never rejects: a failure is logged and shown by indexStatus as `stale`.
   */
  async upkeepIndexAtStart(
    observations: ObservationIndex,
    options: { signal?: AbortSignal; log?: CatalogueLog } = {},
  ): Promise<{ done: Promise<ReindexReport | null> }> {
    const log = options.log ?? (() => undefined);
    let stamp: IndexStamp | null;
    try {
      stamp = await this.store.indexStamp();
    } catch (error) {
      // The rest of the service does not depend on it: start, and let /health/ready show the index `unknown`.
      log('error', 'reading which matcher built the host → CVE association index failed', {
        err: error instanceof Error ? error.message : String(error),
      });
      return { done: Promise.resolve(null) };
    }
    if (stamp?.matcher_version === MATCHER_VERSION) return { done: Promise.resolve(null) };
    this.startUpRebuild = { running: true };
    const done = this.oneBuildAtATime(async () => {
      if (!stamp && !(await this.anythingToAssociate(observations))) {
        await this.store.stampIndex(MATCHER_VERSION, this.clock.now());
        return null;
      }
      log('info', 'rebuilding the host → CVE association index: another matcher version (or none) built it', {
        index_matcher_version: stamp?.matcher_version ?? null,
        matcher_version: MATCHER_VERSION,
      });
      return this.rebuild(observations, undefined, options.signal);
    }).then(
      (report) => {
        this.startUpRebuild = { running: false };
        if (report)
          log('info', 'host → CVE association index rebuilt', {
            matcher_version: MATCHER_VERSION,
            ...report,
          });
        return report;
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        this.startUpRebuild = options.signal?.aborted
          ? { running: false }
          : { running: false, failure: message };
        if (!options.signal?.aborted)
          log('error', 'rebuilding the host → CVE association index failed: run `catalogue reindex`', {
            err: message,
          });
        return null;
      },
    );
    return { done };
  }

  /** The association index against the code's matcher (one stamp read; see CatalogueIndexStatus). */
  async indexStatus(): Promise<CatalogueIndexStatus> {
    const base = { matcher_version: MATCHER_VERSION };
    try {
      const stamp = await this.store.indexStamp();
      const built = {
        ...base,
        index_matcher_version: stamp?.matcher_version ?? null,
        built_at: stamp?.built_at ?? null,
      };
      if (this.startUpRebuild.running) return { index: 'rebuilding', ...built };
      // An empty catalogue associates nothing: whatever built the (empty) index, it is current.
      const current =
        stamp?.matcher_version === MATCHER_VERSION ||
        (!stamp && (await this.store.version()).advisories === 0);
      if (current) return { index: 'current', ...built };
      return {
        index: 'stale',
        ...built,
        ...(this.startUpRebuild.failure
          ? { detail: `the rebuild at start failed: ${this.startUpRebuild.failure}` }
          : {}),
      };
    } catch (error) {
      return {
        index: 'unknown',
        ...base,
        index_matcher_version: null,
        built_at: null,
        detail: error instanceof Error ? error.message : String(error),
      };
    }
  }

  private async anythingToAssociate(observations: ObservationIndex): Promise<boolean> {
    if ((await this.store.associationCount()) > 0) return true;
    return (await this.store.version()).advisories > 0 && (await observations.count('hosts')) > 0;
  }

  private oneBuildAtATime<T>(build: () => Promise<T>): Promise<T> {
    const result = this.builds.then(build);
    this.builds = result.catch(() => undefined);
    return result;
  }

  private async rebuild(
    observations: ObservationIndex,
    onProgress?: (done: number, total: number) => void,
    signal?: AbortSignal,
  ): Promise<ReindexReport> {
    const total = await observations.count('hosts');
    // Without hosts the catalogue (250,000 advisories at NVD scale) is not loaded for nothing.
    let matcher = total > 0 ? await this.matcher() : null;
    onProgress?.(0, total);
    let count = 0;
    let associated = 0;
    let associations = 0;
    for await (const batch of observations.stream('hosts', { ast: ALL }, REINDEX_BATCH, signal)) {
      signal?.throwIfAborted();
      matcher ??= await this.matcher();
      const rows = this.associationRows(matcher, batch);
      await this.store.replaceAssociations(
        batch.map((record) => record.id),
        rows,
      );
      count += batch.length;
      associations += rows.length;
      associated += new Set(rows.map((row) => row.observation_id)).size;
      onProgress?.(count, Math.max(total, count));
    }
    signal?.throwIfAborted();
    // Only a build that went through every host observation says which matcher the whole index follows.
    await this.store.stampIndex(MATCHER_VERSION, this.clock.now());
    return { observations: count, associated_observations: associated, associations };
  }

  /**
   * Keeps the association index in step with written host observations: the records, or what reads them (called
   * only when the catalogue has advisories to associate them with).
   */
  async observationsWritten(
    written: readonly ObservationRecord[] | (() => Promise<readonly ObservationRecord[]>),
  ): Promise<void> {
    const matcher = await this.matcher();
    // With an empty catalogue there is nothing to associate, and nothing was associated before.
    if (matcher.advisoryCount === 0) return;
    const records = typeof written === 'function' ? await written() : written;
    await this.store.replaceAssociations(
      records.map((record) => record.id),
      this.associationRows(matcher, records),
    );
  }

  private associationRows(
    matcher: CatalogueMatcher,
    records: readonly ObservationRecord[],
  ): HostAssociation[] {
    const rows: HostAssociation[] = [];
    for (const record of records) {
      const cpes = Array.isArray(record.cpe)
        ? record.cpe.filter((c): c is string => typeof c === 'string')
        : [];
      for (const association of matcher.associationsOf(cpes))
        rows.push({ observation_id: record.id, ...association });
    }
    return rows;
  }

  kevOf(matcher: CatalogueMatcher, id: string): KevEntry | false | null {
    return matcher.kevOf(id);
  }
}

/** A catalogue file that can be read again (a survey reads each once, the commit the ones with writes again). */
export interface CatalogueSource {
  readonly path: string;
  read(): Promise<ParsedFile>;
}

/** The record of one CVE an import keeps: where it is, and what it is compared with. */
interface Winner {
  readonly source: number;
  readonly hash: string;
  readonly last_modified: string | null;
  write: boolean;
}

/** What an import will write, learnt by reading and validating every file once without keeping the records. */
export interface CatalogueSurvey {
  readonly sources: readonly CatalogueSource[];
  readonly winners: Map<string, Winner>;
  readonly read: number;
  /** The KEV catalogue of the last KEV file given (small: held). */
  readonly kev: KevCatalogue | null;
  /** Each source's path, size and SHA-256 as the survey read it (null when not read from a file). */
  readonly files: ReadonlyArray<{
    readonly path: string;
    readonly bytes: number;
    readonly sha256: string | null;
  }>;
}

/**
 * Reads and validates every source without any storage: the first malformed file throws MalformedCatalogueFile
 * with its path and reason (the CLI surveys before it opens the database). Within one import the latest
 * lastModified of a CVE wins (e.g. an "awaiting analysis" copy beside the analysed record).
 */
export async function surveyCatalogue(
  sources: readonly CatalogueSource[],
  onProgress?: (progress: ImportProgress) => void,
): Promise<CatalogueSurvey> {
  const winners = new Map<string, Winner>();
  let read = 0;
  let kev: KevCatalogue | null = null;
  const files: Array<CatalogueSurvey['files'][number]> = [];
  onProgress?.({ phase: 'read', done: 0, total: sources.length });
  for (const [index, source] of sources.entries()) {
    const file = await source.read();
    files.push({ path: source.path, bytes: file.content?.bytes ?? 0, sha256: file.content?.sha256 ?? null });
    for (const advisory of file.advisories) {
      read++;
      const previous = winners.get(advisory.id);
      if (!previous || isNewer(advisory.last_modified, previous.last_modified))
        winners.set(advisory.id, {
          source: index,
          hash: advisoryHash(advisory),
          last_modified: advisory.last_modified,
          write: false,
        });
    }
    if (file.kev) kev = file.kev; // the last KEV file given wins
    onProgress?.({ phase: 'read', done: index + 1, total: sources.length });
  }
  return { sources, winners, read, kev, files };
}

export async function surveyCataloguePaths(
  paths: readonly string[],
  onProgress?: (progress: ImportProgress) => void,
): Promise<CatalogueSurvey> {
  const files = await collectCatalogueFiles(paths);
  return surveyCatalogue(
    files.map((path) => ({ path, read: () => readCatalogueFile(path) })),
    onProgress,
  );
}

/**
 * The advisories to write, one file's worth at a time: each source holding a winner to write is read again and
 * its winners taken. A file that no longer holds what the survey found (changed during the import) is refused, and
 * the commit with it.
 */
async function* upsertsOf(
  survey: CatalogueSurvey,
  onWritten: (done: number) => void,
): AsyncGenerator<readonly StoredAdvisory[]> {
  const pending = new Map<number, number>();
  for (const winner of survey.winners.values())
    if (winner.write) pending.set(winner.source, (pending.get(winner.source) ?? 0) + 1);
  const indexes = survey.sources.map((_, index) => index).filter((index) => pending.has(index));
  // The next file is read and parsed while the store writes the current batch (the database works meanwhile).
  const read = (position: number) => {
    const reading = position < indexes.length ? survey.sources[indexes[position]!]!.read() : null;
    reading?.catch(() => undefined); // awaited in turn; an early failure must not go unhandled meanwhile
    return reading;
  };
  let done = 0;
  let next = read(0);
  for (let position = 0; position < indexes.length; position++) {
    const index = indexes[position]!;
    const source = survey.sources[index]!;
    const expected = pending.get(index)!;
    const file = (await next)!;
    next = read(position + 1);
    const batch: StoredAdvisory[] = [];
    const taken = new Set<string>();
    for (const advisory of file.advisories) {
      const winner = survey.winners.get(advisory.id);
      if (!winner?.write || winner.source !== index || taken.has(advisory.id)) continue;
      const hash = advisoryHash(advisory);
      if (hash !== winner.hash) continue; // a duplicate of the CVE in the same file that did not win
      taken.add(advisory.id);
      batch.push({ advisory, hash });
    }
    if (batch.length !== expected)
      throw new MalformedCatalogueFile(
        source.path,
        'changed while it was being imported; nothing was imported',
      );
    yield batch;
    done += batch.length;
    onWritten(done);
  }
}

function isNewer(candidate: string | null, current: string | null): boolean {
  if (!current) return true;
  if (!candidate) return false;
  return candidate > current;
}
