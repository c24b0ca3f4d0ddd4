/**
 * Many concurrent searches by few payers on the PostgreSQL server, over real HTTP: every one is answered. The
 * service's connections are a pool of 10 shared by read groups (held from the guard through the caller's
 * lookups) and everything else; a read group that waited for a read needing a pool connection could hold the
 * pool with the very waits that needed it (found by the embedded benchmark under 32 clients, ADR 120).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import {
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
} from '../../src/accounts/commands/account.commands.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { startTestService, type TestService } from '../support/service.js';

const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
const PAYERS = 2;
const CONCURRENT = 64;
const ROUNDS = 6;

describe('searches under concurrent load (PostgreSQL server)', () => {
  let service: TestService;
  let base: string;
  const keys: string[] = [];

  beforeAll(async () => {
    service = await startTestService('postgres');
    for (const dataset of DATASETS) {
      await writeGenerated(service.context.observations, dataset, {
        count: 300,
        seed: 'under-load',
        now: new Date(),
      });
    }
    const bus = service.app.get(CommandBus);
    for (let i = 0; i < PAYERS; i += 1) {
      const { accountId } = await bus.execute(
        new RegisterAccount(`load-${i}-${Date.now()}@example.com`, 'enterprise', undefined, operator()),
      );
      await bus.execute(new PurchaseCredits(accountId, 100_000, operator()));
      keys.push((await bus.execute(new IssueApiKey(accountId, 'load', operator()))).key);
    }
    await service.app.listen(0, '127.0.0.1');
    base = (await service.app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await service.dispose();
  });

  it(`${CONCURRENT} concurrent searches by ${PAYERS} payers, ${ROUNDS} rounds: every one answered, none lost`, async () => {
    const search = async (i: number) => {
      const unified = i % 3 === 0;
      const response = await fetch(`${base}/api/v2/common/data/${unified ? 'search' : 'hosts'}`, {
        method: 'POST',
        headers: { 'x-api-key': keys[i % PAYERS]!, 'content-type': 'application/json' },
        body: JSON.stringify(
          unified
            ? { raw_query: 'product:nginx', stream: false }
            : { raw_query: 'product:nginx', results_per_page: 10 },
        ),
        signal: AbortSignal.timeout(60_000),
      });
      const body = (await response.json()) as Record<string, unknown>;
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => search(i)));
      for (const answer of answers) {
        // A dataset at capacity is refused at once with its state and Retry-After, never left waiting.
        if (answer.status === 503) {
          expect(answer).toMatchObject({
            body: { code: 'not_ready', details: { status: 'busy' } },
            retryAfter: expect.any(String),
          });
        } else expect(answer).toMatchObject({ status: 200 });
      }
      expect(answers.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    }
  }, 240_000);
});
