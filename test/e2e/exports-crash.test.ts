import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { startTestService, type TestService } from '../support/service.js';

const HOSTS = 20_000;

/**
 * The worker process is killed (SIGKILL) in the middle of an export and started again on the same PostgreSQL
 * server and data directory: the job must end completed or failed, its file whole or absent, charged once.
 */
describe('an export survives its worker being killed (PostgreSQL server, child processes)', () => {
  let service: TestService;
  let key: string;
  let payer: string;
  const children: ServiceProcess[] = [];

  beforeAll(async () => {
    // The in-process service only seeds and reads the ledger: it runs no export workers.
    service = await startTestService('postgres', { env: { EXPORT_WORKERS: '0' } });
    await writeGenerated(service.context.observations, 'hosts', {
      count: HOSTS,
      seed: 'crash',
      now: new Date(),
    });
    const bus = service.app.get(CommandBus);
    const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
    const { accountId } = await bus.execute(
      new RegisterAccount(`crash-${Date.now()}@example.com`, 'enterprise', undefined, operator()),
    );
    ({ key } = await bus.execute(new IssueApiKey(accountId, 'crash', operator())));
    payer = `account:${accountId}`;
    await writeGenerated(service.context.observations, 'hosts', {
      count: HOSTS,
      seed: 'crash',
      now: new Date(),
    });
  }, 120_000);

  afterAll(async () => {
    for (const child of children) await child.stop('SIGKILL');
    await service?.dispose();
  });

  const env = (batchSize = '10') => ({
    DATABASE_URL: service.database!.url!,
    DATA_DIR: service.dataDir,
    EXPORT_WORKERS: '1',
    EXPORT_BATCH_SIZE: batchSize,
    EXPORT_LEASE_MS: '1500',
  });

  async function poll(child: ServiceProcess, id: string): Promise<Record<string, unknown>> {
    const response = await fetch(`${child.baseUrl}/api/v2/common/exports/${id}/poll`, {
      headers: { 'x-api-key': key },
    });
    return (await response.json()) as Record<string, unknown>;
  }

  it('ends completed with a whole file and one charge, or failed with no file and no charge', async () => {
    const ledger = service.app.get(CreditLedger);
    const before = await ledger.available(payer);
    const first = await startServiceProcess(env());
    children.push(first);
    const created = await fetch(`${first.baseUrl}/api/v2/common/exports/hosts`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ raw_query: 'port:>0', format: 'json' }),
    });
    expect([created.status, created.status === 202 ? '' : await created.text()]).toEqual([202, '']);
    const { export_id: id } = (await created.json()) as { export_id: string };

    let running: Record<string, unknown> = {};
    for (let i = 0; i < 1500; i++) {
      running = await poll(first, id);
      if (running.status === 'processing' && (running.results_count as number) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(running.status).toBe('processing');
    expect(running.results_count as number).toBeLessThan(HOSTS);
    await first.stop('SIGKILL');

    // The restarted worker reads in large batches: the crash was the point, not a slow second run.
    const second = await startServiceProcess(env('1000'));
    children.push(second);
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 1500; i++) {
      job = await poll(second, id);
      if (['completed', 'failed'].includes(job.status as string) && job.credits_consumed !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(['completed', 'failed']).toContain(job.status);
    // Wait until the charge reached the ledger (settled right after the job's last event).
    let charged = -1;
    for (let i = 0; i < 200; i++) {
      const state = await ledger.state(payer);
      charged = before - (await ledger.available(payer));
      if (Object.keys(state.openReservations).length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const committed = readdirSync(join(service.dataDir, 'exports')).filter(
      (name) => name.startsWith(id) && name.endsWith('.gz'),
    );

    if (job.status === 'completed') {
      expect(job.results_count).toBe(HOSTS);
      expect(job.credits_consumed).toBe(Math.ceil(HOSTS / 100));
      expect(charged).toBe(Math.ceil(HOSTS / 100));
      expect(committed).toEqual([`${id}-2.gz`]);
      const body = await (
        await fetch(`${second.baseUrl}/api/v2/common/exports/${id}/download`, {
          headers: { 'x-api-key': key, 'accept-encoding': 'identity' },
        })
      ).text();
      const rows = body.split('\n').filter(Boolean);
      expect(rows).toHaveLength(HOSTS);
      expect(new Set(rows.map((row) => (JSON.parse(row) as { id: string }).id)).size).toBe(HOSTS);
      expect(Buffer.byteLength(body)).toBe(job.original_size_bytes);
    } else {
      expect(job.credits_consumed).toBe(0);
      expect(charged).toBe(0);
      expect(committed).toEqual([]);
    }
    expect(Object.keys((await ledger.state(payer)).openReservations)).toEqual([]);
  }, 180_000);
});
