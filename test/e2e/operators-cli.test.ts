/**
 * Operators act with a credential (ADR 68): the first one is created on the first start of an empty store, with
 * its credential in DATA_DIR (0600); `operators add` creates others; a command that appends is refused without a
 * valid credential (missing, wrong, revoked), one that moves money or changes access without `--reason`.
 * The CLI owning PGlite, and against the PostgreSQL server (the credential table lives beside the log there).
 */
import { mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateOperatorCredential } from '../../src/platform/auth/operator-credentials.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { createTestDatabase, type TestDatabase, type TestDatabaseKind } from '../support/databases.js';
import { seedEmbeddedDatabase } from '../support/pglite-template.js';
import { runCli } from '../support/processes.js';

const lines = (stdout: string): Array<Record<string, unknown>> =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe.each<TestDatabaseKind>(['pglite', 'postgres'])('operator credentials (%s)', (kind) => {
  let dataDir: string;
  let database: TestDatabase | undefined;
  let env: Record<string, string>;
  let alice: { credential: string; credentialId: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'operators-'));
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    // A migrated embedded database without events copied in: the store is as empty as initdb leaves it.
    if (kind === 'pglite') await seedEmbeddedDatabase(dataDir);
    env = { DATA_DIR: dataDir, ...(database?.url ? { DATABASE_URL: database.url } : {}) };
  });

  afterAll(async () => {
    await database?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = (args: readonly string[], extra: Record<string, string> = {}) =>
    runCliInProcess(args, { ...env, ...extra });
  const eventCount = async (): Promise<number> =>
    lines((await cli(['events', 'tail', '-n', '10000', '--json'])).stdout).length;

  it('the first command on an empty store creates the first operator and keeps its credential in DATA_DIR, for the owner only', async () => {
    const first = await cli(['operators', 'whoami', '--json']);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('first operator "admin" created');
    expect(JSON.parse(first.stdout)).toMatchObject({ operator: 'admin' });
    const file = join(dataDir, 'operator-credential');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Once only: the next command uses it.
    const again = await cli(['operators', 'whoami']);
    expect(again.stderr).toBe('');
    expect(again.stdout).toMatch(/^operator:admin \(credential [a-z2-7]{12}\)\n$/);
  });

  it('operators add, from an existing operator with a reason: the new operator acts under its own name; no secret in the log', async () => {
    const refused = await cli(['operators', 'add', 'alice']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('operators add moves money or changes access: say why with --reason');

    const added = await cli(['operators', 'add', 'alice', '--reason', 'new on-call engineer', '--json']);
    expect(added.code).toBe(0);
    const body = JSON.parse(added.stdout) as { operator: string; credential_id: string; credential: string };
    expect(body).toMatchObject({
      operator: 'alice',
      credential: expect.stringMatching(/^opc_[a-z2-7]{12}_/),
    });
    alice = { credential: body.credential, credentialId: body.credential_id };
    const duplicate = await cli(['operators', 'add', 'alice', '--reason', 'again']);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('operator alice exists');

    const history = lines((await cli(['events', 'replay', '--stream', 'operator-alice', '--json'])).stdout);
    expect(history.map((event) => event.type)).toEqual(['OperatorAdded', 'OperatorCredentialIssued']);
    expect(history[0]).toMatchObject({
      actor: 'operator:admin',
      credential: expect.stringMatching(/^operator_credential:[a-z2-7]{12}$/),
      surface: 'cli',
      reason: 'new on-call engineer',
    });
    expect(history[1]).toMatchObject({ data: { credentialId: alice.credentialId } });

    // Alice acts as herself, with her credential from the environment or from a file.
    const whoami = await cli(['operators', 'whoami', '--json'], { OPERATOR_CREDENTIAL: alice.credential });
    expect(JSON.parse(whoami.stdout)).toEqual({ operator: 'alice', credential_id: alice.credentialId });
    const file = join(dataDir, 'alice.credential');
    writeFileSync(file, `${alice.credential}\n`, { mode: 0o600 });
    const created = await cli([
      '--operator-credential-file',
      file,
      'accounts',
      'create',
      '--email',
      'made-by-alice@example.com',
      '--plan',
      'free',
      '--json',
    ]);
    expect(created.code).toBe(0);
    const accountId = JSON.parse(created.stdout).account_id as string;
    const [registered] = lines(
      (await cli(['events', 'replay', '--stream', `account-${accountId}`, '--json'])).stdout,
    );
    expect(registered).toMatchObject({
      actor: 'operator:alice',
      payer: `account:${accountId}`,
      credential: `operator_credential:${alice.credentialId}`,
      surface: 'cli',
    });
    expect(registered).not.toHaveProperty('reason');

    const log = (await cli(['events', 'tail', '-n', '10000', '--json'])).stdout;
    expect(log).not.toContain(alice.credential.slice(`opc_${alice.credentialId}_`.length));
  });

  it('a command that moves money or changes access is refused without --reason, before anything is opened', async () => {
    const before = await eventCount();
    const id = '00000000-0000-4000-8000-000000000000';
    for (const args of [
      ['accounts', 'purchase', 'someone@example.com', '10'],
      ['accounts', 'plan', 'someone@example.com', 'professional'],
      ['keys', 'issue', 'someone@example.com'],
      ['keys', 'revoke', 'aaaaaaaaaaaa'],
      ['organizations', 'approve', id],
      ['organizations', 'activate', id],
      ['organizations', 'deactivate', id],
      ['organizations', 'end-trial', id],
      ['organizations', 'checkout-complete', id],
      ['organizations', 'require-approval', 'someone@example.com'],
      ['exposure', 'enable', id],
      ['exposure', 'disable', id],
      ['projections', 'rebuild', '--all'],
      ['operators', 'add', 'bob'],
      ['operators', 'revoke', 'aaaaaaaaaaaa'],
      ['events', 'rotate-key'],
      // A blank reason is no reason.
      ['accounts', 'purchase', 'someone@example.com', '10', '--reason', '  '],
    ]) {
      const result = await cli(args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toMatch(/^refused: .* say why with --reason <text>/);
    }
    expect(await eventCount()).toBe(before);
  });

  it('a command that appends is refused without a valid operator credential: missing, wrong, malformed, revoked; reading stays open', async () => {
    const before = await eventCount();
    const create = ['accounts', 'create', '--email', 'never@example.com', '--plan', 'free'];

    const wrong = await cli(create, { OPERATOR_CREDENTIAL: generateOperatorCredential().credential });
    expect(wrong.code).toBe(77);
    expect(wrong.stderr).toBe(
      'refused: the operator credential is not valid (from OPERATOR_CREDENTIAL) (operator_credential_refused)\n',
    );

    const malformed = await cli(create, { OPERATOR_CREDENTIAL: 'opc_not-a-credential' });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('OPERATOR_CREDENTIAL must be an operator credential');
    expect(malformed.stderr).not.toContain('opc_not-a-credential');

    const noFile = await cli(['--operator-credential-file', join(dataDir, 'nope'), ...create]);
    expect(noFile.code).toBe(77);
    expect(noFile.stderr).toContain('does not exist');

    // The first operator's file gone (and an operator exists): nothing to act with.
    const file = join(dataDir, 'operator-credential');
    renameSync(file, `${file}.away`);
    try {
      const missing = await runCli(create, env);
      expect(missing.code).toBe(77);
      expect(missing.stderr).toContain('refused: this command needs an operator credential: none in');
      // Read-only commands need none.
      expect((await cli(['events', 'tail', '-n', '1'])).code).toBe(0);
      expect((await cli(['projections', 'status', '--json'])).code).toBe(0);
    } finally {
      renameSync(`${file}.away`, file);
    }

    // Revoked: refused from then on.
    const revoked = await cli([
      'operators',
      'revoke',
      alice.credentialId,
      '--reason',
      'left the team',
      '--json',
    ]);
    expect(JSON.parse(revoked.stdout)).toEqual({
      operator: 'alice',
      credential_id: alice.credentialId,
      revoked: true,
    });
    const afterRevocation = await cli(create, { OPERATOR_CREDENTIAL: alice.credential });
    expect(afterRevocation.code).toBe(77);
    expect(afterRevocation.stderr).toContain(`the operator credential ${alice.credentialId} was revoked`);
    // The revocation is the only event all this added.
    expect(await eventCount()).toBe(before + 1);
    const [revocation] = lines(
      (await cli(['events', 'replay', '--stream', 'operator-alice', '--from', '2', '--json'])).stdout,
    );
    expect(revocation).toMatchObject({
      type: 'OperatorCredentialRevoked',
      actor: 'operator:admin',
      reason: 'left the team',
    });
  });
});
