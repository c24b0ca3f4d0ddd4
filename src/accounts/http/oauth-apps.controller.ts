import { Controller, Delete, Get, HttpCode, Inject, Param, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Access, SERVICE_SCOPE, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { MCP_RESOURCE_PATH } from '../../platform/auth/oauth-issuers.js';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { ApiEmpty, ApiErrors, ApiJson, ApiPathParams } from '../../platform/http/openapi/responses.js';
import {
  arrayOf,
  component,
  dateTime,
  nullable,
  object,
  string,
} from '../../platform/http/openapi/schema.js';
import { publicOrigin } from '../../platform/http/public-origin.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { RevokeOAuthGrant } from '../commands/oauth.commands.js';
import { OAuthStore } from '../oauth/oauth-store.js';
import { AccountDirectory } from '../queries/account-directory.js';

const AUTHORIZED_APP = component(
  'AuthorizedApp',
  object({
    client_id: string(),
    client_name: string({ description: 'as the app registered it' }),
    redirect_host: string({ description: 'where the app received the authorization' }),
    scopes: arrayOf(string()),
    authorized_at: dateTime({ description: 'the latest consent still in force' }),
    last_token_at: nullable(dateTime()),
  }),
);

const PROTECTED_RESOURCE = component(
  'ProtectedResourceMetadata',
  object({
    resource: string({ description: 'the resource identifier (RFC 8707) a token is bound to' }),
    authorization_servers: arrayOf(string()),
    scopes_supported: arrayOf(string()),
    bearer_methods_supported: arrayOf(string()),
    resource_name: string(),
  }),
);

export interface AuthorizedAppView {
  readonly client_id: string;
  readonly client_name: string;
  readonly redirect_host: string;
  readonly scopes: string[];
  readonly authorized_at: string;
  readonly last_token_at: string | null;
}

/** The third-party apps the account authorized through OAuth (ADR 107): listed and revoked from the session. */
@ApiTags('auth')
@Controller('api/v2/auth/apps')
export class OAuthAppsController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(OAuthStore) private readonly store: OAuthStore,
  ) {}

  @Get()
  @Access({ surface: 'session', permission: 'tokens.manage' })
  @ApiOperation({
    summary: 'The OAuth apps the signed-in account authorized and has not revoked, newest first',
  })
  @ApiJson(200, arrayOf(AUTHORIZED_APP))
  async list(@CurrentPrincipal() principal: Principal): Promise<AuthorizedAppView[]> {
    const grants = await this.accounts.listOAuthGrants(principal.accountId);
    const apps = new Map<string, AuthorizedAppView>();
    for (const grant of grants) {
      // One entry per app: its newest grant (several consents of one app are one authorization to the account).
      const known = apps.get(grant.clientId);
      const lastTokenAt = [known?.last_token_at ?? null, grant.lastIssuedAt]
        .filter((at) => at !== null)
        .sort()
        .pop();
      apps.set(grant.clientId, {
        client_id: grant.clientId,
        client_name: known?.client_name ?? grant.clientName,
        redirect_host: known?.redirect_host ?? grant.redirectHost,
        scopes: [...grant.scopes],
        authorized_at: known?.authorized_at ?? grant.authorizedAt,
        last_token_at: lastTokenAt ?? null,
      });
    }
    return [...apps.values()];
  }

  @Delete(':clientId')
  @HttpCode(204)
  @Access({ surface: 'session', permission: 'tokens.manage' })
  @ApiOperation({
    summary:
      'Revoke an app: every grant of it ends, its access tokens are refused (401 token_revoked) and its refresh tokens deleted from when this answers',
  })
  @ApiPathParams({
    clientId: {
      schema: string({ maxLength: 512 }),
      description: 'the client_id GET /api/v2/auth/apps lists',
    },
  })
  @ApiEmpty(204, 'Revoked')
  @ApiErrors(404)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('clientId') clientId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    const grants = await this.accounts.listOAuthGrants(principal.accountId, { clientId });
    if (grants.length === 0) throw new ServiceError('not_found', 'no such authorized app');
    const envelope = envelopeFor(principal, String(request.id));
    for (const grant of grants) {
      await this.commands.execute(
        new RevokeOAuthGrant(grant.id, 'revoked_by_account', envelope, principal.accountId),
      );
      await this.store.revokeGrantArtifacts(grant.id);
    }
  }
}

/**
 * OAuth protected resource metadata (RFC 9728): where a client learns which authorization server issues tokens
 * for this service. The base document names the personal API (the origin); `/mcp` names the MCP endpoint.
 */
@ApiTags('auth')
@Controller('.well-known/oauth-protected-resource')
export class ProtectedResourceController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get()
  @Access({ surface: 'public', permission: 'oauth.metadata' })
  @ApiOperation({ summary: 'Protected resource metadata (RFC 9728) of the personal API' })
  @ApiJson(200, PROTECTED_RESOURCE)
  api(@Req() request: FastifyRequest): Record<string, unknown> {
    const origin = publicOrigin(this.config, request);
    return metadata(origin, origin, 'Exposure research personal API');
  }

  @Get('mcp')
  @Access({ surface: 'public', permission: 'oauth.metadata' })
  @ApiOperation({ summary: 'Protected resource metadata (RFC 9728) of the MCP endpoint' })
  @ApiJson(200, PROTECTED_RESOURCE)
  mcp(@Req() request: FastifyRequest): Record<string, unknown> {
    const origin = publicOrigin(this.config, request);
    return metadata(origin, `${origin}${MCP_RESOURCE_PATH}`, 'Exposure research MCP endpoint');
  }
}

function metadata(issuer: string, resource: string, name: string): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [SERVICE_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: name,
  };
}
