/**
 * A populated organization and a valid request for every organization route, shared by the authentication
 * matrix, the role × route matrix and the object-level authorization test. Requests that consume something
 * (a member removed, a share revoked, a case archived) build a fresh one per call.
 */
import { CommandBus } from '@nestjs/cqrs';
import { EnableExposition } from '../../src/exposure/commands/scope-lifecycle.commands.js';
import type { Role } from '../../src/organizations/domain/roles.js';
import type { Actor, OrganizationHarness } from './organizations.js';
import { operator } from './organizations.js';

export interface OrganizationWorld {
  readonly organizationId: string;
  readonly owner: Actor;
  readonly administrator: Actor;
  readonly analyst: Actor;
  readonly external: Actor;
  /** A staff member routes act on (role change target, ownership offers), never an acting role. */
  readonly target: Actor;
  readonly generalSpaceId: string;
  /** The client every role is assigned to. */
  readonly clientId: string;
  readonly caseId: string;
  readonly searchId: string;
  readonly record: { dataset: string; id: string };
  /** Client-visible evidence in the case. */
  readonly evidenceId: string;
  readonly reviewItemId: string;
  /** A published comparison of client-visible evidence. */
  readonly comparisonId: string;
  readonly shareId: string;
  readonly invitationId: string;
  /** An exposure scope (the organization has the Exposition product); analyst and external client assigned. */
  readonly exposureScopeId: string;
  /** A frozen report of that scope. */
  readonly reportId: string;
  /** A service subject of that scope's inventory (its initial refresh found one stored observation). */
  readonly exposureSubjectId: string;
}

export async function buildOrganizationWorld(
  h: OrganizationHarness,
  owner?: Actor,
): Promise<OrganizationWorld> {
  const { owner: o, organizationId, generalSpaceId } = await h.trialOrganization(owner);
  const clientId = await h.space(organizationId, o);
  const administrator = await h.member(organizationId, o, 'administrator');
  const analyst = await h.member(organizationId, o, 'analyst', { spaces: [clientId] });
  const external = await h.member(organizationId, o, 'external_client', { spaces: [clientId] });
  const target = await h.member(organizationId, o, 'analyst', { spaces: [clientId] });
  const caseId = (
    await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/cases`, {
      space_id: clientId,
      title: 'World',
    })
  ).id as string;
  for (const actor of [o, administrator, analyst, external]) {
    await h.switchTo(actor, organizationId);
    await h.ok(actor, 'PUT', `/api/v2/organizations/${organizationId}/context`, {
      space_id: clientId,
      case_id: caseId,
    });
  }
  const search = await h.search(o, 'nginx');
  const outcome = JSON.parse(search.body) as {
    search_id: string;
    results: Record<string, Array<{ dataset: string; id: string }>>;
  };
  const first = Object.values(outcome.results).flat()[0];
  if (!first) throw new Error('the world search returned no records');
  const record = { dataset: first.dataset, id: first.id };
  const evidence = await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/evidence`, {
    search_id: outcome.search_id,
    records: [record],
    note: 'world evidence',
    visibility: 'client',
  });
  const reviewItem = await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/review-queue`, {
    search_id: outcome.search_id,
    record,
  });
  const comparison = await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/comparisons`, {
    space_id: clientId,
    title: 'World comparison',
    evidence_ids: [evidence.id],
  });
  await h.ok(
    o,
    'POST',
    `/api/v2/organizations/${organizationId}/comparisons/${comparison.id as string}/publish`,
  );
  const share = await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/clients/${clientId}/shares`);
  const invitation = await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/invitations`, {
    email: `pending-${Date.now()}@example.com`,
    role: 'analyst',
  });
  await h.service.app.get(CommandBus).execute(new EnableExposition(organizationId, 'capacity', operator()));
  // One stored observation in the scope, so its inventory has a subject to decide on and enrich.
  await h.service.context.observations.write('hosts', [WORLD_SCOPE_HOST]);
  const scope = await h.ok(o, 'POST', `/api/v2/organizations/${organizationId}/exposure/scopes`, {
    name: 'World scope',
    domain: 'world-scope.example',
    timezone: 'UTC',
    monitoring: false,
  });
  const exposureScopeId = scope.id as string;
  for (const member of [analyst, external]) {
    await h.ok(
      o,
      'PUT',
      `/api/v2/organizations/${organizationId}/members/${member.accountId}/spaces/${exposureScopeId}`,
    );
  }
  const exposureSubjectId = await firstSubject(h, o, organizationId, exposureScopeId);
  const report = await h.ok(
    o,
    'POST',
    `/api/v2/organizations/${organizationId}/clients/${exposureScopeId}/exposure/reports`,
  );
  return {
    exposureScopeId,
    exposureSubjectId,
    reportId: report.id as string,
    organizationId,
    owner: o,
    administrator,
    analyst,
    external,
    target,
    generalSpaceId,
    clientId,
    caseId,
    searchId: outcome.search_id,
    record,
    evidenceId: evidence.id as string,
    reviewItemId: reviewItem.id as string,
    comparisonId: comparison.id as string,
    shareId: share.id as string,
    invitationId: invitation.id as string,
  };
}

const WORLD_SCOPE_HOST = {
  id: '192.0.2.200:443/tcp',
  ip: '192.0.2.200',
  port: 443,
  transport: 'tcp',
  hostnames: ['www.world-scope.example'],
  product: 'http_server',
  vendor: 'apache',
  version: '2.4.49',
  cpe: ['cpe:2.3:a:apache:http_server:2.4.49:*:*:*:*:*:*:*'],
  first_seen: '2026-01-01T00:00:00.000Z',
  last_seen: '2026-02-01T00:00:00.000Z',
};

/** Waits for the scope's initial refresh (the service's refresh pool) and answers its first subject. */
async function firstSubject(h: OrganizationHarness, owner: Actor, organizationId: string, scopeId: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const inventory = await h.ok(
      owner,
      'GET',
      `/api/v2/organizations/${organizationId}/clients/${scopeId}/exposure`,
    );
    const subjects = (inventory.subjects ?? []) as Array<{ id: string; kind: string }>;
    const service = subjects.find((subject) => subject.kind === 'service');
    if (service) return service.id;
    if (Date.now() > deadline) throw new Error('the world scope has no subject after its initial refresh');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface OrganizationRouteRequest {
  /** The status of an accepted request. */
  readonly status: number;
  /** Roles of the organization for which the request succeeds; the others get `deniedStatus`. */
  readonly roles: readonly Role[];
  /** 403 when the role lacks the capability; 404 when the object is not theirs (e.g. an invitation). */
  readonly deniedStatus?: number;
  readonly params: () => Promise<Record<string, string>>;
  readonly body?: () => Promise<unknown>;
  readonly headers?: () => Promise<Record<string, string>>;
  /** The route acts as one particular account (the invitee, the ownership recipient): its session. */
  readonly sessionFor?: () => Promise<Actor>;
}

const ALL: readonly Role[] = ['owner', 'administrator', 'analyst', 'external_client'];
const MANAGERS: readonly Role[] = ['owner', 'administrator'];
const INTERNAL: readonly Role[] = ['owner', 'administrator', 'analyst'];
const OWNER: readonly Role[] = ['owner'];

/** A valid request per organization route (keys as `METHOD /path` in the registered route table). */
export function organizationRouteRequests(
  h: OrganizationHarness,
  w: OrganizationWorld,
): Readonly<Record<string, OrganizationRouteRequest>> {
  const org = async () => ({ orgId: w.organizationId });
  const base = '/api/v2/organizations';
  const freshMember = async () => (await h.member(w.organizationId, w.owner, 'analyst')).accountId;
  const freshSpace = async () => h.space(w.organizationId, w.owner);
  const namedSpace = async (name: string) => h.space(w.organizationId, w.owner, { name });
  /** An exposure scope the analyst (and the external client) reach. */
  const freshScope = async () => {
    const scope = await h.ok(w.owner, 'POST', `${base}/${w.organizationId}/exposure/scopes`, {
      name: 'Matrix run scope',
      domain: 'matrix-scope.example',
      timezone: 'UTC',
      monitoring: false,
    });
    for (const member of [w.analyst, w.external]) {
      await h.ok(
        w.owner,
        'PUT',
        `${base}/${w.organizationId}/members/${member.accountId}/spaces/${scope.id as string}`,
      );
    }
    return scope.id as string;
  };
  const P = '/api/v2/organizations/:orgId';
  return {
    [`GET ${base}/creation-preview`]: { status: 200, roles: ALL, params: async () => ({}) },
    [`POST ${base}`]: {
      status: 201,
      roles: ALL,
      params: async () => ({}),
      sessionFor: () => h.account(),
      body: async () => ({
        name: 'Matrix Co',
        accept_account_transition: true,
        expected_transfer: 0,
        start: 'subscription',
      }),
    },
    [`GET ${base}`]: { status: 200, roles: ALL, params: async () => ({}) },
    [`GET ${P}`]: { status: 200, roles: ALL, params: org },
    [`PATCH ${P}`]: {
      // Renaming is an organization setting: owner only.
      status: 200,
      roles: OWNER,
      deniedStatus: 403,
      params: org,
      body: async () => ({ name: 'World Co' }),
    },
    [`POST ${P}/verification`]: { status: 200, roles: OWNER, deniedStatus: 403, params: org },
    [`PUT ${P}/billing`]: {
      status: 200,
      roles: OWNER,
      deniedStatus: 403,
      params: org,
      body: async () => ({ plan: 'teams' }),
    },
    [`GET ${P}/credits`]: { status: 200, roles: ALL, params: org },
    [`POST ${P}/switch`]: { status: 200, roles: ALL, params: org },
    [`GET ${P}/context`]: { status: 200, roles: ALL, params: org },
    [`PUT ${P}/context`]: {
      status: 200,
      roles: ALL,
      params: org,
      body: async () => ({ space_id: w.clientId, case_id: w.caseId }),
    },
    // The staff list is internal: external clients keep their published view (rule 11).
    [`GET ${P}/members`]: { status: 200, roles: INTERNAL, deniedStatus: 403, params: org },
    // The audit log: owners and administrators; analysts and external clients never.
    [`GET ${P}/audit`]: { status: 200, roles: MANAGERS, deniedStatus: 403, params: org },
    [`POST ${P}/invitations`]: {
      status: 201,
      roles: MANAGERS,
      deniedStatus: 403,
      params: org,
      body: async () => ({ email: `invitee-${crypto.randomUUID()}@example.com`, role: 'analyst' }),
    },
    [`POST ${P}/invitations/:invitationId/accept`]: {
      // Only the invitee accepts: for anybody else the invitation does not exist.
      status: 200,
      roles: [],
      deniedStatus: 404,
      params: async () => ({ orgId: w.organizationId, invitationId: w.invitationId }),
    },
    [`PATCH ${P}/members/:accountId`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, accountId: w.target.accountId }),
      body: async () => ({ role: 'analyst' }),
    },
    [`DELETE ${P}/members/:accountId`]: {
      status: 204,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, accountId: await freshMember() }),
    },
    [`PUT ${P}/members/:accountId/spaces/:spaceId`]: {
      status: 204,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, accountId: w.target.accountId, spaceId: w.clientId }),
    },
    [`DELETE ${P}/members/:accountId/spaces/:spaceId`]: {
      status: 204,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, accountId: await freshMember(), spaceId: w.clientId }),
    },
    [`POST ${P}/ownership-transfer`]: {
      status: 202,
      roles: OWNER,
      deniedStatus: 403,
      params: org,
      body: async () => ({ account_id: w.target.accountId }),
    },
    [`POST ${P}/ownership-transfer/accept`]: {
      // Only the recipient accepts; the matrix never offers the ownership to an acting role.
      status: 200,
      roles: [],
      deniedStatus: 404,
      params: org,
    },
    [`POST ${P}/ownership-transfer/decline`]: { status: 200, roles: [], deniedStatus: 404, params: org },
    [`GET ${P}/spaces`]: { status: 200, roles: ALL, params: org },
    [`POST ${P}/spaces`]: {
      status: 201,
      roles: MANAGERS,
      deniedStatus: 403,
      params: org,
      body: async () => ({ name: 'Matrix client', credit_limit: 100 }),
    },
    [`GET ${P}/clients/:clientId`]: {
      status: 200,
      roles: ALL,
      params: async () => ({ orgId: w.organizationId, clientId: w.clientId }),
    },
    [`PATCH ${P}/clients/:clientId`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: await freshSpace() }),
      headers: async () => ({ 'if-match': '"0"' }),
      body: async () => ({ name: 'Renamed client' }),
    },
    [`PUT ${P}/clients/:clientId/monitoring`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.clientId }),
      body: async () => ({ enabled: false }),
    },
    // Exposure scopes: lifecycle, inventory, decisions, history, settings, enrichment, controls, refresh (issue 8).
    [`POST ${P}/exposure/scopes`]: {
      status: 201,
      roles: MANAGERS,
      deniedStatus: 403,
      params: org,
      body: async () => ({
        name: 'Matrix scope',
        domain: 'matrix-scope.example',
        timezone: 'UTC',
        monitoring: false,
      }),
    },
    [`GET ${P}/clients/deleted`]: { status: 200, roles: MANAGERS, deniedStatus: 403, params: org },
    [`DELETE ${P}/clients/:clientId`]: {
      status: 204,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: await namedSpace('To delete') }),
      headers: async () => ({ 'if-match': '"0"' }),
      body: async () => ({ name: 'To delete' }),
    },
    [`POST ${P}/clients/:clientId/restore`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => {
        const clientId = await namedSpace('To restore');
        await h.ok(
          w.owner,
          'DELETE',
          `${base}/${w.organizationId}/clients/${clientId}`,
          { name: 'To restore' },
          {
            'if-match': '"0"',
          },
        );
        return { orgId: w.organizationId, clientId };
      },
      headers: async () => ({ 'if-match': '"1"' }),
    },
    [`GET ${P}/clients/:clientId/exposure`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
    },
    [`PATCH ${P}/clients/:clientId/exposure/subjects/:subjectId`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({
        orgId: w.organizationId,
        clientId: w.exposureScopeId,
        subjectId: w.exposureSubjectId,
      }),
      body: async () => {
        const inventory = await h.ok(
          w.owner,
          'GET',
          `${base}/${w.organizationId}/clients/${w.exposureScopeId}/exposure`,
        );
        const subject = (inventory.subjects as Array<{ id: string; version: number }>).find(
          (s) => s.id === w.exposureSubjectId,
        )!;
        return { version: subject.version, decision: 'investigating' };
      },
    },
    [`GET ${P}/clients/:clientId/exposure/history`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
    },
    [`PUT ${P}/clients/:clientId/exposure/timezone`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
      body: async () => ({
        timezone: 'UTC',
        version: (await h.ok(w.owner, 'GET', `${base}/${w.organizationId}/clients/${w.exposureScopeId}`))
          .version,
      }),
    },
    [`POST ${P}/clients/:clientId/exposure/assets/:assetKey/enrich`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({
        orgId: w.organizationId,
        clientId: w.exposureScopeId,
        assetKey: w.exposureSubjectId,
      }),
    },
    [`GET ${P}/clients/:clientId/exposure/controls`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
    },
    [`POST ${P}/clients/:clientId/exposure/run`]: {
      // A fresh scope per call: the refresh cadence is one per scope every 15 minutes.
      status: 202,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: await freshScope() }),
      body: async () => ({ key: `matrix-key-${crypto.randomUUID()}` }),
    },
    // Exposure scopes: frozen reports, monitoring and the email preference (issue 8).
    [`GET ${P}/clients/:clientId/exposure/reports`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
    },
    [`POST ${P}/clients/:clientId/exposure/reports`]: {
      status: 201,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
    },
    [`GET ${P}/clients/:clientId/exposure/reports/:reportId`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId, reportId: w.reportId }),
    },
    [`PUT ${P}/clients/:clientId/exposure/monitoring`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
      body: async () => ({ enabled: false }),
    },
    [`GET ${P}/clients/:clientId/exposure/notifications`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
    },
    [`PUT ${P}/clients/:clientId/exposure/notifications`]: {
      status: 200,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.exposureScopeId }),
      body: async () => ({
        enabled: false,
        recipients: [],
        language: 'en',
        version: (
          await h.ok(
            w.owner,
            'GET',
            `/api/v2/organizations/${w.organizationId}/clients/${w.exposureScopeId}/exposure/notifications`,
          )
        ).version,
      }),
    },
    [`POST ${P}/clients/:clientId/shares`]: {
      status: 201,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, clientId: w.clientId }),
    },
    [`DELETE ${P}/clients/:clientId/shares/:shareId`]: {
      status: 204,
      roles: MANAGERS,
      deniedStatus: 403,
      params: async () => {
        const share = await h.ok(w.owner, 'POST', `${base}/${w.organizationId}/clients/${w.clientId}/shares`);
        return { orgId: w.organizationId, clientId: w.clientId, shareId: share.id as string };
      },
    },
    [`GET ${P}/clients/:clientId/published`]: {
      status: 200,
      roles: ALL,
      params: async () => ({ orgId: w.organizationId, clientId: w.clientId }),
    },
    [`GET ${P}/cases`]: { status: 200, roles: ALL, params: org },
    [`POST ${P}/cases`]: {
      status: 201,
      roles: INTERNAL,
      deniedStatus: 403,
      params: org,
      body: async () => ({ space_id: w.clientId, title: 'Matrix case' }),
    },
    [`GET ${P}/cases/:caseId`]: {
      status: 200,
      roles: ALL,
      params: async () => ({ orgId: w.organizationId, caseId: w.caseId }),
    },
    [`POST ${P}/cases/:caseId/archive`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => {
        const opened = await h.ok(w.owner, 'POST', `${base}/${w.organizationId}/cases`, {
          space_id: w.clientId,
          title: 'To archive',
        });
        return { orgId: w.organizationId, caseId: opened.id as string };
      },
    },
    [`POST ${P}/evidence`]: {
      status: 201,
      roles: ALL,
      params: org,
      body: async () => ({ search_id: w.searchId, records: [w.record], note: 'matrix evidence' }),
    },
    [`GET ${P}/evidence/:evidenceId`]: {
      status: 200,
      roles: ALL,
      params: async () => ({ orgId: w.organizationId, evidenceId: w.evidenceId }),
    },
    [`GET ${P}/review-queue`]: { status: 200, roles: INTERNAL, deniedStatus: 403, params: org },
    [`POST ${P}/review-queue`]: {
      status: 201,
      roles: INTERNAL,
      deniedStatus: 403,
      params: org,
      body: async () => ({ search_id: w.searchId, record: w.record }),
    },
    [`PATCH ${P}/review-queue/:itemId`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => ({ orgId: w.organizationId, itemId: w.reviewItemId }),
      body: async () => ({ due_date: '2027-03-01' }),
    },
    [`POST ${P}/comparisons`]: {
      status: 201,
      roles: INTERNAL,
      deniedStatus: 403,
      params: org,
      body: async () => ({ space_id: w.clientId, title: 'Matrix comparison', evidence_ids: [w.evidenceId] }),
    },
    [`GET ${P}/comparisons/:comparisonId`]: {
      status: 200,
      roles: ALL,
      params: async () => ({ orgId: w.organizationId, comparisonId: w.comparisonId }),
    },
    [`POST ${P}/comparisons/:comparisonId/publish`]: {
      status: 200,
      roles: INTERNAL,
      deniedStatus: 403,
      params: async () => {
        const comparison = await h.ok(w.owner, 'POST', `${base}/${w.organizationId}/comparisons`, {
          space_id: w.clientId,
          title: 'To publish',
          evidence_ids: [w.evidenceId],
        });
        return { orgId: w.organizationId, comparisonId: comparison.id as string };
      },
    },
  };
}

/** The OpenID Connect client an organization's single sign-on is configured with (an in-process provider). */
export interface SsoClient {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * The single sign-on settings routes (rule 12; the Roles table gives SSO to the owner alone). Configuring needs a
 * provider that answers discovery, hence apart from `organizationRouteRequests`: the caller brings `sso`.
 * Enforcement is only ever switched off here, so the other routes keep their password sessions.
 */
export function ssoRouteRequests(
  h: OrganizationHarness,
  w: OrganizationWorld,
  sso: SsoClient,
): Readonly<Record<string, OrganizationRouteRequest>> {
  const org = async () => ({ orgId: w.organizationId });
  const P = '/api/v2/organizations/:orgId';
  const issueCode = async () =>
    (await h.ok(w.owner, 'POST', `/api/v2/organizations/${w.organizationId}/sso/recovery-code`))
      .recovery_code as string;
  const ownerOnly = { roles: OWNER, deniedStatus: 403, params: org } as const;
  return {
    [`GET ${P}/sso`]: { status: 200, ...ownerOnly },
    [`PUT ${P}/sso`]: {
      status: 200,
      ...ownerOnly,
      body: async () => ({ issuer: sso.issuer, client_id: sso.clientId, client_secret: sso.clientSecret }),
    },
    [`POST ${P}/sso/recovery-code`]: { status: 201, ...ownerOnly },
    [`POST ${P}/sso/recovery-code/test`]: {
      status: 200,
      ...ownerOnly,
      body: async () => ({ recovery_code: await issueCode() }),
    },
    [`POST ${P}/sso/recovery-code/saved`]: {
      status: 200,
      ...ownerOnly,
      params: async () => {
        await issueCode();
        return org();
      },
    },
    [`PUT ${P}/sso/enforcement`]: { status: 200, ...ownerOnly, body: async () => ({ enforced: false }) },
  };
}

/** Ids of one organization's objects, by the route parameter that names them. */
export function objectIds(w: OrganizationWorld): Readonly<Record<string, string>> {
  return {
    orgId: w.organizationId,
    clientId: w.clientId,
    spaceId: w.clientId,
    caseId: w.caseId,
    evidenceId: w.evidenceId,
    itemId: w.reviewItemId,
    comparisonId: w.comparisonId,
    accountId: w.analyst.accountId,
    shareId: w.shareId,
    invitationId: w.invitationId,
    reportId: w.reportId,
    subjectId: w.exposureSubjectId,
    assetKey: w.exposureSubjectId,
  };
}

export { operator };

/** For the authentication matrix: each organization route's request, with the session that succeeds on it. */
export interface AuthMatrixOrganizationRequest {
  readonly status: number;
  readonly params: () => Promise<Record<string, string>>;
  readonly body?: () => Promise<unknown>;
  readonly headers?: () => Promise<Record<string, string>>;
  readonly session: () => Promise<{ sessionId: string; csrf: string }>;
}

const sessionOf = (actor: Actor): { sessionId: string; csrf: string } => ({
  sessionId: /__Host-ps=([^;]+)/.exec(actor.cookie)![1]!,
  csrf: actor.csrf,
});

export function authMatrixOrganizationRequests(
  h: OrganizationHarness,
  w: OrganizationWorld,
): Readonly<Record<string, AuthMatrixOrganizationRequest>> {
  const requests = organizationRouteRequests(h, w);
  const P = '/api/v2/organizations/:orgId';
  // Routes that act as one particular account: the session and the path are prepared together.
  let stash: Record<string, string> = {};
  const special: Record<string, Pick<AuthMatrixOrganizationRequest, 'session' | 'params'>> = {
    [`POST ${P}/invitations/:invitationId/accept`]: {
      session: async () => {
        const invitee = await h.account();
        const invitation = await h.ok(
          w.owner,
          'POST',
          `/api/v2/organizations/${w.organizationId}/invitations`,
          {
            email: invitee.email,
            role: 'analyst',
          },
        );
        stash = { orgId: w.organizationId, invitationId: invitation.id as string };
        return sessionOf(invitee);
      },
      params: async () => ({ orgId: w.organizationId, invitationId: w.invitationId, ...stash }),
    },
    [`POST ${P}/ownership-transfer/accept`]: {
      session: async () => {
        const other = await h.trialOrganization();
        const recipient = await h.member(other.organizationId, other.owner, 'administrator');
        await h.ok(other.owner, 'POST', `/api/v2/organizations/${other.organizationId}/ownership-transfer`, {
          account_id: recipient.accountId,
        });
        stash = { orgId: other.organizationId };
        return sessionOf(recipient);
      },
      params: async () => ({ orgId: w.organizationId, ...stash }),
    },
    [`POST ${P}/ownership-transfer/decline`]: {
      session: async () => {
        const recipient = await h.member(w.organizationId, w.owner, 'analyst');
        await h.ok(w.owner, 'POST', `/api/v2/organizations/${w.organizationId}/ownership-transfer`, {
          account_id: recipient.accountId,
        });
        return sessionOf(recipient);
      },
      params: async () => ({ orgId: w.organizationId }),
    },
  };
  return Object.fromEntries(
    Object.entries(requests).map(([key, request]) => [
      key,
      {
        status: request.status,
        params: special[key]?.params ?? request.params,
        ...(request.body ? { body: request.body } : {}),
        ...(request.headers ? { headers: request.headers } : {}),
        session:
          special[key]?.session ??
          (request.sessionFor
            ? async () => sessionOf(await request.sessionFor!())
            : async () => sessionOf(w.owner)),
      },
    ]),
  );
}
