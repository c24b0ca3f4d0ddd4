import { Body, Controller, Inject, type Type } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import type { AccessRule, Principal } from '../../platform/auth/access.js';
import { CurrentPrincipal } from '../../platform/auth/current-principal.js';
import { Route } from '../../platform/http/route.js';
import { EnrichmentHandler } from './enrichment-handler.js';
import { BadgeEnrichmentBody, VulnerabilityEnrichmentBody } from './enrichment.dtos.js';
import {
  BADGE_ENRICHMENT,
  BADGES_REQUEST,
  VULNERABILITIES_REQUEST,
  VULNERABILITY_ENRICHMENT,
} from './enrichment.openapi.js';

/** What differs between the two surfaces of enrichment: where, who, and how each route is summarized. */
interface EnrichmentSurface {
  readonly name: string;
  readonly path: string;
  readonly access: AccessRule;
  readonly summaries: { readonly vulnerabilities: string; readonly badges: string };
}

/**
 * The enrichment routes of one surface: no search charge. The bodies' shapes are their DTOs'; the contract's
 * rules on them are the handler's (parseVulnerabilityRequest, validateBadgeItems), so they live in one place.
 */
function enrichmentController(surface: EnrichmentSurface): Type<unknown> {
  @ApiTags('enrichment')
  @Controller(surface.path)
  class EnrichmentController {
    constructor(@Inject(EnrichmentHandler) private readonly handler: EnrichmentHandler) {}

    @Route({
      method: 'POST',
      path: 'vulnerabilities',
      access: surface.access,
      summary: surface.summaries.vulnerabilities,
      answer: { status: 200, schema: VULNERABILITY_ENRICHMENT },
      errors: [403, 429],
    })
    @ApiBody({ schema: VULNERABILITIES_REQUEST })
    vulnerabilities(@CurrentPrincipal() principal: Principal, @Body() body: VulnerabilityEnrichmentBody) {
      return this.handler.vulnerabilities(principal, body);
    }

    @Route({
      method: 'POST',
      path: 'badges',
      access: surface.access,
      summary: surface.summaries.badges,
      answer: { status: 200, schema: BADGE_ENRICHMENT },
      errors: [403, 429],
    })
    @ApiBody({ schema: BADGES_REQUEST })
    badges(@CurrentPrincipal() principal: Principal, @Body() body: BadgeEnrichmentBody) {
      return this.handler.badges(principal, body);
    }
  }
  // The document's operation ids are the controller's name and the method's.
  Object.defineProperty(EnrichmentController, 'name', { value: surface.name });
  return EnrichmentController;
}

/** Personal API enrichment: personal data requests (Authentication 3). */
export const PersonalEnrichmentController = enrichmentController({
  name: 'PersonalEnrichmentController',
  path: 'api/v2/common/data/enrich',
  access: { surface: 'personal_api', permission: 'data.enrich', personalData: true },
  summaries: {
    vulnerabilities:
      'CVE/KEV findings for a vulnerability_ref or 1 to 8 CPE names; no search charge; asset not contacted',
    badges: 'Contextual badges for up to 50 result items; no search charge',
  },
});

/** The browser twins: session cookie and CSRF. */
export const BrowserEnrichmentController = enrichmentController({
  name: 'BrowserEnrichmentController',
  path: 'api/v2/data/enrich',
  access: { surface: 'session', permission: 'data.enrich' },
  summaries: {
    vulnerabilities: 'Vulnerability enrichment from the browser',
    badges: 'Badge enrichment from the browser',
  },
});
