import { Body, Controller, HttpCode, Inject, Param, Post, Req, Res, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Access, ContinuesReads, type AccessRule, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import {
  ApiErrors,
  ApiEventStream,
  ApiPathParams,
  retryAfterHeader,
} from '../../platform/http/openapi/responses.js';
import { Route } from '../../platform/http/route.js';
import {
  DATASET_ANSWER,
  DATASET_PARAM,
  SEARCH_CHUNK,
  SEARCH_FIELDS,
  SEARCH_OUTCOME,
  SEARCH_PAGE,
  SEARCH_PAGE_QUOTE,
} from './search.openapi.js';
import { DatasetSearchBody, SearchBody, SearchMoreBody } from './search.dtos.js';
import { SearchHandler } from './search-handler.js';

const UNIFIED_ANSWER = {
  json: SEARCH_OUTCOME,
  chunk: SEARCH_CHUNK,
  description: 'Server-Sent Events (stream omitted or true), or one JSON answer (stream: false)',
};

/** What differs between the two surfaces of search: where, who, and how each route is summarized. */
interface SearchSurface {
  readonly name: string;
  readonly path: string;
  readonly access: AccessRule;
  readonly summaries: {
    readonly search: string;
    readonly more: string;
    readonly quote: string;
    readonly fields: string;
    readonly dataset: string;
  };
}

/** The search routes of one surface; what they do is the handler's, once for both. */
function searchController(surface: SearchSurface): Type<unknown> {
  @ApiTags('search')
  @Controller(surface.path)
  class SearchController {
    constructor(@Inject(SearchHandler) private readonly handler: SearchHandler) {}

    // Server-Sent Events or one JSON answer: more than a Route's single JSON answer documents.
    @Post('search')
    @HttpCode(200)
    @Access(surface.access)
    @ContinuesReads()
    @ApiOperation({ summary: surface.summaries.search })
    @ApiEventStream(200, {
      ...UNIFIED_ANSWER,
      // One JSON answer with a dataset `busy` says when to ask it again (the others answered in full).
      headers: retryAfterHeader(
        'with `stream: false`, when a dataset was busy: seconds before asking it again',
      ),
    })
    @ApiErrors(402, 403, 409)
    search(
      @CurrentPrincipal() principal: Principal,
      @Body() body: SearchBody,
      @Req() request: FastifyRequest,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      return this.handler.search(principal, body, request, reply);
    }

    @Route({
      method: 'POST',
      path: 'search/more',
      access: surface.access,
      summary: surface.summaries.more,
      answer: { status: 200, schema: SEARCH_PAGE },
      errors: [402, 403, 409],
    })
    @ContinuesReads()
    more(
      @CurrentPrincipal() principal: Principal,
      @Body() body: SearchMoreBody,
      @Req() request: FastifyRequest,
      @Res({ passthrough: true }) reply: FastifyReply,
    ) {
      return this.handler.more(principal, body, request, reply);
    }

    @Route({
      method: 'POST',
      path: 'search/more/quote',
      access: surface.access,
      summary: surface.summaries.quote,
      answer: { status: 200, schema: SEARCH_PAGE_QUOTE },
    })
    @ContinuesReads()
    quote(
      @CurrentPrincipal() principal: Principal,
      @Body() body: SearchMoreBody,
      @Req() request: FastifyRequest,
    ) {
      return this.handler.quote(principal, body, request);
    }

    @Route({
      method: 'GET',
      path: 'search/fields',
      access: surface.access,
      summary: surface.summaries.fields,
      answer: { status: 200, schema: SEARCH_FIELDS },
    })
    fields() {
      return this.handler.fields();
    }

    @Route({
      method: 'POST',
      path: ':dataset',
      access: surface.access,
      summary: surface.summaries.dataset,
      answer: { status: 200, schema: DATASET_ANSWER },
      errors: [402, 403, 409],
      also: [ApiPathParams(DATASET_PARAM)],
    })
    @ContinuesReads()
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
  // The document's operation ids are the controller's name and the method's.
  Object.defineProperty(SearchController, 'name', { value: surface.name });
  return SearchController;
}

/** Personal API search: API key or access token; every route is a personal data request. */
export const PersonalSearchController = searchController({
  name: 'PersonalSearchController',
  path: 'api/v2/common/data',
  access: { surface: 'personal_api', permission: 'data.search', personalData: true },
  summaries: {
    search: 'Unified search over hosts, dns, vhosts and whois (SSE unless stream is false)',
    more: "One dataset's further page (page 2 or more), priced by depth",
    quote: 'What search/more would charge for that page (depth pricing), free: nothing is reserved or read',
    fields: 'Searchable vocabulary; no charge; a listed field may need a higher entitlement',
    dataset: 'Single-dataset search (hosts, dns, vhosts, whois): rows or facet counts',
  },
});

/** The browser twins of search: session cookie, CSRF on POST. */
export const BrowserSearchController = searchController({
  name: 'BrowserSearchController',
  path: 'api/v2/data',
  access: { surface: 'session', permission: 'data.search' },
  summaries: {
    search: 'Unified search from the browser (SSE unless stream is false)',
    more: "One dataset's further page from the browser",
    quote: "The price of one dataset's further page, before paying (free)",
    fields: 'Searchable vocabulary',
    dataset: 'Single-dataset search from the browser',
  },
});
