import type { AppConfig } from './config/app-config.js';
import { systemClock, type Clock } from './clock/clock.js';
import { EventSourcedRepository } from './event-sourcing/event-sourced-repository.js';
import { StreamReader } from './event-sourcing/stream-reader.js';
import { StreamWriter } from './event-sourcing/stream-writer.js';
import type { Upcasters } from './event-sourcing/upcasters.js';
import type { AnyProjection } from './projections/projection-definition.js';
import { ProjectionMaintenance } from './projections/projection-maintenance.js';
import { ProjectionRunner } from './projections/projection-runner.js';
import type { RateLimiter } from './rate-limit/rate-limiter.port.js';
import type { CredentialStore } from './auth/credentials/credential-store.port.js';
import { sqlAppendAlongside } from './event-sourcing/sql-append-alongside.js';
import {
  openStorage,
  type FeatureStorage,
  type OpenFeatureStorage,
  type Storage,
} from './storage/open-storage.js';
import { BackgroundChecks } from './health/background-checks.js';
import { CheckpointSigner } from './event-store/checkpoint-signer.js';
import type { LegacyEventRewriter } from './event-store/event-log-integrity.js';
import { KeyRing } from './event-store/signing-key-ring.js';
import { TamperEvidence } from './event-store/tamper-evidence.js';
import { ForegroundActivity } from './scheduling/foreground-activity.js';

/** Longest a projection batch waits for requests in flight before it is applied anyway. */
const PROJECTION_DEFER_MAX_MS = 50;
/** How long no request must be in flight before projections apply (ADR 0131): a client's next request comes first. */
const PROJECTION_LINGER_MS = 10;

export type LogFunction = (
  level: 'info' | 'warn' | 'error',
  message: string,
  fields?: Record<string, unknown>,
) => void;

/** Nest token for the process's LogFunction (PlatformModule provides it). */
export const SERVICE_LOG = Symbol('ServiceLog');

/** What a composition root (main.ts, the CLI, the test setup) opens a ServiceContext with. */
export interface ServiceContextOptions {
  /** Every read model the process maintains (`allProjections` from projections/index.ts). */
  readonly projections: readonly AnyProjection[];
  /** Opens the features' stores (`openFeatureStorage` from src/composition/feature-storage.ts). */
  readonly features: OpenFeatureStorage;
  /** Stored events of an older schema version are read through these (none by default). */
  readonly upcasters?: Upcasters;
  /** Rewrites of events written before the hash chain (secrets moved out of the log, ADR 65). */
  readonly legacyEventRewriters?: readonly LegacyEventRewriter[];
  readonly clock?: Clock;
  readonly log?: LogFunction;
  readonly serveSocket?: boolean;
  /** Start-up steps worth a line for the operator (the embedded server starting; OpenSqlDatabaseOptions). */
  readonly progress?: (message: string) => void;
  /** The service: own the embedded database or fail with DataDirInUse, never share another owner's. */
  readonly exclusiveDataDir?: boolean;
  /** What this process is (`service`, `cli`), recorded in DATA_DIR's lock. */
  readonly ownerName?: string;
  readonly pollIntervalMs?: number;
  readonly dropGraceMs?: number;
  /** A projection found the storage damaged (ProjectionRunnerOptions.onStorageDamaged). */
  readonly onStorageDamaged?: (error: unknown, projection: string) => void;
}

/**
 * Everything a running process shares: configuration, clock, storage and the projection runner.
 * Built before Nest so a bad configuration or unreachable storage stops start-up with a clear message;
 * the Nest modules receive it as one provider. The composition roots pass in what the process is made of
 * (its projections, its features' stores): the platform names no feature.
 */
export class ServiceContext {
  /**
   * False when no process applies projections (the CLI owning DATA_DIR with no service running): then
   * nobody will catch up until the service starts, and commands must not wait for it.
   */
  projectionsFollowed = true;

  /** Background work that failed without stopping the service (shown by /health/ready). */
  readonly background = new BackgroundChecks();
  /** Requests in flight (the HTTP app counts them); projection batches let them go first. */
  readonly foreground: ForegroundActivity;
  /** The one write path: decide on a stream, append with the expected version, read your writes. */
  readonly writer: StreamWriter;
  /** Folds a stream's current state for reads that need the stream itself (no append). */
  readonly reader: StreamReader;

  private constructor(
    readonly config: AppConfig,
    readonly clock: Clock,
    readonly storage: Storage,
    readonly projections: ProjectionRunner,
    readonly maintenance: ProjectionMaintenance,
    readonly repository: EventSourcedRepository,
    foreground: ForegroundActivity,
    /** The service logger (pino in main.ts); silent when none was given (tests, the CLI). */
    readonly log: LogFunction = () => undefined,
  ) {
    this.foreground = foreground;
    this.writer = new StreamWriter(repository, storage.eventStore, (projections, position) =>
      this.readYourWrites(projections, position),
    );
    this.reader = new StreamReader(repository);
  }

  static async open(config: AppConfig, options: ServiceContextOptions): Promise<ServiceContext> {
    const clock = options.clock ?? systemClock;
    const foreground = new ForegroundActivity({ lingerMs: PROJECTION_LINGER_MS });
    const storage = await openStorage(config, {
      clock,
      features: options.features,
      serveSocket: options.serveSocket ?? true,
      ...(options.exclusiveDataDir ? { exclusiveDataDir: true } : {}),
      ...(options.ownerName ? { ownerName: options.ownerName } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
      ...(options.log ? { log: (message: string) => options.log!('warn', message) } : {}),
      ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.legacyEventRewriters ? { legacyEventRewriters: options.legacyEventRewriters } : {}),
      // A subscriber woken by a request's append reads once that request answered (or 50 ms at most): a
      // search's reservation and settlement then reach the projections as one page, after the search.
      wakeGate: () => foreground.quiet(PROJECTION_DEFER_MAX_MS),
    });
    // The runner rebuilds outdated projections through maintenance, which follows the runner's engine.
    const late: { maintenance?: ProjectionMaintenance } = {};
    const projections = new ProjectionRunner(storage.eventStore, storage.readStore, options.projections, {
      ...(options.upcasters ? { upcasters: options.upcasters } : {}),
      ...(options.log ? { log: options.log } : {}),
      beforeApply: () => foreground.quiet(PROJECTION_DEFER_MAX_MS),
      changes: storage.changes,
      rebuildOutdated: async (definition) => {
        await late.maintenance!.rebuild(definition);
      },
      ...(options.onStorageDamaged ? { onStorageDamaged: options.onStorageDamaged } : {}),
    });
    const maintenance = new ProjectionMaintenance(projections.engine, {
      dropGraceMs: options.dropGraceMs ?? config.projectionDropGraceMs,
      onSwitched: (name) => projections.generationSwitched(name),
    });
    late.maintenance = maintenance;
    // Ledgers take a charge per request: a snapshot every 500 events keeps loading them cheap.
    const repository = new EventSourcedRepository(storage.eventStore, storage.readStore, {
      snapshotEvery: 500,
      ...(options.upcasters ? { upcasters: options.upcasters } : {}),
      // A credential and the event naming it commit together on the SQL event store (ADR 65).
      appendAlongside: sqlAppendAlongside(storage.eventStore, storage.sql),
    });
    await repository.prepare();
    return new ServiceContext(
      config,
      clock,
      storage,
      projections,
      maintenance,
      repository,
      foreground,
      options.log,
    );
  }

  /** Waits (bounded by PROJECTION_WAIT_MS) until these projections applied `position`: read-your-writes. */
  async readYourWrites(projections: readonly string[], position: string | null): Promise<boolean> {
    if (position === null || !this.projectionsFollowed) return true;
    // Parked: a request waiting for its own projections must not hold them back.
    return this.foreground.parked(() =>
      this.projections.waitFor(projections, position, this.config.projectionWaitMs),
    );
  }

  private tamperEvidenceInstance: TamperEvidence | undefined;

  /** Sealing, signed checkpoints and verification of the log; the signing key is loaded (or generated) on first use. */
  get tamperEvidence(): TamperEvidence {
    const { file, pem, trustedKeysFile } = this.config.eventLogSigningKey;
    const dataDir = this.config.dataDir;
    const loadSigner = (): CheckpointSigner => CheckpointSigner.load({ dataDir, keyFile: file, keyPem: pem });
    this.tamperEvidenceInstance ??= new TamperEvidence(this.storage.eventStore, loadSigner(), this.clock, {
      loadSigner,
      loadRing: (active) => KeyRing.load({ active, dataDir, trustedKeysFile }),
      dataDir,
      configured: file !== undefined || pem !== undefined,
    });
    return this.tamperEvidenceInstance;
  }

  get observations(): FeatureStorage['observations'] {
    return this.storage.observations;
  }

  get files(): FeatureStorage['files'] {
    return this.storage.files;
  }

  get catalogue(): FeatureStorage['catalogue'] {
    return this.storage.catalogue;
  }

  get fingerprints(): FeatureStorage['fingerprints'] {
    return this.storage.fingerprints;
  }

  get rateLimiter(): RateLimiter {
    return this.storage.rateLimiter;
  }

  get credentials(): CredentialStore {
    return this.storage.credentials;
  }

  async close(): Promise<void> {
    await this.projections.stop();
    await this.storage.close();
  }
}
