import { Body, Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ApiErrors, ApiEventStream, ApiJson, ApiPathParams } from '../../platform/http/openapi/responses.js';
import {
  DATASET_ANSWER,
  DATASET_PARAM,
  SEARCH_CHUNK,
  SEARCH_FIELDS,
  SEARCH_OUTCOME,
  SEARCH_PAGE,
} from './search.openapi.js';
import { DatasetSearchBody, SearchBody, SearchMoreBody } from './search.dtos.js';
import { SearchHandler } from './search-handler.js';

const UNIFIED_ANSWER = {
  json: SEARCH_OUTCOME,
  chunk: SEARCH_CHUNK,
  description: 'Server-Sent Events (stream omitted or true), or one JSON answer (stream: false)',
};

/** Personal API search: API key or access token; every route is a personal data request. */
@ApiTags('search')
@Controller('api/v2/common/data')
export class PersonalSearchController {
  constructor(@Inject(SearchHandler) private readonly handler: SearchHandler) {}

  @Post('search')
  @HttpCode(200)
  @Access({ surface: 'personal_api', permission: 'data.search', personalData: true })
  @ApiOperation({ summary: 'Unified search over hosts, dns, vhosts and whois (SSE unless stream is false)' })
  @ApiEventStream(200, UNIFIED_ANSWER)
  @ApiErrors(402, 403, 409)
  search(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SearchBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.handler.search(principal, body, request, reply);
  }

  @Post('search/more')
  @HttpCode(200)
  @Access({ surface: 'personal_api', permission: 'data.search', personalData: true })
  @ApiOperation({ summary: "One dataset's further page (page 2 or more), priced by depth" })
  @ApiJson(200, SEARCH_PAGE)
  @ApiErrors(402, 403, 409)
  more(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SearchMoreBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.handler.more(principal, body, request, reply);
  }

  @Get('search/fields')
  @Access({ surface: 'personal_api', permission: 'data.search', personalData: true })
  @ApiOperation({ summary: 'Searchable vocabulary; no charge; a listed field may need a higher entitlement' })
  @ApiJson(200, SEARCH_FIELDS)
  fields() {
    return this.handler.fields();
  }

  @Post(':dataset')
  @HttpCode(200)
  @Access({ surface: 'personal_api', permission: 'data.search', personalData: true })
  @ApiOperation({ summary: 'Single-dataset search (hosts, dns, vhosts, whois): rows or facet counts' })
  @ApiPathParams(DATASET_PARAM)
  @ApiJson(200, DATASET_ANSWER)
  @ApiErrors(402, 403, 409)
  dataset(
    @CurrentPrincipal() principal: Principal,
    @Param('dataset') dataset: string,
    @Body() body: DatasetSearchBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.handler.dataset(principal, dataset, body, request, reply);
  }
}

/** The browser twins of search: session cookie, CSRF on POST. */
@ApiTags('search')
@Controller('api/v2/data')
export class BrowserSearchController {
  constructor(@Inject(SearchHandler) private readonly handler: SearchHandler) {}

  @Post('search')
  @HttpCode(200)
  @Access({ surface: 'session', permission: 'data.search' })
  @ApiOperation({ summary: 'Unified search from the browser (SSE unless stream is false)' })
  @ApiEventStream(200, UNIFIED_ANSWER)
  @ApiErrors(402, 403, 409)
  search(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SearchBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.handler.search(principal, body, request, reply);
  }

  @Post('search/more')
  @HttpCode(200)
  @Access({ surface: 'session', permission: 'data.search' })
  @ApiOperation({ summary: "One dataset's further page from the browser" })
  @ApiJson(200, SEARCH_PAGE)
  @ApiErrors(402, 403, 409)
  more(
    @CurrentPrincipal() principal: Principal,
    @Body() body: SearchMoreBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.handler.more(principal, body, request, reply);
  }

  @Get('search/fields')
  @Access({ surface: 'session', permission: 'data.search' })
  @ApiOperation({ summary: 'Searchable vocabulary' })
  @ApiJson(200, SEARCH_FIELDS)
  fields() {
    return this.handler.fields();
  }

  @Post(':dataset')
  @HttpCode(200)
  @Access({ surface: 'session', permission: 'data.search' })
  @ApiOperation({ summary: 'Single-dataset search from the browser' })
  @ApiPathParams(DATASET_PARAM)
  @ApiJson(200, DATASET_ANSWER)
  @ApiErrors(402, 403, 409)
  dataset(
    @CurrentPrincipal() principal: Principal,
    @Param('dataset') dataset: string,
    @Body() body: DatasetSearchBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.handler.dataset(principal, dataset, body, request, reply);
  }
}
