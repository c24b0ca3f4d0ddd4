import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Clock } from '../platform/clock/clock.js';
import type { ObservationIdentifier } from '../search/data/collectors/collected.js';
import { recogIdentifier } from './domain/identify.js';
import { MalformedRecogDatabase, parseRecogDatabase, type RecogDatabase } from './domain/recog-database.js';
import { RecogMatcher, type UnsupportedFingerprint } from './domain/recog-matcher.js';
import { verifyExamples, type VerificationReport } from './domain/recog-verification.js';
import type { FingerprintStore, StoredFingerprintDatabase } from './store/fingerprint-store.port.js';

/**
 * Recog fingerprint databases (ADR 100): the operator imports them (the project ships none), the import
 * pipeline identifies banners through them, `fingerprints verify` runs Recog's own examples through them.
 * The stored databases are parsed and compiled once per process and again only after an import changed them.
 */
export class FingerprintService {
  private loaded: Promise<RecogMatcher> | undefined;

  constructor(
    readonly store: FingerprintStore,
    private readonly clock: Clock,
  ) {}

  /** Stores the files (each parsed first: one malformed file stops the import before anything is written). */
  async import(files: readonly RecogFile[]): Promise<FingerprintImportReport> {
    const parsed = files.map((file) => ({ file, database: parseRecogDatabase(file.name, file.xml) }));
    const names = new Set<string>();
    for (const { file } of parsed) {
      if (names.has(file.name))
        throw new MalformedRecogDatabase(
          `${file.name}: two files of this name (a database is stored by file name)`,
        );
      names.add(file.name);
    }
    const writes = parsed.map(({ file, database }) => ({
      name: file.name,
      matches: database.matches,
      fingerprints: database.fingerprints.length,
      hash: createHash('sha256').update(file.xml).digest('hex'),
      xml: file.xml,
    }));
    const changed = await this.store.put(writes, this.clock.now());
    if (changed.length > 0) this.loaded = undefined;
    const matcher = new RecogMatcher(parsed.map(({ database }) => database));
    return {
      files: parsed.length,
      changed,
      unchanged: parsed.map(({ file }) => file.name).filter((name) => !changed.includes(name)),
      fingerprints: matcher.fingerprintCount + matcher.unsupported.length,
      unsupported: matcher.unsupported,
      databases: writes.map((write, i) => ({
        name: write.name,
        matches: write.matches,
        fingerprints: write.fingerprints,
        // The file's own bytes when it was read from disk (the stored hash is of the XML as decoded).
        sha256: parsed[i]!.file.sha256 ?? write.hash,
        bytes: parsed[i]!.file.bytes ?? Buffer.byteLength(write.xml),
        changed: changed.includes(write.name),
      })),
    };
  }

  list(): Promise<StoredFingerprintDatabase[]> {
    return this.store.list();
  }

  /** The matcher over every stored database, compiled once until an import changes them. */
  matcher(): Promise<RecogMatcher> {
    this.loaded ??= this.store
      .load()
      .then(
        (stored) =>
          new RecogMatcher(stored.map((database) => parseRecogDatabase(database.name, database.xml))),
      );
    const loading = this.loaded;
    loading.catch(() => {
      if (this.loaded === loading) this.loaded = undefined;
    });
    return loading;
  }

  /** What `data import` calls to fill vendor, product, version and cpe of hosts records. */
  async identifier(): Promise<ObservationIdentifier> {
    return recogIdentifier(await this.matcher());
  }

  /** Recog's verification of these files' examples through the loaded (stored) databases. */
  async verify(files: readonly RecogFile[]): Promise<FingerprintVerification> {
    const databases: RecogDatabase[] = files.map((file) => parseRecogDatabase(file.name, file.xml));
    const matcher = await this.matcher();
    const report = verifyExamples(databases, matcher);
    const named = new Set(databases.map((database) => database.name));
    return {
      ...report,
      unsupported: matcher.unsupported.filter((entry) => named.has(entry.database)),
    };
  }
}

export interface RecogFile {
  readonly name: string;
  readonly xml: string;
  /** SHA-256 and size of the file's bytes, when it was read from a file. */
  readonly sha256?: string;
  readonly bytes?: number;
}

export interface FingerprintImportReport {
  readonly files: number;
  readonly changed: readonly string[];
  readonly unchanged: readonly string[];
  readonly fingerprints: number;
  readonly unsupported: readonly UnsupportedFingerprint[];
  /** Each database given: what the load event records of it (ADR 110). */
  readonly databases: ReadonlyArray<{
    readonly name: string;
    readonly matches: string;
    readonly fingerprints: number;
    readonly sha256: string;
    readonly bytes: number;
    readonly changed: boolean;
  }>;
}

export interface FingerprintVerification extends VerificationReport {
  readonly unsupported: readonly UnsupportedFingerprint[];
}

/** Reads Recog XML files; a folder gives its `*.xml` files (not recursively). */
export async function readRecogFiles(paths: readonly string[]): Promise<RecogFile[]> {
  const files: RecogFile[] = [];
  for (const path of paths) {
    if ((await stat(path)).isDirectory()) {
      const entries = (await readdir(path)).filter((entry) => entry.endsWith('.xml')).sort();
      for (const entry of entries) files.push(recogFile(entry, await readFile(join(path, entry))));
    } else files.push(recogFile(basename(path), await readFile(path)));
  }
  return files;
}

function recogFile(name: string, bytes: Buffer): RecogFile {
  return {
    name,
    xml: bytes.toString('utf8'),
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
  };
}
