/**
 * `events verify` and `events checkpoint` as an operator and an auditor run them (ADR 0061), on the embedded
 * database and on the server; the public key route and /health/ready of the real service.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { openSqlDatabase } from '../../src/platform/database/open-sql-database.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import { GENERATED_KEY_FILE } from '../../src/platform/event-store/checkpoint-signer.js';
import { EventLogSealer } from '../../src/platform/event-store/event-log-sealer.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import {
  createTestDatabase,
  SQL_KINDS,
  type TestDatabase,
  type TestDatabaseKind,
} from '../support/databases.js';
import { seedEmbeddedDatabase } from '../support/pglite-template.js';
import { runCli } from '../support/processes.js';
import { startTestService } from '../support/service.js';
import { newEvents, testMetadata } from '../support/storage.js';

describe.each(SQL_KINDS)('events verify and events checkpoint on %s', (kind: TestDatabaseKind) => {
  let dataDir: string;
  let server: TestDatabase | undefined;
  let env: Record<string, string>;

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'verify-'));
    server = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    // A migrated embedded database copied in: the suite pays for opening it, not for an initdb per test.
    if (kind === 'pglite') await seedEmbeddedDatabase(dataDir);
    env = { DATA_DIR: dataDir, ...(server?.url ? { DATABASE_URL: server.url } : {}) };
  });

  afterEach(async () => {
    await server?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Raw access to the storage the CLI uses, as someone who can open the database has. */
  async function withDatabase<T>(work: (db: SqlDatabase) => Promise<T>): Promise<T> {
    const opened = await openSqlDatabase({
      dataDir,
      ...(server?.url ? { databaseUrl: server.url } : {}),
      serveSocket: false,
    });
    try {
      return await work(opened.db);
    } finally {
      await opened.close();
    }
  }

  async function appendLedger(): Promise<void> {
    await withDatabase(async (db) => {
      const store = new PostgresEventStore(db);
      await store.init();
      for (const [index, stream] of ['ledger-a', 'ledger-b', 'ledger-c'].entries())
        await store.append(
          stream,
          newEvents(
            `${stream}-cmd`,
            [
              { type: 'CreditsPurchased', data: { amount: 7 * (index + 1) } },
              { type: 'CreditsSpent', data: { amount: 1 } },
            ],
            testMetadata({ actor: 'account:alice', payer: 'account:alice' }),
          ),
          { expectedVersion: 'no_stream' },
        );
      await store.close();
    });
  }

  it('verifies, signs a checkpoint to keep outside, and names the first position an UPDATE changed', async () => {
    await appendLedger();
    const checkpoint = await runCliInProcess(['events', 'checkpoint', '--json'], env);
    expect(checkpoint.code).toBe(0);
    const kept = JSON.parse(checkpoint.stdout) as Record<string, unknown>;
    expect(kept).toMatchObject({ chain_index: 5, public_key: expect.stringContaining('PUBLIC KEY') });
    const keptFile = join(dataDir, 'kept-checkpoint.json');
    writeFileSync(keptFile, checkpoint.stdout);
    if (kind === 'pglite') expect(statSync(join(dataDir, GENERATED_KEY_FILE)).mode & 0o777).toBe(0o600);

    const clean = await runCliInProcess(['events', 'verify', '--json'], env);
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({
      ok: true,
      finding: null,
      checkpoints_checked: 1,
      last_verified_checkpoint: { chain_index: 5 },
    });
    expect((await runCliInProcess(['events', 'verify', '--checkpoint', keptFile], env)).code).toBe(0);

    // A 7-credit purchase becomes 70,000.
    const position = await withDatabase(async (db) => {
      const { rows } = await db.query<{ tx_id: string; seq: string }>(
        `UPDATE es_events SET data = '{"amount":70000}' WHERE stream_id = 'ledger-a' AND stream_version = 0
         RETURNING tx_id::text AS tx_id, seq::text AS seq`,
      );
      return `${rows[0]!.tx_id.padStart(20, '0')}-${rows[0]!.seq.padStart(20, '0')}`;
    });
    const tampered = await runCliInProcess(['events', 'verify', '--json'], env);
    expect(tampered.code).toBe(4);
    expect(JSON.parse(tampered.stdout)).toMatchObject({
      ok: false,
      finding: { kind: 'changed_payload', position, stream: 'ledger-a' },
    });
    const text = await runCliInProcess(['events', 'verify'], env);
    expect(text.code).toBe(4);
    expect(text.stdout).toContain(`TAMPERED: changed payload at position ${position}`);
    const againstKept = await runCliInProcess(['events', 'verify', '--checkpoint', keptFile, '--json'], env);
    expect(againstKept.code).toBe(4);

    const badFrom = await runCliInProcess(['events', 'verify', '--from', 'yesterday'], env);
    expect(badFrom.code).toBe(1);
    expect(badFrom.stderr).toContain('--from must be a global position');
    writeFileSync(keptFile, '{"not":"a checkpoint"}');
    const badFile = await runCliInProcess(['events', 'verify', '--checkpoint', keptFile], env);
    expect(badFile.code).toBe(1);
    expect(badFile.stderr).toContain('is not a checkpoint');
  });

  if (kind === 'pglite')
    it('a real process exits non-zero and names the position', async () => {
      await appendLedger();
      await withDatabase((db) =>
        db.query(
          `UPDATE es_events SET metadata = jsonb_set(metadata, '{actor}', '"operator:mallory"')
            WHERE stream_id = 'ledger-b' AND stream_version = 1`,
        ),
      );
      const result = await runCli(['events', 'verify'], env);
      expect(result.code).toBe(4);
      expect(result.stdout).toMatch(/TAMPERED: changed event at position \d{20}-\d{20}/);
    });
});

describe('the public key route and /health/ready', () => {
  it('serves the key that verifies the checkpoints; the sealer signs and verifies, /health/ready shows it', async () => {
    const service = await startTestService('pglite');
    try {
      const key = await service.app.inject({ method: 'GET', url: '/.well-known/event-log-key' });
      expect(key.statusCode).toBe(200);
      const body = key.json<{ key_id: string; public_key: string; algorithm: string }>();
      expect(body).toMatchObject({
        algorithm: 'Ed25519',
        key_id: service.context.tamperEvidence.signer.keyId,
      });

      const before = (await service.app.inject({ method: 'GET', url: '/health/ready' })).json<{
        event_log: { verified: unknown };
      }>();
      expect(before.event_log).toEqual({ verified: null });

      // The service's sealer: it seals and verifies at once, signs a checkpoint once an interval has passed.
      let now = Date.parse('2026-11-28T06:00:00.000Z');
      const evidence = service.context.tamperEvidence;
      const sealer = new EventLogSealer({
        tamperEvidence: evidence,
        clock: { now: () => new Date(now) },
        background: service.context.background,
        storage: service.context.storage,
        config: { checkpointIntervalMs: 60_000 },
        log: () => undefined,
      });
      await service.context.storage.eventStore.append(
        'sealer-widget',
        newEvents('sealer-cmd', [{ type: 'WidgetTuned', data: { step: 1 } }], testMetadata({})),
        { expectedVersion: 'no_stream' },
      );
      await sealer.sweepOnce();
      expect(await evidence.latestCheckpoint()).toBeNull();
      expect(evidence.lastVerified).toMatchObject({ ok: true, checkpoint: null });
      now += 60_000;
      await sealer.sweepOnce();
      const checkpoint = await evidence.latestCheckpoint();
      expect(checkpoint).not.toBeNull();
      const after = (await service.app.inject({ method: 'GET', url: '/health/ready' })).json<{
        event_log: { verified: { ok: boolean; checkpoint: { chain_index: number } | null } };
      }>();
      expect(after.event_log.verified.ok).toBe(true);
      expect(after.event_log.verified.checkpoint?.chain_index).toBe(checkpoint!.chainIndex);
    } finally {
      await service.dispose();
    }
  });
});
