import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { AS_OF_PARAMETER } from '../../platform/http/openapi/as-of.js';
import { ApiErrors, ApiJson, ApiQueryParams } from '../../platform/http/openapi/responses.js';
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
  @ApiErrors(404, 422)
  @ApiQueryParams(AS_OF_PARAMETER)
  state(@CurrentPrincipal() principal: Principal, @Query('as_of') asOf?: unknown): Promise<CreditStateView> {
    return this.credits.creditState(principal.accountId, asOf);
  }

  @Get('usage')
  @Access({ surface: 'session', permission: 'credits.read' })
  @ApiOperation({ summary: 'Credits spent this cycle by category; usage_mcp is the MCP subset of usage' })
  @ApiJson(200, CREDIT_USAGE)
  @ApiErrors(404, 422)
  @ApiQueryParams(AS_OF_PARAMETER)
  usage(@CurrentPrincipal() principal: Principal, @Query('as_of') asOf?: unknown): Promise<CreditUsageView> {
    return this.credits.usage(principal.accountId, asOf);
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
  @ApiErrors(404, 422)
  @ApiQueryParams(AS_OF_PARAMETER)
  state(@CurrentPrincipal() principal: Principal, @Query('as_of') asOf?: unknown): Promise<CreditStateView> {
    return this.credits.creditState(principal.accountId, asOf);
  }
}
