/**
 * Every route × every credential variant answers exactly as its surface says (contract, Authentication 1–2,
 * Surfaces):
 *
 * - personal_api: only a personal API key (X-API-KEY or Bearer) or an access token with `service.read`; no
 *   credential, a malformed or revoked key, a tampered token or any session cookie is 401 `unauthenticated`; a
 *   token without `service.read` is 403 `insufficient_scope`.
 * - session: only the `__Host-ps` cookie; keys and tokens are 401 `unauthenticated`, and so is an expired
 *   session; an unsafe method also needs the CSRF cookie and a matching X-CSRF-Token header (403
 *   `csrf_failed`), a safe method does not.
 * - operator: only an operator credential as `Authorization: Bearer opc_…` (ADR 119); anything else, a wrong
 *   operator credential included, is 401 `unauthenticated`, and an operator credential opens no other surface.
 * - public: credentials are ignored.
 *
 * The route list comes from the application itself (Nest discovery), so a new route enters the matrix by
 * itself, and fails until it gets a valid request in ROUTE_REQUESTS below.
 */
import { randomUUID } from 'node:crypto';
import { AuthorizeOAuthApp } from '../../src/accounts/commands/oauth.commands.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscoveryModule } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import type { LightMyRequestResponse } from 'fastify';
import {
  CreateAccessToken,
  IssueApiKey,
  RegisterAccount,
  RevokeApiKey,
} from '../../src/accounts/commands/account.commands.js';
import type { PlanId } from '../../src/accounts/domain/plans.js';
import { AddOperator } from '../../src/operators/commands/operator.commands.js';
import { AccessTokens } from '../../src/platform/auth/access-tokens.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { csrfTokenFor } from '../../src/platform/auth/csrf.js';
import { ServiceSecrets } from '../../src/platform/auth/secrets.js';
import { SessionStore } from '../../src/platform/auth/sessions.js';
import { VulnerabilityRefs } from '../../src/search/vulnerability-ref.js';
import { ExportJobs } from '../../src/exports/commands/export-jobs.js';
import { RequestExport } from '../../src/exports/commands/export.commands.js';
import { ExportWorkerPool } from '../../src/exports/export-worker-pool.js';
import { ManualClock } from '../../src/platform/clock/clock.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import {
  ConfigureSsoProvider,
  IssueSsoRecoveryCode,
} from '../../src/organizations/sso/commands/sso.commands.js';
import { SSO_FLOW_COOKIE } from '../../src/organizations/sso/http/sso.controllers.js';
import { signInAtProvider, startTestProvider, TestBrowser, type TestProvider } from '../support/oidc.js';
import { discoverRoutes, routeKey, type DiscoveredRoute } from '../support/routes.js';
import { createActiveOrganization } from '../support/sso-organizations.js';
import { startTestService } from '../support/service.js';
import { TestDnsServer } from '../support/dns-server.js';
import { OrganizationHarness } from '../support/organizations.js';
import {
  authMatrixOrganizationRequests,
  buildOrganizationWorld,
  type OrganizationWorld,
} from '../support/organization-routes.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { waitUntil } from '../support/storage.js';

// ---------------------------------------------------------------------------------------------------------------
// The service, its accounts and credentials.

const PASSWORD = 'matrix-password-0123456789';
const HOUR = 60 * 60 * 1000;
/** Login attempts per email before the login rate limit (10 per 15 minutes) would refuse: keep a margin. */
const LOGINS_PER_ACCOUNT = 8;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

// Top-level await: the routes must be known when the tests are declared, so the service starts here.
const dns = await TestDnsServer.start();
const service = await startTestService('pglite', {
  modules: [DiscoveryModule],
  env: { DNS_SERVERS: dns.address },
});
const routes = discoverRoutes(service.app);
const commands = service.app.get(CommandBus);
const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

interface Account {
  readonly email: string;
  readonly accountId: string;
  logins: number;
}

interface Session {
  readonly sessionId: string;
  readonly csrf: string;
}

let accountCounter = 0;
async function registerAccount(plan: PlanId = 'professional'): Promise<Account> {
  accountCounter += 1;
  const email = `matrix-${accountCounter}-${Date.now().toString(36)}@example.com`;
  const { accountId } = await commands.execute(new RegisterAccount(email, plan, PASSWORD, operator()));
  return { email, accountId, logins: 0 };
}

/** Accounts to sign in with when a case needs a session (or a login) of its own, under the login rate limit. */
const spareAccounts: Account[] = [];
async function spareAccount(): Promise<Account> {
  let account = spareAccounts.find((candidate) => candidate.logins < LOGINS_PER_ACCOUNT);
  if (!account) {
    account = await registerAccount();
    spareAccounts.push(account);
  }
  account.logins += 1;
  return account;
}

function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [header];
}

function cookieValue(response: LightMyRequestResponse, name: string): string {
  for (const cookie of setCookies(response)) {
    const [pair = ''] = cookie.split(';');
    const separator = pair.indexOf('=');
    if (pair.slice(0, separator).trim() === name) return pair.slice(separator + 1).trim();
  }
  throw new Error(`no ${name} cookie in ${JSON.stringify(setCookies(response))}`);
}

async function loginResponse(email: string): Promise<LightMyRequestResponse> {
  const response = await service.app.inject({
    method: 'POST',
    url: '/api/v2/auth/login',
    payload: { email, password: PASSWORD },
  });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  return response;
}

async function login(account: Account): Promise<Session> {
  const response = await loginResponse(account.email);
  return { sessionId: cookieValue(response, SESSION_COOKIE), csrf: cookieValue(response, CSRF_COOKIE) };
}

interface Fixture {
  readonly main: Account;
  readonly other: Account;
  /** The main account's session; never consumed by a case. */
  readonly session: Session;
  /** Another account's session, whose CSRF token is replayed against the main session. */
  readonly otherSession: Session;
  readonly key: string;
  readonly revokedKey: string;
  readonly token: string;
  readonly tokenWithoutScope: string;
  readonly expiredSessions: SessionStore;
  /**
   * The owner of the single sign-on organization, apart from `main`: a member of an organization has no
   * personal research (organization rule 1), and `main` makes the personal API requests.
   */
  readonly organizationOwner: Account;
  readonly organizationOwnerSession: Session;
  /** An operator's credential (opc_…), added through its command. */
  readonly operatorCredential: string;
}

let fixture: Fixture;

async function issueKey(accountId: string): Promise<{ keyId: string; key: string }> {
  const issued = await commands.execute(new IssueApiKey(accountId, 'matrix', operator()));
  return { keyId: issued.keyId, key: issued.key };
}

/** An access token whose issuance is recorded (so its account can revoke it by id). */
/** An OAuth app the account authorized (ADR 107), recorded through its command: one to revoke per accepted case. */
async function authorizedApp(accountId: string): Promise<{ clientId: string }> {
  const clientId = `client-${randomUUID()}`;
  await commands.execute(
    new AuthorizeOAuthApp(
      {
        accountId,
        grantId: randomUUID(),
        clientId,
        clientName: 'Matrix app',
        redirectHost: 'app.example',
        scopes: ['service.read'],
        resource: 'http://127.0.0.1',
      },
      operator(),
    ),
  );
  return { clientId };
}

async function recordedToken(accountId: string): Promise<{ tokenId: string }> {
  const issued = await commands.execute(
    new CreateAccessToken(accountId, ['service.read'], 'api', 3600, operator()),
  );
  return { tokenId: issued.tokenId };
}

// ---------------------------------------------------------------------------------------------------------------
// Credential variants.

type Expected = { readonly status: 'success' } | { readonly status: number; readonly code: string };

type VariantKind =
  | 'anonymous'
  | 'invalid_personal'
  | 'personal'
  | 'token_without_scope'
  | 'session'
  | 'session_without_csrf'
  | 'session_expired'
  | 'operator'
  | 'invalid_operator';

interface Variant {
  readonly name: string;
  readonly kind: VariantKind;
  /** Headers for one request. `session` gives the main session, or a fresh one when the route consumes it. */
  headers(session: () => Promise<Session>): Promise<Record<string, string>>;
}

const sessionHeaders = (session: Session, csrf: { cookie?: string; header?: string }) => ({
  cookie: [
    `${SESSION_COOKIE}=${session.sessionId}`,
    ...(csrf.cookie ? [`${CSRF_COOKIE}=${csrf.cookie}`] : []),
  ].join('; '),
  ...(csrf.header ? { 'x-csrf-token': csrf.header } : {}),
});

const VARIANTS: readonly Variant[] = [
  { name: 'no credential', kind: 'anonymous', headers: async () => ({}) },
  {
    name: 'malformed API key',
    kind: 'invalid_personal',
    headers: async () => ({ 'x-api-key': 'exr_not-a-real-key' }),
  },
  {
    name: 'revoked API key',
    kind: 'invalid_personal',
    headers: async () => ({ 'x-api-key': fixture.revokedKey }),
  },
  {
    name: 'tampered access token',
    kind: 'invalid_personal',
    headers: async () => ({ authorization: `Bearer ${tamper(fixture.token)}` }),
  },
  { name: 'API key in X-API-KEY', kind: 'personal', headers: async () => ({ 'x-api-key': fixture.key }) },
  {
    name: 'API key as Authorization: Bearer',
    kind: 'personal',
    headers: async () => ({ authorization: `Bearer ${fixture.key}` }),
  },
  {
    name: 'access token with service.read',
    kind: 'personal',
    headers: async () => ({ authorization: `Bearer ${fixture.token}` }),
  },
  {
    name: 'access token without service.read',
    kind: 'token_without_scope',
    headers: async () => ({ authorization: `Bearer ${fixture.tokenWithoutScope}` }),
  },
  {
    name: 'session with matching CSRF',
    kind: 'session',
    headers: async (session) => {
      const current = await session();
      return sessionHeaders(current, { cookie: current.csrf, header: current.csrf });
    },
  },
  {
    name: 'session without CSRF cookie or header',
    kind: 'session_without_csrf',
    headers: async (session) => sessionHeaders(await session(), {}),
  },
  {
    // What a cross-site request looks like: the browser sends both cookies, the attacker cannot set the header.
    name: 'session with the CSRF cookie but no header',
    kind: 'session_without_csrf',
    headers: async (session) => {
      const current = await session();
      return sessionHeaders(current, { cookie: current.csrf });
    },
  },
  {
    name: 'session with the CSRF token of another session',
    kind: 'session_without_csrf',
    headers: async (session) =>
      sessionHeaders(await session(), {
        cookie: fixture.otherSession.csrf,
        header: fixture.otherSession.csrf,
      }),
  },
  {
    name: 'expired session (past its absolute lifetime)',
    kind: 'session_expired',
    headers: async () => {
      // Resolving an expired session deletes it: each case makes its own.
      const { sessionId } = await fixture.expiredSessions.create(fixture.main.accountId);
      const csrf = csrfTokenFor(sessionId, service.app.get(ServiceSecrets).csrfSecret);
      return sessionHeaders({ sessionId, csrf }, { cookie: csrf, header: csrf });
    },
  },
  {
    name: 'operator credential as Authorization: Bearer',
    kind: 'operator',
    headers: async () => ({ authorization: `Bearer ${fixture.operatorCredential}` }),
  },
  {
    name: 'operator credential with a wrong secret',
    kind: 'invalid_operator',
    headers: async () => ({ authorization: `Bearer ${fixture.operatorCredential.slice(0, -4)}AAAA` }),
  },
];

/** The same token with one signature character changed: well-formed, but its signature fails. */
function tamper(token: string): string {
  const last = token.at(-2) === 'A' ? 'B' : 'A';
  return `${token.slice(0, -2)}${last}${token.slice(-1)}`;
}

const UNAUTHENTICATED: Expected = { status: 401, code: 'unauthenticated' };

function expectedOutcome(route: DiscoveredRoute, kind: VariantKind): Expected {
  if (!route.rule) return { status: 403, code: 'forbidden' };
  switch (route.rule.surface) {
    case 'public':
      return { status: 'success' };
    case 'personal_api':
    case 'mcp':
      if (kind === 'personal') return { status: 'success' };
      if (kind === 'token_without_scope') return { status: 403, code: 'insufficient_scope' };
      return UNAUTHENTICATED;
    case 'session':
      if (kind === 'session') return { status: 'success' };
      if (kind === 'session_without_csrf') {
        return SAFE_METHODS.has(route.method) ? { status: 'success' } : { status: 403, code: 'csrf_failed' };
      }
      return UNAUTHENTICATED;
    case 'operator':
      return kind === 'operator' ? { status: 'success' } : UNAUTHENTICATED;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// A valid request per route, so an accepted credential leads to the route's success status.

interface RouteRequest {
  /** The exact status of an accepted request. */
  readonly status: number;
  /** The error code of an accepted request the route itself refuses (GET /mcp: stateless, 405). */
  readonly code?: string;
  readonly body?: () => Promise<unknown>;
  readonly params?: () => Promise<Record<string, string>>;
  /** The route ends or replaces the session it receives: every case that sends a session gets a fresh one. */
  readonly consumesSession?: boolean;
  /** A query string and cookies the request needs besides the credential (a sign-in the browser started). */
  readonly extra?: () => Promise<{ readonly query?: string; readonly cookie?: string }>;
  /** The session an accepted request needs when it is not the main account's (organization routes). */
  readonly session?: () => Promise<Session>;
  /** Headers the request needs besides the credential (If-Match). */
  readonly headers?: () => Promise<Record<string, string>>;
}

/** The organization workspace routes, bound to an organization built before the cases run. */
const organizationWorld = {} as OrganizationWorld;
const organizationHarness = new OrganizationHarness(service, dns);
const ORGANIZATION_REQUESTS: Readonly<Record<string, RouteRequest>> = authMatrixOrganizationRequests(
  organizationHarness,
  organizationWorld,
);

const ROUTE_REQUESTS: Readonly<Record<string, RouteRequest>> = {
  'GET /health/live': { status: 200 },
  'GET /health/ready': { status: 200 },
  'GET /.well-known/event-log-key': { status: 200 },
  'GET /api/v2/common/caller-ip': { status: 200 },
  'GET /api/v2/common/credits': { status: 200 },
  'POST /api/v2/auth/login': {
    status: 200,
    // Login revokes the session the browser brings (fixation), and each login counts against the rate limit.
    consumesSession: true,
    body: async () => ({ email: (await spareAccount()).email, password: PASSWORD }),
  },
  'POST /api/v2/auth/logout': { status: 204, consumesSession: true },
  'GET /api/v2/auth/keys': { status: 200 },
  'POST /api/v2/auth/keys': { status: 201, body: async () => ({ label: 'matrix key' }) },
  'DELETE /api/v2/auth/keys/:keyId': {
    status: 204,
    params: async () => ({ keyId: (await issueKey(fixture.main.accountId)).keyId }),
  },
  'POST /api/v2/auth/tokens': { status: 201, body: async () => ({}) },
  'GET /api/v2/auth/tokens': { status: 200 },
  'GET /api/v2/auth/apps': { status: 200 },
  'DELETE /api/v2/auth/apps/:clientId': {
    status: 204,
    params: async () => ({ clientId: (await authorizedApp(fixture.main.accountId)).clientId }),
  },
  'GET /.well-known/oauth-protected-resource': { status: 200 },
  'GET /.well-known/oauth-protected-resource/mcp': { status: 200 },
  'DELETE /api/v2/auth/tokens/:tokenId': {
    status: 204,
    params: async () => ({ tokenId: (await recordedToken(fixture.main.accountId)).tokenId }),
  },
  'GET /api/v2/auth/session': { status: 200 },
  'GET /api/v2/auth/credits': { status: 200 },
  'GET /api/v2/auth/credits/usage': { status: 200 },
  'POST /api/v2/common/data/search': {
    status: 200,
    body: async () => ({ raw_query: 'nginx', stream: false }),
  },
  'POST /api/v2/common/data/search/more': {
    status: 200,
    body: async () => ({ raw_query: 'nginx', dataset: 'hosts', page: 2 }),
  },
  'POST /api/v2/common/data/search/more/quote': {
    status: 200,
    body: async () => ({ raw_query: 'nginx', dataset: 'hosts', page: 2 }),
  },
  'GET /api/v2/common/data/search/fields': { status: 200 },
  'POST /api/v2/common/data/:dataset': {
    status: 200,
    params: async () => ({ dataset: 'hosts' }),
    body: async () => ({ raw_query: 'nginx' }),
  },
  'POST /api/v2/data/search': { status: 200, body: async () => ({ raw_query: 'nginx', stream: false }) },
  'POST /api/v2/data/search/more': {
    status: 200,
    body: async () => ({ raw_query: 'nginx', dataset: 'dns', page: 2 }),
  },
  'POST /api/v2/data/search/more/quote': {
    status: 200,
    body: async () => ({ raw_query: 'nginx', dataset: 'dns', page: 2 }),
  },
  'GET /api/v2/data/search/fields': { status: 200 },
  'POST /api/v2/data/:dataset': {
    status: 200,
    params: async () => ({ dataset: 'whois' }),
    body: async () => ({ raw_query: 'example' }),
  },
  'POST /api/v2/common/exports/:searchType/estimate': {
    status: 200,
    params: async () => ({ searchType: 'hosts' }),
    body: async () => ({ raw_query: 'port:443' }),
  },
  'POST /api/v2/common/exports/:searchType': {
    status: 202,
    params: async () => ({ searchType: 'dns' }),
    body: async () => ({ raw_query: 'type:a', format: 'txt' }),
  },
  'GET /api/v2/common/exports': { status: 200 },
  'GET /api/v2/common/exports/:exportId/poll': { status: 200, params: () => exportOfMain(false) },
  'GET /api/v2/common/exports/:exportId/download': { status: 200, params: () => exportOfMain(true) },
  'DELETE /api/v2/common/exports/:exportId': { status: 200, params: () => exportOfMain(false) },
  'DELETE /api/v2/common/exports': { status: 200 },
  // The browser twins of exports (ADR 115): the main account's own exports, through its session.
  'POST /api/v2/data/exports/:searchType/estimate': {
    status: 200,
    params: async () => ({ searchType: 'hosts' }),
    body: async () => ({ raw_query: 'port:443' }),
  },
  'POST /api/v2/data/exports/:searchType': {
    status: 202,
    params: async () => ({ searchType: 'hosts' }),
    body: async () => ({ raw_query: 'port:443', format: 'csv' }),
  },
  'GET /api/v2/data/exports': { status: 200 },
  'GET /api/v2/data/exports/:exportId/poll': { status: 200, params: () => exportOfMain(false) },
  'GET /api/v2/data/exports/:exportId/download': { status: 200, params: () => exportOfMain(true) },
  'DELETE /api/v2/data/exports/:exportId': { status: 200, params: () => exportOfMain(false) },
  'DELETE /api/v2/data/exports': { status: 200 },
  'POST /api/v2/common/data/enrich/vulnerabilities': {
    status: 200,
    body: async () => ({ reference: sealedRef() }),
  },
  'POST /api/v2/data/enrich/vulnerabilities': { status: 200, body: async () => ({ reference: sealedRef() }) },
  'POST /api/v2/common/data/enrich/badges': { status: 200, body: async () => BADGE_BODY },
  'POST /api/v2/data/enrich/badges': { status: 200, body: async () => BADGE_BODY },
  // The MCP endpoint (ADR 108): a JSON-RPC request over Streamable HTTP; stateless, so GET and DELETE are 405.
  'POST /mcp': {
    status: 200,
    headers: async () => ({ accept: 'application/json, text/event-stream' }),
    body: async () => ({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  },
  'GET /mcp': { status: 405, code: 'method_not_allowed' },
  'DELETE /mcp': { status: 405, code: 'method_not_allowed' },
  // Rule 12: the organization owner owns an organization with single sign-on on the in-process provider.
  'GET /api/v2/organizations/:orgId/sso': {
    status: 200,
    params: ssoOrganization,
    session: ownerSession,
  },
  'PUT /api/v2/organizations/:orgId/sso': {
    status: 200,
    session: ownerSession,
    params: ssoOrganization,
    body: async () => ({ issuer: sso.provider.issuer, client_id: SSO_CLIENT, client_secret: SSO_SECRET }),
  },
  'POST /api/v2/organizations/:orgId/sso/recovery-code': {
    status: 201,
    params: ssoOrganization,
    session: ownerSession,
  },
  'POST /api/v2/organizations/:orgId/sso/recovery-code/test': {
    status: 200,
    session: ownerSession,
    params: ssoOrganization,
    body: async () => ({ recovery_code: await issueRecoveryCode() }),
  },
  'POST /api/v2/organizations/:orgId/sso/recovery-code/saved': {
    status: 200,
    session: ownerSession,
    params: async () => {
      await issueRecoveryCode();
      return ssoOrganization();
    },
  },
  'PUT /api/v2/organizations/:orgId/sso/enforcement': {
    status: 200,
    session: ownerSession,
    params: ssoOrganization,
    body: async () => ({ enforced: false }),
  },
  'GET /api/v2/auth/sso/:orgId/start': { status: 302, params: ssoOrganization },
  'GET /api/v2/auth/sso/:orgId/callback': {
    status: 303,
    // Signing in replaces the session the browser brings.
    consumesSession: true,
    params: ssoOrganization,
    extra: providerCallback,
  },
  'POST /api/v2/auth/sso/:orgId/recovery': {
    status: 200,
    consumesSession: true,
    params: ssoOrganization,
    body: async () => ({
      email: fixture.organizationOwner.email,
      password: PASSWORD,
      recovery_code: await issueRecoveryCode(),
    }),
  },
  'GET /api/v2/operator/projections': { status: 200 },
  ...ORGANIZATION_REQUESTS,
};

async function ownerSession(): Promise<Session> {
  return fixture.organizationOwnerSession;
}

const SSO_CLIENT = 'matrix-client';
const SSO_SECRET = 'matrix-client-secret-0123456789';
/** The provider sees the service at the address `app.inject` gives requests. */
const INJECT_ORIGIN = 'http://localhost';
const sso: { provider: TestProvider; organizationId: string } = { provider: undefined!, organizationId: '' };

async function ssoOrganization(): Promise<Record<string, string>> {
  return { orgId: sso.organizationId };
}

async function issueRecoveryCode(): Promise<string> {
  const issued = await commands.execute(
    new IssueSsoRecoveryCode(
      { accountId: fixture.organizationOwner.accountId, via: 'session', channel: 'session', scopes: [] },
      sso.organizationId,
    ),
  );
  return issued.recoveryCode;
}

/** Starts a sign-in, signs in at the provider as the owner, and answers the callback's query and flow cookie. */
async function providerCallback(): Promise<{ query: string; cookie: string }> {
  const start = await service.app.inject({
    method: 'GET',
    url: `/api/v2/auth/sso/${sso.organizationId}/start`,
  });
  const location = start.headers.location;
  if (start.statusCode !== 302 || typeof location !== 'string')
    throw new Error(`start failed: ${start.body}`);
  const callback = `${INJECT_ORIGIN}/api/v2/auth/sso/${sso.organizationId}/callback`;
  const back = new URL(await signInAtProvider(new TestBrowser(), location, 'matrix-owner', callback));
  return { query: back.search, cookie: `${SSO_FLOW_COOKIE}=${cookieValue(start, SSO_FLOW_COOKIE)}` };
}

/** A vulnerability_ref as search returns it (sealed by the service's own key). */
function sealedRef(): string {
  return service.app.get(VulnerabilityRefs).seal(
    [
      {
        vendor: 'f5',
        product: 'nginx',
        version: '1.18.0',
        cpe: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
      },
    ],
    new Date(),
  );
}
const BADGE_BODY = { items: [{ key: 'one', type: 'ip', value: '192.0.2.10' }] };

/** An export of the main account (the index is empty here, so it completes at once with no rows). */
async function exportOfMain(completed: boolean): Promise<Record<string, string>> {
  const jobs = service.app.get(ExportJobs);
  const principal = {
    accountId: fixture.main.accountId,
    via: 'api_key',
    channel: 'api',
    scopes: [],
  } as const;
  const { export_id: exportId } = await service.app.get(CommandBus).execute(
    new RequestExport(
      principal,
      'hosts',
      { raw_query: 'port:443', format: 'csv' },
      commandEnvelope({
        actor: `account:${fixture.main.accountId}`,
        payer: `account:${fixture.main.accountId}`,
      }),
    ),
  );
  service.app.get(ExportWorkerPool).nudge();
  for (let i = 0; completed && i < 400; i++) {
    if ((await jobs.queries.collection().get(exportId))?.status === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { exportId };
}

function fillPath(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`ROUTE_REQUESTS gives no value for :${name} in ${path}`);
    return encodeURIComponent(value);
  });
}

// ---------------------------------------------------------------------------------------------------------------

beforeAll(async () => {
  await waitUntil(() => service.context.projections.allLive());
  const [main, other, organizationOwner] = await Promise.all([
    registerAccount(),
    registerAccount(),
    registerAccount(),
  ]);
  if (!main || !other || !organizationOwner) throw new Error('accounts not registered');
  const key = await issueKey(main.accountId);
  const revoked = await issueKey(main.accountId);
  await commands.execute(new RevokeApiKey(main.accountId, revoked.keyId, operator()));
  const tokens = service.app.get(AccessTokens);
  const token = await tokens.issue({ accountId: main.accountId, scopes: ['service.read'], client: 'api' });
  const tokenWithoutScope = await tokens.issue({
    accountId: main.accountId,
    scopes: ['profile'],
    client: 'api',
  });
  main.logins += 1;
  other.logins += 1;
  organizationOwner.logins += 1;
  const [session, otherSession, organizationOwnerSession] = await Promise.all([
    login(main),
    login(other),
    login(organizationOwner),
  ]);
  if (!session || !otherSession || !organizationOwnerSession) throw new Error('sessions not created');
  const { credential: operatorCredential } = await commands.execute(new AddOperator('matrix', operator()));
  const pastClock = new ManualClock(new Date(Date.now() - 13 * HOUR));
  fixture = {
    main,
    other,
    session,
    otherSession,
    key: key.key,
    revokedKey: revoked.key,
    token: token.token,
    tokenWithoutScope: tokenWithoutScope.token,
    expiredSessions: new SessionStore(service.context.storage.readStore, pastClock),
    organizationOwner,
    organizationOwnerSession,
    operatorCredential,
  };
  sso.organizationId = randomUUID();
  sso.provider = await startTestProvider([
    {
      clientId: SSO_CLIENT,
      clientSecret: SSO_SECRET,
      redirectUris: [`${INJECT_ORIGIN}/api/v2/auth/sso/${sso.organizationId}/callback`],
    },
  ]);
  sso.provider.users.set('matrix-owner', { email: organizationOwner.email });
  await createActiveOrganization(service.context, organizationOwner.accountId, [], sso.organizationId);
  await commands.execute(
    new ConfigureSsoProvider(
      { accountId: organizationOwner.accountId, via: 'session', channel: 'session', scopes: [] },
      sso.organizationId,
      { issuer: sso.provider.issuer, client_id: SSO_CLIENT, client_secret: SSO_SECRET },
    ),
  );
  await issueRecoveryCode();
  // The organization workspace routes act in an organization of their own, with a recorded search to save from.
  await writeGenerated(service.context.observations, 'hosts', {
    count: 30,
    seed: 'auth-matrix',
    now: new Date(),
  });
  Object.assign(organizationWorld, await buildOrganizationWorld(organizationHarness));
});

afterAll(async () => {
  await sso.provider?.close();
  await service.dispose();
  await dns.close();
});

describe('the matrix covers the application', () => {
  it('discovers the application’s routes', () => {
    expect(routes.map(routeKey)).toContain('POST /api/v2/auth/login');
    expect(routes.map(routeKey)).toContain('GET /api/v2/common/credits');
  });

  it('has no request for a route the application does not serve', () => {
    const served = new Set(routes.map(routeKey));
    expect(Object.keys(ROUTE_REQUESTS).filter((key) => !served.has(key))).toEqual([]);
  });
});

describe.each(routes.map((route) => [routeKey(route), route] as const))('%s', (key, route) => {
  const request = ROUTE_REQUESTS[key];

  if (!request) {
    it('has a valid request in ROUTE_REQUESTS', () => {
      throw new Error(
        `${key} (${route.rule?.surface ?? 'no access rule'}) has no entry in ROUTE_REQUESTS: add a valid request ` +
          '(status, body, path params) so every credential variant can be checked against it',
      );
    });
    return;
  }

  it.each(VARIANTS.map((variant) => [variant.name, variant] as const))('%s', async (_name, variant) => {
    const session =
      request.session ??
      (request.consumesSession ? async () => login(await spareAccount()) : async () => fixture.session);
    const headers = {
      ...(request.headers ? await request.headers() : {}),
      ...(await variant.headers(session)),
    };
    const params = request.params ? await request.params() : {};
    const body = request.body ? await request.body() : undefined;
    const extra = request.extra ? await request.extra() : {};
    if (extra.cookie) headers.cookie = headers.cookie ? `${headers.cookie}; ${extra.cookie}` : extra.cookie;
    const response = await service.app.inject({
      method: route.method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: fillPath(route.path, params) + (extra.query ?? ''),
      headers,
      ...(body === undefined ? {} : { payload: body as object }),
    });

    const expected = expectedOutcome(route, variant.kind);
    const answer = { status: response.statusCode, code: errorCode(response) };
    if (expected.status === 'success') {
      expect(answer).toEqual({ status: request.status, code: request.code });
    } else {
      expect(answer).toEqual({ status: expected.status, code: expected.code });
    }
  });
});

function errorCode(response: LightMyRequestResponse): string | undefined {
  if (response.statusCode < 400) return undefined;
  try {
    return (response.json() as { code?: string }).code;
  } catch {
    return `<not JSON: ${response.body.slice(0, 80)}>`;
  }
}

describe('after the matrix', () => {
  it('the reference session and credentials still work (no case consumed them)', async () => {
    const credits = await service.app.inject({
      method: 'GET',
      url: '/api/v2/auth/credits',
      headers: { cookie: `${SESSION_COOKIE}=${fixture.session.sessionId}` },
    });
    expect(credits.statusCode).toBe(200);
    const personal = await service.app.inject({
      method: 'GET',
      url: '/api/v2/common/credits',
      headers: { 'x-api-key': fixture.key },
    });
    expect(personal.statusCode).toBe(200);
  });
});

describe('login cookies', () => {
  it('sets __Host-ps (HttpOnly, Secure, SameSite=Strict, Path=/, no Domain) and __Host-pc (readable by script)', async () => {
    const response = await loginResponse((await spareAccount()).email);
    const cookies = setCookies(response).map(parseSetCookie);
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual([CSRF_COOKIE, SESSION_COOKIE].sort());
    const session = cookies.find((cookie) => cookie.name === SESSION_COOKIE)!;
    const csrf = cookies.find((cookie) => cookie.name === CSRF_COOKIE)!;

    expect(session.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Object.keys(session.attributes).sort()).toEqual([
      'httponly',
      'max-age',
      'path',
      'samesite',
      'secure',
    ]);
    expect(session.attributes).toMatchObject({ httponly: true, secure: true, samesite: 'Strict', path: '/' });

    expect(csrf.value).toBe((response.json() as { csrf_token: string }).csrf_token);
    expect(Object.keys(csrf.attributes).sort()).toEqual(['max-age', 'path', 'samesite', 'secure']);
    expect(csrf.attributes).toMatchObject({ secure: true, samesite: 'Strict', path: '/' });
    expect(csrf.attributes).not.toHaveProperty('httponly');

    for (const cookie of [session, csrf]) {
      expect(cookie.attributes).not.toHaveProperty('domain');
      // Max-Age is the session's absolute lifetime (12 hours), in whole seconds.
      expect(String(cookie.attributes['max-age'])).toMatch(/^\d+$/);
      const maxAge = Number(cookie.attributes['max-age']);
      expect(maxAge).toBeGreaterThan(12 * 3600 - 60);
      expect(maxAge).toBeLessThanOrEqual(12 * 3600);
    }
    expect(session.attributes['max-age']).toBe(csrf.attributes['max-age']);
  });
});

/** `name=value; Attr; Attr=value`: attribute names lower-cased, flag attributes as `true`. */
function parseSetCookie(header: string): {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
} {
  const [pair = '', ...rest] = header.split(';');
  const separator = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const trimmed = part.trim();
    if (!trimmed) continue;
    const at = trimmed.indexOf('=');
    const name = (at === -1 ? trimmed : trimmed.slice(0, at)).trim().toLowerCase();
    if (Object.hasOwn(attributes, name)) throw new Error(`attribute ${name} repeated in ${header}`);
    attributes[name] = at === -1 ? true : trimmed.slice(at + 1).trim();
  }
  return { name: pair.slice(0, separator).trim(), value: pair.slice(separator + 1).trim(), attributes };
}
