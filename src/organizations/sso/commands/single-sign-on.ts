/**
 * Staff single sign-on (rule 12): the owner's settings (provider, recovery code, enforcement), the provider
 * sign-in (authorization code flow with state, nonce and PKCE, through openid-client), the owner's recovery
 * sign-in, and the password sign-in gate. Decisions are the SSO decider's; this class loads the facts it needs
 * (the organization's members and status), seals secrets and talks to the provider.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { SSO_STAFF, type SsoStaffDocument } from '../../../../projections/sso-staff.projection.js';
import type { AccountDirectory } from '../../../accounts/queries/account-directory.js';
import type { Principal } from '../../../platform/auth/access.js';
import { verifyPassword } from '../../../platform/auth/passwords.js';
import type { ServiceSecrets } from '../../../platform/auth/secrets.js';
import type { SessionStore } from '../../../platform/auth/sessions.js';
import type { PasswordSignInGate } from '../../../platform/auth/sign-in-gate.js';
import { commandEnvelope, type Actor } from '../../../platform/event-sourcing/command-metadata.js';
import { ServiceError } from '../../../platform/errors/service-error.js';
import type { Collection, ReadDocument } from '../../../platform/read-store/read-store.port.js';
import type { ServiceContext } from '../../../platform/service-context.js';
import type { OrganizationAccess } from '../../commands/organization-access.js';
import type { OrganizationWorkspace } from '../../commands/organization-workspace.js';
import { memberOf, organizationDecider, organizationStreamId } from '../../domain/organization.js';
import type { Role } from '../../domain/roles.js';
import { formatRecoveryCode, hashRecoveryCode } from '../domain/recovery-code.js';
import {
  passwordRefusedFor,
  recoveryReady,
  ssoDecider,
  ssoStreamId,
  type SsoCommand,
  type SsoContext,
  type SsoState,
  ssoRequired,
} from '../domain/sso.js';
import { openSecret, sealSecret } from './sealed-secrets.js';

/** A started sign-in lives this long: enough to type a password at the provider, short enough to be useless later. */
export const SIGN_IN_FLOW_TTL_MS = 10 * 60 * 1000;
export const SIGN_IN_FLOWS = 'sso_sign_in_flows';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FLOW_ID = /^[A-Za-z0-9_-]{43}$/;
const PROVIDER_TIMEOUT_SECONDS = 10;

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

interface FlowDocument extends ReadDocument {
  readonly id: string;
  readonly organizationId: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly returnTo: string;
  readonly expiresAt: string;
}

export class SingleSignOn implements PasswordSignInGate {
  private readonly flows: Collection<FlowDocument>;
  private flowsReady: Promise<void> | undefined;
  private readonly configurations = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    private readonly context: ServiceContext,
    private readonly secrets: ServiceSecrets,
    private readonly accounts: AccountDirectory,
    private readonly sessions: SessionStore,
    private readonly workspace: OrganizationWorkspace,
  ) {
    this.flows = context.storage.readStore.collection<FlowDocument>(SIGN_IN_FLOWS);
  }

  // ---- The owner's settings ----

  async settings(
    principal: Principal,
    organizationId: string,
    redirectUri: string,
  ): Promise<SsoSettingsView> {
    // A read decides nothing, but asks the workspace's gate the same question as every write: the owner?
    await this.facts(principal, organizationId, { write: false });
    const { state } = await this.context.repository.load(ssoStreamId(organizationId), ssoDecider);
    return view(organizationId, state, redirectUri);
  }

  async configure(
    principal: Principal,
    organizationId: string,
    input: { issuer: string; client_id: string; client_secret?: string | undefined },
    redirectUri: string,
    requestId?: string,
  ): Promise<SsoSettingsView> {
    const facts = await this.facts(principal, organizationId);
    const sealed =
      input.client_secret === undefined
        ? null
        : sealSecret(this.secrets.dataEncryptionKey, organizationId, input.client_secret);
    // The provider must answer its discovery document for this issuer before anyone depends on it.
    const { state: current } = await this.context.repository.load(ssoStreamId(organizationId), ssoDecider);
    const secret =
      input.client_secret ?? (current.provider ? this.clientSecret(organizationId, current) : '');
    await this.discover(input.issuer, input.client_id, secret, { fresh: true }).catch((error: unknown) => {
      if (error instanceof ServiceError && error.code !== 'sso_provider_unavailable') throw error;
      throw new ServiceError(
        'invalid_input',
        `issuer could not be used: its discovery document (${String(input.issuer).replace(/\/$/, '')}/.well-known/openid-configuration) did not answer for exactly this issuer`,
        { fields: [{ field: 'issuer', problems: ['discovery failed'] }] },
      );
    });
    const result = await this.decide(
      organizationId,
      { type: 'ConfigureProvider', issuer: input.issuer, clientId: input.client_id, clientSecret: sealed },
      principal,
      facts,
      requestId,
    );
    return view(organizationId, result.state, redirectUri);
  }

  /** Issues a new recovery code (replacing any earlier one) and answers it: the only time it is ever shown. */
  async issueRecoveryCode(
    principal: Principal,
    organizationId: string,
    redirectUri: string,
    requestId?: string,
  ): Promise<{ recovery_code: string; settings: SsoSettingsView }> {
    const facts = await this.facts(principal, organizationId);
    const code = formatRecoveryCode(randomBytes(25));
    const result = await this.decide(
      organizationId,
      { type: 'IssueRecoveryCode', codeHash: hashRecoveryCode(code) },
      principal,
      facts,
      requestId,
    );
    return { recovery_code: code, settings: view(organizationId, result.state, redirectUri) };
  }

  async run(
    principal: Principal,
    organizationId: string,
    command: Extract<
      SsoCommand,
      { type: 'TestRecoveryCode' | 'AcknowledgeRecoveryCode' | 'EnableEnforcement' | 'DisableEnforcement' }
    >,
    redirectUri: string,
    requestId?: string,
  ): Promise<SsoSettingsView> {
    const facts = await this.facts(principal, organizationId);
    const result = await this.decide(organizationId, command, principal, facts, requestId);
    if (command.type === 'EnableEnforcement' && result.events.length > 0) {
      // Staff signed in by password until now sign in again, through the provider. The owner keeps this session,
      // switched into the organization: it is the one password session the gate still lets in.
      for (const [accountId, role] of Object.entries(facts.members ?? {})) {
        if (role === 'external_client') continue;
        await this.sessions.revokeAllFor(
          accountId,
          principal.sessionId === undefined ? {} : { except: principal.sessionId },
        );
      }
      if (principal.sessionId && principal.organizationId !== organizationId && facts.access) {
        await this.workspace.enter(principal.sessionId, facts.access);
      }
    }
    return view(organizationId, result.state, redirectUri);
  }

  // ---- Password sign-in gate ----

  /** Rule 12: staff of an organization enforcing SSO sign in through its provider, never by password. */
  async check(accountId: string): Promise<void> {
    const rows = await this.context.projections
      .collection<SsoStaffDocument>('sso-staff', SSO_STAFF)
      .find({ accountId }, { limit: 100 });
    for (const row of rows) {
      const { state } = await this.context.repository.load(ssoStreamId(row.organizationId), ssoDecider);
      if (!state.enforced) continue;
      const organization = await this.context.repository.load(
        organizationStreamId(row.organizationId),
        organizationDecider,
      );
      if (passwordRefusedFor(state, memberOf(organization.state, accountId)?.role)) {
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
    const state = await this.configuredState(organizationId);
    const provider = state.provider!;
    const configuration = await this.discover(
      provider.issuer,
      provider.clientId,
      this.clientSecret(organizationId, state),
    );
    const flowId = randomBytes(32).toString('base64url');
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const flow: FlowDocument = {
      id: hashFlowId(flowId),
      organizationId,
      issuer: provider.issuer,
      clientId: provider.clientId,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier,
      redirectUri,
      returnTo,
      expiresAt: new Date(this.context.clock.now().getTime() + SIGN_IN_FLOW_TTL_MS).toISOString(),
    };
    await this.initFlows();
    await this.flows.upsert(flow);
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
   * Completes a sign-in: the flow the browser's cookie names (used once), the code exchanged with PKCE, the ID
   * token verified (signature, issuer, audience, nonce), then mapped to a staff member of this organization.
   */
  async complete(
    organizationId: string,
    flowId: string | undefined,
    query: string,
    requestId?: string,
  ): Promise<{ accountId: string; returnTo: string }> {
    const failed = (reason: string) =>
      new ServiceError('sso_failed', 'the single sign-on response could not be verified; start again', {
        reason,
      });
    if (!isOrganizationId(organizationId)) throw new ServiceError('not_found', 'no such organization');
    if (!flowId || !FLOW_ID.test(flowId)) throw failed('no sign-in was started in this browser');
    await this.initFlows();
    const id = hashFlowId(flowId);
    const flow = await this.flows.get(id);
    // One use, whatever happens next.
    if (flow) await this.flows.delete(id);
    if (!flow || flow.organizationId !== organizationId)
      throw failed('no sign-in was started in this browser');
    if (Date.parse(flow.expiresAt) <= this.context.clock.now().getTime()) throw failed('the sign-in expired');
    const state = await this.configuredState(organizationId);
    const provider = state.provider!;
    if (provider.issuer !== flow.issuer || provider.clientId !== flow.clientId) {
      throw failed('the provider changed during the sign-in');
    }
    const configuration = await this.discover(
      provider.issuer,
      provider.clientId,
      this.clientSecret(organizationId, state),
    );
    const currentUrl = new URL(flow.redirectUri);
    currentUrl.search = query;
    let claims: oidc.IDToken | undefined;
    let identity: { email?: unknown; email_verified?: unknown };
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
      if (!claims) throw failed('the provider returned no ID token');
      identity = claims as { email?: unknown; email_verified?: unknown };
      // Conforming providers may keep the email to the userinfo endpoint; its subject must match the ID token's.
      if (typeof claims.email !== 'string') {
        identity = await oidc.fetchUserInfo(configuration, tokens.access_token, claims.sub);
      }
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      throw failed(describeOidcError(error));
    }
    if (typeof claims.sub !== 'string') throw failed('the provider returned no ID token subject');
    const email = typeof identity.email === 'string' ? identity.email.trim().toLowerCase() : null;
    const verified = identity.email_verified === true;
    const byEmail = email && verified ? await this.accounts.findByEmail(email) : null;
    const facts = await this.organizationFacts(organizationId);
    const result = await this.context.repository.handle(
      ssoStreamId(organizationId),
      ssoDecider,
      {
        type: 'SignInWithProvider',
        issuer: provider.issuer,
        subject: claims.sub,
        verifiedEmailAccountId: byEmail?.id ?? null,
      },
      this.contextFor(organizationId, null, facts),
      this.envelope(organizationId, 'system:sso-sign-in', requestId),
    );
    const signedIn = result.events.find((event) => event.type === 'SsoSignedIn');
    if (!signedIn || signedIn.type !== 'SsoSignedIn') throw failed('the sign-in was not recorded');
    return { accountId: signedIn.data.accountId, returnTo: flow.returnTo };
  }

  /** The owner's break-glass sign-in: email, password and the recovery code, which is then used up. */
  async recover(
    organizationId: string,
    input: { email: string; password: string; recovery_code: string },
    requestId?: string,
  ): Promise<{ accountId: string }> {
    const refused = new ServiceError('unauthenticated', 'the email, password or recovery code is wrong');
    const account = await this.accounts.findByEmail(input.email);
    // Always run the hash, so timing does not tell which accounts exist.
    const valid = await verifyPassword(input.password, account?.passwordHash ?? null);
    if (!account || !valid || !isOrganizationId(organizationId)) throw refused;
    const facts = await this.organizationFacts(organizationId);
    if (facts.members === null) throw refused;
    await this.context.repository.handle(
      ssoStreamId(organizationId),
      ssoDecider,
      {
        type: 'UseRecoveryCode',
        accountId: account.id,
        presentedHash: hashRecoveryCode(input.recovery_code),
      },
      this.contextFor(organizationId, account.id, facts),
      this.envelope(organizationId, `account:${account.id}`, requestId),
    );
    return { accountId: account.id };
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

  // ---- Helpers ----

  private async configuredState(organizationId: string): Promise<SsoState> {
    if (!isOrganizationId(organizationId)) throw new ServiceError('not_found', 'no such organization');
    const { state } = await this.context.repository.load(ssoStreamId(organizationId), ssoDecider);
    // An unknown organization and one without single sign-on look the same.
    if (!state.provider) throw new ServiceError('not_found', 'no single sign-on for this organization');
    return state;
  }

  private clientSecret(organizationId: string, state: SsoState): string {
    return openSecret(this.secrets.dataEncryptionKey, organizationId, state.provider!.clientSecret);
  }

  private async discover(
    issuer: string,
    clientId: string,
    clientSecret: string,
    options: { fresh?: boolean } = {},
  ): Promise<oidc.Configuration> {
    const key = createHash('sha256')
      .update(JSON.stringify([issuer, clientId, clientSecret]))
      .digest('hex');
    let pending = options.fresh ? undefined : this.configurations.get(key);
    if (!pending) {
      let url: URL;
      try {
        url = new URL(issuer);
      } catch {
        throw new ServiceError('invalid_input', 'issuer must be an absolute URL');
      }
      const loopback = ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
      pending = oidc.discovery(url, clientId, undefined, oidc.ClientSecretBasic(clientSecret), {
        timeout: PROVIDER_TIMEOUT_SECONDS,
        // Plain http only to a provider on this machine (development and tests); anywhere else, https.
        ...(loopback && url.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
      });
      this.configurations.set(key, pending);
      if (this.configurations.size > 1000)
        this.configurations.delete(this.configurations.keys().next().value!);
      pending.catch(() => this.configurations.delete(key));
    }
    try {
      return await pending;
    } catch (error) {
      throw new ServiceError(
        'sso_provider_unavailable',
        'the single sign-on provider did not answer; try again later (the owner can use the recovery code)',
        { reason: describeOidcError(error) },
      );
    }
  }

  /**
   * The settings routes pass the workspace's gate like every organization route: a browser session (switched
   * to this organization or to none), a member (else 404), the owner's `sso.manage` (else 403), and for writes
   * an organization that is not restricted (rule 14, 403 organization_restricted with the billing action).
   */
  private async facts(
    principal: Principal,
    organizationId: string,
    options: { write: boolean } = { write: true },
  ): Promise<OrganizationFacts> {
    const access = await this.workspace.gate.require(principal, organizationId, {
      capability: 'sso.manage',
      open: options.write,
    });
    return { ...factsOf(access.state), access };
  }

  private async organizationFacts(organizationId: string): Promise<OrganizationFacts> {
    const { state } = await this.context.repository.load(
      organizationStreamId(organizationId),
      organizationDecider,
    );
    return factsOf(state);
  }

  private contextFor(
    organizationId: string,
    actorAccountId: string | null,
    facts: OrganizationFacts,
  ): SsoContext {
    return {
      now: this.context.clock.now(),
      organizationId,
      actorAccountId,
      members: facts.members,
      organizationOpen: facts.open,
    };
  }

  private async decide(
    organizationId: string,
    command: SsoCommand,
    principal: Principal,
    facts: OrganizationFacts,
    requestId?: string,
  ) {
    return this.context.repository.handle(
      ssoStreamId(organizationId),
      ssoDecider,
      command,
      this.contextFor(organizationId, principal.accountId, facts),
      this.envelope(organizationId, `account:${principal.accountId}`, requestId),
    );
  }

  private envelope(organizationId: string, actor: Actor, requestId?: string) {
    return commandEnvelope({
      actor,
      payer: `organization:${organizationId}`,
      ...(requestId ? { correlationId: requestId, causationId: requestId } : {}),
    });
  }

  private initFlows(): Promise<void> {
    this.flowsReady ??= this.context.storage.readStore
      .ensureCollection(SIGN_IN_FLOWS)
      .catch((error: unknown) => {
        this.flowsReady = undefined;
        throw error;
      });
    return this.flowsReady;
  }
}

interface OrganizationFacts {
  readonly members: Readonly<Record<string, Role>> | null;
  readonly open: boolean;
  /** The gate's answer, when a member's session asked. */
  readonly access?: OrganizationAccess;
}

function factsOf(state: OrganizationAccess['state']): OrganizationFacts {
  if (!state.exists) return { members: null, open: false };
  const members: Record<string, Role> = {};
  for (const [accountId, member] of Object.entries(state.members)) members[accountId] = member.role;
  return { members, open: state.status === 'active' };
}

function view(organizationId: string, state: SsoState, redirectUri: string): SsoSettingsView {
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

function hashFlowId(flowId: string): string {
  return createHash('sha256').update(`sso-flow:${flowId}`, 'utf8').digest('hex');
}

/** A short reason for the error body and logs: the check that failed, never a token. */
function describeOidcError(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError) return `the provider answered ${error.error}`;
  if (error instanceof oidc.ResponseBodyError) return `the provider answered ${error.error}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return 'unknown failure';
}
