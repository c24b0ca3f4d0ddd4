import { AssociatedObservationIndex } from '../catalogue/associated-observation-index.js';
import { CatalogueService } from '../catalogue/catalogue-service.js';
import type { CatalogueStore } from '../catalogue/store/catalogue-store.port.js';
import { PostgresCatalogueStore } from '../catalogue/store/postgres-catalogue-store.js';
import { FingerprintService } from '../fingerprints/fingerprint-service.js';
import type { FingerprintStore } from '../fingerprints/store/fingerprint-store.port.js';
import { PostgresFingerprintStore } from '../fingerprints/store/postgres-fingerprint-store.js';
import { DataDirFileStore } from '../exports/files/data-dir-file-store.js';
import type { ExportFileStore } from '../exports/files/export-file-store.port.js';
import type { FeatureStorage, FeatureStorageContext } from '../platform/storage/open-storage.js';
import type { ObservationIndex } from '../search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../search/observation-index/postgres-observation-index.js';

declare module '../platform/storage/open-storage.js' {
  /** The features' stores, beside the platform's (Storage extends this). */
  interface FeatureStorage {
    /** The four observation datasets (hosts, dns, vhosts, whois) the search engine reads. */
    readonly observations: ObservationIndex;
    /** The vulnerability catalogue and the association index behind `cve:`/`kev:` (beside the observations). */
    readonly catalogue: CatalogueService;
    /** Export files: MongoDB GridFS when the read store is MongoDB, else the data directory. */
    readonly files: ExportFileStore;
    /** Frozen exposure report documents: the same adapters, their own bucket (`report_files`) or directory. */
    readonly reportFiles: ExportFileStore;
    /** Recog fingerprint databases and the identifier `data import` fills vendor/product/version/cpe with. */
    readonly fingerprints: FingerprintService;
  }
}

/**
 * Opens the features' stores on the configured storage: MongoDB when MONGODB_URL is set, else the SQL database
 * (and the data directory for files). Every composition root (main.ts, the CLI, tests) opens storage with it.
 */
export async function openFeatureStorage({
  config,
  clock,
  sql,
  onClose,
}: FeatureStorageContext): Promise<FeatureStorage> {
  // The vulnerability catalogue lives beside the observation index: its association table/collection is what
  // the `cve:`/`kev:` selectors of the index compile to.
  let catalogueStore: CatalogueStore;
  let rawObservations: ObservationIndex;
  if (config.mongodbUrl) {
    const { MongoObservationIndex } =
      await import('../search/observation-index/mongodb-observation-index.js');
    const { MongoCatalogueStore } = await import('../catalogue/store/mongodb-catalogue-store.js');
    const mongoCatalogue = await MongoCatalogueStore.connect(config.mongodbUrl);
    onClose(() => mongoCatalogue.close());
    catalogueStore = mongoCatalogue;
    const mongoIndex = await MongoObservationIndex.connect(config.mongodbUrl, undefined, {
      selectors: mongoCatalogue.mongoSelectors,
      // The server stops a query the dataset deadline gave up on (the PostgreSQL adapter cancels it).
      maxTimeMS: config.searchDeadlineMs,
    });
    onClose(() => mongoIndex.close());
    rawObservations = mongoIndex;
  } else {
    const sqlCatalogue = new PostgresCatalogueStore(sql!);
    catalogueStore = sqlCatalogue;
    rawObservations = new PostgresObservationIndex(sql!, { selectors: sqlCatalogue.sqlSelectors });
  }
  let fingerprintStore: FingerprintStore;
  if (config.mongodbUrl) {
    const { MongoFingerprintStore } = await import('../fingerprints/store/mongodb-fingerprint-store.js');
    fingerprintStore = await MongoFingerprintStore.connect(config.mongodbUrl);
    onClose(() => fingerprintStore.close());
  } else fingerprintStore = new PostgresFingerprintStore(sql!);
  await fingerprintStore.init();
  const fingerprints = new FingerprintService(fingerprintStore, clock);
  await rawObservations.init();
  await catalogueStore.init();
  const catalogue = new CatalogueService(catalogueStore, clock);
  const observations: ObservationIndex = new AssociatedObservationIndex(rawObservations, catalogue);

  let files: ExportFileStore;
  let reportFiles: ExportFileStore;
  if (config.mongodbUrl) {
    const { GridFsFileStore } = await import('../exports/files/gridfs-file-store.js');
    files = await GridFsFileStore.connect(config.mongodbUrl);
    reportFiles = await GridFsFileStore.connect(config.mongodbUrl, undefined, 'report_files');
  } else {
    files = new DataDirFileStore(config.dataDir);
    reportFiles = new DataDirFileStore(config.dataDir, 'reports');
  }
  onClose(() => files.close());
  onClose(() => reportFiles.close());
  await files.init();
  await reportFiles.init();
  return { observations, catalogue, files, reportFiles, fingerprints };
}
