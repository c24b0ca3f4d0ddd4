import type { CredentialStore } from '../auth/credentials/credential-store.port.js';
import { PostgresCredentialStore } from '../auth/credentials/postgres-credential-store.js';
import type { AppConfig } from '../config/app-config.js';
import type { Clock } from '../clock/clock.js';
import { LocalChangeSignals, type ChangeSignals } from '../database/change-signals.js';
import { openSqlDatabase, type OpenedDatabase } from '../database/open-sql-database.js';
import type { SqlDatabase } from '../database/sql-database.js';
import type { EventStore, LegacyEventRewriter } from '../event-store/event-store.port.js';
import { PostgresEventStore } from '../event-store/postgres/postgres-event-store.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import { PostgresRateLimiter } from '../rate-limit/postgres-rate-limiter.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.port.js';
import { PostgresReadStore } from '../read-store/postgres/postgres-read-store.js';

/**
 * The stores the features keep beside the platform's own (the observation index, the catalogue, export and
 * report files). Declared and opened by the composition root (src/composition/feature-storage.ts), which adds
 * its members to this interface: the platform names no feature.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by module augmentation
export interface FeatureStorage {}

/** What the features' stores are opened with. */
export interface FeatureStorageContext {
  readonly config: AppConfig;
  readonly clock: Clock;
  /** The SQL database when one is used: feature tables live beside the platform's. */
  readonly sql: SqlDatabase | undefined;
  /** Registers a close, run (newest first) when the storage closes or its opening fails. */
  onClose(close: () => Promise<void>): void;
}

export type OpenFeatureStorage = (context: FeatureStorageContext) => Promise<FeatureStorage>;

/**
 * The storage a process works with, chosen from the configuration:
 * events in EventStoreDB (EVENTSTORE_URL) or PostgreSQL; read models in MongoDB (MONGODB_URL) or PostgreSQL;
 * PostgreSQL is a server (DATABASE_URL) or the embedded database of DATA_DIR (a PostgreSQL server the owner
 * starts, or PGlite), owned by one process and reached by the others through its unix socket.
 */
export interface Storage extends FeatureStorage {
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  /** Rate limits shared by every instance on the same read-model database. */
  readonly rateLimiter: RateLimiter;
  /** Credential material beside the log (ADR 65): in the SQL database when one is used, else MongoDB. */
  readonly credentials: CredentialStore;
  /** The SQL database when one is used (always, except EventStoreDB + MongoDB). */
  readonly sql: SqlDatabase | undefined;
  /** What holds the embedded database (undefined with a DATABASE_URL or without SQL). */
  readonly sqlEngine: OpenedDatabase['engine'];
  /** `owner` when this process holds the embedded database, `client` when another process does. */
  readonly sqlRole: OpenedDatabase['role'] | undefined;
  /**
   * The wake channel between the instances (ADR 88): appends and generation switches of this process and, when
   * `crossProcess`, of the others. Without a SQL database it carries this process's own signals only.
   */
  readonly changes: ChangeSignals;
  /** The event store signals its appends on `changes` (PostgreSQL); EventStoreDB's appends are not signalled. */
  readonly appendsSignalled: boolean;
  /** The owner of the embedded database records where it answers HTTP (OpenedDatabase.recordOwnerAddress). */
  recordOwnerAddress(http: string): void;
  close(): Promise<void>;
}

export interface OpenStorageOptions {
  readonly clock: Clock;
  /** Opens the features' stores (the composition root's openFeatureStorage). */
  readonly features: OpenFeatureStorage;
  /** The service serves its embedded database to the CLI; the CLI does too when it is the owner. */
  readonly serveSocket?: boolean;
  readonly pollIntervalMs?: number;
  /** Awaited between an append's wake-up and a subscriber's read (PostgresEventStoreOptions.wakeGate). */
  readonly wakeGate?: () => Promise<void>;
  /** Own the embedded database or fail with DataDirInUse (the service; OpenSqlDatabaseOptions.exclusive). */
  readonly exclusiveDataDir?: boolean;
  /** What this process is (`service`, `cli`), recorded in DATA_DIR's lock. */
  readonly ownerName?: string;
  /** Notes for the operator (a stale lock taken over). */
  readonly log?: (message: string) => void;
  /** Start-up steps worth a line for the operator (OpenSqlDatabaseOptions.progress). */
  readonly progress?: (message: string) => void;
  /** Rewrite events written before the hash chain, before they are hashed (PostgresEventStoreOptions). */
  readonly legacyEventRewriters?: readonly LegacyEventRewriter[];
}

export async function openStorage(config: AppConfig, options: OpenStorageOptions): Promise<Storage> {
  const needsSql = !config.eventStoreUrl || !config.mongodbUrl;
  const opened = needsSql
    ? await openSqlDatabase({
        dataDir: config.dataDir,
        ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
        engine: config.embeddedEngine,
        serveSocket: options.serveSocket ?? true,
        ...(options.exclusiveDataDir ? { exclusive: true } : {}),
        ...(options.ownerName ? { ownerName: options.ownerName } : {}),
        ...(options.log ? { log: options.log } : {}),
        listen: config.databaseListen,
        ...(options.progress ? { progress: options.progress } : {}),
      })
    : undefined;
  const changes = opened?.changes ?? new LocalChangeSignals(false);
  const closers: Array<() => Promise<void>> = [];
  try {
    let eventStore: EventStore;
    if (config.eventStoreUrl) {
      const { EventStoreDbEventStore } =
        await import('../event-store/eventstoredb/eventstoredb-event-store.js');
      eventStore = EventStoreDbEventStore.fromConnectionString(config.eventStoreUrl, {
        clock: () => options.clock.now(),
      });
    } else {
      eventStore = new PostgresEventStore(opened!.db, {
        clock: () => options.clock.now(),
        ...(options.pollIntervalMs ? { pollIntervalMs: options.pollIntervalMs } : {}),
        ...(options.wakeGate ? { wakeGate: options.wakeGate } : {}),
        changes,
        ...(options.legacyEventRewriters ? { legacyEventRewriters: options.legacyEventRewriters } : {}),
      });
    }
    closers.push(() => eventStore.close());
    // Before the event store's init: the legacy rewriters it runs move credential material into this store.
    let credentials: CredentialStore;
    if (opened) {
      credentials = new PostgresCredentialStore(opened.db);
    } else {
      const { MongoCredentialStore } = await import('../auth/credentials/mongodb-credential-store.js');
      credentials = await MongoCredentialStore.connect(config.mongodbUrl!);
    }
    closers.push(() => credentials.close());
    await credentials.init();
    await eventStore.init();

    let readStore: ReadStore;
    if (config.mongodbUrl) {
      const { MongoReadStore } = await import('../read-store/mongodb/mongodb-read-store.js');
      readStore = await MongoReadStore.connect(config.mongodbUrl);
    } else {
      readStore = new PostgresReadStore(opened!.db);
    }
    closers.push(() => readStore.close());
    await readStore.init();

    let rateLimiter: RateLimiter;
    if (config.mongodbUrl) {
      const { MongoRateLimiter } = await import('../rate-limit/mongodb-rate-limiter.js');
      const mongoLimiter = await MongoRateLimiter.connect(config.mongodbUrl, options.clock);
      closers.push(() => mongoLimiter.close());
      rateLimiter = mongoLimiter;
    } else {
      rateLimiter = new PostgresRateLimiter(opened!.db, options.clock);
    }
    await rateLimiter.init();

    const features = await options.features({
      config,
      clock: options.clock,
      sql: opened?.db,
      onClose: (close) => closers.push(close),
    });

    return {
      ...features,
      eventStore,
      readStore,
      rateLimiter,
      credentials,
      sql: opened?.db,
      sqlRole: opened?.role,
      changes,
      appendsSignalled: eventStore instanceof PostgresEventStore,
      sqlEngine: opened?.engine,
      recordOwnerAddress: (http) => opened?.recordOwnerAddress(http),
      close: async () => {
        for (const close of closers.reverse()) await close().catch(() => undefined);
        await opened?.close();
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await opened?.close();
    throw error;
  }
}
