/**
 * The real `fingerprints import` / `list` / `verify` commands with the Recog databases of ../shared/data/recog, on
 * the embedded database (PGlite) and on the PostgreSQL server: stored by file name, idempotent, a malformed file
 * refused before anything is written (exit 3), Recog's own examples verified through the stored databases, and a
 * failing example reported with what was expected (exit 1, as the shell sees it from the built CLI).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runCliInProcess } from '../support/cli-in-process.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { freshDataDir } from '../support/pglite-template.js';
import { runCli, type CliResult } from '../support/processes.js';
import { SHARED_DATA } from '../support/shared-data.js';

const RECOG = join(SHARED_DATA, 'recog');
const SSH = join(RECOG, 'ssh_banners.xml');
const DATABASES = 11;
const EXAMPLES = 3322;
/** Every process that owns the database opens it (about 10 s on a busy machine). */
const STEP_TIMEOUT_MS = 180_000;

const json = (result: CliResult): Record<string, unknown> => {
  try {
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
};

for (const kind of ['pglite', 'postgres'] as const) {
  describe(`fingerprints CLI on ${kind}`, () => {
    let scratch: string;
    let env: Record<string, string>;
    let server: TestDatabase | undefined;

    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'fpcli-files-'));
      if (kind === 'pglite') env = { DATA_DIR: await freshDataDir('fpcli-') };
      else {
        server = await createTestDatabase('postgres');
        env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'fpcli-server-')), DATABASE_URL: server.url! };
      }
    });

    afterAll(async () => {
      await server?.dispose();
      rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
      rmSync(env.DATA_DIR!, { recursive: true, force: true, maxRetries: 5 });
    });

    it(
      'imports every database by file name; the same files again change nothing; list shows them',
      async () => {
        const first = await runCliInProcess(
          ['fingerprints', 'import', '--reason', 'test load', RECOG, '--json'],
          env,
        );
        expect(first.code).toBe(0);
        const report = json(first);
        expect(report).toMatchObject({ files: DATABASES, unchanged: [], unsupported: [] });
        expect(report.changed).toHaveLength(DATABASES);
        expect(report.fingerprints).toBe(2259);

        const again = await runCliInProcess(
          ['fingerprints', 'import', '--reason', 'test load', SSH, '--json'],
          env,
        );
        expect(json(again)).toMatchObject({ files: 1, changed: [], unchanged: ['ssh_banners.xml'] });

        const list = json(await runCliInProcess(['fingerprints', 'list', '--json'], env));
        const databases = list.databases as Array<Record<string, unknown>>;
        expect(databases).toHaveLength(DATABASES);
        expect(databases.find((database) => database.name === 'ssh_banners.xml')).toMatchObject({
          matches: 'ssh.banner',
          fingerprints: 152,
        });
        expect(databases.find((database) => database.name === 'http_servers.xml')).toMatchObject({
          matches: 'http_header.server',
          fingerprints: 450,
        });
      },
      STEP_TIMEOUT_MS,
    );

    it(
      "verify passes every one of Recog's examples through the stored databases (at least 98% required)",
      async () => {
        const result = await runCliInProcess(['fingerprints', 'verify', RECOG, '--json'], env);
        const report = json(result);
        expect(report).toMatchObject({ examples: EXAMPLES, failures: [], unsupported: [] });
        expect(report.passed as number).toBeGreaterThanOrEqual(Math.ceil(EXAMPLES * 0.98));
        expect(report.passed).toBe(EXAMPLES);
        expect(result.code).toBe(0);
      },
      STEP_TIMEOUT_MS,
    );

    it(
      'a malformed file is refused with its reason and nothing is written (exit 3)',
      async () => {
        const broken = join(scratch, 'broken.xml');
        writeFileSync(broken, '<fingerprints><fingerprint pattern="x"></fingerprints>');
        const result = await runCliInProcess(
          ['fingerprints', 'import', '--reason', 'test load', SSH, broken, '--json'],
          env,
        );
        expect(result.code).toBe(3);
        expect(json(result)).toMatchObject({ error: 'malformed_file', written: false });
        expect(String(json(result).reason)).toContain('broken.xml');
        const list = json(await runCliInProcess(['fingerprints', 'list', '--json'], env));
        expect(
          (list.databases as unknown[]).map((database) => (database as { name: string }).name),
        ).not.toContain('broken.xml');
      },
      STEP_TIMEOUT_MS,
    );

    it(
      'a stored database that changed is replaced; an example it fails is reported with what was expected (exit 1)',
      async () => {
        // The operator's edited ssh_banners.xml: one example now expects a version the banner does not carry.
        const edited = readFileSync(SSH, 'utf8').replace(
          '<example service.version="7.4p1" openssh.comment="Debian-10">OpenSSH_7.4p1 Debian-10</example>',
          '<example service.version="7.5p1" openssh.comment="Debian-10">OpenSSH_7.4p1 Debian-10</example>',
        );
        const file = join(scratch, 'ssh_banners.xml');
        writeFileSync(file, edited);
        const imported = json(
          await runCliInProcess(['fingerprints', 'import', '--reason', 'test load', file, '--json'], env),
        );
        expect(imported).toMatchObject({ changed: ['ssh_banners.xml'], unchanged: [] });

        // The built CLI as a process: the exit status the shell sees.
        const result = await runCli(['fingerprints', 'verify', file, '--json'], env, STEP_TIMEOUT_MS);
        expect(result.code).toBe(1);
        const report = json(result);
        expect(report).toMatchObject({ examples: 227, passed: 226, failed: 1 });
        expect(report.failures).toEqual([
          expect.objectContaining({
            database: 'ssh_banners.xml',
            example: 'OpenSSH_7.4p1 Debian-10',
            expected: { 'service.version': '7.5p1', 'openssh.comment': 'Debian-10' },
            reason: 'service.version is "7.4p1", expected "7.5p1"',
          }),
        ]);
        const text = await runCliInProcess(['fingerprints', 'verify', file], env);
        expect(text.code).toBe(1);
        expect(text.stdout).toContain('227 examples: 226 passed, 1 failed');
        expect(text.stdout).toContain('FAIL ssh_banners.xml');
      },
      STEP_TIMEOUT_MS,
    );
  });
}
