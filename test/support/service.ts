import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Clock } from '../../src/platform/clock/clock.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { createHttpApp } from '../../src/platform/http/create-http-app.js';
import type { ProjectionDefinition } from '../../src/platform/projections/projection-definition.js';
import { ServiceContext } from '../../src/platform/service-context.js';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from './databases.js';

export interface TestService {
  readonly context: ServiceContext;
  readonly app: NestFastifyApplication;
  readonly dataDir: string;
  readonly database: TestDatabase | undefined;
  dispose(): Promise<void>;
}

/**
 * The real service in-process: storage (PGlite in a temporary DATA_DIR, or a fresh database on the server),
 * live projections and the HTTP application, for `app.inject` or a listening server.
 */
export async function startTestService(
  kind: TestDatabaseKind = 'pglite',
  options: {
    readonly modules?: ReadonlyArray<Type | DynamicModule>;
    readonly clock?: Clock;
    readonly projections?: readonly ProjectionDefinition[];
    readonly env?: Readonly<Record<string, string>>;
  } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-'));
  const database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const context = await ServiceContext.open(config, {
    pollIntervalMs: 20,
    dropGraceMs: 50,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.projections ? { projections: options.projections } : {}),
  });
  await context.projections.start();
  const app = await createHttpApp(context, {
    logger: false,
    ...(options.modules ? { modules: options.modules } : {}),
  });
  return {
    context,
    app,
    dataDir,
    database,
    dispose: async () => {
      await app.close();
      await context.close();
      await database?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until these projections hold everything committed so far (read-your-writes for a test). Fails loudly
 * when they do not get there within PROJECTION_WAIT_MS, instead of letting the test read a stale document.
 */
export async function waitForProjections(service: TestService, names: readonly string[]): Promise<void> {
  const committed = await service.context.storage.eventStore.lastCommittedPosition();
  if (!(await service.context.readYourWrites(names, committed)))
    throw new Error(`projections ${names.join(', ')} did not reach ${committed} in time`);
}
