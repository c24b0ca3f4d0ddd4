import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import pg from 'pg';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { CreditQueries } from '../../src/credits/queries/credit-queries.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
const NOW = new Date();

async function seed(service: TestService): Promise<{ accountId: string; key: string }> {
  for (const dataset of DATASETS) {
    await writeGenerated(service.context.observations, dataset, { count: 300, seed: 'search-e2e', now: NOW });
  }
  const bus = service.app.get(CommandBus);
  const { accountId } = await bus.execute(
    new RegisterAccount(`search-${Date.now()}@example.com`, 'professional', undefined, operator()),
  );
  const { key } = await bus.execute(new IssueApiKey(accountId, 'search', operator()));
  return { accountId, key };
}

/** Reads an SSE body chunk by chunk, as a real client does. */
async function readEvents(
  response: Response,
  onEvent?: (event: Record<string, unknown>) => boolean | void,
): Promise<Array<Record<string, unknown>>> {
  const events: Array<Record<string, unknown>> = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let boundary;
    while ((boundary = buffer.indexOf('\n\n')) !== -1) {
      const frame = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      if (!data) continue;
      const event = JSON.parse(data) as Record<string, unknown>;
      events.push(event);
      if (onEvent?.(event) === true) {
        await reader.cancel();
        return events;
      }
    }
  }
  return events;
}

describe('unified search over HTTP (PGlite)', () => {
  let service: TestService;
  let key: string;
  let accountId: string;
  let base: string;

  beforeAll(async () => {
    service = await startTestService('pglite');
    ({ key, accountId } = await seed(service));
    await service.app.listen(0, '127.0.0.1');
    base = await service.app.getUrl();
    base = base.replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await service.dispose();
  });

  const post = (body: unknown, extra: Record<string, string> = {}) =>
    service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/search',
      headers: { 'x-api-key': key, 'content-type': 'application/json', ...extra },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('enforces every limit of the search request', async () => {
    const tooBig = await post({ raw_query: 'nginx', pad: 'x'.repeat(5000) });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().code).toBe('payload_too_large');
    for (const body of [
      { raw_query: '   ' },
      { raw_query: 'a'.repeat(513) },
      { raw_query: 'x', per_type_limit: 0 },
      { raw_query: 'x', per_type_limit: -3 },
      { raw_query: 'x', time_frame: 'forever' },
      {},
    ]) {
      const response = await post({ ...body, stream: false });
      expect(response.statusCode).toBe(422);
      expect(response.json().code).toBe('invalid_input');
    }
    const syntax = await post({ raw_query: 'port:443 AND (nginx', stream: false });
    expect(syntax.statusCode).toBe(422);
    expect(syntax.json()).toMatchObject({ code: 'invalid_query', details: { position: expect.any(Number) } });
    const capped = await post({ raw_query: 'port:443', per_type_limit: 1000, stream: false });
    expect(capped.statusCode).toBe(200);
    expect(capped.json().query.per_type_limit).toBe(25);
    expect(capped.json().results.hosts.length).toBeLessThanOrEqual(25);
  });

  it('stream:false answers one JSON document with per-dataset status, totals and vulnerability refs on hosts', async () => {
    const response = await post({ raw_query: 'port:443', stream: false });
    expect(response.statusCode).toBe(200);
    const outcome = response.json();
    expect(outcome.per_type_status).toEqual({
      hosts: 'ok',
      dns: 'invalid_query',
      vhosts: 'ok',
      whois: 'invalid_query',
    });
    expect(outcome.partial).toBe(false);
    expect(outcome.results.hosts.length).toBeGreaterThan(0);
    for (const item of outcome.results.hosts) {
      expect(item.raw.port).toBe(443);
      expect(item.raw.vulnerability_ref).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    expect(outcome.totals.dns).toEqual({ count: null, lower_bound: false }); // not applicable is never zero
    expect(outcome.credits_charged).toBe(1);
  });

  it('SSE: a real HTTP client reads partial, results and facets chunks, ending with final', async () => {
    const response = await fetch(`${base}/api/v2/common/data/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ raw_query: 'nginx' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await readEvents(response);
    const types = events.map((e) => e.type);
    expect(types.at(-1)).toBe('final');
    expect(types.filter((t) => t === 'partial')).toHaveLength(4);
    expect(types).toContain('results');
    const final = events.at(-1)!;
    expect(Object.keys(final.per_type_status as object).sort()).toEqual(['dns', 'hosts', 'vhosts', 'whois']);
  });

  it('Events 1: stream:false carries the facets the stream sends, and the final chunk holds the same outcome as the JSON answer', async () => {
    const response = await fetch(`${base}/api/v2/common/data/search`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ raw_query: 'nginx' }),
    });
    const events = await readEvents(response);
    const streamed = Object.fromEntries(
      events.filter((e) => e.type === 'facets').map((e) => [e.dataset as string, e.facets]),
    );
    expect(Object.keys(streamed)).toEqual(['hosts']);
    const { type, ...final } = events.at(-1)!;
    expect(type).toBe('final');

    const answer = (await post({ raw_query: 'nginx', stream: false })).json();
    expect(answer.facets).toEqual(streamed);
    // vulnerability_ref is sealed afresh for every answer; everything else is the same outcome.
    const withoutRefs = (outcome: Record<string, unknown>) =>
      JSON.parse(
        JSON.stringify(outcome, (name, value: unknown) => (name === 'vulnerability_ref' ? undefined : value)),
      );
    expect(withoutRefs(answer)).toEqual(withoutRefs(final));
  });

  it('charges match the pricing table and usage categories; the fields vocabulary is free', async () => {
    const queries = service.app.get(CreditQueries);
    const before = await queries.usage(accountId);
    await post({ raw_query: 'port:22', stream: false }); // hosts + vhosts answer: 1 credit, host
    const whois = await post({ raw_query: 'registrar:*', stream: false, broad: true });
    expect([200, 422]).toContain(whois.statusCode);
    const word = (await post({ raw_query: 'example', stream: false })).json(); // whois answers, but no rows → 1
    expect(word.per_type_status.whois).toBe('ok');
    expect(word.credits_charged).toBe(1);
    const fields = await service.app.inject({
      method: 'GET',
      url: '/api/v2/common/data/search/fields',
      headers: { 'x-api-key': key },
    });
    expect(fields.statusCode).toBe(200);
    expect(fields.json().fields.find((f: { name: string }) => f.name === 'favicon.hash')).toMatchObject({
      type: 'integer',
    });
    await waitForProjections(service, ['credit-usage']);
    const after = await queries.usage(accountId);
    const delta = (category: string) =>
      (after.usage.find((u) => u.category === category)?.credits ?? 0) -
      (before.usage.find((u) => u.category === category)?.credits ?? 0);
    expect(delta('host')).toBeGreaterThanOrEqual(1);
  });

  describe('"Most searches cost 1 credit": a unified search pays the WHOIS price only when WHOIS returns rows', () => {
    const queries = () => service.app.get(CreditQueries);
    /** The search's JSON answer and what it added to each usage category. */
    async function charged(rawQuery: string) {
      await waitForProjections(service, ['credit-usage']);
      const before = await queries().usage(accountId);
      const response = await post({ raw_query: rawQuery, stream: false });
      expect(response.statusCode).toBe(200);
      await waitForProjections(service, ['credit-usage']);
      const after = await queries().usage(accountId);
      const booked = Object.fromEntries(
        after.usage
          .map(({ category, credits }) => [
            category,
            credits - (before.usage.find((u) => u.category === category)?.credits ?? 0),
          ])
          .filter(([, credits]) => credits !== 0),
      );
      return { outcome: response.json(), booked };
    }
    const rows = (outcome: { results: Record<string, unknown[]> }, dataset: string) =>
      outcome.results[dataset]!.length;

    it('a bare word WHOIS answers without rows costs 1, booked under the dataset that returned rows', async () => {
      const { outcome, booked } = await charged('nginx');
      expect(outcome.per_type_status).toEqual({ hosts: 'ok', dns: 'ok', vhosts: 'ok', whois: 'ok' });
      expect(rows(outcome, 'whois')).toBe(0);
      expect(rows(outcome, 'hosts')).toBeGreaterThan(0);
      expect(outcome.credits_charged).toBe(1);
      expect(booked).toEqual({ host: 1 });
    });

    it('a bare domain no dataset has rows for costs 1, booked under the first dataset that answered', async () => {
      const { outcome, booked } = await charged('zzzz-unseen-name.com');
      expect(outcome.per_type_status.whois).toBe('ok');
      for (const dataset of DATASETS) expect(rows(outcome, dataset)).toBe(0);
      expect(outcome.credits_charged).toBe(1);
      expect(booked).toEqual({ host: 1 });
    });

    it('a bare domain WHOIS returns rows for costs the WHOIS price, booked as WHOIS', async () => {
      const sample = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/whois',
        headers: { 'x-api-key': key },
        payload: { raw_query: 'domain:*.com', include: 'domain' },
      });
      const domain = (sample.json().data as Array<{ domain: string }>)[0]!.domain;
      const { outcome, booked } = await charged(domain);
      expect(rows(outcome, 'whois')).toBeGreaterThan(0);
      expect(outcome.credits_charged).toBe(3);
      expect(booked).toEqual({ whois: 3 });
    });

    it('the fields vocabulary publishes the exact pricing rule', async () => {
      const fields = await service.app.inject({
        method: 'GET',
        url: '/api/v2/common/data/search/fields',
        headers: { 'x-api-key': key },
      });
      expect(fields.statusCode).toBe(200);
      const { prices, pricing } = fields.json();
      expect(prices).toEqual({ hosts: 1, dns: 1, vhosts: 1, whois: 3, favicon_search: 5 });
      expect(pricing.unified_search).toMatch(/only when that dataset returned rows/);
      expect(pricing.unified_search).toMatch(/1 credit/);
      expect(pricing.unified_search_category).toMatch(/hosts, dns, vhosts, whois/);
      expect(pricing.depth).toEqual([
        { from_record: 0, to_record: 99, multiplier: 1 },
        { from_record: 100, to_record: 999, multiplier: 2 },
        { from_record: 1000, to_record: 9999, multiplier: 3 },
      ]);
      expect(pricing.page_past_end).toMatch(/no charge/);
    });
  });

  describe('a page past the end of the results is never charged', () => {
    const ledgerAvailable = async () => await service.app.get(CreditLedger).available(`account:${accountId}`);

    it('search/more past the last record answers no rows, the total and no charge', async () => {
      const first = (await post({ raw_query: 'port:443', stream: false, per_type_limit: 10 })).json();
      const total = first.totals.hosts.count as number;
      expect(total).toBeGreaterThan(0);
      expect(first.totals.hosts.lower_bound).toBe(false);
      const more = (page: number) =>
        service.app.inject({
          method: 'POST',
          url: '/api/v2/common/data/search/more',
          headers: { 'x-api-key': key },
          payload: { raw_query: 'port:443', dataset: 'hosts', page, per_type_limit: 10 },
        });
      const before = await ledgerAvailable();
      const past = await more(Math.ceil(total / 10) + 1);
      expect(past.statusCode).toBe(200);
      expect(past.json()).toMatchObject({ status: 'ok', results: [], total, credits_charged: 0 });
      expect(await ledgerAvailable()).toBe(before);
      // A page that still holds records is charged as usual.
      const inside = await more(2);
      expect(inside.json()).toMatchObject({ status: 'ok', credits_charged: 1 });
      expect(await ledgerAvailable()).toBe(before - 1);
    });

    it('search/more/quote tells, free, exactly what search/more then charges, deeper pages included', async () => {
      const page = 101; // record 100: the second depth tier
      const body = { raw_query: 'port:>0', dataset: 'hosts', page, per_type_limit: 1 };
      const headers = { 'x-api-key': key };
      const before = await ledgerAvailable();
      const quote = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/search/more/quote',
        headers,
        payload: body,
      });
      expect(quote.statusCode).toBe(200);
      expect(quote.json()).toMatchObject({
        dataset: 'hosts',
        page,
        per_type_limit: 1,
        first_record: 100,
        credits: 2,
        base_price: 1,
        depth_multiplier: 2,
      });
      expect(await ledgerAvailable()).toBe(before);
      const paid = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/search/more',
        headers,
        payload: body,
      });
      expect(paid.json()).toMatchObject({ status: 'ok', credits_charged: quote.json().credits });
      expect(await ledgerAvailable()).toBe(before - quote.json().credits);
      // The quote refuses what paying refuses: a query that does not apply to the dataset, a page past the limit.
      const refused = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/search/more/quote',
        headers,
        payload: { ...body, dataset: 'whois' },
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().code).toBe('invalid_query');
      const tooDeep = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/search/more/quote',
        headers,
        payload: { ...body, page: 10_001 },
      });
      expect(tooDeep.statusCode).toBe(422);
      expect(tooDeep.json().code).toBe('invalid_input');
      const tooBig = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/search/more/quote',
        headers,
        payload: { ...body, pad: 'x'.repeat(5000) },
      });
      expect(tooBig.statusCode).toBe(413);
    });

    it('a single-dataset page past the last record answers no rows, the total and no charge', async () => {
      const page = (n: number) =>
        service.app.inject({
          method: 'POST',
          url: '/api/v2/common/data/hosts',
          headers: { 'x-api-key': key },
          payload: { raw_query: 'port:443', results_per_page: 50, page: n },
        });
      const total = (await page(1)).json().total as number;
      const before = await ledgerAvailable();
      const past = await page(Math.floor(total / 50) + 2);
      expect(past.statusCode).toBe(200);
      expect(past.json()).toMatchObject({ data: [], total, credits_charged: 0 });
      expect(await ledgerAvailable()).toBe(before);
    });
  });

  it('single-dataset search pages with results_per_page 10/30/50 and aggregates facets', async () => {
    const page = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/hosts',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'port:443', results_per_page: 10, page: 1, include: 'ip,port' },
    });
    expect(page.statusCode).toBe(200);
    const body = page.json();
    expect(body.data.length).toBeLessThanOrEqual(10);
    expect(Object.keys(body.data[0]).sort()).toEqual(['id', 'ip', 'port', 'vulnerability_ref']);
    const bad = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/hosts',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'x', results_per_page: 20 },
    });
    expect(bad.statusCode).toBe(422);
    const facets = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/hosts',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'port:443', aggregate: true, include: 'country' },
    });
    expect(facets.statusCode).toBe(200);
    expect(facets.json().facets.country.length).toBeGreaterThan(0);
    const unknown = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/planets',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'x' },
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('search deadlines and disconnects (PostgreSQL server, a dataset held by a lock)', () => {
  // Long enough that a loaded CI machine still sees the blocked statement before the deadline ends it.
  const DEADLINE_MS = 4000;
  let service: TestService;
  let key: string;
  let accountId: string;
  let locker: pg.Client;
  let monitor: pg.Client;
  let base: string;

  beforeAll(async () => {
    service = await startTestService('postgres', { env: { SEARCH_DEADLINE_MS: String(DEADLINE_MS) } });
    ({ key, accountId } = await seed(service));
    await service.app.listen(0, '127.0.0.1');
    base = (await service.app.getUrl()).replace('[::1]', '127.0.0.1');
    locker = new pg.Client({ connectionString: service.database!.url });
    await locker.connect();
    // pg_stat_activity is snapshotted once per transaction: watch from outside the locking one.
    monitor = new pg.Client({ connectionString: service.database!.url });
    await monitor.connect();
  });
  afterAll(async () => {
    await locker.end();
    await monitor.end();
    await service.dispose();
  });

  async function holdLock(table: string): Promise<() => Promise<void>> {
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return async () => {
      await locker.query('ROLLBACK');
    };
  }

  it('a dataset past its deadline is timeout, partial is true, and its count is not zero; the others answer', async () => {
    const release = await holdLock('obs_whois');
    try {
      const response = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/search',
        headers: { 'x-api-key': key },
        payload: { raw_query: 'example', stream: false },
      });
      const outcome = response.json();
      expect(outcome.per_type_status.whois).toBe('timeout');
      expect(outcome.per_type_timed_out).toEqual(['whois']);
      expect(outcome.partial).toBe(true);
      expect(outcome.totals.whois.count).toBeNull();
      expect(outcome.per_type_status.hosts).toBe('ok');
      expect(outcome.credits_charged).toBe(1); // whois did not answer: not charged at its price
    } finally {
      await release();
    }
  });

  it('a search whose every dataset failed charges nothing', async () => {
    const queries = service.app.get(CreditQueries);
    await waitForProjections(service, ['credit-state']);
    const before = (await queries.creditState(accountId)).credits_used;
    const release = await holdLock('obs_whois');
    try {
      const outcome = (
        await service.app.inject({
          method: 'POST',
          url: '/api/v2/common/data/search',
          headers: { 'x-api-key': key },
          payload: { raw_query: 'registrar:a*', stream: false },
        })
      ).json();
      expect(outcome.per_type_status.whois).toBe('timeout');
      expect(outcome.credits_charged).toBe(0);
    } finally {
      await release();
    }
    await waitForProjections(service, ['credit-state']);
    expect((await queries.creditState(accountId)).credits_used).toBe(before);
  });

  it("the guard's read group handed on to a search is given back, also when the search is refused before taking it (ADR 111)", async () => {
    // More refusals than the pool has connections: a group left open would exhaust it.
    for (let i = 0; i < 12; i++) {
      const refused = await service.app.inject({
        method: 'POST',
        url: '/api/v2/common/data/hosts',
        headers: { 'x-api-key': key },
        payload: { raw_query: 'x', per_type_limit: 0 },
      });
      expect(refused.statusCode).toBe(422);
    }
    const answered = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/search',
      headers: { 'x-api-key': key },
      payload: { raw_query: 'nginx', stream: false },
    });
    expect(answered.statusCode).toBe(200);
    const open = async () =>
      Number(
        (
          await monitor.query<{ n: string }>(
            `SELECT count(*)::text AS n FROM pg_stat_activity
              WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
          )
        ).rows[0]!.n,
      );
    // A leaked group stays idle in its transaction for good; projection batches pass through that state briefly,
    // so one moment with none is the proof (asking once more after it could meet a batch).
    const deadline = Date.now() + 10_000;
    let idle = await open();
    while (idle > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      idle = await open();
    }
    expect(idle).toBe(0);
  });

  it('a client that disconnects cancels the remaining work', async () => {
    const release = await holdLock('obs_whois');
    try {
      const controller = new AbortController();
      const sent = Date.now();
      const response = await fetch(`${base}/api/v2/common/data/search`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ raw_query: 'example' }),
        signal: controller.signal,
      });
      // Read until a first dataset answered, keeping the connection open (cancelling the body would disconnect).
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let received = '';
      while (!received.includes('"type":"results"')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('the stream ended before any results');
        received += decoder.decode(value, { stream: true });
      }
      const waiting = async () =>
        Number(
          (
            await monitor.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%obs_whois%'`,
            )
          ).rows[0].n,
        );
      // The whois statement reaches the lock on its own schedule; wait for it (the deadline is far off).
      while ((await waiting()) === 0 && Date.now() < sent + DEADLINE_MS / 2)
        await new Promise((r) => setTimeout(r, 25));
      expect(await waiting()).toBeGreaterThan(0);
      controller.abort();
      // Gone before the dataset deadline could have ended it: the disconnect cancelled it.
      while ((await waiting()) > 0 && Date.now() < sent + DEADLINE_MS - 250)
        await new Promise((r) => setTimeout(r, 25));
      expect(await waiting()).toBe(0);
    } finally {
      await release();
    }
  });
});
