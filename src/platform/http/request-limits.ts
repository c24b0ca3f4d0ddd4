/** Limits of a request the HTTP layer enforces before any route code runs. */

/**
 * Body limits of the contract, per route (bytes). Larger bodies are refused with 413 payload_too_large before
 * they are parsed. Routes not listed accept the service-wide limit (DEFAULT_BODY_LIMIT).
 */
export const ROUTE_BODY_LIMITS: Readonly<Record<string, number>> = {
  '/api/v2/common/data/search': 4 * 1024,
  '/api/v2/data/search': 4 * 1024,
  '/api/v2/common/data/search/more': 4 * 1024,
  '/api/v2/data/search/more': 4 * 1024,
  // The quote takes search/more's body, so it has its limit.
  '/api/v2/common/data/search/more/quote': 4 * 1024,
  '/api/v2/data/search/more/quote': 4 * 1024,
  '/api/v2/common/data/:dataset': 4 * 1024,
  '/api/v2/data/:dataset': 4 * 1024,
  '/api/v2/common/data/enrich/vulnerabilities': 100 * 1024,
  '/api/v2/data/enrich/vulnerabilities': 100 * 1024,
  '/api/v2/common/data/enrich/badges': 256 * 1024,
  '/api/v2/data/enrich/badges': 256 * 1024,
};

/**
 * Longest path parameter (an id, a dataset, an asset key) the router matches; longer ones are 414 uri_too_long
 * before any route code runs. Asset keys hold a host name (up to 253 characters) and a prefix.
 */
export const MAX_PATH_PARAMETER_LENGTH = 512;
