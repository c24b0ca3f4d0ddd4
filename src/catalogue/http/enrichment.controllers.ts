import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { ApiErrors, ApiJson } from '../../platform/http/openapi/responses.js';
import { EnrichmentHandler } from './enrichment-handler.js';
import {
  BADGE_ENRICHMENT,
  BADGES_REQUEST,
  VULNERABILITIES_REQUEST,
  VULNERABILITY_ENRICHMENT,
} from './enrichment.openapi.js';

const VULNERABILITIES_BODY = { schema: VULNERABILITIES_REQUEST };
const BADGES_BODY = { schema: BADGES_REQUEST };

/**
 * Personal API enrichment: no search charge; personal data requests (Authentication 3). The bodies are checked by
 * the handler (parseVulnerabilityRequest, validateBadgeItems) so the rules live in one place.
 */
@ApiTags('enrichment')
@Controller('api/v2/common/data/enrich')
export class PersonalEnrichmentController {
  constructor(@Inject(EnrichmentHandler) private readonly handler: EnrichmentHandler) {}

  @Post('vulnerabilities')
  @HttpCode(200)
  @Access({ surface: 'personal_api', permission: 'data.enrich', personalData: true })
  @ApiOperation({
    summary:
      'CVE/KEV findings for a vulnerability_ref or 1 to 8 CPE names; no search charge; asset not contacted',
  })
  @ApiBody(VULNERABILITIES_BODY)
  @ApiJson(200, VULNERABILITY_ENRICHMENT)
  @ApiErrors(403, 429)
  vulnerabilities(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.vulnerabilities(principal, body);
  }

  @Post('badges')
  @HttpCode(200)
  @Access({ surface: 'personal_api', permission: 'data.enrich', personalData: true })
  @ApiOperation({ summary: 'Contextual badges for up to 50 result items; no search charge' })
  @ApiBody(BADGES_BODY)
  @ApiJson(200, BADGE_ENRICHMENT)
  @ApiErrors(403, 429)
  badges(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.badges(principal, body);
  }
}

/** The browser twins: session cookie and CSRF. */
@ApiTags('enrichment')
@Controller('api/v2/data/enrich')
export class BrowserEnrichmentController {
  constructor(@Inject(EnrichmentHandler) private readonly handler: EnrichmentHandler) {}

  @Post('vulnerabilities')
  @HttpCode(200)
  @Access({ surface: 'session', permission: 'data.enrich' })
  @ApiOperation({ summary: 'Vulnerability enrichment from the browser' })
  @ApiBody(VULNERABILITIES_BODY)
  @ApiJson(200, VULNERABILITY_ENRICHMENT)
  @ApiErrors(403, 429)
  vulnerabilities(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.vulnerabilities(principal, body);
  }

  @Post('badges')
  @HttpCode(200)
  @Access({ surface: 'session', permission: 'data.enrich' })
  @ApiOperation({ summary: 'Badge enrichment from the browser' })
  @ApiBody(BADGES_BODY)
  @ApiJson(200, BADGE_ENRICHMENT)
  @ApiErrors(403, 429)
  badges(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.badges(principal, body);
  }
}
