/**
 * Rule 12: staff single sign-on through OpenID Connect, over real HTTP. The service listens on a loopback port
 * (PGlite storage, live projections); an in-process oidc-provider listens on another; a small browser keeps
 * cookies per host and follows every redirect, so state, nonce and PKCE travel exactly as they would.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CommandBus } from '@nestjs/cqrs';
import { RegisterAccount } from '../../src/accounts/commands/account.commands.js';
import { CreditLedger } from '../../src/credits/commands/credit-ledger.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { SessionStore } from '../../src/platform/auth/sessions.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { OrganizationWorkspace } from '../../src/organizations/commands/organization-workspace.js';
import { SSO_FLOW_COOKIE } from '../../src/organizations/sso/http/sso.controllers.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';
import { signInAtProvider, startTestProvider, TestBrowser, type TestProvider } from '../support/oidc.js';
import { startTestService, type TestService } from '../support/service.js';
import { createActiveOrganization } from '../support/sso-organizations.js';
import { waitUntil } from '../support/storage.js';

const PASSWORD = 'sso-password-0123456789';
const CLIENT_SECRET_A = `client-a-secret-${randomUUID()}`;
const CLIENT_SECRET_B = `client-b-secret-${randomUUID()}`;

interface Person {
  readonly email: string;
  readonly accountId: string;
  /** Their subject at the provider. */
  readonly subject: string;
}

let service: TestService;
let provider: TestProvider;
let base: string;
const orgA = randomUUID();
const orgB = randomUUID();
const orgWithoutSso = randomUUID();
const people: Record<'owner' | 'analyst' | 'external' | 'outsider' | 'otherStaff' | 'ownerB', Person> =
  {} as never;

const callbackOf = (organizationId: string) => `${base}/api/v2/auth/sso/${organizationId}/callback`;
const startOf = (organizationId: string) => `${base}/api/v2/auth/sso/${organizationId}/start`;

async function register(label: string): Promise<Person> {
  const email = `${label}-${randomUUID().slice(0, 8)}@acme-sso.example`;
  const { accountId } = await service.app
    .get(CommandBus)
    .execute(
      new RegisterAccount(
        email,
        'free',
        PASSWORD,
        commandEnvelope({ actor: 'operator:test', payer: 'system' }),
      ),
    );
  return { email, accountId, subject: `sub-${label}-${randomUUID().slice(0, 8)}` };
}

/** A browser signed in by password (the service's own login), as the contract's session surface expects. */
async function passwordBrowser(person: Person): Promise<TestBrowser> {
  const browser = new TestBrowser();
  const response = await browser.request(`${base}/api/v2/auth/login`, {
    json: { email: person.email, password: PASSWORD },
  });
  if (response.status !== 200) throw new Error(`login failed: ${response.status} ${response.body}`);
  return browser;
}

/** A session request from this browser: cookies from its jar, the CSRF header on unsafe methods. */
async function call(
  browser: TestBrowser,
  method: 'GET' | 'PUT' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
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

async function post(url: string, body: unknown, cookie?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, response };
}

/** Starts a sign-in in `browser` and signs in at the provider as `person`: the provider's redirect back. */
async function providerRedirect(
  browser: TestBrowser,
  organizationId: string,
  person: Person,
): Promise<string> {
  const start = await browser.request(startOf(organizationId));
  expect(start.status).toBe(302);
  return signInAtProvider(browser, start.location!, person.subject, callbackOf(organizationId));
}

beforeAll(async () => {
  service = await startTestService('pglite');
  await waitUntil(() => service.context.projections.allLive());
  await service.app.listen(0, '127.0.0.1');
  base = (await service.app.getUrl()).replace('[::1]', '127.0.0.1').replace('localhost', '127.0.0.1');
  provider = await startTestProvider([
    { clientId: 'client-a', clientSecret: CLIENT_SECRET_A, redirectUris: [callbackOf(orgA)] },
    { clientId: 'client-b', clientSecret: CLIENT_SECRET_B, redirectUris: [callbackOf(orgB)] },
  ]);
  const [owner, analyst, external, outsider, otherStaff, ownerB] = await Promise.all(
    ['owner', 'analyst', 'external', 'outsider', 'other-staff', 'owner-b'].map(register),
  );
  Object.assign(people, { owner, analyst, external, outsider, otherStaff, ownerB });
  for (const person of Object.values(people)) provider.users.set(person.subject, { email: person.email });
  await createActiveOrganization(
    service.context,
    owner!.accountId,
    [
      { accountId: analyst!.accountId, email: analyst!.email, role: 'analyst' },
      { accountId: external!.accountId, email: external!.email, role: 'external_client' },
    ],
    orgA,
  );
  await createActiveOrganization(
    service.context,
    ownerB!.accountId,
    [{ accountId: otherStaff!.accountId, email: otherStaff!.email, role: 'analyst' }],
    orgB,
  );
  await createActiveOrganization(service.context, outsider!.accountId, [], orgWithoutSso);
  // Observations for the searches staff run once signed in.
  await writeGenerated(service.context.observations, 'hosts', { count: 20, seed: 'sso', now: new Date() });
}, 60_000);

afterAll(async () => {
  await provider?.close();
  await service?.dispose();
});

describe('rule 12: staff single sign-on through OpenID Connect', () => {
  let ownerBrowser: TestBrowser;

  it('rule 12: the owner configures the provider; the client secret is stored sealed, never in clear', async () => {
    ownerBrowser = await passwordBrowser(people.owner);
    const configured = await call(ownerBrowser, 'PUT', `/api/v2/organizations/${orgA}/sso`, {
      issuer: provider.issuer,
      client_id: 'client-a',
      client_secret: CLIENT_SECRET_A,
    });
    expect(configured.status).toBe(200);
    expect(configured.json).toMatchObject({
      provider: { issuer: provider.issuer, client_id: 'client-a', client_secret_set: true },
      redirect_uri: callbackOf(orgA),
      enforced: false,
      recovery_code: { issued: false, tested: false, saved: false },
    });
    expect(JSON.stringify(configured.json)).not.toContain(CLIENT_SECRET_A);
    const events = await service.context.storage.eventStore.readStream(`sso-${orgA}`);
    expect(events.map((event) => event.type)).toEqual(['SsoProviderConfigured']);
    expect(JSON.stringify(events)).not.toContain(CLIENT_SECRET_A);
    // The event names the credential; the sealed secret is in the credential store (ADR 65).
    const { clientSecretId } = events[0]!.data as { clientSecretId: string };
    expect(events[0]!.data).not.toHaveProperty('clientSecret');
    const stored = await service.context.credentials.get(clientSecretId);
    expect(stored).toMatchObject({ kind: 'sso-client-secret', subject: `organization:${orgA}` });
    expect(JSON.parse(stored!.material)).toMatchObject({ alg: 'A256GCM' });
    expect(stored!.material).not.toContain(CLIENT_SECRET_A);

    // Org B's owner configures the other client; an issuer without discovery is refused up front.
    const ownerBBrowser = await passwordBrowser(people.ownerB);
    const bad = await call(ownerBBrowser, 'PUT', `/api/v2/organizations/${orgB}/sso`, {
      issuer: `${provider.issuer}/nowhere`,
      client_id: 'client-b',
      client_secret: CLIENT_SECRET_B,
    });
    expect(bad).toMatchObject({ status: 422, json: { code: 'invalid_input' } });
    const good = await call(ownerBBrowser, 'PUT', `/api/v2/organizations/${orgB}/sso`, {
      issuer: provider.issuer,
      client_id: 'client-b',
      client_secret: CLIENT_SECRET_B,
    });
    expect(good.status).toBe(200);
  });

  it('rule 12: settings are owner only: an analyst gets 403, a member of another organization 404', async () => {
    const analyst = await passwordBrowser(people.analyst);
    expect(await call(analyst, 'GET', `/api/v2/organizations/${orgA}/sso`)).toMatchObject({
      status: 403,
      json: { code: 'forbidden' },
    });
    const stranger = await passwordBrowser(people.otherStaff);
    const unknown = await call(stranger, 'GET', `/api/v2/organizations/${randomUUID()}/sso`);
    const foreign = await call(stranger, 'GET', `/api/v2/organizations/${orgA}/sso`);
    expect(foreign).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(foreign.json.message).toBe(unknown.json.message);
  });

  it('rule 12: the settings routes declare sso.manage, refused before the body is read: an invalid body earns an analyst 403, a stranger 404, the owner 422', async () => {
    const invalid = { issuer: 'not a url', client_id: '' };
    const analyst = await passwordBrowser(people.analyst);
    expect(await call(analyst, 'PUT', `/api/v2/organizations/${orgA}/sso`, invalid)).toMatchObject({
      status: 403,
      json: { code: 'forbidden' },
    });
    const stranger = await passwordBrowser(people.otherStaff);
    expect(await call(stranger, 'PUT', `/api/v2/organizations/${orgA}/sso`, invalid)).toMatchObject({
      status: 404,
      json: { code: 'not_found' },
    });
    const owner = await passwordBrowser(people.owner);
    expect(await call(owner, 'PUT', `/api/v2/organizations/${orgA}/sso`, invalid)).toMatchObject({
      status: 422,
      json: { code: 'invalid_input' },
    });
  });

  it('rule 12: a staff member signs in through real redirects (state, nonce, PKCE) into a session switched to the organization', async () => {
    const browser = new TestBrowser();
    const start = await browser.request(startOf(orgA));
    expect(start.status).toBe(302);
    const authorization = new URL(start.location!);
    expect(authorization.origin).toBe(provider.issuer);
    expect(authorization.searchParams.get('client_id')).toBe('client-a');
    expect(authorization.searchParams.get('redirect_uri')).toBe(callbackOf(orgA));
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    for (const parameter of ['state', 'nonce', 'code_challenge']) {
      expect(authorization.searchParams.get(parameter)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    }
    const flowCookie = start.setCookies.find((cookie) => cookie.startsWith(`${SSO_FLOW_COOKIE}=`))!;
    expect(flowCookie).toMatch(/HttpOnly/);
    expect(flowCookie).toMatch(/SameSite=Lax/);

    const back = await signInAtProvider(browser, start.location!, people.analyst.subject, callbackOf(orgA));
    expect(new URL(back).searchParams.get('state')).toBe(authorization.searchParams.get('state'));
    const callback = await browser.request(back);
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${base}/`);
    const sessionCookie = callback.setCookies.find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))!;
    const csrfCookie = callback.setCookies.find((cookie) => cookie.startsWith(`${CSRF_COOKIE}=`))!;
    // The same cookies as the password login.
    expect(sessionCookie).toMatch(
      /^__Host-ps=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/,
    );
    expect(csrfCookie).toMatch(
      /^__Host-pc=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; Secure; SameSite=Strict$/,
    );
    const sessionId = browser.cookies(base).get(SESSION_COOKIE)!;
    const session = await service.app.get(SessionStore).resolve(sessionId);
    expect(session).toMatchObject({ accountId: people.analyst.accountId, organizationId: orgA });
    // The session is the analyst's in organization A: recognised as a member there (owner-only route: 403).
    expect(await call(browser, 'GET', `/api/v2/organizations/${orgA}/sso`)).toMatchObject({ status: 403 });
    // ...and restricted to it: another organization is 404.
    expect(await call(browser, 'GET', `/api/v2/organizations/${orgB}/sso`)).toMatchObject({ status: 404 });

    // The flow is one use: replaying the provider's redirect is refused.
    const replay = await browser.request(back);
    expect(replay.status).toBe(401);
    expect(JSON.parse(replay.body)).toMatchObject({ code: 'sso_failed' });

    const events = await service.context.storage.eventStore.readStream(`sso-${orgA}`);
    expect(events.map((event) => event.type).slice(-2)).toEqual(['SsoSubjectLinked', 'SsoSignedIn']);
  });

  it('rule 2: staff signed in through the provider start in General research, as after a switch, and search at once, paid by the organization', async () => {
    const payer = `organization:${orgA}` as const;
    const ledger = service.app.get(CreditLedger);
    await ledger.purchase(payer, 50, commandEnvelope({ actor: 'operator:test', payer }));
    const organizationBefore = await ledger.available(payer);
    const personal = `account:${people.analyst.accountId}`;
    const personalBefore = await ledger.state(personal);

    const browser = new TestBrowser();
    expect((await browser.request(await providerRedirect(browser, orgA, people.analyst))).status).toBe(303);
    const overview = await call(browser, 'GET', `/api/v2/organizations/${orgA}`);
    const generalSpaceId = overview.json.general_space_id as string;
    expect(generalSpaceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await call(browser, 'GET', `/api/v2/organizations/${orgA}/context`)).toMatchObject({
      status: 200,
      json: { switched: true, space_id: generalSpaceId, case_id: null },
    });

    // No space to pick first: the search runs in General research, paid from the organization's credits.
    const search = await call(browser, 'POST', '/api/v2/data/search', { raw_query: 'nginx', stream: false });
    expect({ status: search.status, code: search.json.code }).toEqual({ status: 200, code: undefined });
    const charged = search.json.credits_charged as number;
    expect(charged).toBeGreaterThan(0);
    expect(await ledger.available(payer)).toBe(organizationBefore - charged);
    expect(await ledger.state(personal)).toEqual(personalBefore);
    const recorded = await service.context.storage.eventStore.readStream(
      `research-${search.json.search_id as string}`,
    );
    expect(recorded[0]!.data).toMatchObject({
      organizationId: orgA,
      spaceId: generalSpaceId,
      accountId: people.analyst.accountId,
    });
  });

  it('rule 12: a forged state, a missing flow cookie and a code issued for another client (audience) are refused', async () => {
    // Forged state.
    const browser = new TestBrowser();
    const back = new URL(await providerRedirect(browser, orgA, people.analyst));
    back.searchParams.set('state', 'forged-state-forged-state-forged-state-xx');
    const forged = await browser.request(back.href);
    expect(forged.status).toBe(401);
    expect(JSON.parse(forged.body)).toMatchObject({ code: 'sso_failed' });

    // A genuine redirect opened in a browser that never started the sign-in (login CSRF).
    const genuine = await providerRedirect(new TestBrowser(), orgA, people.analyst);
    const elsewhere = await new TestBrowser().request(genuine);
    expect(elsewhere.status).toBe(401);
    expect(JSON.parse(elsewhere.body)).toMatchObject({ code: 'sso_failed' });

    // A code the provider issued to organization B's client, brought to organization A's flow with A's state.
    const victim = new TestBrowser();
    const startA = await victim.request(startOf(orgA));
    const stateA = new URL(startA.location!).searchParams.get('state')!;
    const forB = new URL(await providerRedirect(new TestBrowser(), orgB, people.otherStaff));
    const mixed = new URL(callbackOf(orgA));
    mixed.searchParams.set('code', forB.searchParams.get('code')!);
    mixed.searchParams.set('state', stateA);
    if (forB.searchParams.get('iss')) mixed.searchParams.set('iss', forB.searchParams.get('iss')!);
    const crossed = await victim.request(mixed.href);
    expect(crossed.status).toBe(401);
    expect(JSON.parse(crossed.body)).toMatchObject({ code: 'sso_failed' });
    expect(victim.cookies(base).has(SESSION_COOKIE)).toBe(false);
  });

  it('rule 12: a non-member, a member of another organization and an external client are refused alike (403, nothing leaked)', async () => {
    const refusals = [];
    for (const person of [people.outsider, people.otherStaff, people.external]) {
      const browser = new TestBrowser();
      const response = await browser.request(await providerRedirect(browser, orgA, person));
      refusals.push({ status: response.status, body: JSON.parse(response.body) as Record<string, unknown> });
      expect(browser.cookies(base).has(SESSION_COOKIE)).toBe(false);
    }
    // An identity whose email is no account at all reads exactly the same.
    const stranger: Person = {
      email: `nobody-${randomUUID()}@acme-sso.example`,
      accountId: '',
      subject: 'sub-nobody',
    };
    provider.users.set(stranger.subject, { email: stranger.email });
    const browser = new TestBrowser();
    const response = await browser.request(await providerRedirect(browser, orgA, stranger));
    refusals.push({ status: response.status, body: JSON.parse(response.body) as Record<string, unknown> });
    for (const refusal of refusals) {
      expect(refusal.status).toBe(403);
      expect(refusal.body.code).toBe('sso_not_member');
      expect(refusal.body.message).toBe(refusals[0]!.body.message);
    }
    // Starting a sign-in for an unknown organization or one without single sign-on: the same 404.
    const unknown = await new TestBrowser().request(startOf(randomUUID()));
    const unconfigured = await new TestBrowser().request(startOf(orgWithoutSso));
    expect(unknown.status).toBe(404);
    expect(unconfigured.status).toBe(404);
    expect(JSON.parse(unknown.body).message).toBe(JSON.parse(unconfigured.body).message);
  });

  let recoveryCode: string;

  it('rule 12: enforcement is refused until a recovery code was issued, tested and saved', async () => {
    const path = `/api/v2/organizations/${orgA}`;
    const enable = () => call(ownerBrowser, 'PUT', `${path}/sso/enforcement`, { enforced: true });
    expect(await enable()).toMatchObject({
      status: 409,
      json: { code: 'recovery_code_required', details: { issued: false, tested: false, saved: false } },
    });
    const issued = await call(ownerBrowser, 'POST', `${path}/sso/recovery-code`);
    expect(issued.status).toBe(201);
    recoveryCode = issued.json.recovery_code as string;
    expect(recoveryCode).toMatch(/^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/);
    // Shown once: never in the settings, never in an event.
    expect(JSON.stringify((await call(ownerBrowser, 'GET', `${path}/sso`)).json)).not.toContain(recoveryCode);
    const events = await service.context.storage.eventStore.readStream(`sso-${orgA}`);
    expect(JSON.stringify(events)).not.toContain(recoveryCode);
    expect(JSON.stringify(events)).not.toContain(recoveryCode.replace(/-/g, ''));

    expect(await enable()).toMatchObject({ status: 409, json: { details: { issued: true, tested: false } } });
    expect(
      await call(ownerBrowser, 'POST', `${path}/sso/recovery-code/test`, {
        recovery_code: 'AAAAA-AAAAA-AAAAA-AAAAA-AAAAA',
      }),
    ).toMatchObject({ status: 422, json: { code: 'recovery_code_invalid' } });
    // Typed loosely (lower case, no dashes), the saved code still tests.
    const tested = await call(ownerBrowser, 'POST', `${path}/sso/recovery-code/test`, {
      recovery_code: recoveryCode.toLowerCase().replace(/-/g, ' '),
    });
    expect(tested).toMatchObject({ status: 200, json: { recovery_code: { tested: true, saved: false } } });
    expect(await enable()).toMatchObject({ status: 409, json: { details: { tested: true, saved: false } } });
    // Only the owner: the analyst's session cannot save or enforce.
    const analyst = await passwordBrowser(people.analyst);
    expect(await call(analyst, 'PUT', `${path}/sso/enforcement`, { enforced: true })).toMatchObject({
      status: 403,
    });
    const saved = await call(ownerBrowser, 'POST', `${path}/sso/recovery-code/saved`);
    expect(saved).toMatchObject({ status: 200, json: { enforcement_ready: true } });

    const enabled = await enable();
    expect(enabled).toMatchObject({ status: 200, json: { enforced: true } });
    // Enforcing signed staff out of their password sessions; the owner keeps the session that enforced it.
    expect(await call(analyst, 'GET', `${path}/sso`)).toMatchObject({ status: 401 });
    expect(await call(ownerBrowser, 'GET', `${path}/sso`)).toMatchObject({ status: 200 });
  });

  it('rule 12: under enforcement staff password sign-in is refused with sso_required; an external client still signs in by password', async () => {
    for (const person of [people.analyst, people.owner]) {
      const refused = await post(`${base}/api/v2/auth/login`, { email: person.email, password: PASSWORD });
      expect(refused.status).toBe(403);
      expect(refused.json).toMatchObject({
        code: 'sso_required',
        details: { organization_id: orgA, sign_in_url: `/api/v2/auth/sso/${orgA}/start` },
      });
      expect(refused.response.headers.getSetCookie()).toEqual([]);
    }
    const external = await post(`${base}/api/v2/auth/login`, {
      email: people.external.email,
      password: PASSWORD,
    });
    expect(external.status).toBe(200);
    expect(
      external.response.headers
        .getSetCookie()
        .map((cookie) => cookie.split('=')[0])
        .sort(),
    ).toEqual([CSRF_COOKIE, SESSION_COOKIE].sort());
    // Staff of another organization are not affected by this one's enforcement.
    const other = await post(`${base}/api/v2/auth/login`, {
      email: people.otherStaff.email,
      password: PASSWORD,
    });
    expect(other.status).toBe(200);
    // Single sign-on still lets the staff member in.
    const browser = new TestBrowser();
    const signedIn = await browser.request(await providerRedirect(browser, orgA, people.analyst));
    expect(signedIn.status).toBe(303);
  });

  it('rule 12: a password session cannot enter an organization enforcing SSO: switching, accepting a staff invitation and a promotion all send staff to its sign-in', async () => {
    const organization = `/api/v2/organizations/${orgA}`;
    // The owner's session that turned enforcement on was kept, switched into the organization.
    expect(await call(ownerBrowser, 'GET', organization)).toMatchObject({ status: 200 });
    const invite = async (person: Person, role: 'analyst' | 'external_client') => {
      const invited = await call(ownerBrowser, 'POST', `${organization}/invitations`, {
        email: person.email,
        role,
      });
      expect(invited.status).toBe(201);
      return invited.json.id as string;
    };

    // A new analyst signed in by password (a member of nothing yet) accepts: the membership is recorded, but the
    // password session does not enter; the answer names the sign-in address.
    const newcomer = await register('newcomer');
    provider.users.set(newcomer.subject, { email: newcomer.email });
    const newcomerBrowser = await passwordBrowser(newcomer);
    const accepted = await call(
      newcomerBrowser,
      'POST',
      `${organization}/invitations/${await invite(newcomer, 'analyst')}/accept`,
    );
    expect(accepted).toMatchObject({
      status: 200,
      json: { accepted: true, sso_required: true, sign_in_url: `/api/v2/auth/sso/${orgA}/start` },
    });
    for (const [method, path] of [
      ['POST', `${organization}/switch`],
      ['GET', organization],
      ['GET', `${organization}/members`],
    ] as const) {
      expect(await call(newcomerBrowser, method, path)).toMatchObject({
        status: 403,
        json: {
          code: 'sso_required',
          details: { organization_id: orgA, sign_in_url: `/api/v2/auth/sso/${orgA}/start` },
        },
      });
    }
    // Through the provider, the same person enters.
    const ssoBrowser = new TestBrowser();
    expect((await ssoBrowser.request(await providerRedirect(ssoBrowser, orgA, newcomer))).status).toBe(303);
    expect(await call(ssoBrowser, 'GET', organization)).toMatchObject({
      status: 200,
      json: { role: 'analyst' },
    });

    // An external client keeps named access: accepting and switching by password work.
    const client = await register('client');
    const clientBrowser = await passwordBrowser(client);
    expect(
      await call(
        clientBrowser,
        'POST',
        `${organization}/invitations/${await invite(client, 'external_client')}/accept`,
      ),
    ).toMatchObject({ status: 200, json: { role: 'external_client' } });
    expect(await call(clientBrowser, 'POST', `${organization}/switch`)).toMatchObject({ status: 200 });
    // Made staff, the client signs in again, through the provider: the password session ends.
    expect(
      await call(ownerBrowser, 'PATCH', `${organization}/members/${client.accountId}`, { role: 'analyst' }),
    ).toMatchObject({ status: 200 });
    expect(await call(clientBrowser, 'GET', organization)).toMatchObject({ status: 401 });
  });

  it('rule 14: the settings pass the workspace gate: a restricted organization changes no SSO setting, the owner included; reading stays open', async () => {
    const outsider = await passwordBrowser(people.outsider);
    await service.app
      .get(OrganizationWorkspace)
      .operator(
        orgWithoutSso,
        { type: 'SetInactive', inactive: true },
        commandEnvelope({ actor: 'operator:test', payer: 'system' }),
      );
    expect(
      await call(outsider, 'POST', `/api/v2/organizations/${orgWithoutSso}/sso/recovery-code`),
    ).toMatchObject({
      status: 403,
      json: { code: 'organization_restricted', details: { status: 'inactive' } },
    });
    expect(await call(outsider, 'GET', `/api/v2/organizations/${orgWithoutSso}/sso`)).toMatchObject({
      status: 200,
      json: { provider: null, enforced: false },
    });
  });

  it('rule 12: the recovery code lets the owner in once when the provider is down; then a new one must be issued', async () => {
    const url = `${base}/api/v2/auth/sso/${orgA}/recovery`;
    const wrongPassword = await post(url, {
      email: people.owner.email,
      password: 'not-the-password-000',
      recovery_code: recoveryCode,
    });
    expect(wrongPassword).toMatchObject({ status: 401, json: { code: 'unauthenticated' } });
    const notOwner = await post(url, {
      email: people.analyst.email,
      password: PASSWORD,
      recovery_code: recoveryCode,
    });
    expect(notOwner).toMatchObject({ status: 401, json: { code: 'unauthenticated' } });
    expect(notOwner.json.message).toBe(wrongPassword.json.message);

    await provider.close(); // the provider is down from here on
    await expect(fetch(`${provider.issuer}/.well-known/openid-configuration`)).rejects.toThrow();

    const recovered = await post(url, {
      email: people.owner.email,
      password: PASSWORD,
      recovery_code: recoveryCode,
    });
    expect(recovered.status).toBe(200);
    expect(recovered.json).toMatchObject({
      account_id: people.owner.accountId,
      organization_id: orgA,
      recovery_code_used: true,
    });
    const cookie = recovered.response.headers
      .getSetCookie()
      .map((value) => value.split(';')[0])
      .join('; ');
    const session = await service.app.get(SessionStore).resolve(/__Host-ps=([^;]+)/.exec(cookie)![1]!);
    expect(session).toMatchObject({ accountId: people.owner.accountId, organizationId: orgA });
    const settings = await fetch(`${base}/api/v2/organizations/${orgA}/sso`, { headers: { cookie } });
    expect(settings.status).toBe(200);
    expect(await settings.json()).toMatchObject({ enforced: true, recovery_code: { issued: false } });
    // Rule 2: the recovery session, too, starts in General research.
    const overview = (await (
      await fetch(`${base}/api/v2/organizations/${orgA}`, { headers: { cookie } })
    ).json()) as Record<string, unknown>;
    const context = await fetch(`${base}/api/v2/organizations/${orgA}/context`, { headers: { cookie } });
    expect(await context.json()).toMatchObject({ switched: true, space_id: overview.general_space_id });

    const again = await post(url, {
      email: people.owner.email,
      password: PASSWORD,
      recovery_code: recoveryCode,
    });
    expect(again).toMatchObject({ status: 401, json: { code: 'unauthenticated' } });
  });

  it('rule 12: the overview shows the enforcement the SSO stream holds, on and off, with no copy on the organization stream', async () => {
    const path = `/api/v2/organizations/${orgB}`;
    const owner = await passwordBrowser(people.ownerB);
    expect(await call(owner, 'POST', `${path}/switch`)).toMatchObject({ status: 200 });
    const overview = async () => (await call(owner, 'GET', path)).json.sso;
    expect(await overview()).toEqual({ enforced: false });
    const issued = await call(owner, 'POST', `${path}/sso/recovery-code`);
    const code = issued.json.recovery_code as string;
    expect(
      await call(owner, 'POST', `${path}/sso/recovery-code/test`, { recovery_code: code }),
    ).toMatchObject({
      status: 200,
    });
    expect(await call(owner, 'POST', `${path}/sso/recovery-code/saved`)).toMatchObject({ status: 200 });
    expect(await call(owner, 'PUT', `${path}/sso/enforcement`, { enforced: true })).toMatchObject({
      status: 200,
      json: { enforced: true },
    });
    expect(await overview()).toEqual({ enforced: true });
    expect(await call(owner, 'PUT', `${path}/sso/enforcement`, { enforced: false })).toMatchObject({
      status: 200,
      json: { enforced: false },
    });
    expect(await overview()).toEqual({ enforced: false });
    // One source of truth: the organization stream never records single sign-on.
    const organizationEvents = await service.context.storage.eventStore.readStream(`organization-${orgB}`);
    expect(organizationEvents.filter((event) => /sso/i.test(event.type))).toEqual([]);
  });
});
