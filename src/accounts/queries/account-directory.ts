import type { AccessTokenDocument } from '../../../projections/access-tokens.projection.js';
import {
  ACCESS_TOKENS,
  OAUTH_GRANTS,
  type OAuthGrantDocument,
} from '../../../projections/access-tokens.projection.js';
import type { AccountDocument } from '../../../projections/accounts.projection.js';
import { ACCOUNTS } from '../../../projections/accounts.projection.js';
import type { ApiKeyDocument } from '../../../projections/api-keys.projection.js';
import { API_KEYS } from '../../../projections/api-keys.projection.js';
import type { CreditStateDocument } from '../../../projections/credit-state.projection.js';
import { CREDIT_STATES } from '../../../projections/credit-state.projection.js';
import type { PersonalDataStanding, PrincipalDirectory } from '../../platform/auth/access.js';
import { accessTokenRevocation } from '../../platform/auth/access-tokens.js';
import { credentialOf, type CredentialStore } from '../../platform/auth/credentials/credential-store.port.js';
import type { ProjectionRunner } from '../../platform/projections/projection-runner.js';
import {
  accountCredentialSubject,
  API_KEY_CREDENTIAL,
  apiKeyCredentialId,
  PASSWORD_CREDENTIAL,
} from '../domain/account.js';
import { personalDataDecision } from '../domain/entitlements.js';
import { isPlanId, planById, type Plan } from '../domain/plans.js';

/** Account lookups from the read models: sign-in, credentials and entitlement. */
export class AccountDirectory implements PrincipalDirectory {
  private readonly projections: ProjectionRunner;
  private readonly credentials: CredentialStore;

  /** Takes the read models and the credential store (a ServiceContext has both, for the CLI). */
  constructor(ports: { readonly projections: ProjectionRunner; readonly credentials: CredentialStore }) {
    this.projections = ports.projections;
    this.credentials = ports.credentials;
  }

  async findApiKey(
    keyId: string,
  ): Promise<{ accountId: string; secretHash: string; revoked: boolean } | null> {
    // Both reads at once: this runs in front of every API key request.
    const [key, stored] = await Promise.all([
      this.projections.collection<ApiKeyDocument>('api-keys', API_KEYS).get(keyId),
      this.credentials.get(apiKeyCredentialId(keyId)),
    ]);
    if (!key) return null;
    const credential = credentialOf(stored, {
      kind: API_KEY_CREDENTIAL,
      subject: accountCredentialSubject(key.accountId),
    });
    if (!credential) return null;
    return { accountId: key.accountId, secretHash: credential.material, revoked: key.revokedAt !== null };
  }

  /** The hash of the account's current password, from the credential store; null when none is set. */
  async passwordHash(account: AccountDocument | null): Promise<string | null> {
    // Looked up even for an unknown account, so a sign-in's timing does not tell which accounts exist.
    const stored = await this.credentials.get(account?.passwordCredentialId ?? `${PASSWORD_CREDENTIAL}-none`);
    if (!account?.passwordCredentialId) return null;
    const credential = credentialOf(stored, {
      kind: PASSWORD_CREDENTIAL,
      subject: accountCredentialSubject(account.id),
    });
    return credential?.material ?? null;
  }

  async accountStanding(accountId: string): Promise<{
    exists: boolean;
    personalData: PersonalDataStanding;
    accessTokensIssuedBefore: string | null;
  }> {
    // Both reads at once: this runs in front of every personal API request.
    const [account, purchased] = await Promise.all([
      this.account(accountId),
      this.purchasedBalance(accountId),
    ]);
    if (!account) {
      return { exists: false, personalData: personalDataDecision('free', 0), accessTokensIssuedBefore: null };
    }
    return {
      exists: true,
      personalData: personalDataDecision(this.plan(account), purchased),
      accessTokensIssuedBefore: account.accessTokensIssuedBefore ?? null,
    };
  }

  async accessTokenRevokedAt(tokenId: string): Promise<string | null> {
    const token = await this.accessTokens().get(tokenId);
    if (token?.revokedAt) return token.revokedAt;
    // A token of the authorization server stops with its grant (the app revoked, a refresh token reused).
    if (typeof token?.grantId === 'string') return (await this.oauthGrant(token.grantId))?.revokedAt ?? null;
    return null;
  }

  async oauthGrant(grantId: string): Promise<OAuthGrantDocument | null> {
    return this.projections.collection<OAuthGrantDocument>('access-tokens', OAUTH_GRANTS).get(grantId);
  }

  /** The account's authorizations of OAuth clients (ADR 107), newest first; revoked ones too when asked. */
  async listOAuthGrants(
    accountId: string,
    options: { readonly clientId?: string; readonly includeRevoked?: boolean } = {},
  ): Promise<OAuthGrantDocument[]> {
    return this.projections.collection<OAuthGrantDocument>('access-tokens', OAUTH_GRANTS).find(
      {
        accountId,
        ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
        ...(options.includeRevoked ? {} : { revokedAt: null }),
      },
      { sort: [['authorizedAt', -1]], limit: 1000 },
    );
  }

  /**
   * The account's access tokens that have not expired at `now`, newest first, each with when it stopped working:
   * its own revocation, else its account's invalidation when it was issued in or before that second (ADR 75).
   */
  async listAccessTokens(
    accountId: string,
    now: Date,
  ): Promise<Array<AccessTokenDocument & { readonly revokedAt: string | null }>> {
    const [tokens, account] = await Promise.all([
      this.accessTokens().find(
        // The authorization server's tokens are listed and revoked as apps (ADR 107), not here.
        { accountId, expiresAt: { $gt: now.toISOString() }, grantId: { $exists: false } },
        // Issuance has whole seconds: the id orders tokens of the same second, so pages do not shuffle.
        {
          sort: [
            ['issuedAt', -1],
            ['id', 1],
          ],
          limit: 1000,
        },
      ),
      this.account(accountId),
    ]);
    const issuedBefore = account?.accessTokensIssuedBefore ?? null;
    return tokens.map((token) => {
      const revocation = accessTokenRevocation(
        { issuedAt: new Date(token.issuedAt) },
        token.revokedAt,
        issuedBefore,
      );
      return {
        ...token,
        revokedAt: revocation === 'invalidated' ? issuedBefore : token.revokedAt,
      };
    });
  }

  private accessTokens() {
    return this.projections.collection<AccessTokenDocument>('access-tokens', ACCESS_TOKENS);
  }

  async account(accountId: string): Promise<AccountDocument | null> {
    return this.projections.collection<AccountDocument>('accounts', ACCOUNTS).get(accountId);
  }

  async findByEmail(email: string): Promise<AccountDocument | null> {
    const [account] = await this.projections
      .collection<AccountDocument>('accounts', ACCOUNTS)
      .find({ email: email.trim().toLowerCase() }, { limit: 1 });
    return account ?? null;
  }

  async listApiKeys(accountId: string): Promise<ApiKeyDocument[]> {
    return this.projections
      .collection<ApiKeyDocument>('api-keys', API_KEYS)
      .find({ accountId }, { sort: [['issuedAt', -1]], limit: 100 });
  }

  async purchasedBalance(accountId: string): Promise<number> {
    const state = await this.projections
      .collection<CreditStateDocument>('credit-state', CREDIT_STATES)
      .get(`account:${accountId}`);
    return state?.purchasedBalance ?? 0;
  }

  plan(account: AccountDocument): Plan {
    return planById(isPlanId(account.plan) ? account.plan : 'free');
  }
}
