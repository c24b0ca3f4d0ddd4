import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import * as oidc from 'openid-client';
import { AccountDirectory } from '../../../accounts/queries/account-directory.js';
import { verifyPassword } from '../../../platform/auth/passwords.js';
import { SessionStore } from '../../../platform/auth/sessions.js';
import { CLOCK, type Clock } from '../../../platform/clock/clock.js';
import { APP_CONFIG, type AppConfig } from '../../../platform/config/app-config.js';
import { ServiceError } from '../../../platform/errors/service-error.js';
import { OrganizationWorkspace } from '../../commands/organization-workspace.js';
import { SignInFlows } from './sign-in-flows.js';
import { isOrganizationId, SsoStream } from './sso-facts.js';
import { describeOidcError, SsoProvider } from './sso-provider.js';
import {
  AcknowledgeSsoRecoveryCode,
  CompleteSsoSignIn,
  ConfigureSsoProvider,
  IssueSsoRecoveryCode,
  SetSsoEnforcement,
  SignInWithRecoveryCode,
  TestSsoRecoveryCode,
} from './sso.commands.js';

@CommandHandler(ConfigureSsoProvider)
export class ConfigureSsoProviderHandler implements ICommandHandler<ConfigureSsoProvider> {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SsoProvider) private readonly provider: SsoProvider,
  ) {}

  async execute({ principal, organizationId, input, requestId }: ConfigureSsoProvider) {
    const facts = await this.stream.ownerFacts(principal, organizationId);
    const sealed =
      input.client_secret === undefined
        ? null
        : this.provider.sealedClientSecret(organizationId, input.client_secret);
    // The provider must answer its discovery document for this issuer before anyone depends on it.
    const current = await this.stream.state(organizationId);
    const secret =
      input.client_secret ??
      (current.provider ? await this.provider.clientSecret(organizationId, current) : '');
    await this.provider
      .discover(input.issuer, input.client_id, secret, { fresh: true })
      .catch((error: unknown) => {
        if (error instanceof ServiceError && error.code !== 'sso_provider_unavailable') throw error;
        throw new ServiceError(
          'invalid_input',
          `issuer could not be used: its discovery document (${String(input.issuer).replace(/\/$/, '')}/.well-known/openid-configuration) did not answer for exactly this issuer`,
          { fields: [{ field: 'issuer', problems: ['discovery failed'] }] },
        );
      });
    const result = await this.stream.decideAsOwner(
      principal,
      organizationId,
      {
        type: 'ConfigureProvider',
        issuer: input.issuer,
        clientId: input.client_id,
        clientSecretId: sealed?.id ?? null,
      },
      requestId,
      facts,
      sealed?.alongside,
    );
    return result.state;
  }
}

@CommandHandler(IssueSsoRecoveryCode)
export class IssueSsoRecoveryCodeHandler implements ICommandHandler<IssueSsoRecoveryCode> {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SsoProvider) private readonly provider: SsoProvider,
  ) {}

  async execute({ principal, organizationId, requestId }: IssueSsoRecoveryCode) {
    const issued = this.provider.newRecoveryCode(organizationId);
    const result = await this.stream.decideAsOwner(
      principal,
      organizationId,
      { type: 'IssueRecoveryCode', codeId: issued.id },
      requestId,
      undefined,
      issued.alongside,
    );
    return { recoveryCode: issued.recoveryCode, state: result.state };
  }
}

@CommandHandler(TestSsoRecoveryCode)
export class TestSsoRecoveryCodeHandler implements ICommandHandler<TestSsoRecoveryCode> {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SsoProvider) private readonly provider: SsoProvider,
  ) {}

  async execute({ principal, organizationId, recoveryCode, requestId }: TestSsoRecoveryCode) {
    // The gate first: a stranger learns nothing, not even through the time a lookup takes.
    const facts = await this.stream.ownerFacts(principal, organizationId);
    const state = await this.stream.state(organizationId);
    const presentedCodeId = await this.provider.matchingRecoveryCode(organizationId, state, recoveryCode);
    const result = await this.stream.decideAsOwner(
      principal,
      organizationId,
      { type: 'TestRecoveryCode', presentedCodeId },
      requestId,
      facts,
    );
    return result.state;
  }
}

@CommandHandler(AcknowledgeSsoRecoveryCode)
export class AcknowledgeSsoRecoveryCodeHandler implements ICommandHandler<AcknowledgeSsoRecoveryCode> {
  constructor(@Inject(SsoStream) private readonly stream: SsoStream) {}

  async execute({ principal, organizationId, requestId }: AcknowledgeSsoRecoveryCode) {
    const result = await this.stream.decideAsOwner(
      principal,
      organizationId,
      { type: 'AcknowledgeRecoveryCode' },
      requestId,
    );
    return result.state;
  }
}

@CommandHandler(SetSsoEnforcement)
export class SetSsoEnforcementHandler implements ICommandHandler<SetSsoEnforcement> {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SessionStore) private readonly sessions: SessionStore,
    @Inject(OrganizationWorkspace) private readonly workspace: OrganizationWorkspace,
  ) {}

  async execute({ principal, organizationId, enforced, requestId }: SetSsoEnforcement) {
    const result = await this.stream.decideAsOwner(
      principal,
      organizationId,
      { type: enforced ? 'EnableEnforcement' : 'DisableEnforcement' },
      requestId,
    );
    const facts = result.facts;
    if (enforced && result.events.length > 0) {
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
    return result.state;
  }
}

@CommandHandler(CompleteSsoSignIn)
export class CompleteSsoSignInHandler implements ICommandHandler<CompleteSsoSignIn> {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SsoProvider) private readonly provider: SsoProvider,
    @Inject(SignInFlows) private readonly flows: SignInFlows,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async execute({ organizationId, flowId, query, requestId }: CompleteSsoSignIn) {
    const failed = (reason: string) =>
      new ServiceError('sso_failed', 'the single sign-on response could not be verified; start again', {
        reason,
      });
    if (!isOrganizationId(organizationId)) throw new ServiceError('not_found', 'no such organization');
    if (!SignInFlows.isFlowId(flowId)) throw failed('no sign-in was started in this browser');
    const flow = await this.flows.take(flowId);
    if (!flow || flow.organizationId !== organizationId)
      throw failed('no sign-in was started in this browser');
    if (Date.parse(flow.expiresAt) <= this.clock.now().getTime()) throw failed('the sign-in expired');
    const state = await this.provider.configuredState(organizationId);
    const provider = state.provider!;
    if (provider.issuer !== flow.issuer || provider.clientId !== flow.clientId) {
      throw failed('the provider changed during the sign-in');
    }
    const configuration = await this.provider.configurationOf(organizationId, state);
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
    const facts = await this.stream.organizationFacts(organizationId);
    const result = await this.stream.decide(
      organizationId,
      {
        type: 'SignInWithProvider',
        issuer: provider.issuer,
        subject: claims.sub,
        verifiedEmailAccountId: byEmail?.id ?? null,
      },
      { accountId: null, as: 'system:sso-sign-in' },
      facts,
      requestId,
    );
    const signedIn = result.events.find((event) => event.type === 'SsoSignedIn');
    if (!signedIn || signedIn.type !== 'SsoSignedIn') throw failed('the sign-in was not recorded');
    return { accountId: signedIn.data.accountId, returnTo: flow.returnTo };
  }
}

@CommandHandler(SignInWithRecoveryCode)
export class SignInWithRecoveryCodeHandler implements ICommandHandler<SignInWithRecoveryCode> {
  constructor(
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(SsoProvider) private readonly provider: SsoProvider,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ organizationId, input, requestId }: SignInWithRecoveryCode) {
    const refused = new ServiceError('unauthenticated', 'the email, password or recovery code is wrong');
    const account = await this.accounts.findByEmail(input.email);
    const passwordHash = await this.accounts.passwordHash(account);
    // Always run the hash, so timing does not tell which accounts exist.
    const valid = await verifyPassword(input.password, passwordHash, this.config.passwordHashCost);
    if (!account || !passwordHash || !valid || !isOrganizationId(organizationId)) throw refused;
    const facts = await this.stream.organizationFacts(organizationId);
    if (facts.members === null) throw refused;
    const state = await this.stream.state(organizationId);
    const presentedCodeId = await this.provider.matchingRecoveryCode(
      organizationId,
      state,
      input.recovery_code,
    );
    await this.stream.decide(
      organizationId,
      {
        type: 'UseRecoveryCode',
        accountId: account.id,
        presentedCodeId,
      },
      { accountId: account.id, as: `account:${account.id}` },
      facts,
      requestId,
    );
    return { accountId: account.id };
  }
}

export const ssoCommandHandlers = [
  ConfigureSsoProviderHandler,
  IssueSsoRecoveryCodeHandler,
  TestSsoRecoveryCodeHandler,
  AcknowledgeSsoRecoveryCodeHandler,
  SetSsoEnforcementHandler,
  CompleteSsoSignInHandler,
  SignInWithRecoveryCodeHandler,
];
