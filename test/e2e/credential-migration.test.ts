/**
 * ADR 65, the migration: a log written in today's main's shape (credential material inside PasswordSet,
 * ApiKeyIssued, SsoProviderConfigured and SsoRecoveryCodeIssued, written here with raw appends) is moved out at
 * the next start: every secret goes to the credential store and leaves the payloads, the old password still signs
 * in over HTTP, the old API key still authenticates, the SSO client secret still opens and the recovery code
 * still matches; a second start changes nothing. Both SQL legs: PGlite (a DATA_DIR reopened) and the server.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { emailClaimStreamId } from '../../src/accounts/commands/account.handlers.js';
import { accountDecider, accountStreamId } from '../../src/accounts/domain/account.js';
import { AppModule } from '../../src/app.module.js';
import { serviceComposition } from '../../src/composition/service-composition.js';
import { sealSecret } from '../../src/organizations/sso/commands/sealed-secrets.js';
import { SsoProvider } from '../../src/organizations/sso/commands/sso-provider.js';
import { formatRecoveryCode, hashRecoveryCode } from '../../src/organizations/sso/domain/recovery-code.js';
import { ssoDecider, ssoStreamId } from '../../src/organizations/sso/domain/sso.js';
import { generateApiKey } from '../../src/platform/auth/api-keys.js';
import { hashPassword } from '../../src/platform/auth/passwords.js';
import { ServiceSecrets } from '../../src/platform/auth/secrets.js';
import { loadConfig } from '../../src/platform/config/app-config.js';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import { createHttpApp } from '../../src/platform/http/create-http-app.js';
import { ServiceContext } from '../../src/platform/service-context.js';
import { createTestDatabase, SQL_KINDS, type TestDatabase } from '../support/databases.js';
import { seedEmbeddedDatabase } from '../support/pglite-template.js';
import { testMetadata, waitUntil } from '../support/storage.js';
import { PGLITE_DIR_NAME } from '../../src/platform/database/open-sql-database.js';
import { PgliteDatabase } from '../../src/platform/database/pglite-database.js';
import type { SqlDatabase } from '../../src/platform/database/sql-database.js';

const PASSWORD = 'legacy-password-0123456789';

interface Running {
  readonly context: ServiceContext;
  readonly app: NestFastifyApplication;
  close(): Promise<void>;
}

async function start(dataDir: string, databaseUrl: string | undefined): Promise<Running> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    EMBEDDED_ENGINE: 'pglite',
    LOG_LEVEL: 'silent',
    SEED_DEMO: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(process.env.PASSWORD_HASH_COST ? { PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST } : {}),
  });
  const context = await ServiceContext.open(config, {
    ...serviceComposition,
    pollIntervalMs: 20,
    dropGraceMs: 50,
  });
  await context.projections.start();
  const app = await createHttpApp(context, AppModule.forContext(context), { logger: false });
  return {
    context,
    app,
    close: async () => {
      await app.close();
      await context.close();
    },
  };
}

/** Runs `work` on the stopped service's database: the server's, or the embedded one in DATA_DIR. */
async function withDatabase(
  dataDir: string,
  database: TestDatabase | undefined,
  work: (db: SqlDatabase) => Promise<unknown>,
): Promise<void> {
  if (database) {
    await work(database.db);
    return;
  }
  const embedded = await PgliteDatabase.open(join(dataDir, PGLITE_DIR_NAME));
  try {
    await work(embedded);
  } finally {
    await embedded.close();
  }
}

/** Every event committed so far (readAll shows an event once every older transaction ended: waited for). */
async function allEvents(context: ServiceContext): Promise<RecordedEvent[]> {
  const store = context.storage.eventStore;
  const committed = await store.lastCommittedPosition();
  await waitUntil(async () => (await store.headPosition()) === committed);
  return store.readAll({ after: null, limit: 100_000 });
}

describe.each(SQL_KINDS)('moving credential material out of a log written before ADR 65: %s', (kind) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'creds-'));
  let database: TestDatabase | undefined;
  let running: Running | undefined;
  afterAll(async () => {
    await running?.close();
    await database?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('moves every secret to the credential store, keeps sign-in, keys and SSO working, and runs once', async () => {
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    // A migrated embedded database without events copied in, instead of an initdb at the first start.
    if (kind === 'pglite') await seedEmbeddedDatabase(dataDir);
    running = await start(dataDir, database?.url);
    const { context } = running;
    const dataKey = running.app.get(ServiceSecrets).dataEncryptionKey;

    // Today's main, as it wrote an account and an organization's SSO settings (schema version 1 everywhere).
    const accountId = randomUUID();
    const organizationId = randomUUID();
    const email = `legacy-${accountId}@example.com`;
    const passwordHash = await hashPassword(PASSWORD, context.config.passwordHashCost);
    const key = generateApiKey();
    const clientSecret = `legacy-client-secret-${randomUUID()}`;
    const sealed = sealSecret(dataKey, organizationId, clientSecret);
    const recoveryCode = formatRecoveryCode(new Uint8Array(25).map((_, i) => (i * 13) % 251));
    const at = context.clock.now().toISOString();
    const legacy = (stream: string, events: Array<{ type: string; data: Record<string, unknown> }>) =>
      context.storage.eventStore.append(
        stream,
        events.map((event, index) => ({
          id: eventIdFor(`legacy:${stream}`, index),
          type: event.type,
          schemaVersion: 1,
          data: event.data,
          metadata: testMetadata({ actor: 'operator:legacy', payer: `account:${accountId}` }),
        })),
        { expectedVersion: 'no_stream' },
      );
    await legacy(emailClaimStreamId(email), [{ type: 'EmailClaimed', data: { accountId } }]);
    await legacy(accountStreamId(accountId), [
      { type: 'AccountRegistered', data: { accountId, email, plan: 'professional', cycleAnchor: at } },
      { type: 'PasswordSet', data: { passwordHash } },
      {
        type: 'ApiKeyIssued',
        data: {
          keyId: key.keyId,
          prefix: key.prefix,
          secretHash: key.secretHash,
          label: 'old',
          issuedAt: at,
        },
      },
    ]);
    await legacy(ssoStreamId(organizationId), [
      {
        type: 'SsoProviderConfigured',
        data: {
          organizationId,
          issuer: 'https://login.example.com',
          clientId: 'legacy-client',
          clientSecret: sealed,
          secretChanged: true,
          configuredAt: at,
        },
      },
      { type: 'SsoRecoveryCodeIssued', data: { codeHash: hashRecoveryCode(recoveryCode), issuedAt: at } },
    ]);
    const secrets = [
      passwordHash,
      key.secretHash,
      sealed.ciphertext,
      sealed.tag,
      hashRecoveryCode(recoveryCode),
    ];
    const logText = async () => JSON.stringify(await allEvents(context));
    for (const secret of secrets) expect(await logText()).toContain(secret);

    // The next start moves them (the migration runs when storage opens).
    await running.close();
    // Today's main kept no hash chain: its log is the table without the chain's columns (ADR 60 adds them at
    // init and hashes the events it finds, after the rewriters).
    await withDatabase(dataDir, database, async (db) => {
      await db.query(
        `ALTER TABLE es_events DROP COLUMN salt, DROP COLUMN payload_digest, DROP COLUMN content_hash,
           DROP COLUMN stream_hash, DROP COLUMN erased_by, DROP COLUMN erased_at`,
      );
      await db.query(`DROP TABLE es_chain`);
    });
    running = await start(dataDir, database?.url);
    const after = running.context;
    const migrated = await allEvents(after);
    const text = JSON.stringify(migrated);
    for (const secret of [...secrets, PASSWORD, key.key, key.secret, clientSecret, recoveryCode]) {
      expect(text).not.toContain(secret);
    }
    const byType = (type: string) => migrated.find((event) => event.type === type)!;
    expect(Object.keys(byType('PasswordSet').data as object)).toEqual(['credentialId']);
    expect(byType('ApiKeyIssued').data).not.toHaveProperty('secretHash');
    expect(byType('SsoProviderConfigured').data).not.toHaveProperty('clientSecret');
    expect(byType('SsoRecoveryCodeIssued').data).not.toHaveProperty('codeHash');
    // Everything else is as it was: ids, metadata, order.
    expect(migrated.map((event) => [event.id, event.type, event.metadata])).toEqual(
      JSON.parse(JSON.stringify(migrated.map((event) => [event.id, event.type, event.metadata]))),
    );

    // Every read model equals a rebuild from the migrated log (the live one folded the old shapes).
    const names = after.projections.projectionNames;
    expect(await after.readYourWrites(names, await after.storage.eventStore.lastCommittedPosition())).toBe(
      true,
    );
    for (const name of names) {
      const verified = await after.maintenance.verify(after.projections.definition(name));
      expect({ name, equal: verified.equal }).toEqual({ name, equal: true });
    }

    // The credential store holds the material, for the right subject.
    const { state: account } = await after.writer.load(accountStreamId(accountId), accountDecider);
    expect(await after.credentials.get(account.passwordCredentialId!)).toMatchObject({
      kind: 'password',
      subject: `account:${accountId}`,
      material: passwordHash,
    });
    expect(await after.credentials.ofSubject(`account:${accountId}`)).toHaveLength(2);

    // The old password signs in over HTTP, the old API key authenticates.
    const app = running.app;
    const login = await app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { email, password: PASSWORD },
    });
    expect(login.statusCode).toBe(200);
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { email, password: `${PASSWORD}-not` },
    });
    expect(wrong.statusCode).toBe(401);
    const personal = await app.inject({
      method: 'GET',
      url: '/api/v2/common/credits',
      headers: { 'x-api-key': key.key },
    });
    expect(personal.statusCode).toBe(200);

    // The SSO client secret still opens, the recovery code still matches (and another does not).
    const provider = app.get(SsoProvider);
    const { state: sso } = await after.writer.load(ssoStreamId(organizationId), ssoDecider);
    expect(await provider.clientSecret(organizationId, sso)).toBe(clientSecret);
    expect(await provider.matchingRecoveryCode(organizationId, sso, recoveryCode)).toBe(sso.recovery!.codeId);
    expect(
      await provider.matchingRecoveryCode(organizationId, sso, formatRecoveryCode(new Uint8Array(25))),
    ).toBeNull();

    // A second run finds nothing to move and changes nothing, at start and when asked directly.
    await running.close();
    running = await start(dataDir, database?.url);
    // (The sign-ins above were recorded since; the events the migration saw are unchanged.)
    expect(JSON.stringify((await allEvents(running.context)).slice(0, migrated.length))).toBe(text);
    // And the migrated log is a whole chain: every event verifies, nothing reads as tampered.
    const verified = await running.context.tamperEvidence.verify();
    expect({ ok: verified.ok, finding: verified.finding }).toEqual({ ok: true, finding: null });
    expect(verified.eventsChecked).toBeGreaterThanOrEqual(migrated.length);
    const again = await running.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      payload: { email, password: PASSWORD },
    });
    expect(again.statusCode).toBe(200);
  });
});
