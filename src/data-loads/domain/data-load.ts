/**
 * Data loads (ADR 110): an operator loading Recog fingerprint databases, collector data or the vulnerability
 * catalogue changes what the service identifies, returns and enriches, so each load leaves one attributed event
 * after it ends, with its outcome and a summary (names, counts, SHA-256 of each file; never record contents).
 * One stream per loaded thing: `fingerprint-databases`, `data-load-<dataset|auto>`, `vulnerability-catalogue`.
 * Pure decider: time comes from the context, refusals are ServiceErrors.
 */
import type { Decider, DomainEvent } from '../../platform/event-sourcing/decider.js';
import { ServiceError } from '../../platform/errors/service-error.js';

/** `completed`: the load ran to its end; `failed` and `interrupted`: it stopped after writing part of it. */
export type LoadOutcome = 'completed' | 'failed' | 'interrupted';
const OUTCOMES: readonly LoadOutcome[] = ['completed', 'failed', 'interrupted'];
/** The error text kept on a failed load's event (a database message may be long). */
export const MAX_LOAD_ERROR_LENGTH = 500;

export const FINGERPRINT_DATABASES_STREAM = 'fingerprint-databases';
export const VULNERABILITY_CATALOGUE_STREAM = 'vulnerability-catalogue';
export function dataLoadStreamId(target: string): string {
  return `data-load-${target}`;
}

/** A file a load read: its name as given, its size and the SHA-256 of its bytes (null: not read to its end). */
export interface LoadedFile {
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string | null;
}

export interface FingerprintDatabasesLoad {
  readonly databases: ReadonlyArray<
    LoadedFile & {
      readonly matches: string;
      readonly fingerprints: number;
      /** Its content differed from the stored one (new or replaced). */
      readonly changed: boolean;
    }
  >;
  readonly fingerprints: number;
  /** Fingerprints whose pattern the matcher cannot translate (never matched). */
  readonly unsupported: number;
}

export interface ObservationDataLoad {
  /** The dataset named on the command line, or `auto`. */
  readonly target: string;
  /** The datasets written to. */
  readonly datasets: readonly string[];
  readonly formats: readonly string[];
  readonly files: ReadonlyArray<
    LoadedFile & {
      readonly format: string;
      readonly read: number;
      readonly written: number;
      readonly rejected: number;
    }
  >;
  readonly records: {
    readonly read: number;
    /** Records written: new ones plus those merged into a stored observation of the same id. */
    readonly written: number;
    readonly merged: number;
    readonly rejected: number;
    /** Records of another dataset than the target (not written). */
    readonly refused: number;
  };
  /** Recog identified vendor, product, version and cpe (false with --no-fingerprints). */
  readonly fingerprinting: boolean;
  readonly strict: boolean;
}

export interface CatalogueLoad {
  readonly files: readonly LoadedFile[];
  readonly kev: {
    readonly title: string | null;
    readonly catalogVersion: string | null;
    readonly entries: number;
  } | null;
  readonly advisories: {
    readonly read: number;
    readonly added: number;
    readonly updated: number;
    readonly unchanged: number;
    readonly older: number;
  };
  readonly kevChanged: boolean;
  /** The catalogue version after the load (moves only when something changed). */
  readonly catalogueVersion: number;
  /** Host observations associated again after the load; null when nothing changed or it did not run. */
  readonly associatedObservations: number | null;
}

interface LoadFacts {
  readonly outcome: LoadOutcome;
  /** Why a load stopped (failed, interrupted); absent when it completed. */
  readonly error?: string;
}

export type RecordDataLoad =
  | ({ readonly type: 'RecordFingerprintDatabasesLoad'; readonly load: FingerprintDatabasesLoad } & LoadFacts)
  | ({ readonly type: 'RecordObservationDataLoad'; readonly load: ObservationDataLoad } & LoadFacts)
  | ({ readonly type: 'RecordCatalogueLoad'; readonly load: CatalogueLoad } & LoadFacts);

type Loaded<T extends string, L> = DomainEvent<T, L & LoadFacts & { readonly loadedAt: string }>;
export type FingerprintDatabasesLoaded = Loaded<'FingerprintDatabasesLoaded', FingerprintDatabasesLoad>;
export type ObservationDataLoaded = Loaded<'ObservationDataLoaded', ObservationDataLoad>;
export type CatalogueLoaded = Loaded<'CatalogueLoaded', CatalogueLoad>;
export type DataLoadEvent = FingerprintDatabasesLoaded | ObservationDataLoaded | CatalogueLoaded;

export interface DataLoadState {
  readonly loads: number;
  readonly lastOutcome: LoadOutcome | null;
}

export interface DataLoadContext {
  readonly now: Date;
}

const SHA256 = /^[0-9a-f]{64}$/;

export const dataLoadDecider: Decider<RecordDataLoad, DataLoadEvent, DataLoadState, DataLoadContext> = {
  initialState: { loads: 0, lastOutcome: null },
  decide(command, _state, { now }) {
    if (!OUTCOMES.includes(command.outcome))
      throw new ServiceError(
        'invalid_input',
        `a load ends completed, failed or interrupted, not ${command.outcome}`,
      );
    if (command.outcome !== 'completed' && !command.error?.trim())
      throw new ServiceError('invalid_input', `a ${command.outcome} load says why it stopped`);
    const files = filesOf(command);
    if (files.length === 0) throw new ServiceError('invalid_input', 'a load names the files it read');
    for (const file of files) {
      if (file.sha256 !== null && !SHA256.test(file.sha256))
        throw new ServiceError('invalid_input', `${file.name}: the SHA-256 is 64 hexadecimal digits`);
      if (!Number.isSafeInteger(file.bytes) || file.bytes < 0)
        throw new ServiceError('invalid_input', `${file.name}: the byte count is a whole number`);
    }
    const facts: LoadFacts & { loadedAt: string } = {
      outcome: command.outcome,
      ...(command.outcome !== 'completed'
        ? { error: command.error!.trim().slice(0, MAX_LOAD_ERROR_LENGTH) }
        : {}),
      loadedAt: now.toISOString(),
    };
    switch (command.type) {
      case 'RecordFingerprintDatabasesLoad':
        return [{ type: 'FingerprintDatabasesLoaded', data: { ...command.load, ...facts } }];
      case 'RecordObservationDataLoad':
        return [{ type: 'ObservationDataLoaded', data: { ...command.load, ...facts } }];
      case 'RecordCatalogueLoad':
        return [{ type: 'CatalogueLoaded', data: { ...command.load, ...facts } }];
    }
  },
  evolve(state, event) {
    return { loads: state.loads + 1, lastOutcome: event.data.outcome };
  },
};

function filesOf(command: RecordDataLoad): readonly LoadedFile[] {
  switch (command.type) {
    case 'RecordFingerprintDatabasesLoad':
      return command.load.databases;
    case 'RecordObservationDataLoad':
      return command.load.files;
    case 'RecordCatalogueLoad':
      return command.load.files;
  }
}

/** The stream a load is recorded on. */
export function dataLoadStream(command: RecordDataLoad): string {
  switch (command.type) {
    case 'RecordFingerprintDatabasesLoad':
      return FINGERPRINT_DATABASES_STREAM;
    case 'RecordObservationDataLoad':
      return dataLoadStreamId(command.load.target);
    case 'RecordCatalogueLoad':
      return VULNERABILITY_CATALOGUE_STREAM;
  }
}
