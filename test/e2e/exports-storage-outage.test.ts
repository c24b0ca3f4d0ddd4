/**
 * A storage outage is not a failure of the exports that were waiting (issue 13, part 1 review): while the database
 * cannot be written or reached, the export pool backs off and shows as failing, but no pending export is parked
 * for it. Once storage answers again, every one completes, charged once. Parking is for an item's own failures
 * (see exports-poison.test.ts). On the PostgreSQL server, where an operator can take the database away.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { ExportJobs } from '../../src/exports/commands/export-jobs.js';
import {
  ExportWorkerPool,
  exportPoolPorts,
  type ExportWorkerPoolOptions,
} from '../../src/exports/export-worker-pool.js';
import { PostgresDatabase } from '../../src/platform/database/postgres-database.js';
import type { ObservationRecord } from '../../src/search/observation-index/observation-index.port.js';
import { PostgresObservationIndex } from '../../src/search/observation-index/postgres-observation-index.js';
import {
  WORKER_FAILURES_COLLECTION,
  type WorkerFailureDocument,
} from '../../src/platform/scheduling/worker-failures.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { TEST_DATABASE_URL } from '../support/databases.js';
import { exportsCall, isSettled, registerAccount, type Account } from '../support/exports.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const HOSTS = 30;
/** Parked after 3 failures in a row: 50 + 100 + 200 ms of failures is the whole parking budget. */
const RETRY = { baseDelayMs: 50, maxDelayMs: 200, parkAfter: 3, unhealthyAfter: 3 };
const EXPORTS_PER_ACCOUNT = 2;

describe('exports: a storage outage longer than the parking budget fails no pending export (PostgreSQL server)', () => {
  let service: TestService;
  let jobs: ExportJobs;
  let ledger: CreditLedger;
  let accounts: Account[];
  let database: string;
  let pool: ExportWorkerPool | undefined;

  beforeAll(async () => {
    service = await startTestService('postgres', { env: { EXPORT_WORKERS: '0' } });
    await writeGenerated(service.context.observations, 'hosts', {
      count: HOSTS,
      seed: 'outage',
      now: new Date(),
    });
    jobs = service.app.get(ExportJobs);
    ledger = service.app.get(CreditLedger);
    accounts = [
      await registerAccount(service.app, 'outage-a'),
      await registerAccount(service.app, 'outage-b'),
    ];
    database = new URL(service.database!.url!).pathname.slice(1);
  }, 60_000);
  afterEach(async () => {
    await pool?.stop();
    pool = undefined;
  });
  afterAll(async () => {
    await service?.dispose();
  });

  function newPool(options: Partial<ExportWorkerPoolOptions> = {}): ExportWorkerPool {
    return new ExportWorkerPool(exportPoolPorts(service.app), {
      ...options,
      concurrency: 2,
      leaseMs: 3_000,
      retentionMs: 3_600_000,
      pollIntervalMs: 20,
      retry: RETRY,
      log: () => undefined,
    });
  }

  /** Pending exports of every account (the pool is not running yet), and each payer's credits before them. */
  async function pendingExports(): Promise<{ ids: string[]; before: Map<string, number> }> {
    const before = new Map<string, number>();
    const ids: string[] = [];
    for (const account of accounts) {
      before.set(account.payer, await ledger.available(account.payer));
      for (let i = 0; i < EXPORTS_PER_ACCOUNT; i++) {
        const created = await exportsCall(service.app, account.key, 'POST', '/hosts', {
          raw_query: 'port:>0',
          format: 'csv',
        });
        expect(created.statusCode).toBe(202);
        ids.push((created.json() as { export_id: string }).export_id);
      }
    }
    return { ids, before };
  }

  const failureRecords = () =>
    service.context.storage.readStore
      .collection<WorkerFailureDocument>(WORKER_FAILURES_COLLECTION)
      .find({ worker: 'export-pool' });

  /** Every export completed, each payer charged once per export (30 rows: 1 credit), nothing left reserved. */
  async function expectAllCompleted(ids: string[], before: Map<string, number>): Promise<void> {
    await waitUntil(
      async () =>
        (await Promise.all(ids.map(async (id) => isSettled((await jobs.load(id)).state)))).every(Boolean),
      30_000,
    );
    for (const id of ids) {
      const { state } = await jobs.load(id);
      expect({ id, status: state.status, failureReason: state.failureReason }).toEqual({
        id,
        status: 'completed',
        failureReason: null,
      });
    }
    for (const account of accounts) {
      expect((before.get(account.payer) ?? 0) - (await ledger.available(account.payer))).toBe(
        EXPORTS_PER_ACCOUNT,
      );
      expect(Object.keys((await ledger.state(account.payer)).openReservations)).toEqual([]);
    }
  }

  it('the database refuses every write (a full disk) while reads go on: the pool backs off and shows as failing, and once writes are taken again every pending export completes, none failed', async () => {
    const { ids, before } = await pendingExports();
    const admin = new pg.Client({ connectionString: service.database!.url! });
    await admin.connect();
    // What PostgreSQL answers when its disk is full (SQLSTATE 53100), for every append to the event log: the
    // pool still sees the pending jobs (reads work), and each try fails at its first write (the reservation).
    await admin.query(`
      CREATE FUNCTION refuse_writes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full';
      END $$`);
    await admin.query(
      'CREATE TRIGGER disk_full BEFORE INSERT ON es_events FOR EACH STATEMENT EXECUTE FUNCTION refuse_writes()',
    );
    try {
      pool = newPool();
      pool.start();
      // Every job tried well past the parking budget, each try failing with the full disk.
      await waitUntil(async () => {
        const records = await failureRecords();
        return ids.every(
          (id) => (records.find((record) => record.item === id)?.attempts ?? 0) >= RETRY.parkAfter + 2,
        );
      }, 20_000);
      expect(service.context.background.get('export-pool')).toMatchObject({ ok: false });
      for (const id of ids) expect((await jobs.load(id)).state.status).toBe('pending');
    } finally {
      await admin.query('DROP TRIGGER IF EXISTS disk_full ON es_events');
      await admin.query('DROP FUNCTION IF EXISTS refuse_writes()');
      await admin.end();
    }
    await expectAllCompleted(ids, before);
    await waitUntil(async () => service.context.background.get('export-pool')?.ok === true, 5_000);
    expect(await failureRecords()).toEqual([]);
  }, 60_000);

  it('the database refuses connections for longer than the parking budget: once it takes them again, every pending export completes, none failed', async () => {
    const { ids, before } = await pendingExports();
    pool = newPool();
    // From the cluster's own database: a session cannot close the database it is connected to.
    const cluster = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await cluster.connect();
    try {
      await cluster.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      await cluster.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      pool.start();
      // Longer than the parking budget: the pool's looks fail three times as often as an item may before it is
      // parked, and it says so.
      await waitUntil(
        async () =>
          (service.context.background.get('export-pool')?.consecutive_failures ?? 0) >= 3 * RETRY.parkAfter,
        20_000,
      );
    } finally {
      await cluster.query(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      await cluster.end();
    }
    await expectAllCompleted(ids, before);
  }, 60_000);

  it('the index database goes away in the middle of a file: that attempt is lost, not failed, and the next one completes, charged once', async () => {
    const { ids, before } = await pendingExports();
    let streams = 0;
    // The first attempt's first batch comes from the index; its next batches from where the index's database has
    // gone (a database that does not exist: the server answers 3D000, as when it was dropped or moved), as a
    // dropped index connection would. Later attempts read through the index as usual.
    const gone = new URL(service.database!.url!);
    gone.pathname = `/${database}_gone`;
    const index: ExportWorkerPoolOptions['index'] = {
      async *stream(dataset, query, batchSize, signal) {
        const observations = service.context.observations;
        if (++streams > 1) {
          yield* observations.stream(dataset, query, batchSize, signal);
          return;
        }
        let first: ObservationRecord[] | undefined;
        for await (const batch of observations.stream(dataset, query, batchSize, signal)) {
          first = batch;
          break;
        }
        yield first!;
        const elsewhere = PostgresDatabase.fromUrl(gone.toString(), 1);
        try {
          yield* new PostgresObservationIndex(elsewhere).stream(dataset, query, batchSize, signal);
        } finally {
          await elsewhere.close();
        }
      },
    };
    pool = newPool({ index, batchSize: 10 });
    pool.start();
    await expectAllCompleted(ids, before);
    expect(streams).toBeGreaterThan(ids.length);
    const attempts = await Promise.all(ids.map(async (id) => (await jobs.load(id)).state.attempt));
    expect(attempts.filter((attempt) => attempt === 2)).toHaveLength(1);
  }, 60_000);
});
