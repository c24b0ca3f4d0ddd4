import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { AppModule } from '../src/app.module.js';
import { PurchaseCredits, RegisterAccount } from '../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../src/credits/commands/credit-ledger.js';
import { loadConfig } from '../src/platform/config/app-config.js';
import { commandEnvelope } from '../src/platform/event-sourcing/command-metadata.js';
import { eventIdFor } from '../src/platform/event-store/event-id.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import type { Measurement } from './bench-support.js';

const CLIENTS = 50;

/**
 * Reservations and settlements for one payer under 50 concurrent clients, beside the raw append rate to a
 * single stream measured in the same run on the same database. Each pair is two ledger commands (two
 * appends to the payer's ledger stream plus their decisions).
 */
export async function benchCredits(target: 'pglite' | 'postgres', pairs: number): Promise<Measurement[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-credits-'));
  const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const dbName = `bench_credits_${Date.now().toString(36)}`;
  let databaseUrl: string | undefined;
  if (target === 'postgres') {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const context = await ServiceContext.open(
    loadConfig({
      DATA_DIR: dataDir,
      // The PGlite leg stays PGlite (the default would start a PostgreSQL server in DATA_DIR).
      EMBEDDED_ENGINE: 'pglite',
      LOG_LEVEL: 'silent',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    }),
    { ...serviceComposition, serveSocket: false },
  );
  const app = await NestFactory.createApplicationContext(AppModule.forContext(context), { logger: false });
  try {
    await context.projections.start();
    const operator = () => commandEnvelope({ actor: 'operator:bench', payer: 'system' });
    const bus = app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount(`bench-${randomUUID()}@example.com`, 'enterprise', undefined, operator()),
    );
    await bus.execute(new PurchaseCredits(accountId, 10_000_000, operator()));
    const ledger = app.get(CreditLedger);
    const payer = `account:${accountId}`;

    // Baseline: one writer appending single events to one stream, expected version each time.
    const stream = `bench-single-${randomUUID()}`;
    let started = performance.now();
    for (let i = 0; i < pairs * 2; i++) {
      await context.storage.eventStore.append(
        stream,
        [
          {
            id: eventIdFor(`${stream}-${i}`, 0),
            type: 'BenchAppended',
            schemaVersion: 1,
            data: { i },
            metadata: operator().metadata,
          },
        ],
        { expectedVersion: i === 0 ? 'no_stream' : i - 1 },
      );
    }
    const rawPerSecond = (pairs * 2) / ((performance.now() - started) / 1000);

    started = performance.now();
    const perClient = Math.ceil(pairs / CLIENTS);
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        for (let i = 0; i < perClient; i++) {
          const reservation = await ledger.reserve(
            { payer, amount: 1, category: 'host', channel: 'api' },
            operator(),
          );
          await ledger.settle(reservation, 1, operator());
        }
      }),
    );
    const pairsPerSecond = (perClient * CLIENTS) / ((performance.now() - started) / 1000);
    const name = target === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL 15 server';
    return [
      {
        target: name,
        name: `reservation+settlement pairs, one payer, ${CLIENTS} concurrent clients`,
        value: Math.round(pairsPerSecond),
        unit: 'pairs/s',
      },
      {
        target: name,
        name: 'ledger appends (2 per pair) vs raw single-stream appends',
        value: Math.round(pairsPerSecond * 2),
        unit: 'appends/s',
        baseline: Math.round(rawPerSecond),
        baselineName: 'raw single-stream append, one writer',
        ratio: (pairsPerSecond * 2) / rawPerSecond,
      },
    ];
  } finally {
    await app.close();
    await context.close();
    rmSync(dataDir, { recursive: true, force: true });
    if (target === 'postgres') {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
  }
}
