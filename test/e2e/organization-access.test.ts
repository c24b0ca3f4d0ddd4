/**
 * Roles (Authentication 7) and object-level authorization over every organization route, enumerated from the
 * application's registered route table (a new route fails here until it has a request and expectations):
 *
 * - role × route: owner, administrator, analyst, external client, a removed member and a member of another
 *   organization, each against every route, with the exact status the Roles table gives;
 * - object-level: a member of another organization using valid ids (the organization's, or its own
 *   organization's id with this one's client, case, evidence… ids) gets 404 and learns nothing.
 *
 * The single sign-on settings are organization routes too: the world's owner configures an in-process OpenID
 * Connect provider (oidc-provider on loopback) first, as the SSO tests do.
 */
import { afterAll, describe, expect, it } from '@jest/globals';
import { DiscoveryModule } from '@nestjs/core';
import { can, type Capability, type Role } from '../../src/organizations/domain/roles.js';
import { TestDnsServer } from '../support/dns-server.js';
import { startTestProvider } from '../support/oidc.js';
import {
  buildOrganizationWorld,
  objectIds,
  organizationRouteRequests,
  ssoRouteRequests,
  type OrganizationWorld,
} from '../support/organization-routes.js';
import { OrganizationHarness, type Actor } from '../support/organizations.js';
import { discoverRoutes, routeKey } from '../support/routes.js';
import { startTestService } from '../support/service.js';
import { waitUntil } from '../support/storage.js';
import { DATASETS } from '../../src/search/domain/datasets.js';
import { writeGenerated } from '../../src/search/data/demo-corpus.js';

const dns = await TestDnsServer.start();
const service = await startTestService('pglite', {
  modules: [DiscoveryModule],
  env: { DNS_SERVERS: dns.address },
});
await waitUntil(() => service.context.projections.allLive());
for (const dataset of DATASETS) {
  await writeGenerated(service.context.observations, dataset, {
    count: 30,
    seed: 'organization-access',
    now: new Date(),
  });
}
const h = new OrganizationHarness(service, dns);
const world: OrganizationWorld = await buildOrganizationWorld(h);
const elsewhere: OrganizationWorld = await buildOrganizationWorld(h);
// A member removed from the world (signed in again afterwards: removal ended its sessions).
const removedMember = await h.member(world.organizationId, world.owner, 'analyst', {
  spaces: [world.clientId],
});
await h.ok(
  world.owner,
  'DELETE',
  `/api/v2/organizations/${world.organizationId}/members/${removedMember.accountId}`,
);
const removed = await h.login(removedMember);
// The other organization's owner, in an unswitched session: only object-level checks stand in its way.
const outsider = await h.login(elsewhere.owner);

// Rule 12: the world's single sign-on, configured against a live provider before the matrix runs.
const ssoClient = {
  clientId: 'organization-access',
  clientSecret: `organization-access-secret-${crypto.randomUUID()}`,
};
const provider = await startTestProvider([
  {
    ...ssoClient,
    redirectUris: [`http://localhost/api/v2/auth/sso/${world.organizationId}/callback`],
  },
]);
const sso = { issuer: provider.issuer, ...ssoClient };
await h.ok(world.owner, 'PUT', `/api/v2/organizations/${world.organizationId}/sso`, {
  issuer: sso.issuer,
  client_id: sso.clientId,
  client_secret: sso.clientSecret,
});

const requests = { ...organizationRouteRequests(h, world), ...ssoRouteRequests(h, world, sso) };
const routes = discoverRoutes(service.app).filter((route) =>
  route.path.startsWith('/api/v2/organizations/:orgId'),
);

afterAll(async () => {
  await provider.close();
  await service.dispose();
  await dns.close();
});

type Who = Role | 'removed_member' | 'other_organization';
const ACTORS: ReadonlyArray<[Who, Actor]> = [
  ['owner', world.owner],
  ['administrator', world.administrator],
  ['analyst', world.analyst],
  ['external_client', world.external],
  ['removed_member', removed],
  ['other_organization', outsider],
];

function fill(path: string, params: Readonly<Record<string, string>>): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no value for :${name} in ${path}`);
    return encodeURIComponent(value);
  });
}

it('enumerates the organization routes from the registered route table', () => {
  expect(routes.length).toBeGreaterThan(30);
  const missing = routes.map(routeKey).filter((key) => !(key in requests));
  expect(missing).toEqual([]);
  // The single sign-on settings are in, not set aside because they need a provider.
  expect(routes.map(routeKey).filter((key) => key.includes('/sso')).length).toBe(6);
});

const covered = routes.filter((route) => routeKey(route) in requests);

it('each route declares a capability every role it lets through has (the access layer refuses the others first)', () => {
  const notAdmitted = covered.flatMap((route) => {
    const capability = route.rule?.capability as Capability | undefined;
    if (!capability) return [];
    return requests[routeKey(route)]!.roles.filter((role) => !can(role, capability)).map(
      (role) => `${routeKey(route)}: ${role} lacks ${capability}`,
    );
  });
  expect(notAdmitted).toEqual([]);
});

describe.each(covered.map((route) => [routeKey(route), route] as const))('role × route: %s', (key, route) => {
  const request = requests[key]!;
  it.each(ACTORS.map(([who, actor]) => [who, actor] as const))('%s', async (who, actor) => {
    const params = await request.params();
    const response = await h.request(
      actor,
      route.method as 'GET',
      fill(route.path, params),
      request.body ? await request.body() : undefined,
      request.headers ? await request.headers() : {},
    );
    const expected =
      who === 'removed_member' || who === 'other_organization'
        ? 404
        : request.roles.includes(who)
          ? request.status
          : (request.deniedStatus ?? 404);
    expect({ status: response.statusCode, body: expected >= 400 ? response.body : '' }).toMatchObject({
      status: expected,
    });
    if (expected === 404) expect((JSON.parse(response.body) as { code: string }).code).toBe('not_found');
  });
});

describe('object-level authorization: a member of another organization with valid ids gets 404 and nothing else', () => {
  const ids = objectIds(world);
  const secrets = [world.organizationId, world.clientId, world.caseId, world.evidenceId, 'world evidence'];
  // Nor does it read this organization's single sign-on settings.
  const settings = [sso.issuer, sso.clientId];

  it.each(covered.map((route) => [routeKey(route), route] as const))('%s', async (key, route) => {
    const request = requests[key]!;
    const body = request.body ? await request.body() : undefined;
    const headers = request.headers ? await request.headers() : {};
    // This organization's ids, straight.
    const straight = await h.request(outsider, route.method as 'GET', fill(route.path, ids), body, headers);
    expect(straight.statusCode).toBe(404);
    expect((JSON.parse(straight.body) as { code: string }).code).toBe('not_found');
    for (const secret of [...secrets.slice(1), ...settings]) expect(straight.body).not.toContain(secret);

    // The caller's own organization with this organization's object ids.
    const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
    if (names.length > 1) {
      const crossed = await h.request(
        outsider,
        route.method as 'GET',
        fill(route.path, { ...ids, orgId: elsewhere.organizationId }),
        body,
        headers,
      );
      expect(crossed.statusCode).toBe(404);
      for (const secret of secrets) expect(crossed.body).not.toContain(secret);
    } else if (body !== undefined && secrets.slice(1).some((id) => JSON.stringify(body).includes(id))) {
      // Ids carried in the body (space, case, search, evidence) are refused in the caller's own organization.
      const crossed = await h.request(
        outsider,
        route.method as 'GET',
        fill(route.path, { orgId: elsewhere.organizationId }),
        body,
        headers,
      );
      expect([404, 409, 422]).toContain(crossed.statusCode);
    }
  });
});
