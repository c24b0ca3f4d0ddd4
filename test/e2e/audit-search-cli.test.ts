/**
 * `events search` (issue 15 part 5): an auditor finds one account's, organization's or actor's events by id or
 * email, without knowing any stream name, page by page; the audit index rebuilds and verifies like any other.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCliInProcess } from '../support/cli-in-process.js';
import { freshDataDir } from '../support/pglite-template.js';

interface Found {
  key: string;
  events: Array<{
    position: string;
    stream: string;
    type: string;
    actor: string;
    payer: string;
    data: unknown;
    reason: string | null;
  }>;
  next_cursor: string | null;
}

describe('events search', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let aliceId: string;
  let bobId: string;

  const cli = (...args: string[]) => runCliInProcess(args, env);
  async function search(...args: string[]): Promise<Found> {
    const result = await cli('events', 'search', ...args, '--json');
    if (result.code !== 0) throw new Error(`events search ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout) as Found;
  }

  beforeAll(async () => {
    dataDir = await freshDataDir('audit-cli-');
    env = { DATA_DIR: dataDir };
    // The accounts are looked after by an operator of their own, added by the first one (ADR 68).
    const added = await cli('operators', 'add', 'auditor-test', '--reason', 'audit test', '--json');
    expect(added.code).toBe(0);
    env = { ...env, OPERATOR_CREDENTIAL: (JSON.parse(added.stdout) as { credential: string }).credential };
    const created = async (email: string) => {
      const result = await cli('accounts', 'create', '--email', email, '--plan', 'free', '--json');
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as { account_id: string }).account_id;
    };
    aliceId = await created('Alice@Audit.example');
    bobId = await created('bob@audit.example');
    for (const credits of ['5', '7', '11']) {
      expect(
        (await cli('accounts', 'purchase', 'alice@audit.example', credits, '--reason', `invoice ${credits}`))
          .code,
      ).toBe(0);
    }
    expect(
      (await cli('accounts', 'plan', 'bob@audit.example', 'professional', '--reason', 'upgrade')).code,
    ).toBe(0);
  });

  afterAll(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('finds an account by email or id: its email claim, its account stream and its ledger, in log order', async () => {
    const byEmail = await search('--account', 'ALICE@audit.example');
    expect(byEmail.key).toBe(`account:${aliceId}`);
    expect(byEmail.next_cursor).toBeNull();
    const streams = new Set(byEmail.events.map((event) => event.stream));
    expect([...streams].some((stream) => stream.startsWith('email-'))).toBe(true);
    expect(streams).toContain(`account-${aliceId}`);
    expect(streams).toContain(`ledger-account-${aliceId}`);
    expect(byEmail.events.filter((e) => e.type === 'CreditsPurchased')).toHaveLength(3);
    const positions = byEmail.events.map((event) => event.position);
    expect([...positions].sort()).toEqual(positions);
    // Nothing of Bob's account.
    expect(byEmail.events.some((event) => event.stream.includes(bobId))).toBe(false);
    expect(await search('--account', aliceId)).toEqual(byEmail);

    // Pages of two follow the cursor to the same events.
    const paged: Found['events'] = [];
    let after: string | null = null;
    do {
      const page: Found = await search(
        '--account',
        aliceId,
        '--limit',
        '2',
        ...(after ? ['--after', after] : []),
      );
      expect(page.events.length).toBeLessThanOrEqual(2);
      paged.push(...page.events);
      after = page.next_cursor;
    } while (after);
    expect(paged).toEqual(byEmail.events);

    const purchases = await search('--account', aliceId, '--type', 'CreditsPurchased');
    // The events themselves, payload included, as `events replay --json` prints them.
    expect(purchases.events.map((e) => (e.data as { credits: number }).credits)).toEqual([5, 7, 11]);
    // Each with the reason the operator gave (--reason, ADR 68).
    expect(purchases.events.map((e) => e.reason)).toEqual(['invoice 5', 'invoice 7', 'invoice 11']);
    const second = purchases.events[1]!;
    const since = await search(
      '--account',
      aliceId,
      '--type',
      'CreditsPurchased',
      '--since',
      second.position,
    );
    expect(since.events.map((e) => e.position)).toEqual(purchases.events.slice(1).map((e) => e.position));
    const until = await search('--account', aliceId, '--until', second.position);
    expect(until.events.at(-1)!.position).toBe(second.position);
  });

  it('finds what an actor did, and prints a readable page with the next cursor', async () => {
    const byOperator = await search('--actor', 'operator:auditor-test');
    expect(byOperator.events.length).toBeGreaterThanOrEqual(5);
    expect(byOperator.events.every((event) => event.actor === 'operator:auditor-test')).toBe(true);

    const text = await cli('events', 'search', '--account', 'bob@audit.example', '--limit', '1');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`by operator:auditor-test on behalf of`);
    expect(text.stdout).toMatch(/next page: --after \d{20}-\d{20}/);
    const last = await cli('events', 'search', '--account', bobId, '--type', 'PlanChanged');
    expect(last.stdout).toContain('PlanChanged');
    expect(last.stdout.trim().split('\n').at(-1)).toBe(`end (account:${bobId})`);
  });

  it('refuses an ambiguous or malformed search with a message and a non-zero exit code', async () => {
    for (const args of [
      [],
      ['--account', aliceId, '--actor', 'operator:x'],
      ['--account', aliceId, '--since', 'last tuesday'],
      ['--account', aliceId, '--after', 'page-2'],
      ['--account', aliceId, '--limit', '0'],
      ['--account', 'nobody@audit.example'],
    ]) {
      const refused = await cli('events', 'search', ...args);
      expect({ args, code: refused.code }).toEqual({ args, code: 1 });
      expect(refused.stderr).toMatch(/^error: /);
    }
  });

  it('the audit index rebuilds to the same documents and verifies equal', async () => {
    const rebuild = await cli('projections', 'rebuild', 'audit-index', '--reason', 'audit test', '--json');
    expect(rebuild.code).toBe(0);
    const verify = await cli('projections', 'verify', 'audit-index');
    expect(verify.stdout.trim()).toMatch(/^equal \(\d+ documents compared/);
    expect(verify.code).toBe(0);
    expect((await search('--account', 'alice@audit.example')).events.length).toBeGreaterThan(4);
  });
});
