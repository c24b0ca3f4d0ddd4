import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import {
  CREDENTIAL_STORE,
  credentialOf,
  type CredentialStore,
} from '../../../platform/auth/credentials/credential-store.port.js';
import { ServiceSecrets } from '../../../platform/auth/secrets.js';
import { CLOCK, type Clock } from '../../../platform/clock/clock.js';
import { ServiceError } from '../../../platform/errors/service-error.js';
import type { AlongsideWrite } from '../../../platform/event-sourcing/event-sourced-repository.js';
import { formatRecoveryCode, hashRecoveryCode } from '../domain/recovery-code.js';
import {
  ssoCredentialSubject,
  SSO_CLIENT_SECRET_CREDENTIAL,
  SSO_RECOVERY_CODE_CREDENTIAL,
  type SealedSecret,
  type SsoState,
} from '../domain/sso.js';
import { sealedSecretMaterial } from './sso-upcasters.js';
import { openSecret, sealSecret } from './sealed-secrets.js';
import { isOrganizationId, SsoStream } from './sso-facts.js';

const PROVIDER_TIMEOUT_SECONDS = 10;

/** A credential to write beside the event that names it (ADR 65). */
export interface NewCredential {
  readonly id: string;
  readonly alongside: AlongsideWrite;
}

/**
 * An organization's OpenID Connect provider: its discovery (cached per issuer, client and secret), and its
 * credentials in the credential store (the sealed client secret, the recovery code's hash; ADR 65).
 */
@Injectable()
export class SsoProvider {
  private readonly configurations = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Inject(SsoStream) private readonly stream: SsoStream,
    @Inject(CREDENTIAL_STORE) private readonly credentials: CredentialStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The SSO state of an organization with a provider; an unknown organization and one without look the same. */
  async configuredState(organizationId: string): Promise<SsoState> {
    if (!isOrganizationId(organizationId)) throw new ServiceError('not_found', 'no such organization');
    const state = await this.stream.state(organizationId);
    if (!state.provider) throw new ServiceError('not_found', 'no single sign-on for this organization');
    return state;
  }

  /** The clear client secret of the configured provider, opened from its sealed credential. */
  async clientSecret(organizationId: string, state: SsoState): Promise<string> {
    const stored = credentialOf(await this.credentials.get(state.provider!.clientSecretId), {
      kind: SSO_CLIENT_SECRET_CREDENTIAL,
      subject: ssoCredentialSubject(organizationId),
    });
    if (!stored) throw new Error(`the client secret of organization ${organizationId} is not stored`);
    return openSecret(
      this.secrets.dataEncryptionKey,
      organizationId,
      JSON.parse(stored.material) as SealedSecret,
    );
  }

  /** A new client secret, sealed with the data key, as a credential. */
  sealedClientSecret(organizationId: string, clear: string): NewCredential {
    const sealed = sealSecret(this.secrets.dataEncryptionKey, organizationId, clear);
    return this.newCredential(
      organizationId,
      `${SSO_CLIENT_SECRET_CREDENTIAL}-${randomUUID()}`,
      SSO_CLIENT_SECRET_CREDENTIAL,
      sealedSecretMaterial(sealed),
    );
  }

  /** A new recovery code (shown once) and the credential holding its hash. */
  newRecoveryCode(organizationId: string): NewCredential & { readonly recoveryCode: string } {
    const recoveryCode = formatRecoveryCode(randomBytes(25));
    const credential = this.newCredential(
      organizationId,
      `${SSO_RECOVERY_CODE_CREDENTIAL}-${randomUUID()}`,
      SSO_RECOVERY_CODE_CREDENTIAL,
      hashRecoveryCode(recoveryCode),
    );
    return { ...credential, recoveryCode };
  }

  /** The id of the current recovery code when `presented` is that code, else null (timing-safe). */
  async matchingRecoveryCode(
    organizationId: string,
    state: SsoState,
    presented: unknown,
  ): Promise<string | null> {
    const presentedHash = hashRecoveryCode(presented);
    if (!state.recovery) return null;
    const stored = credentialOf(await this.credentials.get(state.recovery.codeId), {
      kind: SSO_RECOVERY_CODE_CREDENTIAL,
      subject: ssoCredentialSubject(organizationId),
    });
    if (!stored) return null;
    const left = Buffer.from(stored.material, 'utf8');
    const right = Buffer.from(presentedHash, 'utf8');
    return left.length === right.length && timingSafeEqual(left, right) ? state.recovery.codeId : null;
  }

  /** The configuration of the organization's current provider. */
  async configurationOf(organizationId: string, state: SsoState): Promise<oidc.Configuration> {
    const provider = state.provider!;
    return this.discover(provider.issuer, provider.clientId, await this.clientSecret(organizationId, state));
  }

  private newCredential(organizationId: string, id: string, kind: string, material: string): NewCredential {
    const credential = {
      id,
      kind,
      subject: ssoCredentialSubject(organizationId),
      material,
      createdAt: this.clock.now().toISOString(),
    };
    return { id, alongside: (within) => this.credentials.put(credential, within) };
  }

  async discover(
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
}

/** A short reason for the error body and logs: the check that failed, never a token. */
export function describeOidcError(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError) return `the provider answered ${error.error}`;
  if (error instanceof oidc.ResponseBodyError) return `the provider answered ${error.error}`;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return 'unknown failure';
}
