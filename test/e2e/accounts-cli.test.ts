import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { runCliInProcess } from '../support/cli-in-process.js';
import { runCli, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { freshDataDir } from '../support/pglite-template.js';

const json = (stdout: string): Record<string, unknown> => JSON.parse(stdout) as Record<string, unknown>;

async function post(
  baseUrl: string,
  key: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * A first start on an empty store loads the sample catalogue, then the demo corpus (associated as it lands):
 * cve:/kev: searches of the demo data find hosts, and a found host's vulnerability_ref enriches to findings.
 * Returns the address of a KEV-associated demo host.
 */
async function expectDemoCatalogue(baseUrl: string, key: string): Promise<string> {
  type Hosts = { total: number; data: Array<{ ip: string; vulnerability_ref?: string }> };
  const hosts = async (query: string): Promise<Hosts> => {
    const response = await post(baseUrl, key, '/api/v2/common/data/hosts', {
      raw_query: query,
      results_per_page: 10,
    });
    expect([query, response.status]).toEqual([query, 200]);
    return response.body as unknown as Hosts;
  };
  const kev = await hosts('kev:true');
  expect(kev.total).toBeGreaterThan(0);
  const apache = await hosts('cve:CVE-2021-41773');
  expect(apache.total).toBeGreaterThan(0);
  expect((await hosts('cve:*')).total).toBeGreaterThanOrEqual(Math.max(kev.total, apache.total));
  const host = kev.data[0]!;
  expect(typeof host.vulnerability_ref).toBe('string');
  const enriched = await post(baseUrl, key, '/api/v2/common/data/enrich/vulnerabilities', {
    reference: host.vulnerability_ref,
  });
  expect(enriched.status).toBe(200);
  expect(enriched.body).toMatchObject({
    catalogue_version: 1,
    kev_source: { catalog_version: 'sample-1', count: 6 },
    cpes: null,
  });
  const [evaluation] = enriched.body.evaluations as Array<{
    status: string;
    source: string;
    findings: Array<{ id: string; kev: unknown }>;
  }>;
  expect(evaluation).toMatchObject({ status: 'matched', source: 'observation' });
  // kev:true found the host, so one of its findings is KEV-listed in the sample list.
  expect(evaluation!.findings.some((finding) => finding.kev !== false && finding.kev !== null)).toBe(true);
  return host.ip;
}

describe('account and key CLI commands', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;

  beforeEach(async () => {
    dataDir = await freshDataDir('acli-');
    env = { DATA_DIR: dataDir };
  });

  afterEach(async () => {
    await service?.stop();
    service = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('with no service running: create, purchase, plan, issue and revoke keys, each with --json', async () => {
    const created = await runCli(
      [
        'accounts',
        'create',
        '--email',
        'Ops@Example.com',
        '--plan',
        'free',
        '--password',
        'correct horse battery',
        '--json',
      ],
      env,
    );
    expect(created.code).toBe(0);
    const accountId = json(created.stdout).account_id as string;
    expect(accountId).toMatch(/^[0-9a-f-]{36}$/);
    expect(json(created.stdout)).toMatchObject({ email: 'ops@example.com', plan: 'free' });

    const duplicate = await runCliInProcess(
      ['accounts', 'create', '--email', 'ops@example.com', '--plan', 'free'],
      env,
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('an account already uses ops@example.com');

    const purchase = await runCliInProcess(
      ['accounts', 'purchase', 'ops@example.com', '250', '--reason', 'invoice 2026-17 paid', '--json'],
      env,
    );
    expect(purchase.code).toBe(0);
    expect(json(purchase.stdout)).toEqual({ account_id: accountId, purchased: 250 });

    const plan = await runCliInProcess(
      ['accounts', 'plan', accountId, 'enterprise', '--reason', 'upgrade ordered', '--json'],
      env,
    );
    expect(json(plan.stdout)).toEqual({ account_id: accountId, plan: 'enterprise', changed: true });
    const badPlan = await runCliInProcess(['accounts', 'plan', accountId, 'platinum', '--reason', 'r'], env);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toContain('unknown plan "platinum"');

    const issued = await runCliInProcess(
      ['keys', 'issue', accountId, '--label', 'ci', '--reason', 'CI needs a key', '--json'],
      env,
    );
    const key = json(issued.stdout);
    expect(key).toMatchObject({ account_id: accountId, label: 'ci' });
    expect(key.key).toMatch(/^exr_[a-z2-7]{12}_/);
    const text = await runCliInProcess(['keys', 'issue', 'ops@example.com', '--reason', 'second key'], env);
    expect(text.stdout).toMatch(/^exr_\S+\n\(key id [a-z2-7]{12}; this is the only time the key is shown\)/);

    const revoked = await runCliInProcess(
      ['keys', 'revoke', key.key_id as string, '--reason', 'key leaked in a CI log', '--json'],
      env,
    );
    expect(json(revoked.stdout)).toEqual({ key_id: key.key_id, revoked: true });
    const again = await runCliInProcess(
      ['keys', 'revoke', key.key_id as string, '--reason', 'again', '--json'],
      env,
    );
    expect(json(again.stdout)).toEqual({ key_id: key.key_id, revoked: false });
    const unknown = await runCli(['keys', 'revoke', 'aaaaaaaaaaaa', '--reason', 'cleanup'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no such API key');

    // The history is attributed to the operator, on behalf of the account.
    const replay = await runCliInProcess(
      ['events', 'replay', '--stream', `account-${accountId}`, '--json'],
      env,
    );
    const events = replay.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.type)).toEqual([
      'AccountRegistered',
      'PasswordSet',
      'PlanChanged',
      'ApiKeyIssued',
      'ApiKeyIssued',
      'ApiKeyRevoked',
    ]);
    // The first command on the empty store created the first operator; its credential signs every command.
    const operator = {
      actor: 'operator:admin',
      credential: expect.stringMatching(/^operator_credential:[a-z2-7]{12}$/),
      surface: 'cli',
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    };
    expect(events[2]).toMatchObject({
      ...operator,
      payer: `account:${accountId}`,
      reason: 'upgrade ordered',
    });
    expect(events[3]).toMatchObject({ ...operator, payer: `account:${accountId}`, reason: 'CI needs a key' });
    // keys revoke names no account, yet it is recorded on behalf of the key's account.
    expect(events[5]).toMatchObject({
      ...operator,
      payer: `account:${accountId}`,
      reason: 'key leaked in a CI log',
    });
    expect(events[0]).not.toHaveProperty('reason');
    const ledger = await runCliInProcess(
      ['events', 'replay', '--stream', `ledger-account-${accountId}`, '--json'],
      env,
    );
    const purchased = ledger.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((event) => event.type === 'CreditsPurchased');
    expect(purchased).toMatchObject({
      ...operator,
      payer: `account:${accountId}`,
      reason: 'invoice 2026-17 paid',
    });
    expect(JSON.stringify(events)).not.toContain(key.key as string); // keys are never stored in clear
  });

  it('while the service runs: a key issued by the CLI works at once and stops at once when revoked; the demo (account, sample catalogue, corpus) is seeded once', async () => {
    service = await startServiceProcess({ ...env, SEED_DEMO: 'true', DEMO_CORPUS_RECORDS: '1000' });
    const demoKey = /API key:\s+(exr_\S+)/.exec(service.output())?.[1];
    expect(demoKey).toBeDefined();
    const demo = await fetch(`${service.baseUrl}/api/v2/common/credits`, {
      headers: { 'x-api-key': demoKey! },
    });
    expect(demo.status).toBe(200);
    expect(await demo.json()).toMatchObject({ plan_label: 'Professional', purchased_credits: 1000 });
    const kevHost = await expectDemoCatalogue(service.baseUrl, demoKey!);
    // The first start created the first operator and left its credential, for the owner only, in DATA_DIR.
    const credentialFile = join(dataDir, 'operator-credential');
    expect(service.output()).toContain(
      `first operator "admin" created; its credential is in ${credentialFile}`,
    );
    expect(statSync(credentialFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(credentialFile, 'utf8')).toMatch(/^opc_[a-z2-7]{12}_[A-Za-z0-9_-]{43}\n$/);

    const created = json(
      (
        await runCliInProcess(
          ['accounts', 'create', '--email', 'live@example.com', '--plan', 'professional', '--json'],
          env,
        )
      ).stdout,
    );
    const issued = json(
      (await runCli(['keys', 'issue', created.account_id as string, '--reason', 'onboarding', '--json'], env))
        .stdout,
    );
    const first = await fetch(`${service.baseUrl}/api/v2/common/credits`, {
      headers: { authorization: `Bearer ${issued.key as string}` },
    });
    expect(first.status).toBe(200);
    await runCliInProcess(['keys', 'revoke', issued.key_id as string, '--reason', 'offboarding'], env);
    const after = await fetch(`${service.baseUrl}/api/v2/common/credits`, {
      headers: { 'x-api-key': issued.key as string },
    });
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ code: 'unauthenticated' });

    expect(await service.stop()).toBe(0);
    service = await startServiceProcess({ ...env, SEED_DEMO: 'true', DEMO_CORPUS_RECORDS: '1000' });
    expect(service.output()).not.toMatch(/API key:\s+exr_/);
    expect(service.output()).not.toContain('first operator');
    expect(service.output()).toContain(
      'Demo account: demo@example.com (its password and key were printed at the first start)',
    );
    // The sample catalogue is not imported again: still its first version, and the host still badged.
    const badges = await post(service.baseUrl, demoKey!, '/api/v2/common/data/enrich/badges', {
      items: [{ key: 'demo', type: 'ip', value: kevHost }],
    });
    expect(badges.status).toBe(200);
    expect(badges.body).toMatchObject({ catalogue_version: 1, kev_source: { catalog_version: 'sample-1' } });
    expect(JSON.stringify(badges.body)).toContain('"known_exploited"');
  }, 120_000); // two starts, the first writing the ~40,000-record demo corpus: near a minute on a busy machine
});
