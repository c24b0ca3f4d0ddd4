import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, SERVICE_SCOPE, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { CLOCK, type Clock } from '../../platform/clock/clock.js';
import { CreateAccessToken, RevokeAccessToken } from '../commands/account.commands.js';
import { AccountDirectory } from '../queries/account-directory.js';
import { ApiEmpty, ApiErrors, ApiJson, ApiPathParams } from '../../platform/http/openapi/responses.js';
import { string } from '../../platform/http/openapi/schema.js';
import { ACCESS_TOKEN, ACCESS_TOKEN_SUMMARIES } from './accounts.openapi.js';
import { CreateAccessTokenBody } from './account.dtos.js';

export interface AccessTokenView {
  readonly id: string;
  readonly client: string;
  readonly scopes: readonly string[];
  readonly issued_at: string;
  readonly expires_at: string;
  readonly revoked_at: string | null;
}

/** OAuth access tokens for the personal API, created, listed and revoked from a browser session. */
@ApiTags('auth')
@Controller('api/v2/auth/tokens')
export class AccessTokensController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
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
    @Req() request: FastifyRequest,
  ): Promise<{
    access_token: string;
    token_type: 'Bearer';
    expires_in: number;
    expires_at: string;
    scope: string;
  }> {
    const scopes = body.scopes ?? [SERVICE_SCOPE];
    const expiresIn = body.expires_in ?? 3600;
    const issued = await this.commands.execute(
      new CreateAccessToken(
        principal.accountId,
        scopes,
        body.client ?? 'api',
        expiresIn,
        envelopeFor(principal, String(request.id)),
      ),
    );
    return {
      access_token: issued.token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      expires_at: issued.expiresAt.toISOString(),
      scope: scopes.join(' '),
    };
  }

  @Get()
  @Access({ surface: 'session', permission: 'tokens.manage' })
  @ApiOperation({
    summary:
      "The signed-in account's access tokens that have not expired, newest first (at most 1000; never the token)",
  })
  @ApiJson(200, ACCESS_TOKEN_SUMMARIES)
  async list(@CurrentPrincipal() principal: Principal): Promise<AccessTokenView[]> {
    const tokens = await this.accounts.listAccessTokens(principal.accountId, this.clock.now());
    return tokens.map((token) => ({
      id: token.id,
      client: token.client,
      scopes: [...token.scopes],
      issued_at: token.issuedAt,
      expires_at: token.expiresAt,
      revoked_at: token.revokedAt,
    }));
  }

  @Delete(':tokenId')
  @HttpCode(204)
  @Access({ surface: 'session', permission: 'tokens.manage' })
  @ApiOperation({
    summary:
      'Revoke an access token: refused (401 token_revoked) from when this answers; revoking it again is a 204 too',
  })
  @ApiPathParams({
    tokenId: { schema: string({ maxLength: 512 }), description: 'the id GET /api/v2/auth/tokens lists' },
  })
  @ApiEmpty(204, 'Revoked')
  @ApiErrors(404)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('tokenId') tokenId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.commands.execute(
      new RevokeAccessToken(principal.accountId, tokenId, envelopeFor(principal, String(request.id))),
    );
  }
}
