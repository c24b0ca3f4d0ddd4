/**
 * Export jobs under test: accounts with API keys, a slow index (so jobs are caught mid-run), step hooks on the
 * export commands (a test acts at an exact point of a job's life), and the invariants every job must meet once
 * it settled: terminal, charged or released exactly once in the ledger, its read model in line with its stream.
 */
import { expect } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { ledgerStreamId } from '../../src/credits/domain/ledger.js';
import { ExportJobs } from '../../src/exports/commands/export-jobs.js';
import type { ExportState } from '../../src/exports/domain/export-job.js';
import type { Clock } from '../../src/platform/clock/clock.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { createHttpApp } from '../../src/platform/http/create-http-app.js';
import { AppModule } from '../../src/app.module.js';
import { serviceComposition } from '../../src/composition/service-composition.js';
import { ServiceContext } from '../../src/platform/service-context.js';
import type { ObservationIndex } from '../../src/search/observation-index/observation-index.port.js';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from './databases.js';
import { freshDataDir } from './pglite-template.js';

export interface Account {
  readonly accountId: string;
  readonly payer: string;
  readonly key: string;
}

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

export async function registerAccount(app: NestFastifyApplication, label: string): Promise<Account> {
  const bus = app.get(CommandBus);
  const { accountId } = await bus.execute(
    new RegisterAccount(
      `${label}-${Date.now()}-${Math.random()}@example.com`,
      'professional',
      undefined,
      operator(),
    ),
  );
  const { key } = await bus.execute(new IssueApiKey(accountId, label, operator()));
  return { accountId: accountId as string, payer: `account:${accountId as string}`, key: key as string };
}

export function exportsCall(
  app: NestFastifyApplication,
  key: string,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: Record<string, unknown>,
) {
  return app.inject({
    method,
    url: `/api/v2/common/exports${url}`,
    headers: { 'x-api-key': key },
    ...(body === undefined ? {} : { payload: body }),
  });
}

/** The service's index, a batch at a time with a pause after each: jobs stay running long enough to be caught. */
export function slowIndex(
  context: ServiceContext,
  batchSize: number,
  pauseMs: number,
): Pick<ObservationIndex, 'stream'> {
  return {
    async *stream(dataset, query, _batchSize, signal) {
      for await (const batch of context.observations.stream(dataset, query, batchSize, signal)) {
        await new Promise((resolve) => setTimeout(resolve, pauseMs));
        yield batch;
      }
    },
  };
}

/** `<command type>:before` or `<command type>:after` on one export's stream. */
export type StepPoint = `${string}:${'before' | 'after'}`;

/**
 * Hooks on the export commands of a service (the HTTP handlers' and the pools' alike): `at(id, point, act)`
 * runs `act` when that export's stream reaches the point, and the step waits for it. `freeze()` stops every
 * step at its next command for good, as a killed process would.
 */
export class ExportSteps {
  private readonly triggers = new Map<string, Array<{ point: StepPoint; act: () => Promise<void> }>>();
  private frozen = false;
  /** Steps seen per export, in order (for failure messages). */
  readonly seen = new Map<string, StepPoint[]>();

  constructor(jobs: ExportJobs) {
    const original = jobs.run.bind(jobs);
    (jobs as { run: ExportJobs['run'] }).run = async (exportId, command, envelope) => {
      await this.reach(exportId, `${command.type}:before`);
      const result = await original(exportId, command, envelope);
      await this.reach(exportId, `${command.type}:after`);
      return result;
    };
  }

  /**
   * Acts when the export reaches `point`. The triggers of one lane fire in the order they were added (the second
   * waits for the first); lanes are independent.
   */
  at(exportId: string, point: StepPoint, act: () => Promise<void>, lane = 'caller'): void {
    const key = `${lane}:${exportId}`;
    const queue = this.triggers.get(key) ?? [];
    queue.push({ point, act });
    this.triggers.set(key, queue);
  }

  freeze(): void {
    this.frozen = true;
  }

  clear(): void {
    this.triggers.clear();
  }

  private async reach(exportId: string, point: StepPoint): Promise<void> {
    if (this.frozen) await new Promise<never>(() => undefined);
    const seen = this.seen.get(exportId) ?? [];
    seen.push(point);
    this.seen.set(exportId, seen);
    const due = [...this.triggers]
      .filter(([key, queue]) => key.endsWith(`:${exportId}`) && queue[0]?.point === point)
      .map(([, queue]) => queue.shift()!);
    await Promise.all(due.map((trigger) => trigger.act()));
  }
}

export function isSettled(state: ExportState): boolean {
  return ['completed', 'failed', 'cancelled', 'deleted'].includes(state.status) && !state.chargePending;
}

/**
 * The invariants of settled jobs of one payer (whose only exports these are): each job terminal (or deleted)
 * with no charge pending; every export reservation of the payer settled or released exactly once; what the
 * ledger charged is the sum of the jobs' credits_consumed, and the balance moved by exactly that; the read
 * model shows what each stream holds.
 */
export async function expectSettledJobs(
  context: ServiceContext,
  jobs: ExportJobs,
  payer: string,
  ids: readonly string[],
  balanceBefore: number,
): Promise<void> {
  const states = new Map<string, ExportState>();
  for (const id of ids) {
    context.repository.forget(`export-${id}`);
    const { state } = await jobs.load(id);
    states.set(id, state);
    expect({ id, status: state.status, chargePending: state.chargePending }).toEqual({
      id,
      status: expect.stringMatching(/^(completed|failed|cancelled|deleted)$/),
      chargePending: false,
    });
  }
  const ledger = await context.storage.eventStore.readStream(ledgerStreamId(payer));
  const reserved = ledger
    .filter((event) => event.type === 'CreditsReserved')
    .map((event) => event.data as { reservationId: string; category: string })
    .filter((data) => data.category === 'exports')
    .map((data) => data.reservationId);
  let charged = 0;
  for (const reservationId of reserved) {
    const closed = ledger.filter(
      (event) =>
        (event.type === 'ReservationSettled' || event.type === 'ReservationReleased') &&
        (event.data as { reservationId: string }).reservationId === reservationId,
    );
    expect({ reservationId, closedTimes: closed.length }).toEqual({ reservationId, closedTimes: 1 });
    for (const event of closed)
      if (event.type === 'ReservationSettled') charged += (event.data as { charged: number }).charged;
  }
  const consumed = [...states.values()].reduce((sum, state) => sum + state.creditsConsumed, 0);
  expect({ chargedByLedger: charged }).toEqual({ chargedByLedger: consumed });
  context.repository.forget(ledgerStreamId(payer));
  const credits = new CreditLedger(context);
  expect(Object.keys((await credits.state(payer)).openReservations)).toEqual([]);
  expect({ balanceMovedBy: balanceBefore - (await credits.available(payer)) }).toEqual({
    balanceMovedBy: consumed,
  });

  const committed = await context.storage.eventStore.lastCommittedPosition();
  expect(await context.readYourWrites(['exports'], committed)).toBe(true);
  for (const [id, state] of states) {
    const document = await jobs.queries.collection().get(id);
    expect({
      id,
      deleted: document?.deleted,
      status: state.status === 'deleted' ? 'deleted' : document?.status,
      charge_pending: document?.charge_pending,
      credits_consumed: document?.credits_consumed,
      results_count: document?.results_count,
    }).toEqual({
      id,
      deleted: state.status === 'deleted',
      status: state.status,
      charge_pending: false,
      credits_consumed: state.creditsConsumed,
      results_count: state.resultsCount,
    });
  }
}

export interface ReopenableService {
  readonly context: ServiceContext;
  readonly app: NestFastifyApplication;
  /** Closes HTTP and storage, keeping the data (a new service may open it). */
  close(): Promise<void>;
}

/** Storage that outlives a service: a data directory, and a database on the server for the postgres kind. */
export interface DurableStorage {
  readonly dataDir: string;
  readonly database: TestDatabase | undefined;
  open(clock: Clock, env?: Readonly<Record<string, string>>): Promise<ReopenableService>;
}

export async function durableStorage(kind: TestDatabaseKind): Promise<DurableStorage> {
  const dataDir =
    kind === 'pglite' ? await freshDataDir('svc-durable-') : mkdtempSync(join(tmpdir(), 'svc-durable-'));
  const database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
  return {
    dataDir,
    database,
    async open(clock, env = {}) {
      const config = loadConfig({
        DATA_DIR: dataDir,
        EMBEDDED_ENGINE: 'pglite',
        LOG_LEVEL: 'silent',
        SEED_DEMO: 'false',
        ...(database?.url ? { DATABASE_URL: database.url } : {}),
        ...env,
      });
      const context = await ServiceContext.open(config, {
        ...serviceComposition,
        pollIntervalMs: 20,
        dropGraceMs: 50,
        clock,
      });
      await context.projections.start();
      const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
      return {
        context,
        app,
        close: async () => {
          await app.close();
          await context.close();
        },
      };
    },
  };
}
