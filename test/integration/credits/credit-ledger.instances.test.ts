import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { PurchaseCredits, RegisterAccount } from '../../../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../../../src/credits/commands/credit-ledger.js';
import { loadConfig } from '../../../src/platform/config/app-config.js';
import { commandEnvelope } from '../../../src/platform/event-sourcing/command-metadata.js';
import { serviceComposition } from '../../../src/composition/service-composition.js';
import { ServiceContext } from '../../../src/platform/service-context.js';
import { startTestService, type TestService } from '../../support/service.js';

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

describe('credit ledger across two service instances on one PostgreSQL server', () => {
  let service: TestService;
  let second: ServiceContext;
  let dataDir: string;

  beforeAll(async () => {
    service = await startTestService('postgres');
    dataDir = mkdtempSync(join(tmpdir(), 'second-'));
    second = await ServiceContext.open(
      loadConfig({ DATABASE_URL: service.database!.url!, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }),
      { ...serviceComposition, pollIntervalMs: 20 },
    );
  });

  afterAll(async () => {
    await second.close();
    await service.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never grants more than is available when both instances reserve at once', async () => {
    const bus = service.app.get(CommandBus);
    const { accountId } = await bus.execute(
      new RegisterAccount('two-instances@example.com', 'free', undefined, operator()),
    );
    await bus.execute(new PurchaseCredits(accountId, 30, operator())); // 50 + 30 = 80 available
    const payer = `account:${accountId}`;
    const ledgers = [service.app.get(CreditLedger), new CreditLedger(second)];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 120 }, (_, i) =>
        ledgers[i % 2]!.reserve({ payer, amount: 1, category: 'host', channel: 'api' }, operator()),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(80);
    const refusals = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => (o as PromiseRejectedResult).reason as { code?: string });
    expect(refusals).toHaveLength(40);
    expect(refusals.map((r) => r.code ?? String(r))).toEqual(Array(40).fill('insufficient_credits'));
    expect(await ledgers[1]!.available(payer)).toBe(0);
  });
});
