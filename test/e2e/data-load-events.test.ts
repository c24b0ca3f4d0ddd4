/**
 * Data loads leave an attributed trail (ADR 110): `fingerprints import`, `data import` and `catalogue import` each
 * append one event on their stream with the operator, its credential, the CLI surface, the reason and a summary
 * (files with their SHA-256 and size, counts); without `--reason` each is refused (exit 2, `reason_required`)
 * before anything is read or appended. `data import --no-fingerprints` keeps no derived identity and says so.
 * The CLI's program in this process, on the embedded database (PGlite), whose tables are read after each command.
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PGLITE_DIR_NAME } from '../../src/platform/database/open-sql-database.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { freshDataDir } from '../support/pglite-template.js';
import type { CliResult } from '../support/processes.js';
import { SHARED_DATA } from '../support/shared-data.js';

const DATA = SHARED_DATA;
const SSH_RECOG = join(DATA, 'recog', 'ssh_banners.xml');
const SSH_SCAN = join(DATA, 'zgrab2', 'ssh-ssh.json');
const KEV = join(DATA, 'kev', 'known_exploited_vulnerabilities.json');
const STEP_TIMEOUT_MS = 180_000;

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const lines = (result: CliResult): Array<Record<string, unknown>> =>
  result.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('data loads as attributed events (PGlite)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  const cli = (args: readonly string[]) => runCliInProcess(args, env);
  const replay = async (stream: string) =>
    lines(await cli(['events', 'replay', '--stream', stream, '--json']));
  const eventCount = async () => lines(await cli(['events', 'tail', '-n', '10000', '--json'])).length;
  /** The stored hosts rows, read once the command has closed the database. */
  const storedHosts = async (): Promise<Array<Record<string, unknown>>> => {
    const db = await PgliteDatabase.open(join(dataDir, PGLITE_DIR_NAME));
    try {
      return (await db.query<{ doc: Record<string, unknown> }>('SELECT doc FROM obs_hosts')).rows.map(
        (row) => row.doc,
      );
    } finally {
      await db.close();
    }
  };
  /** The envelope every load event carries: who, with what, from where, why, and how it is correlated. */
  const attributed = (reason: string) => ({
    actor: 'operator:admin',
    payer: 'system',
    credential: expect.stringMatching(/^operator_credential:[a-z2-7]{12}$/),
    surface: 'cli',
    request_id: expect.any(String),
    correlation_id: expect.any(String),
    causation_id: expect.any(String),
    reason,
  });

  beforeAll(async () => {
    dataDir = await freshDataDir('data-load-events-');
    env = { DATA_DIR: dataDir };
  }, STEP_TIMEOUT_MS);

  afterAll(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));

  it(
    'each load is refused without --reason (exit 2, reason_required); neither it nor a load that fails before ' +
      'writing anything appends an event',
    async () => {
      // The first command that needs a credential creates the first operator (two events of its own).
      expect((await cli(['operators', 'whoami'])).code).toBe(0);
      const before = await eventCount();
      for (const args of [
        ['fingerprints', 'import', SSH_RECOG],
        ['data', 'import', 'auto', SSH_SCAN],
        ['catalogue', 'import', KEV],
      ]) {
        const refused = await cli(args);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(
          new RegExp(
            `^refused: ${args[0]} import changes what the service identifies, returns or enriches: ` +
              'say why with --reason <text> .*\\(reason_required\\)\\n$',
          ),
        );
      }
      const unknown = await cli(['data', 'import', '--reason', 'wrong file', 'hosts', SSH_RECOG]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no format recognizes this content');
      expect(await eventCount()).toBe(before);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'fingerprints import records the databases, their fingerprint counts and the SHA-256 of each file',
    async () => {
      const result = await cli([
        'fingerprints',
        'import',
        '--reason',
        'Recog 3.1 for SSH',
        SSH_RECOG,
        '--json',
      ]);
      expect(result.code).toBe(0);
      const [event, ...more] = await replay('fingerprint-databases');
      expect(more).toEqual([]);
      expect(event).toMatchObject({
        type: 'FingerprintDatabasesLoaded',
        ...attributed('Recog 3.1 for SSH'),
        data: {
          outcome: 'completed',
          databases: [
            {
              name: 'ssh_banners.xml',
              matches: 'ssh.banner',
              fingerprints: 152,
              sha256: sha256(SSH_RECOG),
              bytes: readFileSync(SSH_RECOG).length,
              changed: true,
            },
          ],
          fingerprints: 152,
          unsupported: 0,
        },
      });
      expect(event!.correlation_id).toBe(event!.causation_id);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'data import --no-fingerprints keeps no derived vendor, product or cpe and records fingerprinting off; ' +
      'the same file with fingerprinting identifies them and records the merge',
    async () => {
      const off = await cli([
        'data',
        'import',
        '--reason',
        'raw banners',
        '--no-fingerprints',
        'auto',
        SSH_SCAN,
      ]);
      expect(off.code).toBe(0);
      const [raw] = await storedHosts();
      expect(raw).toMatchObject({ banner: expect.stringMatching(/^SSH-2\.0-OpenSSH_/) });
      for (const derived of ['vendor', 'product', 'version', 'cpe']) expect(raw).not.toHaveProperty(derived);

      const on = await cli(['data', 'import', '--reason', 'identify banners', 'auto', SSH_SCAN, '--json']);
      expect(on.code).toBe(0);
      const [identified] = await storedHosts();
      expect(identified).toMatchObject({
        product: 'openssh',
        cpe: expect.arrayContaining(['cpe:2.3:a:openbsd:openssh:7.2p2:*:*:*:*:*:*:*']),
      });

      const file = {
        name: SSH_SCAN,
        format: 'zgrab2',
        bytes: readFileSync(SSH_SCAN).length,
        sha256: sha256(SSH_SCAN),
      };
      const events = await replay('data-load-auto');
      expect(events).toMatchObject([
        {
          type: 'ObservationDataLoaded',
          ...attributed('raw banners'),
          data: {
            outcome: 'completed',
            target: 'auto',
            datasets: ['hosts'],
            formats: ['zgrab2'],
            files: [{ ...file, read: 1, written: 1, rejected: 0 }],
            records: { read: 1, written: 1, merged: 0, rejected: 0, refused: 0 },
            fingerprinting: false,
            strict: false,
          },
        },
        {
          type: 'ObservationDataLoaded',
          ...attributed('identify banners'),
          data: { records: { written: 1, merged: 1 }, fingerprinting: true },
        },
      ]);
      expect(JSON.parse(on.stdout)).toMatchObject({ recorded: { stream: 'data-load-auto' }, merged: 1 });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'catalogue import records its files, the KEV source and the advisory counts',
    async () => {
      const result = await cli(['catalogue', 'import', '--reason', 'KEV of 25 August', KEV]);
      expect(result.code).toBe(0);
      const [event] = await replay('vulnerability-catalogue');
      expect(event).toMatchObject({
        type: 'CatalogueLoaded',
        ...attributed('KEV of 25 August'),
        data: {
          outcome: 'completed',
          files: [{ name: KEV, sha256: sha256(KEV), bytes: readFileSync(KEV).length }],
          kev: {
            title: 'CISA Catalog of Known Exploited Vulnerabilities',
            catalogVersion: '2025.08.25',
            entries: 1404,
          },
          advisories: { read: 0, added: 0, updated: 0, unchanged: 0, older: 0 },
          kevChanged: true,
          catalogueVersion: expect.any(Number),
        },
      });
      // The auditor's search by operator and type finds it, with who and why.
      const found = await cli([
        'events',
        'search',
        '--actor',
        'operator:admin',
        '--type',
        'CatalogueLoaded',
        '--json',
      ]);
      expect(JSON.parse(found.stdout)).toMatchObject({
        events: [{ type: 'CatalogueLoaded', stream: 'vulnerability-catalogue', reason: 'KEV of 25 August' }],
      });
    },
    STEP_TIMEOUT_MS,
  );
});
