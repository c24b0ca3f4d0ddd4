/**
 * Issue 17's value chain from a real banner to a finding, as an operator and a researcher go through it: the
 * operator loads Rapid7 Recog's databases (`fingerprints import`), the NVD and KEV records (`catalogue import`)
 * and a collector's real output (`data import auto` of the zgrab2 samples) with the built CLI against the
 * service's database on the PostgreSQL server; then a researcher finds the OpenSSH 7.2p2 host of the ssh sample
 * with the `cve:` selector and gets the vulnerability finding for it over HTTP. Nothing in between is written by
 * hand: product, version and CPE come from the banner `SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.4`.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { runCli, type CliResult } from '../support/processes.js';
import { startTestService, type TestService } from '../support/service.js';
import { SHARED_DATA } from '../support/shared-data.js';

const DATA = SHARED_DATA;
const STEP_TIMEOUT_MS = 240_000;
const SSH_HOST = '172.17.0.3:22/tcp';
const OPENSSH_72P2 = 'cpe:2.3:a:openbsd:openssh:7.2p2:*:*:*:*:*:*:*';
// OpenSSH 6.2 through 8.7 (NVD configuration of CVE-2021-41617): 7.2p2 is in range.
const OPENSSH_CVE = 'CVE-2021-41617';

const succeeded = (result: CliResult): CliResult => {
  if (result.code !== 0) throw new Error(`exit ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result;
};

describe('a real banner through import to a cve: hit and an enrichment finding (PostgreSQL server)', () => {
  let service: TestService;
  let env: Record<string, string>;
  let key: string;

  beforeAll(async () => {
    service = await startTestService('postgres');
    env = { DATABASE_URL: service.database!.url!, DATA_DIR: service.dataDir };
    const bus = service.app.get(CommandBus);
    // A fresh envelope per command: one envelope is one command (its id makes a retry idempotent).
    const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });
    const email = `banner-${Math.random().toString(36).slice(2)}@example.com`;
    const { accountId } = await bus.execute(
      new RegisterAccount(email, 'professional', 'banner-password-0123456789', operator()),
    );
    ({ key } = await bus.execute(new IssueApiKey(accountId, 'banner', operator())));
  }, STEP_TIMEOUT_MS);
  afterAll(async () => {
    await service?.dispose();
  });

  it(
    'the operator loads fingerprints, the catalogue and zgrab2 output with the CLI',
    async () => {
      const fingerprints = succeeded(
        await runCli(
          ['fingerprints', 'import', '--reason', 'test load', join(DATA, 'recog'), '--json'],
          env,
          STEP_TIMEOUT_MS,
        ),
      );
      expect(fingerprints.stdout).toContain('ssh_banners.xml');
      succeeded(
        await runCli(
          ['catalogue', 'import', '--reason', 'test load', join(DATA, 'nvd'), join(DATA, 'kev'), '--json'],
          env,
          STEP_TIMEOUT_MS,
        ),
      );
      const imported = succeeded(
        await runCli(
          [
            'data',
            'import',
            '--reason',
            'test load',
            'auto',
            join(DATA, 'zgrab2', 'ssh-ssh.json'),
            join(DATA, 'zgrab2', 'http-http.json'),
            '--json',
          ],
          env,
          STEP_TIMEOUT_MS,
        ),
      );
      const summary = JSON.parse(imported.stdout) as { imported: number; rejected: number };
      expect(summary).toMatchObject({ rejected: 0 });
      expect(summary.imported).toBeGreaterThanOrEqual(2);

      const stored = await service.context.observations.get('hosts', SSH_HOST);
      expect(stored).toMatchObject({
        ip: '172.17.0.3',
        port: 22,
        protocol: 'ssh',
        vendor: 'openbsd',
        product: 'openssh',
        version: '7.2p2',
      });
      expect(stored?.cpe).toContain(OPENSSH_72P2);
    },
    STEP_TIMEOUT_MS * 3,
  );

  it('a researcher finds the host with cve: and gets the finding for it', async () => {
    const hosts = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/hosts',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ raw_query: `cve:${OPENSSH_CVE}` }),
    });
    expect(hosts.statusCode).toBe(200);
    const found = hosts.json() as { data: Array<{ id: string; vulnerability_ref: string }> };
    expect(found.data.map((host) => host.id)).toEqual([SSH_HOST]);

    const enrichment = await service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/enrich/vulnerabilities',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      payload: JSON.stringify({ reference: found.data[0]!.vulnerability_ref }),
    });
    expect(enrichment.statusCode).toBe(200);
    const evaluations = (
      enrichment.json() as {
        evaluations: Array<{ source: string; findings: Array<{ id: string; observed_products: unknown }> }>;
      }
    ).evaluations;
    const findings = evaluations.flatMap((evaluation) => evaluation.findings);
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: OPENSSH_CVE,
          observed_products: expect.arrayContaining([
            { vendor: 'openbsd', product: 'openssh', version: '7.2p2' },
          ]),
        }),
      ]),
    );
  });
});
