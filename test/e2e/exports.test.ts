import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { gunzipSync } from 'node:zlib';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { CreditQueries } from '../../src/credits/queries/credit-queries.js';
import { SERVICE_SCOPE } from '../../src/platform/auth/access.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { AccessTokens } from '../../src/platform/auth/access-tokens.js';
import { csvColumns } from '../../src/exports/domain/export-formats.js';
import { ExportFileSweeper } from '../../src/exports/export-file-sweeper.js';
import { ExportWorkerPool, exportPoolPorts } from '../../src/exports/export-worker-pool.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import type { ObservationIndex } from '../../src/search/observation-index/observation-index.port.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { expectOneEventBatchesToRebuildLiveDocuments } from '../support/one-event-batches.js';

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
const HOSTS = 300;
const DNS = 250;

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += char;
  }
  return records;
}

describe('exports over HTTP (PGlite)', () => {
  let service: TestService;
  let clock: ManualClock;
  let bus: CommandBus;
  let ledger: CreditLedger;
  let owner: { accountId: string; key: string };
  let other: { accountId: string; key: string };

  async function account(plan: 'professional' | 'free', label: string) {
    const { accountId } = await bus.execute(
      new RegisterAccount(`${label}-${Date.now()}-${Math.random()}@example.com`, plan, undefined, operator()),
    );
    const { key } = await bus.execute(new IssueApiKey(accountId, label, operator()));
    return { accountId: accountId as string, key: key as string };
  }

  const call = (key: string, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, headers = {}) =>
    service.app.inject({
      method,
      url: `/api/v2/common/exports${url}`,
      headers: { 'x-api-key': key, ...headers },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });

  async function waitFor(key: string, id: string, done: (job: Record<string, unknown>) => boolean) {
    for (let i = 0; i < 400; i++) {
      const job = call(key, 'GET', `/${id}/poll`).then((r) => r.json() as Record<string, unknown>);
      const value = await job;
      if (done(value)) return value;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const events = await service.context.storage.eventStore.readStream(`export-${id}`);
    throw new Error(
      `export ${id} did not reach the expected state: ${JSON.stringify(events.map((e) => [e.type, e.data]))}`,
    );
  }

  /** The job's charge reached the ledger (ExportCharged). */
  async function waitUntilCharged(id: string): Promise<void> {
    for (let i = 0; i < 400; i++) {
      const events = await service.context.storage.eventStore.readStream(`export-${id}`);
      if (events.some((event) => event.type === 'ExportCharged')) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`export ${id} was never charged`);
  }

  const finished = (job: Record<string, unknown>) =>
    ['completed', 'failed', 'cancelled'].includes(job.status as string);

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    service = await startTestService('pglite', { clock, env: { EXPORT_LEASE_MS: '3000' } });
    await writeGenerated(service.context.observations, 'hosts', {
      count: HOSTS,
      seed: 'exports-e2e',
      now: clock.now(),
    });
    await writeGenerated(service.context.observations, 'dns', {
      count: DNS,
      seed: 'exports-e2e',
      now: clock.now(),
    });
    bus = service.app.get(CommandBus);
    ledger = service.app.get(CreditLedger);
    owner = await account('professional', 'owner');
    other = await account('professional', 'other');
  });
  afterAll(async () => {
    await service?.dispose();
  });

  it('estimates for free, with the quota before and after', async () => {
    const before = await ledger.available(`account:${owner.accountId}`);
    const response = await call(owner.key, 'POST', '/hosts/estimate', {
      raw_query: 'port:>0',
      format: 'csv',
    });
    expect(response.statusCode).toBe(200);
    const estimate = response.json();
    expect(estimate).toEqual({
      estimated_count: HOSTS,
      quota_current: { results_used: 0, results_max: 100_000 },
      quota_after_export: { results_used: HOSTS, results_max: 100_000 },
      will_be_partial: false,
      partial_limit: null,
      estimated_file_size_bytes: expect.any(Number),
      estimated_credits: Math.ceil(HOSTS / 100),
    });
    expect(await ledger.available(`account:${owner.accountId}`)).toBe(before);
    expect((await call(owner.key, 'POST', '/nope/estimate', { raw_query: 'x' })).statusCode).toBe(404);
    expect(
      (await call(owner.key, 'POST', '/hosts', { raw_query: 'port:1', format: 'xml' })).json().code,
    ).toBe('invalid_input');
    expect((await call(owner.key, 'POST', '/hosts', { raw_query: 'port:[', format: 'csv' })).statusCode).toBe(
      422,
    );
  });

  it('exports csv: charged ceil(rows/100), both download encodings give the same bytes', async () => {
    const before = await ledger.available(`account:${owner.accountId}`);
    const created = await call(owner.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'csv' });
    expect(created.statusCode).toBe(202);
    const { export_id: id } = created.json();
    const job = await waitFor(owner.key, id, finished);
    expect(job).toMatchObject({
      id,
      status: 'completed',
      search_type: 'hosts',
      raw_query: 'port:>0',
      format: 'csv',
      results_count: HOSTS,
      credits_consumed: Math.ceil(HOSTS / 100),
      estimated_count: HOSTS,
      was_truncated: false,
      file_available: true,
    });
    expect(job.truncation_reason).toBeUndefined();
    expect(Date.parse(job.expires_at as string)).toBeGreaterThan(Date.parse(job.created_at as string));
    await waitFor(owner.key, id, () => true);
    expect(await ledger.available(`account:${owner.accountId}`)).toBe(before - Math.ceil(HOSTS / 100));

    const gz = await call(owner.key, 'GET', `/${id}/download`, undefined, {
      'accept-encoding': 'gzip, deflate',
    });
    expect(gz.statusCode).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.rawPayload.length).toBe(job.file_size_bytes);
    const plain = await call(owner.key, 'GET', `/${id}/download`, undefined, {
      'accept-encoding': 'identity',
    });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^text\/csv/);
    const unzipped = gunzipSync(gz.rawPayload);
    expect(plain.rawPayload.equals(unzipped)).toBe(true);
    expect(unzipped.length).toBe(job.original_size_bytes);
    const records = parseCsv(unzipped.toString('utf8'));
    expect(records[0]).toEqual(csvColumns('hosts'));
    expect(records).toHaveLength(HOSTS + 1);
    expect(records.every((record) => record.length === records[0]!.length)).toBe(true);
    // Banners hold CRLF, quotes and commas: they survive the round trip.
    expect(records.some((record) => record[9]!.includes('\r\n'))).toBe(true);
  });

  it('exports json (one document per line) and txt (one primary value per line)', async () => {
    const json = (
      await call(owner.key, 'POST', '/dns', {
        raw_query: 'type:a OR type:mx OR type:txt OR type:cname OR type:ns OR type:aaaa',
        format: 'json',
      })
    ).json();
    const txt = (
      await call(owner.key, 'POST', '/dns', {
        raw_query: 'type:a OR type:mx OR type:txt OR type:cname OR type:ns OR type:aaaa',
        format: 'txt',
      })
    ).json();
    const jsonJob = await waitFor(owner.key, json.export_id, finished);
    const txtJob = await waitFor(owner.key, txt.export_id, finished);
    expect(jsonJob.status).toBe('completed');
    expect(txtJob.results_count).toBe(jsonJob.results_count);
    const documents = (await call(owner.key, 'GET', `/${json.export_id}/download`)).body
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { name: string });
    expect(documents).toHaveLength(jsonJob.results_count as number);
    const names = (await call(owner.key, 'GET', `/${txt.export_id}/download`)).body
      .split('\n')
      .filter(Boolean);
    expect(names).toEqual(documents.map((d) => d.name));
    const listed = (await call(owner.key, 'GET', '')).json().exports as Array<{
      id: string;
      created_at: string;
    }>;
    expect(listed.map((e) => e.created_at)).toEqual([...listed.map((e) => e.created_at)].sort().reverse());
    expect(listed.map((e) => e.id)).toEqual(expect.arrayContaining([json.export_id, txt.export_id]));
  });

  it("another account's export is 404, never 403", async () => {
    const { export_id: id } = (
      await call(owner.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'txt' })
    ).json();
    await waitFor(owner.key, id, finished);
    for (const [method, url] of [
      ['GET', `/${id}/poll`],
      ['GET', `/${id}/download`],
      ['DELETE', `/${id}`],
    ] as const) {
      const response = await call(other.key, method, url);
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('not_found');
    }
    expect((await call(other.key, 'GET', '')).json().exports).toEqual([]);
    expect((await call(owner.key, 'GET', `/${id}/poll`)).statusCode).toBe(200);
  });

  it('cancels a pending export (nothing charged) and refuses its download', async () => {
    const pool = service.app.get(ExportWorkerPool);
    await pool.stop();
    try {
      const before = await ledger.available(`account:${owner.accountId}`);
      const { export_id: id } = (
        await call(owner.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'csv' })
      ).json();
      expect((await call(owner.key, 'GET', `/${id}/poll`)).json().status).toBe('pending');
      const early = await call(owner.key, 'GET', `/${id}/download`);
      expect(early.statusCode).toBe(409);
      expect(early.json().code).toBe('export_not_ready');
      const cancelled = await call(owner.key, 'DELETE', `/${id}`);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({
        outcome: 'cancelled',
        export: { status: 'cancelled', credits_consumed: 0 },
      });
      expect(await ledger.available(`account:${owner.accountId}`)).toBe(before);
      expect((await call(owner.key, 'GET', `/${id}/download`)).json().code).toBe('export_not_ready');
      // DELETE on a cancelled export deletes it.
      expect((await call(owner.key, 'DELETE', `/${id}`)).json().outcome).toBe('deleted');
      expect((await call(owner.key, 'GET', `/${id}/poll`)).statusCode).toBe(404);
    } finally {
      pool.start();
    }
  });

  it('cancels during processing: stops at the next batch, charged for rows already written, no file', async () => {
    const appPool = service.app.get(ExportWorkerPool);
    await appPool.stop();
    // A slow index: one small batch every 40 ms, so the export is still running when cancelled.
    const slow: Pick<ObservationIndex, 'stream'> = {
      async *stream(dataset, query, _batchSize, signal) {
        for await (const batch of service.context.observations.stream(dataset, query, 10, signal)) {
          await new Promise((resolve) => setTimeout(resolve, 40));
          yield batch;
        }
      },
    };
    const pool = new ExportWorkerPool(exportPoolPorts(service.app), {
      concurrency: 2,
      leaseMs: 600,
      retentionMs: 3_600_000,
      pollIntervalMs: 20,
      index: slow,
    });
    pool.start();
    try {
      const before = await ledger.available(`account:${owner.accountId}`);
      const { export_id: id } = (
        await call(owner.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'json' })
      ).json();
      const running = await waitFor(
        owner.key,
        id,
        (job) => job.status === 'processing' && (job.results_count as number) > 0,
      );
      expect(running.status).toBe('processing');
      const response = await call(owner.key, 'DELETE', `/${id}`);
      expect(response.json().outcome).toBe('cancelled');
      const job = await waitFor(owner.key, id, (j) => j.status === 'cancelled');
      const rows = job.results_count as number;
      expect(rows).toBeGreaterThan(0);
      expect(rows).toBeLessThan(HOSTS);
      expect(job.credits_consumed).toBe(Math.ceil(rows / 100));
      for (let i = 0; i < 100 && pool.active > 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(pool.active).toBe(0);
      expect(await ledger.available(`account:${owner.accountId}`)).toBe(before - Math.ceil(rows / 100));
      expect((await service.context.files.list()).filter((key) => key.startsWith(id))).toEqual([]);
    } finally {
      await pool.stop();
      appPool.start();
    }
  });

  it('truncates to what the balance covers, ends completed and stays downloadable', async () => {
    const poor = await account('professional', 'poor');
    const payer = `account:${poor.accountId}`;
    // Spend all but 2 credits.
    const spend = (await ledger.available(payer)) - 2;
    const reservation = await ledger.reserve(
      { payer, amount: spend, category: 'host', channel: 'api' },
      operator(),
    );
    await ledger.settle(reservation, spend, operator());
    expect(await ledger.available(payer)).toBe(2);
    const estimate = (await call(poor.key, 'POST', '/hosts/estimate', { raw_query: 'port:>0' })).json();
    expect(estimate).toMatchObject({ estimated_count: HOSTS, will_be_partial: true, partial_limit: 200 });
    const { export_id: id } = (
      await call(poor.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'txt' })
    ).json();
    const job = await waitFor(poor.key, id, finished);
    expect(job).toMatchObject({
      status: 'completed',
      results_count: 200,
      credits_consumed: 2,
      was_truncated: true,
    });
    expect(job.truncation_reason).toMatch(/credit balance covered 200 of 300/);
    expect(await ledger.available(payer)).toBe(0);
    const body = (await call(poor.key, 'GET', `/${id}/download`)).body;
    expect(body.split('\n').filter(Boolean)).toHaveLength(200);
  });

  it('paying never locks the caller out: a truncated export paid with the last purchased credit stays pollable, downloadable and deletable', async () => {
    // A Free account reaches the data API only through purchased credits (Authentication 3).
    const payerAccount = await account('free', 'last-credit');
    const payer = `account:${payerAccount.accountId}`;
    await ledger.purchase(payer, 2, operator());
    // Spend the monthly allocation, so the export is paid with the 2 purchased credits.
    const allocation = (await ledger.available(payer)) - 2;
    const spent = await ledger.reserve(
      { payer, amount: allocation, category: 'host', channel: 'api' },
      operator(),
    );
    await ledger.settle(spent, allocation, operator());
    await waitForProjections(service, ['credit-state']);

    const { export_id: id } = (
      await call(payerAccount.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'txt' })
    ).json();
    const job = await waitFor(payerAccount.key, id, finished);
    expect(job).toMatchObject({
      status: 'completed',
      results_count: 200,
      credits_consumed: 2,
      was_truncated: true,
    });
    await waitFor(payerAccount.key, id, () => true);
    await waitForProjections(service, ['credit-state', 'exports']);
    expect((await ledger.state(payer)).purchasedBalance).toBe(0);

    // A new request is a personal data request: refused now that no purchased credit is left.
    const again = await call(payerAccount.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'txt' });
    expect(again.statusCode).toBe(402);
    expect(again.json().code).toBe('entitlement_required');
    // What was paid for stays reachable.
    const polled = await call(payerAccount.key, 'GET', `/${id}/poll`);
    expect(polled.statusCode).toBe(200);
    expect(polled.json()).toMatchObject({ status: 'completed', was_truncated: true });
    const listed = await call(payerAccount.key, 'GET', '');
    expect(listed.statusCode).toBe(200);
    expect(listed.json().exports.map((e: { id: string }) => e.id)).toEqual([id]);
    const file = await call(payerAccount.key, 'GET', `/${id}/download`);
    expect(file.statusCode).toBe(200);
    expect(file.body.split('\n').filter(Boolean)).toHaveLength(200);
    const removed = await call(payerAccount.key, 'DELETE', `/${id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ export_id: id, outcome: 'deleted' });
    expect((await call(payerAccount.key, 'DELETE', '')).json()).toEqual({
      deleted_count: 0,
      cancelled_count: 0,
    });
  });

  it('an export made with an MCP token counts in usage_mcp.exports (a subset of usage, not an extra charge)', async () => {
    const mcpUser = await account('professional', 'mcp');
    const { token } = await service.app.get(AccessTokens).issue({
      accountId: mcpUser.accountId,
      scopes: [SERVICE_SCOPE],
      client: 'mcp',
      ttlSeconds: 3600,
    });
    const bearer = { authorization: `Bearer ${token}` };
    const viaMcp = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/exports/hosts',
      headers: bearer,
      payload: { raw_query: 'port:>0', format: 'txt' },
    });
    expect(viaMcp.statusCode).toBe(202);
    const mcpId = viaMcp.json().export_id as string;
    const { export_id: keyId } = (
      await call(mcpUser.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'txt' })
    ).json();
    const mcpJob = await waitFor(mcpUser.key, mcpId, finished);
    const keyJob = await waitFor(mcpUser.key, keyId, finished);
    await waitUntilCharged(mcpId);
    await waitUntilCharged(keyId);
    await waitForProjections(service, ['credit-usage']);
    const usage = await service.app.get(CreditQueries).usage(mcpUser.accountId);
    const exportsOf = (list: ReadonlyArray<{ category: string; credits: number }>) =>
      list.find((entry) => entry.category === 'exports')?.credits;
    expect(exportsOf(usage.usage)).toBe(
      (mcpJob.credits_consumed as number) + (keyJob.credits_consumed as number),
    );
    expect(exportsOf(usage.usage_mcp)).toBe(mcpJob.credits_consumed);
    expect(mcpJob.credits_consumed).toBe(Math.ceil(HOSTS / 100));
  });

  it('the browser twins (/api/v2/data/exports) estimate, start, bill and download exactly like the personal routes; unsafe methods need the CSRF token', async () => {
    const email = `browser-${Date.now()}@example.com`;
    const { accountId } = await bus.execute(
      new RegisterAccount(email, 'professional', 'browser-password-0123456789', operator()),
    );
    const { key } = await bus.execute(new IssueApiKey(accountId, 'browser', operator()));
    const login = await service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { email, password: 'browser-password-0123456789' },
    });
    expect(login.statusCode).toBe(200);
    const cookies = Object.fromEntries(login.cookies.map((cookie) => [cookie.name, cookie.value]));
    const csrf = cookies[CSRF_COOKIE]!;
    const cookie = `${SESSION_COOKIE}=${cookies[SESSION_COOKIE]}; ${CSRF_COOKIE}=${csrf}`;
    const browser = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, withCsrf = true) =>
      service.app.inject({
        method,
        url: `/api/v2/data/exports${url}`,
        headers: { cookie, ...(withCsrf ? { 'x-csrf-token': csrf } : {}) },
        ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
      });
    const request = { raw_query: 'port:>0', format: 'csv' };

    // The free estimate is the personal one (plus the session's service_credits), and costs nothing.
    const before = await ledger.available(`account:${accountId}`);
    const estimate = await browser('POST', '/hosts/estimate', request);
    expect(estimate.statusCode).toBe(200);
    const { service_credits: serviceCredits, ...estimated } = estimate.json();
    expect(estimated).toEqual((await call(key, 'POST', '/hosts/estimate', request)).json());
    expect(serviceCredits).toEqual({ charged: 0, available: before });

    // Without the CSRF header an unsafe method is refused before anything is recorded.
    for (const [method, url] of [
      ['POST', '/hosts/estimate'],
      ['POST', '/hosts'],
      ['DELETE', ''],
    ] as const) {
      const refused = await browser(method, url, method === 'POST' ? request : undefined, false);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('csrf_failed');
    }
    expect((await call(key, 'GET', '')).json().exports).toEqual([]);

    // One export through each surface: the same job, the same charge, the same file.
    const started = await browser('POST', '/hosts', request);
    expect(started.statusCode).toBe(202);
    const browserId = started.json().export_id as string;
    const personalId = (await call(key, 'POST', '/hosts', request)).json().export_id as string;
    const browserJob = await waitFor(key, browserId, finished);
    const personalJob = await waitFor(key, personalId, finished);
    await waitUntilCharged(browserId);
    await waitUntilCharged(personalId);
    const polled = await browser('GET', `/${browserId}/poll`);
    expect(polled.statusCode).toBe(200);
    expect(polled.json()).toMatchObject({ id: browserId, status: 'completed', results_count: HOSTS });
    const comparable = ({ id: _id, created_at: _c, expires_at: _e, ...job }: Record<string, unknown>) => job;
    expect(comparable(browserJob)).toEqual(comparable(personalJob));
    expect(browserJob.credits_consumed).toBe(Math.ceil(HOSTS / 100));
    expect(await ledger.available(`account:${accountId}`)).toBe(before - 2 * Math.ceil(HOSTS / 100));
    await waitForProjections(service, ['credit-usage']);
    const usage = await service.app.get(CreditQueries).usage(accountId);
    expect(usage.usage.find((entry) => entry.category === 'exports')?.credits).toBe(
      2 * Math.ceil(HOSTS / 100),
    );
    const browserFile = await browser('GET', `/${browserId}/download`);
    expect(browserFile.statusCode).toBe(200);
    expect(browserFile.headers['content-type']).toMatch(/^text\/csv/);
    expect(parseCsv(browserFile.body)).toHaveLength(HOSTS + 1);
    expect(browserFile.body).toBe((await call(key, 'GET', `/${personalId}/download`)).body);

    // The list is the account's whichever surface asks; another account's export stays a 404.
    const listed = (await browser('GET', '')).json().exports as Array<{ id: string }>;
    expect(listed.map((job) => job.id).sort()).toEqual([browserId, personalId].sort());
    const { export_id: othersId } = (
      await call(other.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'txt' })
    ).json();
    expect((await browser('GET', `/${othersId}/poll`)).json().code).toBe('not_found');
    expect((await browser('DELETE', `/${othersId}`)).statusCode).toBe(404);

    // Delete one, then delete all, through the same commands.
    expect((await browser('DELETE', `/${browserId}`)).json()).toMatchObject({ outcome: 'deleted' });
    expect((await browser('DELETE', '')).json()).toMatchObject({ deleted_count: 1, cancelled_count: 0 });
    expect((await call(key, 'GET', '')).json().exports).toEqual([]);
    expect((await call(other.key, 'GET', `/${othersId}/poll`)).statusCode).toBe(200);
  });

  it('deletes a completed export with its file; DELETE / reports deleted_count', async () => {
    const { export_id: id } = (
      await call(owner.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'csv' })
    ).json();
    await waitFor(owner.key, id, finished);
    expect((await service.context.files.list()).filter((key) => key.startsWith(id))).toHaveLength(1);
    const response = await call(owner.key, 'DELETE', `/${id}`);
    expect(response.json()).toEqual({ export_id: id, outcome: 'deleted' });
    expect((await service.context.files.list()).filter((key) => key.startsWith(id))).toEqual([]);
    expect((await call(owner.key, 'GET', `/${id}/poll`)).statusCode).toBe(404);
    expect((await call(owner.key, 'GET', `/${id}/download`)).statusCode).toBe(404);

    const remaining = (await call(owner.key, 'GET', '')).json().exports.length as number;
    expect(remaining).toBeGreaterThan(0);
    const all = await call(owner.key, 'DELETE', '');
    expect(all.json()).toEqual({ deleted_count: remaining, cancelled_count: 0 });
    expect((await call(owner.key, 'GET', '')).json().exports).toEqual([]);
  });

  it('expires files: the sweeper deletes them and download answers export_expired', async () => {
    const { export_id: id } = (
      await call(other.key, 'POST', '/hosts', { raw_query: 'port:>0', format: 'csv' })
    ).json();
    const job = await waitFor(other.key, id, finished);
    expect(job.file_available).toBe(true);
    clock.set(new Date(Date.parse(job.expires_at as string) + 1000));
    await service.app.get(ExportFileSweeper).sweepOnce();
    expect((await service.context.files.list()).filter((key) => key.startsWith(id))).toEqual([]);
    const expired = await call(other.key, 'GET', `/${id}/download`);
    expect(expired.statusCode).toBe(410);
    expect(expired.json().code).toBe('export_expired');
    expect((await call(other.key, 'GET', `/${id}/poll`)).json()).toMatchObject({
      status: 'completed',
      file_available: false,
    });
  });

  it('every projection takes each event of this log on its own and builds the documents it holds live', async () => {
    await expectOneEventBatchesToRebuildLiveDocuments(service);
  });
});
