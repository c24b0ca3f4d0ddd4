/**
 * The route inventory: every route the Nest application serves, with the access rule the AuthGuard enforces.
 *
 * - A route without an access rule (surface + permission) fails here (and is refused at runtime, proven below).
 * - The whole table is compared with the reviewed one written in this file, so adding a route, or changing who
 *   may call one, shows up as a diff that someone has to accept.
 * - Every route fastify serves is either one of these guarded Nest routes or a documentation route, so a
 *   route registered on fastify directly cannot slip past the guard unnoticed.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Post, type INestApplication } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import {
  CAPABILITIES,
  ROLES,
  can,
  productOf,
  type Capability,
} from '../../src/organizations/domain/roles.js';
import { PERMISSIONS } from '../../src/platform/auth/access.js';
import { discoverRoutes, type DiscoveredRoute } from '../support/routes.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * An organization route's capability, the roles of the contract's Roles table that have it, and the product the
 * organization must be enabled for (Exposition), if any.
 */
function whoMay(capability: string | undefined): string {
  if (!capability) return '';
  const roles = ROLES.filter((role) => can(role, capability as Capability)).join(', ');
  const product = productOf(capability as Capability);
  return ` ${capability} (${roles}${product ? `; ${product} only` : ''})`;
}

function tableLine(route: DiscoveredRoute): string {
  const rule = route.rule;
  if (!rule) return `${route.method} ${route.path} UNDECLARED`;
  return `${route.method} ${route.path} ${rule.surface} ${rule.permission}${rule.personalData === 'paid_result' ? ' paidResult' : rule.personalData ? ' personalData' : ''}${whoMay(rule.capability)}`;
}

/**
 * The reviewed access table, sorted. Organization routes name the capability they need and the roles that
 * have it: who may call them. A failure here means a route was added, removed or changed access: check
 * the route against the contract's Surfaces table and Authentication rules, then update this list.
 */
const EXPECTED_ROUTES = [
  'POST /mcp mcp mcp.connect',
  'GET /mcp mcp mcp.connect',
  'DELETE /mcp mcp mcp.connect',
  'DELETE /api/v2/auth/apps/:clientId session tokens.manage',
  'GET /api/v2/auth/apps session tokens.manage',
  'GET /.well-known/oauth-protected-resource public oauth.metadata',
  'GET /.well-known/oauth-protected-resource/mcp public oauth.metadata',
  'DELETE /api/v2/auth/keys/:keyId session keys.manage',
  'GET /api/v2/auth/session session account.read',
  'GET /api/v2/auth/credits session credits.read',
  'GET /api/v2/auth/credits/usage session credits.read',
  'GET /api/v2/auth/keys session keys.manage',
  'GET /api/v2/auth/tokens session tokens.manage',
  'DELETE /api/v2/auth/tokens/:tokenId session tokens.manage',
  'GET /api/v2/auth/sso/:orgId/callback public auth.login',
  'GET /api/v2/auth/sso/:orgId/start public auth.login',
  'POST /api/v2/auth/sso/:orgId/recovery public auth.login',
  'GET /api/v2/organizations/creation-preview session organization.read',
  'POST /api/v2/organizations session organization.manage',
  'GET /api/v2/organizations session organization.read',
  'GET /api/v2/organizations/:orgId session organization.read organization.read (owner, administrator, analyst, external_client)',
  'PATCH /api/v2/organizations/:orgId session organization.manage organization.settings (owner)',
  'POST /api/v2/organizations/:orgId/verification session organization.manage billing.manage (owner)',
  'PUT /api/v2/organizations/:orgId/billing session organization.manage billing.manage (owner)',
  'GET /api/v2/organizations/:orgId/credits session organization.read organization.read (owner, administrator, analyst, external_client)',
  'POST /api/v2/organizations/:orgId/switch session organization.manage organization.read (owner, administrator, analyst, external_client)',
  'GET /api/v2/organizations/:orgId/context session organization.read organization.read (owner, administrator, analyst, external_client)',
  'PUT /api/v2/organizations/:orgId/context session organization.manage organization.read (owner, administrator, analyst, external_client)',
  'GET /api/v2/organizations/:orgId/members session organization.read members.read (owner, administrator, analyst)',
  'GET /api/v2/organizations/:orgId/audit session organization.read organization.audit.read (owner, administrator)',
  'POST /api/v2/organizations/:orgId/invitations session organization.manage members.manage (owner, administrator)',
  'POST /api/v2/organizations/:orgId/invitations/:invitationId/accept session organization.manage',
  'PATCH /api/v2/organizations/:orgId/members/:accountId session organization.manage members.manage (owner, administrator)',
  'DELETE /api/v2/organizations/:orgId/members/:accountId session organization.manage members.manage (owner, administrator)',
  'PUT /api/v2/organizations/:orgId/members/:accountId/spaces/:spaceId session organization.manage members.manage (owner, administrator)',
  'DELETE /api/v2/organizations/:orgId/members/:accountId/spaces/:spaceId session organization.manage members.manage (owner, administrator)',
  'POST /api/v2/organizations/:orgId/ownership-transfer session organization.manage ownership.transfer (owner)',
  'POST /api/v2/organizations/:orgId/ownership-transfer/accept session organization.manage organization.read (owner, administrator, analyst, external_client)',
  'POST /api/v2/organizations/:orgId/ownership-transfer/decline session organization.manage organization.read (owner, administrator, analyst, external_client)',
  'GET /api/v2/organizations/:orgId/spaces session organization.read organization.read (owner, administrator, analyst, external_client)',
  'POST /api/v2/organizations/:orgId/spaces session organization.manage spaces.manage (owner, administrator)',
  'GET /api/v2/organizations/:orgId/clients/:clientId session organization.read organization.read (owner, administrator, analyst, external_client)',
  'PATCH /api/v2/organizations/:orgId/clients/:clientId session organization.manage spaces.manage (owner, administrator)',
  'PUT /api/v2/organizations/:orgId/clients/:clientId/monitoring session organization.manage spaces.manage (owner, administrator)',
  'POST /api/v2/organizations/:orgId/exposure/scopes session organization.manage exposure.scopes.manage (owner, administrator; exposition only)',
  'GET /api/v2/organizations/:orgId/clients/deleted session organization.read spaces.manage (owner, administrator)',
  'DELETE /api/v2/organizations/:orgId/clients/:clientId session organization.manage spaces.manage (owner, administrator)',
  'POST /api/v2/organizations/:orgId/clients/:clientId/restore session organization.manage spaces.manage (owner, administrator)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/exposure session organization.read exposure.scopes.read (owner, administrator, analyst; exposition only)',
  'PATCH /api/v2/organizations/:orgId/clients/:clientId/exposure/subjects/:subjectId session organization.manage exposure.decisions.record (owner, administrator, analyst; exposition only)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/exposure/history session organization.read exposure.scopes.read (owner, administrator, analyst; exposition only)',
  'PUT /api/v2/organizations/:orgId/clients/:clientId/exposure/timezone session organization.manage exposure.scopes.manage (owner, administrator; exposition only)',
  'POST /api/v2/organizations/:orgId/clients/:clientId/exposure/assets/:assetKey/enrich session organization.manage exposure.decisions.record (owner, administrator, analyst; exposition only)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/exposure/controls session organization.read exposure.scopes.read (owner, administrator, analyst; exposition only)',
  'POST /api/v2/organizations/:orgId/clients/:clientId/exposure/run session organization.manage exposure.refresh.run (owner, administrator, analyst; exposition only)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/exposure/reports session organization.read exposure.scopes.read (owner, administrator, analyst; exposition only)',
  'POST /api/v2/organizations/:orgId/clients/:clientId/exposure/reports session organization.manage exposure.reports.create (owner, administrator, analyst; exposition only)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/exposure/reports/:reportId session organization.read exposure.scopes.read (owner, administrator, analyst; exposition only)',
  'PUT /api/v2/organizations/:orgId/clients/:clientId/exposure/monitoring session organization.manage exposure.scopes.manage (owner, administrator; exposition only)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/exposure/notifications session organization.read exposure.scopes.manage (owner, administrator; exposition only)',
  'PUT /api/v2/organizations/:orgId/clients/:clientId/exposure/notifications session organization.manage exposure.scopes.manage (owner, administrator; exposition only)',
  'POST /api/v2/organizations/:orgId/clients/:clientId/shares session organization.manage spaces.manage (owner, administrator)',
  'DELETE /api/v2/organizations/:orgId/clients/:clientId/shares/:shareId session organization.manage spaces.manage (owner, administrator)',
  'GET /api/v2/organizations/:orgId/clients/:clientId/published session organization.read organization.read (owner, administrator, analyst, external_client)',
  'GET /api/v2/organizations/:orgId/cases session organization.read organization.read (owner, administrator, analyst, external_client)',
  'POST /api/v2/organizations/:orgId/cases session organization.manage work.internal (owner, administrator, analyst)',
  'GET /api/v2/organizations/:orgId/cases/:caseId session organization.read organization.read (owner, administrator, analyst, external_client)',
  'POST /api/v2/organizations/:orgId/cases/:caseId/archive session organization.manage work.internal (owner, administrator, analyst)',
  'POST /api/v2/organizations/:orgId/evidence session organization.manage organization.read (owner, administrator, analyst, external_client)',
  'GET /api/v2/organizations/:orgId/evidence/:evidenceId session organization.read organization.read (owner, administrator, analyst, external_client)',
  'GET /api/v2/organizations/:orgId/review-queue session organization.read work.internal (owner, administrator, analyst)',
  'POST /api/v2/organizations/:orgId/review-queue session organization.manage work.internal (owner, administrator, analyst)',
  'PATCH /api/v2/organizations/:orgId/review-queue/:itemId session organization.manage work.internal (owner, administrator, analyst)',
  'POST /api/v2/organizations/:orgId/comparisons session organization.manage work.internal (owner, administrator, analyst)',
  'GET /api/v2/organizations/:orgId/comparisons/:comparisonId session organization.read organization.read (owner, administrator, analyst, external_client)',
  'POST /api/v2/organizations/:orgId/comparisons/:comparisonId/publish session organization.manage work.internal (owner, administrator, analyst)',
  'GET /api/v2/organizations/:orgId/sso session organization.manage sso.manage (owner)',
  'PUT /api/v2/organizations/:orgId/sso session organization.manage sso.manage (owner)',
  'POST /api/v2/organizations/:orgId/sso/recovery-code session organization.manage sso.manage (owner)',
  'POST /api/v2/organizations/:orgId/sso/recovery-code/test session organization.manage sso.manage (owner)',
  'POST /api/v2/organizations/:orgId/sso/recovery-code/saved session organization.manage sso.manage (owner)',
  'PUT /api/v2/organizations/:orgId/sso/enforcement session organization.manage sso.manage (owner)',
  'GET /api/v2/common/caller-ip public caller.ip',
  'GET /api/v2/common/credits personal_api credits.read',
  'GET /api/v2/common/data/search/fields personal_api data.search personalData',
  'POST /api/v2/common/data/:dataset personal_api data.search personalData',
  'POST /api/v2/common/data/search personal_api data.search personalData',
  'POST /api/v2/common/data/search/more personal_api data.search personalData',
  'POST /api/v2/common/data/search/more/quote personal_api data.search personalData',
  'POST /api/v2/common/data/enrich/vulnerabilities personal_api data.enrich personalData',
  'POST /api/v2/common/data/enrich/badges personal_api data.enrich personalData',
  'DELETE /api/v2/common/exports personal_api data.export paidResult',
  'DELETE /api/v2/common/exports/:exportId personal_api data.export paidResult',
  'GET /api/v2/common/exports personal_api data.export paidResult',
  'GET /api/v2/common/exports/:exportId/download personal_api data.export paidResult',
  'GET /api/v2/common/exports/:exportId/poll personal_api data.export paidResult',
  'POST /api/v2/common/exports/:searchType personal_api data.export personalData',
  'POST /api/v2/common/exports/:searchType/estimate personal_api data.export personalData',
  'GET /api/v2/data/search/fields session data.search',
  'POST /api/v2/data/:dataset session data.search',
  'POST /api/v2/data/search session data.search',
  'POST /api/v2/data/search/more session data.search',
  'POST /api/v2/data/search/more/quote session data.search',
  'POST /api/v2/data/enrich/vulnerabilities session data.enrich',
  'POST /api/v2/data/enrich/badges session data.enrich',
  'DELETE /api/v2/data/exports session data.export',
  'DELETE /api/v2/data/exports/:exportId session data.export',
  'GET /api/v2/data/exports session data.export',
  'GET /api/v2/data/exports/:exportId/download session data.export',
  'GET /api/v2/data/exports/:exportId/poll session data.export',
  'POST /api/v2/data/exports/:searchType session data.export',
  'POST /api/v2/data/exports/:searchType/estimate session data.export',
  'GET /.well-known/event-log-key public service.health',
  'GET /health/live public service.health',
  'GET /health/ready public service.health',
  'GET /api/v2/operator/projections operator operator.read',
  'POST /api/v2/auth/keys session keys.manage',
  'POST /api/v2/auth/login public auth.login',
  'POST /api/v2/auth/logout session auth.logout',
  'POST /api/v2/auth/tokens session tokens.create',
];

/** Contract, Surfaces: which prefixes carry which credential. */
const PERSONAL_API_PREFIX = /^\/api\/v2\/common(\/|$)/;
const SESSION_PREFIX = /^\/api\/v2\/(auth|organizations|data)(\/|$)/;

/** Routes fastify serves that are not Nest controllers (so the guard never sees them): documentation only. */
function isDocumentationRoute(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return (
    path === '/api/v2/openapi.json' ||
    path === '/api/v2/openapi.yaml' ||
    path === '/api/v2/docs' ||
    path.startsWith('/api/v2/docs/')
  );
}

/**
 * The (method, path) pairs fastify serves, from its printRoutes tree (fastify keeps no public route list).
 * Each line is `<indent><branch><segment> (<METHODS>)`, the indent four characters per level; a node's path is
 * its ancestors' segments followed by its own.
 */
function fastifyRoutes(app: INestApplication): Array<{ method: string; path: string }> {
  const fastify = app.getHttpAdapter().getInstance() as { printRoutes(options: object): string };
  const tree = fastify.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const found: Array<{ method: string; path: string }> = [];
  for (const line of tree.split('\n')) {
    if (line.trim().length === 0) continue;
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) throw new Error(`unexpected printRoutes line: ${JSON.stringify(line)}`);
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('').replace(/\/{2,}/g, '/');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method) found.push({ method, path });
    }
  }
  return found;
}

/** A controller someone forgot to declare: no @Access on the class or the handlers. */
let undeclaredCalls = 0;
@Controller('test-only/undeclared')
class UndeclaredController {
  @Get()
  read(): { reached: true } {
    undeclaredCalls += 1;
    return { reached: true };
  }

  @Post()
  write(): { reached: true } {
    undeclaredCalls += 1;
    return { reached: true };
  }
}

@Module({ controllers: [UndeclaredController] })
class UndeclaredModule {}

describe('route inventory', () => {
  let service: TestService;
  let routes: DiscoveredRoute[];

  beforeAll(async () => {
    // DiscoveryModule only provides DiscoveryService and MetadataScanner: it adds no route.
    service = await startTestService('pglite', { modules: [DiscoveryModule] });
    routes = discoverRoutes(service.app);
  });

  afterAll(async () => {
    await service?.dispose();
  });

  it('finds the controllers’ routes (the discovery itself works)', () => {
    expect(routes.length).toBeGreaterThanOrEqual(EXPECTED_ROUTES.length);
    expect(routes.map((route) => `${route.method} ${route.path}`)).toContain('POST /api/v2/auth/login');
  });

  it('every route declares an access rule: a surface and a known permission', () => {
    const undeclared = routes
      .filter((route) => !route.rule?.surface || !route.rule.permission)
      .map((route) => `${route.method} ${route.path} (${route.source})`);
    expect(undeclared).toEqual([]);
    const unknownPermission = routes
      .filter((route) => route.rule && !(PERMISSIONS as readonly string[]).includes(route.rule.permission))
      .map((route) => `${route.method} ${route.path}: ${route.rule?.permission}`);
    expect(unknownPermission).toEqual([]);
    const unknownSurface = routes
      .filter(
        (route) =>
          route.rule &&
          !['public', 'personal_api', 'session', 'mcp', 'operator'].includes(route.rule.surface),
      )
      .map((route) => `${route.method} ${route.path}: ${route.rule?.surface}`);
    expect(unknownSurface).toEqual([]);
  });

  it('the access table is exactly the reviewed one', () => {
    const table = routes.map(tableLine).sort();
    expect(new Set(table).size).toBe(table.length); // no route registered twice
    expect(table).toEqual([...EXPECTED_ROUTES].sort());
  });

  it('organization routes name the capability they need: the organization access layer checks it first', () => {
    const unknown = routes
      .filter(
        (route) =>
          route.rule?.capability && !(CAPABILITIES as readonly string[]).includes(route.rule.capability),
      )
      .map(tableLine);
    expect(unknown).toEqual([]);
    // The one reviewed exception: accepting an invitation (the caller is not a member yet, so no role applies;
    // the invitation's own email check is the route's rule).
    const withoutCapability = routes
      .filter((route) => route.path.startsWith('/api/v2/organizations/:orgId') && !route.rule?.capability)
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    expect(withoutCapability).toEqual(['POST /api/v2/organizations/:orgId/invitations/:invitationId/accept']);
  });

  it('surfaces sit under the contract’s prefixes', () => {
    const misplaced = routes
      .filter((route) => {
        switch (route.rule?.surface) {
          case 'personal_api':
            return !PERSONAL_API_PREFIX.test(route.path);
          case 'session':
            return !SESSION_PREFIX.test(route.path);
          case 'mcp':
            return route.path !== '/mcp';
          default:
            return false;
        }
      })
      .map(tableLine);
    expect(misplaced).toEqual([]);
    // Nothing under a credentialed prefix is silently public except the reviewed exceptions.
    const publicUnderCredentialedPrefix = routes
      .filter(
        (route) =>
          route.rule?.surface === 'public' &&
          (PERSONAL_API_PREFIX.test(route.path) || SESSION_PREFIX.test(route.path)),
      )
      .map((route) => `${route.method} ${route.path}`)
      .sort();
    expect(publicUnderCredentialedPrefix).toEqual([
      'GET /api/v2/auth/sso/:orgId/callback', // rule 12: the provider sends the browser back here
      'GET /api/v2/auth/sso/:orgId/start', // rule 12: staff single sign-on starts a session
      'GET /api/v2/common/caller-ip', // contract, Authentication 9
      'POST /api/v2/auth/login', // signing in is how a session starts
      'POST /api/v2/auth/sso/:orgId/recovery', // rule 12: the owner's break-glass sign-in
    ]);
  });

  it('every route fastify serves is a guarded Nest route or a documentation route', () => {
    // fastify's tree keeps one parameter node per position, and printRoutes names it after every parameter that
    // shares it (`:exportId|:searchType`): paths are compared with parameters unnamed.
    const unnamed = (path: string) => path.replace(/:[A-Za-z0-9_]+(\|:[A-Za-z0-9_]+)*/g, ':param');
    const served = fastifyRoutes(service.app).map((entry) => ({ ...entry, path: unnamed(entry.path) }));
    const nest = new Set(routes.map((route) => `${route.method} ${unnamed(route.path)}`));
    // The parse must see the Nest routes, or an unreadable tree would pass vacuously.
    for (const route of nest) {
      expect(served.map((entry) => `${entry.method} ${entry.path}`)).toContain(route);
    }
    const unguarded = served
      .filter((entry) => !nest.has(`${entry.method} ${entry.path}`))
      // fastify answers HEAD for every GET route with the GET handler (and the GET's guard).
      .filter((entry) => !(entry.method === 'HEAD' && nest.has(`GET ${entry.path}`)))
      .filter((entry) => !isDocumentationRoute(entry.method, entry.path))
      .map((entry) => `${entry.method} ${entry.path}`);
    expect(unguarded).toEqual([]);
  });

  describe('a route without an access rule', () => {
    let withUndeclared: TestService;

    beforeAll(async () => {
      withUndeclared = await startTestService('pglite', { modules: [DiscoveryModule, UndeclaredModule] });
    });

    afterAll(async () => {
      await withUndeclared?.dispose();
    });

    it('is listed by the inventory check', () => {
      const undeclared = discoverRoutes(withUndeclared.app)
        .filter((route) => !route.rule)
        .map((route) => `${route.method} ${route.path} (${route.source})`)
        .sort();
      expect(undeclared).toEqual([
        'GET /test-only/undeclared (UndeclaredController.read)',
        'POST /test-only/undeclared (UndeclaredController.write)',
      ]);
    });

    it('is refused at runtime with 403 forbidden, before its handler runs', async () => {
      for (const method of ['GET', 'POST'] as const) {
        const response = await withUndeclared.app.inject({
          method,
          url: '/test-only/undeclared',
          ...(method === 'POST' ? { payload: {} } : {}),
        });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toMatchObject({ code: 'forbidden' });
      }
      // Whatever the caller brings: a (bogus) key or bearer token does not open it either.
      const withKey = await withUndeclared.app.inject({
        method: 'GET',
        url: '/test-only/undeclared',
        headers: { 'x-api-key': 'exr_aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb' },
      });
      expect(withKey.statusCode).toBe(403);
      expect(withKey.json()).toMatchObject({ code: 'forbidden' });
      expect(undeclaredCalls).toBe(0);
    });
  });
});
