/**
 * The real `catalogue import` / `catalogue status` / `catalogue reindex` commands (in this process; an import, a
 * data import and the reindex as child processes) on the embedded database, with the real NVD and KEV files of
 * ../shared/data: first owning DATA_DIR (no service), then through the socket of a running service, whose
 * `cve:`/`kev:` searches see what the CLI imported. One data directory throughout: each CLI command that owns the
 * database pays for opening it, the socket ones do not.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MATCHER_VERSION } from '../../src/catalogue/domain/matching.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { runCli, startServiceProcess, type CliResult, type ServiceProcess } from '../support/processes.js';
import { freshDataDir } from '../support/pglite-template.js';
import { SHARED_DATA } from '../support/shared-data.js';

const DATA = SHARED_DATA;
const NVD = join(DATA, 'nvd');
const KEV = join(DATA, 'kev');
const cpe = (vendor: string, product: string, version: string) =>
  `cpe:2.3:a:${vendor}:${product}:${version}:*:*:*:*:*:*:*`;

const KEV_SOURCE = { catalog_version: '2025.08.25', count: 1404 };

/** Host observations (address, CPE) and what the shared NVD and KEV data associate with them. */
const HOSTS = [
  ['198.51.100.1', cpe('apache', 'http_server', '2.4.49')], // CVE-2021-41773, -42013 (KEV); CVE-2023-25690
  ['198.51.100.2', cpe('apache', 'http_server', '2.4.55')], // CVE-2023-25690 only: kev:false
  ['198.51.100.3', cpe('f5', 'nginx', '1.26.2')], // nothing
  ['198.51.100.4', cpe('openssl', 'openssl', '1.0.1f')], // CVE-2014-0160 (KEV)
] as const;

const json = (result: CliResult): Record<string, unknown> => {
  try {
    return JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`not JSON (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
};

/** Every process that owns the database opens it (about 10 s on a busy machine): more than jest's default. */
const CLI_STEP_TIMEOUT_MS = 120_000;

describe('catalogue CLI', () => {
  let scratch: string;
  let dataDir: string;
  let service: ServiceProcess | undefined;
  /** What the first step imported: the second checks the refused imports left it as it was. */
  let kevCatalogue: Record<string, unknown> | undefined;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'catcli-files-'));
    dataDir = await freshDataDir('catcli-');
  });

  afterAll(async () => {
    await service?.stop();
    rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });

  it(
    'with no service running: imports the KEV catalogue with its counts; a malformed file is refused with its path and reason, exit 3',
    async () => {
      const env = { DATA_DIR: dataDir }; // the CLI owns DATA_DIR
      const kevImport = await runCli(['catalogue', 'import', '--reason', 'test load', KEV, '--json'], env);
      expect(kevImport.code).toBe(0);
      const kevReport = json(kevImport);
      expect(kevReport).toMatchObject({
        files: 1, // the schema file beside it is skipped
        advisories_read: 0,
        advisories_added: 0,
        kev_entries: 1404,
        kev_changed: true,
        changed: true,
        catalogue: { version: 1, advisories: 0, kev_entries: 1404, kev_source: KEV_SOURCE },
        associations: { observations: 0, associated_observations: 0, associations: 0 },
      });
      expect(Date.parse((kevReport.catalogue as { evaluated_at: string }).evaluated_at)).not.toBeNaN();

      // A good record beside a malformed one: the whole import is refused with the bad file's path and reason.
      const mixed = join(scratch, 'mixed');
      mkdirSync(mixed);
      writeFileSync(
        join(mixed, 'a-good.json'),
        JSON.stringify({ id: 'CVE-2099-0001', lastModified: '2099-01-01T00:00:00.000', configurations: [] }),
      );
      const bad = join(mixed, 'b-bad.json');
      writeFileSync(
        bad,
        JSON.stringify({
          id: 'CVE-2099-0002',
          configurations: [{ nodes: [{ operator: 'XOR', cpeMatch: [] }] }],
        }),
      );
      const refused = await runCliInProcess(
        ['catalogue', 'import', '--reason', 'test load', mixed, '--json'],
        env,
      );
      expect(refused.code).toBe(3);
      expect(json(refused)).toEqual({
        error: 'malformed_file',
        path: bad,
        reason: expect.stringContaining('operator "XOR"'),
        written: false,
      });
      // In text mode, beside the real NVD files: a truncated file names itself and why.
      const truncated = join(scratch, 'truncated.json');
      writeFileSync(truncated, '{"id": "CVE-2099-0003", ');
      const refusedText = await runCliInProcess(
        ['catalogue', 'import', '--reason', 'test load', NVD, truncated],
        env,
      );
      expect(refusedText.code).toBe(3);
      expect(refusedText.stdout).toContain(`rejected ${truncated}: not valid JSON`);
      expect(refusedText.stdout).toContain('nothing was imported; the current catalogue is unchanged');
      kevCatalogue = kevReport.catalogue as Record<string, unknown>;
    },
    CLI_STEP_TIMEOUT_MS,
  );

  it(
    "while the service runs, through its socket: the refused imports changed nothing; an NVD and KEV import feeds the service's cve:/kev: searches; a re-import and a reindex change nothing",
    async () => {
      expect(kevCatalogue).toBeDefined(); // the first step ran
      const env = { DATA_DIR: dataDir };
      service = await startServiceProcess(env);
      const untouched = await runCliInProcess(['catalogue', 'status', '--json'], env);
      expect(untouched.code).toBe(0);
      // The KEV import built the (empty) association index with this matcher version: current.
      expect(json(untouched)).toEqual({
        ...kevCatalogue,
        associations: 0,
        index: {
          index: 'current',
          matcher_version: MATCHER_VERSION,
          index_matcher_version: MATCHER_VERSION,
          built_at: expect.any(String),
        },
      });

      // Hosts written while the catalogue holds no advisory: nothing to associate yet.
      const ndjson = join(scratch, 'hosts.ndjson');
      writeFileSync(
        ndjson,
        HOSTS.map(([ip, name]) =>
          JSON.stringify({
            id: `${ip}:443/tcp`,
            first_seen: '2026-01-01T00:00:00.000Z',
            last_seen: new Date().toISOString(),
            ip,
            port: 443,
            transport: 'tcp',
            cpe: [name],
          }),
        ).join('\n') + '\n',
      );
      const written = await runCli(
        ['data', 'import', '--reason', 'test load', 'hosts', ndjson, '--json'],
        env,
      );
      expect([written.code, json(written).imported]).toEqual([0, HOSTS.length]);
      const account = json(
        await runCliInProcess(
          ['accounts', 'create', '--email', 'catalogue@example.com', '--plan', 'professional', '--json'],
          env,
        ),
      );
      const key = json(
        await runCliInProcess(
          ['keys', 'issue', account.account_id as string, '--reason', 'test key', '--json'],
          env,
        ),
      ).key as string;
      const search = async (query: string): Promise<string[]> => {
        const response = await fetch(`${service!.baseUrl}/api/v2/common/data/hosts`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ raw_query: query, results_per_page: 10 }),
        });
        const body = (await response.json()) as { total: number; data: Array<{ ip: string }> };
        expect([query, response.status]).toEqual([query, 200]);
        expect(body.total).toBe(body.data.length);
        return body.data.map((host) => host.ip).sort();
      };
      expect(await search('cve:*')).toEqual([]);

      const imported = await runCliInProcess(
        ['catalogue', 'import', '--reason', 'test load', NVD, KEV, '--json'],
        env,
      );
      expect(imported.code).toBe(0);
      const report = json(imported);
      expect(report).toMatchObject({
        files: 41,
        // CVE-2024-3400 is read twice (an awaiting-analysis copy beside the analysed record): one advisory.
        advisories_read: 40,
        advisories_added: 39,
        advisories_updated: 0,
        advisories_unchanged: 0,
        kev_entries: 1404,
        kev_changed: false,
        changed: true,
        catalogue: { version: 2, advisories: 39, kev_entries: 1404, kev_source: KEV_SOURCE },
        associations: { observations: 4, associated_observations: 3 },
      });
      const links = (report.associations as { associations: number }).associations;
      expect(links).toBeGreaterThanOrEqual(4);

      // The running service searches what the CLI imported and associated.
      expect(await search('cve:CVE-2021-41773')).toEqual(['198.51.100.1']);
      expect(await search('cve:CVE-2023-25690')).toEqual(['198.51.100.1', '198.51.100.2']);
      expect(await search('cve:2014-*')).toEqual(['198.51.100.4']);
      expect(await search('kev:true')).toEqual(['198.51.100.1', '198.51.100.4']);
      expect(await search('kev:false')).toEqual(['198.51.100.2']);
      expect(await search('cve:* AND NOT ip:198.51.100.1')).toEqual(['198.51.100.2', '198.51.100.4']);

      // Importing the same files again changes nothing: same version, nothing re-associated.
      const again = await runCliInProcess(
        ['catalogue', 'import', '--reason', 'test load', NVD, KEV, '--json'],
        env,
      );
      expect(again.code).toBe(0);
      expect(json(again)).toMatchObject({
        changed: false,
        advisories_added: 0,
        advisories_updated: 0,
        advisories_unchanged: 39,
        kev_changed: false,
        associations: null,
        catalogue: report.catalogue as object,
      });

      // A rebuild of the association index finds the same links, its progress on stderr.
      const reindex = await runCli(['catalogue', 'reindex'], env);
      expect(reindex.code).toBe(0);
      expect(reindex.stdout.trim()).toBe(`4 host observations: 3 associated with ${links} CVE links`);
      expect(reindex.stderr).toContain('associating hosts: 0/4 hosts (0/s)');
      expect(reindex.stderr).toMatch(/associating hosts: 4\/4 hosts \([\d,]+\/s\)/);
      expect(await search('kev:true')).toEqual(['198.51.100.1', '198.51.100.4']);

      // Status names the code's matcher version and the one the index was built with.
      const status = await runCliInProcess(['catalogue', 'status'], env);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(
        new RegExp(
          `index: +current \\(matcher version ${MATCHER_VERSION}; built with matcher version ${MATCHER_VERSION} at \\d{4}-`,
        ),
      );

      expect(await service.stop()).toBe(0);
      service = undefined;
    },
    CLI_STEP_TIMEOUT_MS,
  );
});
