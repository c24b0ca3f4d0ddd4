import { Body, Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Access, type Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { EnrichmentHandler } from './enrichment-handler.js';

const VULNERABILITIES_BODY = {
  schema: {
    type: 'object',
    properties: {
      reference: { type: 'string', description: 'a vulnerability_ref from search results (never with cpes)' },
      cpes: {
        type: 'array',
        items: { type: 'string' },
        minItems: 1,
        maxItems: 8,
        description: 'CPE 2.3 names (needs the CPE field entitlement, Enterprise)',
      },
    },
  },
};

const BADGES_BODY = {
  schema: {
    type: 'object',
    required: ['items'],
    properties: {
      items: {
        type: 'array',
        maxItems: 50,
        items: {
          type: 'object',
          required: ['key', 'type', 'value'],
          properties: {
            key: { type: 'string', description: 'unique in the request, at most 256 UTF-8 bytes' },
            type: { type: 'string', enum: ['host', 'domain', 'ip', 'cert', 'whois', 'dns'] },
            value: { type: 'string' },
            record: { type: 'object', description: 'at most 4 KiB; never used as evidence' },
          },
        },
      },
    },
  },
};

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
  vulnerabilities(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.vulnerabilities(principal, body);
  }

  @Post('badges')
  @HttpCode(200)
  @Access({ surface: 'personal_api', permission: 'data.enrich', personalData: true })
  @ApiOperation({ summary: 'Contextual badges for up to 50 result items; no search charge' })
  @ApiBody(BADGES_BODY)
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
  vulnerabilities(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.vulnerabilities(principal, body);
  }

  @Post('badges')
  @HttpCode(200)
  @Access({ surface: 'session', permission: 'data.enrich' })
  @ApiOperation({ summary: 'Badge enrichment from the browser' })
  @ApiBody(BADGES_BODY)
  badges(@CurrentPrincipal() principal: Principal, @Body() body: unknown) {
    return this.handler.badges(principal, body);
  }
}
