import { ServiceError } from '../errors/service-error.js';

/**
 * Versioning 2: scope routes carry the quoted version in If-Match. Missing → 428 `precondition_required` (the
 * client must read before it writes); malformed → 422; a stale one becomes 409 `version_conflict` at the append.
 */
export function ifMatchVersion(header: string | undefined, what = 'the scope'): number {
  if (header === undefined || header.trim() === '') {
    throw new ServiceError('precondition_required', `send If-Match with the quoted version of ${what}`);
  }
  const match = /^(?:W\/)?"(\d+)"$/.exec(header.trim());
  if (!match) {
    throw new ServiceError('invalid_input', 'If-Match must hold the quoted version, e.g. "3"', {
      fields: [{ field: 'If-Match', problems: ['must be a quoted version'] }],
    });
  }
  return Number(match[1]);
}
