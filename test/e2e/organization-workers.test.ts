/**
 * The organization sweeper never stops on one item (issue 13, part 1; review finding): an organization whose
 * trial cannot be ended, or an interrupted creation that cannot be finished, is recorded (a failure record),
 * logged once, retried with backoff and shown by /health/ready while the others go on; a pass that cannot even
 * list its work fails loudly instead of being swallowed. Real organizations and streams on PGlite and the
 * PostgreSQL server; the failing item's own step is made to throw.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  RECOVERY_CHECK,
  type OrganizationWorkspace,
} from '../../src/organizations/commands/organization-workspace.js';
import { organizationDecider, organizationStreamId } from '../../src/organizations/domain/organization.js';
import { OrganizationSweeper } from '../../src/organizations/organization-sweeper.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import type { BackgroundCheck } from '../../src/platform/health/background-checks.js';
import type { WorkerLog } from '../../src/platform/scheduling/worker-failures.js';
import { SQL_KINDS } from '../support/databases.js';
import { TestDnsServer } from '../support/dns-server.js';
import { appendInterruptedCreation, OrganizationHarness, operator } from '../support/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const DAY = 24 * 60 * 60 * 1000;
const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 1 };

describe.each(SQL_KINDS)('organization sweeper: one failing item never stops the others (%s)', (kind) => {
  const clock = new ManualClock(new Date('2026-05-04T08:00:00.000Z'));
  let dns: TestDnsServer;
  let service: TestService;
  let h: OrganizationHarness;
  const logs: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  const log: WorkerLog = (level, message, fields) => logs.push({ level, message, fields: fields ?? {} });
  const loggedAbout = (item: string) => logs.filter((entry) => entry.fields.item === item);
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));

  /**
   * The checks with their items and errors, as the service holds them; the public /health/ready shows only whether a
   * worker fails, since when, how often and how many items (asserted once below).
   */
  const background = async (): Promise<Record<string, BackgroundCheck>> => service.context.background.all();
  const publicBackground = async (): Promise<Record<string, unknown>> =>
    (
      (await service.app.inject({ method: 'GET', url: '/health/ready' })).json() as {
        background: Record<string, unknown>;
      }
    ).background;
  const organization = async (organizationId: string) =>
    (await h.workspace.gate.organization(organizationId)).state;

  const interruptedCreation = (name: string) => appendInterruptedCreation(service.context, name);

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    service = await startTestService(kind, {
      clock,
      env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' },
    });
    await waitUntil(() => service.context.projections.allLive());
    h = new OrganizationHarness(service, dns);
  }, 120_000);

  afterAll(async () => {
    await service?.dispose();
    await dns?.close();
  });

  it('an organization whose trial cannot be ended never holds back the end of another trial; recorded, logged once, shown, and ended once it works', async () => {
    const failing = await h.trialOrganization();
    const healthy = await h.trialOrganization();
    clock.advance(14 * DAY + 60_000);
    const workspace = h.workspace;
    const operatorCommand = workspace.operator.bind(workspace);
    (workspace as { operator: OrganizationWorkspace['operator'] }).operator = async (
      organizationId,
      ...rest
    ) => {
      if (organizationId === failing.organizationId) {
        throw new Error('the organization stream refused the trial end');
      }
      return operatorCommand(organizationId, ...rest);
    };
    const sweeper = new OrganizationSweeper(service.context, workspace, { retry: FAST_RETRY, log });
    const item = `trial-end:${failing.organizationId}`;
    try {
      expect(await sweeper.sweepOnce()).toBe(1);
      expect(await organization(healthy.organizationId)).toMatchObject({
        status: 'awaiting_payment',
        trial: { ended: true },
      });
      expect(await organization(failing.organizationId)).toMatchObject({
        status: 'active',
        trial: { ended: false },
      });
      for (let pass = 0; pass < 2; pass++) {
        await pause();
        expect(await sweeper.sweepOnce()).toBe(0);
      }
      expect((await background())['organization-sweeper']).toMatchObject({
        ok: false,
        consecutive_failures: 3,
        last_error: 'the organization stream refused the trial end',
        failing_items: [
          expect.objectContaining({ id: item, last_error: 'the organization stream refused the trial end' }),
        ],
      });
      // The public readiness answer says that it fails, never which organization nor why.
      expect((await publicBackground())['organization-sweeper']).toEqual({
        ok: false,
        consecutive_failures: 3,
        failing_since: expect.any(String),
        failing_item_count: 1,
      });
      expect(loggedAbout(item)).toHaveLength(1);
    } finally {
      (workspace as { operator: OrganizationWorkspace['operator'] }).operator = operatorCommand;
    }

    // Working again: its trial ends on the next try, the record is dropped and the sweeper is healthy.
    await pause();
    expect(await sweeper.sweepOnce()).toBe(1);
    expect(await organization(failing.organizationId)).toMatchObject({ status: 'awaiting_payment' });
    expect((await background())['organization-sweeper']).toEqual({ ok: true });
    expect(loggedAbout(item).map((entry) => entry.message)).toEqual([
      `organization-sweeper: ${item} failed; retried with backoff`,
      `organization-sweeper: ${item} succeeded again`,
    ]);
  }, 120_000);

  it('an interrupted creation that cannot be finished never holds back another; a pass that cannot list them fails loudly, never swallowed', async () => {
    const sweeper = new OrganizationSweeper(service.context, h.workspace, { retry: FAST_RETRY, log });
    // Start-up recovery failed earlier: the sweeper retries every interrupted creation.
    service.context.background.fail(RECOVERY_CHECK, 'start-up recovery failed', clock.now());
    const healthy = await interruptedCreation('Resumed Co');
    // A name the organization decider refuses: finishing this intent fails every time.
    const broken = await interruptedCreation('');
    const item = `creation:${broken.accountId}`;

    expect(await sweeper.sweepOnce()).toBe(1);
    expect(
      (
        await service.context.repository.load(
          organizationStreamId(healthy.organizationId),
          organizationDecider,
        )
      ).state,
    ).toMatchObject({ exists: true, name: 'Resumed Co', transition: { completed: true } });
    for (let pass = 0; pass < 2; pass++) {
      await pause();
      expect(await sweeper.sweepOnce()).toBe(0);
    }
    const failing = await background();
    expect(failing['organization-sweeper']).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      failing_items: [expect.objectContaining({ id: item })],
    });
    expect(failing[RECOVERY_CHECK]).toMatchObject({ ok: false });
    expect(failing[RECOVERY_CHECK]!.detail).toContain(`(owner accounts ${broken.accountId})`);
    expect(loggedAbout(item)).toHaveLength(1);

    // An operator abandons the broken intent: the next pass clears both the record and the recovery check.
    const { position } = await service.context.storage.eventStore.append(
      broken.stream,
      [
        {
          id: randomUUID(),
          type: 'OrganizationCreationAbandoned',
          schemaVersion: 1,
          data: { organizationId: broken.organizationId },
          metadata: operator().metadata,
        },
      ],
      { expectedVersion: 0 },
    );
    await service.context.readYourWrites(['organizations'], position);
    await pause();
    expect(await sweeper.sweepOnce()).toBe(0);
    const cleared = await background();
    expect(cleared[RECOVERY_CHECK]).toEqual({ ok: true });
    expect(cleared['organization-sweeper']).toEqual({ ok: true });

    // Recovery fails again, and now even listing the creations fails: each pass fails, logged once per streak.
    service.context.background.fail(RECOVERY_CHECK, 'start-up recovery failed', clock.now());
    const workspace = h.workspace;
    const list = workspace.interruptedCreations.bind(workspace);
    workspace.interruptedCreations = () => Promise.reject(new Error('the creations cannot be listed'));
    const before = logs.length;
    try {
      for (let pass = 0; pass < 3; pass++) {
        await expect(sweeper.sweepOnce()).rejects.toThrow('the creations cannot be listed');
      }
    } finally {
      workspace.interruptedCreations = list;
    }
    expect((await background())['organization-sweeper']).toMatchObject({
      ok: false,
      consecutive_failures: 3,
      last_error: 'the creations cannot be listed',
      detail: 'organization-sweeper failed 3 times in a row; it keeps trying',
    });
    expect(logs.slice(before).filter((entry) => entry.level === 'error')).toEqual([
      expect.objectContaining({ message: 'organization-sweeper failed; it keeps trying' }),
    ]);
    expect(await sweeper.sweepOnce()).toBe(0);
    expect((await background())['organization-sweeper']).toEqual({ ok: true });
    expect((await background())[RECOVERY_CHECK]).toEqual({ ok: true });
  }, 120_000);
});
