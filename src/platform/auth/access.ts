import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { ReadGroupHandle } from '../database/sql-database.js';
import type { ServiceError } from '../errors/service-error.js';

/**
 * Every route declares who may call it: its surface (which credential it accepts) and the permission it
 * needs. A route without a declaration is refused at runtime and fails the route-inventory test.
 *
 * - `public`: no credential (health, login, the caller-IP route).
 * - `personal_api`: `/api/v2/common/...`, a personal API key (X-API-KEY or Bearer) or an OAuth access token with
 *   `service.read`. A session cookie is not a credential here.
 * - `session`: `/api/v2/auth/...`, `/api/v2/organizations/...`, `/api/v2/data`: the `__Host-ps` cookie, plus a
 *   matching CSRF token for unsafe methods. API keys and tokens never substitute for it.
 * - `mcp`: `/mcp`, the Model Context Protocol endpoint: the personal API's credentials as bearer tokens; whatever
 *   the credential, its calls act on the `mcp` channel (ADR 108).
 * - `operator`: `/api/v2/operator/...`, read-only operator views: an operator credential (`opc_…`, ADR 68) as
 *   `Authorization: Bearer`; no personal credential or session substitutes for it (ADR 119).
 */
export type Surface = 'public' | 'personal_api' | 'session' | 'mcp' | 'operator';

export const PERMISSIONS = [
  'service.health',
  'auth.login',
  'auth.logout',
  'account.read',
  'credits.read',
  'keys.manage',
  'tokens.create',
  'tokens.manage',
  'data.search',
  'data.enrich',
  'data.export',
  'organization.read',
  'organization.manage',
  'caller.ip',
  'mcp.connect',
  'oauth.metadata',
  'operator.read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface AccessRule {
  readonly surface: Surface;
  readonly permission: Permission;
  /**
   * Authentication 3. `true`: a personal data request (search, enrichment, estimating or starting an export):
   * needs a current paid subscription or a purchased balance above zero, even when the operation itself is free.
   * `'paid_result'`: reaches a result the caller already paid for (its own exports: poll, download, list,
   * delete). Paying never locks the caller out of what it paid for, so the entitlement is not asked again there;
   * ownership is still checked by the route.
   */
  readonly personalData?: true | 'paid_result';
  /**
   * Organization routes (`:orgId`): the role capability the caller needs in that organization (e.g.
   * `members.manage`), checked by the organization access layer before anything is loaded.
   */
  readonly capability?: string;
}

export const ACCESS_RULE = 'access-rule';

export const CONTINUES_READS = 'continues-reads';

/**
 * The route's first step reads more of what the personal API guard read (the account, its memberships): the guard
 * hands its read group on (`readGroupOf`) instead of committing it, and the handler ends it after those reads
 * (ADR 111). The reply's end ends it too, should the handler never take it.
 */
export const ContinuesReads = (): MethodDecorator => SetMetadata(CONTINUES_READS, true);

/** The read group the guard handed on to this request's handler (ContinuesReads), if any. */
export function readGroupOf(request: object): ReadGroupHandle | undefined {
  return (request as { readGroup?: ReadGroupHandle }).readGroup;
}

/** The OpenAPI vendor extension `Access` leaves on each operation; the document derives security from it. */
export const ACCESS_EXTENSION = 'x-access';

/** Declares the rule, and documents it: the OpenAPI document derives the route's security from it. */
export const Access = (rule: AccessRule): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(ACCESS_RULE, rule), ApiExtension(ACCESS_EXTENSION, { ...rule }));

/** Who is calling, once the guard accepted the credential. */
export interface Principal {
  readonly accountId: string;
  readonly via: 'api_key' | 'access_token' | 'session';
  /**
   * The channel charges are recorded under: `mcp` on the MCP endpoint, or when an access token says its client
   * is an MCP client.
   */
  readonly channel: 'api' | 'session' | 'mcp';
  readonly scopes: readonly string[];
  readonly keyId?: string;
  readonly tokenId?: string;
  /** The OAuth client an access token of the authorization server was issued to (ADR 106): events of its calls carry it. */
  readonly clientId?: string;
  readonly sessionId?: string;
  readonly organizationId?: string | null;
}

/** The read-model lookups the guard needs; implemented by the accounts context. */
export interface PrincipalDirectory {
  findApiKey(keyId: string): Promise<{ accountId: string; secretHash: string; revoked: boolean } | null>;
  /**
   * Whether the account exists and may make personal data requests (Authentication 3), read together; with
   * the moment until which its access tokens were invalidated as a whole (ADR 75), or null.
   */
  accountStanding(accountId: string): Promise<{
    readonly exists: boolean;
    readonly personalData: PersonalDataStanding;
    readonly accessTokensIssuedBefore: string | null;
  }>;
  /** When this access token was revoked (ADR 74), or null: one lookup by id in the access tokens read model. */
  accessTokenRevokedAt(tokenId: string): Promise<string | null>;
}

/** Authentication 3 for one account: allowed, or refused with the rule and why (the 402 message and details). */
export type PersonalDataStanding =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly message: string;
      readonly details: Readonly<Record<string, unknown>>;
    };

export const PRINCIPAL_DIRECTORY = Symbol('PrincipalDirectory');

/** The operator an `operator` surface route serves, once the guard accepted the credential. */
export interface OperatorPrincipal {
  readonly name: string;
  readonly credentialId: string;
}

/**
 * Checks an operator credential (`opc_<id>_<secret>`) for the `operator` surface; implemented by the operators
 * context (authenticateOperator, the CLI's own check). Throws a ServiceError `unauthenticated` when refused.
 */
export interface OperatorAuthenticator {
  authenticate(credential: string): Promise<OperatorPrincipal>;
}

export const OPERATOR_AUTHENTICATOR = Symbol('OperatorAuthenticator');

/**
 * Organization rule 1: an account that belongs to an organization has no personal research. Implemented by the
 * organizations context; the guard asks it on every personal data route before the entitlement check, so such
 * an account gets the same refusal whatever its personal balance.
 */
export interface PersonalResearchGate {
  /** The refusal when the account's personal research is unavailable; null when it may research for itself. */
  refusal(accountId: string): Promise<ServiceError | null>;
}

export const PERSONAL_RESEARCH_GATE = Symbol('PersonalResearchGate');
export const SERVICE_SCOPE = 'service.read';
