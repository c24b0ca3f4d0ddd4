import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../../../platform/auth/access.js';
import { CLOCK, type Clock } from '../../../platform/clock/clock.js';
import { commandEnvelope, type Actor } from '../../../platform/event-sourcing/command-metadata.js';
import type { AlongsideWrite } from '../../../platform/event-sourcing/event-sourced-repository.js';
import { StreamWriter } from '../../../platform/event-sourcing/stream-writer.js';
import type { OrganizationAccess } from '../../commands/organization-access.js';
import { OrganizationWorkspace } from '../../commands/organization-workspace.js';
import { organizationDecider, organizationStreamId } from '../../domain/organization.js';
import type { Role } from '../../domain/roles.js';
import { recoveryReady, ssoDecider, ssoStreamId, type SsoCommand, type SsoState } from '../domain/sso.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the owner sees; never the client secret, never the recovery code after it was issued. */
export interface SsoSettingsView {
  readonly organization_id: string;
  readonly provider: {
    readonly issuer: string;
    readonly client_id: string;
    readonly client_secret_set: true;
  } | null;
  /** The address to register at the provider as the redirect URI. */
  readonly redirect_uri: string;
  readonly enforced: boolean;
  readonly recovery_code: {
    readonly issued: boolean;
    readonly issued_at: string | null;
    readonly tested: boolean;
    readonly saved: boolean;
  };
  /** Enforcement can be turned on (provider configured, recovery code tested and saved). */
  readonly enforcement_ready: boolean;
}

/** The facts of the organization stream the SSO decider needs: its members' roles and whether it is open. */
export interface OrganizationFacts {
  readonly members: Readonly<Record<string, Role>> | null;
  readonly open: boolean;
  /** The gate's answer, when a member's session asked. */
  readonly access?: OrganizationAccess;
}

export function factsOf(state: OrganizationAccess['state']): OrganizationFacts {
  if (!state.exists) return { members: null, open: false };
  const members: Record<string, Role> = {};
  for (const [accountId, member] of Object.entries(state.members)) members[accountId] = member.role;
  return { members, open: state.status === 'active' };
}

export function settingsView(organizationId: string, state: SsoState, redirectUri: string): SsoSettingsView {
  return {
    organization_id: organizationId,
    provider: state.provider
      ? { issuer: state.provider.issuer, client_id: state.provider.clientId, client_secret_set: true }
      : null,
    redirect_uri: redirectUri,
    enforced: state.enforced,
    recovery_code: {
      issued: state.recovery !== null,
      issued_at: state.recovery?.issuedAt ?? null,
      tested: Boolean(state.recovery?.testedAt),
      saved: Boolean(state.recovery?.savedAt),
    },
    enforcement_ready: state.provider !== null && recoveryReady(state),
  };
}

export function isOrganizationId(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * The organization's SSO stream: the facts its decider needs (through the workspace's gate for the owner's
 * settings, from the organization stream for sign-ins) and the decision itself, through StreamWriter.
 */
@Injectable()
export class SsoStream {
  constructor(
    @Inject(StreamWriter) private readonly writer: StreamWriter,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(OrganizationWorkspace) private readonly workspace: OrganizationWorkspace,
  ) {}

  async state(organizationId: string): Promise<SsoState> {
    return (await this.writer.load(ssoStreamId(organizationId), ssoDecider)).state;
  }

  /**
   * The settings routes declare the owner's `sso.manage`, checked by the organization access layer before they
   * run; here the workspace's gate folds the organization again: a browser session (switched to this
   * organization or to none), a member (else 404), and for writes an organization that is not restricted
   * (rule 14, 403 organization_restricted with the billing action). The decider keeps the owner rule too.
   */
  async ownerFacts(
    principal: Principal,
    organizationId: string,
    options: { write: boolean } = { write: true },
  ): Promise<OrganizationFacts> {
    const access = await this.workspace.gate.require(principal, organizationId, { open: options.write });
    return { ...factsOf(access.state), access };
  }

  async organizationFacts(organizationId: string): Promise<OrganizationFacts> {
    const { state } = await this.writer.load(organizationStreamId(organizationId), organizationDecider);
    return factsOf(state);
  }

  decide(
    organizationId: string,
    command: SsoCommand,
    actor: { readonly accountId: string | null; readonly as: Actor },
    facts: OrganizationFacts,
    requestId?: string,
    /** A credential written beside the event (ADR 65). */
    alongside?: AlongsideWrite,
  ) {
    return this.writer.decide({
      stream: ssoStreamId(organizationId),
      decider: ssoDecider,
      command,
      context: {
        now: this.clock.now(),
        organizationId,
        actorAccountId: actor.accountId,
        members: facts.members,
        organizationOpen: facts.open,
      },
      envelope: commandEnvelope({
        actor: actor.as,
        payer: `organization:${organizationId}`,
        ...(requestId ? { correlationId: requestId, causationId: requestId } : {}),
      }),
      ...(alongside ? { alongside } : {}),
    });
  }

  /** An owner's decision on the settings (`account:<id>` acting), past the workspace's gate first. */
  async decideAsOwner(
    principal: Principal,
    organizationId: string,
    command: SsoCommand,
    requestId?: string,
    facts?: OrganizationFacts,
    alongside?: AlongsideWrite,
  ) {
    const checked = facts ?? (await this.ownerFacts(principal, organizationId));
    const result = await this.decide(
      organizationId,
      command,
      { accountId: principal.accountId, as: `account:${principal.accountId}` },
      checked,
      requestId,
      alongside,
    );
    return { ...result, facts: checked };
  }
}
