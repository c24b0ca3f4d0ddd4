import { Body, Controller, Inject, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, SERVICE_SCOPE, type Principal } from '../../platform/auth/access.js';
import { AccessTokens } from '../../platform/auth/access-tokens.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ServiceError } from '../../platform/errors/service-error.js';
import { accessTokenDecision } from '../domain/entitlements.js';
import { AccountDirectory } from '../queries/account-directory.js';
import { ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { ACCESS_TOKEN } from './accounts.openapi.js';
import { CreateAccessTokenBody } from './account.dtos.js';

/** OAuth access tokens for the personal API, created from a browser session. */
@ApiTags('auth')
@Controller('api/v2/auth/tokens')
export class AccessTokensController {
  constructor(
    @Inject(AccessTokens) private readonly tokens: AccessTokens,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
  ) {}

  @Post()
  @Access({ surface: 'session', permission: 'tokens.create' })
  @ApiOperation({
    summary: 'Create an access token (JWT); a Free account holding only its monthly allocation is refused',
  })
  @ApiJson(201, ACCESS_TOKEN, 'Created')
  @ApiErrors(402)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateAccessTokenBody,
  ): Promise<{
    access_token: string;
    token_type: 'Bearer';
    expires_in: number;
    expires_at: string;
    scope: string;
  }> {
    const account = await this.accounts.account(principal.accountId);
    if (!account) throw new ServiceError('unauthenticated', 'the session belongs to no account');
    const plan = this.accounts.plan(account);
    const decision = accessTokenDecision(plan, await this.accounts.purchasedBalance(principal.accountId));
    if (!decision.allowed) throw new ServiceError('entitlement_required', decision.message, decision.details);
    const scopes = body.scopes ?? [SERVICE_SCOPE];
    const expiresIn = body.expires_in ?? 3600;
    const issued = await this.tokens.issue({
      accountId: principal.accountId,
      scopes,
      client: body.client ?? 'api',
      ttlSeconds: expiresIn,
    });
    return {
      access_token: issued.token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      expires_at: issued.expiresAt.toISOString(),
      scope: scopes.join(' '),
    };
  }
}
