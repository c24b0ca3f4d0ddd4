import { Command } from '@nestjs/cqrs';
import type { Principal } from '../../../platform/auth/access.js';
import type { SsoState } from '../domain/sso.js';

/** The owner configures the OpenID Connect provider; its discovery document must answer first. */
export class ConfigureSsoProvider extends Command<SsoState> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly input: { issuer: string; client_id: string; client_secret?: string | undefined },
    readonly requestId?: string,
  ) {
    super();
  }
}

/** A new recovery code (replacing any earlier one): the result is the only time it is ever shown. */
export class IssueSsoRecoveryCode extends Command<{ recoveryCode: string; state: SsoState }> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly requestId?: string,
  ) {
    super();
  }
}

/** The owner proves the saved recovery code is the current one (it is not used up). */
export class TestSsoRecoveryCode extends Command<SsoState> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly recoveryCode: string,
    readonly requestId?: string,
  ) {
    super();
  }
}

export class AcknowledgeSsoRecoveryCode extends Command<SsoState> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly requestId?: string,
  ) {
    super();
  }
}

/** Staff SSO enforcement on (needs a tested and saved recovery code) or off. */
export class SetSsoEnforcement extends Command<SsoState> {
  constructor(
    readonly principal: Principal,
    readonly organizationId: string,
    readonly enforced: boolean,
    readonly requestId?: string,
  ) {
    super();
  }
}

/**
 * The provider sent the browser back: the flow its cookie names (used once), the code exchanged with PKCE, the
 * ID token verified (signature, issuer, audience, nonce), then mapped to a staff member of this organization.
 */
export class CompleteSsoSignIn extends Command<{ accountId: string; returnTo: string }> {
  constructor(
    readonly organizationId: string,
    readonly flowId: string | undefined,
    readonly query: string,
    readonly requestId?: string,
  ) {
    super();
  }
}

/** The owner's break-glass sign-in: email, password and the recovery code, which is then used up. */
export class SignInWithRecoveryCode extends Command<{ accountId: string }> {
  constructor(
    readonly organizationId: string,
    readonly input: { email: string; password: string; recovery_code: string },
    readonly requestId?: string,
  ) {
    super();
  }
}
