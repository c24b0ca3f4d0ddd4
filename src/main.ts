import 'reflect-metadata';
import { CommandBus } from '@nestjs/cqrs';
import pino from 'pino';
import { seedDemoAccount, type DemoAccount } from './accounts/demo-seed.js';
import { ReservationSweeper } from './credits/reservation-sweeper.js';
import { OrganizationWorkspace } from './organizations/commands/organization-workspace.js';
import { OrganizationSweeper } from './organizations/organization-sweeper.js';
import { createFirstOperator } from './operators/operator-access.js';
import { writeCredentialFile } from './platform/cli/operator-access.js';
import { loadDemoCorpus } from './search/data/demo-corpus.js';
import { loadSampleCatalogue } from './catalogue/sample/sample-catalogue.js';
import { AppModule } from './app.module.js';
import { serviceComposition } from './composition/service-composition.js';
import { ConfigError, describeStorage, loadConfig, type AppConfig } from './platform/config/app-config.js';
import { describeThrown } from './platform/errors/describe-thrown.js';
import { EventLoopDelayMonitor, reportEventLoopDelayOnSignal } from './platform/health/event-loop-delay.js';
import { BackgroundWorkers } from './platform/scheduling/background-workers.js';
import { EventLogSealer } from './platform/event-store/event-log-sealer.js';
import { createHttpApp } from './platform/http/create-http-app.js';
import { ServiceContext } from './platform/service-context.js';
import {
  checkDataDir,
  explainStartupFailure,
  explainStorageDamage,
  type StorageLocation,
} from './platform/storage/start-up-problems.js';

/** How long closing may take when the service stops because of a failure. */
const FAILURE_CLOSE_MS = 5000;

/**
 * `npm start`: the service on the configured storage (by default a PostgreSQL server it starts and stops itself
 * in ./data/postgres, ADR 94).
 */
async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const location: StorageLocation = {
    dataDir: config.dataDir,
    embedded: !config.databaseUrl && !(config.eventStoreUrl && config.mongodbUrl),
    databaseUrl: config.databaseUrl,
  };
  const log = pino({ level: config.logLevel, base: { service: 'exposure-research' } });
  let context: ServiceContext | undefined;
  let app: Awaited<ReturnType<typeof createHttpApp>> | undefined;
  let closing = false;
  const closeAll = async (): Promise<void> => {
    await app?.close().catch((error: unknown) => log.error({ err: error }, 'closing HTTP failed'));
    await context?.close().catch((error: unknown) => log.error({ err: error }, 'closing storage failed'));
  };
  /** One paragraph on stderr, what can be closed in a few seconds, then a non-zero exit. */
  const fail = async (paragraph: string): Promise<never> => {
    closing = true;
    process.stderr.write(`${paragraph}\n`);
    await Promise.race([closeAll(), new Promise((resolve) => setTimeout(resolve, FAILURE_CLOSE_MS).unref())]);
    process.exit(1);
  };

  // From the start: a signal while the embedded server starts must stop it, not leave it running.
  let starting: Promise<unknown> = Promise.resolve();
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    await starting.catch(() => undefined);
    await closeAll();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    checkDataDir(location);
    const opening = ServiceContext.open(config, {
      ...serviceComposition,
      log: (level, message, fields) => log[level](fields ?? {}, message),
      // Never a client of another service's database: it would answer 500 once that one stopped.
      exclusiveDataDir: true,
      ownerName: 'service',
      progress: (message) => process.stdout.write(`${message}\n`),
      onStorageDamaged: (error, projection) => {
        if (closing) return;
        void fail(
          explainStorageDamage(error, location, `while the projection ${projection} was brought up to date`),
        );
      },
    });
    starting = opening;
    context = await opening;
    if (closing) return;
    await context.projections.start();
    app = await createHttpApp(context, AppModule.forContext(context));
    await app.listen(config.port, config.host);
  } catch (error) {
    if (closing) return;
    return fail(explainStartupFailure(error, location));
  }
  if (closing) return; // a projection found damaged storage meanwhile: the service is stopping
  // The service's own sweepers join the modules' workers in one lifecycle (started now, stopped by app.close):
  // expired reservations are released; trials end after 14 days and failed creation recoveries are retried.
  app.get(BackgroundWorkers).register(
    new ReservationSweeper(context),
    // Seals the log into its global chain, signs checkpoints, verifies since the last one (/health/ready).
    new EventLogSealer(context),
    new OrganizationSweeper(context, app.get(OrganizationWorkspace)),
  );
  // The first start of an empty store creates the first operator; the CLI reads its credential from DATA_DIR.
  const firstOperator = await createFirstOperator(app.get(CommandBus), context.storage.eventStore);
  if (firstOperator !== null) await writeCredentialFile(config.operatorCredentialFile, firstOperator);
  const demo: DemoAccount | null = config.seedDemo
    ? await seedDemoAccount(context.storage.eventStore, app.get(CommandBus))
    : null;
  if (config.seedDemo) {
    // An empty catalogue gets the project's small sample catalogue (before the corpus, whose host writes are
    // then associated as they land).
    const sample = await loadSampleCatalogue(context.catalogue, context.observations);
    if (sample)
      log.info({ advisories: sample.catalogue.advisories }, 'sample vulnerability catalogue loaded');
    // An empty index gets ~10,000 generated observations per dataset, so the demo has something to find.
    const corpus = await loadDemoCorpus(context.observations, context.clock.now(), {
      count: context.config.demoCorpusRecords,
    });
    if (corpus.loaded) log.info({ datasets: corpus.datasets.map((d) => d.dataset) }, 'demo corpus loaded');
  }

  // `kill -USR2 <pid>` prints the event-loop delay since the last report (the load benchmark reads it).
  reportEventLoopDelayOnSignal(process, new EventLoopDelayMonitor(), (line) => process.stdout.write(line));

  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  // A second service started on this DATA_DIR names where this one answers.
  context.storage.recordOwnerAddress(base);
  const storage = describeStorage(config, context.storage.sqlEngine);
  process.stdout.write(
    [
      '',
      `Exposure research service listening on ${base}`,
      `  Web console:  ${base}/   (sign in with the demo account below)`,
      `  API docs:     ${base}/api/v2/docs   (OpenAPI: ${base}/api/v2/openapi.json)`,
      `  Health:       ${base}/health/ready`,
      `  Events:       ${storage.events}`,
      `  Read models:  ${storage.readModels}`,
      `  Operator CLI: npm run cli -- --help   (works while the service runs)`,
      ...(firstOperator !== null
        ? [
            `  Operator:     first operator "admin" created; its credential is in ${config.operatorCredentialFile}`,
            '                (mode 0600; the CLI uses it by default, `operators add <name>` adds others)',
          ]
        : []),
      ...(demo
        ? [
            '',
            'Demo account created (shown once, keep them):',
            `  Sign in:      ${base}/  as ${demo.email} / ${demo.password}`,
            `                (or POST ${base}/api/v2/auth/login with that email and password)`,
            `  API key:      ${demo.apiKey}`,
            `  Try it:       curl -H 'X-API-KEY: ${demo.apiKey}' ${base}/api/v2/common/credits`,
          ]
        : ['', `Demo account: ${'demo@example.com'} (its password and key were printed at the first start)`]),
      '',
    ].join('\n') + '\n',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `failed to start: ${error instanceof Error ? (error.stack ?? error.message) : describeThrown(error)}\n`,
  );
  process.exit(1);
});
