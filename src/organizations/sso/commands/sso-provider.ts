import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import * as oidc from 'openid-client';
import { ServiceSecrets } from '../../../platform/auth/secrets.js';
import { ServiceError } from '../../../platform/errors/service-error.js';
import type { SsoState } from '../domain/sso.js';
import { openSecret } from './sealed-secrets.js';
import { isOrganizationId, SsoStream } from './sso-facts.js';

const PROVIDER_TIMEOUT_SECONDS = 10;

/** An organization's OpenID Connect provider: its discovery (cached per issuer, client and secret) and secret. */
@Injectable()
export class SsoProvider {
  private readonly configurations = new Map<string, Promise<oidc.Configuration>>();

  constructor(
    @Inject(ServiceSecrets) private readonly secrets: ServiceSecrets,
    @Inject(SsoStream) private readonly stream: SsoStream,
  ) {}

  /** The SSO state of an organization with a provider; an unknown organization and one without look the same. */
  async configuredState(organizationId: string): Promise<SsoState> {
    if (!isOrganizationId(organizationId)) throw new ServiceError('not_found', 'no such organization');
    const state = await this.stream.state(organizationId);
    if (!state.provider) throw new ServiceError('not_found', 'no single sign-on for this organization');
    return state;
  }

  clientSecret(organizationId: string, state: SsoState): string {
    return openSecret(this.secrets.dataEncryptionKey, organizationId, state.provider!.clientSecret);
  }

  /** The configuration of the organization's current provider. */
  configurationOf(organizationId: string, state: SsoState): Promise<oidc.Configuration> {
    const provider = state.provider!;
    return this.discover(provider.issuer, provider.clientId, this.clientSecret(organizationId, state));
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
