import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { envelopeFor } from '../../platform/http/request-envelope.js';
import { IssueApiKey, RevokeApiKey } from '../commands/account.commands.js';
import { AccountDirectory } from '../queries/account-directory.js';
import { ApiEmpty, ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { API_KEYS, ISSUED_API_KEY } from './accounts.openapi.js';
import { IssueApiKeyBody } from './account.dtos.js';

export interface ApiKeyView {
  readonly id: string;
  readonly prefix: string;
  readonly label: string;
  readonly issued_at: string;
  readonly revoked_at: string | null;
}

/** Personal API keys of the signed-in account: shown once at creation, then only by prefix. */
@ApiTags('auth')
@Controller('api/v2/auth/keys')
export class ApiKeysController {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(AccountDirectory) private readonly accounts: AccountDirectory,
  ) {}

  @Get()
  @Access({ surface: 'session', permission: 'keys.manage' })
  @ApiOperation({ summary: 'Keys of the signed-in account (never the secret)' })
  @ApiJson(200, API_KEYS)
  async list(@CurrentPrincipal() principal: Principal): Promise<ApiKeyView[]> {
    const keys = await this.accounts.listApiKeys(principal.accountId);
    return keys.map((key) => ({
      id: key.id,
      prefix: key.prefix,
      label: key.label,
      issued_at: key.issuedAt,
      revoked_at: key.revokedAt,
    }));
  }

  @Post()
  @Access({ surface: 'session', permission: 'keys.manage' })
  @ApiOperation({ summary: 'Issue a personal API key; the key is in this response only' })
  @ApiJson(201, ISSUED_API_KEY, 'Issued')
  async issue(
    @CurrentPrincipal() principal: Principal,
    @Body() body: IssueApiKeyBody,
    @Req() request: FastifyRequest,
  ): Promise<ApiKeyView & { key: string }> {
    const issued = await this.commands.execute(
      new IssueApiKey(principal.accountId, body.label ?? '', envelopeFor(principal, String(request.id))),
    );
    return {
      id: issued.keyId,
      prefix: issued.prefix,
      label: issued.label,
      issued_at: issued.issuedAt,
      revoked_at: null,
      key: issued.key,
    };
  }

  @Delete(':keyId')
  @HttpCode(204)
  @Access({ surface: 'session', permission: 'keys.manage' })
  @ApiOperation({ summary: 'Revoke a key; it stops working at once' })
  @ApiEmpty(204, 'Revoked')
  @ApiErrors(404)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @Param('keyId') keyId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.commands.execute(
      new RevokeApiKey(principal.accountId, keyId, envelopeFor(principal, String(request.id))),
    );
  }
}
