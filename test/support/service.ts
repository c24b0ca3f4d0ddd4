import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamicModule, Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../../src/app.module.js';
import { serviceComposition } from '../../src/composition/service-composition.js';
import type { Clock } from '../../src/platform/clock/clock.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { createHttpApp } from '../../src/platform/http/create-http-app.js';
import type { ProjectionDefinition } from '../../src/platform/projections/projection-definition.js';
import { ServiceContext } from '../../src/platform/service-context.js';
import { SearchLog } from '../../src/search/search-log.js';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from './databases.js';
import { enforceResponseContract, type ResponseContract } from './openapi-contract.js';
import { seedEmbeddedDatabase } from './pglite-template.js';
import { checkedContractsOfThisFile } from './response-contract.setup.js';

export interface TestService {
  readonly context: ServiceContext;
  readonly app: NestFastifyApplication;
  readonly dataDir: string;
  readonly database: TestDatabase | undefined;
  /** Every answer checked against the OpenAPI document; undefined when the test turned it off. */
  readonly contract: ResponseContract | undefined;
  /** Stops the service. Answers off the OpenAPI document fail the test file (`test/support/response-contract.setup.ts`). */
  dispose(): Promise<void>;
}

/**
 * The real service in-process: storage (PGlite in a temporary DATA_DIR, or a fresh database on the server),
 * live projections and the HTTP application, for `app.inject` or a listening server. Every answer is checked
 * against the service's OpenAPI document (status, media type, body schema); any mismatch fails the test file
 * (`test/support/response-contract.setup.ts`), so the document cannot drift from what the service does.
 */
export async function startTestService(
  kind: TestDatabaseKind = 'pglite',
  options: {
    readonly modules?: ReadonlyArray<Type | DynamicModule>;
    readonly clock?: Clock;
    readonly projections?: readonly ProjectionDefinition[];
    readonly env?: Readonly<Record<string, string>>;
    /** false: answers are not checked against the OpenAPI document (tests of deliberately broken routes). */
    readonly responseContract?: boolean;
  } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-'));
  const database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
  if (kind === 'pglite') await seedEmbeddedDatabase(dataDir);
  const config = loadConfig({
    DATA_DIR: dataDir,
    EMBEDDED_ENGINE: 'pglite',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    ...(database?.url ? { DATABASE_URL: database.url } : {}),
    // The suites' lower password cost (global-setup.js).
    ...(process.env.PASSWORD_HASH_COST ? { PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST } : {}),
    ...options.env,
  });
  const context = await ServiceContext.open(config, {
    ...serviceComposition,
    pollIntervalMs: 20,
    dropGraceMs: 50,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.projections ? { projections: options.projections } : {}),
  });
  await context.projections.start();
  const app = await createHttpApp(context, AppModule.forContext(context, options.modules ?? []), {
    logger: false,
  });
  const contract = options.responseContract === false ? undefined : enforceResponseContract(app);
  if (contract) checkedContractsOfThisFile.push(contract);
  return {
    context,
    app,
    dataDir,
    database,
    contract,
    dispose: async () => {
      await app.close();
      await context.close();
      await database?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
      if (process.env.OPENAPI_CONTRACT_LOG && contract) {
        appendFileSync(
          process.env.OPENAPI_CONTRACT_LOG,
          [...contract.checked.keys()].map((k) => `${k}\n`).join(''),
        );
      }
    },
  };
}

/**
 * Waits until these projections hold everything committed so far (read-your-writes for a test). Fails loudly
 * when they do not get there within PROJECTION_WAIT_MS, instead of letting the test read a stale document.
 */
export async function waitForProjections(service: TestService, names: readonly string[]): Promise<void> {
  // Search records the search log still holds for its group (ADR 132) are part of what the service did.
  await searchLogOf(service)?.settled();
  const committed = await service.context.storage.eventStore.lastCommittedPosition();
  if (!(await service.context.readYourWrites(names, committed)))
    throw new Error(`projections ${names.join(', ')} did not reach ${committed} in time`);
}

/** The service's search log, when its application has one (some tests start a subset of the modules). */
function searchLogOf(service: TestService): SearchLog | undefined {
  try {
    return service.app.get(SearchLog, { strict: false });
  } catch {
    return undefined;
  }
}
