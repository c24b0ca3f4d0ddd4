/**
 * The exposure background workers never stop on one item (issue 13, part 1): the refresh pool, the scope erasure
 * sweeper, the watch scheduler and notification delivery each go on with the other items while one keeps
 * throwing; that one is recorded (a failure record), logged once and shown by /health/ready. Real organizations,
 * scopes and streams; the failing item's own step is made to throw.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { exposureRuns } from '../../src/exposure/commands/exposure-write.js';
import { SetMonitoringHandler } from '../../src/exposure/commands/monitoring.handlers.js';
import { CancelScopeRefreshesHandler } from '../../src/exposure/commands/refresh.handlers.js';
import { EnableExposition } from '../../src/exposure/commands/scope-lifecycle.commands.js';
import { EXPOSURE_WORKER_PORTS, type ExposureWorkerPorts } from '../../src/exposure/exposure-ports.js';
import { deliveryDecider, deliveryStreamId } from '../../src/exposure/domain/notification-delivery.js';
import { ExposureMonitor } from '../../src/exposure/exposure-monitor.js';
import { RefreshWorkerPool } from '../../src/exposure/refresh-worker-pool.js';
import { ScopeErasureSweeper } from '../../src/exposure/scope-erasure-sweeper.js';
import { spaceStreamId } from '../../src/organizations/domain/space.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { BackgroundCheck } from '../../src/platform/health/background-checks.js';
import type { WorkerLog } from '../../src/platform/scheduling/worker-failures.js';
import { SQL_KINDS } from '../support/databases.js';
import { TestDnsServer } from '../support/dns-server.js';
import { host } from '../support/host-observations.js';
import { OrganizationHarness, operator, type Actor } from '../support/organizations.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const DOMAIN = 'workers-exposure.example';
const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 1 };

describe.each(SQL_KINDS)('exposure workers: one failing item never stops the others (%s)', (kind) => {
  const clock = new ManualClock(new Date('2026-11-20T10:00:00.000Z'));
  let dns: TestDnsServer;
  let service: TestService;
  let h: OrganizationHarness;
  let organizationId: string;
  let owner: Actor;
  const logs: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  const log: WorkerLog = (level, message, fields) => logs.push({ level, message, fields: fields ?? {} });
  const loggedAbout = (item: string) => logs.filter((entry) => entry.fields.item === item);

  const org = (rest = '') => `/api/v2/organizations/${organizationId}${rest}`;
  /**
   * The worker's check with its items and errors, as the service holds it; the public /health/ready shows only
   * whether it fails, since when, how often and how many items (see exports-poison.test.ts).
   */
  /** The service's ports, for workers the test builds with its own retry policy and log. */
  const ports = () => service.app.get<ExposureWorkerPorts>(EXPOSURE_WORKER_PORTS);
  const health = async (worker: string): Promise<BackgroundCheck | undefined> =>
    service.context.background.get(worker);
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

  async function createScope(name: string): Promise<string> {
    const scope = await h.ok(owner, 'POST', org('/exposure/scopes'), {
      name,
      domain: DOMAIN,
      timezone: 'Europe/Paris',
      monitoring: false,
    });
    return scope.id as string;
  }

  async function changeState(scopeId: string, method: 'PATCH' | 'DELETE', body: Record<string, unknown>) {
    const scope = await h.ok(owner, 'GET', org(`/clients/${scopeId}`));
    await h.ok(owner, method, org(`/clients/${scopeId}`), body, { 'if-match': scope.version as string });
  }

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    service = await startTestService(kind, {
      clock,
      env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' },
    });
    await waitUntil(() => service.context.projections.allLive());
    await service.context.observations.write('hosts', [
      host('203.0.113.40', 443, { hostnames: [`www.${DOMAIN}`] }),
      host('203.0.113.41', 22, { hostnames: [`ssh.${DOMAIN}`] }),
    ]);
    h = new OrganizationHarness(service, dns);
    const created = await h.trialOrganization();
    organizationId = created.organizationId;
    owner = created.owner;
    await service.app.get(CommandBus).execute(new EnableExposition(organizationId, 'capacity', operator()));
  }, 120_000);
  afterAll(async () => {
    await service?.dispose();
    await dns?.close();
  });

  it('refresh pool: a scope whose work cannot be stopped never holds back the refresh of another; recorded, logged once, shown', async () => {
    const runs = exposureRuns(service.context.projections);
    const cancelling = service.app.get(CancelScopeRefreshesHandler);
    const appPool = service.app.get(RefreshWorkerPool);
    await appPool.stop();
    const stuck = await createScope('Stuck scope');
    await changeState(stuck, 'PATCH', { state: 'archived' });
    clock.advance(1000);
    const healthy = await createScope('Healthy scope');
    // Stopping the archived scope's queued refresh keeps failing; it was requested first.
    const cancel = cancelling.execute.bind(cancelling);
    cancelling.execute = async (command) => {
      if (command.scopeId === stuck) throw new Error('the run stream refused the cancellation');
      return cancel(command);
    };
    const pool = new RefreshWorkerPool(
      ports(),
      {
        observations: service.context.observations,
        catalogue: service.context.catalogue,
      },
      {
        concurrency: 1,
        leaseMs: 30_000,
        pollIntervalMs: 20,
        retry: { baseDelayMs: 20, maxDelayMs: 40 },
        log,
      },
    );
    pool.start();
    try {
      await waitUntil(
        async () => (await runs.find({ scopeId: healthy, status: 'completed' })).length > 0,
        20_000,
      );
      await waitUntil(async () => (await health('refresh-pool'))?.ok === false, 10_000);
      expect(await health('refresh-pool')).toMatchObject({
        ok: false,
        last_error: 'the run stream refused the cancellation',
        failing_items: [expect.objectContaining({ id: `stop:${stuck}` })],
      });
      expect(loggedAbout(`stop:${stuck}`)).toHaveLength(1);
      // Once it can be stopped, it is, and the pool is healthy again.
      cancelling.execute = cancel;
      await waitUntil(
        async () => (await runs.find({ scopeId: stuck, status: 'cancelled' })).length > 0,
        10_000,
      );
      await waitUntil(async () => (await health('refresh-pool'))?.ok === true, 10_000);
    } finally {
      cancelling.execute = cancel;
      await pool.stop();
      appPool.start();
    }
  }, 60_000);

  it('watch scheduler: a scope whose watch cannot be requested never holds back the others; recorded, logged once, shown', async () => {
    // The service's own monitor stays out of it: this test runs its own.
    service.app.get(SetMonitoringHandler).onMonitoringChanged = () => undefined;
    const broken = await createScope('Broken watch');
    const watched = await createScope('Watched');
    for (const scopeId of [broken, watched])
      await h.ok(owner, 'PUT', org(`/clients/${scopeId}/exposure/monitoring`), { enabled: true });
    const monitor = new ExposureMonitor(ports(), undefined, log, FAST_RETRY);
    const steps = monitor as unknown as { requestWatch: (scope: { id: string }) => Promise<boolean> };
    const request = steps.requestWatch.bind(monitor);
    steps.requestWatch = async (scope) => {
      if (scope.id === broken) throw new Error('the space stream cannot be read');
      return request(scope);
    };
    expect(await monitor.scheduleWatches()).toBeGreaterThanOrEqual(1);
    await waitForProjections(service, ['exposure-scopes']);
    const watchRuns = await exposureRuns(service.context.projections).find({
      scopeId: watched,
      trigger: 'watch',
    });
    expect(watchRuns).toHaveLength(1);
    for (let pass = 0; pass < 2; pass++) {
      await pause();
      await monitor.scheduleWatches();
    }
    expect(await health('watch-scheduler')).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      last_error: 'the space stream cannot be read',
      failing_items: [expect.objectContaining({ id: `schedule:${broken}`, consecutive_failures: 3 })],
    });
    expect(loggedAbout(`schedule:${broken}`)).toHaveLength(1);
  }, 60_000);

  it('notification delivery: a delivery that keeps failing never holds back another; recorded, logged once, shown', async () => {
    const scopeId = await createScope('Archived with deliveries');
    await changeState(scopeId, 'PATCH', { state: 'archived' });
    const queue = async (runId: string) =>
      service.context.repository.handle(
        deliveryStreamId(scopeId, runId),
        deliveryDecider,
        {
          type: 'QueueNotification',
          scopeId,
          organizationId,
          runId,
          scheduleId: 'schedule-1',
          recipients: [owner.accountId],
          language: 'en',
          findings: { newServices: 1, newServicesListed: [], newKev: 0, newKevListed: [], notObserved: 0 },
          observedAt: clock.now().toISOString(),
        },
        { now: clock.now() },
        commandEnvelope({ actor: 'system:exposure-monitor', payer: `organization:${organizationId}` }),
      );
    await queue('run-stuck');
    await queue('run-cancelled');
    await waitForProjections(service, ['exposure-monitoring']);
    const deliveries = service.context.projections.collection<{ id: string; runId: string; status: string }>(
      'exposure-monitoring',
      'exposure_deliveries',
    );
    const stuck = (await deliveries.find({ scopeId, runId: 'run-stuck' }))[0]!.id;
    const monitor = new ExposureMonitor(ports(), undefined, log, FAST_RETRY);
    const steps = monitor as unknown as { deliverOne: (delivery: { id: string }) => Promise<number> };
    const deliverOne = steps.deliverOne.bind(monitor);
    steps.deliverOne = async (delivery) => {
      if (delivery.id === stuck) throw new Error('the organization stream cannot be read');
      return deliverOne(delivery);
    };
    for (let pass = 0; pass < 3; pass++) {
      await pause();
      await monitor.deliver();
    }
    // The archived scope's other delivery was cancelled.
    await waitForProjections(service, ['exposure-monitoring']);
    expect((await deliveries.find({ scopeId, runId: 'run-cancelled' }))[0]).toMatchObject({
      status: 'cancelled',
    });
    expect(await health('notification-delivery')).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      last_error: 'the organization stream cannot be read',
      failing_items: [expect.objectContaining({ id: stuck })],
    });
    expect(loggedAbout(stuck)).toHaveLength(1);
  }, 60_000);

  it('scope erasure sweeper: a scope whose erasure keeps failing never holds back the erasure of another; recorded, logged once, shown', async () => {
    const failing = await createScope('Erasure fails');
    const erased = await createScope('Erasure works');
    await changeState(failing, 'DELETE', { name: 'Erasure fails' });
    await changeState(erased, 'DELETE', { name: 'Erasure works' });
    clock.advance(8 * 24 * 60 * 60 * 1000);
    await waitForProjections(service, ['exposure-scopes']);
    const sweeper = new ScopeErasureSweeper(ports(), { retry: FAST_RETRY, log });
    const erase = sweeper.erase.bind(sweeper);
    sweeper.erase = async (scope) => {
      if (scope.id === failing) throw new Error('the event store refused to delete a stream');
      return erase(scope);
    };
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(await service.context.storage.eventStore.readStream(spaceStreamId(erased))).toEqual([]);
    expect(
      (await service.context.storage.eventStore.readStream(spaceStreamId(failing))).length,
    ).toBeGreaterThan(0);
    for (let pass = 0; pass < 2; pass++) {
      await pause();
      await sweeper.sweepOnce();
    }
    expect(await health('scope-erasure-sweeper')).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      failing_items: [
        expect.objectContaining({ id: failing, last_error: 'the event store refused to delete a stream' }),
      ],
    });
    expect(loggedAbout(failing)).toHaveLength(1);
  }, 60_000);
});
