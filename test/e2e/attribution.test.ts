/**
 * Complete attribution (ADR 68-70): every event of a request names the credential that acted, the surface and the
 * request id; a search is an event of its own; sign-ins (success and failure), sign-outs and access tokens are
 * events, with no password, session id or token in the log. On PGlite and on the PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import type { LightMyRequestResponse } from 'fastify';
import { IssueApiKey, RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { accessStreamId, emailDigest } from '../../src/accounts/domain/account-access.js';
import { accountStreamId } from '../../src/accounts/domain/account.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { sessionReference } from '../../src/platform/auth/credential-reference.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import type { RecordedEvent } from '../../src/platform/event-store/event-store.port.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { SearchLog } from '../../src/search/search-log.js';
import type { TestDatabaseKind } from '../support/databases.js';
import { startTestService, waitForProjections, type TestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'attribution-password-0123456789';
const WRONG_PASSWORD = 'attribution-wrong-password-987';
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

describe.each<TestDatabaseKind>(['pglite', 'postgres'])('attribution (%s)', (kind) => {
  let service: TestService;
  let accountId: string;
  let email: string;
  let apiKey: { key: string; keyId: string };
  const secrets: string[] = [PASSWORD, WRONG_PASSWORD];

  beforeAll(async () => {
    service = await startTestService(kind);
    for (const dataset of DATASETS) {
      await writeGenerated(service.context.observations, dataset, {
        count: 50,
        seed: 'attribution',
        now: new Date(),
      });
    }
    const bus = service.app.get(CommandBus);
    email = `attribution-${Date.now().toString(36)}@example.com`;
    ({ accountId } = await bus.execute(new RegisterAccount(email, 'professional', PASSWORD, operator())));
    const issued = await bus.execute(new IssueApiKey(accountId, 'attribution', operator()));
    apiKey = { key: issued.key, keyId: issued.keyId };
    secrets.push(issued.key);
  }, 120_000);

  afterAll(async () => {
    await service?.dispose();
  });

  const stream = (id: string): Promise<RecordedEvent[]> => service.context.storage.eventStore.readStream(id);
  const ofRequest = async (id: string, requestId: string): Promise<RecordedEvent[]> =>
    (await stream(id)).filter((event) => event.metadata.requestId === requestId);
  /** The search's event is appended while the answer is written: wait for it. */
  const searchEvents = async (count: number): Promise<RecordedEvent[]> => {
    await service.app.get(SearchLog).settled();
    await waitUntil(async () => (await stream(`searches-account-${accountId}`)).length >= count, 10_000);
    return stream(`searches-account-${accountId}`);
  };

  const search = (headers: Record<string, string>, requestId: string): Promise<LightMyRequestResponse> =>
    service.app.inject({
      method: 'POST',
      url: '/api/v2/common/data/search',
      headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers },
      payload: JSON.stringify({ raw_query: 'nginx', stream: false }),
    });

  const login = (password: string, requestId: string, who = email): Promise<LightMyRequestResponse> =>
    service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/login',
      headers: { 'x-request-id': requestId, 'user-agent': 'attribution-test' },
      payload: { email: who, password },
    });

  const cookie = (response: LightMyRequestResponse, name: string): string => {
    const found = response.cookies.find((c) => c.name === name);
    if (!found) throw new Error(`no ${name} cookie`);
    return found.value;
  };

  it('an API-key search: every event of the request names the key, the api surface and the request; the search is an event with its query, datasets, outcomes and charge', async () => {
    const response = await search({ 'x-api-key': apiKey.key }, 'req-api-search-1');
    expect(response.statusCode).toBe(200);
    const answer = response.json() as {
      credits_charged: number;
      per_type_status: Record<string, string>;
      results: Record<string, unknown[]>;
    };

    const [performed] = await searchEvents(1);
    expect(performed).toMatchObject({
      type: 'SearchPerformed',
      metadata: {
        actor: `account:${accountId}`,
        payer: `account:${accountId}`,
        credential: `api_key:${apiKey.keyId}`,
        surface: 'api',
        requestId: 'req-api-search-1',
      },
      data: {
        kind: 'unified',
        query: 'nginx',
        timeFrame: expect.any(String),
        broad: false,
        datasets: [...DATASETS],
        creditsCharged: answer.credits_charged,
      },
    });
    const data = performed!.data as { outcomes: Array<{ dataset: string; status: string; rows: number }> };
    expect(data.outcomes.map(({ dataset, status, rows }) => ({ dataset, status, rows }))).toEqual(
      DATASETS.map((dataset) => ({
        dataset,
        status: answer.per_type_status[dataset],
        rows: answer.results[dataset]!.length,
      })),
    );

    // The charge of the same request (reserve, settle) carries the same attribution.
    const charge = await ofRequest(`ledger-account-${accountId}`, 'req-api-search-1');
    expect(charge.length).toBeGreaterThan(0);
    for (const event of charge) {
      expect(event.metadata).toMatchObject({ credential: `api_key:${apiKey.keyId}`, surface: 'api' });
    }
  });

  it('a session: sign-in, a key issued from it, a token issued from it (then used by an MCP client), sign-out; every one an event naming the session by reference, never by its id', async () => {
    const signedIn = await login(PASSWORD, 'req-login-1');
    expect(signedIn.statusCode).toBe(200);
    const sessionId = cookie(signedIn, SESSION_COOKIE);
    const csrf = cookie(signedIn, CSRF_COOKIE);
    secrets.push(sessionId);
    const session = `session:${sessionReference(sessionId)}`;
    const browser = {
      cookie: `${SESSION_COOKIE}=${sessionId}; ${CSRF_COOKIE}=${csrf}`,
      'x-csrf-token': csrf,
    };

    const [signIn] = await ofRequest(accessStreamId(accountId), 'req-login-1');
    expect(signIn).toMatchObject({
      type: 'SignedIn',
      metadata: { actor: `account:${accountId}`, credential: session, surface: 'session' },
      data: { accountId, session: sessionReference(sessionId), userAgent: 'attribution-test' },
    });

    const issued = await service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/keys',
      headers: { ...browser, 'x-request-id': 'req-session-key-1' },
      payload: { label: 'from a session' },
    });
    expect(issued.statusCode).toBe(201);
    secrets.push((issued.json() as { key: string }).key);
    const [keyIssued] = await ofRequest(accountStreamId(accountId), 'req-session-key-1');
    expect(keyIssued).toMatchObject({
      type: 'ApiKeyIssued',
      metadata: { actor: `account:${accountId}`, credential: session, surface: 'session' },
    });

    const token = await service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/tokens',
      headers: { ...browser, 'x-request-id': 'req-token-1' },
      payload: { client: 'mcp' },
    });
    expect(token.statusCode).toBe(201);
    const accessToken = (token.json() as { access_token: string }).access_token;
    secrets.push(accessToken);
    const [tokenIssued] = await ofRequest(accessStreamId(accountId), 'req-token-1');
    expect(tokenIssued).toMatchObject({
      type: 'AccessTokenIssued',
      metadata: { credential: session, surface: 'session' },
      data: { accountId, client: 'mcp', scopes: ['service.read'] },
    });
    const tokenId = (tokenIssued!.data as { tokenId: string }).tokenId;

    expect((await search({ authorization: `Bearer ${accessToken}` }, 'req-mcp-search-1')).statusCode).toBe(
      200,
    );
    const searches = await searchEvents(2);
    expect(searches.find((event) => event.metadata.requestId === 'req-mcp-search-1')).toMatchObject({
      metadata: { credential: `access_token:${tokenId}`, surface: 'mcp' },
      data: { kind: 'unified', query: 'nginx' },
    });

    const signedOut = await service.app.inject({
      method: 'POST',
      url: '/api/v2/auth/logout',
      headers: { ...browser, 'x-request-id': 'req-logout-1' },
    });
    expect(signedOut.statusCode).toBe(204);
    const [signOut] = await ofRequest(accessStreamId(accountId), 'req-logout-1');
    expect(signOut).toMatchObject({
      type: 'SignedOut',
      metadata: { credential: session, surface: 'session' },
      data: { session: sessionReference(sessionId) },
    });
  });

  it('failed sign-ins are events without the password: on behalf of the account when the email has one, by its digest when not', async () => {
    expect((await login(WRONG_PASSWORD, 'req-login-wrong')).statusCode).toBe(401);
    const [wrong] = await ofRequest(accessStreamId(accountId), 'req-login-wrong');
    expect(wrong).toMatchObject({
      type: 'SignInFailed',
      metadata: { actor: 'anonymous', payer: `account:${accountId}`, credential: null, surface: 'session' },
      data: { accountId, emailDigest: emailDigest(email), failure: 'wrong_password' },
    });

    const stranger = `nobody-${Date.now().toString(36)}@example.com`;
    expect((await login(PASSWORD, 'req-login-unknown', stranger)).statusCode).toBe(401);
    const [unknown] = await ofRequest(`access-email-${emailDigest(stranger)}`, 'req-login-unknown');
    expect(unknown).toMatchObject({
      type: 'SignInFailed',
      metadata: { actor: 'anonymous', payer: 'system' },
      data: { accountId: null, failure: 'unknown_email' },
    });
    expect(JSON.stringify(unknown)).not.toContain(stranger);
  });

  it('no password, session id, token or key is anywhere in the log, and every read model equals a rebuild', async () => {
    await service.app.get(SearchLog).settled();
    const log = JSON.stringify(
      await service.context.storage.eventStore.readAll({ after: null, limit: 100_000 }),
    );
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    for (const secret of secrets) expect(log).not.toContain(secret);
    for (const name of service.context.projections.projectionNames) {
      await waitForProjections(service, [name]);
      const verdict = await service.context.maintenance.verify(service.context.projections.definition(name));
      expect({ name, equal: verdict.equal }).toEqual({ name, equal: true });
    }
  });
});
