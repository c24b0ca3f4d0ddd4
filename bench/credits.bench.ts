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
import { decodePosition } from '../src/platform/event-store/global-position.js';
import { ledgerStreamId } from '../src/credits/domain/ledger.js';
import { serviceComposition } from '../src/composition/service-composition.js';
import { ServiceContext } from '../src/platform/service-context.js';
import type { Measurement } from './bench-support.js';

const CLIENTS = 50;

/**
 * Reservations and settlements for one payer under 50 concurrent clients, with group commit (ADR 91) and
 * without it (one append per command), beside the raw append rate to a single stream and, on the server, the
 * rate of single-row INSERT transactions, all measured in the same run on the same database. Each pair is two
 * ledger commands.
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
    const payer = `account:${accountId}`;

    // Baseline: one writer appending single events to one stream, expected version each time.
    const stream = `bench-single-${randomUUID()}`;
    const started = performance.now();
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

    // The same load twice in the same run: one append per command (group commit off), then group commit.
    const perClient = Math.ceil(pairs / CLIENTS);
    const drive = async (ledger: CreditLedger): Promise<{ pairsPerSecond: number; appends: number }> => {
      const from = ((await context.storage.eventStore.streamVersion(ledgerStreamId(payer))) ?? -1) + 1;
      const began = performance.now();
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
      const pairsPerSecond = (perClient * CLIENTS) / ((performance.now() - began) / 1000);
      const written = await context.storage.eventStore.readStream(ledgerStreamId(payer), {
        fromVersion: from,
      });
      // One append is one transaction: the major part of its events' positions.
      const appends = new Set(written.map((event) => decodePosition(event.position).major)).size;
      return { pairsPerSecond, appends };
    };
    const alone = await drive(new CreditLedger(context, { groupCommit: false }));
    const grouped = await drive(app.get(CreditLedger));

    // The server's own floor for one writer: single-row INSERTs, each its own transaction (one WAL flush each).
    let rawInsertsPerSecond: number | undefined;
    if (databaseUrl) {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query('CREATE TABLE bench_raw_insert (id bigint PRIMARY KEY, body text NOT NULL)');
        const began = performance.now();
        for (let i = 0; i < pairs * 2; i++)
          await client.query('INSERT INTO bench_raw_insert (id, body) VALUES ($1, $2)', [i, 'x']);
        rawInsertsPerSecond = (pairs * 2) / ((performance.now() - began) / 1000);
      } finally {
        await client.end();
      }
    }

    const name = target === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL 15 server';
    const commands = perClient * CLIENTS * 2;
    return [
      {
        target: name,
        name: `reservation+settlement pairs, one payer, ${CLIENTS} concurrent clients (group commit)`,
        value: Math.round(grouped.pairsPerSecond),
        unit: 'pairs/s',
        baseline: Math.round(alone.pairsPerSecond),
        baselineName: 'the same load, one append per command',
        ratio: grouped.pairsPerSecond / alone.pairsPerSecond,
      },
      {
        target: name,
        name: 'ledger commands per append (group commit; 1 without)',
        value: Math.round((commands / grouped.appends) * 10) / 10,
        unit: 'commands/append',
      },
      {
        target: name,
        name: 'ledger commands (2 per pair, group commit) vs raw single-stream appends',
        value: Math.round(grouped.pairsPerSecond * 2),
        unit: 'commands/s',
        baseline: Math.round(rawPerSecond),
        baselineName: 'raw single-stream append, one writer',
        ratio: (grouped.pairsPerSecond * 2) / rawPerSecond,
      },
      ...(rawInsertsPerSecond !== undefined
        ? [
            {
              target: name,
              name: 'ledger commands (group commit) vs single-row INSERT transactions',
              value: Math.round(grouped.pairsPerSecond * 2),
              unit: 'commands/s',
              baseline: Math.round(rawInsertsPerSecond),
              baselineName: 'single-row INSERT + commit, one client',
              ratio: (grouped.pairsPerSecond * 2) / rawInsertsPerSecond,
            },
          ]
        : []),
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
