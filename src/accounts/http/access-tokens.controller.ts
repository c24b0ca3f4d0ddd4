import { Body, Controller, Inject, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, SERVICE_SCOPE, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { CreateAccessToken } from '../commands/account.commands.js';
import { ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { ACCESS_TOKEN } from './accounts.openapi.js';
import { CreateAccessTokenBody } from './account.dtos.js';

/** OAuth access tokens for the personal API, created from a browser session. */
@ApiTags('auth')
@Controller('api/v2/auth/tokens')
export class AccessTokensController {
  constructor(@Inject(CommandBus) private readonly commands: CommandBus) {}

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
}
