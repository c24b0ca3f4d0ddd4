/**
 * Staff single sign-on (rule 12) outside the SSO stream's commands: the owner's settings view, the start of a
 * provider sign-in (authorization code flow with state, nonce and PKCE, through openid-client), entering the
 * workspace after a sign-in, and the password sign-in gate. Every decision is a command of sso.commands.ts.
 */
import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { SSO_STAFF, type SsoStaffDocument } from '../../../../projections/sso-staff.projection.js';
import type { Principal } from '../../../platform/auth/access.js';
import type { PasswordSignInGate } from '../../../platform/auth/sign-in-gate.js';
import { CLOCK, type Clock } from '../../../platform/clock/clock.js';
import { ProjectionRunner } from '../../../platform/projections/projection-runner.js';
import { OrganizationWorkspace } from '../../commands/organization-workspace.js';
import { passwordRefusedFor, ssoRequired } from '../domain/sso.js';
import { SignInFlows, type FlowDocument } from './sign-in-flows.js';
import { settingsView, SsoStream, type SsoSettingsView } from './sso-facts.js';
import { SsoProvider } from './sso-provider.js';

export { isOrganizationId, type SsoSettingsView } from './sso-facts.js';

/** A started sign-in lives this long: enough to type a password at the provider, short enough to be useless later. */
export const SIGN_IN_FLOW_TTL_MS = 10 * 60 * 1000;

@Injectable()
export class SingleSignOn implements PasswordSignInGate {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SsoProvider) private readonly provider: SsoProvider,
    @Inject(SignInFlows) private readonly flows: SignInFlows,
    @Inject(ProjectionRunner) private readonly projections: ProjectionRunner,
    @Inject(OrganizationWorkspace) private readonly workspace: OrganizationWorkspace,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  // ---- The owner's settings ----

  async settings(
    principal: Principal,
    organizationId: string,
    redirectUri: string,
  ): Promise<SsoSettingsView> {
    // A read decides nothing, but asks the workspace's gate the same question as every write: the owner?
    await this.stream.ownerFacts(principal, organizationId, { write: false });
    return settingsView(organizationId, await this.stream.state(organizationId), redirectUri);
  }

  // ---- Password sign-in gate ----

  /** Rule 12: staff of an organization enforcing SSO sign in through its provider, never by password. */
  async check(accountId: string): Promise<void> {
    const rows = await this.projections
      .collection<SsoStaffDocument>('sso-staff', SSO_STAFF)
      .find({ accountId }, { limit: 100 });
    for (const row of rows) {
      const state = await this.stream.state(row.organizationId);
      if (!state.enforced) continue;
      const { members } = await this.stream.organizationFacts(row.organizationId);
      const role = members && Object.hasOwn(members, accountId) ? members[accountId] : undefined;
      if (passwordRefusedFor(state, role)) {
        throw ssoRequired(row.organizationId);
      }
    }
  }

  // ---- Provider sign-in ----

  /** Starts a sign-in: the provider's authorization URL and the flow id the browser must bring back. */
  async start(
    organizationId: string,
    redirectUri: string,
    returnTo: string,
  ): Promise<{ authorizationUrl: string; flowId: string; maxAgeSeconds: number }> {
    const state = await this.provider.configuredState(organizationId);
    const provider = state.provider!;
    const configuration = await this.provider.configurationOf(organizationId, state);
    const flowId = randomBytes(32).toString('base64url');
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const flow: FlowDocument = {
      id: SignInFlows.hashId(flowId),
      organizationId,
      issuer: provider.issuer,
      clientId: provider.clientId,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier,
      redirectUri,
      returnTo,
      expiresAt: new Date(this.clock.now().getTime() + SIGN_IN_FLOW_TTL_MS).toISOString(),
    };
    await this.flows.save(flow);
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      response_type: 'code',
      state: flow.state,
      nonce: flow.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: url.href, flowId, maxAgeSeconds: SIGN_IN_FLOW_TTL_MS / 1000 };
  }

  /**
   * Rule 2: a session the provider or the recovery code opened enters the organization exactly as
   * `POST …/switch` does (the same gate and selection code): staff start in General research.
   */
  async enterWorkspace(accountId: string, organizationId: string, sessionId: string): Promise<void> {
    await this.workspace.switchTo(
      { accountId, via: 'session', channel: 'session', scopes: [], sessionId, organizationId },
      organizationId,
    );
  }
}
