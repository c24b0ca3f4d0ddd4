/**
 * The service the fuzzer talks to: the real service in-process on real storage (PGlite or a fresh database on
 * the PostgreSQL server), listening on a loopback port, with real fixtures so path parameters and id fields
 * sometimes name things that exist: a personal account (Professional, with purchased credits and API keys),
 * two of its exports, and an organization with members in every role, a client, a case, evidence, a review
 * item, a published comparison, a share, an invitation and an exposure scope with a subject and a report.
 */
import { randomBytes } from 'node:crypto';
import { CommandBus } from '@nestjs/cqrs';
import {
  CreateAccessToken,
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
} from '../../../src/accounts/commands/account.commands.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../../src/platform/auth/cookies.js';
import { csrfTokenFor } from '../../../src/platform/auth/csrf.js';
import { ServiceSecrets } from '../../../src/platform/auth/secrets.js';
import { SessionStore } from '../../../src/platform/auth/sessions.js';
import { DATASETS } from '../../../src/search/domain/datasets.js';
import { writeGenerated } from '../../../src/search/data/demo-corpus.js';
import { VulnerabilityRefs } from '../../../src/search/vulnerability-ref.js';
import type { TestDatabaseKind } from '../databases.js';
import { TestDnsServer } from '../dns-server.js';
import { buildOrganizationWorld, type OrganizationWorld } from '../organization-routes.js';
import { OrganizationHarness, operator } from '../organizations.js';
import { startTestService, type TestService } from '../service.js';
import { waitUntil } from '../storage.js';
import { FuzzHttpClient, type RawResponse } from './http-client.js';
import type { OpenApiDocument } from './openapi.js';
import type { ActorRole, FuzzRequest } from './requests.js';
import type { ValuePools } from './schema-values.js';

const PASSWORD = 'fuzz-password-0123456789';
/** Purchased credits of the personal account: enough for every accepted search and export of a long run. */
const PURCHASED_CREDITS = 1_000_000;

interface WorldActor {
  readonly accountId: string;
  readonly email: string;
  readonly apiKey: string;
  /** The organization a session of this actor is restricted to (members), or null (personal context). */
  readonly organizationId: string | null;
}

export class FuzzWorld {
  private readonly client: FuzzHttpClient;

  private constructor(
    readonly kind: TestDatabaseKind,
    readonly service: TestService,
    private readonly dns: TestDnsServer,
    readonly actors: Readonly<Record<ActorRole, WorldActor>>,
    readonly organization: OrganizationWorld,
    readonly pools: ValuePools,
    private readonly port: number,
  ) {
    this.client = new FuzzHttpClient('127.0.0.1', port);
  }

  static async start(kind: TestDatabaseKind): Promise<FuzzWorld> {
    const dns = await TestDnsServer.start();
    const service = await startTestService(kind, {
      env: { DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '2000' },
    });
    try {
      await waitUntil(() => service.context.projections.allLive());
      const now = new Date();
      for (const dataset of DATASETS) {
        await writeGenerated(service.context.observations, dataset, { count: 40, seed: 'openapi-fuzz', now });
      }
      const harness = new OrganizationHarness(service, dns);
      const organization = await buildOrganizationWorld(harness);
      const bus = service.app.get(CommandBus);
      const key = async (accountId: string) =>
        (await bus.execute(new IssueApiKey(accountId, 'fuzz', operator()))) as { keyId: string; key: string };

      const email = `fuzz-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}@example.com`;
      const { accountId } = (await bus.execute(
        new RegisterAccount(email, 'professional', PASSWORD, operator()),
      )) as {
        accountId: string;
      };
      await bus.execute(new PurchaseCredits(accountId, PURCHASED_CREDITS, operator()));
      const personalKey = await key(accountId);
      // A second key of the personal account: the only key id the fuzzer knows, so a DELETE it sends with a real
      // id never revokes the key it authenticates with.
      const spareKey = await key(accountId);
      // An access token of the personal account whose issuance is recorded: a real id for DELETE /auth/tokens.
      const spareToken = (await bus.execute(
        new CreateAccessToken(accountId, ['service.read'], 'api', 86_400, operator()),
      )) as { tokenId: string };

      const member = async (role: Exclude<ActorRole, 'personal'>) => {
        const actor = {
          owner: organization.owner,
          administrator: organization.administrator,
          analyst: organization.analyst,
          external_client: organization.external,
        }[role];
        return {
          accountId: actor.accountId,
          email: actor.email,
          apiKey: (await key(actor.accountId)).key,
          organizationId: organization.organizationId,
        };
      };
      const actors: Record<ActorRole, WorldActor> = {
        personal: { accountId, email, apiKey: personalKey.key, organizationId: null },
        owner: await member('owner'),
        administrator: await member('administrator'),
        analyst: await member('analyst'),
        external_client: await member('external_client'),
      };

      await service.app.listen(0, '127.0.0.1');
      const address = service.app.getHttpServer().address();
      if (typeof address !== 'object' || address === null) throw new Error('the service is not listening');

      const exports = await personalExports(address.port, personalKey.key);
      const reference = service.app.get(VulnerabilityRefs).seal(
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
      const pools = fixturePools(organization, actors, {
        spareKeyId: spareKey.keyId,
        spareTokenId: spareToken.tokenId,
        exports,
        reference,
      });
      return new FuzzWorld(kind, service, dns, actors, organization, pools, address.port);
    } catch (error) {
      await service.dispose().catch(() => undefined);
      await dns.close().catch(() => undefined);
      throw error;
    }
  }

  /** The OpenAPI document, as a client gets it. */
  async document(): Promise<OpenApiDocument> {
    const response = await this.client.send(
      { method: 'GET', target: '/api/v2/openapi.json', headers: {}, body: undefined },
      10_000,
    );
    if (response.kind !== 'answered' || response.status !== 200) {
      throw new Error(`GET /api/v2/openapi.json failed: ${JSON.stringify(response)}`);
    }
    return JSON.parse(response.body.toString('utf8')) as OpenApiDocument;
  }

  /** Sends a generated request with the credential it asks for and a request id of its own. */
  async send(request: FuzzRequest, requestId: string, deadlineMs: number): Promise<RawResponse> {
    const headers: Record<string, string> = {
      ...request.headers,
      'x-request-id': requestId,
      ...(await this.credentialHeaders(request)),
    };
    if (request.contentType !== undefined) headers['content-type'] = request.contentType;
    return this.client.send(
      { method: request.method, target: request.path + request.query, headers, body: request.body },
      deadlineMs,
    );
  }

  /** Payers whose credits a request of this actor could move. */
  payersOf(request: FuzzRequest): string[] {
    const actor = this.actors[request.actor];
    return [
      `account:${actor.accountId}`,
      ...(actor.organizationId ? [`organization:${actor.organizationId}`] : []),
    ];
  }

  private async credentialHeaders(request: FuzzRequest): Promise<Record<string, string>> {
    const actor = this.actors[request.actor];
    const { kind, malformed } = request.credential;
    switch (kind) {
      case 'none':
        return {};
      case 'api_key':
        return { 'x-api-key': malformed ? `exr_${randomBytes(24).toString('base64url')}` : actor.apiKey };
      case 'bearer':
        return {
          authorization: `Bearer ${malformed ? `exr_${randomBytes(24).toString('base64url')}` : actor.apiKey}`,
        };
      case 'session': {
        // A fresh session per request: routes that end or replace the session they get (logout, login, single
        // sign-on) then never take the fuzzer's credentials away.
        const sessionId = malformed
          ? randomBytes(32).toString('base64url')
          : (
              await this.service.app
                .get(SessionStore)
                .create(actor.accountId, { organizationId: actor.organizationId })
            ).sessionId;
        const csrf = csrfTokenFor(sessionId, this.service.app.get(ServiceSecrets).csrfSecret);
        return { cookie: `${SESSION_COOKIE}=${sessionId}; ${CSRF_COOKIE}=${csrf}`, 'x-csrf-token': csrf };
      }
    }
  }

  async dispose(): Promise<void> {
    this.client.close();
    await this.service.dispose();
    await this.dns.close();
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }
}

/** Two exports of the personal account, requested over HTTP like a client does. */
async function personalExports(port: number, apiKey: string): Promise<string[]> {
  const client = new FuzzHttpClient('127.0.0.1', port);
  try {
    const ids: string[] = [];
    for (const [searchType, body] of [
      ['hosts', { raw_query: 'port:443', format: 'csv' }],
      ['dns', { raw_query: 'type:a', format: 'txt' }],
    ] as const) {
      const response = await client.send(
        {
          method: 'POST',
          target: `/api/v2/common/exports/${searchType}`,
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(body)),
        },
        10_000,
      );
      if (response.kind !== 'answered' || response.status !== 202) {
        throw new Error(`fixture export failed: ${JSON.stringify(response)}`);
      }
      ids.push((JSON.parse(response.body.toString('utf8')) as { export_id: string }).export_id);
    }
    return ids;
  } finally {
    client.close();
  }
}

/**
 * Real values by parameter or field name (compared without case and underscores: `space_id` = `spaceId`).
 * A name absent here gets only values generated from its schema.
 */
function fixturePools(
  w: OrganizationWorld,
  actors: Readonly<Record<ActorRole, WorldActor>>,
  extra: { spareKeyId: string; spareTokenId: string; exports: readonly string[]; reference: string },
): ValuePools {
  const datasets = [...DATASETS];
  const members = [w.target, w.analyst, w.external, w.administrator].map((actor) => actor.accountId);
  const table: Record<string, readonly unknown[]> = {
    orgid: [w.organizationId],
    organizationid: [w.organizationId],
    clientid: [w.clientId, w.exposureScopeId, w.generalSpaceId],
    spaceid: [w.clientId, w.exposureScopeId, w.generalSpaceId],
    caseid: [w.caseId],
    searchid: [w.searchId],
    evidenceid: [w.evidenceId],
    itemid: [w.reviewItemId],
    comparisonid: [w.comparisonId],
    shareid: [w.shareId],
    invitationid: [w.invitationId],
    accountid: [...members, actors.personal.accountId],
    recipient: members,
    assignee: members,
    reportid: [w.reportId],
    subjectid: [w.exposureSubjectId],
    assetkey: [w.exposureSubjectId],
    keyid: [extra.spareKeyId],
    tokenid: [extra.spareTokenId],
    exportid: extra.exports,
    dataset: datasets,
    searchtype: datasets,
    rawquery: ['nginx', 'port:443', 'product:nginx port:443', 'example.com', '192.0.2.10', 'type:a'],
    reference: [extra.reference],
    cpe: ['cpe:2.3:a:f5:nginx:1.18.0:*:*:*:*:*:*:*'],
    timezone: ['UTC', 'Europe/Paris', 'America/New_York'],
    version: [0, 1, 2, 3],
    ifmatch: ['"0"', '"1"', '"2"', '"3"'],
    email: ['fuzz-invitee@example.com', actors.personal.email, w.target.email],
    id: [w.record.id],
  };
  return {
    valuesFor: (name: string) => table[name.replace(/[^A-Za-z0-9]/g, '').toLowerCase()],
  };
}
