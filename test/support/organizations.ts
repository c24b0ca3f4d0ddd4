import { CommandBus } from '@nestjs/cqrs';
import type { LightMyRequestResponse } from 'fastify';
import {
  IssueApiKey,
  PurchaseCredits,
  RegisterAccount,
} from '../../src/accounts/commands/account.commands.js';
import type { PlanId } from '../../src/accounts/domain/plans.js';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/platform/auth/cookies.js';
import { commandEnvelope } from '../../src/platform/event-sourcing/command-metadata.js';
import { OrganizationWorkspace } from '../../src/organizations/commands/organization-workspace.js';
import { csrfTokenFor } from '../../src/platform/auth/csrf.js';
import { ServiceSecrets } from '../../src/platform/auth/secrets.js';
import { SessionStore } from '../../src/platform/auth/sessions.js';
import { randomUUID } from 'node:crypto';
import { eventIdFor } from '../../src/platform/event-store/event-id.js';
import type { ServiceContext } from '../../src/platform/service-context.js';
import type { TestDnsServer } from './dns-server.js';
import type { TestService } from './service.js';

export const PASSWORD = 'organization-password-0123456789';
export const operator = () => commandEnvelope({ actor: 'operator:test', payer: 'system' });

/**
 * The intent a crash during organization creation leaves behind: `OrganizationCreationStarted` and nothing after
 * it, visible to the organizations projection once this returns.
 */
export async function appendInterruptedCreation(
  context: ServiceContext,
  name: string,
): Promise<{ accountId: string; organizationId: string; stream: string }> {
  const accountId = randomUUID();
  const organizationId = randomUUID();
  const stream = `organization-owner-${accountId}`;
  const { position } = await context.storage.eventStore.append(
    stream,
    [
      {
        id: eventIdFor(`crash:${organizationId}@${stream}`, 0),
        type: 'OrganizationCreationStarted',
        schemaVersion: 1,
        data: {
          organizationId,
          transferId: randomUUID(),
          credits: 0,
          name,
          start: 'subscription',
          domain: null,
          verificationToken: 'token',
          generalSpaceId: randomUUID(),
        },
        metadata: operator().metadata,
      },
    ],
    { expectedVersion: 'no_stream' },
  );
  await context.readYourWrites(['organizations'], position);
  return { accountId, organizationId, stream };
}

export interface Actor {
  readonly accountId: string;
  readonly email: string;
  readonly cookie: string;
  readonly csrf: string;
}

let counter = 0;
const unique = (): string => `${Date.now().toString(36)}${(counter += 1)}`;

/** Accounts, sessions and organizations over real HTTP (fastify inject) against a started test service. */
export class OrganizationHarness {
  constructor(
    readonly service: TestService,
    readonly dns: TestDnsServer,
  ) {}

  get bus(): CommandBus {
    return this.service.app.get(CommandBus);
  }

  get workspace(): OrganizationWorkspace {
    return this.service.app.get(OrganizationWorkspace);
  }

  async account(options: { plan?: PlanId; purchased?: number } = {}): Promise<Actor> {
    const email = `org-${unique()}@example.com`;
    const { accountId } = await this.bus.execute(
      new RegisterAccount(email, options.plan ?? 'free', PASSWORD, operator()),
    );
    if (options.purchased)
      await this.bus.execute(new PurchaseCredits(accountId, options.purchased, operator()));
    return this.login({ accountId, email });
  }

  /** A browser session as login makes one (created directly: many accounts would trip the login rate limit). */
  async login(account: { accountId: string; email: string }): Promise<Actor> {
    const { sessionId } = await this.service.app.get(SessionStore).create(account.accountId);
    const csrf = csrfTokenFor(sessionId, this.service.app.get(ServiceSecrets).csrfSecret);
    return { ...account, cookie: `${SESSION_COOKIE}=${sessionId}; ${CSRF_COOKIE}=${csrf}`, csrf };
  }

  async apiKey(actor: Actor): Promise<string> {
    return (await this.bus.execute(new IssueApiKey(actor.accountId, 'org', operator()))).key;
  }

  request(
    actor: Actor | null,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.service.app.inject({
      method,
      url,
      headers: {
        ...(actor ? { cookie: actor.cookie, 'x-csrf-token': actor.csrf } : {}),
        ...headers,
      },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  async ok(
    actor: Actor,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Record<string, unknown>> {
    const response = await this.request(actor, method, url, payload, headers);
    if (response.statusCode >= 300) {
      throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
    }
    return response.body ? (JSON.parse(response.body) as Record<string, unknown>) : {};
  }

  /** A trial organization whose domain is verified through the loopback DNS server: active, 1,000 credits. */
  async trialOrganization(
    owner?: Actor,
  ): Promise<{ owner: Actor; organizationId: string; generalSpaceId: string }> {
    const actor = owner ?? (await this.account());
    const preview = await this.ok(actor, 'GET', '/api/v2/organizations/creation-preview');
    const created = await this.ok(actor, 'POST', '/api/v2/organizations', {
      name: `Acme ${unique()}`,
      accept_account_transition: true,
      expected_transfer: preview.transfer_credits,
      domain: `acme-${unique()}.example`,
    });
    const organizationId = created.id as string;
    const record = (created.verification as { record: { name: string; value: string } }).record;
    this.dns.setTxt(record.name, record.value);
    const verified = await this.ok(actor, 'POST', `/api/v2/organizations/${organizationId}/verification`);
    if (verified.status !== 'active') throw new Error(`organization not active: ${JSON.stringify(verified)}`);
    return { owner: actor, organizationId, generalSpaceId: verified.general_space_id as string };
  }

  /** Invites a fresh account with a role, and signs it in as a member. */
  async member(
    organizationId: string,
    inviter: Actor,
    role: 'administrator' | 'analyst' | 'external_client',
    options: { spaces?: string[]; portion?: number | null } = {},
  ): Promise<Actor> {
    const member = await this.account();
    const invitation = await this.ok(inviter, 'POST', `/api/v2/organizations/${organizationId}/invitations`, {
      email: member.email,
      role,
      space_ids: options.spaces ?? [],
      ...(options.portion !== undefined ? { portion: options.portion } : {}),
    });
    await this.ok(
      member,
      'POST',
      `/api/v2/organizations/${organizationId}/invitations/${invitation.id as string}/accept`,
    );
    return member;
  }

  async space(organizationId: string, manager: Actor, body: Record<string, unknown> = {}): Promise<string> {
    const space = await this.ok(manager, 'POST', `/api/v2/organizations/${organizationId}/spaces`, {
      name: `Client ${unique()}`,
      ...body,
    });
    return space.id as string;
  }

  async switchTo(actor: Actor, organizationId: string, spaceId?: string): Promise<void> {
    await this.ok(actor, 'POST', `/api/v2/organizations/${organizationId}/switch`);
    if (spaceId)
      await this.ok(actor, 'PUT', `/api/v2/organizations/${organizationId}/context`, { space_id: spaceId });
  }

  async search(actor: Actor, rawQuery: string): Promise<LightMyRequestResponse> {
    return this.request(actor, 'POST', '/api/v2/data/search', { raw_query: rawQuery, stream: false });
  }
}
