/**
 * One export that keeps failing never stops the pool (issue 13, part 1): healthy jobs of the same and other
 * accounts complete; the failing one waits with backoff, is recorded (a failure record, then ExportFailed on its
 * stream with a fixed reason, the cause in the log), logged once, and /health/ready shows the pool failing while
 * it fails. A charge that cannot reach the ledger is retried, never dropped, and never holds the other jobs back.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { ExportJobs } from '../../src/exports/commands/export-jobs.js';
import { ExportFileSweeper, exportSweeperPorts } from '../../src/exports/export-file-sweeper.js';
import { ExportWorkerPool, exportPoolPorts, GIVEN_UP_REASON } from '../../src/exports/export-worker-pool.js';
import { workerStatus } from '../../src/platform/cli/worker.commands.js';
import type { PublicBackgroundCheck } from '../../src/platform/health/background-checks.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import {
  WORKER_FAILURES_COLLECTION,
  type WorkerFailureDocument,
} from '../../src/platform/scheduling/worker-failures.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { SQL_KINDS } from '../support/databases.js';
import { exportsCall, isSettled, registerAccount, type Account } from '../support/exports.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const HOSTS = 30;
const RETRY = { baseDelayMs: 150, maxDelayMs: 600, parkAfter: 5, unhealthyAfter: 3 };

describe.each(SQL_KINDS)('exports: a poisoned job never blocks the others (%s)', (kind) => {
  let service: TestService;
  let jobs: ExportJobs;
  let a: Account;
  let b: Account;
  const logs: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];

  beforeAll(async () => {
    service = await startTestService(kind, { env: { EXPORT_WORKERS: '0' } });
    await writeGenerated(service.context.observations, 'hosts', {
      count: HOSTS,
      seed: 'poison',
      now: new Date(),
    });
    jobs = service.app.get(ExportJobs);
    a = await registerAccount(service.app, 'poison-a');
    b = await registerAccount(service.app, 'poison-b');
  }, 60_000);
  afterAll(async () => {
    await service?.dispose();
  });

  function newPool() {
    return new ExportWorkerPool(exportPoolPorts(service.app), {
      concurrency: 1,
      leaseMs: 3_000,
      retentionMs: 3_600_000,
      pollIntervalMs: 20,
      retry: RETRY,
      log: (level, message, fields) => logs.push({ level, message, fields: fields ?? {} }),
    });
  }

  async function request(account: Account): Promise<string> {
    const created = await exportsCall(service.app, account.key, 'POST', '/hosts', {
      raw_query: 'port:>0',
      format: 'csv',
    });
    expect(created.statusCode).toBe(202);
    return (created.json() as { export_id: string }).export_id;
  }

  /** An export of an account that no longer exists: every attempt to run it throws ("No such account"). */
  async function orphanExport(): Promise<{ id: string; payer: string }> {
    const id = randomUUID();
    const owner = randomUUID();
    await jobs.run(
      id,
      {
        type: 'RequestExport',
        exportId: id,
        ownerAccountId: owner,
        payer: `account:${owner}`,
        searchType: 'hosts',
        rawQuery: 'port:>0',
        timeFrame: 'all_time',
        since: null,
        broad: false,
        format: 'csv',
        estimatedCount: HOSTS,
      },
      commandEnvelope({ actor: 'operator:test', payer: 'system' }),
    );
    return { id, payer: `account:${owner}` };
  }

  /** The export pool as the public /health/ready shows it, and the whole answer as sent. */
  async function poolHealth(): Promise<{ check: PublicBackgroundCheck; body: string }> {
    const ready = await service.app.inject({ method: 'GET', url: '/health/ready' });
    const body = ready.json() as { background: Record<string, PublicBackgroundCheck> };
    return { check: body.background['export-pool']!, body: ready.body };
  }

  const failureRecords = () =>
    service.context.storage.readStore
      .collection<WorkerFailureDocument>(WORKER_FAILURES_COLLECTION)
      .find({ worker: 'export-pool' });

  it('healthy jobs of the same and other accounts complete; the poisoned ones are failed with the reason, logged once, shown by /health/ready while they fail', async () => {
    // Oldest first, so a pool that retried the oldest pending job would never reach the healthy ones.
    const orphan = await orphanExport();
    const poisoned = await request(a);
    const healthyA = await request(a);
    const healthyB = await request(b);
    const before = await service.app.get(CreditLedger).available(a.payer);
    // A's first export throws wherever the pool runs it (as a query the index keeps refusing would).
    const quota = jobs.quota.bind(jobs);
    (jobs as { quota: ExportJobs['quota'] }).quota = async (accountId, plan, excludeId) => {
      if (excludeId === poisoned) throw new Error('the index refused this query');
      return quota(accountId, plan, excludeId);
    };
    const pool = newPool();
    pool.start();
    try {
      await waitUntil(
        async () =>
          isSettled((await jobs.load(healthyA)).state) && isSettled((await jobs.load(healthyB)).state),
        20_000,
      );
      expect((await jobs.load(healthyA)).state.status).toBe('completed');
      expect((await jobs.load(healthyB)).state.status).toBe('completed');

      // While they keep failing, the public /health/ready shows the pool failing, how often, since when and how
      // many items, never which or why: operators read those with `workers status`.
      let seen: { check: PublicBackgroundCheck; body: string } | undefined;
      await waitUntil(async () => {
        const health = await poolHealth();
        if (!health.check.ok && (health.check.consecutive_failures ?? 0) >= 3) seen = health;
        return seen !== undefined;
      }, 10_000);
      expect(seen!.check).toEqual({
        ok: false,
        consecutive_failures: expect.any(Number),
        failing_since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        failing_item_count: expect.any(Number),
      });
      expect(seen!.check.consecutive_failures).toBeGreaterThanOrEqual(3);
      for (const internal of [orphan.id, poisoned, 'No such account', 'the index refused'])
        expect(seen!.body).not.toContain(internal);
      const operatorView = (await workerStatus(service.context.storage.readStore)).find(
        (row) => row.worker === 'export-pool',
      );
      expect(operatorView?.failing_items).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ item: orphan.id, last_error: expect.stringMatching(/No such account/) }),
          expect.objectContaining({ item: poisoned, last_error: 'the index refused this query' }),
        ]),
      );
      expect((await failureRecords()).map((record) => record.item)).toEqual(
        expect.arrayContaining([orphan.id, poisoned]),
      );

      // Parked after parkAfter failures: failed on its stream with the reason, nothing charged.
      await waitUntil(
        async () =>
          isSettled((await jobs.load(orphan.id)).state) && isSettled((await jobs.load(poisoned)).state),
        20_000,
      );
      // The customer reads a fixed reason (it stays in the event log): never the internal error.
      expect((await jobs.load(orphan.id)).state).toMatchObject({
        status: 'failed',
        attempt: 0,
        creditsConsumed: 0,
        failureReason: GIVEN_UP_REASON,
      });
      expect((await jobs.load(poisoned)).state).toMatchObject({
        status: 'failed',
        creditsConsumed: 0,
        failureReason: GIVEN_UP_REASON,
      });
      await waitForProjections(service, ['exports']);
      expect((await exportsCall(service.app, a.key, 'GET', `/${poisoned}/poll`)).json()).toMatchObject({
        status: 'failed',
        credits_consumed: 0,
        failure_reason: GIVEN_UP_REASON,
      });
      // A paid for its healthy export only.
      expect(before - (await service.app.get(CreditLedger).available(a.payer))).toBe(1);
      expect(Object.keys((await service.app.get(CreditLedger).state(a.payer)).openReservations)).toEqual([]);

      // Logged once each when it first failed, once when it was parked: not at every look.
      // The cause goes to the log, with the export id.
      for (const [id, cause] of [
        [orphan.id, /No such account/],
        [poisoned, /the index refused this query/],
      ] as const) {
        const about = logs.filter((entry) => entry.fields.item === id);
        expect(about.map((entry) => entry.level)).toEqual(['warn', 'error']);
        expect(about[1]!.fields.err).toMatch(cause);
      }
      expect(logs.filter((entry) => entry.level === 'error' && entry.fields.item === undefined)).toEqual([]);
      // Nothing fails any more: health is ok again and the failure records are gone.
      await waitUntil(async () => (await poolHealth()).check.ok === true, 5_000);
      expect(await failureRecords()).toEqual([]);
    } finally {
      await pool.stop();
      (jobs as { quota: ExportJobs['quota'] }).quota = quota;
    }
  }, 60_000);

  it('the file sweeper goes on past a file it cannot delete: other orphaned files and abandoned uploads are removed; the failure is recorded, logged once, shown by /health/ready', async () => {
    const dir = join(service.dataDir, 'exports');
    // Files of cancelled jobs (a cancel that crashed before its worker removed them)...
    const cancelledJobFile = async () => {
      const { id } = await orphanExport();
      await jobs.run(
        id,
        { type: 'CancelOrDeleteExport' },
        commandEnvelope({ actor: 'operator:test', payer: 'system' }),
      );
      return `${id}-1`;
    };
    const orphans = [await cancelledJobFile(), await cancelledJobFile(), await cancelledJobFile()];
    for (const key of orphans) writeFileSync(join(dir, `${key}.gz`), 'orphan');
    // ...and one that cannot be deleted, every time (a directory where its file would be).
    const stuck = await cancelledJobFile();
    mkdirSync(join(dir, `${stuck}.gz`));
    const committed = await service.context.storage.eventStore.lastCommittedPosition();
    await service.context.readYourWrites(['exports'], committed);
    const abandoned = join(dir, `${randomUUID()}-1.gz.pending-1`);
    writeFileSync(abandoned, 'half written');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(abandoned, old, old);
    const sweeperLogs: Array<{ level: string; fields: Record<string, unknown> }> = [];
    const sweeper = new ExportFileSweeper(exportSweeperPorts(service.app), {
      retry: { baseDelayMs: 1, maxDelayMs: 1 },
      log: (level, _message, fields) => sweeperLogs.push({ level, fields: fields ?? {} }),
    });
    expect(await sweeper.sweepOnce()).toBe(orphans.length);
    expect((await service.context.files.list()).filter((key) => orphans.includes(key))).toEqual([]);
    expect(existsSync(abandoned)).toBe(false);
    for (let pass = 0; pass < 2; pass++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await sweeper.sweepOnce();
    }
    expect(service.context.background.get('export-file-sweeper')).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      failing_items: [expect.objectContaining({ id: `file:${stuck}`, consecutive_failures: 3 })],
    });
    expect(sweeperLogs.filter((entry) => entry.fields.item === `file:${stuck}`)).toHaveLength(1);
    rmSync(join(dir, `${stuck}.gz`), { recursive: true });
  }, 60_000);

  it('a charge that cannot reach the ledger (a job deleted meanwhile) is retried with backoff, never dropped, and never holds back the pool', async () => {
    // The incident's shape: Started -> Cancelled -> Deleted with the charge still pending, here with a payer
    // whose ledger cannot be written (its account is gone), so the charge keeps failing.
    const orphan = await orphanExport();
    const envelope = jobs.systemEnvelope(orphan.payer, orphan.id);
    await jobs.run(
      orphan.id,
      {
        type: 'StartExport',
        workerId: 'a-worker-that-died',
        reservationId: randomUUID(),
        reservedCredits: 1,
        rowLimit: 100,
        matching: HOSTS,
        truncationCause: null,
        fileKey: `${orphan.id}-1`,
        leaseMs: 60_000,
      },
      envelope,
    );
    await jobs.run(orphan.id, { type: 'CancelOrDeleteExport' }, envelope);
    await jobs.run(orphan.id, { type: 'CancelOrDeleteExport' }, envelope);
    expect((await jobs.load(orphan.id)).state).toMatchObject({ status: 'deleted', chargePending: true });
    const healthy = await request(b);
    const pool = newPool();
    pool.start();
    try {
      await waitUntil(async () => isSettled((await jobs.load(healthy)).state), 20_000);
      expect((await jobs.load(healthy)).state.status).toBe('completed');
      // Still retried past parkAfter: a charge is never given up.
      await waitUntil(async () => {
        const record = (await failureRecords()).find((r) => r.item === `charge:${orphan.id}`);
        return (record?.attempts ?? 0) > RETRY.parkAfter;
      }, 20_000);
      expect((await jobs.load(orphan.id)).state.chargePending).toBe(true);
      expect((await poolHealth()).check).toMatchObject({ ok: false, failing_item_count: 1 });
      const operatorView = (await workerStatus(service.context.storage.readStore)).find(
        (row) => row.worker === 'export-pool',
      );
      expect(operatorView?.failing_items[0]).toMatchObject({
        item: `charge:${orphan.id}`,
        last_error: expect.stringMatching(/no account/),
      });
      expect(logs.filter((entry) => entry.fields.item === `charge:${orphan.id}`)).toHaveLength(1);
      // New jobs still run while it fails.
      const another = await request(a);
      await waitUntil(async () => isSettled((await jobs.load(another)).state), 20_000);
      expect((await jobs.load(another)).state.status).toBe('completed');
    } finally {
      await pool.stop();
    }
  }, 60_000);
});
