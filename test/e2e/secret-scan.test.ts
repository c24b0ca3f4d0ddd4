/**
 * Issue 15's acceptance for ADR 65: the secret scan of a full end-to-end run finds nothing. One run over real
 * HTTP (a listening service, an in-process OpenID Connect provider) and the operator CLI: register with a
 * password, change it, sign in, issue API keys (route and CLI), create access tokens, list and revoke one,
 * configure single sign-on with a client secret, issue, test and use a recovery code, sign in through the
 * provider, revoke keys (route and CLI), sign out. Every secret the run created is collected (passwords, keys, tokens, session and CSRF tokens,
 * the client secret, the recovery code) with every credential the credential store holds for the run's accounts
 * and organization; then every event payload and metadata of the log is scanned for each of them: none is found.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { SetPassword } from '../../src/accounts/commands/account.commands.js';
import { parseApiKey } from '../../src/platform/auth/api-keys.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { hashSessionId } from '../../src/platform/auth/sessions.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { SQL_KINDS } from '../support/databases.js';
import { signInAtProvider, startTestProvider, TestBrowser, type TestProvider } from '../support/oidc.js';
import { startTestService, type TestService } from '../support/service.js';
import { createActiveOrganization } from '../support/sso-organizations.js';
import { waitUntil } from '../support/storage.js';

const FIRST_PASSWORD = `first-password-${randomUUID()}`;
const SECOND_PASSWORD = `second-password-${randomUUID()}`;
const ANALYST_PASSWORD = `analyst-password-${randomUUID()}`;
const CLIENT_SECRET = `client-secret-${randomUUID()}`;

describe.each(SQL_KINDS)('the secret scan of a full end-to-end run: %s', (kind) => {
  let service: TestService;
  let provider: TestProvider;
  let base: string;
  let env: Record<string, string>;
  const secrets = new Map<string, string>();
  const keep = (what: string, value: unknown): string => {
    expect(typeof value).toBe('string');
    // Long enough that finding it in the log cannot be a coincidence.
    expect((value as string).length).toBeGreaterThanOrEqual(16);
    secrets.set(`${what} #${secrets.size}`, value as string);
    return value as string;
  };
  const organizationId = randomUUID();
  const callback = () => `${base}/api/v2/auth/sso/${organizationId}/callback`;

  beforeAll(async () => {
    service = await startTestService(kind);
    await waitUntil(() => service.context.projections.allLive());
    await service.app.listen(0, '127.0.0.1');
    base = (await service.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
    provider = await startTestProvider([
      { clientId: 'scan-client', clientSecret: CLIENT_SECRET, redirectUris: [callback()] },
    ]);
    env =
      kind === 'postgres'
        ? { DATABASE_URL: service.database!.url!, DATA_DIR: service.dataDir }
        : { DATA_DIR: service.dataDir };
  }, 60_000);

  afterAll(async () => {
    await provider?.close();
    await service?.dispose();
  });

  /** A session request: the browser's cookies, and the CSRF header on unsafe methods. */
  async function call(browser: TestBrowser, method: string, path: string, body?: unknown) {
    const jar = browser.cookies(base);
    const headers: Record<string, string> = {
      cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
    };
    if (method !== 'GET') headers['x-csrf-token'] = jar.get(CSRF_COOKIE) ?? '';
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  async function signIn(email: string, password: string): Promise<TestBrowser> {
    const browser = new TestBrowser();
    const response = await browser.request(`${base}/api/v2/auth/login`, { json: { email, password } });
    expect(response.status).toBe(200);
    keepSession(browser);
    return browser;
  }

  function keepSession(browser: TestBrowser): void {
    const jar = browser.cookies(base);
    const sessionId = keep('session id', jar.get(SESSION_COOKIE));
    keep('stored session key', hashSessionId(sessionId));
    keep('csrf token', jar.get(CSRF_COOKIE));
  }

  async function cli(args: string[]): Promise<Record<string, unknown>> {
    const result = await runCliInProcess([...args, '--json'], env);
    expect(result).toMatchObject({ code: 0 });
    return JSON.parse(result.stdout) as Record<string, unknown>;
  }

  const personal = (credential: string) =>
    fetch(`${base}/api/v2/common/credits`, { headers: { authorization: `Bearer ${credential}` } });

  it('runs every credential flow, and no event payload or metadata holds any secret it created', async () => {
    // Register by CLI (the owner with a password), and a staff member.
    const ownerEmail = `owner-${randomUUID().slice(0, 8)}@scan.example`;
    const analystEmail = `analyst-${randomUUID().slice(0, 8)}@scan.example`;
    keep('password', FIRST_PASSWORD);
    keep('password', SECOND_PASSWORD);
    keep('password', ANALYST_PASSWORD);
    const owner = await cli([
      'accounts',
      'create',
      '--email',
      ownerEmail,
      '--plan',
      'professional',
      '--password',
      FIRST_PASSWORD,
    ]);
    const analyst = await cli([
      'accounts',
      'create',
      '--email',
      analystEmail,
      '--plan',
      'free',
      '--password',
      ANALYST_PASSWORD,
    ]);
    const ownerId = owner.account_id as string;
    const analystId = analyst.account_id as string;

    // Sign in; change the password (no route: the command, as an operator tool would); the new one signs in.
    await signIn(ownerEmail, FIRST_PASSWORD);
    await service.app
      .get(CommandBus)
      .execute(
        new SetPassword(
          ownerId,
          SECOND_PASSWORD,
          commandEnvelope({ actor: `account:${ownerId}`, payer: `account:${ownerId}` }),
        ),
      );
    const refused = await new TestBrowser().request(`${base}/api/v2/auth/login`, {
      json: { email: ownerEmail, password: FIRST_PASSWORD },
    });
    expect(refused.status).toBe(401);
    const ownerBrowser = await signIn(ownerEmail, SECOND_PASSWORD);

    // API keys: one from the session route, one from the CLI; both authenticate.
    const routeKey = await call(ownerBrowser, 'POST', '/api/v2/auth/keys', { label: 'scan' });
    expect(routeKey.status).toBe(201);
    const key = keep('api key', routeKey.json.key);
    keep('api key secret', parseApiKey(key)!.secret);
    const cliKey = await cli(['keys', 'issue', ownerId, '--label', 'scan-cli', '--reason', 'secret scan']);
    keep('api key', cliKey.key);
    expect((await personal(key)).status).toBe(200);
    expect((await personal(cliKey.key as string)).status).toBe(200);

    // Access tokens from the session; they authenticate. One is listed and revoked (ADR 74): refused from then on.
    const token = await call(ownerBrowser, 'POST', '/api/v2/auth/tokens', {});
    expect(token.status).toBe(201);
    const accessToken = keep('access token', token.json.access_token);
    keep('access token signature', accessToken.split('.')[2]);
    expect((await personal(accessToken)).status).toBe(200);
    const revokedToken = await call(ownerBrowser, 'POST', '/api/v2/auth/tokens', { client: 'mcp' });
    expect(revokedToken.status).toBe(201);
    const doomed = keep('access token', revokedToken.json.access_token);
    keep('access token signature', doomed.split('.')[2]);
    expect((await personal(doomed)).status).toBe(200);
    const listed = await fetch(`${base}/api/v2/auth/tokens`, {
      headers: {
        cookie: [...ownerBrowser.cookies(base)].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    const tokens = (await listed.json()) as Array<{ id: string; client: string }>;
    const doomedId = tokens.find((listedToken) => listedToken.client === 'mcp')!.id;
    expect((await call(ownerBrowser, 'DELETE', `/api/v2/auth/tokens/${doomedId}`)).status).toBe(204);
    const refusedToken = await personal(doomed);
    expect(refusedToken.status).toBe(401);
    expect(await refusedToken.json()).toMatchObject({ code: 'token_revoked' });
    expect((await personal(accessToken)).status).toBe(200);

    // Single sign-on: the client secret, a recovery code issued, tested and saved, a provider sign-in.
    await createActiveOrganization(
      service.context,
      ownerId,
      [{ accountId: analystId, email: analystEmail, role: 'analyst' }],
      organizationId,
    );
    keep('client secret', CLIENT_SECRET);
    const configured = await call(ownerBrowser, 'PUT', `/api/v2/organizations/${organizationId}/sso`, {
      issuer: provider.issuer,
      client_id: 'scan-client',
      client_secret: CLIENT_SECRET,
    });
    expect(configured.status).toBe(200);
    const issued = await call(
      ownerBrowser,
      'POST',
      `/api/v2/organizations/${organizationId}/sso/recovery-code`,
    );
    const recoveryCode = keep('recovery code', issued.json.recovery_code);
    keep('recovery code, compact', recoveryCode.replace(/-/g, ''));
    const tested = await call(
      ownerBrowser,
      'POST',
      `/api/v2/organizations/${organizationId}/sso/recovery-code/test`,
      {
        recovery_code: recoveryCode,
      },
    );
    expect(tested.status).toBe(200);
    expect(
      (await call(ownerBrowser, 'POST', `/api/v2/organizations/${organizationId}/sso/recovery-code/saved`))
        .status,
    ).toBe(200);

    const subject = `scan-subject-${randomUUID()}`;
    provider.users.set(subject, { email: analystEmail });
    const staff = new TestBrowser();
    const start = await staff.request(`${base}/api/v2/auth/sso/${organizationId}/start`);
    expect(start.status).toBe(302);
    const back = await signInAtProvider(staff, start.location!, subject, callback());
    const landed = await staff.request(back);
    expect(landed.status).toBe(303);
    keepSession(staff);

    // The owner's break-glass sign-in with the recovery code (one use).
    const recovered = await new TestBrowser().request(`${base}/api/v2/auth/sso/${organizationId}/recovery`, {
      json: { email: ownerEmail, password: SECOND_PASSWORD, recovery_code: recoveryCode },
    });
    expect(recovered.status).toBe(200);

    // Revocation: the route's key by the session, the CLI's key by the CLI; neither authenticates any more.
    const keyId = routeKey.json.id as string;
    expect((await call(ownerBrowser, 'DELETE', `/api/v2/auth/keys/${keyId}`)).status).toBe(204);
    expect(await cli(['keys', 'revoke', cliKey.key_id as string, '--reason', 'secret scan'])).toMatchObject({
      revoked: true,
    });
    expect((await personal(key)).status).toBe(401);
    expect((await personal(cliKey.key as string)).status).toBe(401);
    expect((await call(ownerBrowser, 'POST', '/api/v2/auth/logout')).status).toBe(204);

    // What the credential store holds for the run: every material, and the pieces of each sealed secret.
    const stored = [
      ...(await service.context.credentials.ofSubject(`account:${ownerId}`)),
      ...(await service.context.credentials.ofSubject(`account:${analystId}`)),
      ...(await service.context.credentials.ofSubject(`organization:${organizationId}`)),
    ];
    expect(stored.map((credential) => credential.kind).sort()).toEqual([
      'api-key',
      'api-key',
      'password',
      'password',
      'password',
      'sso-client-secret',
      'sso-recovery-code',
    ]);
    for (const credential of stored) {
      keep(`stored ${credential.kind}`, credential.material);
      if (credential.kind === 'sso-client-secret') {
        const sealed = JSON.parse(credential.material) as { ciphertext: string };
        keep('sealed client secret', sealed.ciphertext);
      }
    }

    // The first operator's credential, written to DATA_DIR by the CLI's first command, and its secret part.
    const operatorCredential = readFileSync(join(service.dataDir, 'operator-credential'), 'utf8').trim();
    keep('operator credential', operatorCredential);
    keep('operator credential secret', /^opc_[a-z2-7]{12}_(.+)$/.exec(operatorCredential)?.[1]);

    // The scan: every event's payload and metadata, the whole log.
    const store = service.context.storage.eventStore;
    const committed = await store.lastCommittedPosition();
    await waitUntil(async () => (await store.headPosition()) === committed);
    const events: RecordedEvent[] = await store.readAll({ after: null, limit: 100_000 });
    const types = new Set(events.map((event) => event.type));
    for (const type of [
      'AccountRegistered',
      'PasswordSet',
      'ApiKeyIssued',
      'ApiKeyRevoked',
      'AccessTokenIssued',
      'AccessTokenRevoked',
      'AccessTokensInvalidated',
      'SsoProviderConfigured',
      'SsoRecoveryCodeIssued',
      'SsoRecoveryCodeTested',
      'SsoRecoveryCodeUsed',
      'SsoSignedIn',
    ]) {
      expect(types).toContain(type);
    }
    const scan = (scanned: readonly Pick<RecordedEvent, 'type' | 'position' | 'data' | 'metadata'>[]) => {
      const found: string[] = [];
      for (const event of scanned) {
        const text = JSON.stringify({ data: event.data, metadata: event.metadata });
        for (const [what, secret] of secrets) {
          if (text.includes(secret)) found.push(`${what} in ${event.type} at ${event.position}`);
        }
      }
      return found;
    };
    // The scan finds what it looks for (today's main stored PasswordSet {"passwordHash":"scrypt$…"}).
    const passwordHash = stored.find((credential) => credential.kind === 'password')!.material;
    const planted = { ...events[0]!, type: 'PasswordSet', data: { passwordHash } };
    expect(scan([planted])).toHaveLength(1);
    expect(secrets.size).toBeGreaterThanOrEqual(25);
    expect(scan(events)).toEqual([]);
  });
});
