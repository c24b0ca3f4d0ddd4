/**
 * The operator's organization commands (in this process, two as real CLI processes of dist/src/cli.js), against the
 * real service process and then with no service running (the CLI owning the embedded database). Rule 14: an organization pending
 * approval, inactive or awaiting payment is restricted, the owner included, until an operator or checkout changes
 * its status. The trial's domain is proven through a DNS server on loopback.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TestDnsServer } from '../support/dns-server.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { runCli, startServiceProcess, type ServiceProcess } from '../support/processes.js';
import { freshDataDir } from '../support/pglite-template.js';

const PASSWORD = 'operator-cli-password-0123';
const json = (stdout: string): Record<string, unknown> => JSON.parse(stdout) as Record<string, unknown>;

describe('organization operator CLI', () => {
  let dns: TestDnsServer;
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    dns = await TestDnsServer.start();
    dataDir = await freshDataDir('ocli-');
    env = { DATA_DIR: dataDir, DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' };
  });

  afterAll(async () => {
    await service?.stop();
    await dns?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs a command and answers its JSON output, failing with its stderr when it did not succeed. */
  async function cli(...args: string[]): Promise<Record<string, unknown>> {
    const result = await runCliInProcess([...args, '--json'], env);
    if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return json(result.stdout);
  }

  it('rule 14: a flagged trial waits for approval, the owner included; approve, deactivate, activate, end the trial and complete checkout, with and without the service running', async () => {
    // No service yet: the CLI owns the database.
    const { account_id: ownerId } = await cli(
      'accounts',
      'create',
      '--email',
      'owner@acme-cli.example',
      '--plan',
      'free',
      '--password',
      PASSWORD,
    );
    expect(
      await cli('organizations', 'require-approval', 'owner@acme-cli.example', '--reason', 'abuse report 41'),
    ).toEqual({
      account_id: ownerId,
      changed: true,
    });

    service = await startServiceProcess(env);
    const base = service.baseUrl;
    const login = await fetch(`${base}/api/v2/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@acme-cli.example', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    const csrf = /__Host-pc=([^;]+)/.exec(cookie)![1]!;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}/api/v2/organizations${path}`, {
        method,
        headers: {
          cookie,
          'x-csrf-token': csrf,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };

    const created = await call('POST', '', {
      name: 'Acme CLI',
      accept_account_transition: true,
      expected_transfer: 0,
      domain: 'acme-cli.example',
    });
    expect(created.status).toBe(201);
    const organizationId = created.body.id as string;
    const record = (created.body.verification as { record: { name: string; value: string } }).record;
    dns.setTxt(record.name, record.value);
    expect((await call('POST', `/${organizationId}/verification`)).body).toMatchObject({
      status: 'pending_approval',
      restricted: true,
    });
    // The owner role does not bypass the restriction.
    const refused = await call('POST', `/${organizationId}/spaces`, { name: 'Client' });
    expect(refused).toMatchObject({
      status: 403,
      body: { code: 'organization_restricted', details: { status: 'pending_approval' } },
    });

    // While the service runs, the CLI reaches its database through the socket.
    expect(await cli('organizations', 'status', organizationId)).toMatchObject({
      organization_id: organizationId,
      status: 'pending_approval',
      restricted: true,
      action: expect.stringContaining('approve'),
      owner_account_id: ownerId,
    });
    const pending = await cli('organizations', 'list', '--status', 'pending_approval');
    expect(pending.organizations).toEqual([
      expect.objectContaining({ organization_id: organizationId, name: 'Acme CLI', restricted: true }),
    ]);

    // Approving moves money (the trial's credits) and changes access: refused without a reason.
    const unexplained = await runCliInProcess(['organizations', 'approve', organizationId], env);
    expect(unexplained.code).toBe(2);
    expect(unexplained.stderr).toContain('organizations approve moves money or changes access');
    expect(
      await cli('organizations', 'approve', organizationId, '--reason', 'domain checked by phone'),
    ).toMatchObject({
      status: 'active',
      restricted: false,
      plan: 'trial',
      trial: { domain: 'acme-cli.example', ended: false },
      changed: true,
    });
    expect((await call('POST', `/${organizationId}/spaces`, { name: 'Client' })).status).toBe(201);
    expect((await call('GET', `/${organizationId}/credits`)).body).toMatchObject({ available: 1000 });
    // The first operator (made by the first command on the empty store) approved it, for the reason given.
    const history = await runCliInProcess(
      ['events', 'replay', '--stream', `organization-${organizationId}`, '--json'],
      env,
    );
    const approval = history.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((event) => event.type === 'ApprovalGranted');
    expect(approval).toMatchObject({
      actor: 'operator:admin',
      payer: `organization:${organizationId}`,
      credential: expect.stringMatching(/^operator_credential:/),
      surface: 'cli',
      reason: 'domain checked by phone',
    });

    expect(await cli('organizations', 'deactivate', organizationId, '--reason', 'unpaid')).toMatchObject({
      status: 'inactive',
      changed: true,
    });
    expect(await call('POST', `/${organizationId}/spaces`, { name: 'Inactive' })).toMatchObject({
      status: 403,
      body: { code: 'organization_restricted', details: { status: 'inactive' } },
    });
    expect(await cli('organizations', 'activate', organizationId, '--reason', 'paid')).toMatchObject({
      status: 'active',
      changed: true,
    });

    // The trial is not over: ending it waits for its term unless --early.
    expect(await cli('organizations', 'end-trial', organizationId, '--reason', 'trial review')).toMatchObject(
      {
        status: 'active',
        changed: false,
      },
    );
    expect(
      await cli('organizations', 'end-trial', organizationId, '--early', '--reason', 'owner asked'),
    ).toMatchObject({
      status: 'awaiting_payment',
      restricted: true,
      trial: { ended: true },
      changed: true,
    });
    expect((await call('POST', `/${organizationId}/spaces`, { name: 'Unpaid' })).status).toBe(403);
    // The owner chooses the plan in billing (still open while restricted); checkout completing lifts it.
    expect((await call('PUT', `/${organizationId}/billing`, { plan: 'teams' })).status).toBe(200);
    expect(
      await cli('organizations', 'checkout-complete', organizationId, '--reason', 'checkout 88 paid'),
    ).toMatchObject({
      status: 'active',
      plan: 'teams',
      changed: true,
    });
    expect((await call('POST', `/${organizationId}/spaces`, { name: 'Paid' })).status).toBe(201);

    // With no service running, the CLI owns the database (and follows the log for the read models).
    expect(await service.stop()).toBe(0);
    service = undefined;
    expect(await cli('organizations', 'deactivate', organizationId, '--reason', 'unpaid')).toMatchObject({
      status: 'inactive',
      changed: true,
    });
    const offline = await cli('organizations', 'list');
    expect(offline.organizations).toEqual([
      expect.objectContaining({ organization_id: organizationId, status: 'inactive', plan: 'teams' }),
    ]);
    const unknown = await runCli(
      ['organizations', 'approve', '00000000-0000-4000-8000-000000000000', '--reason', 'r'],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no organization 00000000-0000-4000-8000-000000000000');
    // The text form in this process: the refusal above is the real process this test keeps.
    const text = await runCliInProcess(['organizations', 'status', organizationId], env);
    expect(text.stdout).toContain(`${organizationId} Acme CLI: inactive (restricted: `);
  });
});
