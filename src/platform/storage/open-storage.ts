import type { AppConfig } from '../config/app-config.js';
import type { Clock } from '../clock/clock.js';
import { openSqlDatabase, type OpenedDatabase } from '../database/open-sql-database.js';
import type { SqlDatabase } from '../database/sql-database.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { PostgresEventStore } from '../event-store/postgres/postgres-event-store.js';
import type { ReadStore } from '../read-store/read-store.port.js';
import { PostgresRateLimiter } from '../rate-limit/postgres-rate-limiter.js';
import type { ObservationIndex } from '../../search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../../search/observation-index/postgres-observation-index.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.port.js';
import type { ExportFileStore } from '../../exports/files/export-file-store.port.js';
import { DataDirFileStore } from '../../exports/files/data-dir-file-store.js';
import { PostgresReadStore } from '../read-store/postgres/postgres-read-store.js';
import { AssociatedObservationIndex } from '../../catalogue/associated-observation-index.js';
import { CatalogueService } from '../../catalogue/catalogue-service.js';
import type { CatalogueStore } from '../../catalogue/store/catalogue-store.port.js';
import { PostgresCatalogueStore } from '../../catalogue/store/postgres-catalogue-store.js';

/**
 * The storage a process works with, chosen from the configuration:
 * events in EventStoreDB (EVENTSTORE_URL) or PostgreSQL; read models in MongoDB (MONGODB_URL) or PostgreSQL;
 * PostgreSQL is a server (DATABASE_URL) or the embedded PGlite in DATA_DIR, owned by one process and reached
 * by the others through its unix socket.
 */
export interface Storage {
  readonly eventStore: EventStore;
  readonly readStore: ReadStore;
  /** The four observation datasets (hosts, dns, vhosts, whois) the search engine reads. */
  readonly observations: ObservationIndex;
  /** Rate limits shared by every instance on the same read-model database. */
  readonly rateLimiter: RateLimiter;
  /** The vulnerability catalogue and the association index behind `cve:`/`kev:` (beside the observations). */
  readonly catalogue: CatalogueService;
  /** Export files: MongoDB GridFS when the read store is MongoDB, else the data directory. */
  readonly files: ExportFileStore;
  /** Frozen exposure report documents: the same adapters, their own bucket (`report_files`) or directory. */
  readonly reportFiles: ExportFileStore;
  /** The SQL database when one is used (always, except EventStoreDB + MongoDB). */
  readonly sql: SqlDatabase | undefined;
  /** `owner` when this process holds the embedded database, `client` when another process does. */
  readonly sqlRole: OpenedDatabase['role'] | undefined;
  /** The owner of the embedded database records where it answers HTTP (OpenedDatabase.recordOwnerAddress). */
  recordOwnerAddress(http: string): void;
  close(): Promise<void>;
}

export interface OpenStorageOptions {
  readonly clock: Clock;
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
}

export async function openStorage(config: AppConfig, options: OpenStorageOptions): Promise<Storage> {
  const needsSql = !config.eventStoreUrl || !config.mongodbUrl;
  const opened = needsSql
    ? await openSqlDatabase({
        dataDir: config.dataDir,
        ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
        serveSocket: options.serveSocket ?? true,
        ...(options.exclusiveDataDir ? { exclusive: true } : {}),
        ...(options.ownerName ? { ownerName: options.ownerName } : {}),
        ...(options.log ? { log: options.log } : {}),
      })
    : undefined;
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
      });
    }
    closers.push(() => eventStore.close());
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

    // The vulnerability catalogue lives beside the observation index: its association table/collection is what
    // the `cve:`/`kev:` selectors of the index compile to.
    let catalogueStore: CatalogueStore;
    let rawObservations: ObservationIndex;
    if (config.mongodbUrl) {
      const { MongoObservationIndex } =
        await import('../../search/observation-index/mongodb-observation-index.js');
      const { MongoCatalogueStore } = await import('../../catalogue/store/mongodb-catalogue-store.js');
      const mongoCatalogue = await MongoCatalogueStore.connect(config.mongodbUrl);
      closers.push(() => mongoCatalogue.close());
      catalogueStore = mongoCatalogue;
      const mongoIndex = await MongoObservationIndex.connect(config.mongodbUrl, undefined, {
        selectors: mongoCatalogue.mongoSelectors,
      });
      closers.push(() => mongoIndex.close());
      rawObservations = mongoIndex;
    } else {
      const sqlCatalogue = new PostgresCatalogueStore(opened!.db);
      catalogueStore = sqlCatalogue;
      rawObservations = new PostgresObservationIndex(opened!.db, { selectors: sqlCatalogue.sqlSelectors });
    }
    await rawObservations.init();
    await catalogueStore.init();
    const catalogue = new CatalogueService(catalogueStore, options.clock);
    const observations: ObservationIndex = new AssociatedObservationIndex(rawObservations, catalogue);

    let files: ExportFileStore;
    let reportFiles: ExportFileStore;
    if (config.mongodbUrl) {
      const { GridFsFileStore } = await import('../../exports/files/gridfs-file-store.js');
      files = await GridFsFileStore.connect(config.mongodbUrl);
      reportFiles = await GridFsFileStore.connect(config.mongodbUrl, undefined, 'report_files');
    } else {
      files = new DataDirFileStore(config.dataDir);
      reportFiles = new DataDirFileStore(config.dataDir, 'reports');
    }
    closers.push(
      () => files.close(),
      () => reportFiles.close(),
    );
    await files.init();
    await reportFiles.init();

    return {
      eventStore,
      readStore,
      rateLimiter,
      observations,
      catalogue,
      files,
      reportFiles,
      sql: opened?.db,
      sqlRole: opened?.role,
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
