import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openSqlDatabase, type OpenedDatabase } from '../../src/platform/database/open-sql-database.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import {
  checkpointKey,
  physicalCollectionName,
} from '../../src/platform/projections/projection-definition.js';
import {
  generationsKey,
  type ProjectionGenerations,
} from '../../src/platform/projections/projection-engine.js';
import { PostgresReadStore } from '../../src/platform/read-store/postgres/postgres-read-store.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../support/databases.js';
import {
  NODE,
  PROJECT_ROOT,
  runCli,
  startServiceProcess,
  TEST_CLI_DEFAULTS,
  type ServiceProcess,
} from '../support/processes.js';
import { newEvents, testMetadata, waitUntil } from '../support/storage.js';
import { freshDataDir } from '../support/pglite-template.js';

const PROJECTION = 'event-streams';
const COLLECTION = 'event_streams';
// Enough batches that a rebuild is still building when the test, polling through the same database, sees its
// first checkpoint and kills it: rebuilds got faster (ADR 90), and 8,000 events sometimes switched first.
const STREAMS = 80;
const EVENTS_PER_STREAM = 300;

/**
 * `projections rebuild` is killed (SIGKILL) while it builds its generation and again between its switch and the
 * drop of the old generation, with the service running: the next rebuild leaves only the live generation.
 */
describe.each(SQL_KINDS)(
  'a rebuild that crashed leaves no orphan tables once the next one ran (%s)',
  (kind) => {
    let dataDir: string;
    let database: TestDatabase | undefined;
    let opened: OpenedDatabase | undefined;
    let service: ServiceProcess | undefined;
    let rebuild: ChildProcess | undefined;
    let env: Record<string, string>;
    let db: SqlDatabase;

    beforeEach(async () => {
      dataDir =
        kind === 'pglite'
          ? await freshDataDir('rebuild-crash-')
          : mkdtempSync(join(tmpdir(), 'rebuild-crash-'));
      database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
      env = { DATA_DIR: dataDir, ...(database?.url ? { DATABASE_URL: database.url } : {}) };
      service = await startServiceProcess(env);
      if (database) db = database.db;
      else {
        // The service owns DATA_DIR: the test reaches its database through the socket, like the CLI.
        opened = await openSqlDatabase({ dataDir, serveSocket: false });
        expect(opened.role).toBe('client');
        db = opened.db;
      }
    });

    afterEach(async () => {
      if (rebuild?.exitCode === null) rebuild.kill('SIGKILL');
      rebuild = undefined;
      await opened?.close();
      opened = undefined;
      await service?.stop();
      service = undefined;
      await database?.dispose();
      database = undefined;
      rmSync(dataDir, { recursive: true, force: true });
    });

    const readStore = (): PostgresReadStore => new PostgresReadStore(db);
    const registry = (): Promise<ProjectionGenerations | null> =>
      readStore().getMeta<ProjectionGenerations>(generationsKey(PROJECTION));
    const tables = (): Promise<string[]> => readStore().listCollections(`${COLLECTION}__g`);
    const checkpoints = async (): Promise<string[]> =>
      (await readStore().listCheckpoints(`${PROJECTION}@`)).map((checkpoint) => checkpoint.key);

    /** Starts `projections rebuild`, waits until `crashPoint` holds, then kills it (no cleanup of its own runs). */
    async function crashRebuild(crashPoint: () => Promise<boolean>): Promise<void> {
      rebuild = spawn(
        NODE,
        [
          resolve(PROJECT_ROOT, 'dist/src/cli.js'),
          'projections',
          'rebuild',
          PROJECTION,
          '--reason',
          'crash test',
        ],
        {
          cwd: PROJECT_ROOT,
          // The production grace period: the crash after the switch must land inside it.
          env: { ...process.env, ...TEST_CLI_DEFAULTS, PROJECTION_DROP_GRACE_MS: '2000', ...env },
          stdio: 'ignore',
        },
      );
      const exited = new Promise<void>((done) => rebuild!.once('exit', () => done()));
      await waitUntil(
        async () => {
          if (rebuild!.exitCode !== null) throw new Error('the rebuild ended before the crash point');
          return crashPoint();
        },
        60_000,
        2,
      );
      rebuild.kill('SIGKILL');
      await exited;
    }

    it('drops what a crash mid-build and a crash during the switch left behind', async () => {
      const events = new PostgresEventStore(db);
      await events.init();
      for (let s = 0; s < STREAMS; s++) {
        const stream = `widget-crash${s}`;
        await events.append(
          stream,
          newEvents(
            `${stream}-all`,
            Array.from({ length: EVENTS_PER_STREAM }, (_, i) => ({ type: 'WidgetTuned', data: { step: i } })),
            testMetadata(),
          ),
          { expectedVersion: 'no_stream' },
        );
      }
      await waitUntil(async () => (await registry()) !== null, 30_000, 50);

      // Killed while building generation 2 (its first batch applied): its tables stay, the registry still says it
      // is being built.
      await crashRebuild(
        async () =>
          (await registry())?.building === 2 && (await checkpoints()).includes(checkpointKey(PROJECTION, 2)),
      );
      expect(await registry()).toMatchObject({ live: 1, building: 2 });
      expect(await tables()).toEqual([1, 2].map((g) => physicalCollectionName(COLLECTION, g)));

      // Killed after switching to generation 3, before its grace period ended and generation 1 was dropped.
      await crashRebuild(async () => (await registry())?.live === 3);
      expect(await registry()).toEqual({ live: 3, version: 1 });
      expect(await tables()).toEqual([1, 2, 3].map((g) => physicalCollectionName(COLLECTION, g)));

      const next = await runCli(
        ['projections', 'rebuild', PROJECTION, '--reason', 'clean up after the crashes', '--json'],
        env,
        120_000,
      );
      expect(next.stderr).toBe('');
      expect(next.code).toBe(0);
      const result = JSON.parse(next.stdout).rebuilt[0];
      expect(result).toMatchObject({
        projection: PROJECTION,
        previousGeneration: 3,
        generation: 4,
        // The widgets, the first operator the service's first start created, and the three rebuild orders.
        events: STREAMS * EVENTS_PER_STREAM + 2 + 3,
        droppedGenerations: [1, 2, 3],
      });
      // The printed rate covers the whole rebuild, the grace period before the drop included (the suites' is
      // PROJECTION_DROP_GRACE_MS from global-setup.js).
      expect(result.seconds).toBeGreaterThanOrEqual(Number(process.env.PROJECTION_DROP_GRACE_MS) / 1000);
      expect(result.eventsPerSecond).toBe(Math.round(result.events / result.seconds));

      expect(await registry()).toEqual({ live: 4, version: 1 });
      expect(await tables()).toEqual([physicalCollectionName(COLLECTION, 4)]);
      expect(await checkpoints()).toEqual([checkpointKey(PROJECTION, 4)]);

      // The service follows the new generation throughout.
      const ready = await fetch(`${service!.baseUrl}/health/ready`);
      expect(ready.status).toBe(200);
    });
  },
);
