/**
 * Rotation of the checkpoint signing key (ADR 0076), as an operator and an auditor who does not trust the
 * database meet it, on the embedded database and on the server: `events rotate-key` (credential and reason
 * enforced), verification across the rotation with the service's ring and with `--trusted-key`, checkpoints
 * forged with an unknown key or with the retired key after its retirement, a forged rotation record, and a
 * running service that switches to the new key (or, with a configured key, refuses to sign and says why).
 */
import { verify as verifySignature } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { generateOperatorCredential } from '../../src/platform/auth/operator-credentials.js';
import { openSqlDatabase } from '../../src/platform/database/open-sql-database.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';
import { CheckpointSigner, GENERATED_KEY_FILE } from '../../src/platform/event-store/checkpoint-signer.js';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import {
  CHECKPOINT_EVENT_TYPE,
  CHECKPOINT_STREAM,
  type ChainCheckpoint,
} from '../../src/platform/event-store/event-log-integrity.js';
import { EventLogSealer } from '../../src/platform/event-store/event-log-sealer.js';
import { PostgresEventStore } from '../../src/platform/event-store/postgres/postgres-event-store.js';
import {
  KEY_ROTATION_EVENT_TYPE,
  KEY_ROTATION_STREAM,
  keyRotationSigningText,
  RETIRED_KEYS_DIR,
  retiredKeyText,
  writeRetiredKey,
  type KeyRotation,
} from '../../src/platform/event-store/signing-key-ring.js';
import { SigningKeyRetired } from '../../src/platform/event-store/tamper-evidence.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import {
  createTestDatabase,
  SQL_KINDS,
  type TestDatabase,
  type TestDatabaseKind,
} from '../support/databases.js';
import { seedEmbeddedDatabase } from '../support/pglite-template.js';
import { startTestService, type TestService } from '../support/service.js';
import { newEvents, testMetadata } from '../support/storage.js';

interface RotationJson {
  position: string;
  retired_key: { key_id: string; public_key: string; retired_at: string; key_ring_entry: string };
  active_key: { key_id: string; public_key: string };
  installed: string;
  operator: string;
  reason: string;
  checkpoint: { key_id: string; chain_index: number; position: string } | null;
}

interface VerifyJson {
  ok: boolean;
  checkpoints_checked: number;
  key_rotations: Array<{
    retired_key_id: string;
    successor_key_id: string;
    reason: string;
    operator: string;
  }>;
  finding: { kind: string; position: string | null; detail: string } | null;
}

describe.each(SQL_KINDS)(
  'events rotate-key and verification across rotations on %s',
  (kind: TestDatabaseKind) => {
    let dataDir: string;
    let server: TestDatabase | undefined;
    let env: Record<string, string>;

    beforeEach(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'rotate-'));
      server = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
      // A migrated embedded database copied in: the suite pays for opening it, not for initdb.
      if (kind === 'pglite') await seedEmbeddedDatabase(dataDir);
      env = { DATA_DIR: dataDir, ...(server?.url ? { DATABASE_URL: server.url } : {}) };
    });

    afterEach(async () => {
      await server?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** Raw access to the storage, as someone who can write the database (but holds no trusted key) has. */
    async function withStore<T>(
      work: (store: PostgresEventStore, db: SqlDatabase) => Promise<T>,
    ): Promise<T> {
      const opened = await openSqlDatabase({
        dataDir,
        ...(server?.url ? { databaseUrl: server.url } : {}),
        serveSocket: false,
      });
      const store = new PostgresEventStore(opened.db);
      try {
        await store.init();
        return await work(store, opened.db);
      } finally {
        await store.close();
        await opened.close();
      }
    }

    async function appendLedger(tag: string): Promise<void> {
      await withStore(async (store) => {
        for (const [index, stream] of [`ledger-${tag}-a`, `ledger-${tag}-b`].entries())
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
      });
    }

    async function verify(args: readonly string[] = []): Promise<{ code: number; report: VerifyJson }> {
      const result = await runCliInProcess(['events', 'verify', '--json', ...args], env);
      return { code: result.code, report: JSON.parse(result.stdout) as VerifyJson };
    }

    /** A log with a checkpoint of the first key, rotated, then more events and a checkpoint of the second. */
    async function rotatedLog(): Promise<{
      first: CheckpointSigner;
      firstPem: string;
      rotation: RotationJson;
    }> {
      await appendLedger('one');
      expect((await runCliInProcess(['events', 'checkpoint', '--json'], env)).code).toBe(0);
      const firstPem = readFileSync(join(dataDir, GENERATED_KEY_FILE), 'utf8');
      const first = CheckpointSigner.fromPem(firstPem);
      const rotated = await runCliInProcess(
        ['events', 'rotate-key', '--reason', 'yearly key policy', '--json'],
        env,
      );
      expect({ code: rotated.code, stderr: rotated.stderr.replace(/^first operator.*\n/, '') }).toEqual({
        code: 0,
        stderr: '',
      });
      await appendLedger('two');
      expect((await runCliInProcess(['events', 'checkpoint', '--json'], env)).code).toBe(0);
      return { first, firstPem, rotation: JSON.parse(rotated.stdout) as RotationJson };
    }

    it('refuses a rotation without --reason or a valid operator credential, with the operator exit codes', async () => {
      await appendLedger('one');
      const noReason = await runCliInProcess(['events', 'rotate-key'], env);
      expect(noReason.code).toBe(2);
      expect(noReason.stderr).toMatch(/^refused: events rotate-key .* say why with --reason <text>/);
      const blank = await runCliInProcess(['events', 'rotate-key', '--reason', '  '], env);
      expect(blank.code).toBe(2);
      const wrong = await runCliInProcess(['events', 'rotate-key', '--reason', 'drill'], {
        ...env,
        OPERATOR_CREDENTIAL: generateOperatorCredential().credential,
      });
      expect(wrong.code).toBe(77);
      expect(wrong.stderr).toBe(
        'refused: the operator credential is not valid (from OPERATOR_CREDENTIAL) (operator_credential_refused)\n',
      );
      // Nothing rotated: no record, no retired key, the key in DATA_DIR unchanged.
      const { code, report } = await verify();
      expect(code).toBe(0);
      expect(report.key_rotations).toEqual([]);
      expect(existsSync(join(dataDir, RETIRED_KEYS_DIR))).toBe(false);
    });

    it('rotates: the hand-over is signed by both keys, verification passes across it with the ring and with --trusted-key', async () => {
      const { first, firstPem, rotation } = await rotatedLog();
      const secondPem = readFileSync(join(dataDir, GENERATED_KEY_FILE), 'utf8');
      const second = CheckpointSigner.fromPem(secondPem);
      expect(rotation).toMatchObject({
        retired_key: { key_id: first.keyId, public_key: first.publicKeyPem },
        active_key: { key_id: second.keyId },
        installed: 'data_dir',
        operator: 'operator:admin',
        reason: 'yearly key policy',
        checkpoint: { key_id: second.keyId },
      });
      expect(second.keyId).not.toBe(first.keyId);
      // The new key's first checkpoint covers the rotation record.
      expect(rotation.checkpoint!.position >= rotation.position).toBe(true);
      const ringFile = join(dataDir, RETIRED_KEYS_DIR, `${first.keyId}.pem`);
      expect(readFileSync(ringFile, 'utf8')).toBe(rotation.retired_key.key_ring_entry);

      // The record: public keys and key ids only, attributed, signed by both keys over the same text.
      const [record] = await withStore((store) => store.readStream(KEY_ROTATION_STREAM));
      expect(record).toMatchObject({
        type: KEY_ROTATION_EVENT_TYPE,
        metadata: { actor: 'operator:admin', surface: 'cli', reason: 'yearly key policy' },
      });
      expect(record!.metadata.credential).toMatch(/^operator_credential:/);
      expect(JSON.stringify(record!.data)).not.toContain('PRIVATE KEY');
      const data = record!.data as KeyRotation;
      const text = keyRotationSigningText(data);
      expect(
        verifySignature(
          null,
          Buffer.from(text),
          first.publicKey,
          Buffer.from(data.signatures.retired, 'base64'),
        ),
      ).toBe(true);
      expect(
        verifySignature(
          null,
          Buffer.from(text),
          second.publicKey,
          Buffer.from(data.signatures.successor, 'base64'),
        ),
      ).toBe(true);

      // A retired key never comes back, and the active key is no successor of itself: nothing changes.
      const oldKeyFile = join(dataDir, 'old-key.pem');
      writeFileSync(oldKeyFile, firstPem, { mode: 0o600 });
      const back = await runCliInProcess(
        ['events', 'rotate-key', '--reason', 'undo', '--key-file', oldKeyFile],
        env,
      );
      expect(back.code).toBe(1);
      expect(back.stderr).toContain(`key ${first.keyId} was retired before`);
      writeFileSync(oldKeyFile, secondPem, { mode: 0o600 });
      const same = await runCliInProcess(
        ['events', 'rotate-key', '--reason', 'again', '--key-file', oldKeyFile],
        env,
      );
      expect(same.code).toBe(1);
      expect(same.stderr).toContain('a rotation needs another key');
      expect(readFileSync(join(dataDir, GENERATED_KEY_FILE), 'utf8')).toBe(secondPem);

      // Checkpoints under both keys verify, each with the key it names.
      const clean = await verify();
      expect(clean.code).toBe(0);
      expect(clean.report).toMatchObject({
        ok: true,
        finding: null,
        key_rotations: [
          { retired_key_id: first.keyId, successor_key_id: second.keyId, reason: 'yearly key policy' },
        ],
      });
      expect(clean.report.checkpoints_checked).toBe(3);
      const text2 = await runCliInProcess(['events', 'verify'], env);
      expect(text2.stdout).toContain(
        `key rotation at position ${rotation.position}: ${first.keyId} → ${second.keyId}`,
      );

      // An auditor with the keys they hold: the retired key's ring entry and the active public key.
      const auditorDir = mkdtempSync(join(tmpdir(), 'auditor-'));
      try {
        const retiredFile = join(auditorDir, 'retired.pem');
        const activeFile = join(auditorDir, 'active.pem');
        writeFileSync(retiredFile, rotation.retired_key.key_ring_entry);
        writeFileSync(activeFile, rotation.active_key.public_key);
        const audited = await verify(['--trusted-key', retiredFile, '--trusted-key', activeFile]);
        expect(audited.code).toBe(0);
        expect(audited.report.checkpoints_checked).toBe(3);
        // Plain public keys (no ring headers) verify as well: the retirement comes from the attested record.
        writeFileSync(retiredFile, rotation.retired_key.public_key);
        expect((await verify(['--trusted-key', retiredFile, '--trusted-key', activeFile])).code).toBe(0);
        // Holding only the new key, the first key's checkpoint is signed by a key the auditor does not trust.
        const partial = await verify(['--trusted-key', activeFile]);
        expect(partial.code).toBe(4);
        expect(partial.report.finding).toMatchObject({ kind: 'checkpoint_mismatch' });
        expect(partial.report.finding!.detail).toContain(`key ${first.keyId}, which is unknown`);
        const missing = await runCliInProcess(
          ['events', 'verify', '--trusted-key', join(auditorDir, 'nope.pem')],
          env,
        );
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain('--trusted-key');
      } finally {
        rmSync(auditorDir, { recursive: true, force: true });
      }
    });

    it('catches a checkpoint forged with an unknown key, and a rotation record to a key nobody trusts', async () => {
      await rotatedLog();
      await appendLedger('three');
      const intruder = CheckpointSigner.generate().signer;
      // Someone who can write the log signs its true head with a key of their own.
      const forgedPosition = await withStore(async (store) => {
        const head = await store.integrity!.seal();
        const forged = intruder.sign(head!, new Date());
        await store.append(
          CHECKPOINT_STREAM,
          [
            {
              id: eventIdFor(`forged-checkpoint:${head!.chainIndex}`, 0),
              type: CHECKPOINT_EVENT_TYPE,
              schemaVersion: 1,
              data: forged,
              metadata: testMetadata({ actor: 'system:event-log', payer: 'system' }),
            },
          ],
          { expectedVersion: 'any' },
        );
        return forged.position;
      });
      const caught = await verify();
      expect(caught.code).toBe(4);
      expect(caught.report.finding).toMatchObject({ kind: 'checkpoint_mismatch', position: forgedPosition });
      expect(caught.report.finding!.detail).toContain(`signed by key ${intruder.keyId}, which is unknown`);
    });

    it('catches a rotation record the trusted keys did not sign', async () => {
      const { first } = await rotatedLog();
      // The attacker adds a rotation of the (trusted) active key to their own key, signed by their key only.
      const intruder = CheckpointSigner.generate().signer;
      const active = CheckpointSigner.fromPem(readFileSync(join(dataDir, GENERATED_KEY_FILE), 'utf8'));
      const recordPosition = await withStore(async (store) => {
        const unsigned = {
          retiredKeyId: active.keyId,
          retiredPublicKey: active.publicKeyPem,
          successorKeyId: intruder.keyId,
          successorPublicKey: intruder.publicKeyPem,
          retiredAt: new Date().toISOString(),
          sealedThrough: null,
          reason: 'takeover',
          operator: 'operator:mallory',
        };
        const text = keyRotationSigningText(unsigned);
        const appended = await store.append(
          KEY_ROTATION_STREAM,
          [
            {
              id: eventIdFor('forged-rotation', 0),
              type: KEY_ROTATION_EVENT_TYPE,
              schemaVersion: 1,
              data: {
                ...unsigned,
                signatures: { retired: intruder.signText(text), successor: intruder.signText(text) },
              },
              metadata: testMetadata({ actor: 'operator:mallory', payer: 'system' }),
            },
          ],
          { expectedVersion: 'any' },
        );
        return appended.position;
      });
      const caught = await verify();
      expect(caught.code).toBe(4);
      expect(caught.report.finding).toMatchObject({ kind: 'checkpoint_mismatch', position: recordPosition });
      expect(caught.report.finding!.detail).toContain(`hands over to key ${intruder.keyId}`);
      expect(first.keyId).not.toBe(active.keyId);
    });

    it("catches the retired key's signature after its retirement, even over the true chain head", async () => {
      const { first, rotation } = await rotatedLog();
      await appendLedger('three');
      // Whoever kept the old private key (the reason to rotate) signs the current, true head with it.
      const late = await withStore(async (store) => {
        const head = await store.integrity!.seal();
        const checkpoint = first.sign(head!, new Date());
        await store.append(
          CHECKPOINT_STREAM,
          [
            {
              id: eventIdFor(`late-checkpoint:${head!.chainIndex}`, 0),
              type: CHECKPOINT_EVENT_TYPE,
              schemaVersion: 1,
              data: checkpoint,
              metadata: testMetadata({ actor: 'system:event-log', payer: 'system' }),
            },
          ],
          { expectedVersion: 'any' },
        );
        return checkpoint;
      });
      const caught = await verify();
      expect(caught.code).toBe(4);
      expect(caught.report.finding).toMatchObject({ kind: 'checkpoint_mismatch', position: late.position });
      expect(caught.report.finding!.detail).toContain(
        `signed by key ${first.keyId} after its retirement (rotated to ${rotation.active_key.key_id} at position ${rotation.position}`,
      );
      // The same checkpoint kept outside is refused as well.
      const keptFile = join(dataDir, 'late.json');
      writeFileSync(
        keptFile,
        JSON.stringify({
          position: late.position,
          chain_index: late.chainIndex,
          chain_head: late.chainHead,
          at: late.at,
          key_id: late.keyId,
          signature: late.signature,
        }),
      );
      expect((await runCliInProcess(['events', 'verify', '--checkpoint', keptFile], env)).code).toBe(4);
    });

    it('reports a key the ring holds as retired when the log lost its rotation record', async () => {
      await appendLedger('one');
      const first = CheckpointSigner.load({ dataDir });
      // A ring entry says the key was retired, but no record in the log retires it.
      writeRetiredKey(
        dataDir,
        retiredKeyText({
          keyId: first.keyId,
          publicKeyPem: first.publicKeyPem,
          retiredAt: '2026-11-01T00:00:00.000Z',
          successorKeyId: 'ffffffffffffffff',
        }),
        first.keyId,
      );
      const caught = await verify();
      expect(caught.code).toBe(4);
      expect(caught.report.finding).toMatchObject({ kind: 'checkpoint_mismatch', position: null });
      expect(caught.report.finding!.detail).toContain(`key ${first.keyId} is retired in the key ring`);
    });
  },
);

describe.each(SQL_KINDS)(
  'a running service and a rotation through the CLI on %s',
  (kind: TestDatabaseKind) => {
    let service: TestService | undefined;

    afterEach(async () => {
      await service?.dispose();
      service = undefined;
    });

    function cliEnv(running: TestService, extra: Record<string, string> = {}): Record<string, string> {
      return {
        DATA_DIR: running.dataDir,
        ...(running.database?.url ? { DATABASE_URL: running.database.url } : {}),
        ...extra,
      };
    }

    async function appendWidget(running: TestService, step: number): Promise<string> {
      const appended = await running.context.storage.eventStore.append(
        `rotation-widget-${step}`,
        newEvents(`rotation-widget-${step}`, [{ type: 'WidgetTuned', data: { step } }], testMetadata({})),
        { expectedVersion: 'no_stream' },
      );
      return appended.position;
    }

    /** A checkpoint through `position`: on the server an event is sealed once no older transaction can commit. */
    async function checkpointThrough(running: TestService, position: string): Promise<ChainCheckpoint> {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const checkpoint = await running.context.tamperEvidence.checkpoint();
        if (checkpoint && checkpoint.position >= position) return checkpoint;
        if (Date.now() > deadline) throw new Error(`no checkpoint through ${position}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    /**
     * Every checkpoint the log holds. checkpointThrough signs again while the seal lags its position (an older
     * transaction still open), so how many it wrote depends on timing: a verification must check them all.
     */
    async function checkpointsInLog(running: TestService): Promise<number> {
      return (await running.context.storage.eventStore.readStream(CHECKPOINT_STREAM)).length;
    }

    it('switches to the new key from DATA_DIR; the public key route lists the active and the retired key', async () => {
      service = await startTestService(kind);
      const evidence = service.context.tamperEvidence;
      const firstCheckpoint = await checkpointThrough(service, await appendWidget(service, 1));
      const first = evidence.signer;
      expect(firstCheckpoint.keyId).toBe(first.keyId);
      const before = await service.app.inject({ method: 'GET', url: '/.well-known/event-log-key' });
      expect(before.json()).toMatchObject({ key_id: first.keyId, retired_keys: [] });

      const rotated = await runCliInProcess(
        ['events', 'rotate-key', '--reason', 'suspected exposure', '--json'],
        cliEnv(service),
      );
      expect(rotated.code).toBe(0);
      const rotation = JSON.parse(rotated.stdout) as RotationJson;

      // The service still held the old key: the route follows the rotation and names the new key active.
      const after = await service.app.inject({ method: 'GET', url: '/.well-known/event-log-key' });
      expect(after.statusCode).toBe(200);
      expect(after.json()).toEqual({
        algorithm: 'Ed25519',
        key_id: rotation.active_key.key_id,
        public_key: rotation.active_key.public_key,
        checkpoint_stream: CHECKPOINT_STREAM,
        rotation_stream: KEY_ROTATION_STREAM,
        retired_keys: [
          {
            key_id: first.keyId,
            public_key: first.publicKeyPem,
            retired_at: rotation.retired_key.retired_at,
            retired_at_position: rotation.position,
            successor_key_id: rotation.active_key.key_id,
          },
        ],
      });
      expect(evidence.signer.keyId).toBe(rotation.active_key.key_id);

      const next = await checkpointThrough(service, await appendWidget(service, 2));
      expect(next.keyId).toBe(rotation.active_key.key_id);
      const report = await evidence.verify();
      expect(report.finding).toBeNull();
      // Before the rotation, the rotation's hand-over, after it: three at least.
      expect(report.checkpointsChecked).toBeGreaterThanOrEqual(3);
      expect(report.checkpointsChecked).toBe(await checkpointsInLog(service));
    });

    it('with a configured key: rotation needs --key-file; the old instance refuses to sign until KEY_FILE holds the new key', async () => {
      const keys = mkdtempSync(join(tmpdir(), 'keys-'));
      try {
        const oldKey = CheckpointSigner.generate();
        const newKey = CheckpointSigner.generate();
        const signingFile = join(keys, 'signing.pem');
        const trustedFile = join(keys, 'trusted.pem');
        writeFileSync(signingFile, oldKey.pem, { mode: 0o600 });
        writeFileSync(join(keys, 'new.pem'), newKey.pem, { mode: 0o600 });
        // The successor is announced ahead: every instance trusts its checkpoints from the first one.
        writeFileSync(trustedFile, newKey.signer.publicKeyPem);
        const configured = { KEY_FILE: signingFile, EVENT_LOG_TRUSTED_KEYS_FILE: trustedFile };
        service = await startTestService(kind, { env: configured });
        const evidence = service.context.tamperEvidence;
        expect(evidence.signer.keyId).toBe(oldKey.signer.keyId);
        await checkpointThrough(service, await appendWidget(service, 1));

        const generated = await runCliInProcess(
          ['events', 'rotate-key', '--reason', 'policy'],
          cliEnv(service, configured),
        );
        expect(generated.code).toBe(1);
        expect(generated.stderr).toContain('pass the new key with --key-file <pem>');

        const rotated = await runCliInProcess(
          ['events', 'rotate-key', '--reason', 'policy', '--key-file', join(keys, 'new.pem'), '--json'],
          cliEnv(service, configured),
        );
        expect(rotated.code).toBe(0);
        const rotation = JSON.parse(rotated.stdout) as RotationJson;
        expect(rotation).toMatchObject({
          installed: 'configuration',
          active_key: { key_id: newKey.signer.keyId },
          checkpoint: { key_id: newKey.signer.keyId },
        });

        // The instance whose KEY_FILE still holds the old key signs nothing, and its sealer says why, once.
        const widget2 = await appendWidget(service, 2);
        const logged: Array<{ level: string; message: string }> = [];
        let now = Date.parse('2026-11-28T06:00:00.000Z');
        const sealer = new EventLogSealer({
          tamperEvidence: evidence,
          clock: { now: () => new Date(now) },
          background: service.context.background,
          storage: service.context.storage,
          config: { checkpointIntervalMs: 60_000 },
          log: (level, message) => logged.push({ level, message }),
        });
        now += 60_000;
        await sealer.sweepOnce();
        await sealer.sweepOnce();
        const refusals = logged.filter((entry) => entry.message.includes('signs nothing'));
        expect(refusals).toHaveLength(1);
        expect(refusals[0]!.level).toBe('error');
        expect(refusals[0]!.message).toContain(`the signing key ${oldKey.signer.keyId} was retired`);
        await expect(checkpointThrough(service, widget2)).rejects.toBeInstanceOf(SigningKeyRetired);
        const readiness = async (): Promise<{ retired_signing_key?: unknown }> =>
          (await service!.app.inject({ method: 'GET', url: '/health/ready' })).json<{
            event_log: { retired_signing_key?: unknown };
          }>().event_log;
        expect((await readiness()).retired_signing_key).toEqual({
          key_id: oldKey.signer.keyId,
          successor_key_id: newKey.signer.keyId,
        });
        // What the log holds still verifies: the old key's checkpoint before the rotation, the new key's after.
        const during = await evidence.verify();
        expect(during.finding).toBeNull();
        expect(during.checkpointsChecked).toBeGreaterThanOrEqual(2);
        expect(during.checkpointsChecked).toBe(await checkpointsInLog(service));

        // The operator puts the new key where KEY_FILE points: the instance switches at its next sweep.
        writeFileSync(signingFile, newKey.pem, { mode: 0o600 });
        now += 60_000;
        await sealer.sweepOnce();
        expect(evidence.signer.keyId).toBe(newKey.signer.keyId);
        expect(evidence.signingRefusal).toBeNull();
        expect(await readiness()).not.toHaveProperty('retired_signing_key');
        expect((await checkpointThrough(service, widget2)).keyId).toBe(newKey.signer.keyId);
        expect((await evidence.verify()).finding).toBeNull();

        // Another instance sharing the server's database, on its own DATA_DIR: it trusts the retired key only
        // through EVENT_LOG_TRUSTED_KEYS_FILE, where the operator put the entry the rotation printed.
        if (service.database?.url) {
          const otherDataDir = mkdtempSync(join(tmpdir(), 'other-instance-'));
          try {
            const ringFile = join(keys, 'retired.pem');
            writeFileSync(ringFile, rotation.retired_key.key_ring_entry);
            const other = {
              DATA_DIR: otherDataDir,
              DATABASE_URL: service.database.url,
              KEY_FILE: join(keys, 'new.pem'),
            };
            const withRing = await runCliInProcess(['events', 'verify', '--json'], {
              ...other,
              EVENT_LOG_TRUSTED_KEYS_FILE: ringFile,
            });
            expect(withRing.code).toBe(0);
            const withoutRing = await runCliInProcess(['events', 'verify', '--json'], other);
            expect(withoutRing.code).toBe(4);
            expect((JSON.parse(withoutRing.stdout) as VerifyJson).finding!.detail).toContain(
              `key ${oldKey.signer.keyId}, which is unknown`,
            );
          } finally {
            rmSync(otherDataDir, { recursive: true, force: true });
          }
        }
      } finally {
        rmSync(keys, { recursive: true, force: true });
      }
    });
  },
);
