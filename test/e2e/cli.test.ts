import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openSqlDatabase } from '../../src/platform/database/open-sql-database.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import { physicalCollectionName } from '../../src/platform/projections/projection-definition.js';
import { PostgresReadStore } from '../../src/platform/read-store/postgres/postgres-read-store.js';
import { WorkerFailures } from '../../src/platform/scheduling/worker-failures.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { runCli, runCliPiped, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { newEvents, testMetadata, waitUntil } from '../support/storage.js';
import { freshDataDir } from '../support/pglite-template.js';

/** Appends `streams` × `perStream` attributed events through whatever process owns DATA_DIR (or owning it). */
async function appendThroughDataDir(
  dataDir: string,
  streams: number,
  perStream: number,
  tag: string,
): Promise<void> {
  const opened = await openSqlDatabase({ dataDir, serveSocket: false });
  try {
    const store = new PostgresEventStore(opened.db);
    await store.init();
    for (let s = 0; s < streams; s++) {
      const stream = `widget-${tag}${s}`;
      const current = await store.streamVersion(stream);
      await store.append(
        stream,
        newEvents(
          `${stream}-cmd-${current ?? 'new'}`,
          Array.from({ length: perStream }, (_, i) => ({ type: 'WidgetTuned', data: { step: i } })),
          testMetadata({ actor: 'account:alice', payer: 'organization:acme', scope: `scope-${s % 3}` }),
        ),
        { expectedVersion: current ?? 'no_stream' },
      );
    }
    await store.close();
  } finally {
    await opened.close();
  }
}

/**
 * A background worker failing `times` in a row on one item, recorded as every worker records it (WorkerFailures,
 * in the read store), through whatever process owns DATA_DIR (or owning it).
 */
async function recordFailingItem(
  dataDir: string,
  worker: string,
  item: string,
  error: string,
  times: number,
): Promise<void> {
  const opened = await openSqlDatabase({ dataDir, serveSocket: false });
  try {
    const readStore = new PostgresReadStore(opened.db);
    await readStore.init();
    const failures = new WorkerFailures(worker, { readStore }, { baseDelayMs: 0, maxDelayMs: 0 });
    for (let i = 0; i < times; i++) await failures.run(item, () => Promise.reject(new Error(error)));
  } finally {
    await opened.close();
  }
}

describe('operator CLI', () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;
  let env: Record<string, string>;

  beforeEach(async () => {
    dataDir = await freshDataDir('cli-');
    env = { DATA_DIR: dataDir };
  });

  afterEach(async () => {
    await service?.stop();
    service = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a command run in this process answers as the real process does: output, refusals and exit codes', async () => {
    // The other suites run most commands in process (runCliInProcess): this is what vouches for it.
    for (const args of [
      ['--help'],
      ['no-such-command'],
      ['accounts', 'create'],
      ['keys', 'issue'],
      ['events', 'replay', '--stream', 'nothing-here'],
    ]) {
      const real = await runCli(args, env);
      const inProcess = await runCliInProcess(args, env);
      expect({ args, ...inProcess }).toEqual({ args, ...real });
    }
  });

  it('with no service running it owns DATA_DIR itself: status, rebuild, verify, replay, tail', async () => {
    await appendThroughDataDir(dataDir, 30, 4, 'a');

    const status = await runCli(['projections', 'status', '--json'], env);
    expect(status.code).toBe(0);
    const streamsRow = JSON.parse(status.stdout).projections.find(
      (p: { name: string }) => p.name === 'event-streams',
    );
    expect(streamsRow).toMatchObject({ name: 'event-streams', lag_events: 120 });

    const unexplained = await runCliInProcess(['projections', 'rebuild', 'event-streams'], env);
    expect(unexplained.code).toBe(2);
    expect(unexplained.stderr).toContain('say why with --reason <text>');
    // The first operator command on the empty store creates the first operator (two events), and the rebuild
    // records who ordered it and why (one more) before it runs.
    const rebuild = await runCliInProcess(
      ['projections', 'rebuild', 'event-streams', '--reason', 'new index layout', '--json'],
      env,
    );
    expect(rebuild.code).toBe(0);
    const rebuilt = JSON.parse(rebuild.stdout).rebuilt[0];
    expect(rebuilt).toMatchObject({ projection: 'event-streams', events: 123, generation: 2 });
    expect(rebuilt.eventsPerSecond).toBeGreaterThan(0);

    const verify = await runCliInProcess(['projections', 'verify', 'event-streams'], env);
    expect(verify.stdout.trim()).toMatch(/^equal \(32 documents compared/);
    expect(verify.code).toBe(0);

    const replay = await runCliInProcess(['events', 'replay', '--stream', 'widget-a7'], env);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain('WidgetTuned (v1)  widget-a7@0');
    expect(replay.stdout).toContain('by account:alice on behalf of organization:acme in scope scope-1');
    const replayJson = (
      await runCliInProcess(['events', 'replay', '--stream', 'widget-a7', '--json'], env)
    ).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(replayJson.map((e: { stream_version: number }) => e.stream_version)).toEqual([0, 1, 2, 3]);
    expect(replayJson[0]).toMatchObject({
      actor: 'account:alice',
      payer: 'organization:acme',
      scope: 'scope-1',
      type: 'WidgetTuned',
    });

    const tail = (await runCliInProcess(['events', 'tail', '-n', '5', '--json'], env)).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(tail).toHaveLength(5);
    expect(tail[1]).toMatchObject({ stream: 'widget-a29', stream_version: 3 });
    expect(tail.slice(2).map((e: { type: string }) => e.type)).toEqual([
      'OperatorAdded',
      'OperatorCredentialIssued',
      'ProjectionRebuildOrdered',
    ]);
    expect(tail[2]).toMatchObject({ actor: 'system:first-start', credential: null, surface: 'system' });
    expect(tail.at(-1)).toMatchObject({
      stream: 'projection-rebuilds',
      actor: 'operator:admin',
      credential: expect.stringMatching(/^operator_credential:/),
      surface: 'cli',
      reason: 'new index layout',
      data: { projections: ['event-streams'] },
    });

    const missing = await runCliInProcess(['events', 'replay', '--stream', 'nothing-here'], env);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('stream nothing-here has no events');
    const unknown = await runCliInProcess(['projections', 'rebuild', 'no-such', '--reason', 'r'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('unknown projection "no-such"');
  });

  it('workers status lists the items each background worker keeps failing on, with and without a running service; projections rebuild --all and verify leave them alone', async () => {
    const none = await runCliInProcess(['workers', 'status', '--json'], env);
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual({ workers: [] });

    await recordFailingItem(dataDir, 'export-file-sweeper', 'file:f-1', 'EACCES: permission denied', 3);
    // worker_failures is not a projection: rebuilding and verifying every projection neither drops nor reports it.
    expect(
      (
        await runCliInProcess(
          ['projections', 'rebuild', '--all', '--reason', 'after an upgrade', '--json'],
          env,
        )
      ).code,
    ).toBe(0);
    const verify = await runCliInProcess(['projections', 'verify', 'event-streams', '--json'], env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).not.toContain('worker_failures');

    const failing = await runCliInProcess(['workers', 'status', '--json'], env);
    // Exit 3: an item failed 3 times in a row, the threshold at which /health/ready shows its worker failing.
    expect(failing.code).toBe(3);
    expect(JSON.parse(failing.stdout)).toEqual({
      workers: [
        {
          worker: 'export-file-sweeper',
          failing_items: [
            {
              item: 'file:f-1',
              attempts: 3,
              own_failures: 3,
              failing_since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
              last_failed_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
              last_error: 'EACCES: permission denied',
              next_try_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            },
          ],
        },
      ],
    });

    // While the service runs, through its socket.
    service = await startServiceProcess(env);
    await recordFailingItem(dataDir, 'reservation-sweeper', 'account:ghost', 'no account ghost', 1);
    const running = await runCli(['workers', 'status'], env);
    expect(running.code).toBe(3);
    expect(running.stdout).toContain('export-file-sweeper: 1 failing item\n');
    expect(running.stdout).toContain('file:f-1  3 failures in a row (3 of its own)');
    expect(running.stdout).toContain('last error: EACCES: permission denied');
    expect(running.stdout).toContain('reservation-sweeper: 1 failing item\n');
    expect(running.stdout).toContain('account:ghost  1 failure in a row (1 of its own)');
    expect(await service.stop()).toBe(0);
    service = undefined;
  });

  it('ends quietly with exit 0 when the reader of its output stops reading (`| head`)', async () => {
    // Far more output than a pipe holds, so the CLI is still writing when `head` has gone.
    await appendThroughDataDir(dataDir, 1, 3000, 'p');

    const replay = await runCliPiped(['events', 'replay', '--stream', 'widget-p0', '--json'], 'head -1', env);
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ stream: 'widget-p0', stream_version: 0 });

    const tail = await runCliPiped(['events', 'tail', '-n', '3000', '--json'], 'head -2', env);
    expect(tail.stderr).toBe('');
    expect(tail.code).toBe(0);
    expect(tail.stdout.trim().split('\n')).toHaveLength(2);

    // Following the log stops as well once nobody reads it, instead of waiting for the next event forever.
    const follow = await runCliPiped(['events', 'tail', '-n', '3000', '--follow', '--json'], 'head -1', env);
    expect(follow.stderr).toBe('');
    expect(follow.code).toBe(0);

    const text = await runCliPiped(['events', 'replay', '--stream', 'widget-p0'], 'head -3', env);
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('WidgetTuned (v1)  widget-p0@0');
  });

  it('works while the service runs, through its socket: rebuild switches the live service, verify finds tampering', async () => {
    service = await startServiceProcess(env);
    await appendThroughDataDir(dataDir, 20, 5, 'b'); // a third process, through the service's socket

    await waitUntil(
      async () => {
        const status = await runCliInProcess(['projections', 'status', '--json'], env);
        const row = JSON.parse(status.stdout).projections.find(
          (p: { name: string }) => p.name === 'event-streams',
        );
        // The service's first start created the first operator: two events before the widgets.
        return row.lag_events === 0 && row.state === 'live' && row.events_applied === 102;
      },
      30_000,
      200,
    );

    // The CLI uses the credential the service's first start left in DATA_DIR; the order is one more event.
    const rebuild = await runCliInProcess(
      ['projections', 'rebuild', 'event-streams', '--reason', 'check the switch', '--json'],
      env,
    );
    expect(rebuild.code).toBe(0);
    expect(JSON.parse(rebuild.stdout).rebuilt[0]).toMatchObject({ events: 103, generation: 2 });

    // The service keeps following the log on the new generation.
    await appendThroughDataDir(dataDir, 1, 3, 'c');
    await waitUntil(
      async () => {
        const status = await runCliInProcess(['projections', 'status', '--json'], env);
        const row = JSON.parse(status.stdout).projections.find(
          (p: { name: string }) => p.name === 'event-streams',
        );
        return row.live_generation === 2 && row.lag_events === 0 && row.events_applied === 106;
      },
      30_000,
      200,
    );
    expect((await runCliInProcess(['projections', 'verify', 'event-streams'], env)).code).toBe(0);

    // Tamper with one live document through the socket, then verify names it.
    const opened = await openSqlDatabase({ dataDir, serveSocket: false });
    expect(opened.role).toBe('client');
    await new PostgresReadStore(opened.db)
      .collection(physicalCollectionName('event_streams', 2))
      .patch('widget-b4', { eventCount: 999 });
    await opened.close();
    const verify = await runCli(['projections', 'verify', 'event-streams', '--json'], env);
    expect(verify.code).toBe(4);
    const verdict = JSON.parse(verify.stdout);
    expect(verdict.equal).toBe(false);
    expect(verdict.differences.map((d: { id: string }) => d.id)).toEqual(['widget-b4']);

    const health = await fetch(`${service.baseUrl}/health/ready`);
    expect(health.status).toBe(200);
    expect(await service.stop()).toBe(0);
    service = undefined;
  });

  it('a restart keeps every event and read model', async () => {
    service = await startServiceProcess(env);
    await appendThroughDataDir(dataDir, 10, 2, 'r');
    await waitUntil(
      async () => {
        const ready = (await (await fetch(`${service!.baseUrl}/health/ready`)).json()) as {
          projections: Array<{ position: string | null }>;
        };
        return ready.projections[0]?.position !== null;
      },
      30_000,
      100,
    );
    expect(await service.stop()).toBe(0);
    service = await startServiceProcess(env);
    const status = await runCliInProcess(['projections', 'status', '--json'], env);
    const row = JSON.parse(status.stdout).projections.find(
      (p: { name: string }) => p.name === 'event-streams',
    );
    // 20 widgets and the first operator (created once, at the first start only).
    expect(row).toMatchObject({ events_applied: 22, lag_events: 0 });
    const tail = (await runCliInProcess(['events', 'tail', '-n', '20', '--json'], env)).stdout
      .trim()
      .split('\n');
    expect(tail).toHaveLength(20);
  });
});
