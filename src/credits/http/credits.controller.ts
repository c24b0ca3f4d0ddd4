import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ApiJson } from '../../platform/http/openapi/responses.js';
import { CREDIT_STATE, CREDIT_USAGE } from './credits.openapi.js';
import { CreditQueries, type CreditStateView, type CreditUsageView } from '../queries/credit-queries.js';

/** Personal credit state and usage (session). Reading them charges nothing. */
@ApiTags('credits')
@Controller('api/v2/auth/credits')
export class CreditsController {
  constructor(@Inject(CreditQueries) private readonly credits: CreditQueries) {}

  @Get()
  @Access({ surface: 'session', permission: 'credits.read' })
  @ApiOperation({ summary: 'Monthly allocation, usage, purchased balance and plan of the signed-in account' })
  @ApiJson(200, CREDIT_STATE)
  state(@CurrentPrincipal() principal: Principal): Promise<CreditStateView> {
    return this.credits.creditState(principal.accountId);
  }

  @Get('usage')
  @Access({ surface: 'session', permission: 'credits.read' })
  @ApiOperation({ summary: 'Credits spent this cycle by category; usage_mcp is the MCP subset of usage' })
  @ApiJson(200, CREDIT_USAGE)
  usage(@CurrentPrincipal() principal: Principal): Promise<CreditUsageView> {
    return this.credits.usage(principal.accountId);
  }
}

/** The same credit state for API consumers (personal API key or token): checking a balance is not a data request. */
@ApiTags('credits')
@Controller('api/v2/common/credits')
export class PersonalCreditsController {
  constructor(@Inject(CreditQueries) private readonly credits: CreditQueries) {}

  @Get()
  @Access({ surface: 'personal_api', permission: 'credits.read' })
  @ApiOperation({ summary: 'Credit state of the account that owns the key or token' })
  @ApiJson(200, CREDIT_STATE)
  state(@CurrentPrincipal() principal: Principal): Promise<CreditStateView> {
    return this.credits.creditState(principal.accountId);
  }
}
